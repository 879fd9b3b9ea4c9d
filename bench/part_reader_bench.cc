// PartReader decode throughput (compaction reads every Part with it): one 250,000-row ledger Part
// as the drain writes it (generated events, LakePartOptions, one Part in memory), and the same
// number of rows as DuckDB's COPY writes them in the Go sink's shape (tools/duckdb-ledger-part.mjs,
// OPTIONAL columns with NULLs). Every row group of every column decoded from memory; best of 5,
// in this thread's CPU time (the decode is single-threaded; on a loaded machine wall time measures
// the neighbours) and in wall time.
// Usage: part_reader_bench [--rows N]
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "partition/part_schema.h"
#include "contract/wire_decoder.h"
#include "lake/lake_writer.h"
#include "parquet/part_reader.h"
#include "parquet/part_writer.h"
#include "row/ledger_columns.h"
#include "traffic/traffic_generator.h"

namespace {

std::string SinkdPart(int64_t rows) {
  sinkd::traffic::TrafficOptions options;
  options.seed = 2026;
  options.events_per_batch = 500;
  options.expected_events = rows;
  sinkd::traffic::TrafficGenerator generator(options);
  sinkd::contract::WireDecoder decoder;
  sinkd::row::RowBuffer batch(sinkd::row::kLedgerColumns);
  std::vector<sinkd::contract::Reject> rejects;
  while (static_cast<int64_t>(batch.rows()) < rows) {
    decoder.Decode(sinkd::contract::Envelope::kBatch, generator.NextLedgerMessage(), batch, rejects);
  }
  std::vector<uint32_t> order(batch.rows());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  sinkd::parquet::MemoryOutputStream out;
  sinkd::parquet::PartWriter writer(sinkd::partition::FileSchema(sinkd::row::kLedgerColumns),
                                    sinkd::lake::LakePartOptions(), out);
  if (!writer.WriteRows(sinkd::partition::FileView(batch), order).ok() || !writer.Finish({}).ok()) {
    std::fprintf(stderr, "part_reader_bench: writing the Part failed\n");
    std::exit(1);
  }
  return out.Release();
}

std::string DuckDbPart(int64_t rows) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("part_reader_bench_" + std::to_string(getpid()) + ".parquet");
  const std::string command = std::string("node '") + SINKD_SOURCE_DIR +
                              "/tools/duckdb-ledger-part.mjs' '" + file.string() + "' " +
                              std::to_string(rows) + " 1 --nulls --execution-subject";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "part_reader_bench: %s failed\n", command.c_str());
    std::exit(1);
  }
  std::ifstream in(file, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::filesystem::remove(file);
  return bytes.str();
}

double ThreadCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

void Measure(const char* what, const std::string& bytes) {
  const sinkd::parquet::ReadAt read = [&bytes](uint64_t offset, uint64_t length)
      -> sinkd::Result<std::string> { return bytes.substr(offset, length); };
  double best = 1e30, best_wall = 1e30;
  uint64_t rows = 0, values_bytes = 0;
  size_t columns = 0;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ThreadCpuSeconds();
    auto reader = sinkd::parquet::PartReader::Open(read, bytes.size(), what);
    if (!reader.ok()) {
      std::fprintf(stderr, "%s\n", reader.status().ToString().c_str());
      std::exit(1);
    }
    rows = 0;
    values_bytes = 0;
    columns = (*reader)->footer().columns.size();
    std::vector<sinkd::parquet::ColumnValues> values;  // reused, as compaction does
    for (size_t g = 0; g < (*reader)->footer().row_groups.size(); ++g) {
      const sinkd::Status s = (*reader)->ReadRowGroup(g, {}, values);
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.ToString().c_str());
        std::exit(1);
      }
      rows += (*reader)->footer().row_groups[g].rows;
      for (const auto& v : values) {
        values_bytes += v.bytes.size() + 8 * v.size();
      }
    }
    best = std::min(best, ThreadCpuSeconds() - cpu_start);
    best_wall = std::min(best_wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::printf("%-36s %llu rows, %zu columns, %.1f MB file: %.1f ms CPU (%.1f ms wall), %.0f rows/s, "
              "%.0f MB/s decoded\n",
              what, static_cast<unsigned long long>(rows), columns, bytes.size() / 1e6, best * 1e3,
              best_wall * 1e3, rows / best, values_bytes / best / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = 250'000;
  sinkd::bench::BenchFlags flags(
      "part_reader_bench",
      "PartReader's decode rows/s of one ledger Part as the drain writes it, and of the same rows "
      "as DuckDB writes them in the Go sink's shape.");
  flags.Add("rows", &rows, "rows of each Part");
  flags.Parse(argc, argv);
  Measure("sinkd Part (drain, LakePartOptions)", SinkdPart(rows));
  Measure("DuckDB Part (Go sink shape, NULLs)", DuckDbPart(rows));
  return 0;
}
