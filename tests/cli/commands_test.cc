#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/support.h"

namespace sinkd {
namespace {

using testing::CommandResult;
using testing::RunCommand;
using testing::SinkdBinary;

CommandResult Sinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args);
}

// A parent command that printed help and exited 0 would let a typo in a deploy script
// ("sinkd drian ledger") look like success; it is wrong usage, exit 2.
TEST(Cli, EveryParentCommandRefusesInsteadOfPrintingHelp) {
  auto root = Sinkd({});
  EXPECT_EQ(root.exit_code, 2);
  EXPECT_NE(root.err.find("sinkd needs a subcommand: "), std::string::npos) << root.err;
  EXPECT_NE(root.err.find("import"), std::string::npos) << root.err;
  auto import = Sinkd({"import"});
  EXPECT_EQ(import.exit_code, 2);
  EXPECT_NE(import.err.find("sinkd import needs a subcommand: audit, ledger"), std::string::npos)
      << import.err;
  auto typo = Sinkd({"import", "lgr"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown import subcommand \"lgr\"; expected one of: audit, ledger"),
            std::string::npos)
      << typo.err;
}

// A misspelt flag in a unit file ("--batch-intervall 5s") must stop the command with its name,
// not be dropped while the command runs on its defaults (they inherit the parents' extras).
TEST(Cli, EveryCommandRefusesAMisspeltFlagNamingItBeforeDoingAnything) {
  const std::string lake = (std::filesystem::temp_directory_path() /
                            ("sinkd-misspelt-" + std::to_string(::getpid())))
                               .string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"drain", "ledger", "--lake-dir", lake, "--batch-intervall", "5s"}, "--batch-intervall"},
      {{"drain", "ledger", "--lake-dir", lake, "stray"}, "stray"},
      {{"import", "ledger", "--lake-dir", lake, "--batch-max-rowz", "5", "/dev/null"},
       "--batch-max-rowz"},
      {{"tail", "ledger", "--nats-urll", "nats://127.0.0.1:1"}, "--nats-urll"},
      {{"provision", "--dry-runn"}, "--dry-runn"},
      {{"dispatch", "--config", "/nonexistent.toml", "--oops"}, "--oops"},
      {{"lake", "verify", "ledger", "--lake-dir", lake, "--strictt"}, "--strictt"},
      {{"compact", "ledger", "--lake-dir", lake, "--gracee", "1h"}, "--gracee"},
      {{"config", "show", "--verbosee"}, "--verbosee"},
      {{"version", "--shortt"}, "--shortt"},
  };
  for (const auto& [args, bad] : cases) {
    std::string line;
    for (const std::string& a : args) line += a + " ";
    const auto r = Sinkd(args);
    EXPECT_EQ(r.exit_code, 2) << line;
    EXPECT_NE(r.err.find("unknown argument \"" + bad + "\""), std::string::npos)
        << line << "\n" << r.err;
    EXPECT_EQ(r.err.find("started"), std::string::npos) << "it ran: " << line << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(lake)) << "nothing was created";
}

TEST(Cli, EverySubcommandHasHelp) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--help"}, {"version", "--help"}, {"import", "--help"},
        {"import", "ledger", "--help"}, {"import", "audit", "--help"}, {"sweep", "--help"},
        {"schema", "ledger", "--help"}, {"generate", "ledger", "--help"},
        {"generate", "audit", "--help"}}) {
    auto r = Sinkd(args);
    EXPECT_EQ(r.exit_code, 0) << args.front() << ": " << r.err;
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << args.front();
  }
}

TEST(Cli, VersionNamesTheVersionAndTheBuild) {
  auto r = Sinkd({"version"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("sinkd version ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("(build "), std::string::npos) << r.out;
}

// A bad flag stops the program with a message naming it, before anything is read or written:
// wrong usage (2); an input that is not there is a failed run (1).
TEST(Cli, BadFlagsStopWithAMessageNamingThem) {
  testing::TempDir tmp;
  testing::WriteFile(tmp / "in.bin", "");
  const std::string in = (tmp / "in.bin").string(), lake = (tmp / "lake").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
    int code = 2;
  } cases[] = {
      {{"import", "ledger", in}, "--lake-dir"},
      {{"import", "ledger", "--lake-dir", lake}, "FILE"},
      {{"import", "ledger", "--lake-dir", lake, "--instance-id", "a/b", in}, "--instance-id"},
      {{"import", "ledger", "--lake-dir", lake, "--key-prefix", "../x", in}, "--key-prefix"},
      {{"import", "ledger", "--lake-dir", lake, "--zstd-level", "40", in}, "--zstd-level"},
      {{"import", "ledger", "--lake-dir", lake, "--encode-threads", "0", in},
       "--encode-threads 0: must be between 1 and 256"},
      {{"import", "ledger", "--lake-dir", lake, "--encode-threads", "257", in},
       "--encode-threads 257"},
      {{"import", "ledger", "--lake-dir", lake, "--encode-threads", "two", in}, "--encode-threads"},
      {{"import", "ledger", "--lake-dir", lake, "--encode-threads", "-1", in}, "--encode-threads"},
      {{"import", "ledger", "--lake-dir", lake, "--batch-max-rows", "0", in}, "--batch-max-rows"},
      {{"import", "ledger", "--lake-dir", lake, (tmp / "missing.bin").string()}, "missing.bin", 1},
      {{"sweep", "--lake-dir", lake, "--older-than", "soon"}, "--older-than"},
  };
  for (const Case& c : cases) {
    auto r = Sinkd(c.args);
    EXPECT_EQ(r.exit_code, c.code) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "expected the error to name " << c.says
                                                     << ", got: " << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp / "lake/ledger")) << "a refused run wrote a lake";
}

}  // namespace
}  // namespace sinkd
