// parquet::PartReader against DuckDB on the same files, every value of every column: the Parts a
// drain writes (LakeWriter, generated ledger rows), the same rows rewritten with subset schemas
// (no execution_subject, no in-file `app`: the older Parts), and DuckDB's own COPY output in the
// Go sink's shape (OPTIONAL columns, TIMESTAMP without time zone, NULLs, long strings,
// dictionary-heavy and high-cardinality columns, several row groups). DuckDB dumps each file as
// JSON lines in file order; the test walks them beside the reader's row groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "parquet/part_reader.h"
#include "support/ledger_rows.h"
#include "support/support.h"

namespace sinkd::lake {
namespace {

namespace fs = std::filesystem;
using parquet::ColumnInfo;
using parquet::ColumnValues;
using parquet::PhysicalType;

parquet::ReadAt FileReadAt(const fs::path& path) {
  return [path](uint64_t offset, uint64_t length) -> Result<std::string> {
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    std::string out(length, '\0');
    in.read(out.data(), static_cast<std::streamsize>(length));
    out.resize(static_cast<size_t>(in.gcount()));
    return out;
  };
}

struct ReadBack {
  parquet::FileFooter footer;
  std::vector<std::vector<ColumnValues>> groups;
  double seconds = 0;  // decoding every row group, reads included
};

ReadBack ReadWithPartReader(const fs::path& file) {
  ReadBack out;
  auto reader = parquet::PartReader::Open(FileReadAt(file), fs::file_size(file), file.string());
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  out.footer = (*reader)->footer();
  const auto start = std::chrono::steady_clock::now();
  for (size_t g = 0; g < out.footer.row_groups.size(); ++g) {
    auto values = (*reader)->ReadRowGroup(g);
    EXPECT_TRUE(values.ok()) << values.status().ToString();
    if (!values.ok()) return out;
    out.groups.push_back(std::move(values).value());
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// Compares one JSON value of DuckDB's dump with the reader's slot; "" when equal.
std::string DiffValue(const ColumnInfo& column, const ColumnValues& v, size_t row,
                      const nlohmann::json& duck) {
  const bool null = !v.defined.empty() && !v.defined[row];
  if (duck.is_null() || null) {
    if (duck.is_null() && null) return "";
    return duck.is_null() ? "DuckDB NULL, reader a value" : "reader NULL, DuckDB " + duck.dump();
  }
  switch (column.physical) {
    case PhysicalType::kBoolean:
      return duck.is_boolean() && duck.get<bool>() == (v.bools[row] != 0) ? "" : "bool " + duck.dump();
    case PhysicalType::kInt32:
      return duck.is_number_integer() && duck.get<int64_t>() == v.int32s[row]
                 ? "" : "int32 " + std::to_string(v.int32s[row]) + " vs " + duck.dump();
    case PhysicalType::kInt64:
      return duck.is_number_integer() && duck.get<int64_t>() == v.int64s[row]
                 ? "" : "int64 " + std::to_string(v.int64s[row]) + " vs " + duck.dump();
    case PhysicalType::kDouble: {
      if (!duck.is_string()) return "double not dumped as text";
      const std::string text = duck.get<std::string>();
      const double d = std::strtod(text.c_str(), nullptr);
      const double mine = v.doubles[row];
      const bool same = std::isnan(d) ? std::isnan(mine) : std::memcmp(&d, &mine, 8) == 0;
      return same ? "" : "double " + std::to_string(mine) + " vs " + text;
    }
    case PhysicalType::kByteArray: {
      const std::string_view mine = std::string_view(v.bytes).substr(
          v.offsets[row], v.offsets[row + 1] - v.offsets[row]);
      if (!duck.is_string()) return "string vs " + duck.dump();
      return duck.get_ref<const std::string&>() == mine
                 ? "" : "string '" + std::string(mine.substr(0, 60)) + "' vs " + duck.dump().substr(0, 60);
    }
  }
  return "unknown type";
}

// Every value DuckDB reads from `file` equals the reader's, column by column, in file order.
// Returns the rows compared.
size_t ExpectSameAsDuckDb(const fs::path& file, const ReadBack& read, const fs::path& scratch) {
  const std::vector<ColumnInfo>& columns = read.footer.columns;
  std::string select;
  std::vector<std::string> keys;  // c0, c1, …: DuckDB's column names in the dump
  for (size_t c = 0; c < columns.size(); ++c) {
    keys.emplace_back("c");
    keys.back() += std::to_string(c);
    const std::string col = "\"" + columns[c].name + "\"";
    std::string expr = col;
    if (columns[c].annotation == parquet::Annotation::kTimestampMicrosUtc ||
        columns[c].annotation == parquet::Annotation::kTimestampMicrosNaive) {
      expr = "epoch_us(" + col + ")";
    } else if (columns[c].physical == PhysicalType::kDouble) {
      expr = col + "::VARCHAR";  // shortest round-trip text; strtod gives the bits back
    }
    if (c) select += ", ";
    select += expr;
    select += " AS ";
    select += keys[c];
  }
  const fs::path dump = scratch / "dump.json";
  const auto q = testing::DuckDb(
      {"COPY (SELECT " + select + " FROM read_parquet(" + testing::SqlQuote(file.string()) +
           ", file_row_number=true) ORDER BY file_row_number) TO " +
           testing::SqlQuote(dump.string()) + " (FORMAT json)",
       "SELECT 1"});
  EXPECT_TRUE(q.ok) << q.error;
  std::ifstream in(dump);
  std::string line;
  size_t rows = 0, failures = 0;
  for (size_t g = 0; g < read.groups.size(); ++g) {
    const size_t group_rows = read.footer.row_groups[g].rows;
    for (size_t r = 0; r < group_rows; ++r) {
      if (!std::getline(in, line)) {
        ADD_FAILURE() << file << ": DuckDB has " << rows << " rows, the reader more";
        return rows;
      }
      const nlohmann::json row = nlohmann::json::parse(line);
      for (size_t c = 0; c < columns.size(); ++c) {
        const std::string diff =
            DiffValue(columns[c], read.groups[g][c], r, row[keys[c]]);
        if (!diff.empty() && failures++ < 10) {
          ADD_FAILURE() << file.filename() << " row " << rows << " column " << columns[c].name
                        << ": " << diff;
        }
      }
      ++rows;
    }
  }
  EXPECT_FALSE(std::getline(in, line)) << file << ": DuckDB has more rows than the reader";
  EXPECT_EQ(failures, 0u);
  return rows;
}

void DuckDbWrites(const fs::path& file, int rows, int seed, std::vector<std::string> flags) {
  std::vector<std::string> argv = {"node", (testing::SourceDir() / "tools/duckdb-ledger-part.mjs").string(),
                                   file.string(), std::to_string(rows), std::to_string(seed)};
  argv.insert(argv.end(), flags.begin(), flags.end());
  const auto run = testing::RunCommand(argv, "", std::chrono::seconds(300));
  ASSERT_EQ(run.exit_code, 0) << run.err;
}

TEST(PartReaderDifferential, DuckDbsGoSinkShapedPartsReadEqualToDuckDbItself) {
  testing::TempDir dir;
  const struct {
    int rows;
    std::vector<std::string> flags;
  } cases[] = {
      // 130,000 rows with NULLs in every column and execution_subject: two row groups of
      // DuckDB's default size. (bench/part_reader_bench times 250,000.)
      {130'000, {"--nulls", "--execution-subject"}},
      // The Go sink before v0.7.0: no NULL, no execution_subject; small row groups.
      {20'000, {"--row-group-size", "3000"}},
      {5'000, {"--compression", "uncompressed", "--nulls"}},
  };
  for (const auto& c : cases) {
    const fs::path file = dir / "duck.parquet";
    DuckDbWrites(file, c.rows, 7, c.flags);
    const ReadBack read = ReadWithPartReader(file);
    ASSERT_EQ(read.groups.size(), read.footer.row_groups.size());
    for (const ColumnInfo& col : read.footer.columns) EXPECT_TRUE(col.optional) << col.name;
    EXPECT_EQ(read.footer.columns[1].annotation, parquet::Annotation::kTimestampMicrosNaive);
    EXPECT_EQ(ExpectSameAsDuckDb(file, read, dir.path()), static_cast<size_t>(c.rows));
    std::printf("[ reader ] DuckDB Part, %d rows, %zu columns, %zu row groups: decoded in %.3f s wall, "
                "%.0f rows/s\n", c.rows, read.footer.columns.size(), read.groups.size(),
                read.seconds, c.rows / read.seconds);
  }
}

TEST(PartReaderDifferential, ChunksOfNullsOnlyAndMostlyNullsReadEqualToDuckDb) {
  testing::TempDir dir;
  const fs::path file = dir / "nulls.parquet";
  const auto q = testing::DuckDb(
      {"COPY (SELECT i, NULL::VARCHAR AS never, CASE WHEN i < 200000 THEN NULL ELSE 'x' || (i % 7) "
       "END AS late, CASE WHEN i % 1000 = 0 THEN i END AS rare FROM range(250000) t(i)) TO " +
           testing::SqlQuote(file.string()) + " (FORMAT parquet, COMPRESSION zstd)",
       "SELECT 1"});
  ASSERT_TRUE(q.ok) << q.error;
  const ReadBack read = ReadWithPartReader(file);
  ASSERT_EQ(read.groups.size(), 3u);
  EXPECT_EQ(ExpectSameAsDuckDb(file, read, dir.path()), 250'000u);
}

// A Part holding `read`'s rows with only the columns `keep` (by name): what sinkd wrote before a
// column existed (execution_subject) or before the partition columns went into the file (app).
std::string SubsetPart(const ReadBack& read, const std::vector<std::string>& drop) {
  parquet::Schema schema;
  std::vector<size_t> kept;
  for (size_t c = 0; c < read.footer.columns.size(); ++c) {
    const ColumnInfo& col = read.footer.columns[c];
    if (std::find(drop.begin(), drop.end(), col.name) != drop.end()) continue;
    schema.push_back({col.name, col.physical, col.annotation, col.field_id, col.name == "event_id"});
    kept.push_back(c);
  }
  parquet::MemoryOutputStream out;
  parquet::WriterOptions options;
  options.row_group_rows = 50'000;
  parquet::PartWriter writer(schema, options, out);
  for (const auto& group : read.groups) {
    parquet::TableView view;
    view.rows = group[0].size();
    for (const size_t c : kept) {
      const ColumnValues& v = group[c];
      switch (v.physical) {
        case PhysicalType::kBoolean: view.columns.emplace_back(std::span<const uint8_t>(v.bools)); break;
        case PhysicalType::kInt32: view.columns.emplace_back(std::span<const int32_t>(v.int32s)); break;
        case PhysicalType::kInt64: view.columns.emplace_back(std::span<const int64_t>(v.int64s)); break;
        case PhysicalType::kDouble: view.columns.emplace_back(std::span<const double>(v.doubles)); break;
        case PhysicalType::kByteArray:
          view.columns.emplace_back(parquet::StringArray{v.offsets, v.bytes});
          break;
      }
    }
    std::vector<uint32_t> rows(view.rows);
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<uint32_t>(i);
    EXPECT_TRUE(writer.WriteRows(view, rows).ok());
  }
  const std::vector<parquet::KeyValue> metadata = {{"sinkd.table", "ledger"}};
  EXPECT_TRUE(writer.Finish(metadata).ok());
  return out.Release();
}

TEST(PartReaderDifferential, TheDrainsPartsAndOlderSubsetPartsReadEqualToDuckDb) {
  testing::TempDir dir;
  auto made = DirDestination::Make((dir / "lake").string());
  ASSERT_TRUE(made.ok());
  ASSERT_TRUE((*made)->Ensure().ok());
  LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "diff-1";
  row::RowBuffer rows = testing::GeneratedLedgerRows(42, 1000);  // 100,000 rows over a few apps
  auto flushed = LakeWriter(**made, options).Flush(rows, {"GARM_LEDGER", 1, 1000});
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
  auto parts = (*made)->List("ledger/");
  ASSERT_TRUE(parts.ok());
  ASSERT_FALSE(parts->empty());
  size_t total = 0;
  const fs::path* biggest_path = nullptr;
  fs::path biggest;
  uint64_t biggest_rows = 0;
  double biggest_seconds = 0;
  for (const StoredObject& part : *parts) {
    const fs::path file = dir / "lake" / part.key;
    const ReadBack read = ReadWithPartReader(file);
    ASSERT_EQ(read.groups.size(), read.footer.row_groups.size());
    EXPECT_EQ(read.footer.columns.size(), row::kLedgerColumns.columns.size());
    EXPECT_EQ(read.footer.Find("sinkd.table"), std::optional<std::string_view>("ledger"));
    total += ExpectSameAsDuckDb(file, read, dir.path());
    if (read.footer.rows > biggest_rows) {
      biggest_rows = read.footer.rows;
      biggest_seconds = read.seconds;
      biggest = file;
      biggest_path = &biggest;
    }
  }
  EXPECT_EQ(total, rows.rows());
  ASSERT_NE(biggest_path, nullptr);
  std::printf("[ reader ] sinkd Part, %llu rows, %zu columns: decoded in %.3f s wall, %.0f rows/s\n",
              static_cast<unsigned long long>(biggest_rows), row::kLedgerColumns.columns.size(),
              biggest_seconds, biggest_rows / biggest_seconds);

  // The same rows as the older Parts: without execution_subject, and without the in-file `app`.
  const ReadBack read = ReadWithPartReader(biggest);
  for (const std::vector<std::string>& drop :
       {std::vector<std::string>{"execution_subject"}, std::vector<std::string>{"app", "execution_subject"}}) {
    const fs::path file = dir / "subset.parquet";
    testing::WriteFile(file, SubsetPart(read, drop));
    const ReadBack subset = ReadWithPartReader(file);
    EXPECT_EQ(subset.footer.columns.size(), read.footer.columns.size() - drop.size());
    EXPECT_EQ(ExpectSameAsDuckDb(file, subset, dir.path()), biggest_rows);
  }
}

}  // namespace
}  // namespace sinkd::lake
