#!/usr/bin/python3
"""Signs requests with Debian's botocore, offline, for sinkd's signer tests.

Reads a JSON array of requests on stdin; each is
  {"method", "url", "headers": [[name, value], ...], "body_hex", "access_key", "secret",
   "token", "region", "time": "20260101T000000Z"}
and prints a JSON array of {"authorization", "canonical_request"} in the same order.
The url and headers are exactly what sinkd sends (its Authorization left out); botocore's
S3SigV4Auth signs them at the given time, as it would for boto3. Run it with /usr/bin/python3:
another python3 on PATH may not have Debian's botocore.
"""
import datetime
import json
import sys
from unittest import mock

import botocore.auth
import botocore.credentials
from botocore.awsrequest import AWSRequest


def sign(spec):
    credentials = botocore.credentials.Credentials(
        spec["access_key"], spec["secret"], spec.get("token") or None)
    auth = botocore.auth.S3SigV4Auth(credentials, "s3", spec["region"])
    request = AWSRequest(method=spec["method"], url=spec["url"],
                         data=bytes.fromhex(spec.get("body_hex", "")))
    for name, value in spec["headers"]:
        request.headers[name] = value
    # sinkd signs the body's SHA-256 over https too; tell botocore to do the same.
    request.context["payload_signing_enabled"] = True
    when = datetime.datetime.strptime(spec["time"], "%Y%m%dT%H%M%SZ")
    seen = []
    original = auth.canonical_request
    auth.canonical_request = lambda r: seen.append(original(r)) or seen[-1]
    with mock.patch.object(botocore.auth, "datetime") as fake:
        fake.datetime.utcnow.return_value = when
        fake.datetime.now.return_value = when
        auth.add_auth(request)
    return {"authorization": request.headers["Authorization"], "canonical_request": seen[-1]}


def main():
    specs = json.load(sys.stdin)
    json.dump([sign(s) for s in specs], sys.stdout)


if __name__ == "__main__":
    main()
