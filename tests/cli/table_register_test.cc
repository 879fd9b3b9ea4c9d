// `sinkd table register` and `sinkd lake verify --table-format iceberg` through the binary on a
// directory lake: a lake `import` wrote (no table) adopted in one snapshot that icebird and DuckDB
// over icebird's manifest file list read exactly as the glob does; a second register adds
// nothing; Parts written after the table are not adopted; Parts of a stream seed the committed
// positions under the stream's identity and their entries carry the writer's own statistics;
// the lake copied elsewhere is rebuilt there with --replace-metadata; verify passes on the table
// and fails naming a file the table names that was deleted or replaced by another Part's bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_help.h"
#include "iceberg/committers.h"
#include "lake/dir_destination.h"
#include "support/lake_files.h"
#include "support/ledger_rows.h"

namespace sinkd::testing {
namespace {

namespace fs = std::filesystem;

// Generates `messages` ledger messages (seed `seed`) and imports them into `lake` as `instance`;
// returns the good events.
long ImportGenerated(const TempDir& tmp, const std::string& lake, int messages, int seed,
                     const std::string& instance) {
  const std::string input = (tmp / ("in-" + instance + ".bin")).string();
  const CommandResult gen = SinkdWithoutServers(
      {"generate", "ledger", "--messages", std::to_string(messages), "--events-per-batch", "40",
       "--seed", std::to_string(seed), "--bad-share", "0.01", "-o", input});
  EXPECT_EQ(gen.exit_code, 0) << gen.err;
  long good = 0, bad = 0;
  EXPECT_EQ(
      std::sscanf(gen.out.c_str(), "generated %*d messages: %ld good events, %ld bad", &good, &bad),
      2)
      << gen.out;
  const CommandResult imported =
      SinkdWithoutServers({"import", "ledger", "--lake-dir", lake, "--instance-id", instance,
                           "--batch-max-rows", "500", input});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  return good;
}

// The Parts under `root`, as paths in strings, sorted.
std::vector<std::string> PartsUnder(const fs::path& root) {
  std::vector<std::string> out;
  for (const fs::path& p : LakeFiles(root, ".parquet")) out.push_back(p.string());
  return out;
}

nlohmann::json TableInfo(const std::string& lake) {
  const CommandResult info =
      SinkdWithoutServers({"table", "info", "ledger", "--lake-dir", lake, "--json"});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  return nlohmann::json::parse(info.out, nullptr, false);
}

// The data files the table's current snapshot names, as icebird reads its manifests.
std::vector<std::string> IcebirdFiles(const std::string& table_url) {
  const CommandResult r =
      RunCommand({"node", (SourceDir() / "tools/icebird-read.mjs").string(), table_url, "--files"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  std::vector<std::string> files;
  if (j.is_discarded()) return files;
  for (const auto& f : j["files"]) files.push_back(f.get<std::string>());
  return files;
}

// count(*) and count(DISTINCT event_id) of the files (file:// URIs) as DuckDB reads them.
std::pair<std::string, std::string> CountFiles(const std::vector<std::string>& uris) {
  std::string list;
  for (const std::string& u : uris) {
    list += (list.empty() ? "" : ", ") + SqlQuote(u.substr(std::string("file://").size()));
  }
  if (list.empty()) return {"", ""};
  const QueryResult q =
      DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet([" + list + "])");
  EXPECT_TRUE(q.ok) << q.error;
  if (!q.ok) return {"", ""};
  return {q.rows[0][0], q.rows[0][1]};
}

std::string GlobCount(const std::string& lake) {
  const QueryResult q =
      DuckDb("SELECT count(*) FROM read_parquet(" + SqlQuote(lake + "/ledger/**/*.parquet") + ")");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok ? q.rows[0][0] : "";
}

std::set<std::string> IcebirdEventIds(const std::string& table_url, size_t* rows) {
  const nlohmann::json read = iceberg::IcebirdRead(table_url);
  std::set<std::string> ids;
  *rows = 0;
  if (read.is_discarded()) return ids;
  for (const auto& row : read["rows"]) ids.insert(row["event_id"].get<std::string>());
  *rows = read["rows"].size();
  return ids;
}

TEST(TableRegister, AdoptsAnImportedLakeInOneSnapshotReadAsTheGlobAndASecondRunAddsNothing) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  const long good = ImportGenerated(tmp, lake, 60, 7, "box-1");
  ASSERT_GT(good, 1000);
  const std::vector<std::string> parts = PartsUnder(tmp / "lake/ledger");
  ASSERT_GE(parts.size(), 4u) << "premise: several Parts over several partitions";
  ASSERT_EQ(GlobCount(lake), std::to_string(good));

  const std::vector<std::string> registration = {"table", "register", "ledger", "--lake-dir", lake};
  CommandResult r = SinkdWithoutServers(registration);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("registered " + std::to_string(parts.size()) + " Parts, " +
                       std::to_string(good) + " records"),
            std::string::npos)
      << r.out;
  nlohmann::json info = TableInfo(lake);
  ASSERT_FALSE(info.is_discarded());
  EXPECT_EQ(info["snapshots"], 1) << "every Part in ONE append snapshot";
  EXPECT_EQ(info["data_files"], parts.size());
  EXPECT_EQ(info["records"], good);
  EXPECT_EQ(info["version"], 1);
  EXPECT_TRUE(info["positions"]["streams"].empty()) << "import's runs record no positions";

  // icebird reads the table's rows; DuckDB over icebird's file list reads what the glob reads.
  size_t rows = 0;
  const std::set<std::string> ids = IcebirdEventIds("file://" + lake + "/ledger", &rows);
  EXPECT_EQ(rows, static_cast<size_t>(good));
  EXPECT_EQ(ids.size(), static_cast<size_t>(good));
  const std::vector<std::string> files = IcebirdFiles("file://" + lake + "/ledger");
  EXPECT_EQ(files.size(), parts.size());
  EXPECT_EQ(CountFiles(files), std::make_pair(std::to_string(good), std::to_string(good)));

  // Again: nothing added, no new metadata version.
  r = SinkdWithoutServers(registration);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nothing to register (" + std::to_string(parts.size()) +
                       " Parts in the table already"),
            std::string::npos)
      << r.out;
  info = TableInfo(lake);
  EXPECT_EQ(info["snapshots"], 1);
  EXPECT_EQ(info["version"], 1);

  // Parts written after the table without a commit (a failed commit's, as far as the table can
  // tell) are not adopted: the table's writers commit their own.
  const long more = ImportGenerated(tmp, lake, 10, 8, "box-2");
  ASSERT_GT(more, 0);
  r = SinkdWithoutServers(registration);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not adopted file://" + lake + "/ledger/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing to register"), std::string::npos) << r.out;
  EXPECT_EQ(TableInfo(lake)["records"], good);

  // verify of the table: the glob's check and the table's pass.
  r = SinkdWithoutServers(
      {"lake", "verify", "ledger", "--lake-dir", lake, "--table-format", "iceberg", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json v = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(v.is_discarded()) << r.out;
  EXPECT_EQ(v["iceberg"]["ok"], true) << r.out;
  EXPECT_EQ(v["iceberg"]["data_files"], parts.size());
  EXPECT_EQ(v["iceberg"]["records"], good);
}

// Parts a stream's writer placed (stamps of scope "stream"), registered: the entries are the
// writer's own statistics, and the positions are the flushes' acked ranges under the stream's
// identity, which the stamps cannot give (refused without it).
TEST(TableRegister, PartsOfAStreamSeedItsPositionsAndCarryTheirWritersStatistics) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  auto dir = lake::DirDestination::Make(lake);
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE((*dir)->Ensure().ok());
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "drain-1";
  options.encode_threads = 1;
  lake::LakeWriter writer(**dir, options);
  const iceberg::TableSpec spec = iceberg::SpecOf(row::kLedgerColumns);
  std::map<std::string, iceberg::DataFile> written;
  const char* apps[] = {"billing", "crm-sync", "web"};
  for (int f = 0; f < 3; ++f) {
    row::RowBuffer batch(row::kLedgerColumns);
    for (int i = 0; i < 30; ++i) {
      const int n = f * 30 + i;
      AddLedgerRow(batch, "e-" + std::to_string(n),
                   1'767'225'600'000'000 + int64_t{3'600'000'000} * n, apps[n % 3]);
    }
    table::Provenance provenance{"GARM_LEDGER", uint64_t(f) * 30 + 1, uint64_t(f) * 30 + 30};
    Result<lake::FlushReport> report = writer.Flush(batch, provenance);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    for (const lake::PartReport& p : report->parts) {
      Result<iceberg::DataFile> file =
          iceberg::DataFileOf(spec, (*dir)->Uri() + "/" + p.key, p.bytes, p.values, p.statistics);
      ASSERT_TRUE(file.ok());
      written.emplace(file->path, *file);
    }
  }
  ASSERT_GE(written.size(), 6u) << "premise: Parts over several days and apps";

  const std::vector<std::string> registration = {"table", "register", "ledger", "--lake-dir", lake};
  CommandResult r = SinkdWithoutServers(registration);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("Parts of stream GARM_LEDGER record its sequences"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--stream-created"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "lake/ledger/metadata/v1.metadata.json")) << "nothing committed";

  const std::string created = "2026-11-30T08:00:00.123456789Z";
  r = SinkdWithoutServers(Plus(registration, {"--stream-created", created}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("seeded stream GARM_LEDGER@" + created + ": 1-90"), std::string::npos)
      << r.out;
  const nlohmann::json info = TableInfo(lake);
  EXPECT_EQ(info["positions"]["streams"]["GARM_LEDGER@" + created],
            nlohmann::json::parse("[[1,90]]"))
      << info.dump();

  iceberg::FilesCatalog catalog(**dir, (*dir)->Uri(), "ledger", spec);
  const std::vector<iceberg::DataFile> live = iceberg::LiveFiles(**dir, catalog);
  ASSERT_EQ(live.size(), written.size());
  for (const iceberg::DataFile& f : live) {
    auto it = written.find(f.path);
    ASSERT_NE(it, written.end()) << f.path;
    EXPECT_EQ(f, it->second) << f.path << ": the entry the writer's commit would have made";
  }

  r = SinkdWithoutServers(
      {"lake", "verify", "ledger", "--lake-dir", lake, "--table-format", "iceberg"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("table GARM_LEDGER: covered 1-90; expected 1-90"), std::string::npos)
      << r.out;
}

TEST(TableRegister, ALakeCopiedElsewhereIsRebuiltThereWithReplaceMetadata) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  const long good = ImportGenerated(tmp, lake, 40, 11, "box-1");
  ASSERT_EQ(SinkdWithoutServers({"table", "register", "ledger", "--lake-dir", lake}).exit_code, 0);
  // An uncommitted Part beside the table's (a failed commit's): the rebuilt table leaves it out.
  const std::vector<std::string> parts = PartsUnder(tmp / "lake/ledger");
  ASSERT_FALSE(parts.empty());
  const fs::path stray = fs::path(parts[0]).parent_path() / "part-gone-1-9-0.parquet";
  fs::copy_file(parts[0], stray);

  const std::string copy = (tmp / "elsewhere").string();
  fs::copy(lake, copy, fs::copy_options::recursive);
  fs::remove_all(lake);  // nothing may still be read from the old place

  const std::vector<std::string> registration = {"table", "register", "ledger", "--lake-dir", copy};
  CommandResult r = SinkdWithoutServers(registration);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("names the location file://" + lake + "/ledger"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--replace-metadata"), std::string::npos) << r.err;

  r = SinkdWithoutServers(Plus(registration, {"--replace-metadata"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("replaced metadata naming file://" + lake + "/ledger"), std::string::npos)
      << r.out;
  const nlohmann::json info = TableInfo(copy);
  EXPECT_EQ(info["location"], "file://" + copy + "/ledger");
  EXPECT_EQ(info["version"], 2) << "the next version, never replacing v1";
  EXPECT_EQ(info["snapshots"], 1);
  EXPECT_EQ(info["records"], good) << "the old table's files, not the stray Part";

  size_t rows = 0;
  const std::set<std::string> ids = IcebirdEventIds("file://" + copy + "/ledger", &rows);
  EXPECT_EQ(rows, static_cast<size_t>(good));
  EXPECT_EQ(ids.size(), static_cast<size_t>(good));
  const std::vector<std::string> files = IcebirdFiles("file://" + copy + "/ledger");
  ASSERT_EQ(files.size(), parts.size());
  for (const std::string& f : files) EXPECT_EQ(f.rfind("file://" + copy + "/ledger/", 0), 0u) << f;
  EXPECT_EQ(CountFiles(files), std::make_pair(std::to_string(good), std::to_string(good)));

  // Again: the metadata names this location now.
  r = SinkdWithoutServers(Plus(registration, {"--replace-metadata"}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("already names this location"), std::string::npos) << r.err;
}

TEST(TableVerify, FailsNamingAFileTheTableNamesThatWasDeletedOrReplacedByAnotherPartsBytes) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  ASSERT_GT(ImportGenerated(tmp, lake, 40, 5, "box-1"), 0);
  const std::vector<std::string> verify = {"lake", "verify",         "ledger", "--lake-dir",
                                           lake,   "--table-format", "iceberg"};
  CommandResult r = SinkdWithoutServers(verify);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("table: no Iceberg table"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("Iceberg table missing"), std::string::npos) << r.err;
  EXPECT_EQ(SinkdWithoutServers({"lake", "verify", "ledger", "--lake-dir", lake}).exit_code, 0)
      << "without --table-format the glob alone is checked";

  ASSERT_EQ(SinkdWithoutServers({"table", "register", "ledger", "--lake-dir", lake}).exit_code, 0);
  r = SinkdWithoutServers(verify);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("table OK"), std::string::npos) << r.out;

  std::vector<std::string> parts = PartsUnder(tmp / "lake/ledger");
  ASSERT_GE(parts.size(), 3u);
  // Another Part's bytes over the first: the manifest's size or rows, and its stamp, disagree.
  const std::string saved = ReadFile(parts[0]);
  fs::copy_file(parts[1], parts[0], fs::copy_options::overwrite_existing);
  r = SinkdWithoutServers(verify);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("table file file://" + parts[0] + " "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("1 file of the table wrong"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(file://" + parts[0] + " "), std::string::npos) << r.err;

  // Its own bytes back: OK again.
  WriteFile(parts[0], saved);
  r = SinkdWithoutServers(verify);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  fs::remove(parts[2]);
  r = SinkdWithoutServers(verify);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("table file file://" + parts[2] + " does not exist"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace sinkd::testing
