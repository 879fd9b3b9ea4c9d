// sinkd config show [--config F]: the effective settings of every command, and where each came
// from (environment, file:line:column or default), secrets masked. It reads the same bindings the
// commands resolve with (cli/config_flags.h), so what it prints is what they would run with.
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "base/duration.h"
#include "cli/command.h"
#include "base/redact.h"
#include "cli/config_flags.h"
#include "config/config.h"

namespace sinkd::cli {

namespace {

struct ShowFlags {
  std::string config;
};

std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Shown(const config::SettingSpec& spec, const std::string& text) {
  if (spec.secret) {
    return Quoted(spec.key == "postgres.url" || spec.key == "iceberg.catalog_url"
                      ? RedactPassword(text)
                      : "***");
  }
  // A URL may carry a password (nats://user:pw@host).
  if (spec.kind == config::SettingKind::kString) return Quoted(RedactPassword(text));
  // A size with a unit ("512MiB") is a TOML string; its plain digits an integer.
  if (spec.kind == config::SettingKind::kSize &&
      text.find_first_not_of("0123456789") != std::string::npos) {
    return Quoted(text);
  }
  return text;
}

std::string EnvValue(const std::string& name) {
  const char* v = name.empty() ? nullptr : std::getenv(name.c_str());
  return v == nullptr ? "" : v;
}

const ConfigFlags::Binding* BindingOf(const Invocation& invocation, const std::string& key) {
  for (const auto& flags : invocation.configurable) {
    for (const ConfigFlags::Binding& b : flags->bindings()) {
      if (!b.keys.empty() && b.keys.front() == key) return &b;
    }
  }
  return nullptr;
}

std::string DispatchDefault(const std::string& key) {
  const config::DispatchSettings d;
  if (key == "dispatch.batch_size") return std::to_string(d.batch_size);
  if (key == "dispatch.audit_batch") return std::to_string(d.audit_batch);
  if (key == "dispatch.poll_interval") return Quoted(FormatDuration(d.poll_interval));
  if (key == "dispatch.audit_interval") return Quoted(FormatDuration(d.audit_interval));
  if (key == "dispatch.lease_ttl") return Quoted(FormatDuration(d.lease_ttl));
  if (key == "dispatch.deliver_timeout") return Quoted(FormatDuration(d.deliver_timeout));
  return "";
}

bool SecretOption(const std::string& name) {
  for (const char* word : {"secret", "password", "token", "seed", "key_id", "credential"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  return false;
}

// Appends "INVALID: <why>" to the line of each key `sinkd validate` finds wrong, and lists the
// problems that name no shown key (a command's, such as two destinations) at the end.
std::string MarkProblems(const std::string& shown, const std::vector<SettingProblem>& problems) {
  std::string out;
  std::vector<bool> marked(problems.size(), false);
  size_t start = 0;
  while (start < shown.size()) {
    const size_t end = shown.find('\n', start);
    std::string line = shown.substr(start, end - start);
    start = end == std::string::npos ? shown.size() : end + 1;
    const std::string key = line.substr(0, line.find(" = "));
    for (size_t i = 0; i < problems.size(); ++i) {
      if (!problems[i].key.empty() && problems[i].key == key) {
        line += "  INVALID: " + problems[i].message;
        marked[i] = true;
      }
    }
    out += line + "\n";
  }
  for (size_t i = 0; i < problems.size(); ++i) {
    if (!marked[i]) out += "# INVALID: " + problems[i].ToString() + "\n";
  }
  return out;
}

Status RunConfigShow(const ShowFlags& flags, Invocation& invocation) {
  std::optional<config::Config> file;
  if (!flags.config.empty()) {
    // Keys refused for themselves are left out here, and marked below.
    std::vector<std::string> refused_keys;
    SINKD_ASSIGN_OR_RETURN(config::Config parsed,
                           config::LoadConfigCollecting(flags.config, refused_keys));
    file = std::move(parsed);
  }
  const config::Config* f = file ? &*file : nullptr;
  std::string out = "# the effective settings: flag > environment > file > default\n";
  for (const config::SettingSpec& spec : config::FileSettings()) {
    std::string value, source;
    if (const ConfigFlags::Binding* b = BindingOf(invocation, spec.key)) {
      source = SourceOf(*b, f);
      if (source.rfind("env ", 0) == 0) {
        value = EnvValue(b->env);
      } else if (source == "default") {
        value = b->option->get_default_str();
      } else {
        for (const std::string& k : b->keys) {
          if (f->settings.count(k)) {
            value = f->settings.at(k).text;
            break;
          }
        }
      }
      if (source == "default" && value.empty()) {
        if (spec.kind == config::SettingKind::kBoolean) value = "false";
        if (spec.kind == config::SettingKind::kString) source = "default (unset)";
      }
      out += fmt::format("{} = {}  # {}\n", spec.key, Shown(spec, value), source);
      continue;
    }
    if (f != nullptr && f->settings.count(spec.key)) {
      const config::FileSetting& s = f->settings.at(spec.key);
      out += fmt::format("{} = {}  # {}\n", spec.key, Shown(spec, s.text), s.where);
    } else if (std::string d = DispatchDefault(spec.key); !d.empty()) {
      out += fmt::format("{} = {}  # default\n", spec.key, d);
    } else if (spec.key != "postgres.url_env" &&
               !(spec.key == "postgres.url" && f != nullptr && !f->postgres_url.empty())) {
      out += fmt::format("{} = \"\"  # default (unset)\n", spec.key);
    }
  }
  if (f != nullptr && !f->postgres_url.empty() && f->settings.count("postgres.url_env")) {
    const config::FileSetting& s = f->settings.at("postgres.url_env");
    out += fmt::format("postgres.url = {}  # env {} (named at {})\n",
                       Quoted(RedactPassword(f->postgres_url)), s.text, s.where);
  }
  // The S3 credentials never sit in the file; show which variables supply them.
  for (const char* name : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}) {
    if (!EnvValue(name).empty()) out += fmt::format("# {} = \"***\"  # env\n", name);
  }
  if (f != nullptr) {
    for (const auto* list : {&f->event_sinks, &f->audit_sinks}) {
      for (const config::SinkConfig& sink : *list) {
        out += fmt::format("{}: type = {}", sink.Where(), Quoted(sink.type));
        for (const auto& [name, value] : sink.options) {
          std::string text;
          if (const auto* s = std::get_if<std::string>(&value)) {
            text = Quoted(SecretOption(name) ? "***" : RedactPassword(*s));
          } else if (const auto* i = std::get_if<int64_t>(&value)) {
            text = std::to_string(*i);
          } else {
            text = std::get<bool>(value) ? "true" : "false";
          }
          out += fmt::format(", {} = {}", name, text);
        }
        out += "\n";
      }
    }
  }
  if (f != nullptr) out = MarkProblems(out, SettingProblems(invocation, flags.config));
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return Status::OK();
}

}  // namespace

void AddConfigCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(root, "config", "the configuration file");
  auto flags = std::make_shared<ShowFlags>();
  CLI::App* show = parent->add_subcommand(
      "show", "print the effective settings and where each came from, secrets masked");
  show->add_option("--config", flags->config, "the configuration file (TOML)");
  show->callback([flags, &invocation] {
    invocation.run = [flags, &invocation] { return RunConfigShow(*flags, invocation); };
  });
}

}  // namespace sinkd::cli
