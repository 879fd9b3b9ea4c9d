#include "row/json_text.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "base/utf8.h"

namespace sinkd::row {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// True for the ASCII bytes Go's htmlSafeSet lets through unescaped: 0x20..0x7F except `"`, `\`,
// `<`, `>` and `&`. Bytes from 0x80 need a UTF-8 look and are false here.
constexpr std::array<bool, 256> MakeSafeTable() {
  std::array<bool, 256> safe{};
  for (int b = 0x20; b < 0x80; ++b) safe[b] = true;
  for (char c : {'"', '\\', '<', '>', '&'}) safe[static_cast<uint8_t>(c)] = false;
  return safe;
}
constexpr std::array<bool, 256> kSafe = MakeSafeTable();

// The most bytes one input byte can become: \u00XX and \ufffd are six.
constexpr size_t kMaxExpansion = 6;

char* WriteAsciiEscape(char* w, uint8_t b) {
  *w++ = '\\';
  switch (b) {
    case '"':
      *w++ = '"';
      return w;
    case '\\':
      *w++ = '\\';
      return w;
    case '\b':
      *w++ = 'b';
      return w;
    case '\f':
      *w++ = 'f';
      return w;
    case '\n':
      *w++ = 'n';
      return w;
    case '\r':
      *w++ = 'r';
      return w;
    case '\t':
      *w++ = 't';
      return w;
    default:
      *w++ = 'u';
      *w++ = '0';
      *w++ = '0';
      *w++ = kHex[b >> 4];
      *w++ = kHex[b & 0xF];
      return w;
  }
}

// Writes `text` as a JSON string literal at `w`, which has room for kMaxExpansion * size + 2
// bytes, and returns the end. One pass, byte by byte: the strings here are short, so a plain loop
// beats finding runs and calling memcpy for each.
char* WriteJsonString(char* w, std::string_view text) {
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const uint8_t* const end = p + text.size();
  *w++ = '"';
  while (p < end) {
    const uint8_t b = *p;
    if (kSafe[b]) {
      *w++ = static_cast<char>(b);
      ++p;
      continue;
    }
    if (b < 0x80) {
      w = WriteAsciiEscape(w, b);
      ++p;
      continue;
    }
    const size_t n = Utf8SequenceLength(p, end);
    if (n == 0) {
      std::memcpy(w, "\\ufffd", 6);
      w += 6;
      ++p;
      continue;
    }
    // U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR are E2 80 A8 and E2 80 A9.
    if (n == 3 && b == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
      std::memcpy(w, p[2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
      w += 6;
    } else {
      for (size_t i = 0; i < n; ++i) w[i] = static_cast<char>(p[i]);
      w += n;
    }
    p += n;
  }
  *w++ = '"';
  return w;
}

// Grows `out` by `room` bytes for a writer, then trims it to what was written.
template <typename Write>
void AppendWritten(std::string& out, size_t room, Write write) {
  const size_t old = out.size();
  out.resize(old + room);
  char* const begin = out.data() + old;
  char* const end = write(begin);
  out.resize(old + static_cast<size_t>(end - begin));
}

// Byte-wise (unsigned) order, as std::string_view's operator< and Go's strings.Compare; compared
// here rather than through memcmp because keys are short and usually differ early.
bool KeyLess(const JsonMember& a, const JsonMember& b) {
  const size_t n = std::min(a.key.size(), b.key.size());
  for (size_t i = 0; i < n; ++i) {
    const auto x = static_cast<uint8_t>(a.key[i]);
    const auto y = static_cast<uint8_t>(b.key[i]);
    if (x != y) return x < y;
  }
  return a.key.size() < b.key.size();
}

// Stable, and in place for the handful of tags an event carries: std::stable_sort would take a
// temporary buffer from the heap on every row. Large inputs fall back to it (insertion sort is
// quadratic, and a hostile message can carry thousands of tags).
void StableSortByKey(std::span<JsonMember> members) {
  constexpr size_t kInsertionSortLimit = 24;
  if (members.size() > kInsertionSortLimit) {
    std::stable_sort(members.begin(), members.end(), KeyLess);
    return;
  }
  for (size_t i = 1; i < members.size(); ++i) {
    JsonMember item = members[i];
    size_t j = i;
    for (; j > 0 && KeyLess(item, members[j - 1]); --j) members[j] = members[j - 1];
    members[j] = item;
  }
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  AppendWritten(out, kMaxExpansion * text.size() + 2,
                [&](char* w) { return WriteJsonString(w, text); });
}

void SortJsonMembers(std::span<JsonMember> members) { StableSortByKey(members); }

void AppendJsonObject(std::string& out, std::span<JsonMember> members) {
  StableSortByKey(members);
  AppendSortedJsonObject(out, members);
}

void AppendSortedJsonObject(std::string& out, std::span<const JsonMember> members) {
  size_t room = 2;
  for (const JsonMember& m : members) room += kMaxExpansion * (m.key.size() + m.value.size()) + 6;
  AppendWritten(out, room, [&](char* w) {
    *w++ = '{';
    bool first = true;
    for (size_t i = 0; i < members.size(); ++i) {
      // Equal keys sit together in wire order after the stable sort: keep the last of each run.
      if (i + 1 < members.size() && members[i + 1].key == members[i].key) continue;
      if (!first) *w++ = ',';
      first = false;
      w = WriteJsonString(w, members[i].key);
      *w++ = ':';
      w = WriteJsonString(w, members[i].value);
    }
    *w++ = '}';
    return w;
  });
}

void AppendJsonArray(std::string& out, std::span<const std::string_view> items) {
  size_t room = 2;
  for (std::string_view item : items) room += kMaxExpansion * item.size() + 3;
  AppendWritten(out, room, [&](char* w) {
    *w++ = '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i != 0) *w++ = ',';
      w = WriteJsonString(w, items[i]);
    }
    *w++ = ']';
    return w;
  });
}

}  // namespace sinkd::row
