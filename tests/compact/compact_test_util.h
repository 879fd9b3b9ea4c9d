// Helpers shared by the compaction tests: ledger rows made to order, Parts written through the
// real LakeWriter into a real directory lake, the lake's files, file times set to a simulated
// clock, and the Compactor's options.
#pragma once

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "partition/civil_date.h"
#include "compact/compactor.h"
#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "row/ledger_columns.h"
#include "support/support.h"

namespace sinkd::compact::testutil {

namespace fs = std::filesystem;

// 2026-09-22T00:00:00Z in microseconds, the day most tests write into.
inline constexpr int64_t kDayMicros = int64_t{1790035200} * 1'000'000;
inline constexpr int64_t kDayMs = kDayMicros / 1000;
inline constexpr int64_t kHourMs = 3'600'000;

struct TestRow {
  std::string id;
  int64_t time_micros = kDayMicros;
  std::string app = "svc";
  std::string tenant;  // "" → "tenant-<id>"
};

// Every column filled from the row's id, so two rows of one id hold the same values unless the
// test says otherwise.
inline row::RowBuffer LedgerRows(const std::vector<TestRow>& rows) {
  const row::ColumnTable& table = row::kLedgerColumns;
  row::RowBuffer batch(table);
  for (const TestRow& r : rows) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      row::ColumnBuffer& col = batch.column(static_cast<int>(c));
      const std::string_view name = table.columns[c].name;
      switch (table.columns[c].type) {
        case row::ColumnType::kString:
          if (name == "event_id") {
            col.strings.push_back(r.id);
          } else if (name == "app") {
            col.strings.push_back(r.app);
          } else if (name == "tenant") {
            col.strings.push_back(r.tenant.empty() ? "tenant-" + r.id : r.tenant);
          } else if (name == "execution_subject") {
            col.strings.push_back("");
          } else if (name == "tags_json") {
            col.strings.push_back("{}");
          } else {
            col.strings.push_back(std::string(name) + "-" + r.id);
          }
          break;
        case row::ColumnType::kTimestamp: col.int64s.push_back(r.time_micros); break;
        case row::ColumnType::kInt64: col.int64s.push_back(static_cast<int64_t>(r.id.size()) * 7); break;
        case row::ColumnType::kInt32: col.int32s.push_back(static_cast<int32_t>(r.id.size())); break;
        case row::ColumnType::kDouble: col.doubles.push_back(0.25 * static_cast<double>(r.id.size())); break;
        case row::ColumnType::kBool: col.bools.push_back(r.id.size() % 2); break;
      }
    }
    batch.CommitRow();
  }
  return batch;
}

inline std::unique_ptr<lake::DirDestination> DirLake(const fs::path& root) {
  auto made = lake::DirDestination::Make(root.string());
  EXPECT_TRUE(made.ok());
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(made).value();
}

// One flush of `rows` as the drain would write it; returns the bytes written.
inline uint64_t Flush(lake::Destination& destination, const std::vector<TestRow>& rows,
                      uint64_t first_sequence, const std::string& instance = "box-1") {
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = instance;
  options.parquet.created_by = "sinkd version 0.0.0 (build test)";
  lake::LakeWriter writer(destination, options);
  row::RowBuffer batch = LedgerRows(rows);
  auto report = writer.Flush(batch, {"GARM_LEDGER", first_sequence,
                                                first_sequence + rows.size() - 1});
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return report.ok() ? report->bytes : 0;
}

// Every file under `root` ending in `suffix`, relative, sorted.
inline std::vector<std::string> Files(const fs::path& root, const std::string& suffix = ".parquet") {
  std::vector<std::string> out;
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(fs::relative(e.path(), root).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::string> Outputs(const fs::path& root) {
  std::vector<std::string> out;
  for (const std::string& f : Files(root)) {
    if (fs::path(f).filename().string().rfind("compact-", 0) == 0) out.push_back(f);
  }
  return out;
}

// Sets the modification time of every file not in `seen` to `unix_ms` and adds it to `seen`:
// files appear at the simulated clock's time, so the grace is measured on that clock.
inline void StampNewFiles(const fs::path& root, int64_t unix_ms, std::set<std::string>& seen) {
  for (const std::string& f : Files(root, "")) {
    if (!seen.insert(f).second) continue;
    const auto when = std::chrono::file_clock::from_sys(
        std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(unix_ms)));
    fs::last_write_time(root / f, when);
  }
}

// The system clock: a real directory's files carry its times.
inline int64_t RealNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline CompactOptions Options(std::function<int64_t()> clock) {
  CompactOptions o;
  o.table = &row::kLedgerColumns;
  o.prefix = "ledger";
  o.instance = "test";
  o.parquet.created_by = "sinkd version 0.0.0 (build test)";
  o.now_unix_ms = std::move(clock);
  return o;
}

inline std::string Glob(const fs::path& root) {
  return "read_parquet(" + sinkd::testing::SqlQuote((root / "ledger/**/*.parquet").string()) +
         ", hive_partitioning=true, union_by_name=true)";
}

}  // namespace sinkd::compact::testutil
