// Verify proves, from Part footers alone, that a lake table holds every row its writers
// acknowledged. It is a pure computation over what a scan found (verify/scan.h reads it from a
// Destination): each object's flush stamps (lake/stamp.h), rows, size and `sinkd.supersedes`,
// and the whole-message dead letters that cover sequences no Part holds.
//
// The rules, per table:
//   A flush is identified by everything its stamp says about the flush (instance, source, scope,
//   range, txids, acked, parts, rows). It is complete when a live object carries the stamp of each
//   of its Parts n = 0 … parts-1; a live object is one no other present object supersedes (a
//   compaction output carries its inputs' stamps, so a deleted input is not missing; a deleted
//   output is). An incomplete flush names its missing n, each as the key its siblings' keys imply.
//   Covered sequences, per sequence space (a stream; an import run: source and instance; an
//   outbox sink), are the acked ranges of complete flushes plus whole-message dead letters. The
//   sequences of an incomplete flush are not covered: which of its rows are missing is unknown.
//   The expected sequences are, per space, those given (`expected`: the stream's first sequence up
//   to the durable's ack floor, or the outbox rows a sink has passed), else for a stream or a run
//   from the lowest to the highest covered sequence, bounded by --from/--to; an outbox space has
//   no default (its seq has holes where transactions rolled back). A gap is an expected sequence
//   not covered.
//   Duplicates known from stamps: a Part's stamp carried by more than one live object (its rows
//   twice), and sequences acked by more than one complete flush (a redelivered batch).
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lake/stamp.h"
#include "table/footer.h"

namespace sinkd::verify {

// One object of the table as a scan found it.
struct ObjectInfo {
  std::string key;
  uint64_t size = 0;
  uint64_t rows = 0;
  std::vector<lake::FlushStamp> stamps;  // empty: a Part without sinkd.stamps (older, foreign)
  // sinkd.supersedes: the objects a compaction output replaces (table/footer.h)
  std::vector<table::SupersededObject> supersedes;
  std::string error;                     // non-empty: its footer could not be read (named, counted)
  std::string version;                   // lake::StoredObject::version
};

// "GARM_LEDGER", "import@box-77" (a run), "outbox:lake": what numbers a stamp's sequences.
std::string SpaceOf(const lake::FlushStamp& stamp);
std::string SpaceOf(const std::string& source, const std::string& scope, const std::string& instance);

struct VerifyInput {
  std::vector<ObjectInfo> objects;
  // Whole-message dead letters, per space: their sequences are accounted for without a row.
  std::map<std::string, std::vector<lake::SequenceRange>> dead_letters;
  // Sequences that must be covered, per space (overrides the default lowest…highest).
  std::map<std::string, std::vector<lake::SequenceRange>> expected;
  std::optional<uint64_t> from, to;      // bounds of the expected sequences, every space
  uint64_t small_part_bytes = 64ull << 20;
};

// A Part of an incomplete flush that no live object carries. Its partition is not in any stamp
// (a stamp names its own Part only, so footers stay small); its file name is the siblings', with
// its n, and n counts a flush's Parts in key order, so it lies between its neighbours' directories.
struct MissingPart {
  uint64_t n = 0;
  std::string name;        // part-<instance>-<first>-<last>-<n>.parquet
  std::string after_dir;   // the directory of the nearest present Part before it ("" if none)
  std::string before_dir;  // … after it
  // "<after_dir>/…/<name>" style text for messages: the best the stamps can say.
  std::string Describe() const;
};

struct IncompleteFlush {
  lake::FlushStamp flush;               // n, key, part_rows are one present sibling's
  std::vector<MissingPart> missing;
};

struct Gap {
  std::string space;
  lake::SequenceRange range;
};

struct SpaceReport {
  std::string space;
  std::vector<lake::SequenceRange> covered;   // merged
  std::vector<lake::SequenceRange> expected;  // merged
  uint64_t flushes = 0;                       // complete ones
};

struct VerifyReport {
  uint64_t objects = 0;          // Parts read (stamped or not, live or superseded)
  uint64_t rows = 0;             // in live objects
  uint64_t bytes = 0;            // of every object
  uint64_t small_parts = 0;      // live objects below small_part_bytes
  uint64_t unstamped = 0;        // live objects without a stamp
  uint64_t superseded = 0;       // objects a present compaction output replaces (awaiting deletion)
  uint64_t flushes = 0;          // distinct flushes seen
  uint64_t duplicate_parts = 0;  // extra live copies of a Part's stamp
  uint64_t duplicate_rows = 0;   // their rows
  uint64_t duplicate_sequences = 0;  // sequences acked by more than one complete flush
  std::vector<IncompleteFlush> incomplete;
  std::vector<Gap> gaps;
  std::vector<SpaceReport> spaces;
  std::vector<std::pair<std::string, std::string>> unreadable;  // key, error

  // No gap, no incomplete flush, no unreadable footer.
  bool ok() const { return incomplete.empty() && gaps.empty() && unreadable.empty(); }
};

VerifyReport Verify(const VerifyInput& input);

// Ranges helpers, on sorted merged ranges.
std::vector<lake::SequenceRange> Merge(std::vector<lake::SequenceRange> ranges);
std::vector<lake::SequenceRange> Subtract(const std::vector<lake::SequenceRange>& from,
                                          const std::vector<lake::SequenceRange>& minus);

}  // namespace sinkd::verify
