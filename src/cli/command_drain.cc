// sinkd drain ledger|audit: a durable pull consumer into the lake (drain/drain.h does the work).
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "base/build_info.h"
#include "base/duration.h"
#include "base/log.h"
#include "base/redact.h"
#include "base/shutdown_signals.h"
#include "partition/partition_cap.h"
#include "config/config.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/nats_flags.h"
#include "cli/size_flags.h"
#include "cli/stream_origin.h"
#include "cli/destination_flags.h"
#include "cli/lake_flags.h"
#include "drain/drain.h"
#include "drain/row_store.h"
#include "http/listener.h"
#include "iceberg/iceberg_commit.h"
#include "iceberg/table_format.h"
#include "outbox/pg.h"
#include "jetstream/connection.h"
#include "jetstream/dead_letter_publisher.h"
#include "jetstream/pull_consumer.h"
#include "jetstream/streams.h"
#include "metrics/drain_metrics.h"

namespace sinkd::cli {

namespace {

struct DrainFlags {
  jetstream::ConnectOptions nats;  // url and authentication, from AddNatsFlags
  std::string durable;
  DestinationFlags destination;
  LakeFlags lake;
  size_t batch_max_rows = 250'000;
  size_t batch_max_bytes = row::kDefaultBatchBytes;
  std::string batch_interval = "5m";
  int fetch_max = 512;
  std::string flush_timeout = "5m";
  size_t max_partitions_per_flush = partition::kDefaultMaxPartitionsPerFlush;
  std::string ack_wait = "0";
  int64_t max_ack_pending = 0;
  std::string metrics_listen;
};

// A duration flag's value; a refusal names the flag.
Result<std::chrono::nanoseconds> FlagDuration(const std::string& text, const char* flag) {
  auto d = ParseDuration(text);
  if (!d.ok()) return d.status().WithContext(flag);
  return d;
}

Result<drain::DrainOptions> OptionsFrom(const DrainFlags& flags, const StreamOrigin& origin) {
  drain::DrainOptions o;
  o.origin = origin.name;
  o.envelope = origin.envelope;
  o.stream = origin.stream;
  o.batch_max_rows = flags.batch_max_rows;
  o.batch_max_bytes = flags.batch_max_bytes;
  o.fetch_max = flags.fetch_max;
  o.max_ack_pending = flags.max_ack_pending;
  o.max_partitions_per_flush = flags.max_partitions_per_flush;
  SINKD_ASSIGN_OR_RETURN(o.batch_interval, FlagDuration(flags.batch_interval, "--batch-interval"));
  SINKD_ASSIGN_OR_RETURN(o.flush_timeout, FlagDuration(flags.flush_timeout, "--flush-timeout"));
  SINKD_ASSIGN_OR_RETURN(o.ack_wait, FlagDuration(flags.ack_wait, "--ack-wait"));
  SINKD_RETURN_IF_ERROR(o.Validate());
  return o;
}

Status RunDrain(const DrainFlags& flags, const StreamOrigin& origin, const std::string& settings,
                Invocation& invocation) {
  // Everything that can be refused without the network is refused first, as a usage error.
  SINKD_ASSIGN_OR_RETURN(drain::DrainOptions options, invocation.Usage(OptionsFrom(flags, origin)));
  SINKD_ASSIGN_OR_RETURN(lake::LakeWriterOptions lake_options,
                         invocation.Usage(LakeWriterOptionsFrom(flags.lake, origin.name)));
  SINKD_RETURN_IF_ERROR(invocation.Usage(iceberg::CheckTableCatalog(TableCatalogFrom(flags.lake))));
  options.decode_threads = lake_options.encode_threads;
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::Destination> destination,
                         invocation.Usage(MakeDestination(flags.destination)));
  const std::string durable = flags.durable.empty() ? "sink-" + origin.name : flags.durable;
  // Installed before the first network call: a SIGTERM while connecting or binding must stop the
  // drain cleanly (exit 0, nothing fetched) rather than take the default action and exit 143.
  ShutdownSignals::Install();

  metrics::DrainMetrics metrics;
  metrics.origin = origin.name;
  Logger log;
  log.AddContext("origin", origin.name);
  jetstream::ConnectOptions connect = flags.nats;
  connect.name = "sinkd drain " + origin.name + " " + lake_options.instance;
  connect.log = &log;
  connect.stop = &ShutdownSignals::stop();
  // Stopped while waiting for a server or a leader: nothing was fetched, so nothing is left to do.
  const auto stopped_before_start = [&](const Status& why) {
    log.Info("sinkd drain stopped before starting", {{"error", why.message()}});
    return Status::OK();
  };
  auto connected = jetstream::Connection::Connect(connect);
  if (!connected.ok() && ShutdownSignals::stop()) return stopped_before_start(connected.status());
  SINKD_ASSIGN_OR_RETURN(auto connection, std::move(connected));
  metrics.connected = true;

  // A drain that could not store a dead letter would have to drop the record or stall on it.
  jetstream::DeadLetterPublisher publisher(*connection, origin.name);
  // A node that just died may have led a stream: until the cluster elects another, the JetStream
  // API times out. Those steps are retried as the connect is, rather than exiting.
  const auto retry_at_start = [&](std::string_view what, const std::function<Status()>& step) {
    return jetstream::RetryAtStart(connect, what, [&] {
      Status tried = step();
      return jetstream::StartAttempt{tried, tried.IsRetry()};
    });
  };
  Status checked = retry_at_start("dead-letter stream check",
                                  [&] { return publisher.CheckReachable(); });
  if (!checked.ok() && ShutdownSignals::stop()) return stopped_before_start(checked);
  SINKD_RETURN_IF_ERROR(checked);
  jetstream::ConsumerConfig consumer_config;
  consumer_config.stream = origin.stream;
  consumer_config.durable = durable;
  consumer_config.filter = origin.filter;
  consumer_config.ack_wait = options.EffectiveAckWait();
  consumer_config.max_ack_pending = options.EffectiveMaxAckPending();
  consumer_config.description = "sinkd drain " + origin.name + " into the lake";
  std::unique_ptr<jetstream::PullConsumer> consumer;
  Status bound = retry_at_start("durable consumer bind", [&] {
    auto made = jetstream::PullConsumer::Bind(*connection, consumer_config);
    if (!made.ok()) return made.status();
    consumer = std::move(made).value();
    return Status::OK();
  });
  if (!bound.ok() && ShutdownSignals::stop()) return stopped_before_start(bound);
  SINKD_RETURN_IF_ERROR(bound);
  metrics.consumer_bound = true;
  SINKD_RETURN_IF_ERROR(destination->Ensure());
  metrics.destination_reachable = true;
  // The table's positions name the stream by its creation time as the consumer found it, so a
  // stream made again under its name is another source and none of its messages is filtered.
  SINKD_ASSIGN_OR_RETURN(
      std::unique_ptr<table::Commit> commit,
      iceberg::MakeTableCommit(flags.lake.table_format, *destination, consumer->stream_created(),
                               TableCatalogFrom(flags.lake)));
  if (commit->format() != table::kNoCommitFormat) {
    // A table's commit is a create that must never replace the metadata another drain (or a
    // compactor) created under the same version: on a store that lets it, two commits would
    // both "win" and one snapshot would silently vanish.
    SINKD_RETURN_IF_ERROR(RequireExclusiveCreates(*destination, lake_options.key_prefix,
                                                  flags.destination,
                                                  "sinkd drain --table-format " +
                                                      std::string(commit->format()),
                                                  log));
  }

  log.Info("sinkd drain started",
           {{"version", std::string_view(kVersion)},
            {"settings", settings},
            {"nats", RedactPassword(flags.nats.url)},
            {"nats_server", connection->connected_url()},
            {"stream", origin.stream},
            {"durable", durable},
            {"destination", destination->Describe()},
            {"key_prefix", lake_options.key_prefix},
            {"table_format", commit->format()},
            {"instance", lake_options.instance},
            {"batch_max_rows", static_cast<uint64_t>(options.batch_max_rows)},
            {"batch_interval", FormatDuration(options.batch_interval)},
            {"ack_wait", FormatDuration(options.EffectiveAckWait())},
            {"batch_max_bytes", static_cast<uint64_t>(options.batch_max_bytes)},
            {"max_ack_pending", options.EffectiveMaxAckPending()},
            {"fetch_max", options.fetch_max},
            {"flush_timeout", FormatDuration(options.flush_timeout)},
            {"max_partitions_per_flush", static_cast<uint64_t>(options.max_partitions_per_flush)},
            {"metrics_listen", flags.metrics_listen}});
  http::Listener listener(metrics);
  if (!flags.metrics_listen.empty()) {
    SINKD_RETURN_IF_ERROR(listener.Start(flags.metrics_listen));
    log.Info("metrics listening", {{"address", flags.metrics_listen}, {"port", listener.port()}});
  }

  drain::LakeRowStore store(*destination, lake_options, *commit);
  drain::StreamDeadLetters dead_letters(publisher);
  drain::Drain drain(options, *consumer, dead_letters, store, log, &metrics);
  Status status = drain.Run(ShutdownSignals::stop());
  // Acks are small publishes the client may still hold; hand them to the server before leaving.
  (void)connection->FlushPending(std::chrono::seconds(5));
  if (drain.flush_stuck()) {
    // A thread is still inside a flush that cannot be interrupted (a hung mount, a store that
    // never answers), using the row store, the destination and a batch: returning would destroy them
    // under it. Everything it held was nak'd, so leaving now loses nothing, as a second SIGTERM.
    log.Error("sinkd drain stopped with a flush stuck; exiting without it",
              {{"error", status.message()}});
    std::fprintf(stderr, "sinkd: %s\n", status.message().c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  }
  // What an operator checks after a stop: that what was held landed, or went back to the stream.
  const drain::Drain::StopSummary& stopped = drain.stop_summary();
  log.Info("sinkd drain stopped",
           {{"signals", ShutdownSignals::count()},
            {"rows_flushed_at_stop", stopped.rows_flushed},
            {"messages_held_back", stopped.messages_held_back},
            {"rows_flushed", metrics.rows_flushed.load()},
            {"messages", metrics.messages.load()}});
  return status;
}

void AddDrainOrigin(CLI::App& parent, Invocation& invocation, const StreamOrigin& origin,
                    const std::string& description) {
  auto flags = std::make_shared<DrainFlags>();
  CLI::App* cmd = parent.add_subcommand(origin.name, description);
  auto config = std::make_shared<ConfigFlags>(*cmd, "drain " + origin.name);
  invocation.configurable.push_back(config);
  // A drain is a service: under systemd its NATS may come up after it, or be down for a while.
  AddNatsFlags(*cmd, flags->nats, *config, "forever");
  cmd->add_option("--durable", flags->durable,
                  "durable consumer name (default sink-" + origin.name + ")");
  AddDestinationFlags(*cmd, flags->destination);
  AddLakeFlags(*cmd, flags->lake);
  AddTableFormatFlag(*cmd, flags->lake);
  cmd->add_option("--batch-max-rows", flags->batch_max_rows,
                  "flush after this many ROWS; one ledger message holds many")
      ->capture_default_str();
  AddSizeOption(*cmd, "--batch-max-bytes", flags->batch_max_bytes,
                "flush once the batch holds this many bytes (messages + decoded rows; "
                "1 MiB to 2 GiB)");
  cmd->add_option("--batch-interval", flags->batch_interval,
                  "flush this long after the batch's first message arrived")
      ->capture_default_str();
  cmd->add_option("--fetch-max", flags->fetch_max, "messages per JetStream fetch")
      ->capture_default_str();
  cmd->add_option("--flush-timeout", flags->flush_timeout,
                  "the longest one flush may run: past it the flush is abandoned, its batch "
                  "nak'd and the drain not ready until a flush succeeds; feeds the default ack "
                  "wait")
      ->capture_default_str();
  cmd->add_option("--max-partitions-per-flush", flags->max_partitions_per_flush,
                  "write at most this many partitions (date and app) per flush; the events of "
                  "one message past it are dead-lettered (too_many_partitions)")
      ->capture_default_str();
  cmd->add_option("--ack-wait", flags->ack_wait,
                  "the durable's AckWait (0 = batch-interval + flush-timeout + 1m); keep-alives "
                  "cover longer batches, so a shorter one only speeds up recovery after a crash")
      ->capture_default_str();
  cmd->add_option("--max-ack-pending", flags->max_ack_pending,
                  "the durable's MaxAckPending (0 = 2 x (batch-max-rows + fetch-max), so a full "
                  "batch of one-event messages fits in flight)")
      ->capture_default_str();
  cmd->add_option("--metrics-listen", flags->metrics_listen,
                  "serve /metrics, /healthz and /readyz on this host:port (off by default)");
  const std::string d = "drain." + origin.name + ".";
  config->Bind("--durable", {d + "durable"});
  BindDestinationFlags(*config);
  config->Bind("--key-prefix", {d + "key_prefix"});
  config->Bind("--instance-id", {"lake.instance_id"});
  config->Bind("--zstd-level", {"lake.zstd_level"});
  config->Bind("--row-group-rows", {"lake.row_group_rows"});
  config->Bind("--encode-threads", {"lake.encode_threads"});
  BindTableFormatFlag(*config);
  for (const char* name : {"batch_max_rows", "batch_max_bytes", "batch_interval", "fetch_max",
                           "flush_timeout", "ack_wait", "max_ack_pending",
                           "max_partitions_per_flush"}) {
    std::string flag = std::string("--") + name;
    for (char& c : flag) c = c == '_' ? '-' : c;
    config->Bind(flag, {d + name});
  }
  config->Bind("--metrics-listen", {d + "metrics_listen", "metrics.listen"});
  // What RunDrain refuses before connecting, and what it connects to.
  config->check = [flags, origin]() -> Status {
    SINKD_RETURN_IF_ERROR(OptionsFrom(*flags, origin).status());
    SINKD_RETURN_IF_ERROR(LakeWriterOptionsFrom(flags->lake, origin.name).status());
    SINKD_RETURN_IF_ERROR(iceberg::CheckTableCatalog(TableCatalogFrom(flags->lake)));
    return MakeDestination(flags->destination).status();
  };
  // NATS when the file is meant for this drain (its section or [nats]), not for [lake] alone.
  config->reach = [flags, origin, c = config.get()] {
    std::vector<Status> failures;
    if (c->FileSets("nats.") || c->FileSets("drain." + origin.name + ".")) {
      failures = ReachNats(flags->nats, {origin.stream, jetstream::kDeadStream});
    }
    if (Status s = ReachDestination(flags->destination); !s.ok()) failures.push_back(s);
    // The sql catalog's database, reached as a commit would (connecting only: its tables are
    // created by the first commit, and validate changes nothing).
    const iceberg::TableCatalog catalog = TableCatalogFrom(flags->lake);
    if (flags->lake.table_format == iceberg::kIcebergCommitFormat && catalog.kind == "sql") {
      auto conn = outbox::PgConn::Connect(catalog.url, "sinkd-validate");
      if (!conn.ok()) failures.push_back(conn.status().WithContext("--iceberg-catalog-url"));
    }
    return failures;
  };
  cmd->callback([flags, config, &invocation, origin] {
    invocation.run = [flags, config, origin, &invocation] {
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      return RunDrain(*flags, origin, config->SettingsFrom(), invocation);
    };
  });
}

}  // namespace

void AddDrainCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(root, "drain", "drain a JetStream stream into the lake");
  const auto origins = StreamOrigins();
  AddDrainOrigin(*parent, invocation,
                 origins[0],
                 "drain GARM_LEDGER (messages are garm.ledger.v1.Batch)");
  AddDrainOrigin(*parent, invocation,
                 origins[1],
                 "drain GARM_AUDIT (messages are garm.ledger.v1.Event)");
}

}  // namespace sinkd::cli
