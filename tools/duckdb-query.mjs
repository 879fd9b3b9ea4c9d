#!/usr/bin/env node
// Runs SQL statements in an in-memory DuckDB and prints the rows of the last one as JSON.
// Usage: node tools/duckdb-query.mjs "<sql>" ["<sql>" …]
// Output: {"columns":["a","b"],"types":["VARCHAR","BIGINT"],"rows":[["x","1"],…]} with every value
// as DuckDB's own text form (or null), so the caller compares exactly what DuckDB read, without
// JavaScript number rounding. Exit 1 with the DuckDB error on stderr when a statement fails.
import { DuckDBInstance } from '@duckdb/node-api';

const statements = process.argv.slice(2);
if (statements.length === 0) {
  console.error('usage: duckdb-query.mjs "<sql>" ["<sql>" …]');
  process.exit(2);
}
try {
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  await con.run("SET TimeZone='UTC'");
  let reader = null;
  for (const sql of statements) reader = await con.runAndReadAll(sql);
  const columns = reader.columnNames();
  const types = reader.columnTypes().map((t) => t.toString());
  const rows = reader.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
  process.stdout.write(JSON.stringify({ columns, types, rows }) + '\n');
} catch (err) {
  console.error(String(err && err.message ? err.message : err));
  process.exit(1);
}
