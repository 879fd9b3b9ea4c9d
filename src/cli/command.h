// The command line's wiring: each verb registers its flags on a CLI11 App and leaves behind the
// function to run once parsing succeeded. Only main turns a Status into an exit code and a message.
// Threads: used by main's thread only.
#pragma once

#include <functional>
#include <memory>
#include <vector>
#include <string>

#include <CLI/CLI.hpp>

#include "base/status.h"

namespace sinkd::cli {

// What a parsed command line will do. Set by the callback of the subcommand that was chosen.
class ConfigFlags;
struct Invocation {
  std::function<Status()> run;
  // Every command's --config bindings (cli/config_flags.h), which `sinkd config show` prints.
  std::vector<std::shared_ptr<ConfigFlags>> configurable;
  // The exit code of a command line that is wrong (a flag the parser or the command refuses):
  // 1 for most commands; `compact` sets 2, so that a timer's or a script's bad flags are told
  // apart from a pass that failed (1).
  int usage_exit_code = 1;
  // Set by `run` when the Status it returns is about the command line or the settings.
  bool usage_error = false;
};

// A parent command (sinkd, drain, tail, …) only groups others: run alone, or with a word that is
// not one of its subcommands, it refuses and lists them instead of printing help and exiting 0.
// Parents keep unknown words (allow_extras) so that refusal can name them, and CLI11 lets the
// subcommands inherit that; so CheckParents also refuses a misspelt flag or a stray word left
// over at the chosen command, naming it, before that command runs.
CLI::App* AddParent(CLI::App& parent, const std::string& name, const std::string& description);
Status CheckParents(CLI::App& root);

void AddVersionCommand(CLI::App& root, Invocation& invocation);
void AddSweepCommand(CLI::App& root, Invocation& invocation);
void AddImportCommand(CLI::App& root, Invocation& invocation);
void AddGenerateCommand(CLI::App& root, Invocation& invocation);
void AddSchemaCommand(CLI::App& root, Invocation& invocation);
void AddProvisionCommand(CLI::App& root, Invocation& invocation);
void AddDrainCommand(CLI::App& root, Invocation& invocation);
void AddTailCommand(CLI::App& root, Invocation& invocation);
void AddPublishCommand(CLI::App& root, Invocation& invocation);
void AddOutboxCommand(CLI::App& root, Invocation& invocation);
void AddDispatchCommand(CLI::App& root, Invocation& invocation);
void AddCompactCommand(CLI::App& root, Invocation& invocation);
void AddLakeCommand(CLI::App& root, Invocation& invocation);
// Registered last: it shows the settings every command above bound.
void AddConfigCommand(CLI::App& root, Invocation& invocation);

}  // namespace sinkd::cli
