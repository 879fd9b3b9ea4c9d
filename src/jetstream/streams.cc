#include "jetstream/streams.h"

#include <cstdio>
#include <ctime>

#include "base/duration.h"

namespace sinkd::jetstream {

namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

std::string GoList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + items[i];
  return out + "]";
}

std::string Bool(bool b) { return b ? "true" : "false"; }

// The server answers -1 for a limit that was sent as 0, so "unlimited" has two spellings; a check
// that fired on every freshly created stream would be one nobody reads.
int64_t Fold(int64_t v) { return v <= 0 ? -1 : v; }

int64_t OrDefault(int64_t v, int64_t fallback) { return v == 0 ? fallback : v; }

// 2026-12-05T07:40:01.123456789Z: the client gives the server's time as nanoseconds; all nine
// digits, so one instant is always one string.
std::string Rfc3339Nanos(int64_t unix_ns) {
  const int64_t seconds = unix_ns >= 0 ? unix_ns / 1'000'000'000
                                       : (unix_ns - 999'999'999) / 1'000'000'000;
  const int64_t nanos = unix_ns - seconds * 1'000'000'000;
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char out[40];
  std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long long>(nanos));
  return out;
}

}  // namespace

std::string DeadSubjectFor(const std::string& origin) {
  return "garm.v1.sink.dead." + (origin.empty() ? std::string("unknown") : origin);
}

std::vector<StreamSpec> StreamSpecs(const StreamSizing& sizing) {
  const int64_t replicas = OrDefault(sizing.replicas, 1);
  StreamSpec ledger;
  ledger.name = kLedgerStream;
  ledger.description = "garm ledger: metering records, drained to the lake";
  ledger.subjects = {kLedgerFilter};
  ledger.discard_new = false;
  ledger.max_bytes = OrDefault(sizing.ledger_max_bytes, 8 * kGiB);
  ledger.max_age = sizing.ledger_max_age.count() == 0 ? std::chrono::hours(7 * 24)
                                                      : sizing.ledger_max_age;
  ledger.replicas = replicas;

  StreamSpec audit;
  audit.name = kAuditStream;
  audit.description = "garm audit: the record itself; refuses writes rather than discarding";
  audit.subjects = {kAuditFilter};
  audit.discard_new = true;
  audit.max_bytes = OrDefault(sizing.audit_max_bytes, 8 * kGiB);
  audit.replicas = replicas;
  audit.deny_delete = audit.deny_purge = true;

  StreamSpec dead;
  dead.name = kDeadStream;
  dead.description = "garm sink dead letters: records that could not be parsed";
  dead.subjects = {kDeadFilter};
  dead.discard_new = true;
  dead.max_bytes = OrDefault(sizing.dead_max_bytes, 1 * kGiB);
  dead.replicas = replicas;
  dead.deny_delete = dead.deny_purge = true;
  return {ledger, audit, dead};
}

std::string DryRunLine(const StreamSpec& spec) {
  return spec.name + ": subjects=" + GoList(spec.subjects) +
         " discard=" + (spec.discard_new ? "DiscardNew" : "DiscardOld") +
         " retention=Limits max_bytes=" + std::to_string(spec.max_bytes) +
         " max_age=" + FormatDuration(spec.max_age) + " replicas=" + std::to_string(spec.replicas) +
         " deny_delete=" + Bool(spec.deny_delete);
}

RunningConfig RunningConfigOf(const jsStreamConfig& c) {
  RunningConfig r;
  for (int i = 0; i < c.SubjectsLen; ++i) r.subjects.emplace_back(c.Subjects[i]);
  r.storage = c.Storage == js_FileStorage ? "File" : "Memory";
  r.retention = c.Retention == js_LimitsPolicy     ? "Limits"
                : c.Retention == js_InterestPolicy ? "Interest"
                                                   : "WorkQueue";
  r.discard = c.Discard == js_DiscardNew ? "DiscardNew" : "DiscardOld";
  r.max_age = std::chrono::nanoseconds(c.MaxAge);
  r.max_bytes = c.MaxBytes;
  r.max_msgs = c.MaxMsgs;
  r.replicas = c.Replicas;
  r.deny_delete = c.DenyDelete;
  r.deny_purge = c.DenyPurge;
  return r;
}

std::vector<std::string> DiffStream(const StreamSpec& want, const RunningConfig& got) {
  std::vector<std::string> diffs;
  auto check = [&diffs](const char* field, const std::string& w, const std::string& g) {
    if (w != g) diffs.push_back(std::string(field) + ": want " + w + ", running " + g);
  };
  check("subjects", GoList(want.subjects), GoList(got.subjects));
  check("storage", "File", got.storage);
  check("retention", "Limits", got.retention);
  check("discard", want.discard_new ? "DiscardNew" : "DiscardOld", got.discard);
  check("max_age", FormatDuration(want.max_age), FormatDuration(got.max_age));
  check("max_bytes", std::to_string(Fold(want.max_bytes)), std::to_string(Fold(got.max_bytes)));
  check("max_msgs", std::to_string(Fold(want.max_msgs)), std::to_string(Fold(got.max_msgs)));
  check("replicas", std::to_string(want.replicas), std::to_string(got.replicas));
  check("deny_delete", Bool(want.deny_delete), Bool(got.deny_delete));
  check("deny_purge", Bool(want.deny_purge), Bool(got.deny_purge));
  return diffs;
}

std::string MismatchText(const std::string& name, const std::vector<std::string>& diffs) {
  std::string text = "stream exists with a different policy: " + name + " differs in " +
                     std::to_string(diffs.size()) + " field(s):\n";
  for (const std::string& d : diffs) text += "  " + d + "\n";
  text += "\nNothing was changed. Decide which is right: if the running stream is wrong, fix it "
          "explicitly (`nats stream edit " + name +
          "`) or recreate it; if this binary is wrong, it needs a change here.";
  return text;
}

Status CreateStream(Connection& connection, const StreamSpec& spec) {
  jsStreamConfig cfg;
  jsStreamConfig_Init(&cfg);
  std::vector<const char*> subjects;
  for (const std::string& s : spec.subjects) subjects.push_back(s.c_str());
  cfg.Name = spec.name.c_str();
  cfg.Description = spec.description.c_str();
  cfg.Subjects = subjects.data();
  cfg.SubjectsLen = static_cast<int>(subjects.size());
  cfg.Storage = js_FileStorage;
  cfg.Retention = js_LimitsPolicy;
  cfg.Discard = spec.discard_new ? js_DiscardNew : js_DiscardOld;
  cfg.MaxBytes = spec.max_bytes;
  cfg.MaxMsgs = spec.max_msgs;
  cfg.MaxAge = spec.max_age.count();
  cfg.Replicas = spec.replicas;
  cfg.DenyDelete = spec.deny_delete;
  cfg.DenyPurge = spec.deny_purge;
  cfg.Duplicates = spec.duplicates.count();
  jsStreamInfo* si = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_AddStream(&si, connection.js(), &cfg, nullptr, &jerr);
  StreamInfoPtr owned(si);
  return FromNats(s, "create stream " + spec.name, jerr);
}

Result<StreamState> GetStreamState(Connection& connection, const std::string& stream) {
  jsStreamInfo* si = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&si, connection.js(), stream.c_str(), nullptr, &jerr);
  StreamInfoPtr owned(si);
  if (s != NATS_OK) return FromNats(s, "stream " + stream, jerr);
  StreamState state;
  state.messages = si->State.Msgs;
  state.bytes = si->State.Bytes;
  state.first_sequence = si->State.FirstSeq;
  state.last_sequence = si->State.LastSeq;
  state.created = Rfc3339Nanos(si->Created);
  state.config = RunningConfigOf(*si->Config);
  return state;
}

Result<ProvisionReport> Provision(Connection& connection, const std::vector<StreamSpec>& specs) {
  ProvisionReport report;
  std::string refusals;
  for (const StreamSpec& spec : specs) {
    auto running = GetStreamState(connection, spec.name);
    if (!running.ok() && running.status().IsNotFound()) {
      SINKD_RETURN_IF_ERROR(CreateStream(connection, spec));
      report.lines.push_back({spec.name, ProvisionOutcome::kCreated});
      continue;
    }
    if (!running.ok()) {
      return Status::Retry("look up stream " + spec.name + ": " + running.status().message());
    }
    const std::vector<std::string> diffs = DiffStream(spec, running->config);
    if (diffs.empty()) {
      report.lines.push_back({spec.name, ProvisionOutcome::kOk});
      continue;
    }
    report.lines.push_back({spec.name, ProvisionOutcome::kRefused});
    if (!refusals.empty()) refusals += '\n';  // piece by piece: gcc 12 warned -Wrestrict on "" + s
    refusals += MismatchText(spec.name, diffs);
  }
  if (!refusals.empty()) report.status = Status::Refuse(refusals);
  return report;
}

}  // namespace sinkd::jetstream
