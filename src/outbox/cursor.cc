#include "outbox/cursor.h"

#include <charconv>
#include <limits>

namespace sinkd::outbox {

namespace {

// from_chars accepts a leading '-' for signed types and nothing else odd, so digits are checked
// first: a sign, a blank or "1e3" must be refused, not half-read.
bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

template <typename T>
bool ParseNumber(std::string_view s, T& out) {
  if (!AllDigits(s)) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

Status Bad(std::string_view text, std::string_view why) {
  return Status::Refuse("position \"" + std::string(text) + "\": " + std::string(why) +
                        " (want <txid>:<seq>, two unsigned decimal numbers)");
}

}  // namespace

Result<uint64_t> ParseXid8(std::string_view text) {
  uint64_t value = 0;
  if (!ParseNumber(text, value)) {
    return Status::Refuse("xid8 \"" + std::string(text) + "\" is not an unsigned 64-bit number");
  }
  return value;
}

Result<Cursor> ParseCursor(std::string_view text) {
  const size_t sep = text.find_first_of(":.");
  if (sep == std::string_view::npos) return Bad(text, "no ':' between txid and seq");
  const std::string_view txid = text.substr(0, sep);
  const std::string_view seq = text.substr(sep + 1);
  Cursor cursor;
  if (!ParseNumber(txid, cursor.txid)) return Bad(text, "txid is not an unsigned 64-bit number");
  if (!ParseNumber(seq, cursor.seq)) return Bad(text, "seq is not a number below 2^63");
  return cursor;
}

std::string FormatCursor(const Cursor& cursor) {
  return std::to_string(cursor.txid) + ":" + std::to_string(cursor.seq);
}

}  // namespace sinkd::outbox
