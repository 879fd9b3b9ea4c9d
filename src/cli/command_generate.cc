#include <cstdio>

#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/stream_origin.h"
#include "traffic/traffic_generator.h"

namespace sinkd::cli {

namespace {

struct GenerateFlags {
  LogFlags log;
  int64_t messages = 1000;
  uint64_t seed = 1;
  double bad_share = 0.0;
  int events_per_batch = 500;
  int64_t expected_events = 0;  // 0: the events this run writes
  std::string output;
};

// Everything checked before a byte is written: a refusal is a usage error (exit 2).
Result<traffic::TrafficOptions> GenerateOptions(const GenerateFlags& flags,
                                                traffic::StreamKind kind) {
  if (flags.output.empty()) return Status::Refuse("generate needs -o FILE");
  if (flags.messages < 0) return Status::Refuse("--messages must not be negative");
  traffic::TrafficOptions options;
  options.seed = flags.seed;
  options.bad_share = flags.bad_share;
  options.events_per_batch = flags.events_per_batch;
  options.expected_events =
      flags.expected_events > 0 ? flags.expected_events
      : kind == traffic::StreamKind::kLedger ? flags.messages * flags.events_per_batch
                                             : flags.messages;
  if (options.expected_events < 1) options.expected_events = 1;
  SINKD_RETURN_IF_ERROR(options.Validate());
  return options;
}

Status RunGenerate(const GenerateFlags& flags, traffic::StreamKind kind, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(traffic::TrafficOptions options,
                         invocation.Usage(GenerateOptions(flags, kind)));
  traffic::TrafficGenerator generator(options);
  SINKD_RETURN_IF_ERROR(traffic::WriteDelimitedFile(generator, kind, flags.messages, flags.output));
  const traffic::TrafficStats& stats = generator.stats();
  std::printf("generated %lld messages: %lld good events, %lld bad records -> %s\n",
              static_cast<long long>(flags.messages), static_cast<long long>(stats.good_events),
              static_cast<long long>(stats.bad_records()), flags.output.c_str());
  return Status::OK();
}

void AddGenerateOrigin(CLI::App& parent, Invocation& invocation, const std::string& origin,
                       traffic::StreamKind kind, const std::string& description) {
  auto flags = std::make_shared<GenerateFlags>();
  CLI::App* cmd = parent.add_subcommand(origin, description);
  cmd->add_option("--messages", flags->messages, "messages to write")->capture_default_str();
  cmd->add_option("--seed", flags->seed, "the same seed gives the same bytes")->capture_default_str();
  cmd->add_option("--bad-share", flags->bad_share, "share of records that cannot become rows (0-1)")
      ->capture_default_str();
  if (kind == traffic::StreamKind::kLedger) {
    cmd->add_option("--events-per-batch", flags->events_per_batch, "events per Batch message")
        ->capture_default_str();
  }
  cmd->add_option("--expected-events", flags->expected_events,
                  "spread event times as if this many events were drawn (default: this run's); "
                  "a shorter run with the same seed and this value repeats a prefix of a longer one");
  cmd->add_option("-o,--output", flags->output, "the file to write (varint-delimited messages)");
  flags->log.Add(*cmd);
  cmd->callback([flags, &invocation, kind] {
    invocation.run = [flags, kind, &invocation] {
      SINKD_RETURN_IF_ERROR(flags->log.Apply());
      return RunGenerate(*flags, kind, invocation);
    };
  });
}

}  // namespace

void AddGenerateCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(
      root, "generate", "write realistic, deterministic test traffic in the delimited wire form");
  const auto origins = StreamOrigins();
  AddGenerateOrigin(*parent, invocation, origins[0].name, traffic::StreamKind::kLedger,
                    "ledger traffic: garm.ledger.v1.Batch messages");
  AddGenerateOrigin(*parent, invocation, origins[1].name, traffic::StreamKind::kAudit,
                    "audit traffic: one garm.ledger.v1.Event per message");
}

}  // namespace sinkd::cli
