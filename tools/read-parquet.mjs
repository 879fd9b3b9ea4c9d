#!/usr/bin/env node
// Reads a Parquet file with an independent decoder and prints every value as canonical text, so
// the C++ tests can compare what a second and third implementation read with the source data.
// Usage: node tools/read-parquet.mjs hyparquet|parquet-wasm FILE
// Output: {"num_rows":N,"columns":["a",…],"rows":[["v",…],…]} where each value is a JSON string
// (or null for a null):
//   strings    as-is;
//   integers   decimal (INT32 and INT64 alike);
//   timestamps microseconds since the epoch, decimal (never a Date: that would drop the micros);
//   booleans   true / false;
//   doubles    the shortest decimal that reads back as the same double (JavaScript's
//              Number→String, e.g. 0.1, 1e+21, 5e-324), except that negative zero is "-0";
//              NaN is "NaN", infinities "Infinity" / "-Infinity". strtod() reads every form back,
//              so a C++ test compares doubles bit for bit after parsing.
// Exit 1 with the reader's error on stderr when the file cannot be read.
import fs from 'node:fs';

function canonical(value) {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string': return value;
    case 'bigint': return value.toString();
    case 'boolean': return value ? 'true' : 'false';
    case 'number': return Object.is(value, -0) ? '-0' : String(value);
    default: throw new Error(`unexpected ${typeof value} value: ${String(value)}`);
  }
}

// hyparquet decodes in plain JavaScript; its parsers option keeps timestamps as bigint micros.
async function readWithHyparquet(bytes) {
  const { parquetMetadata, parquetRead } = await import('hyparquet');
  const { compressors } = await import('hyparquet-compressors');
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const metadata = parquetMetadata(file);
  const columns = metadata.schema.slice(1).map((element) => element.name);
  let rows = [];
  await parquetRead({
    file,
    metadata,
    compressors,
    rowFormat: 'array',
    parsers: { timestampFromMicroseconds: (micros) => micros },
    onComplete: (decoded) => { rows = decoded; },
  });
  return { num_rows: Number(metadata.num_rows), columns, rows: rows.map((r) => r.map(canonical)) };
}

// parquet-wasm (arrow-rs) hands back Arrow data. Without the apache-arrow package, the values are
// read through the Arrow C data interface straight out of the wasm memory (wasm32: 4-byte
// pointers, 8-byte int64 fields).
const kSchema = { format: 0, name: 4, nChildren: 24, children: 32 };
const kArray = { length: 0, offset: 16, buffers: 40, children: 44 };

function wasmView(pw) {
  const buffer = pw.wasmMemory().buffer;
  const dv = new DataView(buffer);
  const u8 = new Uint8Array(buffer);
  const cstr = (p) => {
    let end = p;
    while (u8[end] !== 0) end++;
    return new TextDecoder().decode(u8.subarray(p, end));
  };
  const ptr = (p) => dv.getUint32(p, true);
  const i64 = (p) => Number(dv.getBigInt64(p, true));
  return { dv, u8, cstr, ptr, i64 };
}

function arrowValue(m, format, buffers, index) {
  const validity = m.ptr(buffers);
  if (validity !== 0 && ((m.u8[validity + (index >> 3)] >> (index & 7)) & 1) === 0) return null;
  const data = m.ptr(buffers + 4);
  if (format === 'b') return ((m.u8[data + (index >> 3)] >> (index & 7)) & 1) === 1;
  if (format === 'i') return m.dv.getInt32(data + 4 * index, true);
  if (format === 'l' || format.startsWith('tsu:')) return m.dv.getBigInt64(data + 8 * index, true);
  if (format === 'g') return m.dv.getFloat64(data + 8 * index, true);
  if (format === 'u' || format === 'U') {
    const wide = format === 'U';
    const at = (k) => (wide ? Number(m.dv.getBigInt64(data + 8 * k, true))
                            : m.dv.getInt32(data + 4 * k, true));
    const bytes = m.ptr(buffers + 8);
    return new TextDecoder().decode(m.u8.subarray(bytes + at(index), bytes + at(index + 1)));
  }
  if (format === 'vu') {
    const view = data + 16 * index;
    const length = m.dv.getInt32(view, true);
    if (length <= 12) return new TextDecoder().decode(m.u8.subarray(view + 4, view + 4 + length));
    const buffer = m.ptr(buffers + 8 + 4 * m.dv.getInt32(view + 8, true));
    const start = buffer + m.dv.getInt32(view + 12, true);
    return new TextDecoder().decode(m.u8.subarray(start, start + length));
  }
  throw new Error(`unsupported Arrow format ${format}`);
}

async function readWithParquetWasm(bytes) {
  const pw = await import('parquet-wasm');
  const table = pw.readParquet(new Uint8Array(bytes));
  const stream = table.toFFI();
  const m = wasmView(pw);
  const schema = stream.schemaAddr();
  const fields = [];
  for (let c = 0; c < m.i64(schema + kSchema.nChildren); c++) {
    const child = m.ptr(m.ptr(schema + kSchema.children) + 4 * c);
    fields.push({ name: m.cstr(m.ptr(child + kSchema.name)),
                  format: m.cstr(m.ptr(child + kSchema.format)) });
  }
  const rows = [];
  for (let b = 0; b < stream.numArrays(); b++) {
    const batch = stream.arrayAddr(b);
    const length = m.i64(batch + kArray.length);
    const batchOffset = m.i64(batch + kArray.offset);
    const columns = fields.map((field, c) => {
      const child = m.ptr(m.ptr(batch + kArray.children) + 4 * c);
      return { format: field.format, buffers: m.ptr(child + kArray.buffers),
               offset: batchOffset + m.i64(child + kArray.offset) };
    });
    for (let r = 0; r < length; r++) {
      rows.push(columns.map((col) => canonical(arrowValue(m, col.format, col.buffers,
                                                          col.offset + r))));
    }
  }
  return { num_rows: rows.length, columns: fields.map((f) => f.name), rows };
}

const [reader, path] = process.argv.slice(2);
if (!path || (reader !== 'hyparquet' && reader !== 'parquet-wasm')) {
  console.error('usage: read-parquet.mjs hyparquet|parquet-wasm FILE');
  process.exit(2);
}
try {
  const bytes = fs.readFileSync(path);
  const result = reader === 'hyparquet' ? await readWithHyparquet(bytes)
                                        : await readWithParquetWasm(bytes);
  process.stdout.write(JSON.stringify(result) + '\n');
} catch (err) {
  console.error(String(err && err.stack ? err.stack : err));
  process.exit(1);
}
