// `sinkd compact --table-format iceberg` as a process on a ledger table that imports or drains
// (a real nats-server) commit to, on a directory or a bucket (s3rver behind the SigV4 layer), with
// the files or the sql catalog: the scenarios the slow tests run on each, and how they read the
// table. Every read is by independent readers of what the catalog names: icebird (npm) finds the
// data files through the metadata file, the manifest list and the manifests; DuckDB counts the
// rows of exactly those files; icebird's Avro reader lists every snapshot's manifest entries with
// their status (tools/iceberg-snapshots.mjs), so a replace's DELETED inputs are seen as an engine
// sees them. A bucket's objects are
// first hard-linked out of s3rver's backing files under their keys (a mirror per read).
// Header-only. Threads: one thread at a time.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "outbox/process.h"
#include "support/nats_server.h"
#include "support/support.h"

namespace sinkd::testing {

// A lake keeping the ledger table, as the binary is pointed at it.
struct TableLake {
  std::vector<std::string> env;          // for the binary: a bucket's credentials
  std::vector<std::string> destination;  // --lake-dir or --s3-*, and the catalog's flags
  std::string lake_uri;                  // file:///…/lake or s3://garm-lake
  std::filesystem::path bucket_dir;      // s3rver's backing files of the bucket; empty: a directory
  std::filesystem::path scratch;         // mirrors, views and logs go here
  int reads = 0;

  std::string TableUri() const { return lake_uri + "/ledger"; }

  // `sinkd <args> <destination>` under /usr/bin/env (a Background child inherits the test's
  // environment otherwise: LAKE_DIR or S3_BUCKET there would name a second destination).
  std::vector<std::string> Argv(std::vector<std::string> args) const {
    std::vector<std::string> argv = {"/usr/bin/env", "LAKE_DIR=", "AWS_ENDPOINT_URL=",
                                     "S3_BUCKET=", "AWS_SESSION_TOKEN="};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(SinkdBinary().string());
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), destination.begin(), destination.end());
    return argv;
  }
  CommandResult Run(std::vector<std::string> args) const {
    return RunCommand(Argv(std::move(args)), "", std::chrono::seconds(120));
  }

  // `sinkd table info ledger --json` (metadata, snapshots, records, data_files, …).
  nlohmann::json Info() const {
    const CommandResult r = Run({"table", "info", "ledger", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  // Where the object a metadata names by `uri` is on this machine (under `root`, a mirror, for a
  // bucket).
  std::filesystem::path Local(const std::filesystem::path& root, const std::string& uri) const {
    if (bucket_dir.empty()) return uri.substr(std::string("file://").size());
    return root / uri.substr(lake_uri.size() + 1);
  }

  // A bucket's objects as files named by their keys, linked at this moment; "" for a directory.
  std::filesystem::path Mirror() {
    if (bucket_dir.empty()) return {};
    const std::filesystem::path root = scratch / ("mirror" + std::to_string(++reads));
    const std::string suffix = "._S3rver_object";
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(bucket_dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!name.ends_with(suffix)) continue;
      const std::filesystem::path key =
          std::filesystem::relative(it->path(), bucket_dir).parent_path() /
          name.substr(0, name.size() - suffix.size());
      std::error_code link_ec;
      std::filesystem::create_directories((root / key).parent_path(), link_ec);
      std::filesystem::create_hard_link(it->path(), root / key, link_ec);  // gone: not mirrored
    }
    return root;
  }
};

// What one metadata file's current snapshot holds, as icebird lists it and DuckDB counts it.
struct TableRead {
  std::vector<std::string> files;    // data files, on this machine
  std::vector<std::string> missing;  // of those, the ones not there
  int snapshots = 0;
  int64_t rows = -1, distinct = -1;  // count(*) and count(DISTINCT event_id); -1: not counted
  std::filesystem::path root;        // the mirror read (a bucket)
};

// Reads the table through the metadata file `metadata_uri` (what `table info` names: the
// newest v<N> of the files catalog, or the sql catalog's row).
inline TableRead ReadTable(TableLake& lake, const std::string& metadata_uri) {
  TableRead out;
  out.root = lake.Mirror();
  const std::string name = metadata_uri.substr(metadata_uri.rfind('/') + 1);
  std::vector<std::string> argv = {"node", (SourceDir() / "tools/icebird-read.mjs").string(),
                                   lake.TableUri(), "--files", "--metadata", name};
  if (!lake.bucket_dir.empty()) argv.insert(argv.end(), {"--s3-mirror", out.root.string()});
  const CommandResult r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 300) << r.err;
  if (j.is_discarded() || r.exit_code != 0) return out;
  out.snapshots = j.value("snapshots", 0);
  // Linked side by side for one DuckDB glob: the names as a list would pass the command line's
  // length limit.
  const std::filesystem::path view = lake.scratch / ("view" + std::to_string(++lake.reads));
  std::filesystem::create_directories(view);
  for (const auto& f : j["files"]) {
    const std::filesystem::path local = lake.Local(out.root, f.get<std::string>());
    out.files.push_back(local.string());
    std::error_code ec;
    std::filesystem::create_hard_link(local,
                                      view / (std::to_string(out.files.size()) + ".parquet"), ec);
    if (ec) out.missing.push_back(f.get<std::string>());
  }
  if (out.files.empty() || !out.missing.empty()) return out;
  const QueryResult q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                               SqlQuote((view / "*.parquet").string()) +
                               ", hive_partitioning=false, union_by_name=true)");
  EXPECT_TRUE(q.ok) << "every file the table names must be readable: " << q.error;
  if (!q.ok) return out;
  out.rows = std::stoll(q.rows[0][0]);
  out.distinct = std::stoll(q.rows[0][1]);
  return out;
}

// Every snapshot the metadata file at `metadata_uri` keeps, read by icebird's Avro reader from
// its manifest lists and manifests (tools/iceberg-snapshots.mjs): {"snapshots": [{id, operation,
// added, deleted, added_records, deleted_records}], "referenced": [every data file a kept
// snapshot names]}. `added`/`deleted`: the entries that snapshot itself wrote ADDED / DELETED (a
// replace's outputs / inputs).
inline nlohmann::json SnapshotEntries(const TableLake& lake, const std::filesystem::path& root,
                                      const std::string& metadata_uri) {
  std::vector<std::string> argv = {"node", (SourceDir() / "tools/iceberg-snapshots.mjs").string(),
                                   metadata_uri, lake.lake_uri};
  if (!root.empty()) argv.push_back(root.string());
  const CommandResult r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// The sum of `"field":N` over a process's JSON log lines whose message is `msg`.
inline uint64_t LoggedSum(const std::string& log, const std::string& msg, const std::string& field) {
  const std::regex line("\"msg\":\"" + msg + "\"[^\n]*\"" + field + "\":([0-9]+)");
  uint64_t sum = 0;
  for (std::sregex_iterator it(log.begin(), log.end(), line), end; it != end; ++it) {
    sum += std::stoull((*it)[1]);
  }
  return sum;
}

// The checks every scenario ends with, on the table's current metadata: it holds exactly one row
// per published event (1.000 rows per expected row, read through the manifests), every file it
// names is there, and every file any kept snapshot names is there too (no compactor deleted what
// an engine reading an older snapshot opens). Returns the read, and in `entries` what
// SnapshotEntries said, for further checks.
inline TableRead ExpectOneRowPerEvent(TableLake& lake, int64_t expected, const char* when,
                                      nlohmann::json* entries_out = nullptr) {
  const nlohmann::json info = lake.Info();
  EXPECT_EQ(info.value("records", int64_t{-1}), expected) << when << ": " << info.dump();
  TableRead read = ReadTable(lake, info.value("metadata", std::string()));
  EXPECT_TRUE(read.missing.empty())
      << when << ": the current snapshot names deleted files: "
      << ::testing::PrintToString(read.missing);
  EXPECT_EQ(read.distinct, expected) << when << ": an event is missing from the table";
  EXPECT_EQ(read.rows, expected) << when << ": the table holds an event twice";
  const nlohmann::json entries = SnapshotEntries(lake, read.root, info.value("metadata", ""));
  EXPECT_TRUE(entries.is_object()) << when;
  if (entries_out != nullptr) *entries_out = entries;
  if (!entries.is_object()) return read;
  for (const auto& f : entries["referenced"]) {
    EXPECT_TRUE(std::filesystem::exists(lake.Local(read.root, f.get<std::string>())))
        << when << ": a kept snapshot names a deleted file: " << f;
  }
  return read;
}

// The replace snapshots of `entries`; each must have DELETED inputs and ADDED outputs holding no
// more rows than the inputs did, and no input of a replace is in `current` (its files).
inline int ExpectReplaces(const nlohmann::json& entries, const TableLake& lake,
                          const TableRead& current) {
  std::set<std::string> live(current.files.begin(), current.files.end());
  int replaces = 0;
  for (const auto& s : entries["snapshots"]) {
    if (s["operation"] != "replace") continue;
    ++replaces;
    EXPECT_FALSE(s["deleted"].empty()) << "a replace DELETED no input: " << s.dump();
    EXPECT_FALSE(s["added"].empty()) << "a replace ADDED no output: " << s.dump();
    EXPECT_GE(s["deleted_records"].get<int64_t>(), s["added_records"].get<int64_t>()) << s.dump();
    EXPECT_GT(s["added_records"].get<int64_t>(), 0) << s.dump();
    for (const auto& f : s["deleted"]) {
      EXPECT_EQ(live.count(lake.Local(current.root, f.get<std::string>()).string()), 0u)
          << "a replaced input is still in the current snapshot: " << f;
    }
  }
  return replaces;
}

// Scenario 1 (and with the sql catalog's flags, 2): an import commits 3,000 events in flushes of
// 150 rows (about 20 appends of small Parts); compact --table-format iceberg merges them, each
// merge one replace snapshot whose manifests mark the inputs DELETED; the current snapshot holds
// every event once; the snapshot read before the compaction still reads whole after a second
// pass with a zero grace (the compactor deletes nothing a kept snapshot names); `sinkd table
// expire` then deletes the inputs from storage and the table still reads whole.
inline void CompactAnImportedTable(TableLake& lake) {
  const std::string wire = (lake.scratch / "ledger.bin").string();
  const CommandResult gen =
      RunCommand({SinkdBinary().string(), "generate", "ledger", "--messages", "60",
                  "--events-per-batch", "50", "--seed", "5", "--bad-share", "0", "-o", wire});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const int64_t expected = 3000;
  const CommandResult imported = lake.Run({"import", "ledger", "--instance-id", "i1",
                                           "--batch-max-rows", "150", "--table-format",
                                           "iceberg", wire});
  ASSERT_EQ(imported.exit_code, 0) << imported.out << imported.err;
  const nlohmann::json before = lake.Info();
  ASSERT_GE(before.value("snapshots", 0), 10) << before.dump();
  const std::string old_metadata = before.value("metadata", "");
  const TableRead old_read = ExpectOneRowPerEvent(lake, expected, "after the import");

  const std::vector<std::string> compact = {"compact", "ledger", "--table-format", "iceberg",
                                            "--min-parts", "2", "--settle", "0s", "--grace", "0s"};
  const CommandResult first = lake.Run(compact);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const std::regex committed("([0-9]+) replace snapshots committed, ([0-9]+) merges dropped");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(first.out, m, committed)) << first.out;
  EXPECT_GT(std::stol(m[1]), 0) << first.out;
  EXPECT_EQ(std::stol(m[2]), 0) << first.out;
  // Past a zero grace: the inputs are due by the glob view's rule, but the import's snapshots
  // name them.
  const CommandResult second = lake.Run(compact);
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;

  const nlohmann::json after = lake.Info();
  EXPECT_GT(after.value("snapshots", 0), before.value("snapshots", 0)) << after.dump();
  EXPECT_EQ(after["positions"], before["positions"]) << "the positions are carried";
  nlohmann::json entries;
  const TableRead now = ExpectOneRowPerEvent(lake, expected, "after two compactions", &entries);
  EXPECT_LT(now.files.size(), old_read.files.size()) << "the merges made fewer files";
  size_t outputs = 0;
  for (const std::string& f : now.files) {
    outputs += std::filesystem::path(f).filename().string().starts_with("compact-");
  }
  EXPECT_GT(outputs, 0u);
  ASSERT_TRUE(entries.is_object());
  EXPECT_EQ(ExpectReplaces(entries, lake, now), std::stol(m[1]))
      << "each committed merge is one replace snapshot";

  // The snapshot an engine opened before the compaction still reads whole: time travel.
  const TableRead old_again = ReadTable(lake, old_metadata);
  EXPECT_TRUE(old_again.missing.empty()) << ::testing::PrintToString(old_again.missing);
  EXPECT_EQ(old_again.rows, expected);
  EXPECT_EQ(old_again.distinct, expected);

  // Expiry keeps the newest snapshot alone, and only then are the inputs deleted from storage.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const CommandResult expired = lake.Run({"table", "expire", "ledger", "--older-than", "1s",
                                          "--retain-last", "1", "--grace", "0s"});
  ASSERT_EQ(expired.exit_code, 0) << expired.out << expired.err;
  const TableRead last = ExpectOneRowPerEvent(lake, expected, "after expiry");
  const std::filesystem::path root = lake.Mirror();
  size_t inputs = 0, inputs_gone = 0;
  for (const auto& s : entries["snapshots"]) {
    for (const auto& f : s["deleted"]) {
      ++inputs;
      inputs_gone += !std::filesystem::exists(lake.Local(root, f.get<std::string>()));
    }
  }
  EXPECT_GT(inputs, 0u);
  EXPECT_EQ(inputs_gone, inputs) << "expiry deletes what only the expired snapshots named";
  EXPECT_EQ(lake.Info().value("snapshots", 0), 1);
  (void)last;
}

// Publishes `messages` × 50 events of ledger traffic (no bad record) to the nats-server.
inline int64_t PublishLedger(const TableLake& lake, const NatsServer& nats, int messages,
                             int seed) {
  const std::string wire = (lake.scratch / ("in" + std::to_string(seed) + ".bin")).string();
  const CommandResult g = RunCommand({SinkdBinary().string(), "generate", "ledger", "--messages",
                                      std::to_string(messages), "--events-per-batch", "50",
                                      "--seed", std::to_string(seed), "--bad-share", "0", "-o",
                                      wire});
  EXPECT_EQ(g.exit_code, 0) << g.err;
  const CommandResult p =
      RunCommand({SinkdBinary().string(), "publish", "ledger", "--nats-url", nats.url(), wire});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  return g.exit_code == 0 && p.exit_code == 0 ? int64_t{messages} * 50 : 0;
}

// A drain of the ledger committing every flush to the table: small flushes (at most 10
// messages, 500 rows, a fetch), so there is always something to merge.
inline std::unique_ptr<outbox::testing::Background> StartDrain(const TableLake& lake,
                                                               const NatsServer& nats,
                                                               const std::string& instance) {
  return std::make_unique<outbox::testing::Background>(
      lake.Argv({"drain", "ledger", "--nats-url", nats.url(), "--instance-id", instance,
                 "--table-format", "iceberg", "--batch-max-rows", "400", "--batch-interval",
                 "200ms", "--fetch-max", "10", "--ack-wait", "3s"}),
      lake.scratch / (instance + ".log"));
}

// A following compactor with no grace: what the table no longer names may go at once.
inline std::unique_ptr<outbox::testing::Background> StartCompactor(const TableLake& lake,
                                                                   const std::string& instance) {
  return std::make_unique<outbox::testing::Background>(
      lake.Argv({"compact", "ledger", "--table-format", "iceberg", "--follow", "--every", "1s",
                 "--min-parts", "2", "--settle", "0s", "--grace", "0s", "--instance-id",
                 instance}),
      lake.scratch / (instance + ".log"));
}

// Until the table's current snapshot counts `expected` records (or 120 s).
inline bool TableReaches(const TableLake& lake, int64_t expected) {
  return WaitUntil(
      [&] {
        const CommandResult r = lake.Run({"table", "info", "ledger", "--json"});
        const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
        return r.exit_code == 0 && !j.is_discarded() && j.value("records", int64_t{0}) >= expected;
      },
      std::chrono::seconds(120), std::chrono::milliseconds(1000));
}

// Scenario 3: two drains on one durable and a following compactor at once while 12,000 events
// are published in six parts: the table ends with one row per event, every file it names there,
// the compactor's replaces committed beside the appends (none of either lost: a lost append is a
// missing event, a replace over a lost append's snapshot too).
inline void TwoDrainsAndACompactorAtOnce(TableLake& lake) {
  NatsServer nats;
  ASSERT_TRUE(nats.ok()) << nats.error();
  ASSERT_EQ(RunCommand({SinkdBinary().string(), "provision", "--nats-url", nats.url()}).exit_code,
            0);
  int64_t expected = PublishLedger(lake, nats, 40, 41);
  auto a = StartDrain(lake, nats, "drain-a");
  auto b = StartDrain(lake, nats, "drain-b");
  auto compactor = StartCompactor(lake, "compactor");
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    expected += PublishLedger(lake, nats, 40, 42 + i);
  }
  ASSERT_EQ(expected, 12000);
  const bool reached = TableReaches(lake, expected);
  // A few more passes over the whole table while the drains idle.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  compactor->Signal(SIGTERM);
  EXPECT_EQ(compactor->Wait(std::chrono::seconds(60)), 0) << compactor->Log().substr(0, 3000);
  for (auto* d : {a.get(), b.get()}) {
    d->Signal(SIGTERM);
    EXPECT_EQ(d->Wait(std::chrono::seconds(60)), 0) << d->Log().substr(0, 3000);
  }
  ASSERT_TRUE(reached) << lake.Info().dump() << "\n" << a->Log().substr(0, 3000);
  EXPECT_GT(LoggedSum(a->Log(), "flushed batch", "parts"), 0u) << "premise: both drains took a share";
  EXPECT_GT(LoggedSum(b->Log(), "flushed batch", "parts"), 0u) << "premise: both drains took a share";
  const uint64_t replaces = LoggedSum(compactor->Log(), "compaction pass finished", "replaces");
  EXPECT_GT(replaces, 0u) << "premise: the compactor committed beside the drains\n"
                          << compactor->Log().substr(0, 3000);

  nlohmann::json entries;
  const TableRead read = ExpectOneRowPerEvent(lake, expected, "at the end", &entries);
  ASSERT_TRUE(entries.is_object());
  EXPECT_EQ(ExpectReplaces(entries, lake, read), static_cast<int>(replaces))
      << "every replace the compactor committed is a snapshot of the table";
  std::cout << "table: " << read.rows << " rows in " << read.files.size() << " files, "
            << read.snapshots << " snapshots, " << replaces << " of them replaces\n";
}

// Scenario 4: a kill -9 storm of the compactor (and of one of the two drains) while the drains
// commit: twelve rounds, each with more traffic, a compactor killed at a random moment between
// 0.3 and 2.5 s, drain b killed in every other round and restarted, and in every third round
// `sinkd table expire` beside them (deleting the inputs only expired snapshots named). After a
// last compactor pass and the drains caught up: one row per event in the table, no file a kept
// snapshot names deleted, every replace's inputs DELETED.
inline void KillNineStormOfTheCompactor(TableLake& lake) {
  NatsServer nats;
  ASSERT_TRUE(nats.ok()) << nats.error();
  ASSERT_EQ(RunCommand({SinkdBinary().string(), "provision", "--nats-url", nats.url()}).exit_code,
            0);
  int64_t expected = PublishLedger(lake, nats, 40, 61);
  auto a = StartDrain(lake, nats, "drain-a");
  std::unique_ptr<outbox::testing::Background> b;
  std::mt19937 random(26);
  int killed_working = 0, expired_snapshots = 0;
  for (int round = 0; round < 12; ++round) {
    expected += PublishLedger(lake, nats, 20, 62 + round);
    if (!b) b = StartDrain(lake, nats, "drain-b" + std::to_string(round));
    auto compactor = StartCompactor(lake, "compactor" + std::to_string(round));
    // On a bucket a compactor lists and reads for longer before its first output: killed as
    // early as on a directory, it was mostly killed before it merged anything.
    const int first_ms = lake.bucket_dir.empty() ? 300 : 1500;
    std::this_thread::sleep_for(std::chrono::milliseconds(first_ms + random() % 2200));
    compactor->Signal(SIGKILL);
    EXPECT_EQ(compactor->Wait(std::chrono::seconds(10)), 128 + SIGKILL);
    killed_working += compactor->Log().find("\"msg\":\"compaction output\"") != std::string::npos;
    if (round % 3 == 2) {
      // Expiry beside the drains deletes what only old snapshots name: a replace's inputs.
      const CommandResult expired = lake.Run({"table", "expire", "ledger", "--older-than", "1s",
                                              "--retain-last", "1", "--grace", "0s"});
      EXPECT_EQ(expired.exit_code, 0) << expired.out << expired.err;
      std::smatch m;
      const std::regex line("expired ([0-9]+) snapshots");
      if (std::regex_search(expired.out, m, line)) expired_snapshots += std::stoi(m[1]);
    }
    if (round % 2 == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(random() % 500));
      b->Signal(SIGKILL);
      EXPECT_EQ(b->Wait(std::chrono::seconds(10)), 128 + SIGKILL);
      b.reset();
    }
  }
  EXPECT_GE(killed_working, 3) << "premise: kills landed on compactors that were merging";
  EXPECT_GT(expired_snapshots, 0) << "premise: expiry deleted what old snapshots named";
  if (!b) b = StartDrain(lake, nats, "drain-b-last");
  const bool reached = TableReaches(lake, expected);
  const CommandResult last = lake.Run({"compact", "ledger", "--table-format", "iceberg",
                                       "--min-parts", "2", "--settle", "0s", "--grace", "0s"});
  EXPECT_EQ(last.exit_code, 0) << last.out << last.err;
  for (auto* d : {a.get(), b.get()}) {
    d->Signal(SIGTERM);
    EXPECT_EQ(d->Wait(std::chrono::seconds(60)), 0) << d->Log().substr(0, 3000);
  }
  ASSERT_TRUE(reached) << lake.Info().dump();
  nlohmann::json entries;
  const TableRead read = ExpectOneRowPerEvent(lake, expected, "after the storm", &entries);
  ASSERT_TRUE(entries.is_object());
  const int replaces = ExpectReplaces(entries, lake, read);
  EXPECT_GT(replaces, 0);
  std::cout << "table: " << read.rows << " rows in " << read.files.size() << " files, "
            << read.snapshots << " snapshots, " << replaces << " of them replaces; "
            << killed_working << " compactors killed while merging, " << expired_snapshots
            << " snapshots expired beside them\n";
}

}  // namespace sinkd::testing
