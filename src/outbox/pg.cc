#include "outbox/pg.h"

#include <charconv>
#include <cstdlib>

namespace sinkd::outbox {

namespace {

// SQLSTATE classes: 08 connection, 40 transaction rollback (serialization, deadlock), 53
// insufficient resources, 57 operator intervention (shutdown, cancel). A retry may succeed.
Status FromResult(const PGresult* result, PGconn* conn, std::string_view sql) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string code = state ? state : "";
  std::string text = result ? PQresultErrorMessage(result) : PQerrorMessage(conn);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::string head(sql.substr(0, sql.find_first_of("(\n")));
  while (!head.empty() && head.back() == ' ') head.pop_back();
  const std::string message =
      "postgres" + (code.empty() ? "" : " " + code) + ": " + text + " (in \"" + head + "…\")";
  if (PQstatus(conn) != CONNECTION_OK || code.empty() || code.rfind("08", 0) == 0 ||
      code.rfind("40", 0) == 0 || code.rfind("53", 0) == 0 || code.rfind("57", 0) == 0) {
    return Status::Retry(message);
  }
  if (code == "42P01") return Status::NotFound(message);
  if (code.rfind("42", 0) == 0 || code.rfind("28", 0) == 0) return Status::Refuse(message);
  return Status::Internal(message);
}

void IgnoreNotice(void*, const char*) {}

}  // namespace

int64_t PgResult::Int(int row, int col) const {
  const std::string_view s = Text(row, col);
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

int64_t PgResult::Affected() const {
  const char* n = PQcmdTuples(result_.get());
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

Result<PgConn> PgConn::Connect(const std::string& conninfo, const std::string& application_name) {
  // Keepalives come first so the caller's conninfo (expanded from "dbname") can override them:
  // without them a half-open connection would block a sink's loop until the kernel gives up
  // (hours), while its lease lapsed long ago.
  const char* keys[] = {"keepalives", "keepalives_idle", "keepalives_interval",
                        "keepalives_count", "connect_timeout", "dbname",
                        "fallback_application_name", nullptr};
  const char* values[] = {"1", "10", "5", "3", "10", conninfo.c_str(), application_name.c_str(),
                          nullptr};
  PGconn* raw = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  PgConn conn(raw);
  if (raw == nullptr) return Status::Retry("postgres: out of memory creating a connection");
  if (PQstatus(raw) != CONNECTION_OK) {
    std::string text = PQerrorMessage(raw);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return Status::Retry("postgres: cannot connect: " + text);
  }
  PQsetNoticeProcessor(raw, IgnoreNotice, nullptr);
  return conn;
}

Result<PgResult> PgConn::Exec(std::string_view sql, const std::vector<std::string>& params) {
  if (!conn_) return Status::Retry("postgres: no connection");
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const std::string& p : params) values.push_back(p.c_str());
  const std::string text(sql);
  PGresult* raw = PQexecParams(conn_.get(), text.c_str(), static_cast<int>(values.size()),
                               nullptr, values.data(), nullptr, nullptr, /*resultFormat=*/0);
  PgResult result(raw);
  const ExecStatusType st = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    return FromResult(raw, conn_.get(), sql);
  }
  return result;
}

std::string QuoteIdent(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace sinkd::outbox
