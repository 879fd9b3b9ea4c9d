#!/usr/bin/env node
// One NATS request over the plain text protocol (there is no nats CLI here): prints the reply's
// payload. Used for the JetStream API, e.g. a stream leader step-down:
//   node nats-request.mjs nats://127.0.0.1:4222 '$JS.API.STREAM.LEADER.STEPDOWN.GARM_LEDGER' ['{}']
// Exits 1 when no reply comes within 5 s.
import net from 'node:net';

const [url, subject, payload = ''] = process.argv.slice(2);
const { hostname, port } = new URL(url);
const inbox = `_INBOX.chaos.${process.pid}.${Date.now()}`;
const socket = net.connect(Number(port), hostname);
const timer = setTimeout(() => {
  console.error(`nats-request: no reply to ${subject} within 5 s`);
  process.exit(1);
}, 5000);
let buffer = Buffer.alloc(0);
socket.on('connect', () => {
  const body = Buffer.from(payload);
  socket.write(`CONNECT {"verbose":false,"pedantic":false,"name":"chaos"}\r\nSUB ${inbox} 1\r\n`);
  socket.write(`PUB ${subject} ${inbox} ${body.length}\r\n`);
  socket.write(Buffer.concat([body, Buffer.from('\r\n')]));
});
socket.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const eol = buffer.indexOf('\r\n');
    if (eol < 0) return;
    const line = buffer.subarray(0, eol).toString();
    if (line.startsWith('PING')) {
      socket.write('PONG\r\n');
      buffer = buffer.subarray(eol + 2);
    } else if (line.startsWith('MSG ')) {
      const size = Number(line.split(' ').pop());
      if (buffer.length < eol + 2 + size + 2) return;
      process.stdout.write(buffer.subarray(eol + 2, eol + 2 + size).toString() + '\n');
      clearTimeout(timer);
      socket.end();
      process.exit(0);
    } else if (line.startsWith('-ERR')) {
      console.error(`nats-request: ${line}`);
      process.exit(1);
    } else {
      buffer = buffer.subarray(eol + 2);
    }
  }
});
socket.on('error', (err) => {
  console.error(`nats-request: ${err.message}`);
  process.exit(1);
});
