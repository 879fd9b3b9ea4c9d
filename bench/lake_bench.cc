// lake_bench: the lake's hot path against its peers and its limit, in one run, by wall clock.
//
// 1,000,000 generated ledger events (2,000 Batches of 500) are measured, each figure the median of
// --runs rounds (default 5) with its min–max; the rounds are interleaved (round i of every side
// back to back), so a ratio is taken per round and printed with its spread too:
//   full path     `sinkd import ledger` of the events' wire bytes from a file: decode → partition
//                 → encode → write (50+ Parts), with `--encode-threads <cores>` when sinkd has it;
//   one-file      every decoded row into ONE Parquet file in memory, in (time, event_id) order, on
//                 a WorkPool of <cores> threads when the build has one (base/work_pool.h);
//   DuckDB        `COPY … (FORMAT parquet, COMPRESSION zstd)` from an in-memory table, one file
//                 and PARTITION_BY (date, app), two threads (bench/duckdb_copy.mjs);
//   polars        nodejs-polars `writeParquet`, zstd, two threads (bench/polars_write.mjs);
//   limit         one ZSTD pass over the wire bytes at the same level, two threads each
//                 compressing half: what any decode + encode at this level must at least spend;
//   peak RSS      `sinkd import` of 250,000 rows over 200 partitions (25 apps × 8 days), first,
//                 while this process is small.
// Prints the machine (cores, CPU model, load average before and after) and the targets.
// Usage: lake_bench [--events N] [--runs R] [--zstd-level L] [--keep DIR]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <zstd.h>

#if __has_include("base/work_pool.h")
#include "bench_flags.h"
#include "base/work_pool.h"
#define SINKD_BENCH_HAS_WORK_POOL 1
#endif
#include "base/memory.h"
#include "partition/part_schema.h"
#include "partition/partitioner.h"
#include "bench_support.h"
#include "contract/delimited.h"
#include "contract/wire_decoder.h"
#include "lake/lake_writer.h"
#include "parquet/part_writer.h"
#include "row/ledger_columns.h"
#include "traffic/traffic_generator.h"

namespace {

namespace fs = std::filesystem;
using sinkd::bench::Clock;
using sinkd::bench::Format;
using sinkd::bench::RatioLine;
using sinkd::bench::RatioSpread;
using sinkd::bench::Seconds;
using sinkd::bench::Spread;
using sinkd::bench::SpreadOf;

int Fail(const std::string& what) {
  std::fprintf(stderr, "lake_bench: %s\n", what.c_str());
  return 1;
}

// Parquet files under `dir`: how many, their bytes, and the directories (partitions) holding them.
struct Lake {
  size_t files = 0;
  uint64_t bytes = 0;
  size_t partitions = 0;
};
Lake FilesUnder(const fs::path& dir) {
  Lake lake;
  if (!fs::exists(dir)) return lake;
  std::set<fs::path> partitions;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") {
      ++lake.files;
      lake.bytes += e.file_size();
      partitions.insert(e.path().parent_path());
    }
  }
  lake.partitions = partitions.size();
  return lake;
}

// One ZSTD pass over `messages` on `threads` threads, each compressing a contiguous share, in
// wall seconds; negative on a ZSTD error.
double ZstdPass(const std::vector<std::string>& messages, int level, unsigned threads,
                size_t& compressed_bytes) {
  std::vector<size_t> out(threads, 0);
  std::vector<bool> failed(threads, false);
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      ZSTD_CCtx* cctx = ZSTD_createCCtx();
      ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
      const size_t first = messages.size() * t / threads;
      const size_t last = messages.size() * (t + 1) / threads;
      size_t largest = 0;
      for (size_t i = first; i < last; ++i) largest = std::max(largest, messages[i].size());
      std::string buffer(ZSTD_compressBound(largest), '\0');
      for (size_t i = first; i < last; ++i) {
        const size_t n = ZSTD_compress2(cctx, buffer.data(), buffer.size(), messages[i].data(),
                                        messages[i].size());
        if (ZSTD_isError(n)) {
          failed[t] = true;
          break;
        }
        out[t] += n;
      }
      ZSTD_freeCCtx(cctx);
    });
  }
  for (auto& w : workers) w.join();
  const double wall = Seconds(start);
  compressed_bytes = 0;
  for (unsigned t = 0; t < threads; ++t) {
    if (failed[t]) return -1;
    compressed_bytes += out[t];
  }
  return wall;
}

void PrintRow(const char* name, const std::vector<double>& seconds, double rows, double bytes) {
  std::vector<double> rates;
  for (double s : seconds) rates.push_back(rows / s);
  std::printf("  %-52s %-28s %-22s", name, Format(SpreadOf(rates)).c_str(),
              Format(SpreadOf(seconds), "%.3f").c_str());
  if (bytes > 0) std::printf(" %9.1f", bytes / rows);
  std::printf("\n");
}

std::vector<double> Rates(const std::vector<double>& seconds, double rows) {
  std::vector<double> rates;
  for (double s : seconds) rates.push_back(rows / s);
  return rates;
}

}  // namespace

int main(int argc, char** argv) {
  sinkd::KeepFreedMemory();  // as the sinkd binary does
  int64_t events = 1'000'000;
  int runs = 5;
  int zstd_level = 3;
  std::string keep;
  sinkd::bench::BenchFlags flags(
      "lake_bench",
      "The lake's hot path (`sinkd import`, and the one-file encode) against DuckDB's COPY, "
      "nodejs-polars and one ZSTD pass over the wire bytes, in one run, by wall clock.");
  flags.Add("events", &events, "generated ledger events (the full scale is the default)")
      .AddAtLeast("runs", &runs, 1, "rounds of each side, interleaved")
      .Add("zstd-level", &zstd_level, "ZSTD level of every side")
      .Add("keep", &keep, "work in this directory and keep it (default: a temporary one)");
  flags.Parse(argc, argv);
  const fs::path work = keep.empty()
                            ? fs::temp_directory_path() / ("lake-bench-" + std::to_string(getpid()))
                            : fs::path(keep);
  fs::create_directories(work);
  const unsigned cores = sinkd::bench::Cores();
  const std::string peer_threads = "2";  // the peers run on two threads
  const std::string level = std::to_string(zstd_level);
  sinkd::bench::PrintMachine("lake_bench");
  const std::string sinkd_bin = std::string(SINKD_BINARY_DIR) + "/src/cli/sinkd";
  const std::vector<std::string> threads_flag =
      sinkd::bench::EncodeThreadsFlag(sinkd_bin, {"import", "ledger"}, cores);

  // 0. Peak RSS, first, while this process is small (see bench_support.h on Spawn).
  const fs::path spread_file = work / "spread.bin";
  // Written by a forked child, so that this process never grows before the RSS is measured.
  if (const pid_t writer = fork(); writer == 0) {
    sinkd::traffic::TrafficOptions spread;
    spread.events_per_batch = 500;
    spread.seed = 7;
    spread.expected_events = 250'000;
    spread.span_micros = 8LL * 86'400'000'000;
    sinkd::traffic::TrafficGenerator generator(spread);
    _exit(sinkd::traffic::WriteDelimitedFile(generator, sinkd::traffic::StreamKind::kLedger, 500,
                                             spread_file.string()).ok() ? 0 : 1);
  } else {
    int status = 0;
    waitpid(writer, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return Fail("cannot write " + spread_file.string());
    }
  }
  std::vector<double> rss_mib;
  size_t rss_partitions = 0;
  for (int r = 0; r < runs; ++r) {
    const fs::path lake = work / "rss-lake";
    fs::remove_all(lake);
    std::vector<std::string> args = {sinkd_bin, "import", "ledger", "--lake-dir", lake.string(),
                                     "--instance-id", "rss"};
    args.insert(args.end(), threads_flag.begin(), threads_flag.end());
    args.push_back(spread_file.string());
    const sinkd::bench::ChildRun run = sinkd::bench::Run(args, (work / "rss.log").string());
    if (run.exit_code != 0) return Fail("sinkd import (RSS) failed: " + sinkd::bench::ReadFile((work / "rss.log").string()));
    rss_mib.push_back(run.max_rss_kib / 1024.0);
    rss_partitions = FilesUnder(lake).partitions;
  }

  // Input: the bytes that travel on GARM_LEDGER, in memory and as `sinkd import`'s file.
  sinkd::traffic::TrafficOptions options;
  options.seed = 2026;
  options.events_per_batch = 500;
  options.expected_events = events;
  sinkd::traffic::TrafficGenerator generator(options);
  std::vector<std::string> messages;
  size_t input_bytes = 0;
  const fs::path wire_file = work / "ledger.bin";
  {
    std::ofstream out(wire_file, std::ios::binary);
    std::string framed;
    for (int64_t n = 0; n < events; n += options.events_per_batch) {
      messages.push_back(generator.NextLedgerMessage());
      input_bytes += messages.back().size();
      framed.clear();
      sinkd::contract::AppendDelimited(framed, messages.back());
      out.write(framed.data(), static_cast<std::streamsize>(framed.size()));
    }
    if (!out) return Fail("cannot write " + wire_file.string());
  }

  // Decoded once (not timed): the one-file encode starts from columns, as DuckDB and polars
  // start from their in-memory tables.
  sinkd::contract::WireDecoder decoder;
  sinkd::row::RowBuffer batch(sinkd::row::kLedgerColumns);
  std::vector<sinkd::contract::Reject> rejects;
  for (const std::string& m : messages) {
    decoder.Decode(sinkd::contract::Envelope::kBatch, m, batch, rejects);
  }
  const size_t rows = batch.rows();
  std::vector<uint32_t> order;
  order.reserve(rows);
  for (const auto& p : sinkd::partition::PartitionRows(batch)) {
    order.insert(order.end(), p.rows.begin(), p.rows.end());
  }
  const auto& times = batch.column(1).int64s;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return times[a] != times[b] ? times[a] < times[b] : batch.Id(a) < batch.Id(b);
  });
  sinkd::parquet::WriterOptions writer_options = sinkd::lake::LakePartOptions();
  writer_options.zstd_level = zstd_level;
  writer_options.created_by = "sinkd version bench (build bench)";
  const auto schema = sinkd::partition::FileSchema(sinkd::row::kLedgerColumns);
  const auto view = sinkd::partition::FileView(batch);
#ifdef SINKD_BENCH_HAS_WORK_POOL
  sinkd::WorkPool pool(cores);
  sinkd::WorkPool* encode_pool = &pool;
  const unsigned encode_threads = cores;
#else
  const unsigned encode_threads = 1;
#endif
  const fs::path ours = work / "ours.parquet";
  size_t one_file_bytes = 0;
  const auto encode_one_file = [&]() -> double {
    sinkd::parquet::MemoryOutputStream out;
    const Clock::time_point start = Clock::now();
    {
#ifdef SINKD_BENCH_HAS_WORK_POOL
      sinkd::parquet::PartWriter writer(schema, writer_options, out, encode_pool);
#else
      sinkd::parquet::PartWriter writer(schema, writer_options, out);
#endif
      if (!writer.WriteRows(view, order).ok() || !writer.Finish({}).ok()) return -1;
    }
    const double wall = Seconds(start);
    if (one_file_bytes == 0) {
      one_file_bytes = out.data().size();
      std::ofstream(ours, std::ios::binary).write(out.data().data(), out.data().size());
    }
    return wall;
  };
  // A first round, untimed, writes the peers' input and grows every buffer once.
  if (encode_one_file() < 0) return Fail("the one-file encode failed");

  // The interleaved rounds.
  std::vector<double> full_s, encode_s, zstd_s, duck_one_s, duck_part_s, polars_s;
  size_t full_parts = 0, zstd_bytes = 0;
  uint64_t full_bytes = 0;
  double duck_one_bytes = 0, duck_part_bytes = 0, duck_part_files = 0, polars_bytes = 0;
  std::string duck_version, polars_version, error;
  for (int r = 0; r < runs; ++r) {
    const fs::path lake = work / "lake";
    fs::remove_all(lake);
    std::vector<std::string> args = {sinkd_bin, "import", "ledger", "--lake-dir", lake.string(),
                                     "--instance-id", "bench"};
    args.insert(args.end(), threads_flag.begin(), threads_flag.end());
    args.push_back(wire_file.string());
    const sinkd::bench::ChildRun full = sinkd::bench::Run(args, (work / "import.log").string());
    if (full.exit_code != 0) return Fail("sinkd import failed: " + sinkd::bench::ReadFile((work / "import.log").string()));
    full_s.push_back(full.wall);
    const Lake written = FilesUnder(lake);
    full_parts = written.files;
    full_bytes = written.bytes;
    fs::remove_all(lake);

    const double encode = encode_one_file();
    if (encode < 0) return Fail("the one-file encode failed");
    encode_s.push_back(encode);

    const double zstd = ZstdPass(messages, zstd_level, 2, zstd_bytes);
    if (zstd < 0) return Fail("the ZSTD limit pass failed");
    zstd_s.push_back(zstd);

    const std::string peer_log = (work / "peer.log").string();
    nlohmann::json duck = sinkd::bench::RunNodePeer(
        "duckdb_copy.mjs", {ours.string(), (work / "duckdb.parquet").string(), level, peer_threads, "1"},
        {}, peer_log, error);
    if (duck.is_discarded()) return Fail(error);
    duck_one_s.push_back(duck["runs_ms"][0].get<double>() / 1000);
    duck_one_bytes = duck["bytes"].get<double>();
    duck_version = duck["version"].get<std::string>();

    nlohmann::json part = sinkd::bench::RunNodePeer(
        "duckdb_copy.mjs",
        {ours.string(), (work / "duckdb-lake").string(), level, peer_threads, "1", "partitioned"},
        {}, peer_log, error);
    if (part.is_discarded()) return Fail(error);
    duck_part_s.push_back(part["runs_ms"][0].get<double>() / 1000);
    duck_part_bytes = part["bytes"].get<double>();
    duck_part_files = part["files"].get<double>();
    fs::remove_all(work / "duckdb-lake");

    nlohmann::json polars = sinkd::bench::RunNodePeer(
        "polars_write.mjs", {ours.string(), (work / "polars.parquet").string(), level, "1"},
        {"POLARS_MAX_THREADS=" + peer_threads}, peer_log, error);
    if (polars.is_discarded()) return Fail(error);
    polars_s.push_back(polars["runs_ms"][0].get<double>() / 1000);
    polars_bytes = polars["bytes"].get<double>();
    polars_version = polars["version"].get<std::string>();
  }

  const double n = static_cast<double>(rows);
  std::printf("lake_bench: %zu rows (%zu messages, %.1f MB on the wire), zstd level %d, %d rounds; "
              "DuckDB %s, nodejs-polars %s\n",
              rows, messages.size(), input_bytes / 1e6, zstd_level, runs, duck_version.c_str(),
              polars_version.c_str());
  std::printf("  sinkd import %s; one-file encode on %u thread(s)%s\n",
              threads_flag.empty() ? "without --encode-threads (this sinkd has no such flag)"
                                   : ("with --encode-threads " + threads_flag[1]).c_str(),
              encode_threads,
              encode_threads == 1 ? " (this build has no WorkPool)" : "");
  std::printf("  %-52s %-28s %-22s %9s\n", "figure (median (min–max) of the rounds)",
              "rows/s (wall)", "wall s", "bytes/row");
  PrintRow("sinkd import: decode+partition+encode+write", full_s, n, static_cast<double>(full_bytes));
  std::printf("    %zu Parts\n", full_parts);
  PrintRow("DuckDB COPY PARTITION_BY (date, app), 2 threads", duck_part_s, n, duck_part_bytes);
  std::printf("    %.0f files\n", duck_part_files);
  PrintRow("sinkd encode, one file", encode_s, n, static_cast<double>(one_file_bytes));
  PrintRow("DuckDB COPY, one file, 2 threads", duck_one_s, n, duck_one_bytes);
  PrintRow("nodejs-polars writeParquet zstd, 2 threads", polars_s, n, polars_bytes);
  PrintRow("limit: one ZSTD pass over the wire bytes, 2 threads", zstd_s, n, static_cast<double>(zstd_bytes));

  const auto full_rps = Rates(full_s, n), encode_rps = Rates(encode_s, n);
  std::printf("ratios (per round, median (min–max)):\n");
  std::printf("  full path / DuckDB PARTITION_BY:        %s\n",
              RatioLine(RatioSpread(full_rps, Rates(duck_part_s, n)), 1.5).c_str());
  std::printf("  one-file encode / DuckDB one file:      %s\n",
              RatioLine(RatioSpread(encode_rps, Rates(duck_one_s, n)), 1.5).c_str());
  std::printf("  one-file encode / polars:               %s\n",
              RatioLine(RatioSpread(encode_rps, Rates(polars_s, n)), 1.5).c_str());
  std::printf("  full path / two-core ZSTD pass (limit): %s\n",
              RatioLine(RatioSpread(full_rps, Rates(zstd_s, n)), 0.5).c_str());
  std::printf("  file size, sinkd one file / DuckDB:     %.2f×  (target <= 1.00×: %s)\n",
              one_file_bytes / duck_one_bytes, one_file_bytes <= duck_one_bytes ? "MET" : "MISSED");
  const Spread rss = SpreadOf(rss_mib);
  std::printf("  peak RSS, sinkd import of 250,000 rows over %zu partitions: %s MiB  "
              "(target <= 300: %s)\n",
              rss_partitions, Format(rss).c_str(), rss.max <= 300 ? "MET" : "MISSED");
  sinkd::bench::PrintLoadAfter();
  if (keep.empty()) fs::remove_all(work);
  return 0;
}
