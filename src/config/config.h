// sinkd's one configuration file (TOML), shared by every command (`--config sinkd.toml`):
//   [nats]            url, creds_file, nkey_seed_file, tls_ca, tls_cert, tls_key, tls_required,
//                     use_discovered_servers, connect_timeout
//   [lake]            dir, or s3_endpoint + s3_bucket and the s3_* options; instance_id,
//                     zstd_level, row_group_rows, encode_threads, table_format (none|iceberg)
//   [drain.ledger]    durable, key_prefix, batch_max_rows, batch_max_bytes, batch_interval,
//   [drain.audit]     fetch_max, flush_timeout, ack_wait, max_ack_pending, metrics_listen,
//                     max_partitions_per_flush
//   [provision]       ledger_max_bytes, audit_max_bytes, dead_max_bytes, ledger_max_age, replicas
//   [compaction]      target_bytes, min_parts, settle, grace, follow, every, metrics_listen,
//                     metrics_textfile
//                     (`sinkd compact`, every table; the lake and instance_id come from [lake])
//   [metrics]         listen (for a command whose own section names no metrics_listen)
//   [log]             level (debug|info|warn|error), format (json|text): every command with --config
//   [postgres]        url = "postgresql://…"  (or url_env = "NAME": read the URL from $NAME)
//   [dispatch]        batch_size, poll_interval, audit_interval, audit_batch, lease_ttl,
//                     deliver_timeout, metrics_listen, instance — all optional
//   [[sinks.events]]  id, type, plus the type's options
//   [[sinks.audit]]   id, type, plus the type's options
// [postgres] is required once [dispatch] or [sinks] is there (the dispatcher's part). The keys of
// FileSettings() reach the commands through their flags (cli/config_flags.h): flag > environment >
// file > default. Secrets stay out of the file: S3 credentials come from the AWS_* environment,
// the nkey seed and the .creds file are named by path.
// Ids are non-empty and unique among the event sinks and among the audit sinks; any entry under
// sinks.usage is refused (usage goes to billing through the IAM bridge, never through a sink).
// A size key (batch_max_bytes, target_bytes, s3_multipart_threshold, …) takes an integer of bytes
// or a string with a binary unit, "256MiB" (base/size.h), like its flag.
// Every refusal is a Refuse whose message starts with INVALID_CONFIG and names the key (and the
// file:line:column where the file says it). Unknown keys and tables are refused too: a typo must not silently
// fall back to a default.
// Threads: pure functions; a Config is a value.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"

namespace sinkd::config {

using Value = std::variant<std::string, int64_t, bool>;

struct SinkConfig {
  std::string kind;  // "events" or "audit"
  std::string id;
  std::string type;  // "lake", "jetstream", or a type a user registered
  std::map<std::string, Value> options;  // every key but id and type
  size_t index = 0;  // position in its list
  // "sinks.events[1] (id "lake")": how messages name this entry.
  std::string Where() const;
};

struct DispatchSettings {
  int batch_size = 32;  // a pass reads 4 × batch_size events per sink
  std::chrono::nanoseconds poll_interval = std::chrono::milliseconds(500);
  std::chrono::nanoseconds audit_interval = std::chrono::seconds(5);
  int audit_batch = 500;
  std::chrono::nanoseconds lease_ttl = std::chrono::seconds(10);
  // A Deliver/Write not back by then is stuck: its lease is given up (outbox/dispatcher.h).
  std::chrono::nanoseconds deliver_timeout = std::chrono::seconds(60);
  std::string metrics_listen;  // "" = no endpoint (the --metrics-listen flag overrides)
  std::string instance;        // "" = <hostname>-<pid>
};

// One key of the file as a flag would spell it, and where it was.
struct FileSetting {
  std::string text;   // a string's contents, an integer's digits, "true" or "false"; a size as
                      // written ("256MiB" or its digits)
  std::string where;  // "sinkd.toml:3:7"
};

// kSize: an integer of bytes or a string ParseSize reads ("256MiB"); its text is kept as written.
enum class SettingKind { kString, kInteger, kBoolean, kSize };

struct SettingSpec {
  std::string key;  // dotted: "nats.url", "drain.ledger.batch_max_rows"
  SettingKind kind;
  bool secret;  // never printed: `config show` masks it
};

// Every scalar key the file may hold outside [[sinks.*]], in the order `config show` prints them.
const std::vector<SettingSpec>& FileSettings();
// The spec of `key`, or null.
const SettingSpec* FindSetting(std::string_view key);

struct Config {
  std::string origin;  // the file name given to ParseConfig
  std::map<std::string, FileSetting> settings;  // every FileSettings() key the file set
  std::string postgres_url;  // never logged
  DispatchSettings dispatch;
  std::vector<SinkConfig> event_sinks;
  std::vector<SinkConfig> audit_sinks;
};

// Parses the text of a configuration; `origin` (a file name) prefixes syntax errors.
Result<Config> ParseConfig(std::string_view text, std::string_view origin = "config");
// Reads and parses a file. A missing file is a Refuse naming it.
Result<Config> LoadConfig(const std::string& path);
// As LoadConfig, but a settings key refused for itself (unknown, of the wrong type, a size
// without a known unit) is left out and named in `problems` ("<file>:<line>:<col>: …", no
// INVALID_CONFIG tag) rather than ending the parse, so `sinkd validate` names every one. What
// ends the parse still does: TOML syntax, [postgres], [dispatch] and the sinks.
Result<Config> LoadConfigCollecting(const std::string& path, std::vector<std::string>& problems);

// Reads a sink's options by name and type, then refuses whatever was not read (a typo).
// Threads: one thread at a time.
class OptionReader {
 public:
  explicit OptionReader(const SinkConfig& sink) : sink_(sink) {}

  Result<std::string> String(const std::string& key, std::string fallback);
  Result<std::string> RequiredString(const std::string& key);
  Result<int64_t> Int(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  Result<bool> Bool(const std::string& key, bool fallback);
  // A size in bytes: an integer, or a string with a unit ("64MiB", base/size.h).
  Result<uint64_t> Size(const std::string& key, uint64_t fallback, uint64_t min, uint64_t max);
  bool Has(const std::string& key) const { return sink_.options.count(key) > 0; }
  // INVALID_CONFIG naming the first option that no call read.
  Status Done() const;

 private:
  Status Wrong(const std::string& key, const char* want) const;

  const SinkConfig& sink_;
  std::set<std::string> read_;
};

}  // namespace sinkd::config
