#include "backfill/backfill.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "garm/ledger/v1/event.pb.h"
#include "lake/dir_destination.h"
#include "support/lake_files.h"
#include "support/support.h"
#include "support/wrapped_destination.h"
#include "traffic/traffic_generator.h"

namespace sinkd {
namespace {

namespace fs = std::filesystem;
using testing::DuckDb;
using testing::SqlQuote;
using testing::TempDir;

// A directory lake whose uploads wait at a gate while it is closed: a flush held in the middle of
// its first Part, as a slow disk or store would hold it. Uploads that fail are counted.
class GatedLake : public sinkd::testing::WrappedDestination {
 public:
  using WrappedDestination::WrappedDestination;

  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Uploads begun (including the one waiting at the gate).
  int begun() const { return begun_.load(); }
  // Keys starting with this fail (Redeliver) once the gate is open; empty: none fail.
  std::string fail_prefix;

  Result<std::unique_ptr<lake::PartUpload>> Begin(const std::string& key) override {
    ++begun_;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return open_; });
    }
    if (!fail_prefix.empty() && key.starts_with(fail_prefix)) {
      return Status::Redeliver("injected: " + key);
    }
    return WrappedDestination::Begin(key);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  std::atomic<int> begun_{0};
};

traffic::TrafficGenerator Generator() {
  traffic::TrafficOptions traffic;
  traffic.seed = 7;
  traffic.events_per_batch = 100;
  traffic.expected_events = 4000;
  return traffic::TrafficGenerator(traffic);
}

backfill::BackfillOptions Options() {
  backfill::BackfillOptions options;
  options.batch_max_rows = 1000;  // ten messages a batch
  // Runs of four: a batch's flush starts at the end of the run that filled it, so the tenth
  // message's flush starts with the twelfth Add, and the twentieth message ends a run.
  options.run_messages = 4;
  options.lake.key_prefix = "ledger";
  options.lake.instance = "bf";
  return options;
}

std::unique_ptr<lake::DirDestination> DirLake(const fs::path& root) {
  auto made = lake::DirDestination::Make(root.string());
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(*made);
}

std::string RowsAndDistinct(const fs::path& root) {
  auto q = DuckDb("SELECT count(*) || ' ' || count(DISTINCT event_id) FROM read_parquet(" +
                  SqlQuote((root / "ledger/**/*.parquet").string()) + ")");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok && !q.rows.empty() ? q.rows[0][0] : "";
}

TEST(Backfill, TheNextBatchIsDecodedWhileThePreviousOneIsFlushed) {
  TempDir tmp;
  auto dir = DirLake(tmp / "lake");
  GatedLake gated(*dir);
  std::FILE* devnull = std::fopen("/dev/null", "w");
  Logger log(devnull);
  backfill::Backfill backfill(gated, Options(), log);
  traffic::TrafficGenerator generator = Generator();
  std::vector<std::string> messages;
  for (int i = 0; i < 25; ++i) messages.emplace_back(generator.NextLedgerMessage());

  // Messages 1-10 fill the first batch, whose flush then waits at the closed gate (from the end of
  // the run of messages 9-12); 11-16 decode into the second batch meanwhile, 17-19 wait in a run. A backfill that flushed on the caller's thread would never
  // return from the tenth Add.
  auto first_two = std::async(std::launch::async, [&] {
    for (int i = 0; i < 19; ++i) {
      Status s = backfill.Add(messages[i], "in");
      if (!s.ok()) return s;
    }
    return Status::OK();
  });
  const bool decoded_while_flushing =
      first_two.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  EXPECT_TRUE(decoded_while_flushing) << "the second batch waited for the first one's flush";
  EXPECT_TRUE(testing::WaitUntil([&] { return gated.begun() >= 1; }, std::chrono::seconds(30)))
      << "the first batch's flush reaches its first Part";
  EXPECT_EQ(gated.begun(), 1) << "one Part of the first batch at the gate, no other upload";
  gated.Open();
  ASSERT_TRUE(first_two.get().ok());
  for (int i = 19; i < 25; ++i) ASSERT_TRUE(backfill.Add(messages[i], "in").ok());
  ASSERT_TRUE(backfill.Finish().ok());
  std::fclose(devnull);

  EXPECT_EQ(backfill.report().messages, 25u);
  EXPECT_EQ(backfill.report().rows, 2500u);
  EXPECT_EQ(backfill.report().flushes, 3u);
  EXPECT_EQ(RowsAndDistinct(tmp / "lake"), "2500 2500");
}

TEST(Backfill, AFailedFlushStopsTheImportAndNoLaterBatchIsFlushed) {
  TempDir tmp;
  auto dir = DirLake(tmp / "lake");
  GatedLake gated(*dir);
  gated.fail_prefix = "ledger/";  // every Part fails
  gated.Open();
  std::FILE* devnull = std::fopen("/dev/null", "w");
  Logger log(devnull);
  traffic::TrafficGenerator generator = Generator();
  Status first_error;
  int added = 0;
  {
    backfill::Backfill backfill(gated, Options(), log);
    for (; added < 40; ++added) {
      first_error = backfill.Add(generator.NextLedgerMessage(), "in");
      if (!first_error.ok()) break;
    }
    if (first_error.ok()) first_error = backfill.Finish();
  }
  std::fclose(devnull);
  ASSERT_FALSE(first_error.ok()) << "a failed flush is reported";
  EXPECT_TRUE(first_error.IsRedeliver()) << first_error.ToString();
  EXPECT_EQ(added, 19) << "reported by the Add that filled the next batch";
  // The first batch's flush failed; the second's never started. Every Part begun belongs to the
  // first batch (its sequences are 1-10), and nothing is left in the lake.
  EXPECT_EQ(testing::LakeFiles(tmp / "lake" / "ledger", "").size(), 0u);
}

// Every file of a lake, by path under the root, with its bytes.
std::map<std::string, std::string> LakeFiles(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const std::string& key : testing::LakeKeys(root, "")) {
    files[key] = testing::ReadFile(root / key);
  }
  return files;
}

TEST(Backfill, BatchesCloseAfterTheSameMessageAtAnyDecodeThreadCountAndRunLengthCopiedOrNot) {
  traffic::TrafficOptions traffic;
  traffic.seed = 11;
  traffic.events_per_batch = 37;  // batches of 1000 rows close inside a message, not at its end
  traffic.expected_events = 6000;
  traffic.bad_share = 0.03;       // dead letters too, from bad events and whole bad messages
  traffic::TrafficGenerator generator(traffic);
  std::vector<std::string> messages;
  for (int i = 0; i < 150; ++i) messages.emplace_back(generator.NextLedgerMessage());

  struct Way {
    size_t threads, run;
    size_t add_run = 0;  // AddRun in runs of this many messages, not Add one by one
  };
  std::vector<std::map<std::string, std::string>> lakes;
  std::vector<uint64_t> flushes;
  for (const Way way : {Way{1, 1}, Way{3, 64}, Way{2, 7}, Way{2, 64, 5}}) {
    TempDir tmp;
    auto dir = DirLake(tmp / "lake");
    std::FILE* devnull = std::fopen("/dev/null", "w");
    Logger log(devnull);
    backfill::BackfillOptions options = Options();
    options.decode_threads = way.threads;
    options.run_messages = way.run;
    backfill::Backfill backfill(*dir, options, log);
    if (way.add_run == 0) {
      for (const std::string& m : messages) ASSERT_TRUE(backfill.Add(m, "in").ok());
    }
    for (size_t first = 0; way.add_run > 0 && first < messages.size(); first += way.add_run) {
      // One buffer a run, as a reader's: scribbled over once AddRun returns, so a view kept past
      // it would put garbage in the lake.
      std::string buffer;
      std::vector<std::string_view> run;
      const size_t end = std::min(messages.size(), first + way.add_run);
      for (size_t i = first; i < end; ++i) buffer += messages[i];
      for (size_t i = first, at = 0; i < end; at += messages[i].size(), ++i) {
        run.emplace_back(buffer.data() + at, messages[i].size());
      }
      ASSERT_TRUE(backfill.AddRun(run, "in").ok());
      std::fill(buffer.begin(), buffer.end(), 'x');
    }
    ASSERT_TRUE(backfill.Finish().ok());
    std::fclose(devnull);
    ASSERT_GT(backfill.report().rejects, 0u) << "the input has bad records";
    flushes.push_back(backfill.report().flushes);
    lakes.push_back(LakeFiles(tmp / "lake"));
  }
  EXPECT_GE(flushes[0], 5u);
  EXPECT_EQ(flushes[1], flushes[0]);
  EXPECT_EQ(flushes[2], flushes[0]);
  ASSERT_FALSE(lakes[0].empty());
  // Keys name each batch's sequence range, so the same names say the batches closed after the
  // same messages; the same bytes say they held the same rows and dead letters in the same order.
  EXPECT_TRUE(lakes[1] == lakes[0]) << "3 threads, runs of 64: another lake than one by one";
  EXPECT_TRUE(lakes[2] == lakes[0]) << "2 threads, runs of 7: another lake than one by one";
  EXPECT_EQ(flushes[3], flushes[0]);
  EXPECT_TRUE(lakes[3] == lakes[0]) << "AddRun, runs of 5 views: another lake than one by one";
}

// A Batch of `apps` events, event i of app "<prefix><i>".
std::string AppsBatch(const std::string& prefix, int apps) {
  garm::ledger::v1::Batch batch;
  for (int i = 0; i < apps; ++i) {
    garm::ledger::v1::Event* e = batch.add_events();
    e->set_event_id(prefix + "-e" + std::to_string(i));
    e->mutable_time()->set_seconds(1'790'640'000);
    e->set_app(prefix + std::to_string(i));
  }
  return batch.SerializeAsString();
}

// `import` shares the drain's Batch, so its flushes have the same cap: a message that would take
// a batch past it starts the next batch, and the events of one that alone spans more partitions
// than the cap go to the dead-letter file (too_many_partitions), one line each.
TEST(Backfill, AMessageSpanningMorePartitionsThanTheCapSendsTheRestToTheDeadLetterFile) {
  TempDir tmp;
  auto dir = DirLake(tmp / "lake");
  std::FILE* devnull = std::fopen("/dev/null", "w");
  Logger log(devnull);
  backfill::BackfillOptions options = Options();
  options.max_partitions_per_flush = 4;
  backfill::Backfill backfill(*dir, options, log);
  ASSERT_TRUE(backfill.Add(AppsBatch("x", 3), "in").ok());
  ASSERT_TRUE(backfill.Add(AppsBatch("y", 6), "in").ok());
  ASSERT_TRUE(backfill.Finish().ok());
  std::fclose(devnull);
  EXPECT_EQ(backfill.report().flushes, 2u) << "message 2 did not fit beside message 1";
  EXPECT_EQ(backfill.report().rows, 7u);
  EXPECT_EQ(backfill.report().parts, 7u);
  EXPECT_EQ(backfill.report().rejects, 2u);
  ASSERT_EQ(backfill.report().dead_letter_keys.size(), 1u);
  auto dead = DuckDb("SELECT reason, sequence, event_index FROM read_json(" +
                     SqlQuote((tmp / "lake" / backfill.report().dead_letter_keys[0]).string()) +
                     ") ORDER BY event_index");
  ASSERT_TRUE(dead.ok) << dead.error;
  EXPECT_EQ(dead.rows, (std::vector<std::vector<std::string>>{{"too_many_partitions", "2", "4"},
                                                              {"too_many_partitions", "2", "5"}}));
  EXPECT_EQ(RowsAndDistinct(tmp / "lake"), "7 7");
}

}  // namespace
}  // namespace sinkd
