#include "cli/config_flags.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <tuple>

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

void LogFlags::Add(CLI::App& cmd) {
  AddLogFlags(cmd, level, format);
  level_options.push_back(cmd.get_option("--log-level"));
  format_options.push_back(cmd.get_option("--log-format"));
}

Status LogFlags::Apply(const config::Config* file) const {
  auto given = [](const std::vector<CLI::Option*>& options) {
    for (const CLI::Option* o : options) {
      if (o->count() > 0) return true;
    }
    return false;
  };
  std::string l = level, f = format;
  for (auto [key, flag_given, value] : {std::tuple{"log.level", given(level_options), &l},
                                        std::tuple{"log.format", given(format_options), &f}}) {
    if (file == nullptr || flag_given) continue;
    auto it = file->settings.find(key);
    if (it == file->settings.end()) continue;
    LogLevel parsed_level;
    LogFormat parsed_format;
    const bool is_level = std::string_view(key) == "log.level";
    const bool valid = is_level ? ParseLogLevel(it->second.text, &parsed_level)
                                : ParseLogFormat(it->second.text, &parsed_format);
    if (!valid) {
      return Status::Refuse("INVALID_CONFIG: " + it->second.where + ": " + key + " = \"" +
                            it->second.text + "\" is not one of " +
                            (is_level ? "debug, info, warn, error" : "json, text"));
    }
    *value = it->second.text;
  }
  ApplyLogFlags(l, f);
  return Status::OK();
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

std::string SettingProblem::ToString() const {
  std::string out = where;
  if (!key.empty()) out += (out.empty() ? "" : ": ") + key;
  return out + (out.empty() ? "" : ": ") + message;
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
  const std::vector<SettingProblem> problems = ResolveBindings();
  if (problems.empty()) return Status::OK();
  const SettingProblem& p = problems.front();
  return Status::Refuse("INVALID_CONFIG: " + p.where + ": " + p.key + " = " + p.message);
}

std::vector<SettingProblem> ConfigFlags::ApplyAll(const std::string& path) {
  path_ = path;
  std::vector<std::string> refused_keys;  // the caller names them, once for every command
  Result<config::Config> parsed = config::LoadConfigCollecting(path_, refused_keys);
  if (!parsed.ok()) return {SettingProblem{"", "", parsed.status().message()}};
  file_ = std::move(parsed).value();
  return ResolveBindings();
}

// Each file value goes through its flag's own parsing and checks, as if typed on the command line.
std::vector<SettingProblem> ConfigFlags::ResolveBindings() {
  std::vector<SettingProblem> problems;
  for (const Binding& b : bindings_) {
    if (GivenAsFlag(b) || EnvSet(b.env)) continue;
    std::string key;
    const config::FileSetting* s = FileValue(b, &*file_, &key);
    if (s == nullptr) continue;
    from_file_.insert(b.option);
    try {
      b.option->clear();
      b.option->add_result(s->text);
      b.option->run_callback();
    } catch (const CLI::Error& e) {
      problems.push_back({s->where, key,
                          "\"" + s->text + "\" is not a valid " + b.option->get_name() + ": " +
                              e.what()});
    }
  }
  return problems;
}

bool ConfigFlags::GivenAsFlag(const Binding& b) const {
  return b.option->count() > 0 && from_file_.count(b.option) == 0;
}

bool ConfigFlags::ResetToDefault(const std::string& key) {
  for (const Binding& b : bindings_) {
    if (b.keys.empty() || std::find(b.keys.begin(), b.keys.end(), key) == b.keys.end()) continue;
    if (from_file_.count(b.option) == 0) return false;
    try {
      b.option->clear();
      b.option->add_result(b.option->get_default_str());
      b.option->run_callback();
    } catch (const CLI::Error&) {
      return false;
    }
    return true;
  }
  return false;
}

bool ConfigFlags::FileSets(std::string_view prefix) const {
  if (!file_) return false;
  for (const auto& [key, setting] : file_->settings) {
    if (key.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

bool ConfigFlags::SetsAnyKey(const config::Config& file) const {
  for (const Binding& b : bindings_) {
    for (const std::string& k : b.keys) {
      // [log] and [metrics] are every command's: they say nothing of whom the file is for.
      if (k.rfind("log.", 0) == 0 || k.rfind("metrics.", 0) == 0) continue;
      if (file.settings.count(k)) return true;
    }
  }
  return false;
}

SettingProblem ConfigFlags::ProblemOf(const Status& status) const {
  const std::string& message = status.message();
  // The flag the message names first is what it is about ("--s3-bucket: … (--s3-anonymous)").
  const Binding* named = nullptr;
  size_t first = std::string::npos;
  for (const Binding& b : bindings_) {
    const std::string flag = b.option->get_name();
    // The whole flag: --batch-max must not claim a message about --batch-max-rows.
    for (size_t at = message.find(flag); at != std::string::npos && at < first;
         at = message.find(flag, at + 1)) {
      const size_t end = at + flag.size();
      const bool whole = end == message.size() ||
                         !(std::isalnum(static_cast<unsigned char>(message[end])) ||
                           message[end] == '-');
      if (whole) {
        named = &b;
        first = at;
        break;
      }
    }
  }
  if (named == nullptr) return {path_, command_, message};
  std::string key;
  if (GivenAsFlag(*named)) return {"flag " + named->option->get_name(), "", message};
  if (EnvSet(named->env)) return {"env " + named->env, "", message};
  const config::Config* file = file_ ? &*file_ : nullptr;
  if (const config::FileSetting* s = FileValue(*named, file, &key)) return {s->where, key, message};
  return {"default", named->keys.empty() ? "" : named->keys.front(), message};
}

}  // namespace sinkd::cli
