// JSON text written byte for byte as Go's encoding/json (Go 1.22 and later, HTML escaping on, the
// default of json.Marshal) writes it, so tags_json, the list columns and `tail` lines match the Go
// sink's output exactly and rows of one event stay byte-identical across implementations.
// String escapes: `"` -> \"  `\` -> \\  \n \r \t \b \f; every other byte below 0x20 -> \u00XX with
// lowercase hex; `<` `>` `&` -> \u003c \u003e \u0026; U+2028 and U+2029 -> \u2028 \u2029. DEL
// (0x7F) and every other well-formed UTF-8 sequence pass through unchanged. Each byte that does not
// start a well-formed sequence becomes \ufffd, one per byte, as Go does (the decoder rejects
// invalid UTF-8 before it gets here, so rows never contain one). Output is compact: no spaces, no
// newline. Every function appends to `out` and never clears it. Threads: pure functions, share
// freely.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace sinkd::row {

struct JsonMember {
  std::string_view key;
  std::string_view value;
};

// Appends `text` as a JSON string literal, quotes included.
void AppendJsonString(std::string& out, std::string_view text);

// Appends {"k":"v",...} as Go marshals a map[string]string: keys sorted byte-wise; a key that
// appears more than once keeps the value of its last appearance in `members` (protobuf map
// semantics: the last entry on the wire wins); `{}` when empty.
// Sorts `members` in place (stably); the views must stay valid for the call only.
void AppendJsonObject(std::string& out, std::span<JsonMember> members);

// Sorts `members` stably by key, byte-wise: the order AppendJsonObject writes them in (it sorts
// them itself; this is for callers that compare members before writing).
void SortJsonMembers(std::span<JsonMember> members);
// AppendJsonObject for members already sorted. REQUIRES: SortJsonMembers left them in this order.
void AppendSortedJsonObject(std::string& out, std::span<const JsonMember> members);

// Appends ["a","b",...] in the given order; `[]` when empty (never `null`).
void AppendJsonArray(std::string& out, std::span<const std::string_view> items);

}  // namespace sinkd::row
