// SinkRegistry turns the configuration's [[sinks.events]] / [[sinks.audit]] entries into sink
// objects, by type. The built-in types are `lake` (events and audit) and `jetstream` (events); a
// program that links sinkd's libraries can add its own C++ sink types with AddEventType /
// AddAuditType before building, and list them in the same configuration file.
// Every entry's options are read by name and type; an unknown type or option, or a value of the
// wrong type, is INVALID_CONFIG naming the entry, before any sink opens.
// Options common to every event sink: batch_size (a pass reads 4 × batch_size events; default
// the [dispatch] value, except for `lake`: kLakeBatchSize, because each of its deliveries is a
// durable flush of Parquet files and 128 events per flush would mean thousands of tiny files).
// `lake`: lake_dir (or what the destination factory accepts), key_prefix (default outbox_events /
// outbox_audit), zstd_level (3), row_group_rows (122880), batch_max_bytes (512MiB, 1 MiB to 2 GiB,
// bytes or a size string such as "256MiB": the rows one flush holds; a delivery past it is flushed
// in several Parts), max_partitions_per_flush (1000: a delivery spanning more partitions is flushed
// in several sub-ranges), table_format (none|iceberg) and, for an iceberg table, iceberg_catalog,
// iceberg_catalog_url, iceberg_namespace (LakeSinkCatalog). `jetstream`: url (default $NATS_URL or
// nats://127.0.0.1:4222), subject_prefix (required), timeout_ms (5000). Threads: one thread at a
// time; built sinks are independent objects.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "iceberg/table_format.h"
#include "lake/destination.h"
#include "sinks/event_sink.h"

namespace sinkd::sinks {

// Builds a lake's destination from a sink entry's options (lake_dir, or an object store's
// options). Supplied by the program, which knows every destination kind.
using DestinationFactory =
    std::function<Result<std::unique_ptr<lake::Destination>>(config::OptionReader&)>;

// What a sink factory may use besides its own options.
struct SinkEnvironment {
  DestinationFactory make_destination;
  std::string instance;     // unique per process; names lake Parts
  std::string created_by;   // every Part's created_by
  int default_batch_size = 32;
  // [iceberg] catalog, catalog_url, namespace of the file: a lake sink's catalog unless its entry
  // names one (LakeSinkCatalog).
  iceberg::TableCatalog catalog;
  std::string outbox_conninfo;  // [postgres] url: the sql catalog's database when none is named
};

// A lake sink's table catalog (iceberg/table_format.h): its entry's iceberg_catalog (files|sql),
// iceberg_catalog_url and iceberg_namespace, each defaulting to env.catalog's; the sql catalog
// without a URL is the outbox's own database (env.outbox_conninfo), where the sink's cursor moves
// in the transaction that moves the table's pointer (sinks/lake_sink.h). INVALID_CONFIG naming
// the entry and the key for a kind other than files or sql, or an empty namespace.
Result<iceberg::TableCatalog> LakeSinkCatalog(const config::SinkConfig& entry,
                                              config::OptionReader& options,
                                              const SinkEnvironment& env);
// [iceberg] of `file` (its defaults where the file sets none), for SinkEnvironment::catalog.
iceberg::TableCatalog FileCatalog(const config::Config& file);

// The lake sink's default batch_size: a pass of 8,192 events per flush.
inline constexpr int kLakeBatchSize = 2048;

struct BuiltEventSink {
  std::unique_ptr<EventSink> sink;
  int batch_size = 0;
};

class SinkRegistry {
 public:
  using EventFactory = std::function<Result<std::unique_ptr<EventSink>>(
      const config::SinkConfig&, config::OptionReader&, const SinkEnvironment&)>;
  using AuditFactory = std::function<Result<std::unique_ptr<AuditSink>>(
      const config::SinkConfig&, config::OptionReader&, const SinkEnvironment&)>;

  // The built-in lake and jetstream types.
  static SinkRegistry Builtin();

  void AddEventType(const std::string& type, EventFactory factory);
  void AddAuditType(const std::string& type, AuditFactory factory);

  Result<BuiltEventSink> MakeEventSink(const config::SinkConfig& entry,
                                       const SinkEnvironment& env) const;
  Result<std::unique_ptr<AuditSink>> MakeAuditSink(const config::SinkConfig& entry,
                                                   const SinkEnvironment& env) const;

 private:
  std::map<std::string, EventFactory> event_types_;
  std::map<std::string, AuditFactory> audit_types_;
};

}  // namespace sinkd::sinks
