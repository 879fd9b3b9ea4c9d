// IcebergCommit is the `iceberg` commit step of a flush (table/commit.h): the Parts a flush placed
// become one append snapshot of the table under the same key prefix, through the files catalog
// (iceberg/files_catalog.h), recording the source positions the flush acknowledges
// (iceberg/positions.h), before anything is acknowledged.
// Positions by Provenance.scope: "stream" — the sequences of the stream whose identity is its
// name and the creation time given here (a re-created stream is another identity); "outbox" —
// the sink named by source "outbox:<sink>", up to last_sequence; "run" (import, whose numbers
// mean nothing across runs) — none: such a flush is committed and never filtered (its snapshot
// carries the table's positions as they were, as every snapshot sinkd writes does).
// Committed reads the newest metadata; Apply checks again inside the commit's retry loop, so a
// position committed meanwhile by another writer fails the flush (the retry drops it).
// Catalog: the files catalog unless `sql` is given, then the sql catalog at sql->url (each table
// the row named by its key prefix in sql->namespace_name); the in-swap step (sql only) runs inside
// every swap's transaction (iceberg/sql_catalog.h), given the flush's positions, so what it writes
// (an outbox sink's cursor at the flush's last position) commits with the pointer or not at all.
// Outbox positions are (txid, seq) pairs, compared as such (iceberg/positions.h): CommittedThrough
// gives the sink's committed mark, Committed reports streams only.
// It is also the `iceberg` commit step of a compaction (table/rewrite.h): Live reads the current
// snapshot's data files, Referenced those of every snapshot the metadata keeps, Replace commits
// merges as one replace snapshot (FilesCatalog::CommitReplace), each merge's outputs' partition
// tuple taken from the entries of the files they replace (exact, where a key may hold a shortened
// value).
// Ownership: borrows the Destination (the writer's; must outlive this). Threads: one thread at a
// time, the flushing thread (as the Destination).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "iceberg/files_catalog.h"
#include "iceberg/sql_catalog.h"
#include "iceberg/positions.h"
#include "lake/destination.h"
#include "table/commit.h"
#include "table/rewrite.h"

namespace sinkd::iceberg {

inline constexpr std::string_view kIcebergCommitFormat = "iceberg";

class IcebergCommit final : public table::Commit, public table::Rewrite {
 public:
  // `stream_created`: the creation time of the stream, used when a Provenance carries none
  // (Provenance::source_created wins); "" for writers of other scopes.
  IcebergCommit(lake::Destination& destination, std::string stream_created,
                CommitOptions options = {}, std::optional<SqlCatalogTarget> sql = std::nullopt);

  // Runs inside each later swap's transaction (sql catalog only: ignored by the files catalog),
  // after the pointer moved and before COMMIT, with the positions of the flush being committed;
  // an error rolls the swap back and fails the commit. Empty: none.
  using InSwap = std::function<Status(outbox::PgConn&, const table::Provenance&)>;
  void set_in_swap(InSwap in_swap) { in_swap_ = std::move(in_swap); }
  // The sql catalog's target, when the table's pointer lives in PostgreSQL.
  const std::optional<SqlCatalogTarget>& sql() const { return sql_; }

  std::string_view format() const override { return kIcebergCommitFormat; }
  Result<std::vector<table::SequenceRange>> Committed(std::string_view table,
                                                      const table::Provenance& positions) override;
  Result<std::optional<table::OutboxPosition>> CommittedThrough(
      std::string_view table, const table::Provenance& positions) override;
  Status Apply(const table::CommitRequest& request) override;

  // table::Rewrite.
  Result<table::LiveParts> Live(std::string_view table, const row::ColumnTable& columns) override;
  Result<std::set<std::string>> Referenced(std::string_view table,
                                           const row::ColumnTable& columns) override;
  Status Replace(std::string_view table, const row::ColumnTable& columns,
                 const std::vector<table::PartRewrite>& rewrites) override;

  // The positions a flush of `positions` covers, as the table records them.
  BatchPositions PositionsOf(const table::Provenance& positions) const;

 private:
  FilesCatalog& CatalogFor(std::string_view table, const row::ColumnTable* columns);
  // What of `batch` the newest metadata of `table` holds already.
  Result<Positions> HeldAlready(std::string_view table, const BatchPositions& batch);

  lake::Destination& destination_;
  std::string stream_created_;
  CommitOptions options_;
  std::optional<SqlCatalogTarget> sql_;
  InSwap in_swap_;
  std::map<std::string, std::unique_ptr<FilesCatalog>, std::less<>> catalogs_;
  // The identity partition values of each file Live last found live (key -> values): a replace's
  // outputs take the partition tuple of the files they replace. The entries themselves stay
  // decoded in the catalog (FilesCatalog::Decoded) for the replace's rewrite.
  using LiveValues = std::map<std::string, std::vector<std::string>, std::less<>>;
  std::map<std::string, LiveValues, std::less<>> live_;  // per table
};

}  // namespace sinkd::iceberg
