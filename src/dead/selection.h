// Selection is which dead letters a `sinkd dead list` or `replay` takes: given dead-stream
// sequences, and filters that must all hold (origin stream, reason, original subject, the time
// GARM_SINK_DEAD stored it, whether it decodes now). The parsers turn the command line's words
// into a Selection and refuse, quoting the word, what they cannot read.
// Threads: values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "dead/dead_letter.h"

namespace sinkd::dead {

struct Selection {
  std::vector<uint64_t> sequences;  // when not empty, only these dead-stream sequences
  std::string stream;               // origin stream (GARM_LEDGER, GARM_AUDIT); "" = any
  std::string reason;               // Garm-Dead-Reason; "" = any
  std::string subject;              // a NATS subject pattern (*, >) on the original subject
  std::optional<int64_t> since_ns;  // stored at or after
  std::optional<int64_t> until_ns;  // stored before
  bool decodable = false;           // only those the decoder now reads without a reject
  // True when nothing narrows it: every dead letter is selected.
  bool everything() const;
};

// "ledger" or GARM_LEDGER, "audit" or GARM_AUDIT: the origin stream's name.
Result<std::string> ParseOriginStream(std::string_view text);
// One of contract::ReasonName's names.
Result<std::string> ParseReason(std::string_view text);
// An RFC 3339 date-time ("2026-12-03T10:00:00Z") or a duration back from `now_ns` ("2h"), as Unix
// nanoseconds.
Result<int64_t> ParseTimeBound(std::string_view text, int64_t now_ns);
// Refuse for an empty token, or a '>' that is not the last token.
Status CheckSubjectPattern(std::string_view pattern);
// NATS matching: '*' is one token, a final '>' one or more.
bool SubjectMatches(std::string_view pattern, std::string_view subject);

// Every filter but `sequences` (the reader applies those) and `decodable` (which decodes).
bool MatchesHeaders(const Selection& selection, const DeadLetter& letter);
// MatchesHeaders and, when asked, a decode without rejects.
bool Matches(const Selection& selection, const DeadLetter& letter);

}  // namespace sinkd::dead
