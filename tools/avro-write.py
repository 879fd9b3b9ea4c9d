#!/usr/bin/python3
# Writes an Avro object container file with Debian's python3-avro, for tests of sinkd's reader.
# Reads JSON on stdin: {"schema": {...}, "codec": "null"|"deflate", "metadata": {key: text},
# "records": [...], "block_records": records per block (optional)}; a value {"hex": "..."}
# becomes bytes; dates and timestamps are given as their numbers.
# Usage: tools/avro-write.py FILE < spec.json
import datetime
import json
import sys
import warnings

import avro.datafile
import avro.io
import avro.schema


EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def native(schema, value):
    """The Python value python3-avro's writer validates for `schema` (dates as dates, …)."""
    kind = schema.type
    logical = schema.get_prop("logicalType")
    if kind == "union":
        if value is None:
            return None
        branch = next(b for b in schema.schemas if b.type != "null")
        return native(branch, value)
    if isinstance(value, dict) and set(value) == {"hex"}:
        return bytes.fromhex(value["hex"])
    if kind == "int" and logical == "date":
        return EPOCH.date() + datetime.timedelta(days=value)
    if kind == "long" and logical == "timestamp-micros":
        return EPOCH + datetime.timedelta(microseconds=value)
    if kind == "record":
        return {f.name: native(f.type, value.get(f.name)) for f in schema.fields}
    if kind == "array":
        return [native(schema.items, v) for v in value]
    if kind == "map":
        return {k: native(schema.values, v) for k, v in value.items()}
    return value


warnings.simplefilter("ignore")  # numbers for dates and timestamps, logicalType "map"
spec = json.load(sys.stdin)
schema = avro.schema.parse(json.dumps(spec["schema"]))
with open(sys.argv[1], "wb") as f:
    writer = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), schema,
                                          codec=spec.get("codec", "null"))
    for key, value in spec.get("metadata", {}).items():
        writer.set_meta(key, value.encode("utf-8"))
    for i, record in enumerate(spec["records"]):
        writer.append(native(schema, record))
        if "block_records" in spec and (i + 1) % spec["block_records"] == 0:
            writer.sync()  # ends the block
    writer.close()
