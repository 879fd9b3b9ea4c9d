#include "outbox/read_ahead.h"

#include "outbox/reader.h"

namespace sinkd::outbox {

Result<std::vector<sinks::Event>> ReadAhead::Read(Cursor after, int limit) {
  if (!conn_ || !conn_->healthy()) {
    conn_.reset();
    SINKD_ASSIGN_OR_RETURN(PgConn conn, PgConn::Connect(conninfo_, application_name_));
    conn_.emplace(std::move(conn));
  }
  return ReadEvents(*conn_, after, limit);
}

void ReadAhead::Start(const Cursor& after, int limit) {
  Drop();
  after_ = after;
  limit_ = limit;
  pending_ = std::async(std::launch::async, [this, after, limit] { return Read(after, limit); });
}

std::optional<std::vector<sinks::Event>> ReadAhead::Take(const Cursor& after, int limit) {
  if (!pending_.valid()) return std::nullopt;
  Result<std::vector<sinks::Event>> result = pending_.get();
  if (!result.ok() || after != after_ || limit != limit_) return std::nullopt;
  return std::move(result).value();
}

void ReadAhead::Drop() {
  if (pending_.valid()) (void)pending_.get();
}

}  // namespace sinkd::outbox
