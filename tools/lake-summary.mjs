#!/usr/bin/env node
// Prints what a sinkd lake holds, the way an analyst would look at it with DuckDB: rows per
// date/app, the README's dedupe query, dead letters, and what the Parquet footers say.
// Usage: node tools/lake-summary.mjs LAKE_DIR
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const lake = process.argv[2];
if (!lake) {
  console.error('usage: lake-summary.mjs LAKE_DIR');
  process.exit(2);
}
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run("SET TimeZone='UTC'");
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const table = (rows) => {
  if (rows.length === 0) return '  (none)';
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals) => '  ' + vals.map((v, i) => String(v).padEnd(width[i])).join('  ');
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => r[c])))].join('\n');
};
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";

for (const prefix of ['ledger', 'audit']) {
  const dir = path.join(lake, prefix);
  if (!fs.existsSync(dir)) continue;
  const glob = lit(path.join(dir, '**', '*.parquet'));
  const src = `read_parquet(${glob}, hive_partitioning=true, union_by_name=true)`;
  console.log(`\n== ${prefix}: ${path.join(dir, '**/*.parquet')}`);
  const [files] = await q(`SELECT count(*) AS parts, sum(size) AS bytes FROM (SELECT file_name, sum(total_compressed_size) AS size FROM parquet_metadata(${glob}) GROUP BY file_name)`);
  const [totals] = await q(`SELECT count(*) AS rows, count(DISTINCT event_id) AS distinct_event_ids FROM ${src}`);
  console.log(`parts: ${files.parts}   rows: ${totals.rows}   distinct event_id: ${totals.distinct_event_ids}`);
  console.log('\nrows per date and app (top 12):');
  console.log(table(await q(`SELECT date, app, count(*) AS rows, round(sum(cost_usd), 2) AS cost_usd FROM ${src} GROUP BY ALL ORDER BY rows DESC, date, app LIMIT 12`)));
  console.log('\nthe README\'s dedupe query: every event exactly once');
  const dedupe = `SELECT * FROM ${src} QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY time) = 1`;
  const [deduped] = await q(`SELECT count(*) AS rows_after_dedupe FROM (${dedupe})`);
  console.log(`  rows after dedupe: ${deduped.rows_after_dedupe} (duplicates removed: ${Number(totals.rows) - Number(deduped.rows_after_dedupe)})`);
  console.log('\noutcomes after dedupe:');
  console.log(table(await q(`SELECT outcome, count(*) AS rows FROM (${dedupe}) GROUP BY ALL ORDER BY rows DESC`)));
  const codecs = await q(`SELECT DISTINCT compression FROM parquet_metadata(${glob})`);
  const stats = await q(`SELECT count(*) AS chunks_without_stats FROM parquet_metadata(${glob}) WHERE stats_min IS NULL AND stats_min_value IS NULL`);
  console.log(`\nfooters: compression ${codecs.map((c) => c.compression).join(', ')}; column chunks without min/max statistics: ${stats[0].chunks_without_stats}`);
}
const dead = path.join(lake, 'dead-letters');
if (fs.existsSync(dead)) {
  console.log(`\n== dead letters: ${dead}`);
  console.log(table(await q(`SELECT split_part(filename, '/', -2) AS stream, reason, count(*) AS records FROM read_json(${lit(path.join(dead, '**', '*.jsonl'))}, filename=true) GROUP BY ALL ORDER BY ALL`)));
}
