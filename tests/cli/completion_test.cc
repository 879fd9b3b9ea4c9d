// `sinkd completion bash`: the script is generated from the command tree, so it offers exactly the
// commands and flags the help lists; driven in a real bash, it completes what an operator types.
#include <gtest/gtest.h>

#include <set>

#include "cli/cli_help.h"
#include "support/support.h"

namespace sinkd {
namespace {

using testing::CommandResult;
using testing::Joined;
using testing::RunCommand;
using testing::SinkdBinary;

std::string CompletionScript() {
  const CommandResult r = RunCommand({SinkdBinary().string(), "completion", "bash"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The words bash offers for the command line `words` (the last one being completed), with the
// script sourced in a fresh bash, as bash-completion would.
std::string Complete(const std::string& script_path, const std::vector<std::string>& words) {
  std::string line = "source '" + script_path + "'; COMP_WORDS=(";
  for (const std::string& w : words) line += "'" + w + "' ";
  line += "); COMP_CWORD=" + std::to_string(words.size() - 1) +
          "; COMPREPLY=(); _sinkd; printf '%s\\n' \"${COMPREPLY[@]}\" | sort | tr '\\n' ' '";
  const CommandResult r = RunCommand({"bash", "--norc", "--noprofile", "-c", line});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << Joined(words);
  return r.out;
}

// The flags the script lists for a command path, read back from its own table.
std::set<std::string> ScriptFlags(const std::string& script_path,
                                  const std::vector<std::string>& path) {
  const std::string key = Joined(path).empty() ? "sinkd" : "sinkd " + Joined(path);
  const CommandResult r = RunCommand({"bash", "--norc", "--noprofile", "-c",
                                      "source '" + script_path + "'; printf '%s' \"${_sinkd_flags['" +
                                          key + "']}\""});
  std::set<std::string> flags;
  std::stringstream in(r.out);
  for (std::string f; in >> f;) flags.insert(f);
  return flags;
}

TEST(Completion, TheScriptIsValidBashThatRegistersItselfForSinkd) {
  testing::TempDir tmp;
  testing::WriteFile(tmp / "sinkd.bash", CompletionScript());
  const CommandResult syntax = RunCommand({"bash", "-n", (tmp / "sinkd.bash").string()});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
  const CommandResult registered = RunCommand(
      {"bash", "--norc", "-c", "source '" + (tmp / "sinkd.bash").string() + "'; complete -p sinkd"});
  EXPECT_EQ(registered.out, "complete -F _sinkd sinkd\n") << registered.err;
}

// Generated, not written by hand: for every command the help lists, the script offers exactly
// the flags that command's help lists, so a new flag or command is completed without anyone
// touching the script.
TEST(Completion, EveryCommandsFlagsAreExactlyThoseItsHelpLists) {
  testing::TempDir tmp;
  const std::string script = (tmp / "sinkd.bash").string();
  testing::WriteFile(script, CompletionScript());
  std::vector<std::vector<std::string>> paths = testing::LeafCommands();
  ASSERT_GE(paths.size(), 20u);
  paths.push_back({});
  for (const std::vector<std::string>& path : paths) {
    std::set<std::string> help;
    for (const testing::HelpFlag& flag : testing::FlagsIn(testing::HelpOf(path))) {
      help.insert(flag.names.begin(), flag.names.end());
    }
    EXPECT_GE(help.size(), 2u) << Joined(path);
    EXPECT_EQ(ScriptFlags(script, path), help) << "sinkd " << Joined(path);
  }
}

// What an operator gets at the TAB key: subcommands, flags, a closed set's choices, directories
// for a *-dir flag, files for --config and for import's inputs, and nothing after a value flag
// such as --batch-max-bytes (no file names where a size goes).
TEST(Completion, BashCompletesCommandsFlagsChoicesAndPaths) {
  testing::TempDir tmp;
  const std::string script = (tmp / "sinkd.bash").string();
  testing::WriteFile(script, CompletionScript());
  testing::WriteFile(tmp / "conf/sinkd.toml", "");
  testing::WriteFile(tmp / "conf/sub/x", "");
  const std::string conf = (tmp / "conf").string();
  EXPECT_EQ(Complete(script, {"sinkd", "dr"}), "drain ");
  EXPECT_EQ(Complete(script, {"sinkd", "drain", ""}), "audit ledger ");
  EXPECT_EQ(Complete(script, {"sinkd", "drain", "ledger", "--batch-max-b"}), "--batch-max-bytes ");
  EXPECT_EQ(Complete(script, {"sinkd", "--ver"}), "--version ");
  EXPECT_EQ(Complete(script, {"sinkd", "compact", ""}), "audit ledger ");
  EXPECT_EQ(Complete(script, {"sinkd", "compact", "--table", "outbox_"}),
            "outbox_audit outbox_events ");
  EXPECT_EQ(Complete(script, {"sinkd", "drain", "ledger", "--lake-dir", conf + "/"}),
            conf + "/sub ");
  EXPECT_EQ(Complete(script, {"sinkd", "drain", "ledger", "--config", conf + "/"}),
            conf + "/sinkd.toml " + conf + "/sub ");
  EXPECT_EQ(Complete(script, {"sinkd", "import", "ledger", "--lake-dir", "/tmp", conf + "/s"}),
            conf + "/sinkd.toml " + conf + "/sub ");
  EXPECT_EQ(Complete(script, {"sinkd", "drain", "ledger", "--batch-max-bytes", ""}), " ");
  // A value that happens to be a subcommand's name does not move the command path.
  EXPECT_EQ(Complete(script, {"sinkd", "drain", "ledger", "--durable", "audit", "--fetch-m"}),
            "--fetch-max ");
}

}  // namespace
}  // namespace sinkd
