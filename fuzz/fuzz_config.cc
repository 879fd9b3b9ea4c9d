// Fuzz target for the dispatcher's TOML configuration reader (config::ParseConfig): any text is
// either a Config whose sink ids are non-empty and unique per kind, or a Refuse whose message
// starts with INVALID_CONFIG (the one error contract of config.h) — never a crash, an exception
// escaping or another error kind.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "config/config.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_config: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

void ExpectUniqueIds(const std::vector<sinkd::config::SinkConfig>& sinks) {
  std::set<std::string> ids;
  for (const auto& s : sinks) {
    if (s.id.empty()) Fail("a sink with an empty id was accepted", s.Where());
    if (!ids.insert(s.id).second) Fail("a duplicate sink id was accepted", s.id);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = sinkd::config::ParseConfig(text, "fuzz.toml");
  if (!config.ok()) {
    const auto& status = config.status();
    if (!status.IsRefuse()) Fail("not a Refuse", status.ToString());
    if (status.message().rfind("INVALID_CONFIG", 0) != 0) Fail("no INVALID_CONFIG", status.message());
    return 0;
  }
  ExpectUniqueIds(config->event_sinks);
  ExpectUniqueIds(config->audit_sinks);
  if (config->dispatch.batch_size <= 0) Fail("a batch_size below 1 was accepted", "");
  return 0;
}
