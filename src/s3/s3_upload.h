// S3Upload is one Part on its way into a bucket (internal to s3/; reached through
// S3Destination::Begin). It buffers up to the multipart threshold; a Part that stays under it is
// one PUT at Commit, a larger one becomes a multipart upload whose pieces go up as the buffer
// fills, completed at Commit and aborted on any failure.
// Ownership: borrows its S3Destination (must outlive it) and, while no other upload holds it, the
// destination's buffer; otherwise owns one.
// Threads: one thread at a time.
// Errors: sticky: the first failure is kept, later Appends return it at once, Commit returns it
// (as Redeliver naming the key). A key taken by other bytes is no failure: Commit says kTaken
// and leaves nothing (lake/destination.h). Abort is safe at any time and after a failed Commit.
// REQUIRES: Commit or Abort before destruction (the destructor aborts otherwise).
#pragma once

#include <string>
#include <vector>

#include "lake/destination.h"
#include "s3/crypto.h"

namespace sinkd::s3 {

class S3Destination;
struct S3Call;
struct HttpResponse;

// The Content-Type an object gets from its key: Parquet, JSON lines (dead letters), or bytes.
std::string ContentTypeFor(std::string_view key);
// Whether a create's answer says the store does not implement If-None-Match: 501, or another 4xx
// but 412 with the code NotImplemented.
bool RefusesConditional(const HttpResponse& r);

class S3Upload final : public lake::PartUpload {
 public:
  S3Upload(S3Destination& owner, std::string key);
  ~S3Upload() override;

  Status Append(std::span<const uint8_t> bytes) override;
  Result<lake::Placed> Commit() override;
  void Abort() override;

 private:
  Result<lake::Placed> PutWhole();
  Status SendPiece();
  Result<lake::Placed> Complete();
  // Sends a create (PUT or completion) with If-None-Match while the store takes it; a store that
  // refuses the header is told to the destination and the call is sent again without it.
  Result<HttpResponse> SendCreate(S3Call call);
  // After a 412 (or a completion whose upload is gone), what is at the key: kSame when HEAD finds
  // our size and one of `etags` (the ETags our bytes get: MD5 for a single PUT, MD5 of the piece
  // MD5s for multipart), kTaken when the size or the ETag differs, Redeliver when HEAD fails.
  // An ETag we cannot reproduce (SSE-KMS, a store with its own scheme, multipart pieces of
  // another size) counts as other bytes: the Part goes under another name, a second copy that
  // readers dedupe, never an overwrite nor a loss. An object carrying this upload's token
  // (x-amz-meta-sinkd-upload) is ours, created by an attempt whose answer was lost: kNew, which a
  // failed flush may delete; any other is only found in place and never deleted by us.
  Result<lake::Placed> InPlace(const std::vector<std::string>& etags);
  Status Fail(const std::string& what);
  // Aborts the multipart upload, if one is open (a failed abort costs a warning).
  void AbortPieces();
  // After a failed create: deletes the object at the key if it carries our token.
  void TakeBack();
  // Hands the shared buffer back (emptied, capacity kept) or frees the private one.
  void ReleaseBuffer();

  S3Destination& owner_;
  std::string key_;
  std::string* buffer_;      // the destination's shared buffer, or own_buffer_
  std::string own_buffer_;  // only when another upload holds the shared one
  Status status_;
  std::string upload_id_;           // "" until the Part goes multipart
  std::vector<std::string> etags_;  // per piece, as the store answered
  std::string piece_md5s_;          // raw MD5 of each piece, for the multipart ETag
  Md5Stream whole_md5_;             // MD5 of the whole object, for stores that use it as ETag
  uint64_t size_ = 0;               // bytes appended
  std::string token_;               // random, sent as x-amz-meta-sinkd-upload with the create
  bool committed_ = false;
  bool aborted_ = false;
  bool create_sent_ = false;  // a PUT or completion went out: the object may exist
};

}  // namespace sinkd::s3
