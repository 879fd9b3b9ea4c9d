// A Destination is where Parts land: a directory on this machine or a bucket in an object store.
// Both receive the same keys (lake/key.h). A Part is streamed into a PartUpload and becomes visible
// under its key only when Commit succeeds; a reader never sees half a Part.
// Threads: one thread at a time per Destination and per PartUpload.
// Errors: Ensure refuses (Refuse) a destination that cannot work, before anything is consumed;
// upload failures are Redeliver (the batch is nak'd and written again later).
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "parquet/output_stream.h"

namespace sinkd::lake {

class PartUpload : public parquet::OutputStream {
 public:
  // Makes the bytes appended so far durable and visible under the key: after an OK return the
  // Part survives a crash of this process and of the machine (fsync'd / acknowledged by the store).
  // REQUIRES: called at most once; no Append after it.
  virtual Status Commit() = 0;
  // Throws the bytes away; nothing becomes visible under the key. Safe after a failed Commit.
  virtual void Abort() = 0;
};

class Destination {
 public:
  virtual ~Destination() = default;
  // Creates or checks the destination (lake root, bucket); run once at startup.
  virtual Status Ensure() = 0;
  // One line naming the destination for the startup log, never a secret:
  // "dir /abs/path" or "s3://bucket at host:port (…)".
  virtual std::string Describe() const = 0;
  // Starts a Part under `key` (relative, '/'-separated, from lake::PartKey).
  virtual Result<std::unique_ptr<PartUpload>> Begin(const std::string& key) = 0;
  // Makes every commit since the last Sync durable as a set (directory entries for a directory
  // lake; nothing to do for an object store, whose PUT is durable on its own). Called once per
  // flush, after its last Commit and before anything is acknowledged.
  virtual Status Sync() = 0;
};

}  // namespace sinkd::lake
