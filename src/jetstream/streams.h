// The three streams sinkd depends on, as code: GARM_LEDGER (metering; DiscardOld, so a publisher
// never blocks), GARM_AUDIT (the record itself; DiscardNew with delete and purge denied, so a full
// stream refuses writes rather than discarding an older record) and GARM_SINK_DEAD (dead letters;
// the same refusal). Provision creates what is missing and never patches what exists: a running
// stream with another policy is reported field by field and left exactly as it is, because a
// deploy that silently flipped an audit stream back would erase both the change and the evidence.
// Threads: the specs are values; Provision is one thread at a time per Connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "jetstream/connection.h"

namespace sinkd::jetstream {

inline constexpr char kLedgerStream[] = "GARM_LEDGER";
inline constexpr char kAuditStream[] = "GARM_AUDIT";
inline constexpr char kDeadStream[] = "GARM_SINK_DEAD";
inline constexpr char kLedgerFilter[] = "garm.v1.ledger.>";
inline constexpr char kAuditFilter[] = "garm.v1.audit.>";
inline constexpr char kDeadFilter[] = "garm.v1.sink.dead.>";
// garm.v1.sink.dead.<origin>: ledger or audit, "unknown" when empty.
std::string DeadSubjectFor(const std::string& origin);

// The policy of one stream. Frozen: these values are the contract with garmd's publishers.
struct StreamSpec {
  std::string name;
  std::string description;
  std::vector<std::string> subjects;
  bool discard_new = false;        // DiscardNew (refuse) vs DiscardOld (drop the oldest)
  int64_t max_bytes = 0;
  int64_t max_msgs = -1;           // unlimited
  std::chrono::nanoseconds max_age{0};  // 0 = never ages out
  int64_t replicas = 1;
  bool deny_delete = false;
  bool deny_purge = false;
  std::chrono::nanoseconds duplicates = std::chrono::minutes(2);
};

// Operator-tunable sizes; 0 means the default, a negative value passes through as given.
// Policy (discard, retention, deny flags) is deliberately not a flag.
struct StreamSizing {
  int64_t ledger_max_bytes = 0;                // 0 = 8 GiB
  int64_t audit_max_bytes = 0;                 // 0 = 8 GiB
  int64_t dead_max_bytes = 0;                  // 0 = 1 GiB
  std::chrono::nanoseconds ledger_max_age{0};  // 0 = 7 days
  int64_t replicas = 0;                        // 0 = 1, for all three
};

// Ledger, audit, dead: in that order, which is the order provision handles them.
std::vector<StreamSpec> StreamSpecs(const StreamSizing& sizing);

// "<NAME>: subjects=[a] discard=DiscardOld retention=Limits max_bytes=<n> max_age=<Go duration>
// replicas=<n> deny_delete=<bool>" — one line of `provision --dry-run`.
std::string DryRunLine(const StreamSpec& spec);

// What a running stream is configured as, in the fields provision compares.
struct RunningConfig {
  std::vector<std::string> subjects;
  std::string storage;    // "File" | "Memory"
  std::string retention;  // "Limits" | "Interest" | "WorkQueue"
  std::string discard;    // "DiscardOld" | "DiscardNew"
  std::chrono::nanoseconds max_age{0};
  int64_t max_bytes = -1;
  int64_t max_msgs = -1;
  int64_t replicas = 1;
  bool deny_delete = false;
  bool deny_purge = false;
};
RunningConfig RunningConfigOf(const jsStreamConfig& config);

// "<field>: want <w>, running <g>" for each of subjects, storage, retention, discard, max_age,
// max_bytes, max_msgs, replicas, deny_delete, deny_purge that differ, in that order. max_bytes and
// max_msgs fold any value <= 0 to -1 (the server reports -1 for the 0 it was sent); max_age is raw.
std::vector<std::string> DiffStream(const StreamSpec& want, const RunningConfig& running);

// The refusal text for a stream whose policy differs (names the stream, every field and the two
// ways out; says nothing was changed).
std::string MismatchText(const std::string& name, const std::vector<std::string>& diffs);

enum class ProvisionOutcome { kCreated, kOk, kRefused };

struct ProvisionLine {
  std::string name;
  ProvisionOutcome outcome;
};

struct ProvisionReport {
  std::vector<ProvisionLine> lines;  // one per stream handled, in order
  Status status;                     // Refuse with every mismatch text, newline-joined; or OK
};

// Creates each missing stream, checks each existing one, carries on past a refusal so every
// stream is reported; any other error (lookup, create) stops at once and is returned.
Result<ProvisionReport> Provision(Connection& connection, const std::vector<StreamSpec>& specs);

// Creates the stream of `spec` (tests and provision); Retry/Refuse naming it on failure.
Status CreateStream(Connection& connection, const StreamSpec& spec);

// Facts about one stream, read from the server.
struct StreamState {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t first_sequence = 0;
  uint64_t last_sequence = 0;
  // When the stream was made, UTC, RFC 3339 with nine fractional digits: with its name, the
  // stream's identity (one deleted and made again under its name numbers from 1 again).
  std::string created;
  RunningConfig config;
};
// NotFound when the stream does not exist.
Result<StreamState> GetStreamState(Connection& connection, const std::string& stream);

}  // namespace sinkd::jetstream
