// A drain running in this process against a real nats-server: the fixture, provisioned streams, a
// lake in a temporary directory, and the drain on its own thread until Stop(). Sinks can be wrapped
// to fail on demand; that is the only fake, and it fakes sinkd's own interface.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/log.h"
#include "drain/drain.h"
#include "drain/row_store.h"
#include "jetstream/dead_letter_publisher.h"
#include "jetstream/jetstream_test_support.h"
#include "lake/dir_destination.h"
#include "row/ledger_columns.h"

namespace sinkd::testing {

// Fails the first `failures` flushes (Redeliver, or `failure` when set), takes `delay` per flush,
// waits while `hang` is set (a write into a hung mount: nothing the drain does ends it), then
// writes through; records rows and sequence range per successful flush. The drain's thread
// writes the records, the test's reads them: only through the locked accessors.
class ScriptedRowStore : public drain::RowStore {
 public:
  explicit ScriptedRowStore(drain::RowStore& real) : real_(real) {}
  Result<lake::FlushReport> Flush(row::RowBuffer& rows,
                                  const lake::Provenance& provenance) override {
    ++attempts;
    InFlight flying(in_flight);
    if (failures.load() > 0) {
      --failures;
      std::lock_guard<std::mutex> lock(mu_);
      return failure.ok() ? Status::Redeliver("scripted failure") : failure;
    }
    std::this_thread::sleep_for(delay.load());
    while (hang.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    auto r = real_.Flush(rows, provenance);
    if (r.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      flushed_rows_.push_back(rows.rows());
      ranges_.push_back({provenance.first_sequence, provenance.last_sequence});
    }
    return r;
  }
  Result<table::CommittedPositions> Committed(const lake::Provenance& provenance) override {
    return real_.Committed(provenance);
  }
  void FailWith(Status s) {
    std::lock_guard<std::mutex> lock(mu_);
    failure = std::move(s);
  }
  size_t flushes() {
    std::lock_guard<std::mutex> lock(mu_);
    return flushed_rows_.size();
  }
  std::vector<size_t> flushed_rows() {
    std::lock_guard<std::mutex> lock(mu_);
    return flushed_rows_;
  }
  std::vector<std::pair<uint64_t, uint64_t>> ranges() {
    std::lock_guard<std::mutex> lock(mu_);
    return ranges_;
  }
  std::atomic<int> failures{0};
  std::atomic<int> attempts{0};
  std::atomic<int> in_flight{0};  // Flush calls running now
  std::atomic<std::chrono::milliseconds> delay{std::chrono::milliseconds(0)};
  std::atomic<bool> hang{false};

 private:
  struct InFlight {
    explicit InFlight(std::atomic<int>& n) : n_(n) { ++n_; }
    ~InFlight() { --n_; }
    std::atomic<int>& n_;
  };
  drain::RowStore& real_;
  std::mutex mu_;
  Status failure;  // OK: fail with Redeliver
  std::vector<size_t> flushed_rows_;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};

class ScriptedDeadLetters : public drain::DeadLetters {
 public:
  explicit ScriptedDeadLetters(drain::DeadLetters& real) : real_(real) {}
  Result<bool> Publish(const jetstream::DeadLetterRecord& record) override {
    ++attempts;
    if (fail.load()) return Status::Retry("scripted dead-letter failure");
    return real_.Publish(record);
  }
  Result<jetstream::StreamState> State() override { return real_.State(); }
  std::atomic<bool> fail{false};
  std::atomic<int> attempts{0};

 private:
  drain::DeadLetters& real_;
};

class DrainRig {
 public:
  explicit DrainRig(bool audit = false) : audit_(audit) {
    if (!server.ok()) return;
    connection = Connect(server);
    if (connection) ProvisionAll(*connection);
    auto d = lake::DirDestination::Make((dir / "lake").string());
    destination = std::move(d).value();
    (void)destination->Ensure();
    options.origin = audit ? "audit" : "ledger";
    options.stream = audit ? jetstream::kAuditStream : jetstream::kLedgerStream;
    options.envelope = audit ? contract::Envelope::kEvent : contract::Envelope::kBatch;
    options.batch_interval = std::chrono::milliseconds(300);
    options.ack_wait = std::chrono::seconds(3);
    options.nak_backoff = {std::chrono::milliseconds(100), std::chrono::milliseconds(400), 2};
    lake.key_prefix = audit ? "audit" : "ledger";
    lake.instance = "box-77";
    if (!connection) return;
    publisher = std::make_unique<jetstream::DeadLetterPublisher>(*connection, options.origin);
    real_dead = std::make_unique<drain::StreamDeadLetters>(*publisher);
    dead = std::make_unique<ScriptedDeadLetters>(*real_dead);
    real_store = std::make_unique<drain::LakeRowStore>(*destination, lake);
    store = std::make_unique<ScriptedRowStore>(*real_store);
  }
  ~DrainRig() {
    // A hung flush must end before the drain is destroyed (its Settler waits for it), also when
    // a test stops early.
    if (store) store->hang = false;
    Stop();
    if (::testing::Test::HasFailure()) std::fprintf(stderr, "drain log:\n%s", LogText().c_str());
    if (log_file != nullptr) std::fclose(log_file);
  }

  // Binds (another consumer object on) the durable, with the drain's settings.
  Result<std::unique_ptr<jetstream::PullConsumer>> Bind() {
    jetstream::ConsumerConfig cc;
    cc.stream = options.stream;
    cc.durable = durable;
    cc.filter = audit_ ? jetstream::kAuditFilter : jetstream::kLedgerFilter;
    cc.ack_wait = options.EffectiveAckWait();
    cc.max_ack_pending = options.EffectiveMaxAckPending();
    return jetstream::PullConsumer::Bind(*connection, cc);
  }

  // Binds the durable and runs the drain on a thread.
  ::testing::AssertionResult Start() {
    auto consumer_or = Bind();
    if (!consumer_or.ok()) return ::testing::AssertionFailure() << consumer_or.status().ToString();
    consumer = std::move(consumer_or).value();
    Status reachable = publisher->CheckReachable();
    if (!reachable.ok()) return ::testing::AssertionFailure() << reachable.ToString();
    metrics.consumer_bound = true;
    metrics.destination_reachable = true;
    drain = std::make_unique<drain::Drain>(options, *consumer, *dead, *store, log, &metrics);
    thread = std::thread([this] { run_status = drain->Run(stop); });
    return ::testing::AssertionSuccess();
  }
  void Stop() {
    stop = true;
    if (thread.joinable()) thread.join();
    if (connection) (void)connection->FlushPending(std::chrono::seconds(2));
  }
  jetstream::ConsumerState State() {
    return ConsumerStateOf(*connection, options.stream, durable);
  }
  // True once every published message is acked or terminated.
  bool Drained() {
    auto s = jetstream::GetConsumerState(*connection, options.stream, durable);
    return s.ok() && s->pending == 0 && s->ack_pending == 0;
  }
  std::filesystem::path lake_dir() const { return dir / "lake"; }
  // What the drain logged so far (from Info up; printed when the test fails).
  std::string LogText() const { return ReadFile(dir / "drain.log"); }

  NatsServer server;
  TempDir dir;
  std::unique_ptr<jetstream::Connection> connection;
  std::unique_ptr<lake::DirDestination> destination;
  drain::DrainOptions options;
  lake::LakeWriterOptions lake;
  std::string durable = "sink-test";
  std::FILE* log_file = std::fopen((dir / "drain.log").c_str(), "w");
  Logger log{log_file != nullptr ? log_file : stderr, LogLevel::kInfo};
  metrics::DrainMetrics metrics;
  std::unique_ptr<jetstream::PullConsumer> consumer;
  std::unique_ptr<jetstream::DeadLetterPublisher> publisher;
  std::unique_ptr<drain::StreamDeadLetters> real_dead;
  std::unique_ptr<ScriptedDeadLetters> dead;
  std::unique_ptr<drain::LakeRowStore> real_store;
  std::unique_ptr<ScriptedRowStore> store;
  std::unique_ptr<drain::Drain> drain;
  std::atomic<bool> stop{false};
  std::thread thread;
  Status run_status;

 private:
  bool audit_;
};

}  // namespace sinkd::testing
