// Internal to contract/: the JSON text of one map or list column for the previous row, reused
// when the next row carries the same strings (map entries compared in key order, list items in
// wire order). Consecutive events of a
// stream mostly share their tags (tenant, team, environment), and building tags_json (sorting,
// escaping) is otherwise a third of the decoder's time. Same input, same text: a hit appends
// bytes identical to what AppendJsonObject/AppendJsonArray would have written.
// Ownership: copies what it remembers (the row's views die with their message).
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "row/json_text.h"

namespace sinkd::contract {

class JsonMemo {
 public:
  // Appends the JSON object of `members` to `out`, from memory when the previous call had the
  // same members. Sorts `members` in place (stably, by key).
  void AppendObject(std::string& out, std::span<row::JsonMember> members);
  // Appends the JSON array of `items` to `out`, from memory when the previous call had the same.
  void AppendArray(std::string& out, std::span<const std::string_view> items);

 private:
  bool Same(std::string_view text, size_t index, size_t* offset) const;
  void Hit(std::string& out);
  bool ShouldRemember();
  void Keep(std::string_view text);
  void Remember(const std::string& out, size_t start);

  bool valid_ = false;
  bool remembering_ = false;     // this miss's input was kept, so its text must be too
  uint32_t misses_ = 0;          // misses since the last hit
  std::string inputs_;           // the remembered strings, back to back
  std::vector<uint32_t> sizes_;  // their sizes, in order (key, value, key, value, … for objects)
  std::string json_;             // the text they made
};

}  // namespace sinkd::contract
