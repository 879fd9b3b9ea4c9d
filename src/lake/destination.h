// A Destination is where Parts land: a directory on this machine or a bucket in an object store.
// Both receive the same keys (table/key.h). It is the one seam between sinkd and the place its
// lake lives: every object is created through lake::Place (lake/lake_writer.h: Parts by
// LakeWriter, import's dead-letter files, compaction's outputs), never by a write of its own, and
// the same seam lists, reads and deletes what is there (a failed flush removing its Parts,
// compaction reading footers and deleting superseded Parts after a grace, lake verify reading
// footers).
//
// Placement policy, the same on both destinations: a key is never replaced. A Part is streamed
// into a PartUpload and becomes visible under its key only when Commit succeeds, atomically (a
// reader never sees half a Part), and only if the key was free (RENAME_NOREPLACE on a directory,
// If-None-Match: * on S3). When the key is already taken Commit says whether by the same bytes
// (kSame: an earlier attempt of this batch landed; success, nothing written) or by other bytes
// (kTaken: nothing written; the caller places the Part under another name). How "the same bytes"
// is decided is up to each destination and documented there: exact on a directory; size and
// ETag on S3, where an ETag we cannot reproduce counts as other bytes (a second copy, never an
// overwrite).
//
// Threads: one thread at a time per Destination and per PartUpload.
// Errors: Ensure refuses (Refuse) a destination that cannot work, before anything is consumed;
// upload, list, read and delete failures are Redeliver (the batch is nak'd and written again).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "parquet/output_stream.h"

namespace sinkd::lake {

enum class Placed {
  kNew,    // our bytes are now at the key, placed by this upload
  kSame,   // the key already held exactly these bytes; this upload wrote nothing
  kTaken,  // the key holds other bytes; this upload wrote nothing (choose another key)
};

class PartUpload : public parquet::OutputStream {
 public:
  // Makes the bytes appended so far durable and visible under the key unless the key is taken:
  // after kNew or kSame the Part survives a crash of this process and of the machine (fsync'd /
  // acknowledged by the store; directory entries once Destination::Sync returned OK).
  // REQUIRES: called at most once; no Append after it.
  virtual Result<Placed> Commit() = 0;
  // Throws the bytes away; nothing becomes visible under the key. Safe after a failed Commit.
  virtual void Abort() = 0;
};

// The modification time of an object whose store did not say it readably (an S3 LastModified
// that does not parse): later than any clock, so a grace measured from it never ends and nothing
// is deleted on its account. Read as 0 it would have made every grace already over.
inline constexpr int64_t kUnknownTime = INT64_MAX;

// One object of the lake as List sees it.
struct StoredObject {
  std::string key;  // relative, '/'-separated, as Begin took it
  uint64_t size = 0;
  // When it appeared (mtime; S3 LastModified): for a grace period. kUnknownTime when unreadable.
  int64_t modified_unix_ms = 0;
  // What tells this object from any other ever placed at its key (with the size): S3's ETag
  // (unquoted, lower case); a directory file's mtime in nanoseconds. "" when the store gave none.
  std::string version;
};

class Destination {
 public:
  virtual ~Destination() = default;
  // Creates or checks the destination (lake root, bucket); run once at startup.
  virtual Status Ensure() = 0;
  // One line naming the destination for the startup log, never a secret:
  // "dir /abs/path" or "s3://bucket at host:port (…)".
  virtual std::string Describe() const = 0;
  // The URI its keys live under, for metadata that names objects absolutely (an Iceberg table's):
  // "file:///abs/root" or "s3://bucket"; the object at key k is Uri() + "/" + k.
  virtual std::string Uri() const = 0;
  // Starts a Part under `key` (relative, '/'-separated, from table::PartKey).
  virtual Result<std::unique_ptr<PartUpload>> Begin(const std::string& key) = 0;
  // Makes every commit and delete since the last Sync durable as a set (directory entries for a
  // directory lake, every directory from a Part's up to the lake root at least once per process;
  // nothing to do for an object store, whose PUT is durable on its own). Called once per flush,
  // after its last Commit and before anything is acknowledged.
  virtual Status Sync() = 0;

  // Removes the object at `key`; a key that is not there is success (a delete retried). The
  // caller deletes only what it knows it placed (kNew) and nobody can have acknowledged.
  virtual Status Delete(const std::string& key) = 0;
  // Removes the object at `key` only while it is still `expected` (the same size and version as
  // List gave): true when it is gone (deleted now, or already absent), false when the key holds
  // another object (re-created since that listing), which stays. For the grace deleter, whose
  // record of an input is a listing: a key re-created after its input was merged is a live Part.
  // An `expected` without a version is never deleted. On a directory the check and the unlink
  // are two calls (a re-creation in between is lost); on S3 the DELETE carries If-Match: <ETag>
  // after a HEAD checked the size and ETag (a store that ignores If-Match leaves that window).
  virtual Result<bool> DeleteIfUnchanged(const StoredObject& expected) = 0;
  // Every complete object whose key starts with `prefix` ("" for all), sorted by key. Uploads in
  // progress (a directory's `.incomplete` files, multipart pieces) are not objects.
  virtual Result<std::vector<StoredObject>> List(const std::string& prefix) = 0;
  // Up to `length` bytes of the object at `key` from `offset` (fewer at its end). NotFound when
  // the key is not there.
  virtual Result<std::string> Read(const std::string& key, uint64_t offset, uint64_t length) = 0;

  // Writes `bytes` at `key` replacing whatever is there, atomically: a reader sees the old object
  // or the new one, never a mix or nothing (a unique temporary file renamed over the key on a
  // directory; a plain PUT on S3). The one exception to the placement policy, for small pointers
  // that readers treat as a hint and nothing is acknowledged on (an Iceberg table's
  // metadata/version-hint.text); durable once Sync returns on a directory. Redeliver on failure.
  virtual Status Replace(const std::string& key, std::string_view bytes) = 0;

  // Checks that a create refuses a taken key here, as the placement policy above needs: OK on a
  // directory (RENAME_NOREPLACE, or link(2)); on S3 a probe under `prefix` (see S3Destination).
  // Refuse naming what the store did when a create can replace an object; Redeliver when the
  // check itself could not run. Callers whose safety rests on it (compaction, table commits)
  // run it at startup; the probe runs once per destination.
  virtual Status CheckExclusiveCreates(const std::string& prefix) = 0;
};

}  // namespace sinkd::lake
