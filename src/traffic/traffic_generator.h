// TrafficGenerator makes realistic, deterministic garm.ledger.v1 traffic for the demo, the tests
// and the benchmarks: ledger messages (a Batch of events each), audit messages (one Event each),
// with a chosen share of bad records mixed in and counted exactly by kind.
// Invariant: the same options and the same sequence of calls give the same bytes on every machine
// (a portable PRNG and hand-written wire encoding; nothing from <random>, libm or map order).
// Threads: one thread at a time; separate generators are independent.
// Errors: none; options are checked by Validate() before construction. Never touches the clock,
// and touches the file system only in WriteDelimitedFile.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace garm::ledger::v1 {
class Event;
}

namespace sinkd::traffic {

struct TrafficOptions {
  uint64_t seed = 1;
  // Share of records that are bad, 0..1. A record is what becomes one row or one dead letter:
  // each event of a ledger Batch, each whole ledger message (drawn once before its events; a bad
  // one holds no readable event) and each audit message. Good and bad draws use separate random
  // streams, so the good events are the same whatever the share.
  double bad_share = 0.0;
  // Events per ledger Batch. garmd publishes "hundreds" per message; 500 is the README's example
  // and keeps a message (~350 KB) under NATS's default 1 MB max_payload.
  int events_per_batch = 500;

  // Event times cover [start, start + span): 2026-09-29T00:00:00Z and two days, so the lake gets
  // two date= partitions and a batch straddling midnight. The clock advances span/expected_events
  // per event on average (with seconds of jitter, as producers' clocks and batching reorder
  // events), so the span is filled after expected_events events and wraps to start after that.
  // Set expected_events to about the number you will draw.
  int64_t start_unix_micros = 1'790'640'000'000'000;
  int64_t span_micros = 2LL * 86'400'000'000;
  int64_t expected_events = 1'000'000;

  // Cardinalities. Defaults describe a mid-sized multi-tenant plane; each is the number of
  // distinct values available, and skewed draws mean the rare ones appear only in large samples.
  // Tenants are Zipf-Mandelbrot, weight 1/(rank + 2): the top 10 of 200 carry ~41% of runs and
  // the last 100 ~14%, so partitions and dictionaries are as unequal as a real plane's.
  int tenants = 200;
  // At most 25 (the named table, vocabulary.h); fixed weights, agentd ~30%, the top 5 ~70%.
  int apps = 25;
  // Each app draws from a window of ~8, so (app, feature) pairs number ~200.
  int features = 60;
  // "raw" (message-path calls, ~20% of calls) plus named templates, 1-2 versions per feature,
  // each with a stable 64-hex-digit prompt_hash.
  int prompts = 100;
  // Budget b belongs to tenant b % tenants (so 100 tenants have two); ~5% of calls have none.
  int budgets = 300;
  // At most 40 (the named table); Zipf-skewed; on ~25% of ledger calls and every audit record.
  int tools = 40;
  // User principals per tenant, Zipf-skewed (agents and services come from fixed tables).
  int users_per_tenant = 25;
  // Runs in flight at once; their events interleave in the stream as concurrent requests do.
  int active_runs = 64;

  // OK, or Refuse naming the first field out of range.
  Status Validate() const;
};

// The kinds of bad record. The first three are single events inside a ledger Batch (or a whole
// audit message); the last three are whole messages. Names match the test vocabulary, not the
// drain's reject reasons: the drain sees invalid_utf8, garbage, json and truncated as unmarshal.
enum class BadKind : int {
  kMissingEventId = 0,  // event_id empty (field absent)
  kMissingTime,         // time field absent
  kInvalidUtf8,         // a string field holds bytes that are not UTF-8
  kGarbage,             // random bytes; the first is a tag with an invalid wire type (6 or 7)
  kJson,                // protojson-looking text ({"event_id":...}), ASCII without '|'
  kTruncated,           // a real message cut off inside one of its fields
};
inline constexpr int kBadKindCount = 6;
std::string_view BadKindName(BadKind kind);

struct TrafficStats {
  int64_t good_events = 0;  // events returned or written that a drain must turn into rows
  std::array<int64_t, kBadKindCount> bad = {};  // bad records written, by kind
  int64_t ledger_messages = 0;
  int64_t audit_messages = 0;

  int64_t bad_of(BadKind kind) const { return bad[static_cast<int>(kind)]; }
  int64_t bad_records() const;
  int64_t records() const { return good_events + bad_records(); }
};

class TrafficGenerator {
 public:
  // REQUIRES: options.Validate().ok().
  explicit TrafficGenerator(const TrafficOptions& options);
  ~TrafficGenerator();
  TrafficGenerator(TrafficGenerator&&) noexcept;
  TrafficGenerator& operator=(TrafficGenerator&&) noexcept;

  // A good, complete ledger-flavoured event (an LLM call). Counted in stats().good_events.
  garm::ledger::v1::Event NextEvent();

  // A serialized garm.ledger.v1.Batch of events_per_batch events, some of them bad, or (at
  // bad_share) one whole bad message. With bad_share 0 its events are exactly the next
  // events_per_batch NextEvent() results.
  std::string NextLedgerMessage();
  // Appends the same to `out`, reusing its capacity: the allocation-free form for benchmarks.
  void AppendLedgerMessage(std::string& out);

  // One serialized garm.ledger.v1.Event of audit flavour (tool steps: a write-ahead "intent",
  // then its ok/error/interrupted result; or a direct "denied"), or at bad_share a bad message
  // of any kind.
  std::string NextAuditMessage();
  void AppendAuditMessage(std::string& out);

  const TrafficStats& stats() const;
  const TrafficOptions& options() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

enum class StreamKind { kLedger, kAudit };

// Appends `messages` messages of `stream` from `generator` to `out`, each prefixed by its varint
// length (contract::AppendDelimited): the input of `sinkd import`.
void AppendDelimitedMessages(TrafficGenerator& generator, StreamKind stream, int64_t messages,
                             std::string& out);

// Writes the same to the file at `path`, replacing it, without holding the whole stream in
// memory. Refuse when the file cannot be created, Retry when a write fails (the file is then
// incomplete and should be removed by the caller).
Status WriteDelimitedFile(TrafficGenerator& generator, StreamKind stream, int64_t messages,
                          const std::string& path);

}  // namespace sinkd::traffic
