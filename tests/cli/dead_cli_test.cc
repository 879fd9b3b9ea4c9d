// `sinkd dead list | show | replay` through the binary against a real nats-server: the dead
// letters a real drain wrote, listed and filtered, shown with a decode attempt, and replayed so
// that the drain turns them into rows, a second replay publishing nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "jetstream/jetstream_test_support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::MakeEvent;
using testing::RunCommand;
using testing::SinkdBinary;

testing::CommandResult Dead(const std::string& url, std::vector<std::string> args) {
  args.insert(args.begin(), {SinkdBinary().string(), "dead"});
  args.insert(args.end(), {"--nats-url", url});
  return RunCommand(args, "", 60s);
}

// Runs `sinkd drain ledger` until the durable has nothing pending, then SIGTERM.
void DrainLedger(const testing::NatsServer& server, jetstream::Connection& c,
                 const testing::TempDir& dir) {
  const std::string log = (dir / "drain.log").string();
  pid_t pid = fork();
  if (pid == 0) {
    freopen(log.c_str(), "a", stderr);
    execl(SinkdBinary().c_str(), "sinkd", "drain", "ledger", "--nats-url", server.url().c_str(),
          "--lake-dir", (dir / "lake").c_str(), "--batch-interval", "200ms",
          "--max-partitions-per-flush", "1", nullptr);
    _exit(127);
  }
  const bool drained = testing::WaitUntil(
      [&] {
        auto s = jetstream::GetConsumerState(c, "GARM_LEDGER", "sink-ledger");
        return s.ok() && s->pending == 0 && s->ack_pending == 0;
      },
      60s);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(drained) << testing::ReadFile(log);
}

std::string EventIds(const testing::TempDir& dir) {
  auto q = testing::DuckDb("SELECT string_agg(event_id, ',' ORDER BY event_id) FROM read_parquet(" +
                           testing::SqlQuote((dir / "lake/ledger/**/*.parquet").string()) + ")");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok ? q.rows[0][0] : "";
}

// The partition cap is the one reason a drain dead-letters records that read fine: they are the
// records a replay turns into rows without any fix.
TEST(DeadCli, DeadLettersAreListedShownAndReplayedIntoRowsOnce) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  testing::ProvisionAll(*c);
  auto no_time = MakeEvent("e-bad", "one");
  no_time.clear_time();
  testing::PublishLedger(
      *c, {MakeEvent("e-1", "one"), MakeEvent("e-2", "two"), MakeEvent("e-3", "three"), no_time});
  testing::TempDir dir;
  DrainLedger(server, *c, dir);
  ASSERT_EQ(EventIds(dir), "e-1");

  const std::string url = server.url();
  auto list = Dead(url, {"list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("  too_many_partitions  GARM_LEDGER 1 event 1  "
                          "garm.v1.ledger.acme.svc  "),
            std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("  missing_time  GARM_LEDGER 1 event 3  garm.v1.ledger.acme.svc  "
                          "time is unset\n"),
            std::string::npos)
      << list.out;
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 3) << list.out;
  EXPECT_NE(list.err.find("3 dead letter(s)"), std::string::npos) << list.err;

  auto json = Dead(url, {"list", "--reason", "missing_time", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json one = nlohmann::json::parse(json.out);
  EXPECT_EQ(one["reason"], "missing_time");
  EXPECT_EQ(one["stream"], "GARM_LEDGER");
  EXPECT_EQ(one["event_index"], 3);
  const uint64_t bad_seq = one["dead_sequence"];
  EXPECT_EQ(Dead(url, {"list", "--subject", "garm.v1.audit.>"}).out, "");
  EXPECT_EQ(Dead(url, {"list", "--since", "2h", "--until", "1h"}).out, "");
  const std::string decodable = Dead(url, {"list", "--decodable"}).out;
  EXPECT_EQ(std::count(decodable.begin(), decodable.end(), '\n'), 2) << decodable;

  auto show = Dead(url, {"show", std::to_string(bad_seq)});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("  Garm-Dead-Reason: missing_time\n"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  Garm-Dead-Subject: garm.v1.ledger.acme.svc\n"), std::string::npos);
  EXPECT_NE(show.out.find("replay: to garm.v1.ledger.acme.svc (GARM_LEDGER) as a Batch of this "
                          "one event, Nats-Msg-Id sinkd-replay-GARM_LEDGER-1-3\n"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("decode: rejected: event 0: missing_time: time is unset\n"),
            std::string::npos)
      << show.out;
  auto show_json = Dead(url, {"show", "1", "--json"});
  ASSERT_EQ(show_json.exit_code, 0) << show_json.err;
  const nlohmann::json shown = nlohmann::json::parse(show_json.out);
  EXPECT_EQ(shown["decode"]["rows"].size(), 1u) << show_json.out;
  EXPECT_EQ(shown["decode"]["rows"][0]["event_id"].get<std::string>().substr(0, 2), "e-");
  auto missing = Dead(url, {"show", "99"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("GARM_SINK_DEAD holds no message at sequence 99"), std::string::npos)
      << missing.err;

  // A dry run publishes nothing.
  auto dry = Dead(url, {"replay", "--reason", "too_many_partitions"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("Nats-Msg-Id sinkd-replay-GARM_LEDGER-1-1  (one event as a Batch)  "
                         "decodes now\n"),
            std::string::npos)
      << dry.out;
  EXPECT_NE(dry.err.find("dry run: 2 of 2 selected"), std::string::npos) << dry.err;
  EXPECT_EQ(testing::ReadStream(*c, "GARM_LEDGER").size(), 1u);

  auto replay = Dead(url, {"replay", "--reason", "too_many_partitions", "--yes"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NE(replay.err.find("2 replayed, 0 already replayed, of 2 selected"), std::string::npos)
      << replay.err;
  auto again = Dead(url, {"replay", "--reason", "too_many_partitions", "--yes"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("0 replayed, 2 already replayed, of 2 selected"), std::string::npos)
      << again.err;
  EXPECT_EQ(testing::ReadStream(*c, "GARM_LEDGER").size(), 3u)
      << "a replay run twice publishes once";
  DrainLedger(server, *c, dir);
  EXPECT_EQ(EventIds(dir), "e-1,e-2,e-3") << "the replayed events are rows";
}

TEST(DeadCli, AReplayNeedsASelectionAndBadFiltersAreUsageErrors) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string url = server.url();
  auto none = Dead(url, {"replay"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("name the dead letters to replay"), std::string::npos) << none.err;
  EXPECT_EQ(Dead(url, {"list", "--reason", "broken"}).exit_code, 2);
  EXPECT_EQ(Dead(url, {"list", "--stream", "GARM_SINK_DEAD"}).exit_code, 2);
  EXPECT_EQ(Dead(url, {"replay", "--all", "--since", "soon"}).exit_code, 2);
  EXPECT_EQ(Dead(url, {"list", "--subject", "garm.>.x"}).exit_code, 2);
  auto no_stream = Dead(url, {"list"});
  EXPECT_EQ(no_stream.exit_code, 1) << "GARM_SINK_DEAD is not provisioned";
}

}  // namespace
}  // namespace sinkd
