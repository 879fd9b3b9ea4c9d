#!/usr/bin/env node
// The peer side of bench/compact_bench: DuckDB on the same lake.
// Usage:
//   node bench/compact_duckdb.mjs copy RAW_GLOB OUT_DIR THREADS
//     times `COPY (SELECT * … QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY time) = 1)
//     TO OUT_DIR (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date, app))`, the job
//     `sinkd compact` does, from the raw lake; prints {"rows_in":…,"rows_out":…,"ms":…}.
//   node bench/compact_duckdb.mjs queries GLOB THREADS RUNS
//     the four queries of lake-lifecycle.md §1, best of RUNS each; prints
//     {"dedupe_ms":…,"point_ms":…,"app_day_ms":…,"sums_ms":…,"files":…,"rows":…}.
//   node bench/compact_duckdb.mjs counts GLOB
//     {"rows":…,"distinct":…,"files":…}.
//   node bench/compact_duckdb.mjs layout GLOB
//     how the files are laid out (parquet_metadata): {"files":…,"row_groups":…,
//     "rows_per_row_group":…,"event_id":{"encodings":…,"bytes":…},"time":{…}}, the columns the
//     dedupe query reads.
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, ...args] = process.argv.slice(2);
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run(`SET TimeZone='UTC'`);
const one = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson()[0];
const ms = async (sql) => {
  const start = process.hrtime.bigint();
  await con.runAndReadAll(sql);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');

if (mode === 'copy') {
  const [glob, dir, threads = '2'] = args;
  await con.run(`SET threads=${Number(threads)}`);
  const src = `read_parquet(${lit(glob)})`;
  const rowsIn = Number((await one(`SELECT count(*) AS n FROM ${src}`)).n);
  const t = await ms(`COPY (SELECT * FROM ${src} QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY time) = 1) ` +
                     `TO ${lit(dir)} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date, app), OVERWRITE_OR_IGNORE)`);
  const rowsOut = Number((await one(`SELECT count(*) AS n FROM read_parquet(${lit(dir + '/**/*.parquet')})`)).n);
  out({ rows_in: rowsIn, rows_out: rowsOut, ms: t });
} else if (mode === 'queries') {
  const [glob, threads = '2', runs = '3'] = args;
  await con.run(`SET threads=${Number(threads)}`);
  const src = `read_parquet(${lit(glob)})`;
  const probe = await one(`SELECT event_id, app, CAST(date AS VARCHAR) AS d FROM ${src} LIMIT 1 OFFSET 777`);
  const queries = {
    dedupe_ms: `SELECT count(*) FROM (SELECT event_id FROM ${src} QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY time) = 1)`,
    point_ms: `SELECT * FROM ${src} WHERE event_id = ${lit(probe.event_id)}`,
    app_day_ms: `SELECT count(*), sum(cost_usd) FROM ${src} WHERE app = ${lit(probe.app)} AND CAST(date AS VARCHAR) = ${lit(probe.d)}`,
    sums_ms: `SELECT date, app, count(*), sum(cost_usd) FROM ${src} GROUP BY ALL ORDER BY ALL`,
  };
  const result = {};
  for (const [name, sql] of Object.entries(queries)) {
    const times = [];
    for (let i = 0; i < Number(runs); i++) times.push(await ms(sql));
    result[name] = Math.min(...times);
  }
  const c = await one(`SELECT count(*) AS rows, count(DISTINCT filename) AS files FROM read_parquet(${lit(glob)}, filename=true)`);
  out({ ...result, rows: Number(c.rows), files: Number(c.files) });
} else if (mode === 'counts') {
  const [glob] = args;
  const c = await one(`SELECT count(*) AS rows, count(DISTINCT event_id) AS ids, count(DISTINCT filename) AS files FROM read_parquet(${lit(glob)}, filename=true)`);
  out({ rows: Number(c.rows), distinct: Number(c.ids), files: Number(c.files) });
} else if (mode === 'layout') {
  const [glob] = args;
  const meta = `parquet_metadata(${lit(glob)})`;
  const g = await one(`SELECT count(DISTINCT file_name) AS files, count(DISTINCT (file_name, row_group_id)) AS rgs, ` +
                      `sum(num_values) FILTER (WHERE path_in_schema = 'event_id') AS rows FROM ${meta}`);
  const column = async (name) => {
    const c = await one(`SELECT string_agg(DISTINCT encodings, ' | ') AS encodings, sum(total_compressed_size) AS bytes ` +
                        `FROM ${meta} WHERE path_in_schema = ${lit(name)}`);
    return { encodings: c.encodings, bytes: Number(c.bytes) };
  };
  out({ files: Number(g.files), row_groups: Number(g.rgs), rows_per_row_group: Math.round(Number(g.rows) / Number(g.rgs)),
        event_id: await column('event_id'), time: await column('time') });
} else if (mode === 'breakdown') {
  const [glob, threads = '2', runs = '3'] = args;
  await con.run(`SET threads=${Number(threads)}`);
  const src = `read_parquet(${lit(glob)})`;
  const best = async (sql) => {
    const times = [];
    for (let i = 0; i < Number(runs); i++) times.push(await ms(sql));
    return Math.min(...times);
  };
  out({
    scan_ms: await best(`SELECT max(length(event_id)), max(time) FROM ${src}`),
    distinct_ms: await best(`SELECT count(DISTINCT event_id) FROM ${src}`),
    dedupe_ms: await best(`SELECT count(*) FROM (SELECT event_id FROM ${src} QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY time) = 1)`),
  });
} else {
  process.stderr.write('usage: compact_duckdb.mjs copy|queries|counts|layout|breakdown …\n');
  process.exit(2);
}
