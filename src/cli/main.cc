// sinkd: record streams drained into a lake. This file only wires the verbs together; each verb
// lives in its own command_*.cc. Exit codes are the same for every command (cli/command.h,
// sinkd(1)): 0 done, also after a SIGINT/SIGTERM shutdown; 1 failed; 2 wrong usage (a flag, an
// argument or a setting; nothing was done). Every error is printed as "sinkd: <message>" on stderr.
#include <cstdio>

#include "base/memory.h"
#include "cli/command.h"

namespace sinkd::cli {

int ExitCodeOf(const Status& status, const Invocation& invocation) {
  if (status.ok()) return kExitDone;
  if (invocation.config_error) return kExitConfig;
  if (invocation.usage_error) return kExitUsage;
  // A setting found wrong deep inside a command (a sink's option, the dispatcher's batch sizes)
  // is still the operator's file, not a failure that a retry could cure.
  if (status.message().find("INVALID_CONFIG: ") != std::string::npos) return kExitUsage;
  return kExitFailed;
}

}  // namespace sinkd::cli

int main(int argc, char** argv) {
  sinkd::KeepFreedMemory();
  CLI::App root("sinkd drains NATS JetStream streams and a PostgreSQL outbox into a "
                "hive-partitioned ZSTD Parquet lake, on a directory or an S3-compatible store.",
                "sinkd");
  root.allow_extras();
  root.require_subcommand(0, 1);
  root.set_version_flag("--version", sinkd::cli::VersionLine(),
                        "print the version and build of this binary, as `sinkd version` does");
  sinkd::cli::Invocation invocation;
  sinkd::cli::AddVersionCommand(root, invocation);
  sinkd::cli::AddImportCommand(root, invocation);
  sinkd::cli::AddSweepCommand(root, invocation);
  sinkd::cli::AddSchemaCommand(root, invocation);
  sinkd::cli::AddGenerateCommand(root, invocation);
  sinkd::cli::AddProvisionCommand(root, invocation);
  sinkd::cli::AddDrainCommand(root, invocation);
  sinkd::cli::AddTailCommand(root, invocation);
  sinkd::cli::AddDeadCommand(root, invocation);
  sinkd::cli::AddPublishCommand(root, invocation);
  sinkd::cli::AddOutboxCommand(root, invocation);
  sinkd::cli::AddDispatchCommand(root, invocation);
  sinkd::cli::AddCompactCommand(root, invocation);
  sinkd::cli::AddLakeCommand(root, invocation);
  sinkd::cli::AddTableCommand(root, invocation);
  sinkd::cli::AddConfigCommand(root, invocation);
  sinkd::cli::AddValidateCommand(root, invocation);
  sinkd::cli::AddCompletionCommand(root, invocation);
  try {
    root.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return root.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "sinkd: %s\n", e.what());
    return sinkd::cli::kExitUsage;
  }
  sinkd::Status status = sinkd::cli::CheckParents(root);
  if (!status.ok()) invocation.usage_error = true;
  if (status.ok() && invocation.run) status = invocation.run();
  if (!status.ok()) std::fprintf(stderr, "sinkd: %s\n", status.message().c_str());
  return sinkd::cli::ExitCodeOf(status, invocation);
}
