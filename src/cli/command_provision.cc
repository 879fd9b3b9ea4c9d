// sinkd provision: create or verify GARM_LEDGER, GARM_AUDIT and GARM_SINK_DEAD. Never patches.
#include <cstdio>

#include "base/duration.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/nats_flags.h"
#include "cli/size_flags.h"
#include "jetstream/connection.h"
#include "jetstream/streams.h"

namespace sinkd::cli {

namespace {

struct ProvisionFlags {
  jetstream::ConnectOptions nats;  // url and authentication, from AddNatsFlags
  int64_t ledger_max_bytes = 0;
  int64_t audit_max_bytes = 0;
  int64_t dead_max_bytes = 0;
  std::string ledger_max_age = "0";
  int64_t replicas = 0;
  bool dry_run = false;
};

Status RunProvision(const ProvisionFlags& flags, Invocation& invocation) {
  jetstream::StreamSizing sizing;
  sizing.ledger_max_bytes = flags.ledger_max_bytes;
  sizing.audit_max_bytes = flags.audit_max_bytes;
  sizing.dead_max_bytes = flags.dead_max_bytes;
  auto age = ParseDuration(flags.ledger_max_age);
  if (!age.ok()) return invocation.Usage(age.status().WithContext("--ledger-max-age"));
  sizing.ledger_max_age = *age;
  sizing.replicas = flags.replicas;
  const std::vector<jetstream::StreamSpec> specs = jetstream::StreamSpecs(sizing);
  if (flags.dry_run) {
    for (const jetstream::StreamSpec& spec : specs) {
      std::printf("%s\n", jetstream::DryRunLine(spec).c_str());
    }
    return Status::OK();
  }
  jetstream::ConnectOptions options = flags.nats;
  options.name = "sinkd provision";
  options.timeout = std::chrono::seconds(30);
  options.reconnect_forever = false;
  SINKD_ASSIGN_OR_RETURN(auto connection, jetstream::Connection::Connect(options));
  SINKD_ASSIGN_OR_RETURN(jetstream::ProvisionReport report,
                         jetstream::Provision(*connection, specs));
  for (const jetstream::ProvisionLine& line : report.lines) {
    const char* word = line.outcome == jetstream::ProvisionOutcome::kCreated ? "created"
                       : line.outcome == jetstream::ProvisionOutcome::kOk    ? "ok"
                                                                             : "REFUSED";
    std::printf("%s: %s\n", line.name.c_str(), word);
  }
  std::fflush(stdout);
  return report.status;
}

}  // namespace

void AddProvisionCommand(CLI::App& root, Invocation& invocation) {
  auto flags = std::make_shared<ProvisionFlags>();
  CLI::App* cmd = root.add_subcommand(
      "provision", "create or verify GARM_LEDGER, GARM_AUDIT and GARM_SINK_DEAD (never patches)");
  auto config = std::make_shared<ConfigFlags>(*cmd, "provision");
  invocation.configurable.push_back(config);
  AddNatsFlags(*cmd, flags->nats, *config);
  AddSizeOption(*cmd, "--ledger-max-bytes", flags->ledger_max_bytes,
                "ledger stream size limit (0 = 8GiB)");
  AddSizeOption(*cmd, "--audit-max-bytes", flags->audit_max_bytes,
                "audit stream size limit (0 = 8GiB); when it fills, publishes FAIL");
  AddSizeOption(*cmd, "--dead-max-bytes", flags->dead_max_bytes,
                "dead-letter stream size limit (0 = 1GiB)");
  cmd->add_option("--ledger-max-age", flags->ledger_max_age,
                  "how long an undrained ledger record survives (0 = 7 days)")
      ->capture_default_str();
  cmd->add_option("--replicas", flags->replicas, "stream replicas (0 = 1)")->capture_default_str();
  cmd->add_flag("--dry-run", flags->dry_run,
                "print the configuration that would be applied and connect to nothing");
  for (const char* name : {"ledger_max_bytes", "audit_max_bytes", "dead_max_bytes",
                           "ledger_max_age", "replicas"}) {
    std::string flag = std::string("--") + name;
    for (char& c : flag) c = c == '_' ? '-' : c;
    config->Bind(flag, {std::string("provision.") + name});
  }
  config->reach = [flags, c = config.get()] {
    if (!c->FileSets("nats.") && !c->FileSets("provision.")) return std::vector<Status>{};
    return ReachNats(flags->nats, {jetstream::kLedgerStream, jetstream::kAuditStream,
                                   jetstream::kDeadStream});
  };
  cmd->callback([flags, config, &invocation] {
    invocation.run = [flags, config, &invocation] {
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      return RunProvision(*flags, invocation);
    };
  });
}

}  // namespace sinkd::cli
