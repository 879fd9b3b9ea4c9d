#include "s3/exclusive_probe.h"

#include <fmt/format.h>

#include "s3/s3_client.h"
#include "s3/s3_upload.h"

namespace sinkd::s3 {

namespace {

constexpr std::string_view kProbeBody =
    "sinkd: a second create of this key with If-None-Match: * must be refused (412)\n";

bool Success(const HttpResponse& r) { return r.status / 100 == 2; }

Status Failed(const S3Client& client, const std::string& key, std::string_view step,
              const Result<HttpResponse>& sent) {
  return Status::Redeliver(fmt::format(
      "probing conditional creates: {} {}: {}", step, client.Name(key),
      sent.ok() ? AnswerOf(*sent).ToString() : sent.status().message()));
}

// What a second create of an existing key said: OK for 412, Refuse when it went through or the
// header was refused, Redeliver for anything else.
Status Judge(const S3Client& client, const std::string& key, std::string_view step,
             const Result<HttpResponse>& sent) {
  if (!sent.ok()) return Failed(client, key, step, sent);
  if (sent->status == 412) return Status::OK();
  if (Success(*sent)) {
    return Status::Refuse(fmt::format(
        "the store ignores If-None-Match: a second {} of {} with If-None-Match: * replaced the "
        "object (HTTP {}) instead of being refused (412)",
        step, client.Name(key), sent->status));
  }
  if (RefusesConditional(*sent)) {
    return Status::Refuse(fmt::format("the store does not implement If-None-Match on {} ({})",
                                      step, AnswerOf(*sent).ToString()));
  }
  return Failed(client, key, step, sent);
}

// A one-piece multipart upload of the existing key, completed with If-None-Match: *.
Status ProbeCompletion(S3Client& client, const std::string& key, Logger& log) {
  Result<HttpResponse> made = client.Send(S3Call{"POST", key, {{"uploads", ""}}, {}, {}});
  if (!made.ok() || !Success(*made)) return Failed(client, key, "CreateMultipartUpload", made);
  const std::string id = XmlValue(made->body, "UploadId");
  if (id.empty()) {
    return Status::Redeliver("probing conditional creates: CreateMultipartUpload " +
                             client.Name(key) + " answered without an UploadId");
  }
  Result<HttpResponse> piece = client.Send(
      S3Call{"PUT", key, {{"partNumber", "1"}, {"uploadId", id}}, {}, kProbeBody});
  Status verdict;
  if (!piece.ok() || !Success(*piece) || piece->Header("etag").empty()) {
    verdict = Failed(client, key, "UploadPart", piece);
  } else {
    const std::string xml = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" +
                            piece->Header("etag") + "</ETag></Part></CompleteMultipartUpload>";
    Result<HttpResponse> completed = client.Send(
        S3Call{"POST", key, {{"uploadId", id}},
               {{"content-type", "application/xml"}, {"if-none-match", "*"}}, xml});
    verdict = Judge(client, key, "multipart completion", completed);
    if (completed.ok() && Success(*completed)) return verdict;  // nothing left to abort
  }
  Result<HttpResponse> aborted = client.Send(S3Call{"DELETE", key, {{"uploadId", id}}, {}, {}});
  if (!aborted.ok() || (!Success(*aborted) && aborted->status != 404)) {
    log.Warn("the probe's multipart upload could not be aborted; a lifecycle rule "
             "(AbortIncompleteMultipartUpload) removes it",
             {{"object", client.Name(key)}, {"upload_id", id}});
  }
  return verdict;
}

Status Probe(S3Client& client, const std::string& key, Logger& log) {
  const HeaderList conditional = {{"if-none-match", "*"}};
  Result<HttpResponse> first = client.Send(S3Call{"PUT", key, {}, conditional, kProbeBody});
  if (first.ok() && RefusesConditional(*first)) {
    return Status::Refuse(fmt::format("the store does not implement If-None-Match on PUT ({})",
                                      AnswerOf(*first).ToString()));
  }
  // A 412 here is our own create retried after its answer was lost: the key exists either way.
  if (!first.ok() || (!Success(*first) && first->status != 412)) {
    return Failed(client, key, "PUT", first);
  }
  SINKD_RETURN_IF_ERROR(
      Judge(client, key, "PUT", client.Send(S3Call{"PUT", key, {}, conditional, kProbeBody})));
  return ProbeCompletion(client, key, log);
}

}  // namespace

Status ProbeExclusiveCreates(S3Client& client, const std::string& key, Logger& log) {
  const Status verdict = Probe(client, key, log);
  Result<HttpResponse> gone = client.Send(S3Call{"DELETE", key, {}, {}, {}});
  if (!gone.ok() || (!Success(*gone) && gone->status != 404)) {
    log.Warn("the probe object could not be deleted; no reader of the lake looks at it, and it "
             "may be deleted by hand",
             {{"object", client.Name(key)},
              {"error", gone.ok() ? AnswerOf(*gone).ToString() : gone.status().message()}});
  }
  return verdict;
}

}  // namespace sinkd::s3
