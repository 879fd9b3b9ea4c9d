#include "base/log.h"
#include "sinks/event_sink.h"

namespace sinkd::sinks {

namespace {

void Field(std::string& out, std::string_view key, std::string_view value) {
  if (out.size() > 1) out += ',';
  AppendJsonString(out, key);
  out += ':';
  AppendJsonString(out, value);
}

void RawField(std::string& out, std::string_view key, std::string_view json) {
  if (out.size() > 1) out += ',';
  AppendJsonString(out, key);
  out += ':';
  out += json;
}

}  // namespace

std::string EventJson(const Event& e) {
  std::string out = "{";
  Field(out, "id", e.id);
  Field(out, "type", e.type);
  Field(out, "tenantId", e.tenant_id);
  Field(out, "subject", e.subject);
  Field(out, "time", e.time);
  Field(out, "sequence", e.sequence);
  RawField(out, "data", e.data_json.empty() ? "null" : e.data_json);
  out += '}';
  return out;
}

std::string AuditRecordJson(const AuditRecord& r) {
  std::string out = "{";
  Field(out, "id", r.id);
  Field(out, "tenantId", r.tenant_id);
  // Floor division, so an instant before 1970 still lands on the millisecond it belongs to.
  const int64_t ms = r.time_micros >= 0 ? r.time_micros / 1000 : -((-r.time_micros + 999) / 1000);
  RawField(out, "time", std::to_string(ms));
  Field(out, "action", r.action);
  std::string resource = "{";
  Field(resource, "type", r.resource_type);
  Field(resource, "id", r.resource_id);
  resource += '}';
  RawField(out, "resource", resource);
  if (!r.admission_json.empty()) RawField(out, "admission", r.admission_json);
  if (!r.details_json.empty()) RawField(out, "details", r.details_json);
  Field(out, "sequence", r.sequence);
  out += '}';
  return out;
}

}  // namespace sinkd::sinks
