// The command line's promises to scripts and units, over every command the help lists: exit 0
// done, 1 failed, 2 wrong usage; "did you mean" for a misspelt command or flag; `sinkd --version`.
#include <gtest/gtest.h>

#include <set>

#include "cli/cli_help.h"
#include "support/support.h"

namespace sinkd {
namespace {

using testing::CommandResult;
using testing::Joined;
using testing::LeafCommands;
using testing::Plus;
using testing::SinkdWithoutServers;

// A deploy script's or a unit's typo must not look like a failure worth retrying (1), nor run
// the command on its defaults: every command, parent or not, refuses an unknown flag with 2.
TEST(ExitCodes, EveryCommandRefusesAnUnknownFlagWithTwoBeforeDoingAnything) {
  const std::vector<std::vector<std::string>> leaves = LeafCommands();
  ASSERT_GE(leaves.size(), 20u) << "the premise: the help lists every command";
  for (const std::vector<std::string>& leaf : leaves) {
    const CommandResult r = SinkdWithoutServers(Plus(leaf, {"--no-such-flagg"}));
    EXPECT_EQ(r.exit_code, 2) << Joined(leaf) << "\n" << r.out << r.err;
    // A required flag missing is named first (CLI11 checks it before the extras); either way the
    // message names what is wrong.
    EXPECT_TRUE(r.err.find("--no-such-flagg") != std::string::npos ||
                r.err.find(" is required") != std::string::npos)
        << Joined(leaf) << ": " << r.err;
    EXPECT_EQ(r.err.find("started"), std::string::npos) << Joined(leaf) << " ran: " << r.err;
  }
  for (const std::vector<std::string>& parent :
       {std::vector<std::string>{}, {"drain"}, {"outbox"}, {"outbox", "dead"}, {"config"}, {"table"},
        {"completion"}}) {
    const CommandResult r = SinkdWithoutServers(parent);
    EXPECT_EQ(r.exit_code, 2) << "a parent run alone: " << Joined(parent) << "\n" << r.err;
  }
}

// Each command once done (0), once failed (1: a server away, an input missing, a check that
// finds a gap) and once refused for a bad value or setting (2), where that is cheap to set up.
// Every command the help lists must have a case that is not a usage error, so a new command
// cannot skip this table.
TEST(ExitCodes, EachCommandExitsZeroWhenDoneOneWhenFailedAndTwoOnWrongUsage) {
  testing::TempDir tmp;
  const std::string lake = (tmp / "lake").string(), wire = (tmp / "ledger.bin").string();
  const std::string missing_config = (tmp / "missing.toml").string();
  const std::string closed_db = (tmp / "closed-db.toml").string();
  testing::WriteFile(closed_db,
                     "[postgres]\nurl = \"host=127.0.0.1 port=1 dbname=x connect_timeout=2\"\n"
                     "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" +
                         lake + "\"\n");
  const std::string bad_size = (tmp / "bad-size.toml").string();
  testing::WriteFile(bad_size,
                     "[lake]\ndir = \"" + lake + "\"\n[compaction]\ntarget_bytes = \"1GB\"\n");
  const std::string closed = "nats://127.0.0.1:1";
  const std::string broken_lake = (tmp / "broken").string();
  std::filesystem::create_directories(broken_lake + "/ledger/date=2026-01-01/app=x");
  testing::WriteFile(broken_lake + "/ledger/date=2026-01-01/app=x/part-broken.parquet",
                     "PAR1 not a Parquet file PAR1");
  struct Case {
    std::vector<std::string> args;
    int code;
  };
  // In order: later cases read what earlier ones wrote (the wire file, the imported lake).
  const std::vector<Case> cases = {
      {{"version"}, 0},
      {{"--version"}, 0},
      {{"schema", "ledger"}, 0},
      {{"completion", "bash"}, 0},
      {{"config", "show"}, 0},
      {{"config", "show", "--config", missing_config}, 2},
      {{"generate", "ledger", "--messages", "3", "--events-per-batch", "5", "-o", wire}, 0},
      {{"generate", "audit", "--messages", "3", "-o", (tmp / "no/such/dir/a.bin").string()}, 1},
      {{"generate", "audit", "--messages", "-1", "-o", wire}, 2},
      {{"import", "ledger", "--lake-dir", lake, wire}, 0},
      {{"import", "audit", "--lake-dir", lake, (tmp / "missing.bin").string()}, 1},
      {{"import", "ledger", "--lake-dir", lake, "--zstd-level", "40", wire}, 2},
      {{"import", "ledger", "--lake-dir", lake}, 2},
      {{"lake", "verify", "ledger", "--lake-dir", lake}, 0},
      {{"lake", "verify", "ledger", "--lake-dir", lake, "--to", "99"}, 1},
      {{"lake", "verify", "ledger", "--lake-dir", lake, "--from", "9", "--to", "3"}, 2},
      {{"lake", "stats", "ledger", "--lake-dir", lake}, 0},
      {{"lake", "stats", "ledger", "--lake-dir", broken_lake}, 1},
      {{"lake", "stats", "ledger", "--lake-dir", lake, "--target-bytes", "10"}, 2},
      {{"compact", "ledger", "--lake-dir", lake}, 0},
      {{"compact", "ledger", "--lake-dir", "/dev/null/lake"}, 1},
      {{"compact", "ledger", "--lake-dir", lake, "--min-parts", "1"}, 2},
      {{"compact", "ledger", "--config", bad_size}, 2},
      {{"table", "info", "ledger", "--lake-dir", lake}, 1},
      {{"table", "info", "nosuch", "--lake-dir", lake}, 2},
      {{"table", "expire", "ledger", "--lake-dir", lake}, 1},
      {{"table", "expire", "ledger", "--lake-dir", lake, "--retain-last", "0"}, 2},
      {{"table", "orphans", "ledger", "--lake-dir", lake}, 1},
      {{"table", "orphans", "ledger", "--lake-dir", lake, "--older-than", "soon"}, 2},
      {{"table", "register", "ledger", "--lake-dir", broken_lake}, 1},
      {{"table", "register", "ledger", "--lake-dir", lake, "--stream-created", "GARM_LEDGER="}, 2},
      {{"table", "register", "ledger", "--lake-dir", lake}, 0},
      {{"sweep", "--lake-dir", lake}, 0},
      {{"sweep", "--lake-dir", (tmp / "nowhere").string()}, 1},
      {{"sweep", "--lake-dir", lake, "--older-than", "soon"}, 2},
      {{"provision", "--dry-run"}, 0},
      {{"provision", "--nats-url", closed}, 1},
      {{"provision", "--dry-run", "--ledger-max-age", "soon"}, 2},
      {{"drain", "ledger", "--lake-dir", lake, "--nats-url", closed, "--connect-timeout", "0"}, 1},
      {{"drain", "audit", "--lake-dir", lake, "--nats-url", closed, "--connect-timeout", "0"}, 1},
      {{"drain", "ledger", "--lake-dir", lake, "--batch-max-rows", "0"}, 2},
      {{"drain", "audit", "--nats-url", closed}, 2},
      {{"tail", "ledger", "--nats-url", closed}, 1},
      {{"tail", "audit", "--nats-url", closed}, 1},
      {{"tail", "ledger", "--since", "0"}, 2},
      {{"dead", "list", "--nats-url", closed}, 1},
      {{"dead", "show", "1", "--nats-url", closed}, 1},
      {{"dead", "replay", "--all", "--nats-url", closed}, 1},
      {{"dead", "list", "--reason", "broken"}, 2},
      {{"dead", "replay"}, 2},
      {{"publish", "ledger", "--nats-url", closed, wire}, 1},
      {{"publish", "audit", "--nats-url", closed, wire}, 1},
      {{"publish", "ledger", "--nats-url", closed}, 2},
      {{"outbox", "migrate", "--config", closed_db}, 1},
      {{"outbox", "status", "--config", closed_db}, 1},
      {{"outbox", "retain", "--config", closed_db, "--min-age", "1h"}, 1},
      {{"outbox", "retain", "--config", closed_db, "--min-age", "soon"}, 2},
      {{"outbox", "status", "--config", missing_config}, 2},
      {{"outbox", "dead", "list", "--config", closed_db}, 1},
      {{"outbox", "dead", "replay", "--config", closed_db, "--all", "--yes"}, 1},
      {{"outbox", "dead", "replay", "--config", closed_db}, 2},
      {{"outbox", "dead", "list", "--config", closed_db, "--since", "soon"}, 2},
      {{"dispatch", "--config", closed_db}, 1},
      {{"dispatch", "--config", missing_config}, 2},
      {{"validate", "--config", closed_db}, 1},
      {{"validate", "--config", bad_size}, 78},
      {{"validate", "--config", missing_config}, 78},
      {{"validate"}, 2},
  };
  std::set<std::string> covered;
  for (const Case& c : cases) {
    const CommandResult r = SinkdWithoutServers(c.args);
    EXPECT_EQ(r.exit_code, c.code) << Joined(c.args) << "\n" << r.out << r.err;
    if (c.code != 0) {
      EXPECT_TRUE(r.err.rfind("sinkd: ", 0) == 0 || r.err.find("\nsinkd: ") != std::string::npos)
          << "an error is a line \"sinkd: <message>\" on stderr: " << Joined(c.args) << "\n"
          << r.err;
    }
    if (c.code != 2) covered.insert(Joined(c.args));
  }
  for (const std::vector<std::string>& leaf : LeafCommands()) {
    bool found = false;
    for (const std::string& line : covered) found |= (line + " ").rfind(Joined(leaf) + " ", 0) == 0;
    EXPECT_TRUE(found) << "no case runs `sinkd " << Joined(leaf) << "` to a 0 or a 1";
  }
}

// "sinkd drian ledger" or "--batch-intervall" in a unit file: the refusal says what was meant.
TEST(DidYouMean, AMisspeltCommandOrFlagIsRefusedNamingWhatItMostLikelyMeant) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"drian", "ledger"}, "unknown sinkd subcommand \"drian\"; did you mean \"drain\"?"},
      {{"import", "ledgr"}, "unknown import subcommand \"ledgr\"; did you mean \"ledger\"?"},
      {{"drain", "ledger", "--batch-intervall", "5s"},
       "unknown argument \"--batch-intervall\"; did you mean \"--batch-interval\"?"},
      {{"compact", "ledger", "--gracee=1h"},
       "unknown argument \"--gracee=1h\"; did you mean \"--grace\"?"},
      {{"--hepl"}, "unknown argument \"--hepl\"; did you mean \"--help\"?"},
      {{"--verison"}, "unknown argument \"--verison\"; did you mean \"--version\"?"},
      {{"tail", "ledger", "--nats-urll", "x"}, "did you mean \"--nats-url\"?"},
  };
  for (const Case& c : cases) {
    const CommandResult r = SinkdWithoutServers(c.args);
    EXPECT_EQ(r.exit_code, 2) << Joined(c.args);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << Joined(c.args) << ": " << r.err;
  }
  // A word far from every flag or subcommand gets no guess: a wrong one would mislead.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"drain", "ledger", "--colour"}, {"frobnicate"}}) {
    const CommandResult r = SinkdWithoutServers(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
  }
}

TEST(Version, TheVersionFlagPrintsWhatTheVersionCommandPrints) {
  const CommandResult flag = SinkdWithoutServers({"--version"});
  const CommandResult command = SinkdWithoutServers({"version"});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_EQ(flag.out, command.out);
  EXPECT_EQ(flag.out.rfind("sinkd version 0.1.0 (build ", 0), 0u) << flag.out;
}

}  // namespace
}  // namespace sinkd
