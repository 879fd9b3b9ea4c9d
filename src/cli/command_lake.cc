// `sinkd lake verify`: proves from footers alone that a lake table holds every row its writers
// acknowledged (src/verify/verify.h has the rules). Exit 0 when nothing is missing, 1 naming every
// gap and incomplete flush (or when it could not look).
#include <cstdio>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "base/progress.h"
#include "base/redact.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/destination_flags.h"
#include "cli/nats_flags.h"
#include "cli/size_flags.h"
#include "cli/stream_origin.h"
#include "jetstream/pull_consumer.h"
#include "jetstream/streams.h"
#include "outbox/pg.h"
#include "table/table.h"
#include "verify/outbox_rows.h"
#include "verify/scan.h"
#include "verify/stream_dead_letters.h"
#include "verify/verify.h"

namespace sinkd::cli {

namespace {

struct VerifyFlags {
  DestinationFlags destination;
  jetstream::ConnectOptions nats;
  std::string table_arg;  // positional: ledger | audit
  std::string table;      // --table: ledger | audit | outbox_events | outbox_audit
  std::string key_prefix;
  std::string durable;
  uint64_t from = 0, to = 0;
  bool has_from = false, has_to = false, use_nats = false;
  uint64_t small_bytes = 64ull << 20;
  bool json = false;
  std::string sink;                 // --sink: the outbox lake sink of the --config file
  bool destination_given = false;   // a destination flag on the command line
};

// The outbox lake sink entry of the configuration file that `table` belongs to: the one --sink
// names, or the only lake sink of that kind.
Result<const config::SinkConfig*> LakeSinkEntry(const config::Config& file, const std::string& table,
                                                const std::string& wanted) {
  const bool events = table == "outbox_events";
  const auto& entries = events ? file.event_sinks : file.audit_sinks;
  const char* list = events ? "[[sinks.events]]" : "[[sinks.audit]]";
  std::vector<const config::SinkConfig*> lakes;
  std::string ids;
  for (const config::SinkConfig& e : entries) {
    if (e.type != "lake") continue;
    if (!ids.empty()) ids += ", ";
    ids += e.id;
    if (wanted.empty() || e.id == wanted) lakes.push_back(&e);
  }
  if (lakes.size() == 1) return lakes[0];
  if (!wanted.empty()) {
    return Status::Refuse("lake verify --sink " + wanted + ": no lake sink of that id in " + list +
                          (ids.empty() ? std::string() : " (lake sinks: " + ids + ")"));
  }
  if (lakes.empty()) return Status::Refuse(std::string("lake verify: no lake sink in ") + list);
  return Status::Refuse("lake verify: several lake sinks in " + std::string(list) + " (" + ids +
                        "): name one with --sink");
}

std::string Ranges(const std::vector<lake::SequenceRange>& r) {
  return r.empty() ? std::string("none") : lake::FormatRanges(r);
}

nlohmann::json ReportJson(const std::string& table, const std::string& prefix,
                          const std::string& where, const verify::VerifyReport& r) {
  nlohmann::json j;
  j["table"] = table;
  j["prefix"] = prefix;
  j["destination"] = where;
  j["ok"] = r.ok();
  j["parts"] = r.objects;
  j["rows"] = r.rows;
  j["bytes"] = r.bytes;
  j["small_parts"] = r.small_parts;
  j["unstamped_parts"] = r.unstamped;
  j["superseded_parts"] = r.superseded;
  j["flushes"] = r.flushes;
  j["duplicates"] = {{"parts", r.duplicate_parts},
                     {"rows", r.duplicate_rows},
                     {"sequences", r.duplicate_sequences}};
  j["spaces"] = nlohmann::json::array();
  for (const verify::SpaceReport& s : r.spaces) {
    j["spaces"].push_back({{"space", s.space},
                           {"covered", lake::FormatRanges(s.covered)},
                           {"expected", lake::FormatRanges(s.expected)},
                           {"complete_flushes", s.flushes}});
  }
  j["incomplete_flushes"] = nlohmann::json::array();
  for (const verify::IncompleteFlush& f : r.incomplete) {
    nlohmann::json missing = nlohmann::json::array();
    for (const verify::MissingPart& m : f.missing) {
      missing.push_back({{"n", m.n}, {"name", m.name}, {"after", m.after_dir},
                         {"before", m.before_dir}});
    }
    j["incomplete_flushes"].push_back({{"instance", f.flush.instance},
                                       {"source", f.flush.source},
                                       {"first", f.flush.first},
                                       {"last", f.flush.last},
                                       {"acked", lake::FormatRanges(f.flush.acked)},
                                       {"parts", f.flush.parts},
                                       {"rows", f.flush.rows},
                                       {"missing", missing}});
  }
  j["gaps"] = nlohmann::json::array();
  for (const verify::Gap& g : r.gaps) {
    j["gaps"].push_back({{"space", g.space}, {"first", g.range.first}, {"last", g.range.last}});
  }
  j["unreadable"] = nlohmann::json::array();
  for (const auto& [key, error] : r.unreadable) {
    j["unreadable"].push_back({{"key", key}, {"error", error}});
  }
  return j;
}

void PrintText(const std::string& table, const std::string& where,
               const verify::VerifyReport& r) {
  std::printf("lake verify %s (%s): %llu Parts, %llu rows, %llu bytes; %llu small, %llu without a "
              "stamp, %llu superseded (awaiting deletion); %llu flushes\n",
              table.c_str(), where.c_str(), static_cast<unsigned long long>(r.objects),
              static_cast<unsigned long long>(r.rows), static_cast<unsigned long long>(r.bytes),
              static_cast<unsigned long long>(r.small_parts),
              static_cast<unsigned long long>(r.unstamped),
              static_cast<unsigned long long>(r.superseded),
              static_cast<unsigned long long>(r.flushes));
  for (const verify::SpaceReport& s : r.spaces) {
    std::printf("  %s: covered %s; expected %s\n", s.space.c_str(), Ranges(s.covered).c_str(),
                Ranges(s.expected).c_str());
  }
  std::printf("  duplicates known from stamps: %llu Parts (%llu rows), %llu sequences\n",
              static_cast<unsigned long long>(r.duplicate_parts),
              static_cast<unsigned long long>(r.duplicate_rows),
              static_cast<unsigned long long>(r.duplicate_sequences));
  for (const verify::IncompleteFlush& f : r.incomplete) {
    for (const verify::MissingPart& m : f.missing) {
      std::printf("  incomplete flush %s %s %llu-%llu (%llu Parts, %llu rows, acked %s): Part %llu "
                  "missing: %s\n",
                  f.flush.instance.c_str(), f.flush.source.c_str(),
                  static_cast<unsigned long long>(f.flush.first),
                  static_cast<unsigned long long>(f.flush.last),
                  static_cast<unsigned long long>(f.flush.parts),
                  static_cast<unsigned long long>(f.flush.rows),
                  lake::FormatRanges(f.flush.acked).c_str(),
                  static_cast<unsigned long long>(m.n), m.Describe().c_str());
    }
  }
  for (const verify::Gap& g : r.gaps) {
    std::printf("  gap %s %s\n", g.space.c_str(), lake::FormatRanges({g.range}).c_str());
  }
  for (const auto& [key, error] : r.unreadable) {
    std::printf("  unreadable %s: %s\n", key.c_str(), error.c_str());
  }
  std::printf("  %s\n", r.ok() ? "OK" : "NOT OK");
}

// What `lake verify` checks, read from the flags and the file before anything is read: a
// refusal here is a usage error (exit 2); a lake found wanting later is a failure (exit 1).
struct VerifyTarget {
  std::string table;
  std::optional<StreamOrigin> origin;     // a drain's table; none for an outbox table
  const config::SinkConfig* entry = nullptr;  // the outbox lake sink, with --config [postgres]
  std::string prefix;
  std::unique_ptr<lake::Destination> destination;
};

Result<VerifyTarget> VerifyTargetFrom(const VerifyFlags& flags, const config::Config* file) {
  std::string table = flags.table.empty() ? flags.table_arg : flags.table;
  if (!flags.table.empty() && !flags.table_arg.empty() && flags.table != flags.table_arg) {
    return Status::Refuse("lake verify: table given twice (" + flags.table_arg + " and --table " +
                          flags.table + ")");
  }
  if (table.empty()) {
    return Status::Refuse("lake verify needs a table: ledger, audit, or --table "
                          "outbox_events|outbox_audit");
  }
  std::optional<StreamOrigin> origin;
  for (const StreamOrigin& o : StreamOrigins()) {
    if (o.name == table) origin = o;
  }
  if (table::FindTable(table) == nullptr) {
    return Status::Refuse("lake verify: unknown table \"" + table +
                          "\": use ledger, audit, outbox_events or outbox_audit");
  }
  if (flags.use_nats && !origin) {
    return Status::Refuse("lake verify --table " + table +
                          ": --nats-url gives a stream's range; an outbox table has none");
  }
  if (flags.has_from && flags.has_to && flags.from > flags.to) {
    return Status::Refuse("lake verify: --from " + std::to_string(flags.from) + " is past --to " +
                          std::to_string(flags.to));
  }
  // With the dispatch configuration, an outbox table is its lake sink's: its prefix, its
  // destination (unless a flag names another) and its database, whose rows it must hold.
  const config::SinkConfig* entry = nullptr;
  const bool outbox_rows = !origin && file != nullptr && !file->postgres_url.empty();
  if (outbox_rows) {
    SINKD_ASSIGN_OR_RETURN(entry, LakeSinkEntry(*file, table, flags.sink));
  } else if (!flags.sink.empty()) {
    return Status::Refuse("lake verify --sink needs an outbox table and --config with [postgres]");
  }
  std::string prefix = flags.key_prefix.empty() ? table : flags.key_prefix;
  std::unique_ptr<lake::Destination> destination;
  if (entry != nullptr) {
    config::OptionReader options(*entry);
    if (flags.key_prefix.empty()) {
      SINKD_ASSIGN_OR_RETURN(prefix, options.String("key_prefix", table));
    }
    if (!flags.destination_given) {
      SINKD_ASSIGN_OR_RETURN(destination, DestinationFromSinkOptions(options, nullptr));
    }
  }
  lake::LakeWriterOptions check;
  check.key_prefix = prefix;
  check.instance = "verify";
  SINKD_RETURN_IF_ERROR(check.Validate());
  if (!destination) {
    SINKD_ASSIGN_OR_RETURN(destination, MakeDestination(flags.destination));
  }
  return VerifyTarget{table, origin, entry, prefix, std::move(destination)};
}

Status RunVerify(const VerifyFlags& flags, const config::Config* file, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(VerifyTarget target, invocation.Usage(VerifyTargetFrom(flags, file)));
  const std::string& table = target.table;
  const std::optional<StreamOrigin>& origin = target.origin;
  const config::SinkConfig* entry = target.entry;
  const std::string& prefix = target.prefix;
  std::unique_ptr<lake::Destination>& destination = target.destination;
  const std::string where = destination->Describe();

  verify::VerifyInput input;
  input.small_part_bytes = flags.small_bytes;
  if (flags.has_from) input.from = flags.from;
  if (flags.has_to) input.to = flags.to;
  {
    std::unique_ptr<Progress> progress;
    SINKD_RETURN_IF_ERROR(verify::ScanLake(
        *destination, prefix, input, [&](uint64_t done, uint64_t total) {
          if (!progress) {
            progress = std::make_unique<Progress>(stderr, "lake verify " + table, total,
                                                  ProgressUnit::kCount, "objects");
          }
          if (progress->active()) progress->Update(done);
        }));
  }
  if (flags.use_nats) {
    jetstream::ConnectOptions connect = flags.nats;
    connect.name = "sinkd lake verify " + table;
    SINKD_ASSIGN_OR_RETURN(auto connection, jetstream::Connection::Connect(connect));
    const std::string durable = flags.durable.empty() ? "sink-" + origin->name : flags.durable;
    SINKD_ASSIGN_OR_RETURN(jetstream::StreamState stream,
                           jetstream::GetStreamState(*connection, origin->stream));
    SINKD_ASSIGN_OR_RETURN(jetstream::ConsumerState consumer,
                           jetstream::GetConsumerState(*connection, origin->stream, durable));
    // Every sequence still in the stream that the durable has acknowledged must be in the lake.
    std::vector<lake::SequenceRange>& expected = input.expected[origin->stream];
    if (stream.first_sequence != 0 && consumer.ack_floor_stream >= stream.first_sequence) {
      expected.push_back({stream.first_sequence, consumer.ack_floor_stream});
    }
    SINKD_RETURN_IF_ERROR(verify::AddStreamDeadLetters(*connection, origin->name, input));
  }
  if (entry != nullptr) {
    SINKD_ASSIGN_OR_RETURN(outbox::PgConn conn,
                           outbox::PgConn::Connect(file->postgres_url, "sinkd lake verify"));
    SINKD_RETURN_IF_ERROR(verify::AddOutboxRows(
        conn, table == "outbox_events" ? verify::OutboxTable::kEvents : verify::OutboxTable::kAudit,
        entry->id, input));
  }
  const verify::VerifyReport report = verify::Verify(input);
  if (flags.json) {
    std::printf("%s\n", ReportJson(table, prefix, where, report).dump().c_str());
  } else {
    PrintText(table, where, report);
  }
  std::fflush(stdout);
  if (report.ok()) return Status::OK();
  std::string what;
  auto add = [&](size_t n, const char* one, const char* many) {
    if (n == 0) return;
    if (!what.empty()) what += ", ";
    what += std::to_string(n) + " " + (n == 1 ? one : many);
  };
  size_t missing = 0;
  for (const auto& f : report.incomplete) missing += f.missing.size();
  add(report.gaps.size(), "gap", "gaps");
  add(report.incomplete.size(), "incomplete flush", "incomplete flushes");
  add(missing, "missing Part", "missing Parts");
  add(report.unreadable.size(), "unreadable Part", "unreadable Parts");
  return Status::Refuse("lake verify " + table + ": " + what);
}

}  // namespace

void AddLakeCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(root, "lake", "inspect a lake");
  auto flags = std::make_shared<VerifyFlags>();
  CLI::App* cmd = parent->add_subcommand(
      "verify", "prove from Part footers that nothing acknowledged is missing from a table");
  auto config = std::make_shared<ConfigFlags>(*cmd, "lake verify");
  invocation.configurable.push_back(config);
  cmd->add_option("table", flags->table_arg, "ledger or audit")
      ->check(CLI::IsMember(table::TableNames(table::Writer::kStream)));
  cmd->add_option("--table", flags->table, "ledger, audit, outbox_events or outbox_audit")
      ->check(CLI::IsMember(table::TableNames()));
  AddDestinationFlags(*cmd, flags->destination);
  cmd->add_option("--key-prefix", flags->key_prefix, "the table's first key segment (default: "
                                                     "the table's name)");
  AddNatsFlags(*cmd, flags->nats, *config);
  cmd->add_option("--durable", flags->durable,
                  "with --nats-url: the drain's durable (default sink-<table>)");
  CLI::Option* from = cmd->add_option("--from", flags->from, "lowest sequence to check");
  CLI::Option* to = cmd->add_option("--to", flags->to, "highest sequence to check");
  AddSizeOption(*cmd, "--small-bytes", flags->small_bytes,
                "a Part below this size counts as small");
  cmd->add_flag("--json", flags->json, "one JSON object on standard output");
  cmd->add_option("--sink", flags->sink,
                  "outbox tables with --config: the lake sink (default: the only one)");
  BindDestinationFlags(*config);
  cmd->callback([flags, config, cmd, from, to, &invocation] {
    invocation.run = [flags, config, cmd, from, to, &invocation] {
      // The drain's own keys, for the table the command names: its durable and its prefix.
      const std::string table = flags->table.empty() ? flags->table_arg : flags->table;
      if (table == "ledger" || table == "audit") {
        config->Bind("--durable", {"drain." + table + ".durable"});
        config->Bind("--key-prefix", {"drain." + table + ".key_prefix"});
      }
      for (const char* f : {"--lake-dir", "--s3-endpoint", "--s3-bucket"}) {
        if (cmd->get_option(f)->count() > 0) flags->destination_given = true;
      }
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      flags->has_from = from->count() > 0;
      flags->has_to = to->count() > 0;
      // A stream's range only when asked for (the flag or nats.url in the file): an exported
      // NATS_URL alone does not turn a check of the lake into one of the broker.
      flags->use_nats = cmd->get_option("--nats-url")->count() > 0;
      return RunVerify(*flags, config->file() ? &*config->file() : nullptr, invocation);
    };
  });
}

}  // namespace sinkd::cli
