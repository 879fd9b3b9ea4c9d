// The one configuration file: every unit runs its command with /etc/sinkd/sinkd.toml (no
// environment files of flags), the shipped example is accepted by each of those commands, and
// the README's example, the shipped file and the README's scrape configuration name the same
// metrics ports.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "deploy/deploy_support.h"

namespace sinkd::testing {
namespace {

namespace fs = std::filesystem;

const char kConfigPath[] = "/etc/sinkd/sinkd.toml";

fs::path ShippedConfig() { return DeployDir() / "examples/sinkd.toml"; }

// The ExecStart= lines of a unit file, as written.
std::vector<std::string> ExecStarts(const std::string& unit) {
  std::vector<std::string> lines;
  for (const std::string& line : Lines(ReadFile(DeployDir() / "systemd" / unit))) {
    if (line.rfind("ExecStart=", 0) == 0) lines.push_back(line.substr(10));
  }
  return lines;
}

// A unit's setting changed by an environment file of flags (SINKD_DRAIN_ARGS=--batch-…) is one
// `sinkd config show` cannot see and the file does not hold: every command line is the command
// and --config, and the only environment file is the credentials'.
TEST(OneFile, EveryUnitRunsItsCommandWithTheConfigurationFileAndNoFlagsFromTheEnvironment) {
  size_t commands = 0;
  for (const char* unit :
       {"sinkd-drain@.service", "sinkd-dispatch.service", "sinkd-compact.service",
        "sinkd-table-expire.service", "sinkd-table-orphans.service"}) {
    for (const std::string& exec : ExecStarts(unit)) {
      ++commands;
      EXPECT_EQ(exec.rfind("/usr/local/bin/sinkd ", 0), 0u) << unit << ": " << exec;
      EXPECT_TRUE(exec.ends_with(std::string(" --config ") + kConfigPath)) << unit << ": " << exec;
      EXPECT_EQ(exec.find('$'), std::string::npos) << unit << " expands a variable: " << exec;
    }
    for (const std::string& line : Lines(ReadFile(DeployDir() / "systemd" / unit))) {
      if (line.rfind("EnvironmentFile=", 0) == 0) {
        EXPECT_EQ(line, "EnvironmentFile=-/etc/sinkd/secrets.env") << unit;
      }
      EXPECT_NE(line.rfind("Environment=", 0), 0u) << unit << ": " << line;
    }
  }
  EXPECT_EQ(commands, 10u) << "drain@, dispatch and compact's four passes (ledger, audit and "
                              "the outbox lake sinks' two tables), expire's and orphans' two";
}

// Each unit's command, run with the shipped file (servers that answer nowhere put in front by
// flags, which outrank the file), gets past every setting: the drain to connecting, compaction
// through a pass, the dispatcher (its outbox part uncommented) to the database. A setting a
// command refused would exit 2.
TEST(OneFile, EachUnitsCommandAcceptsTheShippedConfiguration) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string(), config = ShippedConfig().string();
  const std::vector<std::string> env = {
      "LAKE_DIR=", "NATS_URL=", "AWS_ENDPOINT_URL=", "S3_BUCKET="};
  for (const char* origin : {"ledger", "audit"}) {
    const CommandResult r = RunCommand({SinkdBinary().string(), "drain", origin, "--config", config,
                                        "--nats-url", "nats://127.0.0.1:1", "--lake-dir", lake,
                                        "--connect-timeout", "0"},
                                       "", std::chrono::seconds(60), env);
    EXPECT_EQ(r.exit_code, 1) << origin << ": " << r.err;
    EXPECT_NE(r.err.find("connect to NATS at nats://127.0.0.1:1"), std::string::npos) << r.err;
  }
  // The compaction unit's command lines as written, the binary and the file put here.
  size_t passes = 0;
  for (const std::string& exec : ExecStarts("sinkd-compact.service")) {
    std::vector<std::string> argv = {SinkdBinary().string()};
    std::istringstream words(exec.substr(exec.find(' ') + 1));
    for (std::string word; words >> word;) argv.push_back(word == kConfigPath ? config : word);
    argv.insert(argv.end(), {"--lake-dir", lake});
    const CommandResult r = RunCommand(argv, "", std::chrono::seconds(60), env);
    EXPECT_EQ(r.exit_code, 0) << exec << ": " << r.err;
    EXPECT_NE(r.err.find("\"target_bytes\":268435456"), std::string::npos) << r.err;
    ++passes;
  }
  EXPECT_EQ(passes, 4u);
  // The outbox part ships commented out; uncommented, it is what dispatch runs with.
  std::string outbox;
  bool below = false;
  for (const std::string& line : Lines(ReadFile(ShippedConfig()))) {
    if (line.find("# The PostgreSQL outbox") == 0) below = true;
    if (below && line.rfind("# ", 0) == 0 &&
        line.find("The PostgreSQL outbox") == std::string::npos) {
      outbox += line.substr(2) + "\n";
    } else if (below && line == "#") {
      outbox += "\n";
    } else {
      outbox += line + "\n";
    }
  }
  ASSERT_NE(outbox.find("\n[postgres]\n"), std::string::npos) << outbox;
  WriteFile(tmp / "sinkd.toml", outbox);
  const CommandResult r = RunCommand(
      {SinkdBinary().string(), "dispatch", "--config", (tmp / "sinkd.toml").string()}, "",
      std::chrono::seconds(60), {"DATABASE_URL=host=127.0.0.1 port=1 dbname=x connect_timeout=2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("postgres: cannot connect"), std::string::npos) << r.err;
}

// section → the port its metrics_listen names, in a TOML text; commented lines (`# key = …`)
// count, since the shipped file names the dispatcher's and a `compact --follow`'s port so.
std::map<std::string, std::string> MetricsPorts(const std::string& toml) {
  std::map<std::string, std::string> ports;
  std::string section;
  for (std::string line : Lines(toml)) {
    if (line.rfind("# ", 0) == 0) line = line.substr(2);
    if (line.rfind("[", 0) == 0 && line.find(']') != std::string::npos) {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    for (const char* key : {"metrics_listen = \"", "listen = \""}) {
      if (line.rfind(key, 0) == 0) {
        const size_t colon = line.rfind(':');
        ports[section] = line.substr(colon + 1, line.find('"', colon) - colon - 1);
      }
    }
  }
  return ports;
}

// An operator copies ports from the README into Prometheus: they must be those the shipped file
// and the units use (the README once said 9464 for the ledger drain, the units 9465).
TEST(OneFile, TheReadmeAndTheShippedConfigurationNameTheSameMetricsPorts) {
  const std::string readme = ReadFile(SourceDir() / "README.md");
  const size_t section = readme.find("\n## Configuration file\n");
  ASSERT_NE(section, std::string::npos);
  const size_t begin = readme.find("```toml\n", section);
  const size_t end = readme.find("```\n", begin + 8);
  ASSERT_NE(begin, std::string::npos);
  std::map<std::string, std::string> documented =
      MetricsPorts(readme.substr(begin + 8, end - begin - 8));
  documented.erase("metrics");  // the fallback key, commented out in both
  std::map<std::string, std::string> shipped = MetricsPorts(ReadFile(ShippedConfig()));
  shipped.erase("metrics");
  const std::map<std::string, std::string> expected = {{"drain.ledger", "9465"},
                                                       {"drain.audit", "9466"},
                                                       {"dispatch", "9464"},
                                                       {"compaction", "9467"}};
  EXPECT_EQ(documented, expected) << "README's configuration example";
  EXPECT_EQ(shipped, expected) << ShippedConfig();
  // The scrape configuration in "Running under systemd" scrapes exactly those.
  const size_t scrape = readme.find("scrape_configs:\n", readme.find("\n## Running under systemd"));
  ASSERT_NE(scrape, std::string::npos);
  const std::string targets = readme.substr(scrape, readme.find("```", scrape) - scrape);
  for (const char* line : {"job_name: sinkd\n    static_configs: [{targets: [\"host:9465\", "
                           "\"host:9466\"]}]",
                           "job_name: sinkd-dispatch\n    static_configs: [{targets: "
                           "[\"host:9464\"]}]",
                           "job_name: sinkd-compact\n    static_configs: [{targets: "
                           "[\"host:9467\"]}]"}) {
    EXPECT_NE(targets.find(line), std::string::npos) << line << "\n" << targets;
  }
}

}  // namespace
}  // namespace sinkd::testing
