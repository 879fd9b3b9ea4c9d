#!/usr/bin/env node
// Prints what every snapshot of an Iceberg metadata file wrote, as JSON, read by icebird's own Avro
// reader (npm, independent of sinkd's): {"snapshots": [{id, operation, added, deleted,
// added_records, deleted_records}], "referenced": [...]}. `added`/`deleted` are the data files a
// snapshot's manifests name ADDED / DELETED with that snapshot's id (a replace's outputs / its
// inputs); `referenced` is every data file some kept snapshot names (not DELETED in it).
// Usage: node tools/iceberg-snapshots.mjs <metadata uri> <lake uri> [DIR]
//   file:// URIs are read where they point; with DIR, URIs under <lake uri> (s3://bucket) are read
//   from DIR/<key> (a bucket's objects copied out under their keys).
// Used by tests in place of python3-avro where a table has hundreds of snapshots: its decoder
// takes a minute over their manifests, icebird's a second.
import { readFile } from 'node:fs/promises';
import { avroMetadata, avroRead } from 'icebird';

const [metadataUri, lakeUri, root] = process.argv.slice(2);
if (!metadataUri || !lakeUri) {
  console.error('usage: iceberg-snapshots.mjs <metadata uri> <lake uri> [DIR]');
  process.exit(2);
}
const local = (uri) => (root ? root + uri.slice(lakeUri.length) : uri.slice('file://'.length));

async function records(uri) {
  const bytes = await readFile(local(uri));
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const { metadata, syncMarker } = await avroMetadata(reader);
  return avroRead({ reader, metadata, syncMarker });
}

try {
  // Snapshot ids are 64-bit: quoted before parsing, as a JSON number would lose digits.
  const text = (await readFile(local(metadataUri), 'utf8'))
    .replace(/("(?:current-|parent-)?snapshot-id"\s*:\s*)(-?\d+)/g, '$1"$2"');
  const doc = JSON.parse(text);
  const manifests = new Map();
  const referenced = new Set();
  const snapshots = [];
  for (const s of doc.snapshots ?? []) {
    const id = BigInt(s['snapshot-id']);
    const me = { id: String(id), operation: s.summary?.operation, added: [], deleted: [],
                 added_records: 0, deleted_records: 0 };
    for (const m of await records(s['manifest-list'])) {
      if (!manifests.has(m.manifest_path)) manifests.set(m.manifest_path, await records(m.manifest_path));
      for (const e of manifests.get(m.manifest_path)) {
        // A v2 entry may leave its snapshot id to be inherited from the manifest's.
        const wrote = BigInt(e.snapshot_id ?? m.added_snapshot_id);
        const path = e.data_file.file_path;
        if (e.status !== 2) referenced.add(path);
        if (wrote !== id || e.status === 0) continue;
        const kind = e.status === 2 ? 'deleted' : 'added';
        me[kind].push(path);
        me[kind + '_records'] += Number(e.data_file.record_count);
      }
    }
    snapshots.push(me);
  }
  process.stdout.write(JSON.stringify({ snapshots, referenced: [...referenced].sort() }));
} catch (e) {
  console.error(e?.stack ?? String(e));
  process.exitCode = 1;
}
