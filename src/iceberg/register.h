// Register adopts the Parts a lake already holds into the Iceberg table over them (issue 26 §4,
// `sinkd table register`), in ONE append snapshot:
//   - which Parts: every live Part of the table under its prefix — an object table::ParseObjectKey
//     accepts (never a `.incomplete` upload, a dead letter or a foreign file) that no present
//     compaction output supersedes (table::SupersededKeys) — that the table does not name yet.
//     When the table exists, a Part younger than it is not adopted: the table's writers commit
//     their Parts themselves, so such a Part is a failed commit's or a skipped redelivery's
//     (`table orphans` removes them), whose rows the table may hold already. Register is thus
//     idempotent: a second run finds every Part named and adds nothing.
//   - each Part's entry from its footer, read back (parquet::Summarize of the read footer, then
//     DataFileOf, the writer's own path): the statistics its writer's commit would have recorded.
//     Its partition values are the key's when exact, else the footer's bounds of the column.
//   - the committed positions (positions.h) seeded from the adopted Parts' stamps (lake/stamp.h):
//     per stream the acked ranges under the stream's identity (its name and the creation time the
//     caller gives: stamps do not carry it), per outbox sink the highest seq; import's runs none.
//     They are merged into the table's own (inside the commit's retry loop, on the newest
//     metadata), so a drain that starts committing afterwards drops what the adopted Parts hold.
//
// With replace_metadata: the lake was copied (a directory lake into a bucket, or elsewhere) with
// its table, whose metadata names the old location, so no writer can extend it. The table is
// rebuilt as a new table at this catalog's location (FilesCatalog Append::fresh, the next
// metadata version): the data files are those the old metadata's current snapshot names (read
// through the copy: a URI under the old location maps to the same key here), each described from
// its footer as above, and the positions are the old table's. Orphans the old table never named
// stay out. Refused when the metadata already names this location (nothing to rebuild) or there
// is none.
//
// The sql catalog (SqlCatalog): the first commit creates the table's row, later ones move it.
// A table the lake keeps in the files catalog and the sql catalog has no row for is adopted
// first (SqlCatalog::AdoptFilesTable: the row names its newest v<N>.metadata.json), so that its
// snapshots and positions stay, its failed commits' Parts stay out, and register goes on as for
// a table in place. A row naming the metadata at the old place of a lake copied here is read
// from the copy, and --replace-metadata moves the row to the rebuilt table.
//
// Threads: one thread at a time (the Destination's rule). Errors: Refuse naming what is wrong (a
// footer that cannot be read, a stream without its creation time, a file the old table names
// that the lake lacks); the catalog's and the store's errors.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "iceberg/files_catalog.h"
#include "iceberg/positions.h"
#include "lake/destination.h"
#include "row/column_table.h"

namespace sinkd::iceberg {

struct RegisterOptions {
  // Per stream name (a stamp's source of scope "stream"), the stream's creation time as JetStream
  // reports it (RFC 3339): its identity in the positions. "*": every stream not named. A stream
  // missing here is refused.
  std::map<std::string, std::string> stream_created;
  bool replace_metadata = false;
};

struct RegisterReport {
  std::vector<std::string> added;        // keys of the Parts the snapshot adds, sorted
  uint64_t records = 0;                  // their rows
  uint64_t bytes = 0;                    // their sizes
  uint64_t already = 0;                  // live Parts the table names already
  uint64_t superseded = 0;               // Parts a present compaction output supersedes
  std::vector<std::string> not_adopted;  // live Parts younger than the table it does not name
  Positions seeded;                      // positions the added Parts' stamps give
  std::string replaced_location;         // replace_metadata: what the old metadata named
  std::string adopted;                   // sql: the files-catalog metadata the new row names
  std::optional<CommitReport> commit;    // none when nothing was added
};

// Registers the Parts of the table `columns` under `prefix` (the catalog's table key) in
// `destination` into `catalog`'s table, as above.
Result<RegisterReport> Register(FilesCatalog& catalog, lake::Destination& destination,
                                const row::ColumnTable& columns, const std::string& prefix,
                                const RegisterOptions& options);

// The positions the flush stamps of a Part give (see above): Refuse naming a stream of scope
// "stream" that `stream_created` lacks.
Result<Positions> PositionsOfStamps(const std::vector<lake::FlushStamp>& stamps,
                                    const std::map<std::string, std::string>& stream_created);

}  // namespace sinkd::iceberg
