// manifest_bench: what writing and reading Iceberg manifests and manifest lists costs sinkd, in
// this thread's CPU time (one thread; wall time on a shared machine measures the neighbours).
// A manifest of --entries data files of the ledger table, each with every statistic of every
// column (column sizes, value and null counts, 8-byte lower and upper bounds) as a Part's footer
// gives them, split offsets and its partition tuple, is written (iceberg::WriteManifest, deflate)
// and read back (iceberg::ReadManifest); a manifest list of --manifests manifests with their
// partition summaries likewise (WriteManifestList, ReadManifestList) — a table without merging
// lists every commit's manifest. Each figure is the median of --runs rounds with min–max. The
// allocator keeps freed memory as sinkd's main has it (base/memory.h): otherwise a round's reading
// faults in again the pages the previous round's gave back, and that, not the decoding, is timed.
// The manifest is also written without a codec, for the encoding's share without deflate's.
// Usage: manifest_bench [--entries N] [--manifests N] [--runs N]
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/memory.h"
#include "bench_flags.h"
#include "bench_support.h"
#include "iceberg/manifest.h"
#include "iceberg/table_spec.h"
#include "row/ledger_columns.h"

namespace {

namespace ice = sinkd::iceberg;
namespace bench = sinkd::bench;

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

template <typename T>
T Must(sinkd::Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "manifest_bench: %s: %s\n", what, r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*r);
}

std::string Bound(uint64_t n) { return std::string(reinterpret_cast<const char*>(&n), 8); }

std::vector<ice::ManifestEntry> Entries(const ice::TableSpec& spec, int count) {
  std::vector<ice::ManifestEntry> out;
  for (int i = 0; i < count; ++i) {
    ice::ManifestEntry e;
    ice::DataFile& f = e.file;
    f.path = "s3://bucket/lake/ledger/date=2026-01-18/app=app-" + std::to_string(i % 40) +
             "/part-" + std::to_string(1000000 + i) + "-0123456789abcdef.parquet";
    f.file_size = 2000000 + static_cast<uint64_t>(i);
    f.records = 5000 + static_cast<uint64_t>(i % 100);
    f.day = 20471;
    for (size_t p = 1; p < spec.partition.size(); ++p)
      f.values.push_back("app-" + std::to_string(i % 40));
    for (int32_t id = 1; id <= spec.last_column_id; ++id) {
      const auto u = static_cast<uint64_t>(i) * 131 + static_cast<uint64_t>(id);
      f.columns.push_back({id, 40000 + u % 9000, f.records, u % 7, Bound(u), Bound(u + 1000003)});
    }
    f.split_offsets = {4};
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<ice::ManifestFile> Listed(int count) {
  std::vector<ice::ManifestFile> out;
  for (int i = 0; i < count; ++i) {
    ice::ManifestFile m;
    m.path = "s3://bucket/lake/ledger/metadata/" + std::to_string(100000 + i) +
             "-0123456789abcdef-m0.avro";
    m.length = 9000;
    m.sequence_number = m.min_sequence_number = m.added_snapshot_id = i + 1;
    m.added_files = 4;
    m.added_rows = 20000;
    m.partitions = {{false, ice::DayBytes(20471 + i / 288), ice::DayBytes(20471 + i / 288)},
                    {false, "app-00", "app-39"}};
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int entries = 10000, manifests = 10100, runs = 5;
  bench::BenchFlags flags(
      "manifest_bench",
      "Writes and reads an Iceberg manifest of --entries ledger data files with every column "
      "statistic and a manifest list of --manifests manifests (deflate), in this thread's CPU "
      "time: median (min-max) of --runs rounds.");
  flags.AddAtLeast("entries", &entries, 1, "data files in the manifest")
      .AddAtLeast("manifests", &manifests, 1, "manifests in the list")
      .AddAtLeast("runs", &runs, 1, "rounds; each figure is their median");
  flags.Parse(argc, argv);
  sinkd::KeepFreedMemory();
  bench::PrintMachine("manifest_bench");

  const ice::TableSpec spec = ice::SpecOf(sinkd::row::kLedgerColumns);
  const std::vector<ice::ManifestEntry> data = Entries(spec, entries);
  const std::vector<ice::ManifestFile> listed = Listed(manifests);
  std::vector<double> write_m, write_raw, read_m, write_l, read_l;
  size_t manifest_bytes = 0, list_bytes = 0;
  for (int r = 0; r < runs; ++r) {
    double t = CpuSeconds();
    const ice::Manifest m = Must(
        ice::WriteManifest(spec, "s3://bucket/lake/ledger/metadata/m.avro", 1, 1, data), "write");
    write_m.push_back((CpuSeconds() - t) * 1e3);
    // Without a codec: the Avro encoding alone, deflate's share left out.
    t = CpuSeconds();
    Must(ice::WriteManifest(spec, "s3://bucket/lake/ledger/metadata/m.avro", 1, 1, data,
                            sinkd::avro::Codec::kNull),
         "write without a codec");
    write_raw.push_back((CpuSeconds() - t) * 1e3);
    t = CpuSeconds();
    const size_t read = Must(ice::ReadManifest(m.bytes, spec), "read").size();
    read_m.push_back((CpuSeconds() - t) * 1e3);
    t = CpuSeconds();
    const std::string list = Must(ice::WriteManifestList(listed, 2, 1, 2), "write list");
    write_l.push_back((CpuSeconds() - t) * 1e3);
    t = CpuSeconds();
    const size_t read_list = Must(ice::ReadManifestList(list), "read list").size();
    read_l.push_back((CpuSeconds() - t) * 1e3);
    if (read != data.size() || read_list != listed.size()) {
      std::fprintf(stderr, "manifest_bench: read back %zu of %zu entries, %zu of %zu manifests\n",
                   read, data.size(), read_list, listed.size());
      return 1;
    }
    manifest_bytes = m.bytes.size();
    list_bytes = list.size();
  }
  std::printf("manifest of %d entries, %d columns each (%zu bytes):\n", entries,
              static_cast<int>(data[0].file.columns.size()), manifest_bytes);
  std::printf("  write %s ms CPU\n", bench::Format(bench::SpreadOf(write_m), "%.1f").c_str());
  std::printf("  write without a codec %s ms CPU\n",
              bench::Format(bench::SpreadOf(write_raw), "%.1f").c_str());
  std::printf("  read  %s ms CPU\n", bench::Format(bench::SpreadOf(read_m), "%.1f").c_str());
  std::printf("manifest list of %d manifests (%zu bytes):\n", manifests, list_bytes);
  std::printf("  write %s ms CPU\n", bench::Format(bench::SpreadOf(write_l), "%.1f").c_str());
  std::printf("  read  %s ms CPU\n", bench::Format(bench::SpreadOf(read_l), "%.1f").c_str());
  bench::PrintLoadAfter();
  return 0;
}
