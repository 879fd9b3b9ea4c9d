// flush_profile: the encode of one batch three ways, each alone, for a profiler and for timing at
// several --encode-threads. 1,000,000 generated ledger events (lake_bench's input, seed 2026) are
// decoded once; then each round times one of
//   encode  every row into ONE file, in (time, id) order, in memory (lake_bench's "one file");
//   parts   each partition into its own file, in memory: the flush's encode without a Destination
//           (partitioning and putting each Part's rows together included, as Flush does);
//   flush   LakeWriter::Flush into a directory lake (encode + write + fsync + rename), a fresh
//           directory per round.
// Prints each round's wall seconds and the process's CPU seconds (user + sys, all threads), and
// the medians: on a shared machine the CPU figure says what the work costs, the wall one what
// the threads bought. Usage:
//   flush_profile --mode encode|parts|flush [--rounds 5] [--encode-threads N] [--events N] [--dir D]
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "base/memory.h"
#include "base/work_pool.h"
#include "partition/part_schema.h"
#include "partition/partitioner.h"
#include "contract/wire_decoder.h"
#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "parquet/part_writer.h"
#include "row/ledger_columns.h"
#include "traffic/traffic_generator.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ProcessCpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

std::string Load() {
  std::string text;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    char buf[128] = {};
    if (std::fgets(buf, sizeof buf, f)) text = buf;
    std::fclose(f);
  }
  return text.empty() ? "?\n" : text;
}

double ThreadCpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  sinkd::KeepFreedMemory();  // as the sinkd binary does
  std::string mode = "flush";
  int rounds = 5;
  size_t threads = sinkd::WorkPool::DefaultThreads();
  int64_t events = 1'000'000;
  fs::path dir = fs::temp_directory_path() / ("flush-profile-" + std::to_string(getpid()));
  std::string dir_flag = dir.string();
  sinkd::bench::BenchFlags flags(
      "flush_profile",
      "The encode of one batch alone (encode: one file in memory; parts: the flush's Parts in "
      "memory; flush: LakeWriter::Flush into a directory), for a profiler and for timing at "
      "several --encode-threads.");
  flags.Add("mode", &mode, "encode, parts or flush")
      .AddAtLeast("rounds", &rounds, 1, "rounds timed")
      .Add("encode-threads", &threads, "threads of the encode pool")
      .Add("events", &events, "generated ledger events")
      .Add("dir", &dir_flag, "the directory lake of --mode flush");
  flags.Parse(argc, argv);
  dir = dir_flag;
  sinkd::traffic::TrafficOptions options;
  options.seed = 2026;
  options.events_per_batch = 500;
  options.expected_events = events;
  sinkd::traffic::TrafficGenerator generator(options);
  sinkd::contract::WireDecoder decoder;
  sinkd::row::RowBuffer batch(sinkd::row::kLedgerColumns);
  std::vector<sinkd::contract::Reject> rejects;
  for (int64_t n = 0; n < events; n += options.events_per_batch) {
    decoder.Decode(sinkd::contract::Envelope::kBatch, generator.NextLedgerMessage(), batch, rejects);
  }
  const auto partitions = sinkd::partition::PartitionRows(batch);
  std::vector<uint32_t> order;
  for (const auto& p : partitions) order.insert(order.end(), p.rows.begin(), p.rows.end());
  const auto& times = batch.column(1).int64s;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return times[a] != times[b] ? times[a] < times[b] : batch.Id(a) < batch.Id(b);
  });
  sinkd::lake::LakeWriterOptions lake_options;
  lake_options.key_prefix = "ledger";
  lake_options.instance = "profile";
  lake_options.parquet.created_by = "sinkd version bench (build bench)";
  lake_options.encode_threads = threads;
  const auto schema = sinkd::partition::FileSchema(sinkd::row::kLedgerColumns);
  const auto view = sinkd::partition::FileView(batch);
  sinkd::WorkPool pool(threads);

  std::vector<double> seconds, cpu, caller;
  uint64_t bytes = 0;
  for (int round = 0; round < rounds; ++round) {
    const fs::path lake = dir / std::to_string(round);
    fs::create_directories(lake);
    auto destination = sinkd::lake::DirDestination::Make(lake.string());
    if (!destination.ok() || !(*destination)->Ensure().ok()) return 1;
    sinkd::lake::LakeWriter writer(**destination, lake_options);
    // A flush reorders the batch it is given: each round starts from the batch as decoded.
    sinkd::row::RowBuffer work = batch;
    const auto start = Clock::now();
    const double cpu_start = ProcessCpu();
    const double caller_start = ThreadCpu();
    bytes = 0;
    if (mode == "encode") {
      sinkd::parquet::MemoryOutputStream out;
      sinkd::parquet::PartWriter part(schema, lake_options.parquet, out, &pool);
      if (!part.WriteRows(view, order).ok() || !part.Finish({}).ok()) return 1;
      bytes = out.data().size();
    } else if (mode == "parts") {
      // As a flush does it: partition, put each Part's rows together, encode.
      auto parts = sinkd::partition::PartitionRows(work);
      sinkd::partition::OrderByPartition(work, parts, pool);
      const auto work_view = sinkd::partition::FileView(work);
      std::vector<uint64_t> sizes(parts.size());
      pool.ParallelFor(parts.size(), [&](size_t i, size_t) {
        sinkd::parquet::MemoryOutputStream out;
        sinkd::parquet::PartWriter part(schema, lake_options.parquet, out, &pool);
        if (!part.WriteRows(work_view, parts[i].rows).ok() || !part.Finish({}).ok()) std::abort();
        sizes[i] = out.data().size();
      });
      for (uint64_t s : sizes) bytes += s;
    } else {
      auto report = writer.Flush(work, {"profile", 1, 2000});
      if (!report.ok()) {
        std::fprintf(stderr, "%s\n", report.status().ToString().c_str());
        return 1;
      }
      bytes = report->bytes;
    }
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    cpu.push_back(ProcessCpu() - cpu_start);
    caller.push_back(ThreadCpu() - caller_start);
    fs::remove_all(lake);
  }
  fs::remove_all(dir);
  std::printf("flush_profile --mode %s --encode-threads %zu: %zu rows, %zu partitions, %llu bytes; wall s:",
              mode.c_str(), threads, batch.rows(), partitions.size(),
              static_cast<unsigned long long>(bytes));
  for (double s : seconds) std::printf(" %.3f", s);
  const double median = Median(seconds);
  std::printf("; median %.3f s = %.0f rows/s (min %.3f, max %.3f); cpu s median %.3f = %.0f rows "
              "per cpu-second; load %s",
              median, batch.rows() / median, *std::min_element(seconds.begin(), seconds.end()),
              *std::max_element(seconds.begin(), seconds.end()), Median(cpu),
              batch.rows() / Median(cpu), Load().c_str());
  // On a loaded machine the wall time says little about what the threads bought. The busiest
  // thread's CPU is a floor for the wall time on idle cores: the caller's, or the others' share.
  std::vector<double> busiest;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const double others = cpu[i] - caller[i];
    busiest.push_back(std::max(caller[i], threads > 1 ? others / (threads - 1) : 0.0));
  }
  std::printf("  calling thread cpu s median %.3f; busiest thread cpu s median %.3f = %.0f rows/s "
              "if every thread had a core of its own\n",
              Median(caller), Median(busiest), batch.rows() / Median(busiest));
  return 0;
}
