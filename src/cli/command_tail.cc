// sinkd tail ledger|audit: print a stream's rows as JSON lines without consuming (tail/tail.h).
#include <cstdio>

#include "base/shutdown_signals.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/nats_flags.h"
#include "cli/stream_origin.h"
#include "jetstream/connection.h"
#include "jetstream/streams.h"
#include "tail/tail.h"

namespace sinkd::cli {

namespace {

struct TailFlags {
  jetstream::ConnectOptions nats;  // url and authentication, from AddNatsFlags
  std::string since = "100";
  bool from_start = false;
  bool follow = false;
  std::vector<std::string> filters;
  bool pretty = false;
  bool no_detail = false;
};

// The tail the flags ask for, checked before anything connects.
Result<tail::TailOptions> TailOptionsFrom(const TailFlags& flags, const StreamOrigin& origin) {
  tail::TailOptions options;
  options.stream = origin.stream;
  options.subject_filter = origin.filter;
  options.envelope = origin.envelope;
  // --since is checked even when --from-start overrides it: a typo is an error either way.
  SINKD_ASSIGN_OR_RETURN(options.since, tail::ParseSince(flags.since));
  for (const std::string& f : flags.filters) {
    SINKD_ASSIGN_OR_RETURN(tail::Filter filter, tail::ParseFilter(f));
    options.filters.push_back(std::move(filter));
  }
  options.from_start = flags.from_start;
  options.follow = flags.follow;
  options.json.pretty = flags.pretty;
  options.json.no_detail = flags.no_detail;
  return options;
}

Status RunTailCommand(const TailFlags& flags, const StreamOrigin& origin, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(tail::TailOptions options,
                         invocation.Usage(TailOptionsFrom(flags, origin)));
  // Installed before connecting, as for drain: a signal from then on is a stop and exit 0.
  ShutdownSignals::Install(/*exit_on_second=*/false);
  jetstream::ConnectOptions connect = flags.nats;
  connect.name = "sinkd tail " + origin.name;
  connect.reconnect_forever = flags.follow;
  connect.stop = &ShutdownSignals::stop();
  auto connected = jetstream::Connection::Connect(connect);
  if (!connected.ok() && ShutdownSignals::stop()) return Status::OK();  // stopped while waiting
  SINKD_ASSIGN_OR_RETURN(auto connection, std::move(connected));
  return tail::RunTail(*connection, options, stdout, stderr, ShutdownSignals::stop());
}

void AddTailOrigin(CLI::App& parent, Invocation& invocation, const StreamOrigin& origin,
                   const std::string& description) {
  auto flags = std::make_shared<TailFlags>();
  CLI::App* cmd = parent.add_subcommand(origin.name, description);
  auto config = std::make_shared<ConfigFlags>(*cmd, "tail " + origin.name);
  invocation.configurable.push_back(config);
  AddNatsFlags(*cmd, flags->nats, *config);
  cmd->add_option("--since", flags->since,
                  "a message count back from the end (20) or a duration back from now (10m)")
      ->capture_default_str();
  cmd->add_flag("--from-start", flags->from_start,
                "start at the oldest message still in the stream (overrides --since)");
  cmd->add_flag("-f,--follow", flags->follow, "keep reading after the current end");
  cmd->add_option("--filter", flags->filters,
                  "column=value; repeatable, every filter must match")
      ->allow_extra_args(false);
  cmd->add_flag("--pretty", flags->pretty, "indent each object");
  cmd->add_flag("--no-detail", flags->no_detail,
                "drop error_detail, the one column that may carry unsanitised text");
  cmd->callback([flags, config, &invocation, origin] {
    invocation.run = [flags, config, origin, &invocation] {
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      return RunTailCommand(*flags, origin, invocation);
    };
  });
}

}  // namespace

void AddTailCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent =
      AddParent(root, "tail", "print a stream's rows as JSON lines, without consuming");
  const auto origins = StreamOrigins();
  AddTailOrigin(*parent, invocation,
                origins[0],
                "Tail GARM_LEDGER (messages are garm.ledger.v1.Batch)");
  AddTailOrigin(*parent, invocation,
                origins[1],
                "Tail GARM_AUDIT (messages are garm.ledger.v1.Event)");
}

}  // namespace sinkd::cli
