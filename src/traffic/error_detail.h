// Free-text error_detail for failed, denied and interrupted calls. Internal to src/traffic.
// error_detail is the one column that may carry unsanitised text, so the templates are the kind
// of thing that breaks naive writers: HTML bodies with '<' and '&', quotes of both kinds, JSON
// fragments, newlines and tabs, non-Latin scripts and emoji, and (as real resolver errors do) the
// value a policy was protecting. Every template is valid UTF-8; invalid bytes are a bad record,
// made elsewhere. Pure functions; safe for concurrent use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "traffic/random.h"

namespace sinkd::traffic {

// What a template may interpolate. Views must stay valid for the call.
struct DetailContext {
  std::string_view model;
  std::string_view provider;
  std::string_view tool;
  std::string_view tenant;
  std::string_view budget;
  std::string_view clearance;
  std::string_view compartment;
  std::string_view policy;
  std::string_view violation;
  int64_t ms = 0;
  int64_t tokens = 0;
};

// Replaces `out` with a detail for `error_kind` (one of the kinds in vocabulary.h), drawing the
// template and any free numbers from `rng`. An unknown kind gets a generic detail.
void WriteErrorDetail(std::string_view error_kind, const DetailContext& context, Rng& rng,
                      std::string& out);

}  // namespace sinkd::traffic
