// lake_bench: the lake's hot path against its peer, in one run.
//
// 1,000,000 generated ledger events (2,000 Batches of 500) go through decode → partition/sort →
// encode → write, on ONE thread, and the same rows are written by DuckDB's
// `COPY … (FORMAT parquet, COMPRESSION zstd)` from an in-memory table with TWO threads. Prints
// rows/s, bytes/row, the ratios and peak RSS, and says which targets are met:
//   our encode (from decoded columns) ≥ 1.5 × DuckDB's rows/s;  decode+encode ≥ 1,000,000 rows/s;
//   our file no larger than DuckDB's at the same ZSTD level;  peak RSS < 300 MiB for a
//   250,000-row batch spread over 200 partitions.
// Usage: lake_bench [--events N] [--zstd-level L] [--keep DIR]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/log.h"
#include "batch/part_schema.h"
#include "batch/partitioner.h"
#include "contract/delimited.h"
#include "contract/wire_decoder.h"
#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "parquet/part_writer.h"
#include "row/ledger_columns.h"
#include "traffic/traffic_generator.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// Peak resident set of a child process running argv, in KiB (ru_maxrss of wait4).
long PeakRssKib(const std::vector<std::string>& argv) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    freopen("/dev/null", "w", stderr);
    freopen("/dev/null", "w", stdout);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss;
}

std::string Ratio(double a, double b) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f×", b > 0 ? a / b : 0.0);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t events = 1'000'000;
  int zstd_level = 3;
  std::string keep;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--events") events = std::stoll(argv[i + 1]);
    else if (flag == "--zstd-level") zstd_level = std::stoi(argv[i + 1]);
    else if (flag == "--keep") keep = argv[i + 1];
  }
  const fs::path work = keep.empty() ? fs::temp_directory_path() / ("lake-bench-" + std::to_string(getpid())) : fs::path(keep);
  fs::create_directories(work);

  // Input: the bytes that travel on GARM_LEDGER.
  sinkd::traffic::TrafficOptions options;
  options.seed = 2026;
  options.events_per_batch = 500;
  options.expected_events = events;
  sinkd::traffic::TrafficGenerator generator(options);
  std::vector<std::string> messages;
  size_t input_bytes = 0;
  for (int64_t n = 0; n < events; n += options.events_per_batch) {
    messages.push_back(generator.NextLedgerMessage());
    input_bytes += messages.back().size();
  }

  // 1. Decode.
  sinkd::contract::WireDecoder decoder;
  sinkd::row::RowBatch batch(sinkd::row::kLedgerColumns);
  std::vector<sinkd::contract::Reject> rejects;
  auto t = Clock::now();
  for (const std::string& m : messages) decoder.Decode(sinkd::contract::Envelope::kBatch, m, batch, rejects);
  const double decode_s = Seconds(t);
  const size_t rows = batch.rows();

  // 2. Partition and sort.
  t = Clock::now();
  auto partitions = sinkd::batch::PartitionRows(batch);
  const double sort_s = Seconds(t);

  // 3. Encode from decoded columns: every row into one file, in (time, event_id) order, in memory.
  std::vector<uint32_t> order;
  order.reserve(rows);
  for (const auto& p : partitions) order.insert(order.end(), p.rows.begin(), p.rows.end());
  const auto& times = batch.column(1).int64s;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return times[a] != times[b] ? times[a] < times[b] : batch.Id(a) < batch.Id(b);
  });
  sinkd::parquet::WriterOptions writer_options;
  writer_options.zstd_level = zstd_level;
  writer_options.created_by = "sinkd version bench (build bench)";
  const auto schema = sinkd::batch::FileSchema(sinkd::row::kLedgerColumns);
  const auto view = sinkd::batch::FileView(batch);
  sinkd::parquet::MemoryOutputStream one_file;
  t = Clock::now();
  {
    sinkd::parquet::PartWriter writer(schema, writer_options, one_file);
    if (!writer.WriteRows(view, order).ok() || !writer.Finish({}).ok()) {
      std::fprintf(stderr, "encode failed\n");
      return 1;
    }
  }
  const double encode_s = Seconds(t);
  const fs::path ours = work / "ours.parquet";
  std::ofstream(ours, std::ios::binary).write(one_file.data().data(), one_file.data().size());

  // 4. The whole path on one thread: decode + partition/sort + encode + write (fsync, rename).
  batch.Clear();
  auto destination = sinkd::lake::DirDestination::Make((work / "lake").string());
  (void)(*destination)->Ensure();
  sinkd::lake::LakeWriterOptions lake_options;
  lake_options.key_prefix = "ledger";
  lake_options.instance = "bench";
  lake_options.parquet = writer_options;
  sinkd::lake::LakeWriter lake_writer(**destination, lake_options);
  t = Clock::now();
  for (const std::string& m : messages) decoder.Decode(sinkd::contract::Envelope::kBatch, m, batch, rejects);
  auto flushed = lake_writer.Flush(batch, {"bench", 1, messages.size()});
  const double full_s = Seconds(t);
  if (!flushed.ok()) {
    std::fprintf(stderr, "flush failed: %s\n", flushed.status().ToString().c_str());
    return 1;
  }

  // 5. The peer: DuckDB writes the same rows, from memory, with two threads.
  const std::string duck_json =
      Run("node " + std::string(SINKD_SOURCE_DIR) + "/bench/duckdb_copy.mjs '" + ours.string() + "' '" +
          (work / "duckdb.parquet").string() + "' " + std::to_string(zstd_level) + " 2 3");
  auto duck = nlohmann::json::parse(duck_json, nullptr, false);
  if (duck.is_discarded()) {
    std::fprintf(stderr, "duckdb peer failed: %s\n", duck_json.c_str());
    return 1;
  }
  const double duck_s = duck["best_ms"].get<double>() / 1000.0;
  const double duck_bytes = duck["bytes"].get<double>();

  // 6. Peak RSS of `sinkd import` for one 250,000-row batch over 200 partitions (25 apps × 8 days).
  sinkd::traffic::TrafficOptions spread = options;
  spread.seed = 7;
  spread.expected_events = 250'000;
  spread.span_micros = 8LL * 86'400'000'000;
  sinkd::traffic::TrafficGenerator spread_gen(spread);
  const fs::path spread_file = work / "spread.bin";
  (void)sinkd::traffic::WriteDelimitedFile(spread_gen, sinkd::traffic::StreamKind::kLedger, 500,
                                          spread_file.string());
  const std::string sinkd_bin = std::string(SINKD_BINARY_DIR) + "/src/cli/sinkd";
  const long rss_kib = PeakRssKib({sinkd_bin, "import", "ledger", "--lake-dir",
                                   (work / "rss-lake").string(), "--instance-id", "rss",
                                   spread_file.string()});
  size_t rss_partitions = 0;
  for (const auto& e : fs::recursive_directory_iterator(work / "rss-lake/ledger")) {
    if (e.is_regular_file()) ++rss_partitions;
  }

  const double ours_encode_rps = rows / encode_s, duck_rps = rows / duck_s;
  const double full_rps = rows / full_s;
  std::printf("lake_bench: %zu rows (%zu messages, %.1f MB on the wire), zstd level %d, %s\n", rows,
              messages.size(), input_bytes / 1e6, zstd_level, duck["version"].get<std::string>().c_str());
  std::printf("  %-44s %12s %12s %10s\n", "stage", "seconds", "rows/s", "bytes/row");
  std::printf("  %-44s %12.3f %12.0f\n", "decode (1 thread)", decode_s, rows / decode_s);
  std::printf("  %-44s %12.3f %12.0f\n", "partition + sort (1 thread)", sort_s, rows / sort_s);
  std::printf("  %-44s %12.3f %12.0f %10.1f\n", "sinkd encode, one file (1 thread)", encode_s,
              ours_encode_rps, one_file.data().size() / double(rows));
  std::printf("  %-44s %12.3f %12.0f %10.1f\n", "DuckDB COPY, one file (2 threads)", duck_s, duck_rps,
              duck_bytes / rows);
  std::printf("  %-44s %12.3f %12.0f %10.1f\n", "sinkd decode+sort+encode+write (1 thread)", full_s,
              full_rps, flushed->bytes / double(rows));
  std::printf("  parts written by the full path: %zu\n", flushed->parts.size());
  std::printf("ratios:\n");
  std::printf("  encode rows/s, sinkd (1 thread) / DuckDB (2 threads): %s  (target >= 1.5x) %s\n",
              Ratio(ours_encode_rps, duck_rps).c_str(), ours_encode_rps >= 1.5 * duck_rps ? "MET" : "MISSED");
  std::printf("  file size, sinkd / DuckDB:                           %s  (target <= 1.0x) %s\n",
              Ratio(one_file.data().size(), duck_bytes).c_str(),
              one_file.data().size() <= duck_bytes ? "MET" : "MISSED");
  std::printf("  decode+encode rows/s on 1 thread:                    %.0f (target >= 1,000,000) %s\n",
              full_rps, full_rps >= 1e6 ? "MET" : "MISSED");
  std::printf("  peak RSS, sinkd import of 250,000 rows over %zu partitions: %.0f MiB (target < 300) %s\n",
              rss_partitions, rss_kib / 1024.0, rss_kib > 0 && rss_kib < 300 * 1024 ? "MET" : "MISSED");
  if (keep.empty()) fs::remove_all(work);
  return 0;
}
