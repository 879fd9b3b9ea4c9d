// A Cursor is a position in the outbox (or in audit_events): the pair (txid, seq) of one row.
// Positions are compared as a pair, txid first as an unsigned 64-bit number (xid8), then seq as a
// signed 64-bit number, never as text: "9:1" sorts before "10:1" here although not as strings.
// The text form is "<txid>:<seq>" (the `sequence` of a ComputeEvent); "<txid>.<seq>", the form of
// the events package's readers and webhook bodies, names the same position and is accepted on
// input. The origin (0, 0) is before every row: a sink without a stored cursor starts there.
// Threads: a value type, share freely. Pure functions.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd::outbox {

struct Cursor {
  uint64_t txid = 0;  // xid8: epoch << 32 | xid, always below 2^63 in practice but parsed as u64
  int64_t seq = 0;    // bigserial, >= 0 for every stored position

  friend constexpr auto operator<=>(const Cursor&, const Cursor&) = default;
  bool IsOrigin() const { return txid == 0 && seq == 0; }
};

// Parses "<txid>:<seq>" or "<txid>.<seq>": two runs of decimal digits, txid <= 2^64-1,
// seq <= 2^63-1, no sign, no blank, no exponent, nothing else. Errors are Refuse and quote the text.
Result<Cursor> ParseCursor(std::string_view text);

// "<txid>:<seq>".
std::string FormatCursor(const Cursor& cursor);

// Parses one decimal xid8 as PostgreSQL prints it ("0" … "18446744073709551615").
Result<uint64_t> ParseXid8(std::string_view text);

}  // namespace sinkd::outbox
