// `--config sinkd.toml` on a command: ties its flags to keys of the configuration file
// (config/config.h) so that each setting is resolved flag > environment > file > default. A flag
// given on the command line wins; else a set environment variable (NATS_URL, LAKE_DIR, …) that the
// flag's default already reads; else the file's key (the first of the binding's keys the file
// sets); else the flag's default. A file value a flag would refuse is refused naming file:line:col.
// A destination the file names (lake.dir, lake.s3_*) counts as named, like a flag: one named only
// by LAKE_DIR or AWS_ENDPOINT_URL does not outrank it (cli/destination_flags.h).
// Every such command also takes --log-level and --log-format ([log] level and format), applied to
// the process's logging (base/log.h) by Apply, before the command logs its first line.
// Threads: main's thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "config/config.h"

namespace sinkd::cli {

// One thing wrong with a setting, for `sinkd validate` and `config show`: where the value came
// from ("sinkd.toml:3:7", "flag --x", "env NAME" or "default"), the file's key ("" when the
// problem names no setting) and what is wrong.
struct SettingProblem {
  std::string where;
  std::string key;
  std::string message;
  // "sinkd.toml:3:7: drain.ledger.batch_max_rows: must be at least 1".
  std::string ToString() const;
};

class ConfigFlags {
 public:
  struct Binding {
    CLI::Option* option;
    std::vector<std::string> keys;  // in order of preference
    std::string env;                // "" = no variable
  };

  // Adds --config, --log-level and --log-format to `cmd`. `command` ("drain ledger") names it in
  // `config show`.
  ConfigFlags(CLI::App& cmd, std::string command);

  // Binds the flag named `flag` (already added to the command) to `keys`.
  void Bind(const std::string& flag, std::vector<std::string> keys, std::string env = "");

  // Loads --config when given and resolves every binding; call before the command runs.
  Status Apply();
  // Resolves every binding from the file at `path` as Apply does, and returns every value a flag
  // refuses rather than the first (`sinkd validate`). A file that does not parse is one problem;
  // keys it refuses for themselves are left unset (config::LoadConfigCollecting names them).
  std::vector<SettingProblem> ApplyAll(const std::string& path);
  // Whether the parsed file sets any key bound here but [log]'s and [metrics]' (validate checks
  // only such commands).
  bool SetsAnyKey(const config::Config& file) const;
  // Whether the file last resolved sets a key starting with `prefix` ("nats.").
  bool FileSets(std::string_view prefix) const;
  // The problem `status` (from `check` or `reach`) names: the setting whose flag its message
  // names, where that value came from; else the command's name as key.
  SettingProblem ProblemOf(const Status& status) const;
  // Sets the flag bound to the file's `key` back to its default (after `check` refused the
  // file's value, so that a second run of it finds the next problem); false when it cannot.
  bool ResetToDefault(const std::string& key);

  // The command's own checks of what the bindings resolved to, the ones it runs before touching
  // anything (ranges, durations, one destination); null when the bindings' own checks are all.
  std::function<Status()> check;
  // Reaches every server the resolved settings name (NATS and its streams, the bucket), as the
  // command would at start, changing nothing; one Status per failure. Null: nothing to reach.
  std::function<std::vector<Status>()> reach;

  const std::string& command() const { return command_; }
  const std::vector<Binding>& bindings() const { return bindings_; }
  // The parsed file after Apply (nullopt without --config).
  const std::optional<config::Config>& file() const { return file_; }
  const std::string& path() const { return path_; }
  // Where the settings came from, for a command's first log line: the file, or that none was.
  std::string SettingsFrom() const;

 private:
  Status ApplyFile();
  std::vector<SettingProblem> ResolveBindings();
  // Given on the command line, not set from the file by an earlier resolve (add_result counts).
  bool GivenAsFlag(const Binding& b) const;

  CLI::App& cmd_;
  std::string command_;
  std::string path_;
  std::string log_level_ = "info";
  std::string log_format_ = "json";
  std::vector<Binding> bindings_;
  std::optional<config::Config> file_;
  std::set<const CLI::Option*> from_file_;  // the options a resolve set from the file
};

// Every command's bindings, for `sinkd config show`.
using ConfigRegistry = std::vector<std::shared_ptr<ConfigFlags>>;

// Where a bound setting's value comes from, given the file (or none): "flag --x", "env NAME",
// "sinkd.toml:3:7" or "default".
std::string SourceOf(const ConfigFlags::Binding& binding, const config::Config* file);

// Adds --log-level and --log-format to `cmd`, storing into `level` and `format`.
void AddLogFlags(CLI::App& cmd, std::string& level, std::string& format);
// Sets the process's logging from the two values (already checked by the flags' validators).
void ApplyLogFlags(const std::string& level, const std::string& format);

// --log-level and --log-format on a command without ConfigFlags (which adds its own): import,
// sweep, generate, publish, dispatch and the outbox subcommands, so every command that logs takes
// the same two flags. One LogFlags may serve several subcommands.
struct LogFlags {
  std::string level = "info", format = "json";
  std::vector<CLI::Option*> level_options, format_options;  // one per command added to

  void Add(CLI::App& cmd);
  // `file`'s [log] level and format where the flag was not given (checked as the flags check
  // theirs: Refuse naming file:line:column), then the process's logging.
  Status Apply(const config::Config* file = nullptr) const;
};

}  // namespace sinkd::cli
