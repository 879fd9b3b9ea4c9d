#!/usr/bin/env node
// The DuckDB side of bench/lake_bench: DuckDB writing the same rows to ZSTD Parquet.
// Usage: node bench/duckdb_copy.mjs INPUT.parquet OUTPUT ZSTD_LEVEL THREADS RUNS [partitioned]
// Loads INPUT into an in-memory table (not timed), then times RUNS times, with THREADS threads,
//   one file:     COPY t TO OUTPUT (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL n)
//   partitioned:  the same with PARTITION_BY (date, app) into the directory OUTPUT, `date` being
//                 the UTC date of `time`, computed at load (the Go sink's own method);
// and prints {"rows":…,"best_ms":…,"runs_ms":[…],"bytes":…,"files":…,"version":"…"}.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const [input, output, level = '3', threads = '2', runs = '3', mode = 'one'] = process.argv.slice(2);
const partitioned = mode === 'partitioned';
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run(`SET threads=${Number(threads)}`);
await con.run(`SET preserve_insertion_order=true`);
// epoch_us keeps the date in UTC whatever the session's time zone.
const date = `DATE '1970-01-01' + CAST(epoch_us(time) // 86400000000 AS INTEGER) AS date`;
await con.run(`CREATE TABLE t AS SELECT *${partitioned ? ', ' + date : ''} FROM read_parquet(${lit(input)})`);
const rows = Number((await con.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjectsJson()[0].n);
const version = (await con.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v;
const options = `FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${Number(level)}` +
                (partitioned ? ', PARTITION_BY (date, app)' : '');
const times = [];
for (let i = 0; i < Number(runs); i++) {
  fs.rmSync(output, { force: true, recursive: true });
  const start = process.hrtime.bigint();
  await con.run(`COPY t TO ${lit(output)} (${options})`);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
let bytes = 0;
let files = 0;
const walk = (p) => {
  const st = fs.statSync(p);
  if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  else { bytes += st.size; files += 1; }
};
walk(output);
process.stdout.write(JSON.stringify({ rows, best_ms: Math.min(...times), runs_ms: times, bytes, files, version }) + '\n');
