// A Deliver that never returns: past deliver_timeout its holder stops renewing the sink's lease,
// another dispatcher takes the sink within deliver_timeout + lease ttl, the stuck holder's late
// saves are refused by its epoch, and its shutdown does not wait for the call. Real threads and
// the real clock (Dispatcher::Run), with a 1 s deliver_timeout and a 2 s lease.
#include <condition_variable>
#include <thread>

#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"
#include "support/support.h"

namespace sinkd::outbox {
namespace {

using sinkd::testing::WaitUntil;
using testing::CapturedLog;
using testing::Journal;
using testing::One;
using testing::OutboxDb;
using testing::ScriptedRowStore;
using testing::TestOptions;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr Duration kDeliverTimeout = seconds(1);
constexpr Duration kLeaseTtl = seconds(2);

DispatcherOptions Fast(const OutboxDb& db, const Clock& clock, Logger& log,
                       const std::string& holder) {
  DispatcherOptions o = TestOptions(db.conninfo(), clock, log, holder);
  o.poll_interval = milliseconds(50);
  o.lease.ttl = kLeaseTtl;
  o.lease.renew_every = milliseconds(400);
  o.lease.acquire_every = milliseconds(200);
  o.deliver_timeout = kDeliverTimeout;
  return o;
}

// Holds every Deliver that enters until Open() (if ever).
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> entered{0};
  std::atomic<int> returned{0};

  void Pass() {
    ++entered;
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return open; });
    ++returned;
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
    cv.notify_all();
  }
};

// A dispatcher (holder `holder`, one sink) running Dispatcher::Run on a thread of its own, with
// the clock and the log it borrows. If Run never returns (the bug under test), the thread is
// detached and keeps all of that alive, so the test fails instead of crashing.
class Running {
 public:
  Running(const OutboxDb& db, const std::string& holder, std::unique_ptr<sinks::EventSink> sink)
      : state_(std::make_shared<State>()) {
    auto d = Dispatcher::Make(Fast(db, state_->clock, state_->log.logger(), holder),
                              One(std::move(sink)), {});
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    if (!d.ok()) return;
    state_->dispatcher = std::move(d).value();
    std::thread([s = state_] {
      (void)s->dispatcher->Run(s->stop);
      s->returned = true;
    }).swap(thread_);
  }
  ~Running() {
    if (!thread_.joinable()) return;
    if (!Stop(seconds(30))) {
      thread_.detach();
      return;
    }
    thread_.join();
  }
  Dispatcher& dispatcher() { return *state_->dispatcher; }
  // Read it only once Run returned: the log is written from the dispatcher's threads.
  const CapturedLog& log() const { return state_->log; }
  // Asks Run to stop; true when it returned within `within`.
  bool Stop(Duration within) {
    state_->stop = true;
    return WaitUntil([&] { return state_->returned.load(); },
                     std::chrono::duration_cast<milliseconds>(within));
  }

 private:
  struct State {
    SteadyClock clock;
    CapturedLog log;
    std::unique_ptr<Dispatcher> dispatcher;
    std::atomic<bool> stop{false};
    std::atomic<bool> returned{false};
  };
  std::shared_ptr<State> state_;
  std::thread thread_;
};

std::string Holder(OutboxDb& db) {
  PgResult r = db.Sql("SELECT holder FROM sinkd_leases WHERE expires_at > clock_timestamp()");
  return r.rows() ? std::string(r.Text(0, 0)) : std::string();
}

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(DeliverTimeout, ASinkThatBlocksForeverLosesItsLeaseAndAnotherDispatcherTakesTheSink) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(10);
  auto gate = std::make_shared<Gate>();  // never opened: this Deliver never returns
  auto stuck = std::make_shared<Journal>();
  auto a = std::make_unique<Running>(db, "a",
                                     std::make_unique<ScriptedRowStore>("s", stuck, [gate](auto) {
                                       gate->Pass();
                                       return Status::OK();
                                     }));
  ASSERT_TRUE(WaitUntil([&] { return gate->entered.load() == 1; }, milliseconds(20'000)));
  const auto stuck_at = std::chrono::steady_clock::now();

  auto journal = std::make_shared<Journal>();
  Running b(db, "b", std::make_unique<ScriptedRowStore>("s", journal));
  ASSERT_TRUE(WaitUntil([&] { return Holder(db) == "b"; }, milliseconds(20'000)));
  const double takeover = Since(stuck_at);
  const double bound = std::chrono::duration<double>(kDeliverTimeout + kLeaseTtl).count();
  EXPECT_GE(takeover, std::chrono::duration<double>(kDeliverTimeout).count())
      << "the lease is kept while the delivery is within deliver_timeout";
  EXPECT_LT(takeover, bound + 1.0) << "taken within deliver_timeout + lease ttl (+ 1 s to poll)";
  ASSERT_TRUE(WaitUntil([&] { return journal->AcceptedCount() == 10; }, milliseconds(20'000)));
  std::this_thread::sleep_for(kLeaseTtl);
  EXPECT_EQ(Holder(db), "b") << "the stuck process does not take the sink back";
  EXPECT_EQ(gate->entered.load(), 1) << "nor does it deliver anything else";

  const auto stopping = std::chrono::steady_clock::now();
  EXPECT_TRUE(a->Stop(seconds(10))) << "shutdown must not wait for a call that never returns";
  EXPECT_LT(Since(stopping), 3.0);
  const std::string text = a->log().Text();
  EXPECT_EQ(a->log().Lines("\"level\":\"ERROR\",\"msg\":\"outbox: a delivery has not returned within "
                        "deliver_timeout").size(),
            1u)
      << text;
  EXPECT_EQ(a->log().Lines("outbox: shutdown: a delivery has not returned within deliver_timeout")
                .size(),
            1u)
      << text;
  a.reset();  // the dispatcher is gone; its stuck thread stays parked in the sink
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_dead_letters"), 0);
  std::printf("takeover of a sink stuck in Deliver: %.1f s (deliver_timeout 1 s, lease ttl 2 s)\n",
              takeover);
}

// The stuck call returns after the takeover: its holder's cursor and progress saves carry the
// old epoch and change nothing, although its cursor would be ahead of the new holder's (the new
// holder cannot deliver, so its cursor stays at the origin).
TEST(DeliverTimeout, AStuckDeliveryThatReturnsAfterATakeoverSavesNeitherCursorNorProgress) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(10);
  auto gate = std::make_shared<Gate>();
  auto slow = std::make_shared<Journal>();
  Running a(db, "a", std::make_unique<ScriptedRowStore>("s", slow, [gate](auto) {
    gate->Pass();
    return Status::OK();
  }));
  ASSERT_TRUE(WaitUntil([&] { return gate->entered.load() == 1; }, milliseconds(20'000)));
  auto failing = std::make_shared<Journal>();
  Running b(db, "b", std::make_unique<ScriptedRowStore>(
                         "s", failing, [](auto) { return Status::Retry("b cannot deliver"); }));
  ASSERT_TRUE(WaitUntil([&] { return Holder(db) == "b" && !failing->Calls().empty(); },
                        milliseconds(20'000)));
  ASSERT_EQ(db.Count("SELECT count(*) FROM outbox_cursors"), 0) << "premise: b moved nothing";

  gate->Open();  // a's Deliver returns OK, late
  ASSERT_TRUE(WaitUntil([&] { return a.dispatcher().Figures()[0].delivered == 10; },
                        milliseconds(20'000)))
      << "a went on to save after its delivery";
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_cursors"), 0)
      << "a's cursor save carries the old epoch: refused";
  EXPECT_EQ(db.Count("SELECT count(*) FROM sinkd_sink_progress WHERE seq <> 0"), 0)
      << "a's progress save is refused too: the row stays at b's cursor (the origin)";
  EXPECT_EQ(Holder(db), "b");
  EXPECT_TRUE(a.Stop(seconds(10)));
  EXPECT_TRUE(b.Stop(seconds(10)));
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_cursors"), 0);
  EXPECT_EQ(a.log().Lines("outbox: shutdown: a delivery").size(), 0u)
      << "the call had returned: nothing to abandon";
}

}  // namespace
}  // namespace sinkd::outbox
