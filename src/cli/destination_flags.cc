#include "cli/destination_flags.h"

#include <algorithm>

#include "base/duration.h"
#include "cli/size_flags.h"
#include "lake/dir_destination.h"
#include "s3/s3_destination.h"

namespace sinkd::cli {

namespace {

constexpr char kBoth[] =
    "--lake-dir and --s3-endpoint/--s3-bucket name two different destinations; pass one of them";
constexpr char kNone[] =
    "no destination: pass --lake-dir <path> for a lake on this machine, or --s3-endpoint and "
    "--s3-bucket for an object store";

Result<std::chrono::milliseconds> Millis(const std::string& text, const char* flag) {
  Result<std::chrono::nanoseconds> d = ParseDuration(text);
  if (!d.ok()) return d.status().WithContext(flag);
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

Result<std::unique_ptr<lake::Destination>> MakeS3(const DestinationFlags& flags,
                                                  const std::string& endpoint,
                                                  const std::string& bucket,
                                                  const s3::Environment& env, Logger* log) {
  if (endpoint.empty()) {
    std::string message = "--s3-bucket without --s3-endpoint: there is no store to put the bucket on";
    if (!env("S3_ENDPOINT").empty()) {
      message += "; S3_ENDPOINT is no longer read: export AWS_ENDPOINT_URL instead";
    }
    return Status::Refuse(message);
  }
  if (bucket.empty()) {
    return Status::Refuse(
        "--s3-endpoint without --s3-bucket: there is no bucket to put the objects in");
  }
  SINKD_RETURN_IF_ERROR(s3::CheckRetiredNames(env, /*include_endpoint=*/false));
  s3::S3Options options;
  SINKD_ASSIGN_OR_RETURN(options.endpoint, s3::ParseEndpoint(endpoint, flags.s3_ssl));
  SINKD_ASSIGN_OR_RETURN(options.credentials, s3::CredentialsFrom(env, flags.s3_anonymous));
  options.bucket = bucket;
  options.region = s3::RegionFrom(env);
  options.virtual_hosted = flags.s3_virtual_hosted;
  options.ca_bundle = flags.s3_ca_bundle;
  options.create_bucket = !flags.s3_no_create_bucket;
  if (flags.s3_multipart_threshold < s3::kMinPieceBytes) {
    return Status::Refuse("--s3-multipart-threshold must be at least 5MiB: S3 refuses multipart "
                          "pieces smaller than that");
  }
  options.multipart_threshold = flags.s3_multipart_threshold;
  options.retry.attempts = flags.s3_retry_attempts;
  SINKD_ASSIGN_OR_RETURN(options.retry.backoff.cap,
                         Millis(flags.s3_retry_max_backoff, "--s3-retry-max-backoff"));
  if (options.retry.backoff.cap.count() <= 0) {
    return Status::Refuse("--s3-retry-max-backoff must be at least 1ms");
  }
  // A cap below the first wait lowers the first wait too: every wait stays under the cap.
  options.retry.backoff.initial =
      std::min(options.retry.backoff.initial, options.retry.backoff.cap);
  SINKD_ASSIGN_OR_RETURN(options.request_timeout,
                         Millis(flags.s3_request_timeout, "--s3-request-timeout"));
  SINKD_ASSIGN_OR_RETURN(auto destination, s3::S3Destination::Make(std::move(options), log));
  return std::unique_ptr<lake::Destination>(std::move(destination));
}

}  // namespace

void AddDestinationFlags(CLI::App& cmd, DestinationFlags& flags) {
  cmd.add_option("--lake-dir", flags.lake_dir, "write the lake to this directory (env LAKE_DIR)");
  cmd.add_option("--s3-endpoint", flags.s3_endpoint,
                 "S3 endpoint, host:port or URL (env AWS_ENDPOINT_URL)");
  cmd.add_option("--s3-bucket", flags.s3_bucket,
                 "S3 bucket (env S3_BUCKET, which is ours: AWS has no standard variable for a "
                 "bucket)");
  cmd.add_flag("--s3-ssl", flags.s3_ssl, "use TLS for S3; an https:// endpoint says it too");
  cmd.add_flag("--s3-anonymous", flags.s3_anonymous,
               "send unsigned requests, for a store with no IAM, instead of "
               "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY");
  cmd.add_flag("--s3-virtual-hosted", flags.s3_virtual_hosted,
               "address the bucket as <bucket>.<endpoint host> instead of the first path segment");
  cmd.add_option("--s3-ca-bundle", flags.s3_ca_bundle,
                 "PEM file of CAs to trust for https (certificates are always verified)");
  cmd.add_flag("--s3-no-create-bucket", flags.s3_no_create_bucket,
               "refuse to start when the bucket is missing instead of creating it");
  AddSizeOption(cmd, "--s3-multipart-threshold", flags.s3_multipart_threshold,
                "Parts above this size go up in pieces of this size (multipart); also the memory "
                "one upload holds; at least 5MiB");
  cmd.add_option("--s3-retry-attempts", flags.s3_retry_attempts,
                 "tries per S3 request on 5xx, throttling, timeouts and resets, before the flush "
                 "fails and its batch is redelivered")
      ->capture_default_str();
  cmd.add_option("--s3-retry-max-backoff", flags.s3_retry_max_backoff,
                 "longest wait between two tries (backoff doubles from 100ms, with jitter)")
      ->capture_default_str();
  cmd.add_option("--s3-request-timeout", flags.s3_request_timeout,
                 "cap on one S3 request, upload included")
      ->capture_default_str();
  cmd.add_flag("--s3-unsafe-unconditional", flags.s3_unsafe_unconditional,
               "compact (or commit a table) even on a store that lets a create with "
               "If-None-Match: * replace an object, where two writers can overwrite each other");
}

Status RequireExclusiveCreates(lake::Destination& destination, const std::string& prefix,
                               const DestinationFlags& flags, const std::string& command,
                               Logger& log) {
  const Status checked = destination.CheckExclusiveCreates(prefix);
  if (checked.ok() || !checked.IsRefuse()) return checked;
  if (flags.s3_unsafe_unconditional) {
    log.Error("UNSAFE: the store lets a create replace an object, and --s3-unsafe-unconditional "
              "says to go on: two writers of one key can overwrite each other",
              {{"command", command}, {"destination", destination.Describe()},
               {"probe", checked.message()}});
    return Status::OK();
  }
  return Status::Refuse(
      command + " refuses to run on " + destination.Describe() + ": " + checked.message() +
      ". It relies on a create never replacing an object (two of its writers of one key would "
      "overwrite each other); use a store that honours If-None-Match, or pass "
      "--s3-unsafe-unconditional (lake.s3_unsafe_unconditional = true) to run anyway");
}

Result<std::unique_ptr<lake::Destination>> MakeDestination(const DestinationFlags& flags,
                                                           Logger* log) {
  return MakeDestination(flags, s3::ProcessEnvironment(), log);
}

Result<std::unique_ptr<lake::Destination>> MakeDestination(const DestinationFlags& flags,
                                                           const s3::Environment& env,
                                                           Logger* log) {
  const bool dir_flag = !flags.lake_dir.empty();
  const bool s3_flag = !flags.s3_endpoint.empty() || !flags.s3_bucket.empty();
  if (dir_flag && s3_flag) return Status::Refuse(kBoth);
  std::string lake_dir = flags.lake_dir;
  std::string endpoint = flags.s3_endpoint.empty() ? env("AWS_ENDPOINT_URL") : flags.s3_endpoint;
  std::string bucket = flags.s3_bucket.empty() ? env("S3_BUCKET") : flags.s3_bucket;
  if (!dir_flag && !s3_flag) {
    lake_dir = env("LAKE_DIR");
    const bool s3_env = !endpoint.empty() || !bucket.empty();
    if (!lake_dir.empty() && s3_env) {
      return Status::Refuse(std::string(kBoth) +
                            " (LAKE_DIR and AWS_ENDPOINT_URL or S3_BUCKET are all exported)");
    }
    if (lake_dir.empty() && !s3_env) {
      SINKD_RETURN_IF_ERROR(s3::CheckRetiredNames(env, /*include_endpoint=*/true));
      return Status::Refuse(kNone);
    }
  }
  if (!lake_dir.empty()) {
    SINKD_ASSIGN_OR_RETURN(auto dir, lake::DirDestination::Make(lake_dir));
    return std::unique_ptr<lake::Destination>(std::move(dir));
  }
  return MakeS3(flags, endpoint, bucket, env, log);
}

Result<std::unique_ptr<lake::Destination>> DestinationFromSinkOptions(config::OptionReader& o,
                                                                      Logger* log) {
  DestinationFlags f;
  SINKD_ASSIGN_OR_RETURN(f.lake_dir, o.String("lake_dir", ""));
  SINKD_ASSIGN_OR_RETURN(f.s3_endpoint, o.String("s3_endpoint", ""));
  SINKD_ASSIGN_OR_RETURN(f.s3_bucket, o.String("s3_bucket", ""));
  SINKD_ASSIGN_OR_RETURN(f.s3_ssl, o.Bool("s3_ssl", false));
  SINKD_ASSIGN_OR_RETURN(f.s3_anonymous, o.Bool("s3_anonymous", false));
  SINKD_ASSIGN_OR_RETURN(f.s3_virtual_hosted, o.Bool("s3_virtual_hosted", false));
  SINKD_ASSIGN_OR_RETURN(f.s3_no_create_bucket, o.Bool("s3_no_create_bucket", false));
  SINKD_ASSIGN_OR_RETURN(f.s3_ca_bundle, o.String("s3_ca_bundle", ""));
  SINKD_ASSIGN_OR_RETURN(f.s3_multipart_threshold,
                         o.Size("s3_multipart_threshold", f.s3_multipart_threshold, 0,
                                uint64_t{1} << 40));
  SINKD_ASSIGN_OR_RETURN(int64_t attempts, o.Int("s3_retry_attempts", f.s3_retry_attempts, 1, 100));
  f.s3_retry_attempts = static_cast<int>(attempts);
  SINKD_ASSIGN_OR_RETURN(f.s3_retry_max_backoff, o.String("s3_retry_max_backoff", f.s3_retry_max_backoff));
  SINKD_ASSIGN_OR_RETURN(f.s3_request_timeout, o.String("s3_request_timeout", f.s3_request_timeout));
  if (f.lake_dir.empty() && f.s3_endpoint.empty() && f.s3_bucket.empty()) {
    return Status::Refuse("INVALID_CONFIG: a lake sink needs lake_dir, or s3_endpoint and s3_bucket");
  }
  const s3::Environment process = s3::ProcessEnvironment();
  const s3::Environment env = [process](std::string_view name) -> std::string {
    if (name == "LAKE_DIR" || name == "AWS_ENDPOINT_URL" || name == "S3_BUCKET") return "";
    return process(name);
  };
  return MakeDestination(f, env, log);
}

void BindDestinationFlags(ConfigFlags& config) {
  config.Bind("--lake-dir", {"lake.dir"}, "LAKE_DIR");
  config.Bind("--s3-endpoint", {"lake.s3_endpoint"}, "AWS_ENDPOINT_URL");
  config.Bind("--s3-bucket", {"lake.s3_bucket"}, "S3_BUCKET");
  for (const char* name : {"s3_ssl", "s3_anonymous", "s3_virtual_hosted", "s3_no_create_bucket",
                           "s3_ca_bundle", "s3_multipart_threshold", "s3_retry_attempts",
                           "s3_retry_max_backoff", "s3_request_timeout",
                           "s3_unsafe_unconditional"}) {
    std::string flag = std::string("--") + name;
    for (char& c : flag) c = c == '_' ? '-' : c;
    config.Bind(flag, {std::string("lake.") + name});
  }
}

Status ReachDestination(const DestinationFlags& flags) {
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::Destination> destination, MakeDestination(flags));
  const std::string where = destination->Describe();
  if (where.rfind("s3://", 0) != 0) return Status::OK();
  // A prefix nothing writes: the answer is about the bucket and the credentials, not the lake.
  auto listed = destination->List("sinkd-validate-probe/");
  if (!listed.ok()) return listed.status().WithContext("--s3-bucket: " + where);
  return Status::OK();
}

}  // namespace sinkd::cli
