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

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "config/config.h"

namespace sinkd::cli {

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

  const std::string& command() const { return command_; }
  const std::vector<Binding>& bindings() const { return bindings_; }
  // The parsed file after Apply (nullopt without --config).
  const std::optional<config::Config>& file() const { return file_; }
  const std::string& path() const { return path_; }
  // Where the settings came from, for a command's first log line: the file, or that none was.
  std::string SettingsFrom() const;

 private:
  Status ApplyFile();

  CLI::App& cmd_;
  std::string command_;
  std::string path_;
  std::string log_level_ = "info";
  std::string log_format_ = "json";
  std::vector<Binding> bindings_;
  std::optional<config::Config> file_;
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

}  // namespace sinkd::cli
