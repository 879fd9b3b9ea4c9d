#include "compact/grace.h"

#include <algorithm>
#include <unordered_map>

namespace sinkd::compact {

std::string DirectoryOf(const std::string& key) {
  const size_t slash = key.rfind('/');
  return slash == std::string::npos ? std::string() : key.substr(0, slash);
}

GracePlan PlanDeletions(const GraceInputs& in) {
  std::unordered_map<std::string, const lake::StoredObject*> by_key;
  for (const lake::StoredObject& o : *in.objects) by_key.emplace(o.key, &o);
  GracePlan plan;
  std::map<std::string, int64_t> oldest_cover;  // superseded key → earliest-appeared output
  for (const auto& [output, keys] : *in.supersedes) {
    auto found = by_key.find(output);
    if (found == by_key.end()) continue;
    const std::string dir = DirectoryOf(output);
    for (const table::SupersededObject& input : keys) {
      const std::string& key = input.key;
      // An output covers only its own partition's objects, never itself.
      if (key == output || DirectoryOf(key) != dir || !by_key.count(key)) continue;
      const lake::StoredObject& now = *by_key[key];
      if (input.version.empty() || input.version != now.version || input.size != now.size) {
        plan.changed.insert(key);
        continue;
      }
      plan.superseded.insert(key);
      auto [it, fresh] = oldest_cover.emplace(key, found->second->modified_unix_ms);
      if (!fresh) it->second = std::min(it->second, found->second->modified_unix_ms);
    }
  }
  // An object one output names exactly is superseded, whatever an older output says of its key.
  for (const std::string& key : plan.superseded) plan.changed.erase(key);
  std::vector<const lake::StoredObject*> due;
  for (const auto& [key, appeared] : oldest_cover) {
    if (in.now_unix_ms - appeared >= in.grace_ms) due.push_back(by_key[key]);
  }
  std::sort(due.begin(), due.end(), [](const lake::StoredObject* a, const lake::StoredObject* b) {
    return a->modified_unix_ms != b->modified_unix_ms ? a->modified_unix_ms < b->modified_unix_ms
                                                      : a->key < b->key;
  });
  for (const lake::StoredObject* o : due) plan.due.push_back(o->key);
  return plan;
}

}  // namespace sinkd::compact
