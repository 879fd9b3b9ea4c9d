// Writes the sinkd half of fuzz_parquet_reader's seed corpus into the directory given as its only
// argument: build/fuzz/fuzz/parquet_reader_seeds fuzz/corpus/parquet_reader
// Small Parts of every type, dictionary-encoded and PLAIN, in several row groups and pages. The
// DuckDB half (OPTIONAL columns with NULLs, PLAIN_DICTIONARY, naive TIMESTAMP) is committed as
// written by `node tools/duckdb-ledger-part.mjs <file> 40 1 --nulls --row-group-size 16` (and
// without --nulls).
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "parquet/part_writer.h"

namespace {

using namespace sinkd::parquet;

bool Write(const std::string& path, size_t rows, const WriterOptions& options) {
  const Schema schema = {
      {"id", PhysicalType::kByteArray, Annotation::kString, 1, true},
      {"tenant", PhysicalType::kByteArray, Annotation::kString, 2},
      {"time", PhysicalType::kInt64, Annotation::kTimestampMicrosUtc, 3},
      {"n", PhysicalType::kInt32, Annotation::kNone, 4},
      {"cost", PhysicalType::kDouble, Annotation::kNone, 5},
      {"flag", PhysicalType::kBoolean, Annotation::kNone, 6},
  };
  std::vector<uint32_t> offsets{0}, tenant_offsets{0};
  std::string ids, tenants;
  std::vector<int64_t> times;
  std::vector<int32_t> ns;
  std::vector<double> costs;
  std::vector<uint8_t> flags;
  std::vector<uint32_t> order;
  for (size_t r = 0; r < rows; ++r) {
    ids += "evt-" + std::to_string(r * 7919 % 1000);
    offsets.push_back(static_cast<uint32_t>(ids.size()));
    tenants += r % 3 ? "acme" : "globex";
    tenant_offsets.push_back(static_cast<uint32_t>(tenants.size()));
    times.push_back(1'767'225'600'000'000LL + static_cast<int64_t>(r) * 1000);
    ns.push_back(static_cast<int32_t>(r % 5) - 2);
    costs.push_back(static_cast<double>(r) / 8);
    flags.push_back(r % 4 == 0);
    order.push_back(static_cast<uint32_t>(r));
  }
  TableView view;
  view.rows = rows;
  view.columns = {StringArray{offsets, ids}, StringArray{tenant_offsets, tenants},
                  std::span<const int64_t>(times), std::span<const int32_t>(ns),
                  std::span<const double>(costs), std::span<const uint8_t>(flags)};
  MemoryOutputStream out;
  PartWriter writer(schema, options, out);
  const std::vector<KeyValue> metadata = {{"sinkd.table", "seed"}};
  if (!writer.WriteRows(view, order).ok() || !writer.Finish(metadata).ok()) return false;
  std::ofstream(path, std::ios::binary) << out.data();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: parquet_reader_seeds <dir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  WriterOptions dictionary;
  dictionary.row_group_rows = 16;
  dictionary.page_rows = 7;
  WriterOptions plain = dictionary;
  plain.dictionary_bytes_limit = 1;
  WriterOptions one_group;
  bool ok = Write(dir + "/sinkd_dictionary.parquet", 40, dictionary) &&
            Write(dir + "/sinkd_plain.parquet", 40, plain) &&
            Write(dir + "/sinkd_one_row.parquet", 1, one_group) &&
            Write(dir + "/sinkd_empty.parquet", 0, one_group);
  return ok ? 0 : 1;
}
