#include "s3/s3_destination.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string_view>

#include "base/random_token.h"
#include "s3/exclusive_probe.h"
#include "s3/s3_client.h"
#include "s3/s3_upload.h"

namespace sinkd::s3 {

namespace {

// "2026-12-01T20:00:00.123Z" or "…:00Z" (ListObjectsV2's LastModified) → Unix milliseconds;
// nullopt unless it is exactly that shape with every field in range. A time read wrongly as early
// would end a grace that has not ended, so anything doubtful is unreadable.
std::optional<int64_t> IsoUnixMillis(const std::string& text) {
  struct tm tm = {};
  int millis = 0, length = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &length) != 6 ||
      length != 19) {
    return std::nullopt;
  }
  std::string_view rest = std::string_view(text).substr(19);
  if (rest.size() >= 2 && rest[0] == '.') {
    int digits = 0;
    for (rest.remove_prefix(1); !rest.empty() && rest[0] >= '0' && rest[0] <= '9';
         rest.remove_prefix(1)) {
      if (digits++ < 3) millis = millis * 10 + (rest[0] - '0');
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) millis *= 10;
  }
  if (rest != "Z" || tm.tm_year < 1970 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
      tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return int64_t{timegm(&tm)} * 1000 + millis;
}

}  // namespace

Status S3Options::Validate() const {
  if (bucket.empty()) return Status::Refuse("s3: no bucket: pass --s3-bucket or export S3_BUCKET");
  if (bucket.find_first_of("/ \t\r\n") != std::string::npos) {
    return Status::Refuse("--s3-bucket \"" + bucket +
                          "\" is not a bucket name: it has a '/' or a space");
  }
  if (endpoint.host.empty()) return Status::Refuse("s3: no endpoint: pass --s3-endpoint");
  if (multipart_threshold == 0 || multipart_threshold > 5ull * 1024 * kMiB) {
    return Status::Refuse("--s3-multipart-threshold must be between 1 byte and 5 GiB");
  }
  return retry.Validate();
}

S3Destination::S3Destination(S3Options options, Logger* log)
    : options_(std::move(options)),
      own_log_(log ? nullptr : std::make_unique<Logger>()),
      log_(log ? *log : *own_log_) {
  S3ClientOptions client;
  client.endpoint = options_.endpoint;
  client.bucket = options_.bucket;
  client.region = options_.region;
  client.credentials = options_.credentials;
  client.virtual_hosted = options_.virtual_hosted;
  client.http.ca_bundle = options_.ca_bundle;
  client.http.connect_timeout = options_.connect_timeout;
  client.http.request_timeout = options_.request_timeout;
  client.retry = options_.retry;
  client_ = std::make_unique<S3Client>(std::move(client), log_);
}

S3Destination::~S3Destination() = default;

Result<std::unique_ptr<S3Destination>> S3Destination::Make(S3Options options, Logger* log) {
  SINKD_RETURN_IF_ERROR(options.Validate());
  return std::unique_ptr<S3Destination>(new S3Destination(std::move(options), log));
}

std::string S3Destination::Describe() const {
  std::string who;
  if (options_.credentials.anonymous()) {
    who = "anonymous, unsigned (--s3-anonymous)";
  } else if (!options_.credentials.session_token.empty()) {
    who = "signed with AWS_ACCESS_KEY_ID and AWS_SESSION_TOKEN";
  } else {
    who = "signed with AWS_ACCESS_KEY_ID";
  }
  return "s3://" + options_.bucket + " at " + options_.endpoint.host + " (region " +
         options_.region + ", " + who + ")";
}

Status S3Destination::Ensure() {
  const std::string where = "bucket check on " + Describe();
  Result<HttpResponse> head = client_->Send(S3Call{"HEAD", "", {}, {}, {}});
  if (!head.ok()) return Status::Refuse(where + ": " + head.status().message());
  if (head->status / 100 == 2) return Status::OK();
  if (head->status != 404) {
    // A HEAD answer has no body, so "403" alone would not say whether the key, the secret or a
    // policy is wrong; the same question as a GET brings the store's Code and Message.
    S3Answer answer = AnswerOf(*head);
    Result<HttpResponse> probe =
        client_->Send(S3Call{"GET", "", {{"list-type", "2"}, {"max-keys", "0"}}, {}, {}});
    if (probe.ok() && probe->status / 100 != 2 && !AnswerOf(*probe).code.empty()) {
      answer = AnswerOf(*probe);
    }
    return Status::Refuse(where + ": " + answer.ToString());
  }
  if (!options_.create_bucket) {
    return Status::Refuse(where + ": the bucket does not exist, and --s3-no-create-bucket says "
                                  "not to create it: create it, or drop the flag");
  }
  std::string body;
  if (options_.region != "us-east-1") {
    body = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
           "<LocationConstraint>" + options_.region + "</LocationConstraint>"
           "</CreateBucketConfiguration>";
  }
  Result<HttpResponse> made = client_->Send(S3Call{"PUT", "", {}, {}, body});
  if (!made.ok()) return Status::Refuse("bucket create on " + Describe() + ": " +
                                        made.status().message());
  const S3Answer answer = AnswerOf(*made);
  // Another instance starting at the same moment may have made it first.
  if (made->status / 100 != 2 && answer.code != "BucketAlreadyOwnedByYou") {
    return Status::Refuse("bucket create on " + Describe() + ": " + answer.ToString());
  }
  log_.Info("created bucket", {{"destination", Describe()}});
  return Status::OK();
}

Result<std::unique_ptr<lake::PartUpload>> S3Destination::Begin(const std::string& key) {
  if (key.empty() || key.front() == '/') {
    return Status::Internal("s3: a Part key must be relative and non-empty: \"" + key + "\"");
  }
  return std::unique_ptr<lake::PartUpload>(new S3Upload(*this, key));
}

Status S3Destination::Replace(const std::string& key, std::string_view bytes) {
  if (key.empty() || key.front() == '/') return Status::Internal("s3: bad key \"" + key + "\"");
  Result<HttpResponse> sent =
      client_->Send(S3Call{"PUT", key, {}, {{"content-type", ContentTypeFor(key)}}, bytes});
  if (!sent.ok()) {
    return Status::Redeliver("replace " + client_->Name(key) + ": " + sent.status().message());
  }
  if (sent->status / 100 == 2) return Status::OK();
  return Status::Redeliver("replace " + client_->Name(key) + ": " + AnswerOf(*sent).ToString());
}

Status S3Destination::Delete(const std::string& key) {
  if (key.empty() || key.front() == '/') return Status::Internal("s3: bad key \"" + key + "\"");
  Result<HttpResponse> sent = client_->Send(S3Call{"DELETE", key, {}, {}, {}});
  if (!sent.ok()) return Status::Redeliver("delete " + key + ": " + sent.status().message());
  if (sent->status / 100 == 2 || sent->status == 404) return Status::OK();
  return Status::Redeliver("delete " + client_->Name(key) + ": " + AnswerOf(*sent).ToString());
}

Result<bool> S3Destination::DeleteIfUnchanged(const lake::StoredObject& expected) {
  const std::string& key = expected.key;
  if (key.empty() || key.front() == '/') return Status::Internal("s3: bad key \"" + key + "\"");
  // The HEAD is the whole check on a store that ignores If-Match; where it is honoured, the
  // DELETE's own condition closes the window between the two.
  Result<HttpResponse> head = client_->Send(S3Call{"HEAD", key, {}, {}, {}});
  if (!head.ok()) {
    return Status::Redeliver("check " + key + " before deleting it: " + head.status().message());
  }
  if (head->status == 404) return true;
  if (head->status / 100 != 2) {
    return Status::Redeliver("check " + client_->Name(key) + " before deleting it: " +
                             AnswerOf(*head).ToString());
  }
  const std::string etag = head->Header("etag");
  if (expected.version.empty() || BareEtag(etag) != expected.version ||
      head->Header("content-length") != std::to_string(expected.size)) {
    return false;
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    HeaderList headers;
    if (conditional_deletes_) headers.emplace_back("if-match", etag);
    Result<HttpResponse> sent = client_->Send(S3Call{"DELETE", key, {}, headers, {}});
    if (!sent.ok()) return Status::Redeliver("delete " + key + ": " + sent.status().message());
    if (sent->status == 412) return false;  // replaced since the HEAD
    if (sent->status / 100 == 2 || sent->status == 404) return true;
    if (!conditional_deletes_ || !RefusesConditional(*sent)) {
      return Status::Redeliver("delete " + client_->Name(key) + ": " +
                               AnswerOf(*sent).ToString());
    }
    conditional_deletes_ = false;
    log_.Warn("the store does not implement If-Match on DELETE; superseded Parts are deleted "
              "after a HEAD checked their size and ETag, without the store's own check",
              {{"destination", Describe()}, {"answer", AnswerOf(*sent).ToString()}});
  }
  return Status::Internal("delete " + key + ": unreachable");
}

Result<std::vector<lake::StoredObject>> S3Destination::List(const std::string& prefix) {
  std::vector<lake::StoredObject> objects;
  std::string token;
  // Bounded: a page holds up to 1,000 keys, so 1,000,000 pages is far past any lake.
  for (int page = 0; page < 1'000'000; ++page) {
    QueryList query = {{"list-type", "2"}, {"prefix", prefix}};
    if (!token.empty()) query.emplace_back("continuation-token", token);
    Result<HttpResponse> sent = client_->Send(S3Call{"GET", "", query, {}, {}});
    if (!sent.ok()) return Status::Redeliver("list " + client_->Name(prefix) + ": " +
                                             sent.status().message());
    if (sent->status / 100 != 2) {
      return Status::Redeliver("list " + client_->Name(prefix) + ": " +
                               AnswerOf(*sent).ToString());
    }
    std::string_view body = sent->body;
    for (size_t at = body.find("<Contents>"); at != std::string_view::npos;
         at = body.find("<Contents>", at + 1)) {
      const size_t end = body.find("</Contents>", at);
      if (end == std::string_view::npos) break;
      const std::string_view entry = body.substr(at, end - at);
      lake::StoredObject object;
      object.key = XmlValue(entry, "Key");
      object.size = std::strtoull(XmlValue(entry, "Size").c_str(), nullptr, 10);
      object.version = BareEtag(XmlValue(entry, "ETag"));
      const std::string modified = XmlValue(entry, "LastModified");
      const std::optional<int64_t> millis = IsoUnixMillis(modified);
      object.modified_unix_ms = millis.value_or(lake::kUnknownTime);
      if (!millis) {
        log_.Warn("the store gave an object a LastModified that does not parse; it counts as not "
                  "yet appeared: no grace measured from it ends, nothing is deleted on its account",
                  {{"object", client_->Name(object.key)}, {"last_modified", modified}});
      }
      objects.push_back(std::move(object));
    }
    token = XmlValue(body, "NextContinuationToken");
    if (XmlValue(body, "IsTruncated") != "true" || token.empty()) break;
  }
  std::sort(objects.begin(), objects.end(),
            [](const lake::StoredObject& a, const lake::StoredObject& b) { return a.key < b.key; });
  return objects;
}

Result<std::string> S3Destination::Read(const std::string& key, uint64_t offset,
                                        uint64_t length) {
  if (key.empty() || key.front() == '/') return Status::Internal("s3: bad key \"" + key + "\"");
  if (length == 0) return std::string();
  const std::string range =
      "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1);
  Result<HttpResponse> sent = client_->Send(S3Call{"GET", key, {}, {{"range", range}}, {}});
  if (!sent.ok()) return Status::Redeliver("read " + client_->Name(key) + ": " +
                                           sent.status().message());
  if (sent->status == 404) {
    return Status::NotFound("read " + client_->Name(key) + ": no such object");
  }
  if (sent->status == 416) return std::string();  // offset at or past the end
  if (sent->status == 206) return std::move(sent->body);
  if (sent->status == 200) {  // a store that ignores Range sends it all
    if (offset >= sent->body.size()) return std::string();
    return sent->body.substr(offset, length);
  }
  return Status::Redeliver("read " + client_->Name(key) + ": " + AnswerOf(*sent).ToString());
}

Status S3Destination::CheckExclusiveCreates(const std::string& prefix) {
  if (exclusive_) return *exclusive_;
  const std::string key =
      (prefix.empty() ? "" : prefix + "/") + kProbeDirectory + RandomToken();
  Status verdict = ProbeExclusiveCreates(*client_, key, log_);
  if (verdict.ok() || verdict.IsRefuse()) exclusive_ = verdict;
  return verdict;
}

void S3Destination::StopConditionalCreates(const std::string& answer) {
  if (!conditional_creates_) return;
  conditional_creates_ = false;
  log_.Warn("the store does not implement If-None-Match; objects are created without it, so "
            "nothing stops two writers of one key from overwriting each other",
            {{"destination", Describe()}, {"answer", answer}});
}

}  // namespace sinkd::s3
