#!/usr/bin/env node
// Writes one Parquet file the way the Go sink's lake does (DuckDB COPY … (FORMAT parquet,
// COMPRESSION zstd) of a table declared without NOT NULL, so every column is OPTIONAL; TIMESTAMP
// without time zone; no `app`/`date` inside the file), from deterministic generated ledger rows.
// Usage: node tools/duckdb-ledger-part.mjs <out.parquet> <rows> <seed> [options]
//   --nulls                 every column NULL in about 1 row of 13 (the Go sink never writes NULL;
//                           DuckDB and compaction outputs may)
//   --execution-subject     the 40th column (the Go sink's v0.7.0 and later)
//   --row-group-size <n>    DuckDB's ROW_GROUP_SIZE (default: DuckDB's, 122,880)
//   --compression <c>       zstd (default), uncompressed, snappy, …
//   --parquet-version <v>   v1 (default) or v2
// The rows mix dictionary-heavy columns (tenant, model, outcome), high-cardinality ones
// (event_id, provider_request_id, run_id), unicode, empty and long strings (error_detail up to
// ~6 KB), extremes of every integer type and special doubles.
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
if (args.length < 3) {
  console.error('usage: duckdb-ledger-part.mjs <out.parquet> <rows> <seed> [--nulls] ' +
                '[--execution-subject] [--row-group-size n] [--compression c] [--parquet-version v]');
  process.exit(2);
}
const [out, rowsText, seedText] = args;
const rows = Number(rowsText);
const seed = Number(seedText);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const nulls = flag('--nulls');

// h(k): a deterministic 64-bit hash of the row and the column's own salt.
const h = (k) => `hash(i * 7919 + ${seed * 1000 + k})`;
const pick = (k, list) =>
  `(['${list.join("','")}'])[1 + (${h(k)} % ${list.length})::INTEGER]`;
// Zipf-like skew: the cube of a uniform [0,1) picks low indices most often.
const skew = (k, n) => `floor(pow((${h(k)} % 1000000) / 1000000.0, 3) * ${n})::INTEGER`;

const columns = [
  ['event_id', 'VARCHAR', `'evt-' || lpad(i::VARCHAR, 9, '0') || '-' || (${h(1)} % 100000)::VARCHAR`],
  ['time', 'TIMESTAMP', `TIMESTAMP '2026-09-22 00:00:00' + to_microseconds((i * 997 + ${h(2)} % 1000)::BIGINT)`],
  ['tenant', 'VARCHAR', `'tenant-' || ${skew(3, 50)}::VARCHAR`],
  ['feature', 'VARCHAR', `'feature/' || ${skew(4, 300)}::VARCHAR || '/summarise'`],
  ['run_id', 'VARCHAR', `'run-' || (i // 50)::VARCHAR || '-' || (hash(i // 50) % 1000000)::VARCHAR`],
  ['correlation_id', 'VARCHAR', `CASE WHEN ${h(5)} % 4 = 0 THEN '' ELSE 'corr-' || (${h(5)} % 100000000)::VARCHAR END`],
  ['causation_id', 'VARCHAR', `CASE WHEN ${h(6)} % 3 = 0 THEN '' ELSE 'cause-' || (${h(6)} % 1000)::VARCHAR END`],
  ['budget_id', 'VARCHAR', pick(7, ['', 'budget-a', 'budget-b', 'budget-ç'])],
  ['tags_json', 'VARCHAR', `CASE WHEN ${h(8)} % 2 = 0 THEN '{}' ELSE '{"env":"' || ${pick(9, ['prod', 'dev', 'staging'])} || '","team":"t' || (${h(8)} % 20)::VARCHAR || '"}' END`],
  ['prompt_name', 'VARCHAR', pick(10, ['summarise', 'classify', 'extract', 'translate', 'rédiger', '要約'])],
  ['prompt_hash', 'VARCHAR', `md5((${h(11)} % 500)::VARCHAR)`],
  ['alias', 'VARCHAR', pick(12, ['fast', 'smart', 'cheap', ''])],
  ['resolved_model', 'VARCHAR', pick(13, ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet', 'claude-haiku', 'llama-70b', 'o3', 'gemini-flash'])],
  ['model_overridden', 'BOOLEAN', `${h(14)} % 20 = 0`],
  ['input_tokens', 'BIGINT', `CASE WHEN i % 9973 = 5 THEN 9223372036854775807 WHEN i % 9973 = 6 THEN -9223372036854775808 ELSE (${h(15)} % 50000)::BIGINT END`],
  ['output_tokens', 'BIGINT', `(${h(16)} % 4000)::BIGINT`],
  ['cached_tokens', 'BIGINT', `CASE WHEN ${h(17)} % 10 = 0 THEN (${h(17)} % 1000)::BIGINT ELSE 0 END`],
  ['reasoning_tokens', 'BIGINT', `CASE WHEN ${h(18)} % 5 = 0 THEN (${h(18)} % 20000)::BIGINT ELSE 0 END`],
  ['cost_usd', 'DOUBLE', `CASE i % 5003 WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN '-inf'::DOUBLE WHEN 3 THEN -0.0::DOUBLE WHEN 4 THEN 5e-324::DOUBLE WHEN 5 THEN 'nan'::DOUBLE ELSE (${h(19)} % 100000000) / 1e9 END`],
  ['cost_source', 'VARCHAR', pick(20, ['provider', 'estimate', 'table'])],
  ['latency_ms', 'BIGINT', `(200 + ${h(21)} % 30000)::BIGINT`],
  ['provider_request_id', 'VARCHAR', `'req_' || md5(i::VARCHAR || '${seed}')`],
  ['fallback_used', 'BOOLEAN', `${h(22)} % 7 = 0`],
  ['outcome', 'VARCHAR', pick(23, ['ok', 'ok', 'ok', 'ok', 'ok', 'error', 'interrupted', 'denied'])],
  ['error_kind', 'VARCHAR', pick(24, ['', '', '', 'timeout', 'rate_limited', 'upstream'])],
  ['policy_mode', 'VARCHAR', pick(25, ['enforce', 'audit', 'off'])],
  ['policy_violations', 'VARCHAR', pick(26, ['[]', '[]', '["pii"]', '["pii","secrets"]'])],
  ['tool', 'VARCHAR', pick(27, ['', 'search', 'browser', 'code'])],
  ['principal_subject', 'VARCHAR', `'user-' || ${skew(28, 2000)}::VARCHAR`],
  ['principal_actor', 'VARCHAR', pick(29, ['human', 'agent', 'service'])],
  ['principal_kind', 'VARCHAR', pick(30, ['user', 'service_account'])],
  ['chain_depth', 'INTEGER', `CASE WHEN i % 9973 = 7 THEN 2147483647 WHEN i % 9973 = 8 THEN -2147483648 ELSE ${skew(31, 5)} END`],
  ['clearance_effective', 'VARCHAR', pick(32, ['public', 'internal', 'secret'])],
  ['compartments_effective', 'VARCHAR', pick(33, ['[]', '["a"]', '["a","b"]'])],
  ['redaction_plan', 'VARCHAR', pick(34, ['', 'mask-emails', 'drop-ssn'])],
  ['redaction_count', 'INTEGER', `(${h(35)} % 4)::INTEGER`],
  ['disclosed_count', 'INTEGER', `(${h(36)} % 3)::INTEGER`],
  ['error_detail', 'VARCHAR', `CASE WHEN ${h(37)} % 8 = 0 THEN repeat('upstream timeout – délai dépassé; ', 1 + (${h(37)} % 200)::INTEGER) WHEN ${h(37)} % 8 = 1 THEN 'HTTP ' || (${h(37)} % 600)::VARCHAR ELSE '' END`],
];
if (flag('--execution-subject')) {
  columns.push(['execution_subject', 'VARCHAR', pick(38, ['', 'runner-1', 'runner-2', 'exec:ü'])]);
}

const select = columns
  .map(([name, , expr], k) =>
    nulls ? `CASE WHEN hash(i * 31 + ${k}) % 13 = 0 THEN NULL ELSE ${expr} END AS "${name}"`
          : `${expr} AS "${name}"`)
  .join(',\n  ');
const ddl = columns.map(([name, type]) => `"${name}" ${type}`).join(', ');
const copyOptions = [`FORMAT parquet`, `COMPRESSION ${option('--compression', 'zstd')}`];
if (option('--row-group-size')) copyOptions.push(`ROW_GROUP_SIZE ${option('--row-group-size')}`);
if (option('--parquet-version')) copyOptions.push(`PARQUET_VERSION ${option('--parquet-version')}`);

try {
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  await con.run("SET TimeZone='UTC'");
  await con.run(`CREATE TABLE ev (${ddl})`);
  await con.run(`INSERT INTO ev SELECT\n  ${select}\nFROM range(${rows}) t(i) ORDER BY i`);
  await con.run(`COPY ev TO '${out.replaceAll("'", "''")}' (${copyOptions.join(', ')})`);
} catch (err) {
  console.error(String(err && err.message ? err.message : err));
  process.exit(1);
}
