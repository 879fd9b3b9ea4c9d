// The command line's wiring: each verb registers its flags on a CLI11 App and leaves behind the
// function to run once parsing succeeded. Only main turns a Status into an exit code and a message.
// Threads: used by main's thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "base/status.h"

namespace sinkd::config {
struct Config;
}  // namespace sinkd::config

namespace sinkd::cli {

// The exit codes, the same for every command (sinkd(1), EXIT STATUS): a unit's or a script's
// wrong flag (2) is told apart from a run that failed (1) and may succeed when tried again.
inline constexpr int kExitDone = 0;    // also after a SIGINT/SIGTERM shutdown
inline constexpr int kExitFailed = 1;  // a server, the lake or an input let it down, or a check
                                       // found what it looks for missing (lake verify)
inline constexpr int kExitUsage = 2;   // a flag, an argument or a setting is wrong; nothing done
// `sinkd validate` only: the file it was given is wrong (sysexits.h EX_CONFIG, as `vector
// validate` exits), told apart from its own wrong usage (2) and a server it could not reach (1).
inline constexpr int kExitConfig = 78;

// A command that reads the file as a whole rather than through flags (dispatch): `sinkd
// validate` runs its checks when `applies` says the file is meant for it.
struct FileCheck {
  std::string command;
  std::function<bool(const config::Config&)> applies;
  // What the command refuses before touching anything.
  std::function<Status(const config::Config&)> check;
  // Every server it would reach, changing nothing; one Status per failure.
  std::function<std::vector<Status>(const config::Config&)> reach;
};

// What a parsed command line will do. Set by the callback of the subcommand that was chosen.
class ConfigFlags;
struct SettingProblem;
struct Invocation {
  std::function<Status()> run;
  // Every command's --config bindings (cli/config_flags.h), which `sinkd config show` prints.
  std::vector<std::shared_ptr<ConfigFlags>> configurable;
  // The commands that read the file whole, for `sinkd validate`.
  std::vector<FileCheck> file_checks;
  // Set by `run` when the Status it returns is about the command line or the settings.
  bool usage_error = false;
  // Set by `sinkd validate` when the file it checked is wrong: exit kExitConfig.
  bool config_error = false;
  // Returns `status`, marking it (when not OK) as a usage error: the command checked a flag or a
  // setting and refused it before doing anything.
  Status Usage(Status status) {
    if (!status.ok()) usage_error = true;
    return status;
  }
  template <typename T>
  Result<T> Usage(Result<T> result) {
    if (!result.ok()) usage_error = true;
    return result;
  }
};

// The exit code of a command's outcome: kExitUsage for a status `run` marked as a usage error
// and for any INVALID_CONFIG refusal (config/config.h: every refusal of a setting starts so,
// wherever it is found), kExitFailed for any other error.
int ExitCodeOf(const Status& status, const Invocation& invocation);

// "sinkd version 0.1.0 (build …)": what `sinkd version` and `sinkd --version` print.
std::string VersionLine();


// A parent command (sinkd, drain, tail, …) only groups others: run alone, or with a word that is
// not one of its subcommands, it refuses and lists them instead of printing help and exiting 0.
// Parents keep unknown words (allow_extras) so that refusal can name them, and CLI11 lets the
// subcommands inherit that; so CheckParents also refuses a misspelt flag or a stray word left
// over at the chosen command, naming it, before that command runs. A word a letter or two away
// from a subcommand or a flag of that command gets "did you mean …".
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
void AddDeadCommand(CLI::App& root, Invocation& invocation);
void AddPublishCommand(CLI::App& root, Invocation& invocation);
void AddOutboxCommand(CLI::App& root, Invocation& invocation);
void AddDispatchCommand(CLI::App& root, Invocation& invocation);
void AddCompactCommand(CLI::App& root, Invocation& invocation);
void AddLakeCommand(CLI::App& root, Invocation& invocation);
void AddTableCommand(CLI::App& root, Invocation& invocation);
// Registered last: it shows the settings every command above bound.
void AddConfigCommand(CLI::App& root, Invocation& invocation);
// `sinkd validate`: every command's checks over one file (after every other command is added).
void AddValidateCommand(CLI::App& root, Invocation& invocation);
// The file's problems as every command that reads it finds them, without reaching anything
// (`validate` prints them, `config show` marks them). Loads the file into each command's flags.
std::vector<SettingProblem> SettingProblems(Invocation& invocation, const std::string& path);
// `sinkd completion bash`: walks the whole tree, so it is registered after every other command.
void AddCompletionCommand(CLI::App& root, Invocation& invocation);

}  // namespace sinkd::cli
