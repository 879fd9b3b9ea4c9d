// The destination of a lake-writing command (import, drain, dispatch): --lake-dir for a directory,
// or --s3-endpoint and --s3-bucket for an object store. There is no default destination; naming
// both, or neither, is refused with a message that names the options. Selection runs before any
// network I/O.
// Environment variables are defaults: LAKE_DIR for --lake-dir, AWS_ENDPOINT_URL for
// --s3-endpoint, S3_BUCKET for --s3-bucket. A destination named by a flag outranks one named only
// by the environment, so `--lake-dir ./lake` works on a machine that exports AWS_ENDPOINT_URL for
// its other tools; two destinations named at the same level are refused. The AWS credential
// variables (and the retired S3_* names) are read on the S3 branch only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "base/log.h"
#include "base/result.h"
#include "cli/config_flags.h"
#include "config/config.h"
#include "lake/destination.h"
#include "s3/environment.h"

namespace sinkd::cli {

struct DestinationFlags {
  std::string lake_dir;     // env LAKE_DIR
  std::string s3_endpoint;  // env AWS_ENDPOINT_URL; URL or host:port
  std::string s3_bucket;    // env S3_BUCKET
  bool s3_ssl = false;      // TLS for a bare host:port (an https:// URL says it too)
  bool s3_anonymous = false;
  bool s3_virtual_hosted = false;
  bool s3_no_create_bucket = false;
  std::string s3_ca_bundle;
  uint64_t s3_multipart_threshold = 64ull * 1024 * 1024;  // bytes; at least 5 MiB
  int s3_retry_attempts = 6;
  std::string s3_retry_max_backoff = "20s";
  std::string s3_request_timeout = "5m";
  // Run compaction (and table commits) on a store that lets a create replace an object.
  bool s3_unsafe_unconditional = false;
};

// Adds the destination flags to `cmd`.
void AddDestinationFlags(CLI::App& cmd, DestinationFlags& flags);
// Binds those flags to the configuration file's `[lake]` keys (and --lake-dir, --s3-endpoint,
// --s3-bucket to their environment variables), the same for every command that takes them.
void BindDestinationFlags(ConfigFlags& config);

// Chooses and builds the destination the flags (and the environment) name; not yet Ensure'd.
// `log` receives the S3 destination's retries and warnings (a stderr logger when null).
Result<std::unique_ptr<lake::Destination>> MakeDestination(const DestinationFlags& flags,
                                                           Logger* log = nullptr);
// The same over an injected environment.
Result<std::unique_ptr<lake::Destination>> MakeDestination(const DestinationFlags& flags,
                                                           const s3::Environment& env,
                                                           Logger* log);

// For a command whose safety rests on a create never replacing an object (compaction: its outputs
// are named by their inputs, which it deletes; table commits): runs
// destination.CheckExclusiveCreates(prefix) and refuses (Refuse, naming the store, what it did and
// the flag) a store that lets a create through, unless flags.s3_unsafe_unconditional; then it logs
// an error and returns OK. A probe that could not run is returned as it is (Redeliver).
// A drain with --table-format none does not call it: each key it creates names its instance and
// the stream positions of the rows inside, so a second create of one key carries the same
// messages, and an overwrite replaces rows with the same rows; refusing there would stop ingest
// and protect nothing. With a table it does: a commit is the create of the next metadata version,
// and two drains both "creating" one would lose a snapshot.
// `sinkd validate`: a bucket answers a listing with these credentials (one request, nothing
// written or created); a directory lake is not reached (the drain creates it). The failure names
// --s3-bucket.
Status ReachDestination(const DestinationFlags& flags);

Status RequireExclusiveCreates(lake::Destination& destination, const std::string& prefix,
                               const DestinationFlags& flags, const std::string& command,
                               Logger& log);

// A lake sink entry names its destination with the same words as the command-line flags:
// lake_dir, or s3_endpoint + s3_bucket (+ s3_ssl, s3_anonymous, …). The file decides: the
// LAKE_DIR / AWS_ENDPOINT_URL / S3_BUCKET defaults of the flags are not consulted, while the AWS
// credential variables still are (secrets stay out of the file).
// (dispatch builds its lake sinks with it; `lake verify --table outbox_…` reads the same lake.)
Result<std::unique_ptr<lake::Destination>> DestinationFromSinkOptions(config::OptionReader& o,
                                                                      Logger* log);

}  // namespace sinkd::cli
