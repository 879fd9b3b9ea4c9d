// sinkd: record streams drained into a lake. This file only wires the verbs together; each verb
// lives in its own command_*.cc. Exit codes: 0 success (also after a SIGINT/SIGTERM shutdown),
// 1 on any error, which is printed as "sinkd: <message>" on stderr; a wrong command line exits
// with the command's Invocation::usage_exit_code (2 for compact, 1 for the others).
#include <cstdio>

#include "base/memory.h"
#include "cli/command.h"

int main(int argc, char** argv) {
  sinkd::KeepFreedMemory();
  CLI::App root("sinkd drains NATS JetStream streams and a PostgreSQL outbox into a "
                "hive-partitioned ZSTD Parquet lake, on a directory or an S3-compatible store.",
                "sinkd");
  root.allow_extras();
  root.require_subcommand(0, 1);
  sinkd::cli::Invocation invocation;
  sinkd::cli::AddVersionCommand(root, invocation);
  sinkd::cli::AddImportCommand(root, invocation);
  sinkd::cli::AddSweepCommand(root, invocation);
  sinkd::cli::AddSchemaCommand(root, invocation);
  sinkd::cli::AddGenerateCommand(root, invocation);
  sinkd::cli::AddProvisionCommand(root, invocation);
  sinkd::cli::AddDrainCommand(root, invocation);
  sinkd::cli::AddTailCommand(root, invocation);
  sinkd::cli::AddPublishCommand(root, invocation);
  sinkd::cli::AddOutboxCommand(root, invocation);
  sinkd::cli::AddDispatchCommand(root, invocation);
  sinkd::cli::AddCompactCommand(root, invocation);
  sinkd::cli::AddLakeCommand(root, invocation);
  sinkd::cli::AddConfigCommand(root, invocation);
  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return root.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "sinkd: %s\n", e.what());
    return invocation.usage_exit_code;
  }
  sinkd::Status status = sinkd::cli::CheckParents(root);
  if (!status.ok()) invocation.usage_error = true;
  if (status.ok() && invocation.run) status = invocation.run();
  if (!status.ok()) {
    std::fprintf(stderr, "sinkd: %s\n", status.message().c_str());
    return invocation.usage_error ? invocation.usage_exit_code : 1;
  }
  return 0;
}
