#include "s3/s3_upload.h"

#include <algorithm>

#include "base/random_token.h"
#include "s3/s3_client.h"
#include "s3/s3_destination.h"

namespace sinkd::s3 {

namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool Success(const HttpResponse& r) { return r.status / 100 == 2; }

// Names the upload that created an object, so a create whose answer was lost and whose retry got
// 412 knows the object is its own (kNew: a failed flush may take it back) rather than one found
// in place, which it must never delete.
constexpr char kUploadTokenHeader[] = "x-amz-meta-sinkd-upload";

}  // namespace

// A store without conditional writes says so with 501, or with a NotImplemented code.
bool RefusesConditional(const HttpResponse& r) {
  if (r.status == 501) return true;
  return r.status / 100 == 4 && r.status != 412 && AnswerOf(r).code == "NotImplemented";
}

std::string ContentTypeFor(std::string_view key) {
  if (EndsWith(key, ".parquet")) return "application/vnd.apache.parquet";
  if (EndsWith(key, ".jsonl")) return "application/x-ndjson";
  return "application/octet-stream";
}

S3Upload::S3Upload(S3Destination& owner, std::string key)
    : owner_(owner), key_(std::move(key)), token_(RandomToken()) {
  // Uploads follow one another, so they share the destination's buffer: its pages stay mapped
  // between Parts. A fresh 48 MiB buffer per Part cost half the single-PUT throughput in
  // s3_upload_bench (page faults and growth copies); an overlapping upload gets its own.
  if (!owner_.buffer_lent_) {
    owner_.buffer_lent_ = true;
    buffer_ = &owner_.buffer_;
    buffer_->reserve(std::min<uint64_t>(owner_.options_.multipart_threshold, 256 * kMiB));
  } else {
    buffer_ = &own_buffer_;
  }
}

void S3Upload::ReleaseBuffer() {
  if (buffer_ == &owner_.buffer_) {
    buffer_->clear();  // keeps the capacity for the next Part
    owner_.buffer_lent_ = false;
  } else {
    std::string().swap(own_buffer_);
  }
  buffer_ = &own_buffer_;
}

S3Upload::~S3Upload() {
  if (!committed_) Abort();
}

Status S3Upload::Fail(const std::string& what) {
  status_ = Status::Redeliver("place " + key_ + ": " + what);
  return status_;
}

Status S3Upload::Append(std::span<const uint8_t> bytes) {
  if (!status_.ok()) return status_;
  if (committed_ || aborted_) return Fail("Append after Commit or Abort");
  const uint64_t threshold = owner_.options_.multipart_threshold;
  while (!bytes.empty()) {
    // A full buffer with more bytes coming means the Part is over the threshold: it goes
    // multipart, and the buffer is its next piece.
    if (buffer_->size() >= threshold) {
      SINKD_RETURN_IF_ERROR(SendPiece());
    }
    const size_t take = std::min<uint64_t>(bytes.size(), threshold - buffer_->size());
    buffer_->append(reinterpret_cast<const char*>(bytes.data()), take);
    size_ += take;
    bytes = bytes.subspan(take);
  }
  return Status::OK();
}

Result<lake::Placed> S3Upload::Commit() {
  if (status_.ok() && (committed_ || aborted_)) status_ = Fail("Commit after Commit or Abort");
  lake::Placed placed = lake::Placed::kNew;
  if (status_.ok() && !upload_id_.empty()) status_ = SendPiece();
  if (status_.ok()) {
    Result<lake::Placed> done = upload_id_.empty() ? PutWhole() : Complete();
    if (done.ok()) {
      placed = *done;
    } else {
      status_ = done.status();
    }
  }
  if (!status_.ok()) {
    Abort();
    return status_;
  }
  if (placed == lake::Placed::kTaken) {
    Abort();  // a multipart upload that never completed is taken back
    return placed;
  }
  committed_ = true;
  ReleaseBuffer();
  return placed;
}

Result<HttpResponse> S3Upload::SendCreate(S3Call call) {
  create_sent_ = true;
  const bool conditional = owner_.conditional_creates_;
  if (conditional) call.headers.emplace_back("if-none-match", "*");
  Result<HttpResponse> sent = owner_.client_->Send(call);
  if (!conditional || !sent.ok() || !RefusesConditional(*sent)) return sent;
  owner_.StopConditionalCreates(AnswerOf(*sent).ToString());
  call.headers.pop_back();
  return owner_.client_->Send(call);
}

Result<lake::Placed> S3Upload::PutWhole() {
  S3Call call{"PUT", key_, {},
              {{"content-type", ContentTypeFor(key_)}, {kUploadTokenHeader, token_}}, *buffer_};
  Result<HttpResponse> sent = SendCreate(std::move(call));
  if (!sent.ok()) return Fail(sent.status().message());
  if (sent->status == 412) return InPlace({HexEncode(Md5(*buffer_))});
  if (!Success(*sent)) return Fail("PUT: " + AnswerOf(*sent).ToString());
  return lake::Placed::kNew;
}

Status S3Upload::SendPiece() {
  if (upload_id_.empty()) {
    S3Call create{"POST", key_, {{"uploads", ""}},
                  {{"content-type", ContentTypeFor(key_)}, {kUploadTokenHeader, token_}}, {}};
    Result<HttpResponse> made = owner_.client_->Send(create);
    if (!made.ok()) return Fail(made.status().message());
    if (!Success(*made)) return Fail("CreateMultipartUpload: " + AnswerOf(*made).ToString());
    upload_id_ = XmlValue(made->body, "UploadId");
    if (upload_id_.empty()) return Fail("CreateMultipartUpload answered without an UploadId");
  }
  const uint64_t number = etags_.size() + 1;
  if (number > kMaxPieces) {
    return Fail("more than 10,000 multipart pieces: raise --s3-multipart-threshold");
  }
  S3Call piece{"PUT", key_, {{"partNumber", std::to_string(number)}, {"uploadId", upload_id_}},
               {}, *buffer_};
  Result<HttpResponse> sent = owner_.client_->Send(piece);
  if (!sent.ok()) return Fail(sent.status().message());
  if (!Success(*sent)) return Fail("UploadPart " + std::to_string(number) + ": " +
                                   AnswerOf(*sent).ToString());
  std::string etag = sent->Header("etag");
  if (etag.empty()) return Fail("UploadPart " + std::to_string(number) + " answered no ETag");
  etags_.push_back(std::move(etag));
  piece_md5s_ += Md5(*buffer_);
  whole_md5_.Update(*buffer_);
  buffer_->clear();  // keeps its capacity: the next piece reuses the memory
  return Status::OK();
}

Result<lake::Placed> S3Upload::Complete() {
  std::string xml = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags_.size(); ++i) {
    xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + etags_[i] +
           "</ETag></Part>";
  }
  xml += "</CompleteMultipartUpload>";
  S3Call call{"POST", key_, {{"uploadId", upload_id_}}, {{"content-type", "application/xml"}},
              xml};
  Result<HttpResponse> sent = SendCreate(std::move(call));
  if (!sent.ok()) return Fail(sent.status().message());
  const S3Answer answer = AnswerOf(*sent);
  // A completion whose answer was lost is retried; the store then says the object exists (412)
  // or the upload is gone (404 NoSuchUpload). Either way the object may be ours.
  if (sent->status == 412 || answer.code == "NoSuchUpload") {
    // AWS's ETag for a multipart object is MD5(piece MD5s)-N; some stores use the plain MD5.
    const std::vector<std::string> etags = {
        HexEncode(Md5(piece_md5s_)) + "-" + std::to_string(etags_.size()),
        HexEncode(whole_md5_.Finish())};
    Result<lake::Placed> in_place = InPlace(etags);
    if (in_place.ok()) {
      if (answer.code == "NoSuchUpload") {
        upload_id_.clear();  // completed by a lost attempt, or gone: nothing to abort
      } else {
        AbortPieces();  // the completion was refused: our pieces are still billed
      }
    }
    return in_place;
  }
  if (!Success(*sent)) return Fail("CompleteMultipartUpload: " + answer.ToString());
  upload_id_.clear();  // complete: nothing left to abort
  return lake::Placed::kNew;
}

Result<lake::Placed> S3Upload::InPlace(const std::vector<std::string>& etags) {
  Result<HttpResponse> head = owner_.client_->Send(S3Call{"HEAD", key_, {}, {}, {}});
  if (!head.ok()) return Fail("checking an existing object: " + head.status().message());
  if (!Success(*head)) {
    return Fail("the store said the object exists, then HEAD said " + AnswerOf(*head).ToString());
  }
  if (head->Header(kUploadTokenHeader) == token_) {
    owner_.log_.Info("object already in place: an earlier attempt of this upload landed",
                     {{"object", owner_.client_->Name(key_)}});
    return lake::Placed::kNew;
  }
  const std::string found = BareEtag(head->Header("etag"));
  const std::string length = head->Header("content-length");
  const bool same_size = length.empty() || length == std::to_string(size_);
  if (same_size && std::find(etags.begin(), etags.end(), found) != etags.end()) {
    owner_.log_.Info("object already in place with our bytes (an earlier attempt landed)",
                     {{"object", owner_.client_->Name(key_)}});
    return lake::Placed::kSame;
  }
  owner_.log_.Info("another object holds this key; If-None-Match kept it, the Part goes under "
                   "another name",
                   {{"object", owner_.client_->Name(key_)}, {"etag", found},
                    {"size", length}, {"our_size", size_}});
  return lake::Placed::kTaken;
}

void S3Upload::Abort() {
  if (committed_ || aborted_) return;
  aborted_ = true;
  ReleaseBuffer();
  AbortPieces();
  if (create_sent_) TakeBack();
}

// A create that failed may still have landed (its last attempt answered 500 after the store did
// the work, or the HEAD after a 412 failed). Only an object carrying our token is ours to remove;
// anything else at the key belongs to another writer and stays. Best effort: a failure here
// leaves a Part whose rows the redelivery writes again (duplicates, never a gap).
void S3Upload::TakeBack() {
  Result<HttpResponse> head = owner_.client_->Send(S3Call{"HEAD", key_, {}, {}, {}});
  if (!head.ok() || !Success(*head) || head->Header(kUploadTokenHeader) != token_) return;
  Result<HttpResponse> sent = owner_.client_->Send(S3Call{"DELETE", key_, {}, {}, {}});
  if (sent.ok() && (Success(*sent) || sent->status == 404)) {
    owner_.log_.Info("a failed create had landed; removed it",
                     {{"object", owner_.client_->Name(key_)}});
  }
}

void S3Upload::AbortPieces() {
  if (upload_id_.empty()) return;
  const std::string upload_id = std::exchange(upload_id_, "");
  Result<HttpResponse> sent =
      owner_.client_->Send(S3Call{"DELETE", key_, {{"uploadId", upload_id}}, {}, {}});
  if (sent.ok() && (Success(*sent) || sent->status == 404)) return;
  // The pieces stay billed until a lifecycle rule (AbortIncompleteMultipartUpload) removes them;
  // the Part itself never becomes visible, so nothing is lost or doubled.
  owner_.log_.Warn("multipart abort failed; the store keeps the uploaded pieces until a lifecycle "
                   "rule removes them",
                   {{"object", owner_.client_->Name(key_)}, {"upload_id", upload_id},
                    {"error", sent.ok() ? AnswerOf(*sent).ToString() : sent.status().message()}});
}

}  // namespace sinkd::s3
