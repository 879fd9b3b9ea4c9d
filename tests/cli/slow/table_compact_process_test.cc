// `sinkd compact --table-format iceberg` as a process on a directory lake (support/table_process.h
// has the scenarios and how the table is read): with the sql catalog (real PostgreSQL) after an
// import, beside two drains on one durable, and killed with SIGKILL at random moments while the
// drains commit. Slow: label cli-slow.
#include <gtest/gtest.h>

#include "support/postgres_server.h"
#include "support/table_process.h"

namespace sinkd::testing {
namespace {

TableLake DirectoryLake(const TempDir& dir, std::vector<std::string> catalog = {}) {
  TableLake lake;
  lake.destination = {"--lake-dir", (dir / "lake").string()};
  lake.destination.insert(lake.destination.end(), catalog.begin(), catalog.end());
  lake.lake_uri = "file://" + (dir / "lake").string();
  lake.scratch = dir.path();
  return lake;
}

TEST(TableCompactProcess, WithTheSqlCatalogEachMergeIsOneReplaceAndTheOldSnapshotReadsUntilExpiry) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  TempDir dir;
  TableLake lake =
      DirectoryLake(dir, {"--iceberg-catalog", "sql", "--iceberg-catalog-url", pg});
  CompactAnImportedTable(lake);
  EXPECT_FALSE(std::filesystem::exists(dir / "lake/ledger/metadata/v1.metadata.json"))
      << "the table is the sql catalog's, no files-catalog table beside it";
  EXPECT_EQ(lake.Info().value("catalog", ""), "sql");
}

TEST(TableCompactProcess, TwoIcebergDrainsAndACompactorAtOnceOnADirectoryLeaveOneRowPerEvent) {
  TempDir dir;
  TableLake lake = DirectoryLake(dir);
  TwoDrainsAndACompactorAtOnce(lake);
}

TEST(TableCompactProcess, TwoIcebergDrainsAndACompactorAtOnceWithTheSqlCatalogLeaveOneRowPerEvent) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  TempDir dir;
  TableLake lake =
      DirectoryLake(dir, {"--iceberg-catalog", "sql", "--iceberg-catalog-url", pg});
  TwoDrainsAndACompactorAtOnce(lake);
}

TEST(TableCompactProcess, KillNineStormsOfACompactorBesideIcebergDrainsDeleteNoFileTheTableNames) {
  TempDir dir;
  TableLake lake = DirectoryLake(dir);
  KillNineStormOfTheCompactor(lake);
}

}  // namespace
}  // namespace sinkd::testing
