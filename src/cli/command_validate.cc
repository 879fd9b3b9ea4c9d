// sinkd validate --config F [--offline]: every check the commands would make of the file, before
// any of them runs. Each command the file is meant for (it sets a key one of its flags is bound to,
// or the dispatcher's tables) resolves its settings from the file as it would at start, through
// its flags' own parsing (cli/config_flags.h), and runs the checks it makes before touching
// anything (ranges, durations, sizes, one destination). Every problem is one line naming
// file:line:column and the key. Unless --offline, it then reaches what the file names as those
// commands would (NATS and the streams, the bucket, PostgreSQL and its tables), changing nothing.
// Exit: 0 valid (and reached); 78 (EX_CONFIG) a wrong, missing or unreadable file; 1 a server
// that did not answer as needed; 2 its own wrong usage.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "cli/command.h"
#include "cli/config_flags.h"
#include "config/config.h"

namespace sinkd::cli {

namespace {

struct ValidateFlags {
  std::string config;
  bool offline = false;
};

// A refusal's message without the INVALID_CONFIG tag: validate's every line is one.
std::string Untagged(std::string message) {
  constexpr std::string_view kTag = "INVALID_CONFIG: ";
  if (message.rfind(kTag, 0) == 0) message.erase(0, kTag.size());
  return message;
}

// Adds `p` unless an equal line is there (commands share keys: both drains read [lake]).
void AddOnce(std::vector<SettingProblem>& out, std::set<std::string>& seen, SettingProblem p) {
  p.message = Untagged(p.message);
  if (seen.insert(p.ToString()).second) out.push_back(std::move(p));
}

// "f.toml:3:7: compaction.target_bytes: size …" (config::LoadConfigCollecting) as its parts, so
// that `config show` marks the key's line; a message naming no setting stays whole.
SettingProblem ProblemOfRefusedKey(const std::string& message) {
  const size_t colon = message.find(": ");
  if (colon == std::string::npos) return {"", "", message};
  const std::string rest = message.substr(colon + 2);
  const size_t end = rest.find_first_of(": ");
  const std::string key = rest.substr(0, end);
  if (end == std::string::npos || config::FindSetting(key) == nullptr) return {"", "", message};
  const size_t text = rest.compare(end, 2, ": ") == 0 ? end + 2 : end + 1;
  return {message.substr(0, colon), key, rest.substr(text)};
}

// The line of "f.toml:12:3"; problems that name none sort last.
size_t LineOf(const SettingProblem& p) {
  const size_t first = p.where.find(':');
  if (first == std::string::npos) return SIZE_MAX;
  return std::strtoull(p.where.c_str() + first + 1, nullptr, 10);
}

Status RunValidate(const ValidateFlags& flags, Invocation& invocation) {
  std::vector<SettingProblem> problems = SettingProblems(invocation, flags.config);
  std::stable_sort(problems.begin(), problems.end(),
                   [](const auto& a, const auto& b) { return LineOf(a) < LineOf(b); });
  for (const SettingProblem& p : problems) std::printf("%s\n", p.ToString().c_str());
  std::fflush(stdout);
  if (!problems.empty()) {
    invocation.config_error = true;
    return Status::Refuse(flags.config + ": " + std::to_string(problems.size()) +
                          " problem(s); nothing was reached");
  }
  if (flags.offline) {
    std::fprintf(stderr, "sinkd validate: %s is valid (offline: no server reached)\n",
                 flags.config.c_str());
    return Status::OK();
  }
  SINKD_ASSIGN_OR_RETURN(config::Config file, config::LoadConfig(flags.config));
  std::vector<SettingProblem> failures;
  std::set<std::string> seen;
  for (const auto& command : invocation.configurable) {
    if (!command->reach || !command->SetsAnyKey(file)) continue;
    for (const Status& s : command->reach()) AddOnce(failures, seen, command->ProblemOf(s));
  }
  for (const FileCheck& check : invocation.file_checks) {
    if (!check.reach || !check.applies(file)) continue;
    for (const Status& s : check.reach(file)) {
      AddOnce(failures, seen, {flags.config, check.command, s.message()});
    }
  }
  for (const SettingProblem& p : failures) std::printf("%s\n", p.ToString().c_str());
  std::fflush(stdout);
  if (!failures.empty()) {
    return Status::Retry(flags.config + ": " + std::to_string(failures.size()) +
                         " server check(s) failed");
  }
  std::fprintf(stderr, "sinkd validate: %s is valid, and every server it names answered\n",
               flags.config.c_str());
  return Status::OK();
}

}  // namespace

std::vector<SettingProblem> SettingProblems(Invocation& invocation, const std::string& path) {
  std::vector<std::string> refused_keys;
  Result<config::Config> file = config::LoadConfigCollecting(path, refused_keys);
  if (!file.ok()) return {SettingProblem{"", "", Untagged(file.status().message())}};
  std::vector<SettingProblem> problems;
  std::set<std::string> seen;
  for (const std::string& refused : refused_keys) {
    AddOnce(problems, seen, ProblemOfRefusedKey(refused));
  }
  for (const auto& command : invocation.configurable) {
    if (!command->SetsAnyKey(*file)) continue;
    const std::vector<SettingProblem> found = command->ApplyAll(path);
    for (const SettingProblem& p : found) AddOnce(problems, seen, p);
    // A command's own checks read every resolved value: only once each value parsed. They stop
    // at the first refusal, so the refused file value goes back to its default and they run
    // again, until they pass or name nothing of the file.
    if (!found.empty() || !command->check) continue;
    for (size_t round = 0; round < 64; ++round) {
      Status s = command->check();
      if (s.ok()) break;
      SettingProblem p = command->ProblemOf(s);
      const bool from_file = !p.key.empty() && p.where != "default";
      AddOnce(problems, seen, p);
      if (!from_file || !command->ResetToDefault(p.key)) break;
    }
  }
  for (const FileCheck& check : invocation.file_checks) {
    if (!check.applies(*file)) continue;
    Status s = check.check(*file);
    if (!s.ok()) AddOnce(problems, seen, {path, check.command, s.message()});
  }
  return problems;
}

void AddValidateCommand(CLI::App& root, Invocation& invocation) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = root.add_subcommand(
      "validate",
      "check a configuration file as every command would (exit 78 when it is wrong), then "
      "reach every server it names");
  cmd->add_option("--config", flags->config, "the configuration file (TOML)")->required();
  cmd->add_flag("--offline", flags->offline, "check the values only; reach no server");
  cmd->callback([flags, &invocation] {
    invocation.run = [flags, &invocation] { return RunValidate(*flags, invocation); };
  });
}

}  // namespace sinkd::cli
