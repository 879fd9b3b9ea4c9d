// S3Destination puts a lake's Parts into a bucket of an S3-compatible store, under the same keys a
// directory lake uses (table/key.h). A Part at or under the multipart threshold is held in memory
// and sent with one PUT; a larger one goes up in pieces of the threshold's size (multipart), so an
// upload never holds more than one threshold of bytes. Creates carry If-None-Match: * so no
// instance overwrites another's object; a store that does not implement the header is detected on
// the first refusal, logged once, and written to without it from then on.
// A Part is visible under its key only after Commit returned kNew or kSame: the PUT or the
// multipart completion was acknowledged, or a 412 led to a HEAD that found our size and ETag in
// place (see S3Upload::InPlace for what "the same bytes" can and cannot prove on S3); other bytes
// at the key are kTaken, nothing written.
// List is ListObjectsV2 (every page; each object's version is its ETag), Read a ranged GET,
// Delete a DELETE (404 counts as done), DeleteIfUnchanged a HEAD and a DELETE with If-Match.
// A LastModified that does not parse is lake::kUnknownTime (never 0), with a warning.
// CheckExclusiveCreates probes the store once (s3/exclusive_probe.h): a store that ignores
// If-None-Match is found out only that way; Begin's creates detect only a store that refuses it.
// Ownership: owns its S3Client; borrows the Logger (or owns a stderr one when given none).
// Threads: one thread at a time, and one upload at a time per destination.
// Errors: Ensure refuses (Refuse) with the bucket, the endpoint and the credentials in use named;
// upload failures are Redeliver with the key and the store's Code and Message. No secret is ever
// in a message or a log line.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/log.h"
#include "lake/destination.h"
#include "s3/endpoint.h"
#include "s3/retry_policy.h"
#include "s3/sigv4.h"

namespace sinkd::s3 {

class S3Client;

inline constexpr uint64_t kMiB = 1024 * 1024;
// S3 refuses multipart pieces under 5 MiB (all but the last) and objects over 10,000 pieces.
inline constexpr uint64_t kMinPieceBytes = 5 * kMiB;
inline constexpr uint64_t kMaxPieces = 10'000;

struct S3Options {
  Endpoint endpoint;
  std::string bucket;
  std::string region = "us-east-1";
  Credentials credentials;      // anonymous() → unsigned requests (--s3-anonymous)
  bool virtual_hosted = false;  // default path-style: what S3-compatible stores all speak
  std::string ca_bundle;        // PEM CA file for https; "" = the system's. Verification stays on.
  bool create_bucket = true;    // Ensure creates a missing bucket; false refuses instead
  // Parts larger than this go multipart in pieces of this size; this is also the memory one
  // upload holds. Default 64 MiB. Against AWS it must be >= kMinPieceBytes (the CLI enforces it;
  // tests go lower against a server that does not check).
  uint64_t multipart_threshold = 64 * kMiB;
  RetryPolicy retry;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{300'000};  // per request; 0 = none

  // Refuse: empty bucket or one with '/' or spaces, threshold 0 or above 5 GiB, bad retry policy.
  Status Validate() const;
};

class S3Destination final : public lake::Destination {
 public:
  // Validates `options`; no network I/O until Ensure. `log` may be null (a stderr logger is used);
  // otherwise it must outlive the destination.
  static Result<std::unique_ptr<S3Destination>> Make(S3Options options, Logger* log);
  ~S3Destination() override;

  // HeadBucket; creates the bucket when it is missing (unless create_bucket is false).
  Status Ensure() override;
  // "s3://garm-lake at 127.0.0.1:28333 (region us-east-1, signed with AWS_ACCESS_KEY_ID)", or
  // "(…, anonymous, unsigned (--s3-anonymous))".
  std::string Describe() const override;
  std::string Uri() const override { return "s3://" + options_.bucket; }
  Result<std::unique_ptr<lake::PartUpload>> Begin(const std::string& key) override;
  // Nothing to do: an acknowledged PUT or multipart completion is durable in the store.
  Status Sync() override { return Status::OK(); }
  Status Delete(const std::string& key) override;
  // A plain PUT (no If-None-Match): S3 swaps whole objects, so a reader sees old or new.
  Status Replace(const std::string& key, std::string_view bytes) override;
  // HEAD (size and ETag as `expected`), then DELETE with If-Match: <ETag>; 412 keeps the
  // object. A store refusing the header (501, NotImplemented) is logged once and deleted from
  // without it, after the HEAD alone.
  Result<bool> DeleteIfUnchanged(const lake::StoredObject& expected) override;
  Result<std::vector<lake::StoredObject>> List(const std::string& prefix) override;
  Result<std::string> Read(const std::string& key, uint64_t offset, uint64_t length) override;
  // Runs the probe under `<prefix>/_sinkd/probe/<random>` the first time; later calls give the
  // same verdict (OK or Refuse) without a request. A probe that failed (Redeliver) runs again.
  Status CheckExclusiveCreates(const std::string& prefix) override;

  // False once the store has refused If-None-Match; creates go without it from then on.
  bool conditional_creates() const { return conditional_creates_; }

 private:
  S3Destination(S3Options options, Logger* log);
  // Called by an upload when the store refused If-None-Match: logs it once.
  void StopConditionalCreates(const std::string& answer);

  S3Options options_;
  std::unique_ptr<Logger> own_log_;  // only when none was given
  Logger& log_;
  std::unique_ptr<S3Client> client_;
  bool conditional_creates_ = true;
  bool conditional_deletes_ = true;  // false once the store refused If-Match on a DELETE
  std::optional<Status> exclusive_;  // CheckExclusiveCreates' verdict, once it has one
  // The bytes of the Part being uploaded, reused from one upload to the next (at most
  // multipart_threshold bytes); lent to one upload at a time.
  std::string buffer_;
  bool buffer_lent_ = false;
  friend class S3Upload;
};

}  // namespace sinkd::s3
