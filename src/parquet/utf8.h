// UTF-8 facts the writer needs beyond validity (base/utf8.h: DuckDB refuses to read a STRING
// column holding invalid UTF-8, so such a value must never reach a file): code point boundaries
// and successors, for truncating string statistics without producing invalid UTF-8.
// Threads: free functions, no state.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/utf8.h"

namespace sinkd::parquet {

// The largest n <= limit such that text[0, n) ends on a code point boundary.
size_t Utf8PrefixLength(std::string_view text, size_t limit);

// The shortest valid UTF-8 string greater than every string that starts with `prefix`: the prefix
// with its last code point replaced by the next one (carrying into earlier code points past
// U+10FFFF). nullopt when no such string exists (every code point is U+10FFFF) or `prefix` is
// not valid UTF-8.
std::optional<std::string> Utf8SuccessorOfPrefix(std::string_view prefix);

}  // namespace sinkd::parquet
