#include "outbox/lease.h"

#include "base/sha256.h"

namespace sinkd::outbox {

namespace {

std::string Interval(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) +
         " milliseconds";
}

}  // namespace

bool IsLeaseSafe(std::string_view id) {
  if (id.empty() || id.size() > 100) return false;
  for (unsigned char c : id) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string LeaseKey(std::string_view id) {
  return IsLeaseSafe(id) ? std::string(id) : "h-" + Sha256Hex(id);
}

std::string EventLeaseName(std::string_view sink_id) {
  return kEventLeasePrefix + LeaseKey(sink_id);
}

std::string AuditLeaseName(std::string_view sink_id) {
  return kAuditLeasePrefix + LeaseKey(sink_id);
}

Result<std::optional<int64_t>> TryAcquireLease(PgConn& conn, const std::string& name,
                                               const std::string& holder, Duration ttl) {
  SINKD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Exec("INSERT INTO sinkd_leases AS l (name, holder, epoch, expires_at, acquired_at) "
                "VALUES ($1, $2, 1, clock_timestamp() + $3::interval, clock_timestamp()) "
                "ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, epoch = l.epoch + 1, "
                "expires_at = EXCLUDED.expires_at, acquired_at = EXCLUDED.acquired_at "
                "WHERE l.expires_at <= clock_timestamp() RETURNING l.epoch",
                {name, holder, Interval(ttl)}));
  if (r.rows() == 0) return std::optional<int64_t>();
  return std::optional<int64_t>(r.Int(0, 0));
}

Result<bool> RenewLease(PgConn& conn, const std::string& name, const std::string& holder,
                        int64_t epoch, Duration ttl) {
  // Renewing an expired lease nobody took is safe: the epoch is unchanged, so nobody else can
  // have delivered in between.
  SINKD_ASSIGN_OR_RETURN(
      PgResult r, conn.Exec("UPDATE sinkd_leases SET expires_at = clock_timestamp() + "
                            "$4::interval WHERE name = $1 AND holder = $2 AND epoch = $3",
                            {name, holder, std::to_string(epoch), Interval(ttl)}));
  return r.Affected() == 1;
}

Status ReleaseLease(PgConn& conn, const std::string& name, const std::string& holder,
                    int64_t epoch) {
  return conn
      .Exec("UPDATE sinkd_leases SET expires_at = clock_timestamp() WHERE name = $1 AND "
            "holder = $2 AND epoch = $3",
            {name, holder, std::to_string(epoch)})
      .status();
}

Result<std::optional<LeaseRow>> ReadLease(PgConn& conn, const std::string& name) {
  SINKD_ASSIGN_OR_RETURN(
      PgResult r, conn.Exec("SELECT holder, epoch, expires_at <= clock_timestamp(), "
                            "expires_at::text FROM sinkd_leases WHERE name = $1",
                            {name}));
  if (r.rows() == 0) return std::optional<LeaseRow>();
  LeaseRow row;
  row.holder = std::string(r.Text(0, 0));
  row.epoch = r.Int(0, 1);
  row.expired = r.Text(0, 2) == "t";
  row.expires_at = std::string(r.Text(0, 3));
  return std::optional<LeaseRow>(std::move(row));
}

LeaseKeeper::LeaseKeeper(std::string holder, LeaseOptions options, const Clock& clock)
    : holder_(std::move(holder)), options_(options), clock_(clock) {}

void LeaseKeeper::Want(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  leases_.try_emplace(name);
}

Status LeaseKeeper::Refresh(PgConn& conn, bool force) {
  // One refresher at a time; the statements run outside mu_ so that a slow server never blocks
  // a sink loop asking HeldEpoch (it just sees its deadline pass).
  std::lock_guard<std::mutex> refresh(refresh_mu_);
  std::map<std::string, State> snapshot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    snapshot = leases_;
  }
  const Duration trust = options_.ttl * 3 / 4;
  Status first_error;
  for (auto& [name, st] : snapshot) {
    if (st.suspended) continue;
    const TimePoint now = clock_.Now();  // before the statement: the deadline stays conservative
    if (st.epoch != 0) {
      if (now - st.last_renew < options_.renew_every && now < st.deadline && !force) continue;
      auto renewed = RenewLease(conn, name, holder_, st.epoch, options_.ttl);
      if (renewed.ok() && *renewed) {
        st.last_renew = now;
        st.deadline = now + trust;
      } else if (renewed.ok()) {
        st.epoch = 0;  // taken over: someone else holds a newer epoch
      } else if (first_error.ok()) {
        first_error = renewed.status();
      }
      continue;
    }
    if (!force && st.tried && now - st.last_attempt < options_.acquire_every) continue;
    st.tried = true;
    st.last_attempt = now;
    auto acquired = TryAcquireLease(conn, name, holder_, options_.ttl);
    if (!acquired.ok()) {
      if (first_error.ok()) first_error = acquired.status();
    } else if (acquired->has_value()) {
      st.epoch = **acquired;
      st.last_renew = now;
      st.deadline = now + trust;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [name, st] : snapshot) {
    const bool suspended = leases_[name].suspended;  // may have changed during the round
    leases_[name] = st;
    leases_[name].suspended = suspended;
  }
  return first_error;
}

int64_t LeaseKeeper::HeldEpoch(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = leases_.find(name);
  if (it == leases_.end() || it->second.epoch == 0 || it->second.suspended) return 0;
  return clock_.Now() < it->second.deadline ? it->second.epoch : 0;
}

void LeaseKeeper::Suspend(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  leases_[name].suspended = true;
}

void LeaseKeeper::Resume(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  leases_[name].suspended = false;
}

void LeaseKeeper::ReleaseAll(PgConn& conn) {
  std::lock_guard<std::mutex> refresh(refresh_mu_);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [name, st] : leases_) {
    if (st.epoch != 0) (void)ReleaseLease(conn, name, holder_, st.epoch);
    st.epoch = 0;
  }
}

}  // namespace sinkd::outbox
