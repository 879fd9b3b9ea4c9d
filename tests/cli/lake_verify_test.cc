// `sinkd lake verify` through the binary, on lakes written by `sinkd import` and by a real drain
// against a real nats-server: a healthy lake passes, a deleted Part is named with its sequences.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jetstream/jetstream_test_support.h"
#include "support/lake_files.h"

namespace sinkd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::RunCommand;
using testing::SinkdBinary;

testing::CommandResult Sinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", 120s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET=", "NATS_URL="});
}


// The lake a 30-message import with some unreadable records writes, in flushes of ~300 rows.
void ImportLake(const fs::path& dir, const std::string& instance = "box-77",
                const std::string& batch_rows = "300") {
  if (!fs::exists(dir / "in.bin")) {
    auto gen = Sinkd({"generate", "ledger", "--messages", "30", "--events-per-batch", "50",
                      "--bad-share", "0.03", "--seed", "3", "-o", (dir / "in.bin").string()});
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
  }
  auto imported = Sinkd({"import", "ledger", "--lake-dir", (dir / "lake").string(),
                         "--instance-id", instance, "--batch-max-rows", batch_rows,
                         (dir / "in.bin").string()});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
}

std::string Stamp(const fs::path& part, const char* field) {
  const auto values = testing::FooterValues(part.string(), "sinkd.stamps");
  EXPECT_EQ(values.size(), 1u);
  if (values.empty()) return "";
  return nlohmann::json::parse(values[0].second)[0][field].dump();
}

TEST(LakeVerify, PassesOnAHealthyLakeThatImportWrote) {
  testing::TempDir dir;
  ImportLake(dir.path());
  auto r = Sinkd({"lake", "verify", "ledger", "--lake-dir", (dir / "lake").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("import@box-77: covered 1-30; expected 1-30"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  OK\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "") << "no progress line when stderr is not a terminal";
}

// The Part's rows are gone: verify names the flush, the Part's file name and the sequences no
// complete flush covers any more, and exits 1.
TEST(LakeVerify, NamesTheSequencesAndTheFileOfADeletedPart) {
  testing::TempDir dir;
  ImportLake(dir.path());
  const std::vector<fs::path> parts = testing::LakeFiles(dir / "lake");
  ASSERT_GT(parts.size(), 3u);
  const fs::path victim = parts[parts.size() / 2];
  const std::string first = Stamp(victim, "first"), last = Stamp(victim, "last");
  fs::remove(victim);
  auto r = Sinkd({"lake", "verify", "ledger", "--lake-dir", (dir / "lake").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("incomplete flush box-77 import " + first + "-" + last), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("missing: " + victim.filename().string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gap import@box-77 " + first + "-"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("sinkd: lake verify ledger: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 incomplete flush, 1 missing Part"), std::string::npos) << r.err;
}

// A second import of the same messages in other batches covers every sequence again, so a Part
// deleted from it leaves no gap; the flush it belonged to is still incomplete, and that fails.
TEST(LakeVerify, AnIncompleteFlushFailsEvenWhenAnotherFlushCoversItsSequences) {
  testing::TempDir dir;
  ImportLake(dir.path(), "box-77", "300");
  const std::vector<fs::path> before = testing::LakeFiles(dir / "lake");
  ImportLake(dir.path(), "box-77", "700");
  std::vector<fs::path> second;
  for (const fs::path& p : testing::LakeFiles(dir / "lake")) {
    if (!std::binary_search(before.begin(), before.end(), p)) second.push_back(p);
  }
  ASSERT_FALSE(second.empty()) << "the premise: other batches, other keys";
  fs::remove(second.front());
  auto r = Sinkd({"lake", "verify", "ledger", "--lake-dir", (dir / "lake").string(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["gaps"].empty()) << r.out;
  ASSERT_EQ(j["incomplete_flushes"].size(), 1u) << r.out;
  EXPECT_EQ(j["incomplete_flushes"][0]["missing"][0]["name"], second.front().filename().string());
  EXPECT_GT(j["duplicates"]["sequences"].get<uint64_t>(), 0u) << "two imports: every message twice";
}

TEST(LakeVerify, JsonIsOneObjectWithTheReportsFields) {
  testing::TempDir dir;
  ImportLake(dir.path());
  auto r = Sinkd({"lake", "verify", "ledger", "--lake-dir", (dir / "lake").string(), "--json",
                  "--to", "40"});
  EXPECT_EQ(r.exit_code, 1) << "31-40 were never imported: " << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"table", "prefix", "destination", "ok", "parts", "rows", "bytes",
                          "small_parts", "unstamped_parts", "superseded_parts", "flushes",
                          "duplicates", "spaces", "incomplete_flushes", "gaps", "unreadable"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["table"], "ledger");
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["parts"].get<size_t>(), testing::LakeFiles(dir / "lake").size());
  EXPECT_EQ(j["spaces"][0]["space"], "import@box-77");
  EXPECT_EQ(j["spaces"][0]["covered"], "1-30");
  EXPECT_EQ(j["spaces"][0]["expected"], "1-40");
  ASSERT_EQ(j["gaps"].size(), 1u);
  EXPECT_EQ(j["gaps"][0], nlohmann::json::parse(R"({"space":"import@box-77","first":31,"last":40})"));
}

TEST(LakeVerify, ATableIsRequiredAndBadRangesAreRefused) {
  testing::TempDir dir;
  auto r = Sinkd({"lake", "verify", "--lake-dir", dir.path().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("lake verify needs a table"), std::string::npos) << r.err;
  r = Sinkd({"lake", "verify", "ledger", "--lake-dir", dir.path().string(), "--from", "9", "--to",
             "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--from 9 is past --to 3"), std::string::npos) << r.err;
  r = Sinkd({"lake", "verify", "--table", "outbox_events", "--lake-dir", dir.path().string(),
             "--nats-url", "nats://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("an outbox table has none"), std::string::npos) << r.err;
  r = Sinkd({"lake", "verify", "--table", "outbox_events", "--lake-dir", dir.path().string()});
  EXPECT_EQ(r.exit_code, 0) << "an empty table: nothing is missing that anything names " << r.out;
}

// The drain's configuration file names the lake and the table's prefix for verify too.
TEST(LakeVerify, TheDrainsConfigurationFileNamesTheLakeAndThePrefix) {
  testing::TempDir dir;
  ImportLake(dir.path());
  fs::rename(dir / "lake" / "ledger", dir / "lake" / "ledger-v2");
  testing::WriteFile(dir / "sinkd.toml", "[lake]\ndir = \"" + (dir / "lake").string() +
                                             "\"\n[drain.ledger]\nkey_prefix = \"ledger-v2\"\n");
  auto r = Sinkd({"lake", "verify", "ledger", "--config", (dir / "sinkd.toml").string(), "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["prefix"], "ledger-v2");
  EXPECT_EQ(j["destination"], "dir " + (dir / "lake").string());
  EXPECT_EQ(j["parts"].get<size_t>(), testing::LakeFiles(dir / "lake").size());
}

// A real drain (with unreadable records dead-lettered on GARM_SINK_DEAD): verify with --nats-url
// checks every sequence from the stream's first to the durable's ack floor, and names a Part
// deleted afterwards.
TEST(LakeVerify, ALakeARealDrainWrotePassesUpToTheAckFloorAndADeletedPartIsNamed) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  testing::TempDir dir;
  const std::string url = server.url();
  ASSERT_EQ(Sinkd({"provision", "--nats-url", url}).exit_code, 0);
  ASSERT_EQ(Sinkd({"generate", "ledger", "--messages", "40", "--events-per-batch", "20", "--seed",
                   "8", "--bad-share", "0.05", "-o", (dir / "l.bin").string()})
                .exit_code,
            0);
  ASSERT_EQ(Sinkd({"publish", "ledger", "--nats-url", url, (dir / "l.bin").string()}).exit_code, 0);
  const std::string log = (dir / "drain.log").string();
  pid_t pid = fork();
  if (pid == 0) {
    freopen(log.c_str(), "w", stderr);
    execl(SinkdBinary().c_str(), "sinkd", "drain", "ledger", "--nats-url", url.c_str(),
          "--lake-dir", (dir / "lake").c_str(), "--batch-interval", "200ms", "--fetch-max", "7",
          "--batch-max-rows", "100", "--instance-id", "v1", nullptr);
    _exit(127);
  }
  auto c = testing::Connect(server);
  const bool drained = testing::WaitUntil(
      [&] {
        auto s = jetstream::GetConsumerState(*c, "GARM_LEDGER", "sink-ledger");
        return s.ok() && s->pending == 0 && s->ack_pending == 0;
      },
      60s);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(drained) << testing::ReadFile(log);
  ASSERT_FALSE(testing::ReadStream(*c, "GARM_SINK_DEAD").empty()) << "the premise: dead letters";

  auto ok = Sinkd({"lake", "verify", "ledger", "--lake-dir", (dir / "lake").string(),
                   "--nats-url", url});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("GARM_LEDGER: covered 1-40; expected 1-40"), std::string::npos) << ok.out;

  const std::vector<fs::path> parts = testing::LakeFiles(dir / "lake");
  ASSERT_GT(parts.size(), 2u);
  const std::string first = Stamp(parts[1], "first");
  fs::remove(parts[1]);
  auto bad = Sinkd({"lake", "verify", "ledger", "--lake-dir", (dir / "lake").string(),
                    "--nats-url", url, "--json"});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  const auto j = nlohmann::json::parse(bad.out);
  ASSERT_FALSE(j["gaps"].empty()) << bad.out;
  EXPECT_EQ(std::to_string(j["gaps"][0]["first"].get<uint64_t>()), first) << bad.out;
  EXPECT_EQ(j["incomplete_flushes"][0]["missing"][0]["name"], parts[1].filename().string());
}

}  // namespace
}  // namespace sinkd

namespace sinkd {
namespace {

// A batch that held only an unreadable message writes no Part, so no stamp names its sequence:
// only its dead letter on GARM_SINK_DEAD accounts for it, and verify reads that with --nats-url.
TEST(LakeVerify, AMessageDeadLetteredAloneIsCoveredByItsDeadLetterOnTheStream) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  testing::TempDir dir;
  const std::string url = server.url();
  ASSERT_EQ(Sinkd({"provision", "--nats-url", url}).exit_code, 0);
  const std::string log = (dir / "drain.log").string();
  pid_t pid = fork();
  if (pid == 0) {
    freopen(log.c_str(), "w", stderr);
    execl(SinkdBinary().c_str(), "sinkd", "drain", "ledger", "--nats-url", url.c_str(),
          "--lake-dir", (dir / "lake").c_str(), "--batch-interval", "100ms", "--instance-id", "v2",
          nullptr);
    _exit(127);
  }
  auto c = testing::Connect(server);
  auto settled_up_to = [&](uint64_t seq) {
    return testing::WaitUntil(
        [&] {
          auto s = jetstream::GetConsumerState(*c, "GARM_LEDGER", "sink-ledger");
          return s.ok() && s->ack_floor_stream >= seq;
        },
        30s);
  };
  ASSERT_EQ(testing::PublishLedger(*c, {testing::MakeEvent("x1")}), 1u);
  ASSERT_TRUE(settled_up_to(1)) << testing::ReadFile(log);
  ASSERT_EQ(testing::Publish(*c, "garm.v1.ledger.acme.svc", "\xff\xff not a Batch"), 2u);
  ASSERT_TRUE(settled_up_to(2)) << testing::ReadFile(log);
  ASSERT_EQ(testing::PublishLedger(*c, {testing::MakeEvent("x3")}), 3u);
  ASSERT_TRUE(settled_up_to(3)) << testing::ReadFile(log);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_EQ(testing::LakeFiles(dir / "lake").size(), 2u) << "the premise: message 2 had a batch alone";

  auto lake_only = Sinkd({"lake", "verify", "ledger", "--lake-dir", (dir / "lake").string()});
  EXPECT_EQ(lake_only.exit_code, 1) << lake_only.out;
  EXPECT_NE(lake_only.out.find("gap GARM_LEDGER 2\n"), std::string::npos) << lake_only.out;
  auto with_stream = Sinkd({"lake", "verify", "ledger", "--lake-dir", (dir / "lake").string(),
                            "--nats-url", url});
  EXPECT_EQ(with_stream.exit_code, 0) << with_stream.out << with_stream.err;
  EXPECT_NE(with_stream.out.find("GARM_LEDGER: covered 1-3; expected 1-3"), std::string::npos)
      << with_stream.out;
}

}  // namespace
}  // namespace sinkd
