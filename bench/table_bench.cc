// table_bench: what keeping an Iceberg table costs sinkd (issue 26 §6), in one run.
//
// Commit latency. A ledger table in a directory lake is given PRIOR earlier commits (1, 1,000,
// 10,000: --prior), then SAMPLES more are committed through iceberg::FilesCatalog exactly as a
// drain's flush commits (one manifest, the positions check in the retry loop, the manifest list,
// v<N+1> created never-replace, the syncs, the hint), each timed; p50 and p99 of those commits,
// with manifest merging (the default CommitOptions), without (merge_min_count 0), and with merging
// on a table kept expired as `sinkd table expire` does at its defaults (snapshots older than 5
// days, 1,440 of five-minute commits, and 100 earlier metadata files stay in the metadata).
// The prior commits are written directly, not committed one by one (10,000 commits through the
// catalog would rewrite the growing metadata 10,000 times: hours on this machine): the same
// library functions build the state N commits leave — every snapshot in the metadata with its
// summary and the positions it recorded, the metadata log, the current snapshot's manifest list
// and every manifest it names, laid out as the catalog's merge rule (CommitOptions) would have
// left them, each commit's ADDED manifest or the merged ones with their EXISTING entries.
// A commit adds APPS_PER_COMMIT data files (a flush's Parts, one per app of the batch) of one
// day out of --apps apps, 288 commits a day (five-minute flushes); the data files' statistics
// are those of a real Part LakeWriter wrote, its path, partition and time bounds set per file.
// Metadata bytes written per commit: what the SAMPLES commits added under ledger/metadata/,
// divided by SAMPLES.
// Planning: for one app-day of the table after the largest PRIOR, the objects a reader of the
// table opens (the hint, the metadata file, the manifest list, the manifests whose partition
// summaries admit the day and app, pruned as Iceberg's planners prune) and their bytes, against
// a listing of the hive glob ledger/*/*/*.parquet over the same Parts (empty files stand in for
// them): the objects listed, S3 LIST requests at 1,000 keys each, and the files that match.
// Throughput: `sinkd drain ledger` of --drain-events events with --table-format iceberg against
// none, at the default batch and at 2,000-row batches (DrainThroughput); target: iceberg costs at
// most 3% at the default batch.
// Each figure is the median of --runs rounds with min–max; the ratio p99 at the largest PRIOR
// over p99 at the smallest is taken per round. Target: within 2× (issue 26 §6).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "partition/civil_date.h"
#include "bench_flags.h"
#include "bench_support.h"
#include "iceberg/data_file.h"
#include "iceberg/files_catalog.h"
#include "iceberg/manifest.h"
#include "iceberg/positions.h"
#include "iceberg/table_metadata.h"
#include "jetstream/connection.h"
#include "jetstream/pull_consumer.h"
#include "jetstream/streams.h"
#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "row/ledger_columns.h"
#include "support/ledger_rows.h"
#include "traffic/traffic_generator.h"

namespace {

namespace fs = std::filesystem;
namespace bench = sinkd::bench;
namespace ice = sinkd::iceberg;
using sinkd::Result;

constexpr int64_t kFirstDay = 20'454;  // 2026-01-01
constexpr int kCommitsPerDay = 288;    // five-minute flushes
constexpr char kStream[] = "GARM_LEDGER@2026-01-01T00:00:00Z";

struct Model {
  int apps = 20;
  int apps_per_commit = 4;
  int rows_per_part = 1'000;
};

void Die(const std::string& what) {
  std::fprintf(stderr, "table_bench: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Must(Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.status().ToString());
  return std::move(*r);
}

void MustOk(const sinkd::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

std::string LittleEndian(int64_t v) {
  std::string out(8, '\0');
  std::memcpy(out.data(), &v, 8);
  return out;
}

int64_t IntOf(const std::string& bytes) {
  int32_t v = 0;
  std::memcpy(&v, bytes.data(), std::min<size_t>(bytes.size(), 4));
  return v;
}

std::string AppName(int n) {
  char name[16];
  std::snprintf(name, sizeof name, "app-%02d", n);
  return name;
}

// The statistics of one real Part (LakeWriter's own), the template of every data file.
ice::DataFile TemplateFile(const fs::path& scratch, const ice::TableSpec& spec, int rows) {
  fs::create_directories(scratch);
  auto dest = Must(sinkd::lake::DirDestination::Make(scratch.string()), "template lake");
  MustOk(dest->Ensure(), "template lake");
  sinkd::lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "bench";
  options.encode_threads = 1;
  sinkd::lake::LakeWriter writer(*dest, options);
  sinkd::row::RowBuffer batch(sinkd::row::kLedgerColumns);
  for (int i = 0; i < rows; ++i) {
    const int64_t micros = kFirstDay * sinkd::partition::kMicrosPerDay + int64_t{1'000'000} * i;
    sinkd::testing::AddLedgerRow(batch, "evt-" + std::to_string(i), micros, "app-00");
  }
  auto report = Must(writer.Flush(batch, {"GARM_LEDGER", 1, uint64_t(rows)}), "template flush");
  if (report.parts.size() != 1) Die("the template flush wrote other than one Part");
  const auto& p = report.parts[0];
  return Must(ice::DataFileOf(spec, dest->Uri() + "/" + p.key, p.bytes, p.values, p.statistics),
              "template data file");
}

// The data files of commit `c`: one per app of its batch, on the day it falls in.
std::vector<ice::DataFile> FilesOf(const ice::DataFile& tmpl, const ice::TableSpec& spec,
                                   const std::string& lake_uri, const Model& model, int c) {
  std::vector<ice::DataFile> files;
  const int64_t day = kFirstDay + c / kCommitsPerDay;
  const int64_t start =
      day * sinkd::partition::kMicrosPerDay + int64_t{300'000'000} * (c % kCommitsPerDay);
  for (int j = 0; j < model.apps_per_commit; ++j) {
    ice::DataFile f = tmpl;
    const std::string app = AppName((c * model.apps_per_commit + j) % model.apps);
    f.path = lake_uri + "/ledger/date=" + sinkd::partition::FormatDay(day) + "/app=" + app + "/c" +
             std::to_string(c) + "-" + std::to_string(j) + ".parquet";
    f.day = static_cast<int32_t>(day);
    f.values = {app};
    for (ice::ColumnMetrics& m : f.columns) {
      if (m.field_id == spec.time_field_id) {
        m.lower = LittleEndian(start);
        m.upper = LittleEndian(start + 299'000'000);
      }
    }
    files.push_back(std::move(f));
  }
  return files;
}

std::string PositionsUpTo(uint64_t last) {
  ice::Positions p;
  p.streams[kStream] = {{1, last}};
  return ice::PositionsJson(p);
}

// A manifest as the merge rule groups commits: which commits' files it holds and, for a merged
// one, the commit whose snapshot wrote it.
struct Group {
  std::vector<int> commits;
  int written_by = 0;
  bool merged = false;
};

struct Layout {
  uint64_t fixed = 0, per_entry = 0;  // a manifest's bytes ≈ fixed + entries × per_entry
};

// The manifests the current snapshot names after `prior` commits, by FilesCatalog::Commit's rule
// (iceberg::ManifestsToMerge).
std::vector<Group> GroupsAfter(int prior, const ice::CommitOptions& options, const Layout& layout,
                               const Model& model) {
  std::vector<Group> groups;
  const auto bytes = [&](const Group& g) {
    return layout.fixed + layout.per_entry * g.commits.size() * model.apps_per_commit;
  };
  for (int c = 0; c < prior; ++c) {
    if (options.merge_min_count > 0 &&
        groups.size() + 1 > static_cast<size_t>(options.merge_min_count)) {
      std::vector<ice::ManifestFile> listed(groups.size());
      for (size_t i = 0; i < groups.size(); ++i) {
        listed[i].length = bytes(groups[i]);
        listed[i].existing_files = static_cast<int32_t>(groups[i].commits.size()) *
                                   model.apps_per_commit;
      }
      const std::set<size_t> merging = ice::ManifestsToMerge(listed, options);
      if (!merging.empty()) {
        std::vector<Group> kept;
        Group merged{{}, c, true};
        for (size_t i = 0; i < groups.size(); ++i) {
          if (merging.count(i)) {
            merged.commits.insert(merged.commits.end(), groups[i].commits.begin(),
                                  groups[i].commits.end());
          } else {
            kept.push_back(std::move(groups[i]));
          }
        }
        kept.push_back(std::move(merged));
        groups = std::move(kept);
      }
    }
    groups.push_back({{c}, c, false});
  }
  return groups;
}

void WriteObject(const fs::path& root, const std::string& key, const std::string& bytes) {
  const fs::path path = root / key;
  fs::create_directories(path.parent_path());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    Die("cannot write " + path.string());
  }
  std::fclose(f);
}

// Writes the table `prior` commits leave into the lake at `root`.
void WritePrior(const fs::path& root, const std::string& lake_uri, const ice::TableSpec& spec,
                const ice::DataFile& tmpl, const Model& model, int prior,
                const ice::CommitOptions& options, const Layout& layout, bool expired,
                std::mt19937_64& random) {
  const std::string meta_dir = "ledger/metadata/";
  std::vector<int64_t> ids(prior);
  for (int64_t& id : ids) id = ice::SnapshotIdFrom(random());
  ice::TableMetadata m =
      ice::NewTable(spec, "7d0c5b1e-2f4a-4c89-9a6b-3e1f0d2c4b5a", lake_uri + "/ledger",
                    1'767'225'600'000);
  std::vector<ice::ManifestFile> listed;
  for (const Group& g : GroupsAfter(prior, options, layout, model)) {
    std::vector<ice::ManifestEntry> entries;
    for (int c : g.commits) {
      for (ice::DataFile& f : FilesOf(tmpl, spec, lake_uri, model, c)) {
        ice::ManifestEntry e{ice::EntryStatus::kAdded, {}, {}, {}, std::move(f)};
        if (g.merged) {
          e.status = ice::EntryStatus::kExisting;
          e.snapshot_id = ids[c];
          e.sequence_number = c + 1;
          e.file_sequence_number = c + 1;
        }
        entries.push_back(std::move(e));
      }
    }
    const std::string key = meta_dir + "prior-" + std::to_string(g.written_by) +
                            (g.merged ? "-merged" : "") + ".avro";
    const int64_t snapshot = g.merged ? ids[g.written_by] : 0;
    const int64_t sequence = g.merged ? g.written_by + 1 : 0;
    auto manifest = Must(ice::WriteManifest(spec, lake_uri + "/" + key, snapshot, sequence,
                                            entries, options.codec),
                         "prior manifest");
    WriteObject(root, key, manifest.bytes);
    ice::ManifestFile file = manifest.file;
    file.added_snapshot_id = ids[g.written_by];
    file.sequence_number = g.written_by + 1;
    if (!g.merged) file.min_sequence_number = g.written_by + 1;
    listed.push_back(std::move(file));
  }
  const int64_t now = 1'767'225'600'000;
  for (int c = 0; c < prior; ++c) {
    const std::string list_uri =
        lake_uri + "/" + meta_dir + "snap-" + std::to_string(ids[c]) + "-prior.avro";
    ice::AppendCounts counts{uint64_t(model.apps_per_commit),
                             uint64_t(model.apps_per_commit) * model.rows_per_part,
                             tmpl.file_size * model.apps_per_commit,
                             uint64_t(model.apps_per_commit)};
    char commit_id[40];
    std::snprintf(commit_id, sizeof commit_id, "00000000-0000-4000-8000-%012d", c);
    const ice::Summary extra = {
        {ice::kCommitIdKey, commit_id},
        {ice::kPositionsKey,
         PositionsUpTo(uint64_t(c + 1) * model.apps_per_commit * model.rows_per_part)}};
    ice::Snapshot s = ice::AppendSnapshot(m, ids[c], now + c * 300'000, list_uri, counts, extra);
    if (c > 0) {
      m.metadata_log.push_back({lake_uri + "/" + meta_dir + "v" + std::to_string(c) +
                                    ".metadata.json",
                                0, m.last_updated_ms});
    }
    m.last_sequence_number = s.sequence_number;
    m.last_updated_ms = s.timestamp_ms;
    m.current_snapshot_id = s.id;
    m.snapshot_log.push_back({"", s.id, s.timestamp_ms});
    m.snapshots.push_back(std::move(s));
    if (c == prior - 1) {
      const std::string list = Must(
          ice::WriteManifestList(listed, ids[c], c > 0 ? std::optional<int64_t>(ids[c - 1])
                                                       : std::nullopt,
                                 c + 1, options.codec),
          "prior list");
      WriteObject(root, list_uri.substr(lake_uri.size() + 1), list);
    }
  }
  if (expired) {
    // What `sinkd table expire` at its defaults (iceberg::ExpireOptions: older than 5 days,
    // write.metadata.previous-versions-max 100) leaves of five-minute commits.
    const size_t retained = 5 * kCommitsPerDay;
    if (m.snapshots.size() > retained) {
      m.snapshots.erase(m.snapshots.begin(), m.snapshots.end() - retained);
      m.snapshot_log.erase(m.snapshot_log.begin(), m.snapshot_log.end() - retained);
    }
    if (m.metadata_log.size() > 100) {
      m.metadata_log.erase(m.metadata_log.begin(), m.metadata_log.end() - 100);
    }
  }
  // v1 is the empty table a first commit creates; after `prior` commits the newest is v<prior+1>.
  WriteObject(root, meta_dir + "v" + std::to_string(prior + 1) + ".metadata.json", ice::ToJson(m));
  WriteObject(root, meta_dir + "version-hint.text", std::to_string(prior + 1));
}

uint64_t MetadataBytes(const fs::path& table) {
  uint64_t n = 0;
  for (const auto& e : fs::directory_iterator(table / "metadata")) {
    if (e.is_regular_file()) n += e.file_size();
  }
  return n;
}

double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(p * v.size() + 0.999999);  // nearest rank
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

struct Point {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  double cpu_p50_ms = 0, cpu_p99_ms = 0;  // this thread's CPU: what the machine's load cannot add
  double metadata_bytes_per_commit = 0;
  uint64_t metadata_json_bytes = 0;
  size_t manifests = 0;
};

// SAMPLES commits on top of `prior`, timed one by one.
Point Measure(const fs::path& lake, const ice::TableSpec& spec, const ice::DataFile& tmpl,
              const Model& model, int prior, int samples, const ice::CommitOptions& options,
              const Layout& layout, bool expired, std::mt19937_64& random) {
  fs::remove_all(lake);
  fs::create_directories(lake);
  auto dest = Must(sinkd::lake::DirDestination::Make(lake.string()), "lake");
  MustOk(dest->Ensure(), "lake");
  WritePrior(lake, dest->Uri(), spec, tmpl, model, prior, options, layout, expired, random);
  ice::FilesCatalog catalog(*dest, dest->Uri(), "ledger", spec, options);
  const uint64_t before = MetadataBytes(lake / "ledger");
  std::vector<double> ms, cpu;
  for (int s = 0; s < samples; ++s) {
    const int c = prior + s;
    ice::Append append;
    append.files = FilesOf(tmpl, spec, dest->Uri(), model, c);
    ice::BatchPositions batch;
    const uint64_t rows = uint64_t(model.apps_per_commit) * model.rows_per_part;
    batch.positions.streams[kStream] = {{c * rows + 1, (c + 1) * rows}};
    append.marks = ice::Marks(std::move(batch));
    const double cpu_start = ThreadCpuMs();
    const auto start = bench::Clock::now();
    auto report = Must(catalog.Commit(append), "commit");
    ms.push_back(bench::Seconds(start) * 1000);
    cpu.push_back(ThreadCpuMs() - cpu_start);
    if (report.attempts != 1) Die("a commit with no other committer lost a race");
  }
  Point p;
  p.p50_ms = Percentile(ms, 0.50);
  p.p99_ms = Percentile(ms, 0.99);
  p.max_ms = *std::max_element(ms.begin(), ms.end());
  p.cpu_p50_ms = Percentile(cpu, 0.50);
  p.cpu_p99_ms = Percentile(cpu, 0.99);
  p.metadata_bytes_per_commit = double(MetadataBytes(lake / "ledger") - before) / samples;
  auto loaded = Must(catalog.Load(), "load");
  p.metadata_json_bytes = fs::file_size(lake / loaded.key);
  auto list = Must(dest->Read(Must(catalog.KeyOf(loaded.metadata->Current()->manifest_list),
                                   "list key"),
                              0, uint64_t{1} << 40),
                   "list");
  p.manifests = Must(ice::ReadManifestList(list), "list").size();
  return p;
}

struct Planning {
  int objects = 0;  // opened by a reader of the table
  uint64_t bytes = 0;
  int manifests_listed = 0, manifests_opened = 0;
  int files = 0;  // data files the app-day's query reads
  double seconds = 0;
};

// What a reader of the table opens to find the files of `app` on `day`.
Planning Plan(const fs::path& lake, const ice::TableSpec& spec, int64_t day,
              const std::string& app) {
  auto dest = Must(sinkd::lake::DirDestination::Make(lake.string()), "lake");
  ice::FilesCatalog catalog(*dest, dest->Uri(), "ledger", spec);
  Planning p;
  const auto start = bench::Clock::now();
  const auto read = [&](const std::string& key) {
    std::string bytes = Must(dest->Read(key, 0, uint64_t{1} << 40), "plan read");
    ++p.objects;
    p.bytes += bytes.size();
    return bytes;
  };
  const std::string hint = read(catalog.HintKey());
  const std::string metadata_text = read(catalog.MetadataKey(std::stoll(hint)));
  auto metadata = Must(ice::ParseTableMetadata(metadata_text), "plan metadata");
  const auto list = Must(
      ice::ReadManifestList(read(Must(catalog.KeyOf(metadata.Current()->manifest_list), "key"))),
      "plan list");
  p.manifests_listed = static_cast<int>(list.size());
  for (const ice::ManifestFile& m : list) {
    // Iceberg's pruning: the day within the date summary, the app within the app summary.
    const ice::FieldSummary& date = m.partitions.at(0);
    const ice::FieldSummary& apps = m.partitions.at(1);
    if (date.lower && (IntOf(*date.lower) > day || IntOf(*date.upper) < day)) continue;
    if (apps.lower && (*apps.lower > app || *apps.upper < app)) continue;
    ++p.manifests_opened;
    for (const ice::ManifestEntry& e :
         Must(ice::ReadManifest(read(Must(catalog.KeyOf(m.path), "key")), spec), "manifest")) {
      if (e.status != ice::EntryStatus::kDeleted && e.file.day == day && e.file.values[0] == app) {
        ++p.files;
      }
    }
  }
  p.seconds = bench::Seconds(start);
  return p;
}

struct Glob {
  size_t listed = 0, list_requests = 0, files = 0;
  double seconds = 0;
};

// A hive-glob reader of ledger/*/*/*.parquet: lists every Part, keeps the app-day's.
Glob ListGlob(const fs::path& lake, int64_t day, const std::string& app) {
  auto dest = Must(sinkd::lake::DirDestination::Make(lake.string()), "lake");
  Glob g;
  const auto start = bench::Clock::now();
  const auto objects = Must(dest->List("ledger/date="), "list");
  g.seconds = bench::Seconds(start);
  g.listed = objects.size();
  g.list_requests = (objects.size() + 999) / 1000;
  const std::string dir = "ledger/date=" + sinkd::partition::FormatDay(day) + "/app=" + app + "/";
  for (const auto& o : objects) g.files += o.key.compare(0, dir.size(), dir) == 0;
  return g;
}

// Throughput (issue 26 §6's other half): `sinkd drain ledger` with `--table-format iceberg`
// against `none`, at the default batch and at 2,000-row batches, each side draining the same
// EVENTS from a local nats-server from the first message (its durable deleted first) until
// nothing is pending or unacked; the four sides interleaved in each round. Returns false (and
// says why) when this sinkd's drain has no --table-format.
bool DrainThroughput(const fs::path& work, const std::string& sinkd, int64_t events, int runs) {
  using namespace std::chrono_literals;
  const std::string help_log = (work / "drain-help.log").string();
  fs::create_directories(work / "nats");
  bench::Run({sinkd, "drain", "ledger", "--help"}, help_log);
  if (bench::ReadFile(help_log).find("--table-format") == std::string::npos) {
    std::printf("\nDrain throughput: not measured (this sinkd's drain has no --table-format)\n");
    return false;
  }
  const auto threads = bench::EncodeThreadsFlag(sinkd, {"drain", "ledger"}, bench::Cores());
  bench::ChildGuard nats(bench::Spawn(
      {"nats-server", "-js", "-a", "127.0.0.1", "-p", "-1", "-sd", (work / "nats/store").string(),
       "--ports_file_dir", (work / "nats").string()},
      (work / "nats/nats.log").string()));
  if (nats.pid() < 0) Die("cannot start nats-server");
  std::string url;
  for (int i = 0; i < 200 && url.empty(); ++i) {
    std::this_thread::sleep_for(50ms);
    for (const auto& e : fs::directory_iterator(work / "nats")) {
      if (e.path().extension() != ".ports") continue;
      std::smatch m;
      const std::string text = bench::ReadFile(e.path().string());
      static const std::regex re(R"((nats://[^"]+))");
      if (std::regex_search(text, m, re)) url = m[1];
    }
  }
  if (url.empty()) Die("nats-server did not start");
  auto connection =
      Must(sinkd::jetstream::Connection::Connect({url, "table_bench", 30s, false}), "connect");
  sinkd::jetstream::Connection& c = *connection;
  MustOk(sinkd::jetstream::Provision(c, sinkd::jetstream::StreamSpecs({})).status(), "provision");
  sinkd::traffic::TrafficOptions traffic;
  traffic.seed = 2026;
  traffic.events_per_batch = 500;
  traffic.expected_events = events;
  sinkd::traffic::TrafficGenerator generator(traffic);
  std::string message;
  uint64_t messages = 0;
  for (int64_t n = 0; n < events; n += traffic.events_per_batch, ++messages) {
    message.clear();
    generator.AppendLedgerMessage(message);
    if (js_PublishAsync(c.js(), "garm.v1.ledger.bench.svc", message.data(),
                        static_cast<int>(message.size()), nullptr) != NATS_OK) {
      Die("publish failed");
    }
  }
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = 120000;
  if (js_PublishAsyncComplete(c.js(), &po) != NATS_OK) Die("publish acks");

  struct Side {
    const char* name;
    std::vector<std::string> flags;
    std::vector<double> eps, cpu;
  };
  std::vector<Side> sides = {
      {"none, default batch", {"--table-format", "none"}, {}, {}},
      {"iceberg, default batch", {"--table-format", "iceberg"}, {}, {}},
      {"none, 2,000-row batches", {"--table-format", "none", "--batch-max-rows", "2000"}, {}, {}},
      {"iceberg, 2,000-row batches",
       {"--table-format", "iceberg", "--batch-max-rows", "2000"}, {}, {}},
  };
  for (int r = 0; r < runs; ++r) {
    for (Side& side : sides) {
      jsErrCode jerr{};
      js_DeleteConsumer(c.js(), "GARM_LEDGER", "sink-ledger", nullptr, &jerr);  // absent: fine
      const fs::path lake = work / "drain-lake";
      fs::remove_all(lake);
      std::vector<std::string> args = {sinkd, "drain", "ledger", "--nats-url", url,
                                       "--lake-dir", lake.string(), "--batch-interval", "1s"};
      args.insert(args.end(), threads.begin(), threads.end());
      args.insert(args.end(), side.flags.begin(), side.flags.end());
      const std::string log = (work / "drain.log").string();
      const auto started = bench::Clock::now();
      bench::ChildGuard drain(bench::Spawn(args, log));
      if (drain.pid() < 0) Die("cannot start sinkd drain");
      double seconds = 0;
      while (true) {
        std::this_thread::sleep_for(20ms);
        auto s = sinkd::jetstream::GetConsumerState(c, "GARM_LEDGER", "sink-ledger");
        if (s.ok() && s->pending == 0 && s->ack_pending == 0 &&
            s->ack_floor_stream >= messages) {
          seconds = bench::Seconds(started);
          break;
        }
        if (bench::Seconds(started) > 900) Die("a drain did not finish in 15 minutes");
      }
      kill(drain.pid(), SIGTERM);
      const bench::ChildRun done = bench::Wait(drain.pid(), started);
      drain.Release();
      if (done.exit_code != 0) Die("drain exit: " + bench::ReadFile(log));
      side.eps.push_back(double(events) / seconds);
      side.cpu.push_back(done.cpu);
      std::printf("round %d, %s: %.0f events/s, CPU %.2f s\n", r + 1, side.name,
                  side.eps.back(), done.cpu);
      std::fflush(stdout);
    }
  }
  std::printf("\nDrain throughput, %lld events, %d rounds, median (min-max)%s:\n",
              static_cast<long long>(events), runs,
              threads.empty() ? "" : (", --encode-threads " + threads[1]).c_str());
  for (const Side& side : sides) {
    std::printf("  %-28s %s events/s, CPU %s s\n", side.name,
                bench::Format(bench::SpreadOf(side.eps)).c_str(),
                bench::Format(bench::SpreadOf(side.cpu), "%.2f").c_str());
  }
  std::printf("  iceberg / none, default batch:     %s\n",
              bench::RatioLine(bench::RatioSpread(sides[1].eps, sides[0].eps), 0.97).c_str());
  std::printf("  iceberg / none, 2,000-row batches: %s\n",
              bench::Format(bench::RatioSpread(sides[3].eps, sides[2].eps), "%.3fx").c_str());
  // On a shared machine the wall ratio moves with the neighbours' load; the drain's own CPU
  // seconds for the same events do not.
  std::printf("  CPU seconds, iceberg / none: default batch %s, 2,000-row batches %s\n",
              bench::Format(bench::RatioSpread(sides[1].cpu, sides[0].cpu), "%.3fx").c_str(),
              bench::Format(bench::RatioSpread(sides[3].cpu, sides[2].cpu), "%.3fx").c_str());
  nats.Stop();
  return true;
}

std::vector<int> ParseList(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    try {
      out.push_back(std::stoi(item));
    } catch (...) {
      std::fprintf(stderr, "table_bench: --prior: %s is not a number\n", item.c_str());
      std::exit(2);
    }
    if (out.back() < 1) {
      std::fprintf(stderr, "table_bench: --prior: each count must be at least 1\n");
      std::exit(2);
    }
  }
  if (out.empty()) {
    std::fprintf(stderr, "table_bench: --prior names no count\n");
    std::exit(2);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string prior_text = "1,1000,10000";
  int samples = 100, runs = 3;
  int64_t drain_events = 1'000'000;
  std::string sinkd = std::string(SINKD_BINARY_DIR) + "/src/cli/sinkd";
  Model model;
  std::string dir = "/tmp/table_bench";
  bench::BenchFlags flags("table_bench",
                          "What an Iceberg table costs sinkd (issue 26 section 6): commit "
                          "latency p50/p99 after 1, 1,000 and 10,000 prior commits with and "
                          "without manifest merging and with expiry, metadata bytes written per "
                          "commit, and the objects planning an app-day query opens against a "
                          "listing of the hive glob.");
  flags.Add("prior", &prior_text, "prior commits per point, comma-separated")
      .AddAtLeast("samples", &samples, 1, "commits timed per point")
      .AddAtLeast("runs", &runs, 1, "rounds; each figure is their median (min-max)")
      .AddAtLeast("apps", &model.apps, 1, "apps in the table")
      .AddAtLeast("apps-per-commit", &model.apps_per_commit, 1, "data files per commit")
      .Add("drain-events", &drain_events,
           "events each drain side drains (0: skip the throughput part)")
      .Add("sinkd", &sinkd, "the sinkd binary the drains run")
      .Add("dir", &dir, "scratch directory (removed first)");
  flags.Parse(argc, argv);
  const std::vector<int> priors = ParseList(prior_text);
  if (model.apps_per_commit > model.apps) {
    std::fprintf(stderr, "table_bench: --apps-per-commit is larger than --apps\n");
    return 2;
  }

  bench::PrintMachine("table_bench");
  const fs::path root = dir;
  fs::remove_all(root);
  const ice::TableSpec spec = ice::SpecOf(sinkd::row::kLedgerColumns);
  const ice::DataFile tmpl = TemplateFile(root / "template", spec, model.rows_per_part);
  std::mt19937_64 random(20261205);  // NOLINT: fixed, so every run builds the same tables

  // A manifest's bytes against its entries, from two real ones.
  Layout layout;
  {
    std::vector<ice::ManifestEntry> few, many;
    for (int c = 0; c < 100; ++c) {
      for (ice::DataFile& f : FilesOf(tmpl, spec, "file:///x", model, c)) {
        if (c < 1) few.push_back({ice::EntryStatus::kAdded, {}, {}, {}, f});
        many.push_back({ice::EntryStatus::kAdded, {}, {}, {}, std::move(f)});
      }
    }
    const auto a = Must(ice::WriteManifest(spec, "file:///x/a", 0, 0, few), "layout");
    const auto b = Must(ice::WriteManifest(spec, "file:///x/b", 0, 0, many), "layout");
    layout.per_entry = (b.bytes.size() - a.bytes.size()) / (many.size() - few.size());
    layout.fixed = a.bytes.size() - layout.per_entry * few.size();
    std::printf("manifest size: %" PRIu64 " bytes + %" PRIu64 " per data file (deflate)\n",
                layout.fixed, layout.per_entry);
  }

  struct Mode {
    const char* name;
    ice::CommitOptions options;
    bool expired = false;
  };
  std::vector<Mode> modes(3);
  modes[0].name = "merging (default)";
  modes[1].name = "no merging";
  modes[1].options.merge_min_count = 0;
  modes[2].name = "merging + expiry";
  modes[2].expired = true;

  // results[mode][prior] → one Point per round.
  std::vector<std::map<int, std::vector<Point>>> results(modes.size());
  for (int r = 0; r < runs; ++r) {
    for (int prior : priors) {
      for (size_t m = 0; m < modes.size(); ++m) {
        const fs::path lake = root / ("lake-" + std::to_string(m));
        const Point p = Measure(lake, spec, tmpl, model, prior, samples, modes[m].options, layout,
                                modes[m].expired, random);
        results[m][prior].push_back(p);
        std::printf("round %d, %d prior, %s: p50 %.2f ms, p99 %.2f ms, max %.2f ms, CPU p50 %.2f "
                    "p99 %.2f ms, metadata "
                    "%.0f bytes/commit, v<N> %" PRIu64 " bytes, %zu manifests\n",
                    r + 1, prior, modes[m].name, p.p50_ms, p.p99_ms, p.max_ms, p.cpu_p50_ms,
                    p.cpu_p99_ms,
                    p.metadata_bytes_per_commit, p.metadata_json_bytes, p.manifests);
        std::fflush(stdout);
      }
    }
  }

  std::printf("\nCommit latency, %d commits timed per point, %d data files each, median of %d "
              "rounds (min-max):\n",
              samples, model.apps_per_commit, runs);
  for (size_t m = 0; m < modes.size(); ++m) {
    for (int prior : priors) {
      std::vector<double> p50, p99, cpu50, cpu99, bytes, json;
      for (const Point& p : results[m][prior]) {
        cpu50.push_back(p.cpu_p50_ms);
        cpu99.push_back(p.cpu_p99_ms);
        p50.push_back(p.p50_ms);
        p99.push_back(p.p99_ms);
        bytes.push_back(p.metadata_bytes_per_commit);
        json.push_back(double(p.metadata_json_bytes));
      }
      std::printf("  %-18s after %6d: p50 %s ms  p99 %s ms  (CPU p50 %s, p99 %s ms)  metadata "
                  "written %s bytes/commit  (metadata file %s bytes)\n",
                  modes[m].name, prior, bench::Format(bench::SpreadOf(p50), "%.2f").c_str(),
                  bench::Format(bench::SpreadOf(p99), "%.2f").c_str(),
                  bench::Format(bench::SpreadOf(cpu50), "%.2f").c_str(),
                  bench::Format(bench::SpreadOf(cpu99), "%.2f").c_str(),
                  bench::Format(bench::SpreadOf(bytes)).c_str(),
                  bench::Format(bench::SpreadOf(json)).c_str());
    }
    std::vector<double> high, low, cpu_high, cpu_low;
    for (const Point& p : results[m][priors.back()]) {
      high.push_back(p.p99_ms);
      cpu_high.push_back(p.cpu_p99_ms);
    }
    for (const Point& p : results[m][priors.front()]) {
      low.push_back(p.p99_ms);
      cpu_low.push_back(p.cpu_p99_ms);
    }
    const bench::Spread ratio = bench::RatioSpread(high, low);
    std::printf("  %-18s p99 after %d / after %d: %s (CPU %s)  target <= 2x: %s\n",
                modes[m].name, priors.back(), priors.front(),
                bench::Format(ratio, "%.2fx").c_str(),
                bench::Format(bench::RatioSpread(cpu_high, cpu_low), "%.2fx").c_str(),
                ratio.median <= 2.0 ? "MET" : "MISSED");
  }

  // Planning one app-day over the table of the largest prior count, merging and not.
  const int64_t day = kFirstDay + (priors.back() + samples) / kCommitsPerDay / 2;
  const std::string app = AppName(3);
  std::printf("\nPlanning %s on %s after %d commits (%d data files):\n", app.c_str(),
              sinkd::partition::FormatDay(day).c_str(), priors.back() + samples,
              (priors.back() + samples) * model.apps_per_commit);
  for (size_t m = 0; m < modes.size(); ++m) {
    const Planning p = Plan(root / ("lake-" + std::to_string(m)), spec, day, app);
    std::printf("  table, %-18s opens %d objects, %" PRIu64 " bytes (hint, metadata, list, "
                "%d of %d manifests) in %.1f ms: %d data files\n",
                modes[m].name, p.objects, p.bytes, p.manifests_opened, p.manifests_listed,
                p.seconds * 1000, p.files);
  }
  {
    // The Parts themselves, as empty files, for the glob to list.
    const fs::path lake = root / "lake-0";
    auto dest = Must(sinkd::lake::DirDestination::Make(lake.string()), "lake");
    for (int c = 0; c < priors.back() + samples; ++c) {
      for (const ice::DataFile& f : FilesOf(tmpl, spec, dest->Uri(), model, c)) {
        WriteObject(lake, f.path.substr(dest->Uri().size() + 1), "");
      }
    }
    const Glob g = ListGlob(lake, day, app);
    std::printf("  hive glob ledger/*/*/*.parquet lists %zu objects (%zu S3 LIST requests) in "
                "%.1f ms: %zu data files\n",
                g.listed, g.list_requests, g.seconds * 1000, g.files);
  }
  if (drain_events > 0) DrainThroughput(root / "drain", sinkd, drain_events, runs);
  bench::PrintLoadAfter();
  return 0;
}
