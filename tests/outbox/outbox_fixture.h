// Shared by the outbox and sinks tests: a fresh migrated database on the binary's PostgreSQL, SQL
// helpers that write outbox and audit rows the way an application does, scripted sinks that
// record every call, and a logger whose lines a test can read back.
// Header-only so both test binaries can include it. Threads: the sinks record under a mutex.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/log.h"
#include "outbox/dispatcher.h"
#include "outbox/pg.h"
#include "outbox/schema.h"
#include "sinks/event_sink.h"
#include "support/postgres_server.h"

namespace sinkd::outbox::testing {

// A fresh database per test; Migrate() creates the document's tables.
class OutboxDb {
 public:
  OutboxDb() : conninfo_(sinkd::testing::PostgresServer::Shared().FreshDatabase()) {}

  const std::string& conninfo() const { return conninfo_; }

  PgConn Connect() const {
    auto conn = PgConn::Connect(conninfo_, "sinkd-test");
    EXPECT_TRUE(conn.ok()) << conn.status().ToString();
    return std::move(conn).value();
  }

  void Migrate() {
    PgConn conn = Connect();
    auto report = MigrateSchema(conn);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
  }

  // Runs one statement; fails the test on error.
  PgResult Sql(const std::string& sql, const std::vector<std::string>& params = {}) {
    if (!admin_) admin_ = std::make_unique<PgConn>(Connect());
    auto r = admin_->Exec(sql, params);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
    if (!r.ok()) return PgResult(nullptr);
    return std::move(r).value();
  }
  int64_t Count(const std::string& sql) { return Sql(sql).Int(0, 0); }

  // Commits `n` events in one transaction: ids evt_<first>…, type `type`, time now (UTC).
  void InsertEvents(int n, const std::string& type = "reservation.placed", int first = -1) {
    if (first < 0) first = next_event_;
    next_event_ = first + n;
    Sql("INSERT INTO outbox (topic, payload) SELECT $1::text, jsonb_build_object('id', 'evt_' || g, "
        "'type', $1::text, 'tenantId', 'ten_1', 'subject', 'reservation/rsv_' || g, 'time', "
        "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'data', "
        "jsonb_build_object('n', g)) FROM generate_series($2::int, $3::int) g",
        {type, std::to_string(first), std::to_string(first + n - 1)});
  }

  void InsertAudit(int n) {
    const int first = next_audit_;
    next_audit_ += n;
    Sql("INSERT INTO audit_events (id, tenant_id, time, action, resource_type, resource_id, "
        "admission, details) SELECT 'aud_' || g, 'ten_1', now(), 'reservation.create', "
        "'reservation', 'rsv_' || g, jsonb_build_object('decision', 'allow'), NULL "
        "FROM generate_series($1::int, $2::int) g",
        {std::to_string(first), std::to_string(first + n - 1)});
  }

 private:
  std::string conninfo_;
  std::unique_ptr<PgConn> admin_;
  int next_event_ = 0;
  int next_audit_ = 0;
};

// What a scripted sink saw: every call (the seqs it held) and every event it accepted.
struct Journal {
  std::mutex mu;
  std::vector<std::vector<int64_t>> calls;
  std::vector<sinks::Event> accepted;
  std::vector<sinks::AuditRecord> written;
  std::vector<size_t> write_sizes;

  std::vector<std::vector<int64_t>> Calls() {
    std::lock_guard<std::mutex> lock(mu);
    return calls;
  }
  std::vector<int64_t> AcceptedSeqs() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<int64_t> out;
    for (const auto& e : accepted) out.push_back(e.seq);
    return out;
  }
  size_t AcceptedCount() {
    std::lock_guard<std::mutex> lock(mu);
    return accepted.size();
  }
};

// An EventSink whose answer to each call is decided by `rule` (OK when none).
class ScriptedRowStore final : public sinks::EventSink {
 public:
  using Rule = std::function<Status(std::span<const sinks::Event>)>;
  ScriptedRowStore(std::string id, std::shared_ptr<Journal> journal, Rule rule = nullptr)
      : id_(std::move(id)), journal_(std::move(journal)), rule_(std::move(rule)) {}

  const std::string& id() const override { return id_; }
  Status Deliver(std::span<const sinks::Event> events) override {
    Status s = rule_ ? rule_(events) : Status::OK();
    std::lock_guard<std::mutex> lock(journal_->mu);
    std::vector<int64_t> seqs;
    for (const auto& e : events) seqs.push_back(e.seq);
    journal_->calls.push_back(std::move(seqs));
    if (s.ok()) journal_->accepted.insert(journal_->accepted.end(), events.begin(), events.end());
    return s;
  }

 private:
  std::string id_;
  std::shared_ptr<Journal> journal_;
  Rule rule_;
};

class ScriptedAuditSink final : public sinks::AuditSink {
 public:
  using Rule = std::function<Status(std::span<const sinks::AuditRecord>)>;
  ScriptedAuditSink(std::string id, std::shared_ptr<Journal> journal, Rule rule = nullptr)
      : id_(std::move(id)), journal_(std::move(journal)), rule_(std::move(rule)) {}

  const std::string& id() const override { return id_; }
  Status Write(std::span<const sinks::AuditRecord> records) override {
    Status s = rule_ ? rule_(records) : Status::OK();
    std::lock_guard<std::mutex> lock(journal_->mu);
    journal_->write_sizes.push_back(records.size());
    if (s.ok()) journal_->written.insert(journal_->written.end(), records.begin(), records.end());
    return s;
  }

 private:
  std::string id_;
  std::shared_ptr<Journal> journal_;
  Rule rule_;
};

// A Logger writing to a temporary file the test can read.
class CapturedLog {
 public:
  CapturedLog() : file_(std::tmpfile()), logger_(file_, LogLevel::kDebug) {}
  ~CapturedLog() { std::fclose(file_); }
  Logger& logger() { return logger_; }
  std::string Text() const {
    std::fflush(file_);
    std::string out;
    std::rewind(file_);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) out.append(buf, n);
    std::fseek(file_, 0, SEEK_END);
    return out;
  }
  // Lines whose text contains `needle`.
  std::vector<std::string> Lines(const std::string& needle) const {
    std::vector<std::string> out;
    const std::string text = Text();
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      if (line.find(needle) != std::string::npos) out.push_back(line);
      start = end + 1;
    }
    return out;
  }

 private:
  std::FILE* file_;
  Logger logger_;
};

inline DispatcherOptions TestOptions(const std::string& conninfo, const Clock& clock,
                                     Logger& logger, const std::string& holder = "test-holder") {
  DispatcherOptions o;
  o.conninfo = conninfo;
  o.holder = holder;
  o.clock = &clock;
  o.logger = &logger;
  return o;
}

inline std::vector<EventSinkEntry> One(std::unique_ptr<sinks::EventSink> sink, int batch = 0) {
  std::vector<EventSinkEntry> v;
  v.push_back(EventSinkEntry{std::move(sink), batch});
  return v;
}

}  // namespace sinkd::outbox::testing
