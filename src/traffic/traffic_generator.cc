#include "traffic/traffic_generator.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "contract/delimited.h"
#include "garm/ledger/v1/event.pb.h"
#include "traffic/bad_records.h"
#include "traffic/event_draft.h"
#include "traffic/event_source.h"
#include "traffic/random.h"

namespace sinkd::traffic {
namespace {

// Random streams derived from the one seed: good events never share draws with bad-record
// decisions, so a bad_share of 0 and of 0.1 give the same good events.
constexpr uint64_t kEventStream = 1;
constexpr uint64_t kBadStream = 2;

// Mix of kinds, by where a bad record can occur. In a Batch one bad event costs one row; a whole
// bad message is rarer in practice (one per publisher misconfiguration or torn write).
constexpr std::array<double, kBadKindCount> kEventKindWeights = {40, 30, 30, 0, 0, 0};
constexpr std::array<double, kBadKindCount> kMessageKindWeights = {0, 0, 0, 35, 35, 30};
constexpr std::array<double, kBadKindCount> kAuditKindWeights = {20, 15, 20, 15, 15, 15};

Status Range(const char* name, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return Status::OK();
  return Status::Refuse(std::string("traffic option ") + name + " = " + std::to_string(value) +
                        " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

}  // namespace

Status TrafficOptions::Validate() const {
  if (!(bad_share >= 0.0 && bad_share <= 1.0)) {
    return Status::Refuse("traffic option bad_share = " + std::to_string(bad_share) +
                          " is outside [0, 1]");
  }
  // Times are kept in int64 nanoseconds, which reach to the year 2262.
  constexpr int64_t kMaxMicros = 9'000'000'000'000'000;
  SINKD_RETURN_IF_ERROR(Range("events_per_batch", events_per_batch, 1, 1'000'000));
  SINKD_RETURN_IF_ERROR(Range("start_unix_micros", start_unix_micros, 0, kMaxMicros));
  SINKD_RETURN_IF_ERROR(Range("span_micros", span_micros, 1, kMaxMicros - start_unix_micros));
  SINKD_RETURN_IF_ERROR(Range("expected_events", expected_events, 1, int64_t{1} << 40));
  SINKD_RETURN_IF_ERROR(Range("tenants", tenants, 1, 1'000'000));
  SINKD_RETURN_IF_ERROR(Range("apps", apps, 1, static_cast<int64_t>(kApps.size())));
  SINKD_RETURN_IF_ERROR(Range("features", features, 1, 1'000'000));
  SINKD_RETURN_IF_ERROR(Range("prompts", prompts, 1, 1'000'000));
  SINKD_RETURN_IF_ERROR(Range("budgets", budgets, 0, 1'000'000));
  SINKD_RETURN_IF_ERROR(Range("tools", tools, 1, static_cast<int64_t>(kTools.size())));
  SINKD_RETURN_IF_ERROR(Range("users_per_tenant", users_per_tenant, 1, 1'000'000));
  return Range("active_runs", active_runs, 1, 1'000'000);
}

std::string_view BadKindName(BadKind kind) {
  switch (kind) {
    case BadKind::kMissingEventId:
      return "missing_event_id";
    case BadKind::kMissingTime:
      return "missing_time";
    case BadKind::kInvalidUtf8:
      return "invalid_utf8";
    case BadKind::kGarbage:
      return "garbage";
    case BadKind::kJson:
      return "json";
    case BadKind::kTruncated:
      return "truncated";
  }
  return "unknown";
}

int64_t TrafficStats::bad_records() const {
  int64_t total = 0;
  for (int64_t n : bad) total += n;
  return total;
}

struct TrafficGenerator::State {
  explicit State(const TrafficOptions& o)
      : options(o),
        source(o, Rng(o.seed, kEventStream)),
        bad_rng(o.seed, kBadStream),
        event_kinds(kEventKindWeights),
        message_kinds(kMessageKindWeights),
        audit_kinds(kAuditKindWeights) {}

  // True (drawing from the bad stream) when the next record is to be bad.
  bool NextIsBad() { return options.bad_share > 0 && bad_rng.Chance(options.bad_share); }
  BadKind Kind(const WeightedChoice& choice) { return static_cast<BadKind>(choice.Draw(bad_rng)); }
  void Count(BadKind kind) { ++stats.bad[static_cast<int>(kind)]; }
  // Appends the current draft to `out` as a Batch entry.
  void AppendBatchEntry(std::string& out) {
    scratch.clear();
    EncodeEvent(draft, scratch);
    AppendLengthDelimited(out, 1, scratch);
  }
  void AppendBadLedgerMessage(BadKind kind, std::string& out);
  void AppendBadAuditMessage(BadKind kind, std::string& out);

  TrafficOptions options;
  EventSource source;
  Rng bad_rng;
  WeightedChoice event_kinds, message_kinds, audit_kinds;
  TrafficStats stats;
  EventDraft draft;
  std::string scratch;
};

void TrafficGenerator::State::AppendBadLedgerMessage(BadKind kind, std::string& out) {
  const size_t start = out.size();
  if (kind == BadKind::kGarbage) {
    AppendGarbage(bad_rng, out);
  } else if (kind == BadKind::kJson) {
    // A publisher misconfigured to protojson: half the time a Batch of a few events (a full one
    // would be ~1 MB of text), half the time a lone Event.
    source.DrawLedger(draft);
    if (bad_rng.Chance(0.5)) return AppendJsonEvent(draft, out);
    out.append("{\"events\":[");
    const int64_t events = bad_rng.Between(1, 3);
    for (int64_t i = 0; i < events; ++i) {
      if (i > 0) {
        out.push_back(',');
        source.DrawLedger(draft);
      }
      AppendJsonEvent(draft, out);
    }
    out.append("]}");
  } else {
    // A whole Batch, cut off inside one of its events, as a torn write would leave it.
    for (int i = 0; i < options.events_per_batch; ++i) {
      source.DrawLedger(draft);
      AppendBatchEntry(out);
    }
    out.resize(start + TruncationPoint(std::string_view(out).substr(start), bad_rng));
  }
}

void TrafficGenerator::State::AppendBadAuditMessage(BadKind kind, std::string& out) {
  const size_t start = out.size();
  if (kind == BadKind::kGarbage) return AppendGarbage(bad_rng, out);
  source.DrawAudit(draft);
  if (kind == BadKind::kJson) return AppendJsonEvent(draft, out);
  if (kind == BadKind::kTruncated) {
    EncodeEvent(draft, out);
    out.resize(start + TruncationPoint(std::string_view(out).substr(start), bad_rng));
    return;
  }
  CorruptEvent(kind, bad_rng, draft);
  EncodeEvent(draft, out);
}

TrafficGenerator::TrafficGenerator(const TrafficOptions& options)
    : state_(std::make_unique<State>(options)) {}
TrafficGenerator::~TrafficGenerator() = default;
TrafficGenerator::TrafficGenerator(TrafficGenerator&&) noexcept = default;
TrafficGenerator& TrafficGenerator::operator=(TrafficGenerator&&) noexcept = default;

garm::ledger::v1::Event TrafficGenerator::NextEvent() {
  State& s = *state_;
  s.source.DrawLedger(s.draft);
  ++s.stats.good_events;
  garm::ledger::v1::Event event;
  FillEvent(s.draft, event);
  return event;
}

std::string TrafficGenerator::NextLedgerMessage() {
  std::string out;
  AppendLedgerMessage(out);
  return out;
}

void TrafficGenerator::AppendLedgerMessage(std::string& out) {
  State& s = *state_;
  ++s.stats.ledger_messages;
  if (s.NextIsBad()) {
    const BadKind kind = s.Kind(s.message_kinds);
    s.AppendBadLedgerMessage(kind, out);
    s.Count(kind);
    return;
  }
  for (int i = 0; i < s.options.events_per_batch; ++i) {
    s.source.DrawLedger(s.draft);
    if (s.NextIsBad()) {
      const BadKind kind = s.Kind(s.event_kinds);
      CorruptEvent(kind, s.bad_rng, s.draft);
      s.Count(kind);
    } else {
      ++s.stats.good_events;
    }
    s.AppendBatchEntry(out);
  }
}

std::string TrafficGenerator::NextAuditMessage() {
  std::string out;
  AppendAuditMessage(out);
  return out;
}

void TrafficGenerator::AppendAuditMessage(std::string& out) {
  State& s = *state_;
  ++s.stats.audit_messages;
  if (s.NextIsBad()) {
    const BadKind kind = s.Kind(s.audit_kinds);
    s.AppendBadAuditMessage(kind, out);
    s.Count(kind);
    return;
  }
  s.source.DrawAudit(s.draft);
  ++s.stats.good_events;
  EncodeEvent(s.draft, out);
}

const TrafficStats& TrafficGenerator::stats() const { return state_->stats; }
const TrafficOptions& TrafficGenerator::options() const { return state_->options; }

void AppendDelimitedMessages(TrafficGenerator& generator, StreamKind stream, int64_t messages,
                             std::string& out) {
  std::string message;
  for (int64_t i = 0; i < messages; ++i) {
    message.clear();
    if (stream == StreamKind::kLedger) {
      generator.AppendLedgerMessage(message);
    } else {
      generator.AppendAuditMessage(message);
    }
    contract::AppendDelimited(out, message);
  }
}

Status WriteDelimitedFile(TrafficGenerator& generator, StreamKind stream, int64_t messages,
                          const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return Status::Refuse("cannot create " + path + ": " + std::generic_category().message(errno));
  }
  // Flushed every few MB, so a stream of any length needs only one buffer's memory.
  constexpr size_t kFlushBytes = 8 << 20;
  std::string buffer;
  Status status;
  for (int64_t written = 0; written < messages && status.ok();) {
    buffer.clear();
    while (written < messages && buffer.size() < kFlushBytes) {
      AppendDelimitedMessages(generator, stream, 1, buffer);
      ++written;
    }
    if (std::fwrite(buffer.data(), 1, buffer.size(), file) != buffer.size()) {
      status =
          Status::Retry("write to " + path + " failed: " + std::generic_category().message(errno));
    }
  }
  if (std::fclose(file) != 0 && status.ok()) {
    status =
        Status::Retry("close of " + path + " failed: " + std::generic_category().message(errno));
  }
  return status;
}

}  // namespace sinkd::traffic
