#include <gtest/gtest.h>

#include <csignal>
#include <regex>
#include <set>
#include <sstream>

#include "outbox/process.h"
#include "support/nats_server.h"
#include "support/support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using outbox::testing::Background;
using outbox::testing::FreeLoopbackPort;
using outbox::testing::HttpGet;
using testing::CommandResult;
using testing::QueryResult;
using testing::ReadFile;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::SourceDir;
using testing::TempDir;
using testing::WaitUntil;

// The README's schema table is what users read to write queries; if it drifted from the column
// list the writer uses, their WHERE clauses would name columns that do not exist.
TEST(Readme, TheSchemaSectionIsExactlyWhatTheColumnListSays) {
  const std::string readme = ReadFile(SourceDir() / "README.md");
  const std::string begin = "<!-- schema:ledger begin -->\n", end = "<!-- schema:ledger end -->";
  const size_t b = readme.find(begin), e = readme.find(end);
  ASSERT_NE(b, std::string::npos) << "README lost its schema markers";
  ASSERT_NE(e, std::string::npos);
  const std::string documented = readme.substr(b + begin.size(), e - b - begin.size());
  auto printed = RunCommand({SinkdBinary().string(), "schema", "ledger"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(documented, printed.out)
      << "regenerate the README block with: sinkd schema ledger";
  EXPECT_NE(printed.out.find("| 40 | `execution_subject` |"), std::string::npos);
}

// The README's five commands, from a running NATS to a queried lake, as an operator types them:
// run in a shell (the NATS URL the test server's, the binary the one built here), the drain
// stopped with Ctrl-C's SIGINT once it holds every event, and the query run by DuckDB. A command
// the README shows that fails, or a query that does not count every event, fails here.
TEST(Readme, TheFiveCommandsMakeALakeThatTheirQueryCountsWhole) {
  const std::string readme = ReadFile(SourceDir() / "README.md");
  const std::string begin = "<!-- five-commands begin -->\n```\n";
  const std::string end = "```\n<!-- five-commands end -->";
  const size_t b = readme.find(begin), e = readme.find(end);
  ASSERT_NE(b, std::string::npos) << "README lost its five-commands markers";
  ASSERT_NE(e, std::string::npos);
  // One entry a command; an indented line continues the one before it.
  std::vector<std::string> commands;
  std::istringstream block(readme.substr(b + begin.size(), e - b - begin.size()));
  for (std::string line; std::getline(block, line);) {
    if (!line.empty() && line[0] == ' ' && !commands.empty()) {
      commands.back() += "\n" + line;
    } else if (!line.empty()) {
      commands.push_back(line);
    }
  }
  ASSERT_EQ(commands.size(), 6u) << "an export and five commands";
  ASSERT_EQ(commands[0].rfind("export NATS_URL=", 0), 0u) << commands[0];

  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir dir;
  // Each command in a shell of its own, as typed, in the operator's directory.
  const std::string prelude = "export NATS_URL='" + server.url() + "'\ncd '" +
                              dir.path().string() + "'\n";
  const std::string sinkd = "'" + SinkdBinary().string() + "'";
  auto shell = [&](const std::string& command) {
    EXPECT_EQ(command.rfind("sinkd ", 0), 0u) << command;
    return prelude + "exec " + sinkd + command.substr(5);
  };
  long long events = 0;
  for (size_t i = 1; i < 4; ++i) {
    const CommandResult r = RunCommand({"/bin/sh", "-c", shell(commands[i])});
    ASSERT_EQ(r.exit_code, 0) << commands[i] << "\n" << r.out << r.err;
    const size_t good = r.out.find(" good events");
    if (good != std::string::npos) {
      events = std::atoll(r.out.c_str() + r.out.rfind(' ', good - 1) + 1);
    }
  }
  ASSERT_GT(events, 0) << "sinkd generate did not say how many events it wrote";

  // The drain, with a metrics page added so the test knows when it holds every event.
  ASSERT_EQ(commands[4].rfind("sinkd drain ledger", 0), 0u) << commands[4];
  const int port = FreeLoopbackPort();
  Background drain({"/bin/sh", "-c",
                    shell(commands[4].substr(0, commands[4].find('#'))) +
                        " --metrics-listen 127.0.0.1:" + std::to_string(port)},
                   dir / "drain.log");
  const std::string held = "sinkd_buffered_rows{origin=\"ledger\"} " + std::to_string(events);
  ASSERT_TRUE(WaitUntil([&] { return HttpGet(port, "/metrics").body.find(held) !=
                                     std::string::npos; },
                        60s, 100ms))
      << HttpGet(port, "/metrics").body << drain.Log();
  drain.Signal(SIGINT);
  ASSERT_EQ(drain.Wait(60s), 0) << drain.Log();

  // The query, as the DuckDB CLI would run it, from the operator's directory.
  ASSERT_EQ(commands[5].rfind("duckdb -c \"", 0), 0u) << commands[5];
  std::string sql = commands[5].substr(11, commands[5].rfind('"') - 11);
  const std::string relative = "'./lake/";
  ASSERT_NE(sql.find(relative), std::string::npos) << sql;
  sql.replace(sql.find(relative), relative.size(), "'" + (dir / "lake").string() + "/");
  const QueryResult q = testing::DuckDb("SELECT sum(events) FROM (" + sql + ")");
  ASSERT_TRUE(q.ok) << q.error << "\n" << sql;
  ASSERT_EQ(q.rows.size(), 1u);
  EXPECT_EQ(q.rows[0][0], std::to_string(events)) << sql;
}

// An operator copies flags from the README: each one it names must be a flag of a sinkd command
// (the completion lists every command's flags), or a flag of another tool the README names.
TEST(Readme, EveryFlagItNamesIsAFlagOfASinkdCommand) {
  const CommandResult completion = RunCommand({SinkdBinary().string(), "completion", "bash"});
  ASSERT_EQ(completion.exit_code, 0) << completion.err;
  const std::regex flag(R"((^|[^\w-])(--[a-z][a-z0-9.-]*[a-z0-9]))");
  std::set<std::string> known;
  for (auto it = std::sregex_iterator(completion.out.begin(), completion.out.end(), flag);
       it != std::sregex_iterator(); ++it) {
    known.insert((*it)[2]);
  }
  ASSERT_TRUE(known.count("--lake-dir")) << "the premise: the completion lists flags";
  const std::set<std::string> others = {
      "--batch-intervall",                // the misspelling a "did you mean" answers
      "--now",                            // systemctl enable --now
      "--max-bytes",                      // nats stream edit
      "--collector.textfile.directory"};  // node_exporter
  const std::string readme = ReadFile(SourceDir() / "README.md");
  size_t named = 0;
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), flag);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    ++named;
    EXPECT_TRUE(known.count(name) || others.count(name))
        << "the README names " << name << ", which no sinkd command takes";
  }
  EXPECT_GT(named, 50u);
}

// An operator starts from the README's configuration examples: each ```toml block must be a file
// every command accepts (no key sinkd refuses, no value of the wrong type or out of range).
TEST(Readme, EveryConfigurationExampleIsAFileSinkdAccepts) {
  const std::string readme = ReadFile(SourceDir() / "README.md");
  const std::string open = "```toml\n";
  TempDir dir;
  size_t blocks = 0;
  for (size_t at = readme.find(open); at != std::string::npos; at = readme.find(open, at + 1)) {
    const size_t body = at + open.size();
    const std::string toml = readme.substr(body, readme.find("```\n", body) - body);
    const std::filesystem::path file = dir / ("example-" + std::to_string(++blocks) + ".toml");
    testing::WriteFile(file, toml);
    const CommandResult shown =
        RunCommand({SinkdBinary().string(), "config", "show", "--config", file.string()}, "", 60s,
                   {"DATABASE_URL=postgresql://sinkd@db:5432/app"});
    EXPECT_EQ(shown.exit_code, 0) << "README example " << blocks << ":\n" << toml << shown.err;
  }
  EXPECT_GE(blocks, 2u) << "the premise: the README shows the file and the outbox's part of it";
}

}  // namespace
}  // namespace sinkd
