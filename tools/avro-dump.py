#!/usr/bin/python3
# Prints an Avro object container file as JSON, read by Debian's python3-avro (a reader that
# shares nothing with sinkd's): {"codec", "metadata": {key: text}, "schema": the schema as the
# reader parsed it (attributes such as field-id included), "records": [...]}. Bytes values are
# written as {"hex": "..."}; header values that are not UTF-8 likewise. Logical types are turned
# back into the numbers on the wire (a date into days, a timestamp into microseconds since the
# epoch), so the output compares with what the writer was given.
# Usage: tools/avro-dump.py FILE
import datetime
import json
import sys
import warnings

import avro.datafile
import avro.io


EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def plain(value):
    if isinstance(value, datetime.datetime):
        return (value - EPOCH) // datetime.timedelta(microseconds=1)
    if isinstance(value, datetime.date):
        return (value - EPOCH.date()).days
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def text(value):
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": value.hex()}


warnings.simplefilter("ignore")  # python3-avro warns about logicalType "map" (Iceberg's own)
with open(sys.argv[1], "rb") as f:
    reader = avro.datafile.DataFileReader(f, avro.io.DatumReader())
    out = {
        "codec": text(reader.get_meta("avro.codec") or b"null"),
        "metadata": {k: text(v) for k, v in reader.meta.items()},
        "schema": reader.datum_reader.writers_schema.to_json(),
        "records": [plain(r) for r in reader],
    }
    reader.close()
json.dump(out, sys.stdout, sort_keys=True)
