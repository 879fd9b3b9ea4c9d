// Leases make one process at a time the deliverer of a sink. A lease is a row of sinkd_leases
// (name, holder, epoch, expires_at): taking it when it is free or expired bumps the epoch; its
// holder renews it every renew_every (2 s) to now() + ttl (10 s); a clean stop expires it at once.
// So a killed holder is replaced within ttl + acquire_every (11 s < 15 s), and so is a stalled
// process (stopped, or its lease connection hung): nothing renews for it.
// Renewals come from the dispatcher's lease thread, not from the sink's loop, so a holder stuck
// in a delivery (a Deliver/Write that never returns) would keep renewing. Instead, once the
// delivery has run for deliver_timeout, the dispatcher suspends that lease (LeaseKeeper::Suspend):
// this process neither renews it nor takes it back while the call hangs, so another process
// takes it about deliver_timeout + ttl + acquire_every after the delivery began (dispatcher.h).
// Why a table and not session advisory locks: an advisory lock lives as long as a TCP session,
// so a hung client or a half-open connection keeps it until keepalives give up (minutes to
// hours); it does not survive a transaction-mode pooler; and it carries no epoch. The epoch is
// what lets a new holder know it must reload the cursor, and what fences the progress rows a
// stale holder might still write. Expiry is decided by the server's clock only (clock_timestamp()
// in every statement), so client clocks never disagree about it; locally a holder trusts its lease
// only until 3/4 ttl after it sent its last successful renewal, on its own monotonic clock.
// Cursor saves are forward-only and fenced by the epoch too (sink_store.h), so a holder that lost
// its lease without noticing moves no cursor at all once another process took the lease.
// Names: singleton:outbox-dispatch:<key> for event sinks, singleton:audit-sinks:<key> for audit
// sinks, where <key> is the sink id when it is 1–100 of [A-Za-z0-9._@-], else "h-" + the lowercase
// hex SHA-256 of its UTF-8 bytes (66 characters, itself lease-safe).
// Threads: LeaseKeeper is safe for concurrent use because its table sits behind a mutex; the
// free functions use one PgConn, one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "outbox/clock.h"
#include "outbox/pg.h"

namespace sinkd::outbox {

inline constexpr char kEventLeasePrefix[] = "singleton:outbox-dispatch:";
inline constexpr char kAuditLeasePrefix[] = "singleton:audit-sinks:";

// 1 to 100 ASCII letters, digits, '.', '_', '@' or '-'.
bool IsLeaseSafe(std::string_view id);
// The id itself when lease-safe, else "h-" + sha256 hex of the id.
std::string LeaseKey(std::string_view id);
std::string EventLeaseName(std::string_view sink_id);
std::string AuditLeaseName(std::string_view sink_id);

struct LeaseOptions {
  Duration ttl = std::chrono::seconds(10);           // server-side lifetime of one renewal
  Duration renew_every = std::chrono::seconds(2);    // how often a holder renews
  Duration acquire_every = std::chrono::seconds(1);  // how often a non-holder tries to take it
};

// Who holds a lease, as the table says.
struct LeaseRow {
  std::string holder;
  int64_t epoch = 0;
  bool expired = true;
  std::string expires_at;  // server time, text
};

// Takes `name` for `holder` if it is free or expired: the new epoch, or nullopt when someone else
// holds it.
Result<std::optional<int64_t>> TryAcquireLease(PgConn& conn, const std::string& name,
                                               const std::string& holder, Duration ttl);
// Extends the lease if `holder` still holds it under `epoch`; false when it was taken over.
Result<bool> RenewLease(PgConn& conn, const std::string& name, const std::string& holder,
                        int64_t epoch, Duration ttl);
// Expires the lease now if still held under `epoch`, so the next holder need not wait the ttl.
Status ReleaseLease(PgConn& conn, const std::string& name, const std::string& holder,
                    int64_t epoch);
Result<std::optional<LeaseRow>> ReadLease(PgConn& conn, const std::string& name);

// The leases one process wants, and which of them it holds right now.
class LeaseKeeper {
 public:
  LeaseKeeper(std::string holder, LeaseOptions options, const Clock& clock);

  void Want(const std::string& name);
  // One round: renew each held lease that is due (or whose local deadline passed), try to take
  // each one not held (at most every acquire_every, or always when `force`). A failed statement
  // is returned after the round; leases it could not renew are no longer held once their local
  // deadline passes.
  Status Refresh(PgConn& conn, bool force = false);
  // The epoch under which `name` is held now, or 0 when it is not held (or suspended).
  int64_t HeldEpoch(const std::string& name) const;
  // Stops renewing `name` and taking it: its holder is stuck (deliver_timeout), so the lease
  // runs out on the server within ttl and another process takes it. Resume() ends that; the
  // lease is then renewed if nobody took it meanwhile (same epoch: nobody else delivered),
  // else taken again like any free lease.
  void Suspend(const std::string& name);
  void Resume(const std::string& name);
  // Releases every held lease (clean shutdown).
  void ReleaseAll(PgConn& conn);

  const std::string& holder() const { return holder_; }
  const LeaseOptions& options() const { return options_; }

 private:
  struct State {
    int64_t epoch = 0;           // 0: not held
    TimePoint deadline{};        // trusted until then
    TimePoint last_renew{};      // when the last renewal was sent
    TimePoint last_attempt{};    // when an acquisition was last tried
    bool tried = false;
    bool suspended = false;
  };

  const std::string holder_;
  const LeaseOptions options_;
  const Clock& clock_;
  std::mutex refresh_mu_;  // one Refresh/ReleaseAll at a time; taken before mu_
  mutable std::mutex mu_;
  std::map<std::string, State> leases_;  // guarded by mu_
};

}  // namespace sinkd::outbox
