// compact_bench: `sinkd compact` against DuckDB doing the same job, in one run (issue 9 §5).
//
// A lake like a drain's: `sinkd generate ledger` + `sinkd import --batch-max-rows` (about 5,000
// Parts over 50 partitions at the full 2,000,000 rows), plus the first 3% of the messages imported
// a second time by another instance (duplicates). Then, RUNS times, each on a fresh copy:
//   - DuckDB's `COPY (SELECT … QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY time)
//     = 1) TO … (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date, app))` from the raw lake;
//   - `sinkd compact ledger` (one pass merges; a second, past --grace 0s, deletes the inputs),
//     its rows/s (rows in / wall seconds of the merging pass), CPU seconds and peak RSS (wait4);
//   - `sinkd import ledger` of the same rows into a fresh lake (default batches): its rows/s,
//     which compaction's should reach 0.8× of (issue 28);
//   - the same compaction of a copy whose Parts `sinkd table register` adopted into an Iceberg
//     table, with --table-format iceberg: the share of its merging pass spent reading the table
//     and committing each merge as a replace (the pass's table_seconds; issue 28: at most 3%),
//     and its wall time against the pass without a table;
// then the four queries of lake-lifecycle.md §1 on the raw and the compacted lake (DuckDB, best
// of three), and the write amplification of a simulated day: one date's rows in 288 five-minute
// flushes, each followed by one compaction pass on the engine's clock seam (the flush's end), then
// the passes after the date settled, as
// (bytes of the flushes' Parts + bytes compaction wrote) / bytes of the flushes' Parts.
// Prints the median of the runs with min–max, the machine (nproc, CPU, load) and which targets
// hold: compaction ≥ 2× DuckDB's rows/s, each query ≥ 5× faster after, write amplification ≤ 3,
// peak RSS ≤ 512 MiB; and the four queries on the compacted lake against DuckDB's own rewrite
// (the last run's COPY output), RUNS interleaved rounds, with each lake's layout (issue 28: the
// dedupe query at least as fast on ours).
// Usage: compact_bench [--rows N] [--runs R] [--day-flushes F] [--keep DIR]
// Child processes, spreads and the machine line come from bench/bench_support.h.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "bench_support.h"
#include "compact/compactor.h"
#include "lake/dir_destination.h"
#include "row/ledger_columns.h"

namespace {

namespace fs = std::filesystem;
namespace bench = sinkd::bench;

const fs::path kSinkd = fs::path(SINKD_BINARY_DIR) / "src/cli/sinkd";

struct Ran {
  bench::ChildRun run;
  std::string log;  // stdout and stderr
};

// Runs argv (stdout and stderr into one log); exits the bench when it fails.
Ran MustRun(const std::vector<std::string>& argv, const fs::path& scratch) {
  const std::string log = (scratch / "run.log").string();
  Ran r{bench::Run(argv, log), ""};
  r.log = bench::ReadFile(log);
  if (r.run.exit_code != 0) {
    std::fprintf(stderr, "compact_bench: %s exited %d\n%s\n", argv[0].c_str(), r.run.exit_code,
                 r.log.c_str());
    std::exit(1);
  }
  return r;
}

nlohmann::json Duck(const std::vector<std::string>& args, const fs::path& scratch) {
  std::string error;
  nlohmann::json j =
      bench::RunNodePeer("compact_duckdb.mjs", args, {}, (scratch / "duck.log").string(), error);
  if (j.is_discarded()) {
    std::fprintf(stderr, "compact_bench: %s\n", error.c_str());
    std::exit(1);
  }
  return j;
}

// Messages [first, last) of a varint-length-delimited file, into `to`.
void Slice(const fs::path& from, const fs::path& to, uint64_t first, uint64_t last) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  for (uint64_t i = 0; i < last; ++i) {
    uint64_t len = 0;
    std::string head;
    for (int shift = 0;; shift += 7) {
      const int c = in.get();
      if (c < 0) return;
      head.push_back(static_cast<char>(c));
      len |= static_cast<uint64_t>(c & 0x7f) << shift;
      if ((c & 0x80) == 0) break;
    }
    std::string body(len, '\0');
    in.read(body.data(), static_cast<std::streamsize>(len));
    if (i >= first) out << head << body;
  }
}

uint64_t TreeBytes(const fs::path& dir) {
  uint64_t n = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") n += e.file_size();
  }
  return n;
}

// Sum of a numeric field over the JSON log lines whose msg is `msg`.
template <typename T = uint64_t>
T SumLogged(const std::string& log, const std::string& msg, const std::string& field) {
  T sum = 0;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '{') continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("msg", "") != msg || !j.contains(field)) continue;
    sum += j[field].get<T>();
  }
  return sum;
}

// Issue 28: the four queries on the compacted lake against DuckDB's own rewrite of the same rows
// (its COPY … QUALIFY … PARTITION_BY output), `rounds` rounds, each the best of three per query,
// the two lakes taking turns to go first so each round's ratio saw one load; then how each lake
// is laid out (files, row groups, the dedupe query's two columns). Target: the dedupe query on
// the compacted lake at least as fast as on the rewrite.
void CompareWithRewrite(const fs::path& compacted, const fs::path& rewrite, int rounds,
                        const fs::path& scratch) {
  const std::string ours_glob = (compacted / "ledger/**/*.parquet").string();
  const std::string duck_glob = (rewrite / "**/*.parquet").string();
  const char* queries[] = {"dedupe_ms", "point_ms", "app_day_ms", "sums_ms"};
  std::vector<double> ours[4], duck[4];
  for (int round = 0; round < rounds; ++round) {
    nlohmann::json a, b;
    if (round % 2 == 0) {
      a = Duck({"queries", ours_glob, "2", "3"}, scratch);
      b = Duck({"queries", duck_glob, "2", "3"}, scratch);
    } else {
      b = Duck({"queries", duck_glob, "2", "3"}, scratch);
      a = Duck({"queries", ours_glob, "2", "3"}, scratch);
    }
    for (int q = 0; q < 4; ++q) {
      ours[q].push_back(a[queries[q]].get<double>());
      duck[q].push_back(b[queries[q]].get<double>());
    }
  }
  std::printf(
      "\nqueries, compacted lake against DuckDB's rewrite of the same rows (ms, median "
      "(min-max) of %d rounds, each the best of 3; speed = rewrite ms / compacted ms, "
      "round by round):\n",
      rounds);
  std::printf("%-12s %22s %22s  %s\n", "query", "compacted ms", "rewrite ms", "speed vs rewrite");
  for (int q = 0; q < 4; ++q) {
    const bench::Spread speed = bench::RatioSpread(duck[q], ours[q]);
    std::printf("%-12s %22s %22s  %s\n", queries[q],
                bench::Format(bench::SpreadOf(ours[q])).c_str(),
                bench::Format(bench::SpreadOf(duck[q])).c_str(),
                q == 0 ? bench::RatioLine(speed, 1.0).c_str()
                       : (bench::Format(speed, "%.2f") + "x").c_str());
  }
  for (const auto& [name, glob] :
       {std::pair{"compacted", ours_glob}, std::pair{"rewrite", duck_glob}}) {
    const nlohmann::json l = Duck({"layout", glob}, scratch);
    std::printf(
        "layout, %-9s: %llu files, %llu row groups (%llu rows each), event_id %s %.1f MB, "
        "time %s %.1f MB\n",
        name, l["files"].get<unsigned long long>(), l["row_groups"].get<unsigned long long>(),
        l["rows_per_row_group"].get<unsigned long long>(),
        l["event_id"]["encodings"].get<std::string>().c_str(),
        l["event_id"]["bytes"].get<double>() / 1e6,
        l["time"]["encodings"].get<std::string>().c_str(), l["time"]["bytes"].get<double>() / 1e6);
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t rows = 2'000'000;
  int runs = 3;
  int day_flushes = 288;
  std::string keep;
  bench::BenchFlags flags(
      "compact_bench",
      "`sinkd compact` against DuckDB's COPY … QUALIFY … PARTITION_BY on a lake of small Parts "
      "with 3% duplicates, the four queries before and after, the write amplification of a "
      "simulated day and the compactor's peak RSS.");
  flags.Add("rows", &rows, "rows in the raw lake (the full scale is the default)")
      .AddAtLeast("runs", &runs, 1, "runs of each side, interleaved")
      .AddAtLeast("day-flushes", &day_flushes, 1, "flushes of the simulated day")
      .Add("keep", &keep, "work in this directory and keep it (default: a temporary one)");
  flags.Parse(argc, argv);
  const fs::path work =
      keep.empty() ? fs::temp_directory_path() / ("compact_bench." + std::to_string(getpid()))
                   : fs::path(keep);
  fs::create_directories(work);
  bench::PrintMachine("compact_bench");
  std::printf("compact_bench: %llu rows, %d runs\n", static_cast<unsigned long long>(rows), runs);

  // The raw lake: a Part per partition per flush; 10,000-row flushes give about 5,000 Parts at
  // 2,000,000 rows (250 events a message, like lake-lifecycle.md §1).
  const uint64_t messages = std::max<uint64_t>(1, rows / 250);
  const uint64_t batch_rows = std::max<uint64_t>(100, rows / 200);
  const fs::path wire = work / "ledger.bin", dup = work / "dup.bin", raw = work / "raw";
  fs::remove_all(raw);
  MustRun({kSinkd.string(), "generate", "ledger", "--messages", std::to_string(messages),
           "--events-per-batch", "250", "--seed", "9", "-o", wire.string()},
          work);
  Slice(wire, dup, 0, std::max<uint64_t>(1, messages * 3 / 100));
  MustRun({kSinkd.string(), "import", "ledger", "--lake-dir", raw.string(), "--instance-id", "a",
           "--batch-max-rows", std::to_string(batch_rows), wire.string()},
          work);
  MustRun({kSinkd.string(), "import", "ledger", "--lake-dir", raw.string(), "--instance-id", "b",
           "--batch-max-rows", std::to_string(batch_rows), dup.string()},
          work);
  const std::string raw_glob = (raw / "ledger/**/*.parquet").string();
  const nlohmann::json raw_counts = Duck({"counts", raw_glob}, work);
  std::printf("raw lake: %llu rows (%llu distinct event_ids), %llu Parts, %.1f MB\n",
              raw_counts["rows"].get<unsigned long long>(),
              raw_counts["distinct"].get<unsigned long long>(),
              raw_counts["files"].get<unsigned long long>(), TreeBytes(raw) / 1e6);

  // `sinkd import` of the same rows (the messages and the 3% again) into a fresh lake at its
  // default batch size: the encode compaction shares, with protobuf decoding instead of Parquet's.
  const fs::path same = work / "same.bin", imported = work / "imported";
  {
    std::ofstream out(same, std::ios::binary | std::ios::trunc);
    for (const fs::path& part : {wire, dup}) {
      std::ifstream in(part, std::ios::binary);
      out << in.rdbuf();
    }
  }

  std::vector<double> duck_rps, sinkd_rps, rss_mib, import_rps, compact_cpu, import_cpu;
  std::vector<double> table_share, table_wall, plain_wall;
  nlohmann::json compacted_counts;
  const fs::path lake = work / "lake", table_lake = work / "table";
  for (int run = 0; run < runs; ++run) {
    const fs::path duck_out = work / "duck";
    fs::remove_all(duck_out);
    const nlohmann::json d = Duck({"copy", raw_glob, duck_out.string(), "2"}, work);
    duck_rps.push_back(d["rows_in"].get<double>() / (d["ms"].get<double>() / 1e3));
    fs::remove_all(lake);
    fs::copy(raw, lake, fs::copy_options::recursive);
    const Ran merge = MustRun({kSinkd.string(), "compact", "ledger", "--lake-dir", lake.string(),
                               "--min-parts", "2", "--grace", "0s"},
                              work);
    const uint64_t rows_in = SumLogged(merge.log, "compaction pass finished", "rows_in");
    sinkd_rps.push_back(static_cast<double>(rows_in) / merge.run.wall);
    rss_mib.push_back(merge.run.max_rss_kib / 1024.0);
    compact_cpu.push_back(merge.run.cpu);
    fs::remove_all(imported);
    const Ran import = MustRun({kSinkd.string(), "import", "ledger", "--lake-dir",
                                imported.string(), "--instance-id", "i", same.string()},
                               work);
    import_rps.push_back(raw_counts["rows"].get<double>() / import.run.wall);
    import_cpu.push_back(import.run.cpu);
    fs::remove_all(table_lake);
    fs::copy(raw, table_lake, fs::copy_options::recursive);
    MustRun({kSinkd.string(), "table", "register", "ledger", "--lake-dir", table_lake.string()},
            work);
    const Ran table_merge =
        MustRun({kSinkd.string(), "compact", "ledger", "--lake-dir", table_lake.string(),
                 "--table-format", "iceberg", "--min-parts", "2", "--grace", "0s"},
                work);
    const double table_seconds =
        SumLogged<double>(table_merge.log, "compaction pass finished", "table_seconds");
    table_share.push_back(table_seconds / table_merge.run.wall);
    table_wall.push_back(table_merge.run.wall);
    plain_wall.push_back(merge.run.wall);
    MustRun({kSinkd.string(), "compact", "ledger", "--lake-dir", lake.string(), "--min-parts", "2",
             "--grace", "0s"},
            work);
    compacted_counts = Duck({"counts", (lake / "ledger/**/*.parquet").string()}, work);
    std::printf(
        "run %d: DuckDB %.0f rows/s (%.1f s), sinkd compact %.0f rows/s (%.1f s, peak RSS "
        "%.0f MiB), sinkd import %.0f rows/s (%.1f s), sinkd compact of the Iceberg table "
        "%.1f s (%.2f s of it the table's)\n",
        run + 1, duck_rps.back(), d["ms"].get<double>() / 1e3, sinkd_rps.back(), merge.run.wall,
        rss_mib.back(), import_rps.back(), raw_counts["rows"].get<double>() / import_rps.back(),
        table_merge.run.wall, table_seconds);
  }
  std::printf("compacted lake: %llu rows (%llu distinct), %llu files, %.1f MB\n",
              compacted_counts["rows"].get<unsigned long long>(),
              compacted_counts["distinct"].get<unsigned long long>(),
              compacted_counts["files"].get<unsigned long long>(), TreeBytes(lake) / 1e6);

  const nlohmann::json q_raw = Duck({"queries", raw_glob, "2", "3"}, work);
  const nlohmann::json q_new =
      Duck({"queries", (lake / "ledger/**/*.parquet").string(), "2", "3"}, work);
  const fs::path rewrite = work / "duck";  // the last run's COPY output

  // A simulated day: the rows of one UTC date (2026-09-29, the generator's first) in
  // `day_flushes` consecutive flushes (`sinkd import` of consecutive messages, five minutes of
  // events each), a compaction pass after each with the engine's clock at the flush's end, then
  // passes once the date has settled: what `--follow --every 5m` does over a day.
  const fs::path day = work / "day", day_wire = work / "day.bin", one = work / "flush.bin";
  fs::remove_all(day);
  MustRun({kSinkd.string(), "generate", "ledger", "--messages", std::to_string(messages),
           "--events-per-batch", "250", "--seed", "10", "--expected-events",
           std::to_string(2 * messages * 250), "-o", day_wire.string()},
          work);
  auto destination = sinkd::lake::DirDestination::Make(day.string());
  if (!destination.ok() || !(*destination)->Ensure().ok()) {
    std::fprintf(stderr, "compact_bench: cannot open %s\n", day.c_str());
    return 1;
  }
  int64_t now_ms = 1'790'640'000'000;  // 2026-09-29T00:00:00Z
  sinkd::compact::CompactOptions options;
  options.table = &sinkd::row::kLedgerColumns;
  options.prefix = "ledger";
  options.instance = "bench";
  options.grace_ms = 0;
  options.now_unix_ms = [&now_ms] { return now_ms; };
  sinkd::compact::Compactor compactor(**destination, options);
  uint64_t flushed_bytes = 0, compacted_bytes = 0, passes = 0;
  auto pass = [&] {
    sinkd::compact::PassReport report;
    auto r = compactor.RunPass({}, &report);
    if (!r.ok()) {
      std::fprintf(stderr, "compact_bench: pass failed: %s\n", r.status().message().c_str());
      std::exit(1);
    }
    compacted_bytes += r->bytes_written;
    ++passes;
  };
  for (int f = 0; f < day_flushes; ++f) {
    Slice(day_wire, one, messages * f / day_flushes, messages * (f + 1) / day_flushes);
    const uint64_t before = TreeBytes(day);
    MustRun({kSinkd.string(), "import", "ledger", "--lake-dir", day.string(), "--instance-id",
             "f" + std::to_string(f), "--batch-max-rows", "1000000", one.string()},
            work);
    flushed_bytes += TreeBytes(day) - before;
    now_ms += 86'400'000 / day_flushes;
    pass();
  }
  now_ms += options.settle_ms + 60'000;  // the date closed and settled
  pass();
  pass();
  const double wa =
      flushed_bytes ? static_cast<double>(flushed_bytes + compacted_bytes) / flushed_bytes : 0;

  const bench::Spread duck = bench::SpreadOf(duck_rps), ours = bench::SpreadOf(sinkd_rps),
                      rss = bench::SpreadOf(rss_mib);
  std::printf("\ncompaction rows/s (median, min-max of %d runs): sinkd %s, DuckDB COPY %s\n", runs,
              bench::Format(ours).c_str(), bench::Format(duck).c_str());
  std::printf("sinkd / DuckDB, run by run: %s\n",
              bench::RatioLine(bench::RatioSpread(sinkd_rps, duck_rps), 2).c_str());
  std::printf(
      "compact vs import rows/s (median, min-max of %d runs, the same rows): compact %s, "
      "import %s\n",
      runs, bench::Format(ours).c_str(), bench::Format(bench::SpreadOf(import_rps)).c_str());
  std::printf("compact / import, run by run: %s\n",
              bench::RatioLine(bench::RatioSpread(sinkd_rps, import_rps), 0.8).c_str());
  std::printf("CPU seconds (user + system): compact %s, import %s\n",
              bench::Format(bench::SpreadOf(compact_cpu), "%.2f").c_str(),
              bench::Format(bench::SpreadOf(import_cpu), "%.2f").c_str());
  const bench::Spread share = bench::SpreadOf(table_share);
  std::printf(
      "Iceberg table's share of the merging pass (reading it, committing the replaces): %.2f%% "
      "(%.2f-%.2f%%)  [target <= 3%%: %s]\n",
      share.median * 100, share.min * 100, share.max * 100,
      share.median <= 0.03 ? "met" : "NOT met");
  std::printf("merging pass with the table / without, run by run: %s\n",
              bench::Format(bench::RatioSpread(table_wall, plain_wall), "%.3f").c_str());
  std::printf("peak RSS of sinkd compact: %.0f MiB (%.0f-%.0f)  [target <= 512 MiB: %s]\n",
              rss.median, rss.min, rss.max, rss.max <= 512 ? "met" : "NOT met");
  std::printf("%-12s %10s %12s %8s\n", "query", "raw ms", "compacted ms", "speed-up");
  bool all_fast = true;
  for (const char* q : {"dedupe_ms", "point_ms", "app_day_ms", "sums_ms"}) {
    const double a = q_raw[q].get<double>(), b = q_new[q].get<double>();
    all_fast = all_fast && a >= 5 * b;
    std::printf("%-12s %10.0f %12.0f %7.1fx\n", q, a, b, a / b);
  }
  std::printf("every query >= 5x faster after compaction: %s\n", all_fast ? "met" : "NOT met");
  CompareWithRewrite(lake, rewrite, runs, work);
  std::printf(
      "write amplification of a day in %d flushes (%llu passes): %.2f ((%.1f MB flushed + "
      "%.1f MB compacted) / flushed)  [target <= 3: %s]\n",
      day_flushes, static_cast<unsigned long long>(passes), wa, flushed_bytes / 1e6,
      compacted_bytes / 1e6, wa <= 3 ? "met" : "NOT met");
  bench::PrintLoadAfter();
  if (keep.empty()) fs::remove_all(work);
  return 0;
}
