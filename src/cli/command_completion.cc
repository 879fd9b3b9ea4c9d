// sinkd completion bash: prints a bash completion script generated from the command tree this
// binary parses with (every subcommand, every flag, which flags take a value, the choices of a
// closed set such as --table), so the completion cannot drift from the flags. The .deb installs
// its output as /usr/share/bash-completion/completions/sinkd (deploy/CMakeLists.txt).
// What a value completes to is read from the definitions: a closed set its choices, a flag
// named *-dir a directory, --config, --output, the files of import and publish and the
// credential and certificate flags a file; any other value nothing.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/command.h"

namespace sinkd::cli {

namespace {

// The members of a closed set, read from CLI11's full type name ("TEXT:{ledger,audit}").
std::string ClosedSetChoices(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const size_t open = type.find(":{");
  const size_t close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  std::string words = type.substr(open + 2, close - open - 2);
  for (char& c : words) c = c == ',' ? ' ' : c;
  return words;
}

bool NameEndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// What the word after `name` (a long flag without its dashes) completes to: its choices, "@dir",
// "@file", or "@value" (anything; nothing to offer).
std::string ValueKind(const CLI::Option& option, const std::string& name) {
  if (std::string choices = ClosedSetChoices(option); !choices.empty()) return choices;
  if (NameEndsWith(name, "-dir")) return "@dir";
  for (const char* tail :
       {"config", "output", "files", "-creds", "-seed", "-ca", "-cert", "-key", "-bundle"}) {
    if (NameEndsWith(name, tail)) return "@file";
  }
  return "@value";
}

struct Tables {
  std::map<std::string, std::string> subcommands;  // path → its subcommands
  std::map<std::string, std::string> flags;        // path → its flags
  std::map<std::string, std::string> takes;        // "path --flag" → ValueKind
  std::map<std::string, std::string> positional;   // path → what a bare word completes to
};

void AppendWord(std::string& list, const std::string& word) {
  if (!list.empty()) list += ' ';
  list += word;
}

void WalkCommands(CLI::App& app, const std::string& path, Tables& t) {
  std::set<std::string> subs;
  for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_group().empty(); })) {
    subs.insert(sub->get_name());
    WalkCommands(*sub, path + " " + sub->get_name(), t);
  }
  for (const std::string& s : subs) AppendWord(t.subcommands[path], s);
  std::string& flags = t.flags[path];
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional() && !option->nonpositional()) {
      AppendWord(t.positional[path], ValueKind(*option, option->get_name()));
      continue;
    }
    for (const std::string& name : option->get_lnames()) {
      AppendWord(flags, "--" + name);
      if (option->get_type_size_max() > 0) t.takes[path + " --" + name] = ValueKind(*option, name);
    }
    for (const std::string& name : option->get_snames()) {
      AppendWord(flags, "-" + name);
      if (option->get_type_size_max() > 0) {
        t.takes[path + " -" + name] =
            ValueKind(*option, option->get_lnames().empty() ? name : option->get_lnames().front());
      }
    }
  }
}

std::string ShellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string BashArray(const char* name, const std::map<std::string, std::string>& entries) {
  std::string out = std::string("_") + name + "=(\n";
  for (const auto& [key, value] : entries) {
    out += "  [" + ShellQuoted(key) + "]=" + ShellQuoted(value) + "\n";
  }
  return out + ")\n";
}

// The part of the script that does not depend on the command tree. A word is a subcommand when
// it is one of the current path's; the word after a flag that takes a value is that value.
constexpr char kCompleteFunction[] = R"(_sinkd() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path=sinkd i w kind
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if [[ -n ${_sinkd_takes["$path $w"]} ]]; then
      ((i++))
    elif [[ " ${_sinkd_subcommands[$path]} " == *" $w "* ]]; then
      path="$path $w"
    fi
  done
  kind=${_sinkd_takes["$path $prev"]}
  if [[ -z $kind && $cur != -* && -z ${_sinkd_subcommands[$path]} ]]; then
    kind=${_sinkd_positional[$path]}
  fi
  case $kind in
    @dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
    @file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
    @value) COMPREPLY=() ;;
    '')
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "${_sinkd_flags[$path]}" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "${_sinkd_subcommands[$path]}" -- "$cur"))
      fi
      ;;
    *) COMPREPLY=($(compgen -W "$kind" -- "$cur")) ;;
  esac
}
complete -F _sinkd sinkd
)";

std::string BashScript(CLI::App& root) {
  Tables t;
  WalkCommands(root, "sinkd", t);
  std::string out =
      "# bash completion for sinkd, generated by `sinkd completion bash` from the flags the "
      "binary\n"
      "# parses (see sinkd(1)). Source it, or install it as\n"
      "# /usr/share/bash-completion/completions/sinkd.\n";
  out += "declare -gA _sinkd_subcommands _sinkd_flags _sinkd_takes _sinkd_positional\n";
  out += BashArray("sinkd_subcommands", t.subcommands);
  out += BashArray("sinkd_flags", t.flags);
  out += BashArray("sinkd_takes", t.takes);
  out += BashArray("sinkd_positional", t.positional);
  return out + kCompleteFunction;
}

}  // namespace

void AddCompletionCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(root, "completion", "print a shell completion script");
  CLI::App* bash = parent->add_subcommand(
      "bash",
      "the bash completion of every command and flag; source it, or install it as "
      "/usr/share/bash-completion/completions/sinkd");
  bash->callback([&invocation, &root] {
    invocation.run = [&root] {
      std::fputs(BashScript(root).c_str(), stdout);
      return Status::OK();
    };
  });
}

}  // namespace sinkd::cli
