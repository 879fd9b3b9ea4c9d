#include "sinks/registry.h"

#include <cstdlib>
#include <limits>

#include "iceberg/table_format.h"
#include "lake/lake_writer.h"
#include "row/row_buffer.h"
#include "sinks/jetstream_sink.h"
#include "sinks/lake_sink.h"

namespace sinkd::sinks {

namespace {

Status Invalid(const std::string& message) { return Status::Refuse("INVALID_CONFIG: " + message); }

Result<lake::LakeWriterOptions> LakeOptions(const config::SinkConfig& entry,
                                            config::OptionReader& o, const SinkEnvironment& env,
                                            const char* default_prefix) {
  lake::LakeWriterOptions options;
  SINKD_ASSIGN_OR_RETURN(options.key_prefix, o.String("key_prefix", default_prefix));
  options.instance = env.instance;
  SINKD_ASSIGN_OR_RETURN(int64_t level, o.Int("zstd_level", 3, 1, 19));
  SINKD_ASSIGN_OR_RETURN(int64_t rows, o.Int("row_group_rows", 122'880, 1, 10'000'000));
  options.parquet.zstd_level = static_cast<int>(level);
  options.parquet.row_group_rows = static_cast<size_t>(rows);
  SINKD_ASSIGN_OR_RETURN(int64_t threads,
                         o.Int("encode_threads", static_cast<int64_t>(WorkPool::DefaultThreads()),
                               1, static_cast<int64_t>(lake::kMaxEncodeThreads)));
  options.encode_threads = static_cast<size_t>(threads);
  options.parquet.created_by = env.created_by;
  Status valid = options.Validate();
  if (!valid.ok()) return Invalid(entry.Where() + ": " + valid.message());
  return options;
}

// A lake sink's batch_max_bytes: the rows one flush may hold (32-bit string offsets).
Result<size_t> BatchMaxBytes(const config::SinkConfig& entry, config::OptionReader& o) {
  SINKD_ASSIGN_OR_RETURN(uint64_t bytes,
                         o.Size("batch_max_bytes", row::kDefaultBatchBytes, 0, UINT64_MAX));
  const Status s = row::CheckBatchMaxBytes("batch_max_bytes", static_cast<size_t>(bytes));
  if (!s.ok()) return Invalid(entry.Where() + ": " + s.message());
  return static_cast<size_t>(bytes);
}

// A lake sink's max_partitions_per_flush: a delivery spanning more is flushed in sub-ranges.
Result<size_t> MaxPartitions(config::OptionReader& o) {
  SINKD_ASSIGN_OR_RETURN(int64_t n,
                         o.Int("max_partitions_per_flush",
                               static_cast<int64_t>(partition::kDefaultMaxPartitionsPerFlush), 1,
                               std::numeric_limits<int64_t>::max()));
  return static_cast<size_t>(n);
}

// A lake sink's table_format (table/commit.h): "none" (default) or "iceberg", its commit made
// over the sink's destination through the sink's catalog. An outbox sink's positions are its
// (txid, seq) ("outbox:<id>").
Result<std::unique_ptr<table::Commit>> TableCommit(const config::SinkConfig& entry,
                                                   config::OptionReader& o,
                                                   const SinkEnvironment& env,
                                                   lake::Destination& destination) {
  SINKD_ASSIGN_OR_RETURN(std::string format, o.String("table_format", "none"));
  SINKD_ASSIGN_OR_RETURN(const iceberg::TableCatalog catalog, LakeSinkCatalog(entry, o, env));
  auto commit = iceberg::MakeTableCommit(format, destination, "", catalog);
  if (!commit.ok()) return Invalid(entry.Where() + ": table_format: " + commit.status().message());
  return commit;
}

Result<std::unique_ptr<lake::Destination>> Destination(const config::SinkConfig& entry,
                                                       config::OptionReader& o,
                                                       const SinkEnvironment& env) {
  if (!env.make_destination) return Status::Internal("no destination factory");
  auto destination = env.make_destination(o);
  if (!destination.ok()) return destination.status().WithContext(entry.Where());
  return destination;
}

Result<std::unique_ptr<EventSink>> MakeLakeEvents(const config::SinkConfig& entry,
                                                  config::OptionReader& o,
                                                  const SinkEnvironment& env) {
  SINKD_ASSIGN_OR_RETURN(lake::LakeWriterOptions options,
                         LakeOptions(entry, o, env, "outbox_events"));
  SINKD_ASSIGN_OR_RETURN(size_t max_bytes, BatchMaxBytes(entry, o));
  SINKD_ASSIGN_OR_RETURN(size_t max_partitions, MaxPartitions(o));
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::Destination> dest, Destination(entry, o, env));
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<table::Commit> commit, TableCommit(entry, o, env, *dest));
  return std::unique_ptr<EventSink>(std::make_unique<LakeEventSink>(
      entry.id, std::move(dest), std::move(options), max_bytes, max_partitions, std::move(commit)));
}

Result<std::unique_ptr<AuditSink>> MakeLakeAudit(const config::SinkConfig& entry,
                                                 config::OptionReader& o,
                                                 const SinkEnvironment& env) {
  SINKD_ASSIGN_OR_RETURN(lake::LakeWriterOptions options,
                         LakeOptions(entry, o, env, "outbox_audit"));
  SINKD_ASSIGN_OR_RETURN(size_t max_bytes, BatchMaxBytes(entry, o));
  SINKD_ASSIGN_OR_RETURN(size_t max_partitions, MaxPartitions(o));
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::Destination> dest, Destination(entry, o, env));
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<table::Commit> commit, TableCommit(entry, o, env, *dest));
  return std::unique_ptr<AuditSink>(std::make_unique<LakeAuditSink>(
      entry.id, std::move(dest), std::move(options), max_bytes, max_partitions, std::move(commit)));
}

Result<std::unique_ptr<EventSink>> MakeJetStream(const config::SinkConfig& entry,
                                                 config::OptionReader& o,
                                                 const SinkEnvironment&) {
  JetStreamSinkOptions options;
  const char* env_url = std::getenv("NATS_URL");
  SINKD_ASSIGN_OR_RETURN(options.url, o.String("url", env_url && *env_url
                                                          ? env_url
                                                          : "nats://127.0.0.1:4222"));
  SINKD_ASSIGN_OR_RETURN(options.subject_prefix, o.RequiredString("subject_prefix"));
  if (!IsSubjectSafe(options.subject_prefix)) {
    return Invalid(entry.Where() + ": subject_prefix \"" + options.subject_prefix +
                   "\" is not a subject (no blanks, wildcards or empty tokens)");
  }
  SINKD_ASSIGN_OR_RETURN(int64_t timeout, o.Int("timeout_ms", 5000, 100, 600'000));
  options.timeout = std::chrono::milliseconds(timeout);
  return std::unique_ptr<EventSink>(
      std::make_unique<JetStreamEventSink>(entry.id, std::move(options)));
}

}  // namespace

Result<iceberg::TableCatalog> LakeSinkCatalog(const config::SinkConfig& entry,
                                              config::OptionReader& o, const SinkEnvironment& env) {
  iceberg::TableCatalog catalog;
  SINKD_ASSIGN_OR_RETURN(catalog.kind, o.String("iceberg_catalog", env.catalog.kind));
  SINKD_ASSIGN_OR_RETURN(catalog.url, o.String("iceberg_catalog_url", env.catalog.url));
  SINKD_ASSIGN_OR_RETURN(catalog.namespace_name,
                         o.String("iceberg_namespace", env.catalog.namespace_name));
  if (catalog.kind != "files" && catalog.kind != "sql") {
    return Invalid(entry.Where() + ": iceberg_catalog \"" + catalog.kind +
                   "\" is not a catalog (files, sql)");
  }
  if (catalog.namespace_name.empty())
    return Invalid(entry.Where() + ": iceberg_namespace is empty");
  if (catalog.kind == "sql" && catalog.url.empty()) catalog.url = env.outbox_conninfo;
  if (catalog.kind == "sql" && catalog.url.empty()) {
    return Invalid(entry.Where() +
                   ": iceberg_catalog \"sql\" needs iceberg_catalog_url or "
                   "[postgres] url");
  }
  return catalog;
}

iceberg::TableCatalog FileCatalog(const config::Config& file) {
  iceberg::TableCatalog catalog;
  const auto text = [&](const char* key, std::string& out) {
    auto it = file.settings.find(key);
    if (it != file.settings.end()) out = it->second.text;
  };
  text("iceberg.catalog", catalog.kind);
  text("iceberg.catalog_url", catalog.url);
  text("iceberg.namespace", catalog.namespace_name);
  return catalog;
}

SinkRegistry SinkRegistry::Builtin() {
  SinkRegistry r;
  r.AddEventType("lake", MakeLakeEvents);
  r.AddEventType("jetstream", MakeJetStream);
  r.AddAuditType("lake", MakeLakeAudit);
  return r;
}

void SinkRegistry::AddEventType(const std::string& type, EventFactory factory) {
  event_types_[type] = std::move(factory);
}

void SinkRegistry::AddAuditType(const std::string& type, AuditFactory factory) {
  audit_types_[type] = std::move(factory);
}

template <typename Map>
std::string Known(const Map& m) {
  std::string out;
  for (const auto& [name, f] : m) out += (out.empty() ? "" : ", ") + name;
  return out;
}

Result<BuiltEventSink> SinkRegistry::MakeEventSink(const config::SinkConfig& entry,
                                                   const SinkEnvironment& env) const {
  auto it = event_types_.find(entry.type);
  if (it == event_types_.end()) {
    return Invalid(entry.Where() + ": unknown event sink type \"" + entry.type +
                   "\" (known: " + Known(event_types_) + ")");
  }
  config::OptionReader options(entry);
  BuiltEventSink built;
  const int default_batch = entry.type == "lake" ? kLakeBatchSize : env.default_batch_size;
  SINKD_ASSIGN_OR_RETURN(int64_t batch, options.Int("batch_size", default_batch, 1, 100'000));
  built.batch_size = static_cast<int>(batch);
  SINKD_ASSIGN_OR_RETURN(built.sink, it->second(entry, options, env));
  SINKD_RETURN_IF_ERROR(options.Done());
  return built;
}

Result<std::unique_ptr<AuditSink>> SinkRegistry::MakeAuditSink(const config::SinkConfig& entry,
                                                               const SinkEnvironment& env) const {
  auto it = audit_types_.find(entry.type);
  if (it == audit_types_.end()) {
    return Invalid(entry.Where() + ": unknown audit sink type \"" + entry.type +
                   "\" (known: " + Known(audit_types_) + ")");
  }
  config::OptionReader options(entry);
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<AuditSink> sink, it->second(entry, options, env));
  SINKD_RETURN_IF_ERROR(options.Done());
  return sink;
}

}  // namespace sinkd::sinks
