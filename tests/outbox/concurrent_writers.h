// The txid pitfall, as a reusable scenario: `writers` threads commit `total` events between them,
// 1–3 per transaction, each transaction sleeping a random 0–`max_delay_ms` before COMMIT, so
// sequence numbers are drawn in one order and committed in another. Meanwhile a running
// Dispatcher (real threads, real clock) delivers to `sinks` scripted sinks. Returns when every
// sink holds every event or the deadline passes; the caller checks order and completeness.
#pragma once

#include <random>

#include <fmt/format.h>
#include <thread>

#include "outbox/outbox_fixture.h"

namespace sinkd::outbox::testing {

struct PitfallResult {
  std::vector<std::shared_ptr<Journal>> journals;
  std::vector<Cursor> committed;  // every event in the outbox, in (txid, seq) order
  double seconds = 0;
};

inline PitfallResult RunPitfall(OutboxDb& db, int writers, int total, int max_delay_ms,
                                int sinks, std::chrono::seconds deadline) {
  PitfallResult result;
  SteadyClock clock;
  CapturedLog log;
  std::vector<EventSinkEntry> entries;
  for (int i = 0; i < sinks; ++i) {
    result.journals.push_back(std::make_shared<Journal>());
    entries.push_back({std::make_unique<ScriptedRowStore>("sink" + std::to_string(i),
                                                      result.journals.back()),
                       0});
  }
  DispatcherOptions options = TestOptions(db.conninfo(), clock, log.logger());
  options.poll_interval = std::chrono::milliseconds(10);
  auto d = Dispatcher::Make(options, std::move(entries), {});
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (!d.ok()) return result;
  std::atomic<bool> stop{false};
  const auto start = std::chrono::steady_clock::now();
  std::thread runner([&] { (void)(*d)->Run(stop); });
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      auto conn = PgConn::Connect(db.conninfo(), "sinkd-test-writer");
      if (!conn.ok()) return;
      std::mt19937 rng(static_cast<uint32_t>(w) * 7919u + 1u);
      int left = total / writers + (w < total % writers ? 1 : 0);
      int n = 0;
      while (left > 0) {
        const int batch = std::min(left, 1 + static_cast<int>(rng() % 3));
        (void)conn->Exec("BEGIN");
        for (int i = 0; i < batch; ++i) {
          (void)conn->Exec("INSERT INTO outbox (topic, payload) VALUES ('t', jsonb_build_object("
                           "'id', $1::text, 'type', 't', 'time', '2026-01-01T00:00:00Z'))",
                           {fmt::format("w{}-{}", w, n++)});
        }
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % (max_delay_ms * 1000 + 1)));
        (void)conn->Exec("COMMIT");
        left -= batch;
      }
    });
  }
  for (auto& t : threads) t.join();
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    bool all = true;
    for (auto& j : result.journals) all = all && j->AcceptedCount() >= static_cast<size_t>(total);
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stop = true;
  runner.join();
  // Ordered by the columns: "ORDER BY txid" would bind to the text alias and sort '1000' < '728'.
  PgResult r = db.Sql("SELECT o.txid::text AS txid_text, o.seq FROM outbox o ORDER BY o.txid, o.seq");
  for (int i = 0; i < r.rows(); ++i) {
    result.committed.push_back(Cursor{std::stoull(std::string(r.Text(i, 0))), r.Int(i, 1)});
  }
  return result;
}

// Every sink saw exactly the committed events, each once, in (txid, seq) order.
inline void ExpectEverythingInOrder(const PitfallResult& result, int total) {
  ASSERT_EQ(result.committed.size(), static_cast<size_t>(total)) << "premise: all committed";
  for (size_t s = 0; s < result.journals.size(); ++s) {
    std::vector<Cursor> seen;
    {
      std::lock_guard<std::mutex> lock(result.journals[s]->mu);
      for (const auto& e : result.journals[s]->accepted) seen.push_back(Cursor{e.txid, e.seq});
    }
    for (size_t i = 1; i < seen.size(); ++i) {
      ASSERT_LT(seen[i - 1], seen[i]) << "sink " << s << " at delivery " << i
                                      << ": out of order or delivered twice";
    }
    EXPECT_EQ(seen.size(), result.committed.size()) << "sink " << s;
    EXPECT_TRUE(seen == result.committed) << "sink " << s << " skipped or invented events";
    for (size_t i = 0; i < std::min(seen.size(), result.committed.size()); ++i) {
      if (seen[i] != result.committed[i]) {
        ADD_FAILURE() << "sink " << s << " first differs at " << i << ": saw "
                      << FormatCursor(seen[i]) << ", committed " << FormatCursor(result.committed[i]);
        break;
      }
    }
  }
}

}  // namespace sinkd::outbox::testing
