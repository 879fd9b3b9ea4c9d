// The grace deleter's rule: which objects are superseded, and which of them may go now.
// An object is superseded when an output of the same partition that exists names it in
// sinkd.supersedes; it is due for deletion once such an output appeared at least grace_ms ago
// (a reader that listed the object before the output existed has had grace_ms to open it).
// Due objects are deleted oldest first: an output is always younger than what it supersedes, so
// a crash between two deletes never leaves an object whose only superseding output is gone
// (that object would merge again: duplicates, never a loss, but work done twice).
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lake/destination.h"

namespace sinkd::compact {

struct GraceInputs {
  // Every object of the table the listing found (key order).
  const std::vector<lake::StoredObject>* objects = nullptr;
  // For each readable output among them: the keys its footer supersedes.
  const std::map<std::string, std::vector<std::string>>* supersedes = nullptr;
  int64_t now_unix_ms = 0;
  int64_t grace_ms = 0;
};

struct GracePlan {
  std::set<std::string> superseded;  // named by an existing output: never merged again
  std::vector<std::string> due;      // to delete now, oldest first
};

GracePlan PlanDeletions(const GraceInputs& in);

// The directory part of a key ("a/b/c.parquet" → "a/b").
std::string DirectoryOf(const std::string& key);

}  // namespace sinkd::compact
