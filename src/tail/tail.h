// Tail prints a stream's rows as JSON lines without consuming anything: it reads through an
// ephemeral AckNone consumer (jetstream/ephemeral_reader.h) that is deleted on exit, decodes each
// message with the drain's decoder and prints one object per event (tail/row_json.h). A message
// that does not decode is reported on stderr with its sequence and skipped: it is a drain's dead
// letter, not a tail's problem. Filters are applied client-side after decoding, all must match.
// Threads: one thread at a time; `stop` may be set from a signal handler.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "contract/reject.h"
#include "jetstream/connection.h"
#include "tail/row_json.h"

namespace sinkd::tail {

// --since: a bare integer is a message count back from the end; anything else a Go duration back
// from now. Errors (Refuse) are the command line's own text.
struct Since {
  bool is_count = true;
  int64_t count = 100;
  std::chrono::nanoseconds duration{0};
};
Result<Since> ParseSince(std::string_view text);

// --filter column=value, split at the first '='. Refuse for a missing '=' or key, and for an
// unknown column (listing every real one, in order).
struct Filter {
  int column = -1;
  std::string value;
};
Result<Filter> ParseFilter(std::string_view text);

struct TailOptions {
  std::string stream = "GARM_LEDGER";
  std::string subject_filter = "garm.v1.ledger.>";
  contract::Envelope envelope = contract::Envelope::kBatch;
  Since since;
  bool from_start = false;  // overrides since
  bool follow = false;
  std::vector<Filter> filters;  // a repeated column keeps the last value
  RowJsonOptions json;
};

// Prints rows to `out` and the header and unreadable messages to `err`. Without follow it stops at
// the stream's end as it was at the start; with follow it reads until `stop`.
Status RunTail(jetstream::Connection& connection, const TailOptions& options, std::FILE* out,
               std::FILE* err, const std::atomic<bool>& stop);

}  // namespace sinkd::tail
