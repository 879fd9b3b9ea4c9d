// The grace deleter's rule: which objects are superseded, and which of them may go now.
// An object is superseded when an output of the same partition that exists names it in
// sinkd.supersedes as exactly this object: the same key, size and version (StoredObject::version).
// A key named there that now holds another object (re-created after its input was merged and
// deleted) is a live Part: never deleted, merged like any other. A superseded object is due for
// deletion once an output naming it appeared at least grace_ms ago (a reader that listed the
// object before the output existed has had grace_ms to open it).
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
#include "table/footer.h"

namespace sinkd::compact {

struct GraceInputs {
  // Every object of the table the listing found (key order).
  const std::vector<lake::StoredObject>* objects = nullptr;
  // For each readable output among them: the objects its footer supersedes.
  const std::map<std::string, std::vector<table::SupersededObject>>* supersedes = nullptr;
  int64_t now_unix_ms = 0;
  int64_t grace_ms = 0;
};

struct GracePlan {
  std::set<std::string> superseded;  // named by an existing output: never merged again
  std::vector<std::string> due;      // to delete now, oldest first
  // Keys an output names whose object is another now (or was recorded without a version):
  // live Parts, neither superseded nor due.
  std::set<std::string> changed;
};

GracePlan PlanDeletions(const GraceInputs& in);

// The directory part of a key ("a/b/c.parquet" → "a/b").
std::string DirectoryOf(const std::string& key);

}  // namespace sinkd::compact
