// --log-level and --log-format (and [log] in --config) through the binary, and the first line of
// a long-running command: the version and where its settings came from.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::TempDir;

testing::CommandResult Compact(std::vector<std::string> args) {
  std::vector<std::string> argv = {SinkdBinary().string(), "compact", "ledger"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", 60s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(LogFlags, TheStartupLineNamesTheVersionAndWhereTheSettingsCameFrom) {
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  auto r = Compact({"--lake-dir", lake});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string first = r.err.substr(0, r.err.find('\n'));
  const auto line = nlohmann::json::parse(first, nullptr, false);
  ASSERT_TRUE(line.is_object()) << r.err;
  EXPECT_EQ(line.value("msg", ""), "sinkd compact started");
  const testing::CommandResult version = RunCommand({SinkdBinary().string(), "version"});
  EXPECT_NE(version.out.find(line.value("version", "?")), std::string::npos)
      << line.dump() << "\n" << version.out;
  EXPECT_EQ(line.value("settings", ""), "flags, environment and defaults (no --config)");

  const std::string config = (dir / "sinkd.toml").string();
  testing::WriteFile(config, "[lake]\ndir = \"" + lake + "\"\n");
  r = Compact({"--config", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.err.substr(0, r.err.find('\n')))["settings"], config);
}

TEST(LogFlags, LevelAndFormatComeFromTheFlagsOrTheLogSectionAndAWrongOneIsAUsageError) {
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  auto r = Compact({"--lake-dir", lake});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_GE(Count(r.err, "\"level\":\"INFO\""), 2u) << "premise: a pass logs info lines\n" << r.err;

  r = Compact({"--lake-dir", lake, "--log-level", "warn"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "nothing at warn or above in a pass that went well";

  r = Compact({"--lake-dir", lake, "--log-format", "text"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(r.err, "{\""), 0u) << r.err;
  EXPECT_NE(r.err.find(" INFO  sinkd compact started table=ledger version="), std::string::npos)
      << r.err;

  const std::string config = (dir / "sinkd.toml").string();
  testing::WriteFile(config, "[lake]\ndir = \"" + lake + "\"\n[log]\nlevel = \"error\"\n"
                             "format = \"text\"\n");
  r = Compact({"--config", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "[log] level = error";
  r = Compact({"--config", config, "--log-level", "info"});
  EXPECT_NE(r.err.find(" INFO  sinkd compact started "), std::string::npos)
      << "the flag outranks the file; the file's format stays\n" << r.err;

  r = Compact({"--lake-dir", lake, "--log-level", "verbose"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--log-level"), std::string::npos) << r.err;
  testing::WriteFile(config, "[lake]\ndir = \"" + lake + "\"\n[log]\nformat = \"logfmt\"\n");
  r = Compact({"--config", config});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("sinkd.toml:4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("log.format"), std::string::npos) << r.err;
}

// dispatch reads its file itself: [log] reaches it too, and a wrong value is refused naming it.
TEST(LogFlags, DispatchTakesTheLogSectionAndRefusesAWrongValueByKey) {
  TempDir dir;
  const std::string config = (dir / "sinkd.toml").string();
  testing::WriteFile(config, "[postgres]\nurl = \"host=127.0.0.1 port=1 dbname=x "
                             "connect_timeout=1\"\n[log]\nlevel = \"loud\"\n");
  auto r = RunCommand({SinkdBinary().string(), "dispatch", "--config", config}, "", 60s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("log.level = \"loud\""), std::string::npos) << r.err;
  r = RunCommand({SinkdBinary().string(), "dispatch", "--config", config, "--log-level", "bad"},
                 "", 60s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// Every command that logs takes the one pair of flags (cli/config_flags.h, LogFlags), not only
// those with --config: import, sweep, generate, publish and the outbox subcommands had none.
TEST(LogFlags, EveryCommandThatLogsTakesTheTwoFlagsAndTheOutboxCommandsReadTheLogSection) {
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"import", "ledger"}, {"sweep"}, {"generate", "ledger"}, {"publish", "ledger"},
           {"outbox", "migrate"}, {"outbox", "status"}, {"outbox", "retain"},
           {"outbox", "dead", "list"}, {"outbox", "dead", "replay"}, {"dispatch"},
           {"drain", "ledger"}, {"compact"}, {"lake", "verify"}, {"lake", "stats"},
           {"tail", "ledger"}, {"provision"}, {"dead", "list"}}) {
    std::vector<std::string> argv = {SinkdBinary().string()};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    argv.push_back("--help");
    const auto help = RunCommand(argv, "", 60s);
    EXPECT_NE(help.out.find("--log-level"), std::string::npos) << cmd[0] << "\n" << help.out;
    EXPECT_NE(help.out.find("--log-format"), std::string::npos) << cmd[0] << "\n" << help.out;
  }
  TempDir dir;
  const std::string wire = (dir / "ledger.bin").string();
  ASSERT_EQ(RunCommand({SinkdBinary().string(), "generate", "ledger", "--messages", "3", "-o",
                        wire, "--log-level", "warn"})
                .exit_code,
            0);
  auto import = [&](const std::string& lake, std::vector<std::string> more) {
    std::vector<std::string> argv = {SinkdBinary().string(), "import", "ledger", "--lake-dir",
                                     (dir / lake).string(), wire};
    argv.insert(argv.end(), more.begin(), more.end());
    return RunCommand(argv, "", 60s, {"LAKE_DIR="});
  };
  auto r = import("a", {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(Count(r.err, "\"level\":\"INFO\""), 2u) << r.err;
  r = import("b", {"--log-level", "warn"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "nothing at warn or above in an import that went well";
  r = import("c", {"--log-format", "text"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(r.err, "{\""), 0u) << r.err;
  EXPECT_NE(r.err.find(" INFO  sinkd import started "), std::string::npos) << r.err;
  r = import("d", {"--log-level", "loud"});
  EXPECT_EQ(r.exit_code, 2) << r.err;

  // The outbox subcommands read [log] from their --config, refused by key before any server.
  const std::string config = (dir / "sinkd.toml").string();
  testing::WriteFile(config, "[postgres]\nurl = \"host=127.0.0.1 port=1 dbname=x "
                             "connect_timeout=1\"\n[log]\nlevel = \"loud\"\n");
  r = RunCommand({SinkdBinary().string(), "outbox", "status", "--config", config}, "", 60s);
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("log.level = \"loud\""), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sinkd
