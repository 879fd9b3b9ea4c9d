#!/usr/bin/env node
// Reads an Iceberg table with icebird (npm, an independent reader: its own Avro and Parquet code)
// and prints {"rows": [...]} as JSON, every BigInt as a decimal string and every Date as epoch
// microseconds. Usage: node tools/icebird-read.mjs <table url> [--s3-mirror DIR] [--files]
//                                                 [--metadata NAME]
//   --metadata NAME  reads the metadata file NAME under <table>/metadata/ (what a catalog's
//             pointer names, e.g. the sql catalog's 00003-<uuid>.metadata.json) instead of
//             probing for the newest v<N>.metadata.json.
//   --files   prints {"version", "snapshots", "files": [...]} instead: the data files the newest
//             metadata's current snapshot names, read by icebird from its manifests (what a
//             query of the table reads, for DuckDB to count; a large table's rows as JSON would
//             not fit in memory). The newest version is probed past version-hint.text as sinkd's
//             catalog does: a writer killed between its metadata file and the hint leaves the
//             hint one version behind, and icebird alone would read that older snapshot.
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
import { icebergManifests, icebergMetadata, icebergRead } from 'icebird';

const mirrorAt = process.argv.indexOf('--s3-mirror');
const s3Mirror = mirrorAt > 0 ? process.argv[mirrorAt + 1] : undefined;
const metadataAt = process.argv.indexOf('--metadata');
const metadataFileName = metadataAt > 0 ? process.argv[metadataAt + 1] : undefined;
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
if (process.argv.includes('--files')) {
  try {
    let version;
    let name = metadataFileName;
    if (name) {
      version = parseInt(name, 10);
    } else {
      const hint = await fetch(`${tableUrl}/metadata/version-hint.text`);
      version = hint.ok ? parseInt(await hint.text(), 10) : 1;
      if (!(version >= 1)) version = 1;
      const exists = async (v) =>
        (await fetch(`${tableUrl}/metadata/v${v}.metadata.json`, { method: 'HEAD' })).ok;
      for (let probes = 0; probes < 1000000 && (await exists(version + 1)); ++probes) ++version;
      name = `v${version}.metadata.json`;
    }
    const metadata = await icebergMetadata({ tableUrl, metadataFileName: name });
    const files = [];
    for (const { entries } of await icebergManifests(metadata)) {
      for (const e of entries) {
        if (e.status !== 2 && !e.data_file.content) files.push(e.data_file.file_path);
      }
    }
    // No process.exit here: it would cut off what a pipe has not taken yet (at 128 KiB).
    process.stdout.write(JSON.stringify({ version, snapshots: metadata.snapshots.length, files }));
  } catch (e) {
    console.error(e?.stack ?? String(e));
    process.exitCode = 1;
  }
} else try {
  const rows = await icebergRead({ tableUrl, metadataFileName });
  const plain = (k, v) => (typeof v === 'bigint' ? v.toString()
    : v instanceof Date ? String(v.getTime() * 1000) : v);
  process.stdout.write(JSON.stringify({ rows }, plain));
} catch (e) {
  console.error(e?.stack ?? String(e));
  process.exit(1);
}
