#include "cli/config_flags.h"

#include <cstdlib>

#include "base/log.h"

namespace sinkd::cli {

namespace {

bool EnvSet(const std::string& name) {
  if (name.empty()) return false;
  const char* v = std::getenv(name.c_str());
  return v != nullptr && *v != '\0';
}

const config::FileSetting* FileValue(const ConfigFlags::Binding& b, const config::Config* file,
                                     std::string* key) {
  if (file == nullptr) return nullptr;
  for (const std::string& k : b.keys) {
    auto it = file->settings.find(k);
    if (it != file->settings.end()) {
      if (key) *key = k;
      return &it->second;
    }
  }
  return nullptr;
}

}  // namespace

void AddLogFlags(CLI::App& cmd, std::string& level, std::string& format) {
  cmd.add_option("--log-level", level, "the least severe log lines written: debug, info, warn or error")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
      ->capture_default_str();
  cmd.add_option("--log-format", format,
                 "json (one object a line, for a log shipper) or text (for a terminal)")
      ->check(CLI::IsMember({"json", "text"}))
      ->capture_default_str();
}

void ApplyLogFlags(const std::string& level, const std::string& format) {
  LogLevel l = LogLevel::kInfo;
  LogFormat f = LogFormat::kJson;
  (void)ParseLogLevel(level, &l);
  (void)ParseLogFormat(format, &f);
  SetProcessLogging(l, f);
}

ConfigFlags::ConfigFlags(CLI::App& cmd, std::string command) : cmd_(cmd), command_(std::move(command)) {
  cmd_.add_option("--config", path_,
                  "the configuration file (TOML); flags and the environment outrank it");
  AddLogFlags(cmd_, log_level_, log_format_);
  Bind("--log-level", {"log.level"});
  Bind("--log-format", {"log.format"});
}

std::string ConfigFlags::SettingsFrom() const {
  return path_.empty() ? "flags, environment and defaults (no --config)" : path_;
}

void ConfigFlags::Bind(const std::string& flag, std::vector<std::string> keys, std::string env) {
  CLI::Option* option = cmd_.get_option(flag);
  option->capture_default_str();
  bindings_.push_back({option, std::move(keys), std::move(env)});
}

std::string SourceOf(const ConfigFlags::Binding& b, const config::Config* file) {
  if (b.option->count() > 0) return "flag " + b.option->get_name();
  if (EnvSet(b.env)) return "env " + b.env;
  if (const config::FileSetting* s = FileValue(b, file, nullptr)) return s->where;
  return "default";
}

Status ConfigFlags::Apply() {
  Status applied = ApplyFile();
  ApplyLogFlags(log_level_, log_format_);
  return applied;
}

Status ConfigFlags::ApplyFile() {
  if (path_.empty()) return Status::OK();
  SINKD_ASSIGN_OR_RETURN(config::Config parsed, config::LoadConfig(path_));
  file_ = std::move(parsed);
  for (const Binding& b : bindings_) {
    if (b.option->count() > 0 || EnvSet(b.env)) continue;
    std::string key;
    const config::FileSetting* s = FileValue(b, &*file_, &key);
    if (s == nullptr) continue;
    try {
      b.option->clear();
      b.option->add_result(s->text);
      b.option->run_callback();
    } catch (const CLI::Error& e) {
      return Status::Refuse("INVALID_CONFIG: " + s->where + ": " + key + " = \"" + s->text +
                            "\" is not a valid " + b.option->get_name() + ": " + e.what());
    }
  }
  return Status::OK();
}

}  // namespace sinkd::cli
