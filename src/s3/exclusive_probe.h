// The probe behind S3Destination::CheckExclusiveCreates (internal to s3/): does this store refuse
// a create of a key that exists, on both paths an object of ours takes (one PUT; a multipart
// completion)? Some S3-compatible stores ignore If-None-Match without a word, and only a 501 was
// recognised before: there, two writers of one key overwrite each other, and compaction's outputs
// and table commits, which rely on the refusal, would be unsafe.
// It creates `key` with If-None-Match: *, creates it again by PUT and by a one-piece multipart
// upload, each expecting 412, then aborts the upload and deletes the key (about 7 requests).
// Threads: one thread at a time per S3Client.
// Errors: Refuse naming the path the store let through, or its refusal of the header; Redeliver
// naming the request when one fails. The key is deleted whatever the outcome (a failed delete is
// a warning: the key is a few bytes no reader of the lake looks at).
#pragma once

#include <string>

#include "base/log.h"
#include "base/status.h"

namespace sinkd::s3 {

class S3Client;

// Where the probe key goes, under the prefix the caller names: no reader of the lake lists it
// (compaction and verify read date=…/ Parts ending in .parquet).
inline constexpr char kProbeDirectory[] = "_sinkd/probe/";

Status ProbeExclusiveCreates(S3Client& client, const std::string& key, Logger& log);

}  // namespace sinkd::s3
