#!/usr/bin/env node
// The nodejs-polars side of bench/lake_bench: polars writing the same rows to ZSTD Parquet.
// Usage: POLARS_MAX_THREADS=T node bench/polars_write.mjs INPUT.parquet OUTPUT.parquet ZSTD_LEVEL RUNS
// (polars sizes its thread pool from POLARS_MAX_THREADS when it loads, so the caller sets it).
// Reads INPUT into a DataFrame (not timed), times RUNS × df.writeParquet(OUTPUT, zstd at the level)
// and prints {"rows":…,"best_ms":…,"runs_ms":[…],"bytes":…,"version":"…","threads":…}.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import pl from 'nodejs-polars';

const [input, output, level = '3', runs = '3'] = process.argv.slice(2);
const df = pl.readParquet(input);
const times = [];
for (let i = 0; i < Number(runs); i++) {
  fs.rmSync(output, { force: true });
  const start = process.hrtime.bigint();
  df.writeParquet(output, { compression: 'zstd', compressionLevel: Number(level) });
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
const version = createRequire(import.meta.url)('nodejs-polars/package.json').version;
process.stdout.write(JSON.stringify({
  rows: df.height, best_ms: Math.min(...times), runs_ms: times, bytes: fs.statSync(output).size,
  version, threads: process.env.POLARS_MAX_THREADS ?? 'default',
}) + '\n');
