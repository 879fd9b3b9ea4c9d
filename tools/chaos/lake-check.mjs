#!/usr/bin/env node
// The campaign's reader: DuckDB reads what sinkd wrote and compares it with what was sent.
// Prints one JSON object. Modes:
//   parts GLOB                       every file the glob finds, read one by one: {parts, unreadable, bad[]}
//   drain REF_GLOB LAKE_GLOB         {expected, found, lost, rows, rows_per_expected}: REF_GLOB is a lake
//                                    `sinkd import` wrote from the same wire file (the expected event ids)
//   acked REF_SEQ LAKE_GLOB FLOOR    {acked_events, missing}: REF_SEQ is a Parquet file of (event_id, seq);
//                                    every event of a message at or below the ack floor must be in the lake
//   refseq REF_GLOB OUT              writes (event_id, seq) from an import made one message per batch
//                                    (Part names end -<first>-<last>-<n>.parquet)
//   table REF_GLOB FILES_JSON        FILES_JSON = `node tools/icebird-read.mjs TABLE_URL --files`'s output
//                                    (the current snapshot's data files, read from its manifests):
//                                    {expected, found, lost, rows, rows_per_expected, files, snapshots}
//   outbox CSV LAKE_GLOB             CSV = committed outbox rows (txid,seq,id); {committed, skipped, rows,
//                                    rows_per_expected, parts, parts_not_contiguous}
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const q = (s) => `'${s.replaceAll("'", "''")}'`;

function walk(dir, suffix, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, suffix, out);
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out;
}

const [mode, ...args] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
await con.run("SET TimeZone='UTC'");
const one = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson()[0];
let out;
if (mode === 'parts') {
  // GLOB here is "DIR:SUFFIX" so that a Part that DuckDB cannot even open is still counted.
  const [dir, suffix] = args[0].split(':');
  const files = walk(dir, suffix);
  const bad = [];
  for (const f of files) {
    try {
      await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${q(f)})`);
    } catch (err) {
      bad.push(`${f}: ${String(err.message).split('\n')[0]}`);
    }
  }
  out = { parts: files.length, unreadable: bad.length, bad: bad.slice(0, 5) };
} else if (mode === 'drain') {
  const [ref, lake] = args;
  await con.run(`CREATE TABLE ref AS SELECT DISTINCT event_id FROM read_parquet(${q(ref)}, hive_partitioning=false)`);
  await con.run(`CREATE TABLE got AS SELECT event_id FROM read_parquet(${q(lake)}, hive_partitioning=false, union_by_name=true)`);
  const r = await one(`SELECT (SELECT count(*) FROM ref) AS expected,
      (SELECT count(DISTINCT event_id) FROM got) AS found,
      (SELECT count(*) FROM ref ANTI JOIN (SELECT DISTINCT event_id FROM got) g USING (event_id)) AS lost,
      (SELECT count(*) FROM got) AS rows`);
  out = { ...r, rows_per_expected: Number(r.rows) / Number(r.expected) };
} else if (mode === 'table') {
  const [ref, listing] = args;
  const table = JSON.parse(fs.readFileSync(listing, 'utf8'));
  const files = table.files.map((f) => (f.startsWith('file://') ? f.slice(7) : f));
  await con.run(`CREATE TABLE ref AS SELECT DISTINCT event_id FROM read_parquet(${q(ref)}, hive_partitioning=false)`);
  await con.run(files.length
    ? `CREATE TABLE got AS SELECT event_id FROM read_parquet([${files.map(q).join(', ')}], hive_partitioning=false, union_by_name=true)`
    : 'CREATE TABLE got (event_id VARCHAR)');
  const r = await one(`SELECT (SELECT count(*) FROM ref) AS expected,
      (SELECT count(DISTINCT event_id) FROM got) AS found,
      (SELECT count(*) FROM ref ANTI JOIN (SELECT DISTINCT event_id FROM got) g USING (event_id)) AS lost,
      (SELECT count(*) FROM got) AS rows`);
  out = { ...r, rows_per_expected: Number(r.rows) / Number(r.expected), files: files.length,
          snapshots: table.snapshots };
} else if (mode === 'refseq') {
  const [ref, dest] = args;
  await con.run(`COPY (SELECT event_id, CAST(regexp_extract(filename, '-([0-9]+)-[0-9]+-[0-9]+\\.parquet$', 1) AS BIGINT) AS seq
      FROM read_parquet(${q(ref)}, filename=true, hive_partitioning=false)) TO ${q(dest)} (FORMAT parquet)`);
  out = await one(`SELECT count(*) AS events, max(seq) AS messages, count(*) FILTER (WHERE seq IS NULL) AS unnamed FROM read_parquet(${q(dest)})`);
} else if (mode === 'acked') {
  const [ref, lake, floor] = args;
  const have = fs.existsSync(lake.split('/**')[0])
    ? `SELECT DISTINCT event_id FROM read_parquet(${q(lake)}, hive_partitioning=false, union_by_name=true)`
    : `SELECT NULL::VARCHAR AS event_id WHERE false`;
  out = await one(`WITH acked AS (SELECT event_id FROM read_parquet(${q(ref)}) WHERE seq <= ${Number(floor)})
      SELECT (SELECT count(*) FROM acked) AS acked_events,
             (SELECT count(*) FROM acked ANTI JOIN (${have}) h USING (event_id)) AS missing`);
} else if (mode === 'outbox') {
  const [csv, lake] = args;
  await con.run(`CREATE TABLE committed AS SELECT * FROM read_csv(${q(csv)}, header=false,
      columns={'txid':'BIGINT','seq':'BIGINT','id':'VARCHAR'})`);
  await con.run(`CREATE TABLE got AS SELECT event_id, txid, seq, filename
      FROM read_parquet(${q(lake)}, filename=true, hive_partitioning=false, union_by_name=true)`);
  const r = await one(`SELECT (SELECT count(*) FROM committed) AS committed,
      (SELECT count(*) FROM committed c ANTI JOIN (SELECT DISTINCT event_id FROM got) g ON g.event_id = c.id) AS skipped,
      (SELECT count(*) FROM got) AS rows,
      (SELECT count(DISTINCT filename) FROM got) AS parts`);
  // Order: a delivery is one contiguous run of the final commit order. A Part holding positions
  // a..b holds every event committed between them, so no event was delivered ahead of one with
  // an earlier position that committed later (the outbox's visibility pitfall), and none skipped.
  // (Rows inside a Part are sorted by time and event_id, so file order says nothing.)
  const c = await one(`WITH p AS (SELECT filename, min((txid, seq)) AS lo, max((txid, seq)) AS hi, count(*) AS n FROM got GROUP BY filename)
      SELECT count(*) FILTER (WHERE n <> (SELECT count(*) FROM committed WHERE (txid, seq) BETWEEN p.lo AND p.hi)) AS parts_not_contiguous
      FROM p`);
  out = { ...r, rows_per_expected: Number(r.rows) / Number(r.committed), ...c };
} else {
  console.error('usage: lake-check.mjs parts|drain|table|refseq|acked|outbox …');
  process.exit(2);
}
process.stdout.write(JSON.stringify(out) + '\n');
