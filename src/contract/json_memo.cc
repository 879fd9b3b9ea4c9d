#include "contract/json_memo.h"

namespace sinkd::contract {

bool JsonMemo::Same(std::string_view text, size_t index, size_t* offset) const {
  if (sizes_[index] != text.size()) return false;
  const char* kept = inputs_.data() + *offset;
  // Tags are short: a byte loop beats a call to memcmp for each of them.
  for (size_t i = 0; i < text.size(); ++i) {
    if (kept[i] != text[i]) return false;
  }
  *offset += text.size();
  return true;
}

void JsonMemo::Hit(std::string& out) {
  out.append(json_);
  misses_ = 0;
}

// After a few misses in a row the column is probably distinct per event: remembering every row
// would then only add copying, so only every 16th miss is remembered until the next hit.
bool JsonMemo::ShouldRemember() {
  remembering_ = misses_ < 4 || misses_ % 16 == 0;
  ++misses_;
  return remembering_;
}

void JsonMemo::Remember(const std::string& out, size_t start) {
  if (!remembering_) return;
  json_.assign(out, start);
  valid_ = true;
}

void JsonMemo::Keep(std::string_view text) {
  inputs_.append(text);
  sizes_.push_back(static_cast<uint32_t>(text.size()));
}

void JsonMemo::AppendObject(std::string& out, std::span<row::JsonMember> members) {
  // Compared in key order: publishers write map entries in no particular order (Go's
  // proto.Marshal randomises it), so the same tags arrive shuffled from one event to the next.
  row::SortJsonMembers(members);
  bool same = valid_ && sizes_.size() == 2 * members.size();
  size_t offset = 0;
  for (size_t i = 0; same && i < members.size(); ++i) {
    same = Same(members[i].key, 2 * i, &offset) && Same(members[i].value, 2 * i + 1, &offset);
  }
  if (same) {
    Hit(out);
    return;
  }
  if (ShouldRemember()) {
    inputs_.clear();
    sizes_.clear();
    for (const row::JsonMember& m : members) {
      Keep(m.key);
      Keep(m.value);
    }
  }
  const size_t start = out.size();
  row::AppendSortedJsonObject(out, members);
  Remember(out, start);
}

void JsonMemo::AppendArray(std::string& out, std::span<const std::string_view> items) {
  bool same = valid_ && sizes_.size() == items.size();
  size_t offset = 0;
  for (size_t i = 0; same && i < items.size(); ++i) same = Same(items[i], i, &offset);
  if (same) {
    Hit(out);
    return;
  }
  if (ShouldRemember()) {
    inputs_.clear();
    sizes_.clear();
    for (std::string_view item : items) Keep(item);
  }
  const size_t start = out.size();
  row::AppendJsonArray(out, items);
  Remember(out, start);
}

}  // namespace sinkd::contract
