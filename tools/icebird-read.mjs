#!/usr/bin/env node
// Reads an Iceberg table with icebird (npm, an independent reader: its own Avro and Parquet code)
// and prints {"rows": [...]} as JSON, every BigInt as a decimal string and every Date as epoch
// microseconds. Usage: node tools/icebird-read.mjs <table url> [--s3-mirror DIR]
//   file:///path/to/table                         a directory lake's table
//   s3://bucket/table --s3-mirror DIR             a bucket's table, its objects copied into DIR
// icebird fetches over HTTP only; file:// URLs (the locations a directory table's metadata
// holds) are answered from the file system here, Range requests included, and so are the
// https://<bucket>.s3.amazonaws.com/<key> URLs icebird turns s3:// locations into, from
// DIR/<key> (the test copies the bucket there through sinkd's S3 client). Its reading logic is
// left as it is: it finds metadata/version-hint.text, the metadata file, the manifest list, the
// manifests and the data files itself.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { icebergRead } from 'icebird';

const mirrorAt = process.argv.indexOf('--s3-mirror');
const s3Mirror = mirrorAt > 0 ? process.argv[mirrorAt + 1] : undefined;
const s3Url = /^https:\/\/[^/]+\.s3\.amazonaws\.com\/(.*)$/;

const realFetch = globalThis.fetch;
globalThis.fetch = async (url, init = {}) => {
  let href = String(url);
  const s3 = s3Mirror && s3Url.exec(href);
  if (s3) href = 'file://' + s3Mirror + '/' + s3[1];
  if (!href.startsWith('file://')) return realFetch(url, init);
  let data;
  try {
    data = await readFile(fileURLToPath(href));
  } catch {
    return new Response(null, { status: 404, statusText: 'Not Found' });
  }
  const range = new Headers(init.headers).get('Range');
  const match = range && /^bytes=(\d+)-(\d*)$/.exec(range);
  if (init.method === 'HEAD') {
    return new Response(null, { status: 200, headers: { 'content-length': String(data.length) } });
  }
  if (match) {
    const start = Number(match[1]);
    const end = match[2] === '' ? data.length : Number(match[2]) + 1;
    return new Response(data.subarray(start, end), { status: 206 });
  }
  return new Response(data, { status: 200, headers: { 'content-length': String(data.length) } });
};

const tableUrl = process.argv[2];
if (!tableUrl) {
  console.error('usage: icebird-read.mjs <table url>');
  process.exit(2);
}
try {
  const rows = await icebergRead({ tableUrl });
  const plain = (k, v) => (typeof v === 'bigint' ? v.toString()
    : v instanceof Date ? String(v.getTime() * 1000) : v);
  process.stdout.write(JSON.stringify({ rows }, plain));
} catch (e) {
  console.error(e?.stack ?? String(e));
  process.exit(1);
}
