#include "dead/selection.h"

#include "base/duration.h"
#include "jetstream/streams.h"
#include "sinks/rfc3339.h"

namespace sinkd::dead {

bool Selection::everything() const {
  return sequences.empty() && stream.empty() && reason.empty() && subject.empty() && !since_ns &&
         !until_ns && !decodable;
}

Result<std::string> ParseOriginStream(std::string_view text) {
  if (text == "ledger" || text == jetstream::kLedgerStream) {
    return std::string(jetstream::kLedgerStream);
  }
  if (text == "audit" || text == jetstream::kAuditStream) {
    return std::string(jetstream::kAuditStream);
  }
  return Status::Refuse("--stream \"" + std::string(text) + "\": want ledger, audit, " +
                        jetstream::kLedgerStream + " or " + jetstream::kAuditStream);
}

Result<std::string> ParseReason(std::string_view text) {
  std::string names;
  for (auto reason :
       {contract::RejectReason::kUnmarshal, contract::RejectReason::kMissingEventId,
        contract::RejectReason::kMissingTime, contract::RejectReason::kTooManyPartitions}) {
    const std::string_view name = contract::ReasonName(reason);
    if (text == name) return std::string(name);
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  return Status::Refuse("--reason \"" + std::string(text) + "\": want one of " + names);
}

Result<int64_t> ParseTimeBound(std::string_view text, int64_t now_ns) {
  if (std::optional<int64_t> micros = sinks::ParseRfc3339Micros(text)) return *micros * 1000;
  auto ago = ParseDuration(text);
  if (!ago.ok()) {
    // Appended rather than `"\"" + std::string(text)`, which gcc 12 -O3 misreads (-Wrestrict).
    std::string message(1, '"');
    message.append(text);
    message += "\": neither an RFC 3339 time (2026-12-03T10:00:00Z) nor a duration back from now "
               "(2h)";
    return Status::Refuse(message);
  }
  return now_ns - ago->count();
}

Status CheckSubjectPattern(std::string_view pattern) {
  size_t start = 0;
  while (true) {
    const size_t dot = pattern.find('.', start);
    const std::string_view token = pattern.substr(start, dot - start);
    if (token.empty()) {
      return Status::Refuse("--subject \"" + std::string(pattern) + "\": an empty token");
    }
    if (token == ">" && dot != std::string_view::npos) {
      return Status::Refuse("--subject \"" + std::string(pattern) +
                            "\": '>' may only be the last token");
    }
    if (dot == std::string_view::npos) return Status::OK();
    start = dot + 1;
  }
}

bool SubjectMatches(std::string_view pattern, std::string_view subject) {
  while (true) {
    const size_t pdot = pattern.find('.');
    const size_t sdot = subject.find('.');
    const std::string_view ptoken = pattern.substr(0, pdot);
    const std::string_view stoken = subject.substr(0, sdot);
    if (ptoken == ">") return !subject.empty();
    if (subject.empty() || (ptoken != "*" && ptoken != stoken)) return false;
    if (pdot == std::string_view::npos || sdot == std::string_view::npos) {
      return pdot == std::string_view::npos && sdot == std::string_view::npos;
    }
    pattern.remove_prefix(pdot + 1);
    subject.remove_prefix(sdot + 1);
  }
}

bool MatchesHeaders(const Selection& selection, const DeadLetter& letter) {
  if (!selection.stream.empty() && letter.stream != selection.stream) return false;
  if (!selection.reason.empty() && letter.reason != selection.reason) return false;
  if (!selection.subject.empty() && !SubjectMatches(selection.subject, letter.subject)) {
    return false;
  }
  if (selection.since_ns && letter.time_ns < *selection.since_ns) return false;
  if (selection.until_ns && letter.time_ns >= *selection.until_ns) return false;
  return true;
}

bool Matches(const Selection& selection, const DeadLetter& letter) {
  if (!MatchesHeaders(selection, letter)) return false;
  if (!selection.decodable) return true;
  auto attempt = Decode(letter);
  return attempt.ok() && attempt->decodable();
}

}  // namespace sinkd::dead
