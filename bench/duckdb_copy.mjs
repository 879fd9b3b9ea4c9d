#!/usr/bin/env node
// The peer side of bench/lake_bench: DuckDB writing the same rows to ZSTD Parquet.
// Usage: node bench/duckdb_copy.mjs INPUT.parquet OUTPUT.parquet ZSTD_LEVEL THREADS RUNS
// Loads INPUT into an in-memory table (not timed), then times `COPY t TO OUTPUT (FORMAT parquet,
// COMPRESSION zstd, COMPRESSION_LEVEL n)` RUNS times with THREADS threads and prints
// {"rows":…,"best_ms":…,"runs_ms":[…],"bytes":…,"version":"…"}.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';

const [input, output, level = '3', threads = '2', runs = '3'] = process.argv.slice(2);
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run(`SET threads=${Number(threads)}`);
await con.run(`SET preserve_insertion_order=true`);
await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${lit(input)})`);
const rows = Number((await con.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjectsJson()[0].n);
const version = (await con.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v;
const times = [];
for (let i = 0; i < Number(runs); i++) {
  fs.rmSync(output, { force: true });
  const start = process.hrtime.bigint();
  await con.run(`COPY t TO ${lit(output)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${Number(level)})`);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
process.stdout.write(JSON.stringify({ rows, best_ms: Math.min(...times), runs_ms: times, bytes: fs.statSync(output).size, version }) + '\n');
