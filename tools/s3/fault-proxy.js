// A fault-injecting HTTP proxy in front of an S3 server, for sinkd's retry tests: each request is,
// at configurable rates, answered 500 InternalError or 503 SlowDown without reaching the store,
// reset before it reaches the store, forwarded and then reset or answered 500 after the store did
// the work (the answer is lost: the case that makes a retried create meet its own object), or
// delayed. Faults are drawn from a seeded generator, so a run is repeatable. A request whose URL
// contains the --stall text is read and never answered (a store that accepts and hangs), before
// any drawn fault.
//
//   node fault-proxy.js UPSTREAM_PORT [options]
//     --port N             listen port (default 0: the OS chooses)
//     --seed N             generator seed (default 1)
//     --rate-500 R         answer 500 InternalError                         (0..1, default 0)
//     --rate-503 R         answer 503 SlowDown                               (default 0)
//     --rate-reset R       reset the connection before forwarding            (default 0)
//     --rate-reset-after R forward, let the store answer, then reset         (default 0)
//     --rate-500-after R   forward, let the store answer, then answer 500    (default 0)
//     --rate-latency R     delay the request by --latency-ms                  (default 0)
//     --latency-ms N       (default 50)
//     --stall TEXT         never answer a request whose URL contains TEXT     (default: none)
//     --log FILE           one JSON line per request: method, url, fault
// First line printed: "fault-proxy listening on 127.0.0.1:<port>". SIGTERM/SIGINT exit 0.
import fs from 'node:fs';
import http from 'node:http';

function parseArgs(argv) {
  const opts = {
    port: 0, seed: 1, latencyMs: 50,
    rates: { '500': 0, '503': 0, reset: 0, 'reset-after': 0, '500-after': 0 },
    latencyRate: 0,
  };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--port') opts.port = Number(value());
    else if (a === '--seed') opts.seed = Number(value());
    else if (a === '--latency-ms') opts.latencyMs = Number(value());
    else if (a === '--rate-latency') opts.latencyRate = Number(value());
    else if (a === '--log') opts.log = value();
    else if (a === '--stall') opts.stall = value();
    else if (a.startsWith('--rate-') && a.slice(7) in opts.rates) opts.rates[a.slice(7)] = Number(value());
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else positional.push(a);
  }
  if (positional.length !== 1) throw new Error('usage: fault-proxy.js UPSTREAM_PORT [options]');
  opts.upstreamPort = Number(positional[0]);
  const total = Object.values(opts.rates).reduce((a, b) => a + b, 0);
  if (total > 1) throw new Error('fault rates add up to more than 1');
  return opts;
}

// mulberry32: small, seeded, good enough to spread faults.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function xmlError(res, status, code, message) {
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const random = generator(opts.seed);
  const log = opts.log ? fs.openSync(opts.log, 'a') : null;
  const agent = new http.Agent({ keepAlive: true });
  const pick = () => {
    const u = random();
    let edge = 0;
    for (const [fault, rate] of Object.entries(opts.rates)) {
      edge += rate;
      if (u < edge) return fault;
    }
    return 'none';
  };

  const server = http.createServer((req, res) => {
    if (opts.stall && req.url.includes(opts.stall)) {
      if (log !== null) {
        fs.writeSync(log, JSON.stringify({ method: req.method, url: req.url, fault: 'stall', delay: 0 }) + '\n');
      }
      req.resume();  // the body is taken, the answer never comes
      return;
    }
    const fault = pick();
    const delay = random() < opts.latencyRate ? opts.latencyMs : 0;
    if (log !== null) {
      fs.writeSync(log, JSON.stringify({ method: req.method, url: req.url, fault, delay }) + '\n');
    }
    if (fault === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    if (fault === '500' || fault === '503') {
      req.resume();
      req.on('end', () => {
        if (fault === '500') xmlError(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
        else xmlError(res, 503, 'SlowDown', 'Please reduce your request rate.');
      });
      return;
    }
    const forward = () => {
      const upstream = http.request(
        { host: '127.0.0.1', port: opts.upstreamPort, method: req.method, path: req.url,
          headers: req.headers, agent },
        answer => {
          if (fault === 'reset-after' || fault === '500-after') {
            answer.resume();
            answer.on('end', () => {
              if (fault === 'reset-after') req.socket.resetAndDestroy();
              else xmlError(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
            });
            return;
          }
          res.writeHead(answer.statusCode, answer.headers);
          answer.pipe(res);
        });
      upstream.on('error', err => {
        if (!res.headersSent) xmlError(res, 502, 'BadGateway', `fault-proxy: upstream: ${err.message}`);
        else res.destroy();
      });
      req.pipe(upstream);
    };
    if (delay > 0) setTimeout(forward, delay);
    else forward();
  });
  server.listen(opts.port, '127.0.0.1', () => {
    process.stdout.write(`fault-proxy listening on 127.0.0.1:${server.address().port}\n`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

try {
  main();
} catch (err) {
  process.stderr.write(`fault-proxy: ${err.message}\n`);
  process.exit(2);
}
