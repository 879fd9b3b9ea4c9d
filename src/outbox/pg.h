// RAII handles for libpq: PgConn owns one PGconn, PgResult one PGresult. Every statement goes
// through PgConn::Exec with text parameters and text results, so no libpq call is left unchecked
// and no handle can leak on an early return.
// Errors: a lost connection, a serialization failure or a server shutting down is Retry (the next
// pass reconnects and tries again); a missing table is NotFound; a permission or SQL error is
// Refuse; anything else Internal. Messages carry the SQLSTATE and the server's text.
// Threads: one thread at a time per PgConn; separate PgConns are independent.
// Never logs or returns the connection string (it may hold a password).
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sinkd::outbox {

class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result) {}

  int rows() const { return PQntuples(result_.get()); }
  bool IsNull(int row, int col) const { return PQgetisnull(result_.get(), row, col) != 0; }
  // The text of a value ("" for NULL); valid while this PgResult lives.
  std::string_view Text(int row, int col) const {
    return std::string_view(PQgetvalue(result_.get(), row, col),
                            static_cast<size_t>(PQgetlength(result_.get(), row, col)));
  }
  // A bigint/integer column; 0 for NULL or text that is not a number.
  int64_t Int(int row, int col) const;
  // Rows affected by an INSERT/UPDATE/DELETE.
  int64_t Affected() const;

 private:
  struct Clear {
    void operator()(PGresult* r) const { PQclear(r); }
  };
  std::unique_ptr<PGresult, Clear> result_;
};

class PgConn {
 public:
  // Connects with `conninfo` (a postgresql:// URI or key=value pairs). Failure is Retry with the
  // server's or libpq's message, which never contains the password.
  static Result<PgConn> Connect(const std::string& conninfo, const std::string& application_name);

  // Runs one statement with text parameters ($1, $2, …) in autocommit mode unless a transaction
  // was begun with Exec("BEGIN"). A statement that returns no rows gives an empty PgResult.
  Result<PgResult> Exec(std::string_view sql, const std::vector<std::string>& params = {});

  // True while the connection is usable; false after the server went away.
  bool healthy() const { return conn_ && PQstatus(conn_.get()) == CONNECTION_OK; }
  // The server's process id for this session (for pg_stat_activity checks in tests).
  int backend_pid() const { return PQbackendPID(conn_.get()); }

 private:
  struct Finish {
    void operator()(PGconn* c) const { PQfinish(c); }
  };
  explicit PgConn(PGconn* conn) : conn_(conn) {}
  std::unique_ptr<PGconn, Finish> conn_;
};

// Quotes an identifier for SQL text ("a""b"); for names that cannot be parameters.
std::string QuoteIdent(std::string_view name);

}  // namespace sinkd::outbox
