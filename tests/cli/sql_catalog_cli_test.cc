// `--iceberg-catalog sql` through the binary: the flags and their [iceberg] keys refused when
// wrong before anything is read, the URL redacted by config show, and `sinkd drain …
// --table-format iceberg --iceberg-catalog sql` against a real nats-server and PostgreSQL: the
// table's row in Iceberg's JDBC catalog table names a metadata file whose current snapshot holds
// exactly the good events, read by icebird from that file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_help.h"
#include "iceberg/committers.h"
#include "iceberg/sql_catalog.h"
#include "jetstream/jetstream_test_support.h"
#include "lake/dir_destination.h"
#include "outbox/pg.h"
#include "support/icebird.h"
#include "support/lake_files.h"
#include "support/postgres_server.h"

namespace sinkd::testing {
namespace {

using namespace std::chrono_literals;

TEST(IcebergCatalogFlags, WrongValuesAreRefusedBeforeAnythingIsReadAndTheUrlIsRedacted) {
  TempDir dir;
  CommandResult r = SinkdWithoutServers({"drain", "ledger", "--lake-dir", (dir / "l").string(),
                                         "--nats-url", "nats://127.0.0.1:1", "--table-format",
                                         "iceberg", "--iceberg-catalog", "hive"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--iceberg-catalog: hive not in {files,sql}"), std::string::npos) << r.err;
  r = SinkdWithoutServers({"drain", "ledger", "--lake-dir", (dir / "l").string(), "--nats-url",
                           "nats://127.0.0.1:1", "--table-format", "iceberg",
                           "--iceberg-catalog", "sql"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--iceberg-catalog sql needs --iceberg-catalog-url"), std::string::npos)
      << r.err;

  const std::string file = (dir / "sinkd.toml").string();
  WriteFile(file,
            "[lake]\ndir = \"/tmp/x\"\ntable_format = \"iceberg\"\n[iceberg]\ncatalog = \"sql\"\n"
            "catalog_url = \"postgresql://sinkd:hunter2@db.example/lake\"\nnamespace = \"prod\"\n");
  CommandResult show = SinkdWithoutServers({"config", "show", "--config", file});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out.find("hunter2"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("iceberg.catalog = \"sql\""), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("iceberg.catalog_url = \"postgresql://sinkd:"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("iceberg.namespace = \"prod\""), std::string::npos) << show.out;
  r = SinkdWithoutServers({"validate", "--config", file, "--offline"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("hunter2"), std::string::npos) << r.out << r.err;

  WriteFile(file, "[lake]\ndir = \"/tmp/x\"\ntable_format = \"iceberg\"\n[iceberg]\n"
                  "catalog = \"sql\"\n");
  r = SinkdWithoutServers({"validate", "--config", file, "--offline"});
  EXPECT_EQ(r.exit_code, 78) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("--iceberg-catalog sql needs --iceberg-catalog-url"),
            std::string::npos)
      << r.out << r.err;
}

TEST(IcebergCatalogFlags, ValidateReachesTheSqlCatalogsDatabaseAndNamesItsKeyNotItsPassword) {
  TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  const std::string lake = (dir / "lake").string();
  const int port = FreeLoopbackPort();
  WriteFile(file, "[lake]\ndir = \"" + lake + "\"\ntable_format = \"iceberg\"\n[iceberg]\n" +
                      "catalog = \"sql\"\ncatalog_url = \"postgresql://sinkd:hunter2@127.0.0.1:" +
                      std::to_string(port) + "/lake\"\n");
  CommandResult r = SinkdWithoutServers({"validate", "--config", file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("iceberg.catalog_url"), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("hunter2"), std::string::npos) << r.out << r.err;

  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  WriteFile(file, "[lake]\ndir = \"" + lake + "\"\ntable_format = \"iceberg\"\n[iceberg]\n" +
                      "catalog = \"sql\"\ncatalog_url = \"" + pg + "\"\n");
  r = SinkdWithoutServers({"validate", "--config", file});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

CommandResult Sinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", 60s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

TEST(IcebergCatalogFlags, ADrainCommitsThroughTheSqlCatalogAndIcebirdReadsTheFileItsRowNames) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir dir;
  const std::string url = server.url();
  ASSERT_EQ(Sinkd({"provision", "--nats-url", url}).exit_code, 0);
  const CommandResult gen =
      Sinkd({"generate", "ledger", "--messages", "20", "--events-per-batch", "50", "--seed", "4",
             "-o", (dir / "l.bin").string()});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  long good = 0, bad = 0;
  ASSERT_EQ(std::sscanf(gen.out.c_str(), "generated 20 messages: %ld good events, %ld bad", &good,
                        &bad),
            2)
      << gen.out;
  ASSERT_EQ(Sinkd({"publish", "ledger", "--nats-url", url, (dir / "l.bin").string()}).exit_code, 0);

  const std::string lake = (dir / "lake").string();
  const std::string log = (dir / "drain.log").string();
  const pid_t pid = fork();
  if (pid == 0) {
    if (freopen(log.c_str(), "w", stderr) == nullptr) _exit(126);
    std::vector<std::string> all = {
        "sinkd", "drain", "ledger", "--nats-url", url, "--lake-dir", lake, "--batch-interval",
        "300ms", "--fetch-max", "5", "--instance-id", "t1", "--table-format", "iceberg",
        "--iceberg-catalog", "sql", "--iceberg-catalog-url", pg};
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    setenv("LAKE_DIR", "", 1);
    execv(SinkdBinary().c_str(), argv.data());
    _exit(127);
  }
  auto c = Connect(server);
  const bool drained = WaitUntil(
      [&] {
        auto s = jetstream::GetConsumerState(*c, "GARM_LEDGER", "sink-ledger");
        return s.ok() && s->pending == 0 && s->ack_pending == 0;
      },
      60s);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(drained) << ReadFile(log);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadFile(log);

  Result<outbox::PgConn> conn = outbox::PgConn::Connect(pg, "sinkd-test");
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  Result<outbox::PgResult> row = conn->Exec(
      "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = 'sinkd' AND "
      "table_namespace = 'lake' AND table_name = 'ledger'");
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  ASSERT_EQ(row->rows(), 1) << "the drain's table has its row";
  const std::string location(row->Text(0, 0));
  const std::string prefix = "file://" + lake + "/ledger/metadata/";
  ASSERT_EQ(location.rfind(prefix, 0), 0u) << location;
  const std::string name = location.substr(prefix.size());
  EXPECT_FALSE(std::filesystem::exists(lake + "/ledger/metadata/version-hint.text"))
      << "the sql catalog writes no hint";

  const nlohmann::json rows = IcebirdRead("file://" + lake + "/ledger", {.metadata = name});
  ASSERT_FALSE(rows.is_discarded());
  EXPECT_EQ(rows["rows"].size(), static_cast<size_t>(good)) << "every good event once";
  EXPECT_EQ(EventIdsOf(rows).size(), static_cast<size_t>(good));
}

// `sinkd table info|expire|orphans` with the drain's catalog flags read and maintain a table kept
// in the sql catalog through its row. Failed before: the flags were unknown (exit 2), and the
// files catalog alone found no table (exit 1). And orphans spares the current
// <N>-<uuid>.metadata.json, which only the row names (listed as an orphan before).
TEST(IcebergCatalogFlags, TableInfoExpireAndOrphansWorkThroughTheSqlCatalogsRow) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  TempDir dir;
  auto lake = lake::DirDestination::Make(dir.path().string());
  ASSERT_TRUE(lake.ok());
  ASSERT_TRUE((*lake)->Ensure().ok());
  iceberg::SqlCatalog catalog(**lake, "file://" + dir.path().string(), "ledger",
                              iceberg::SpecOf(row::kLedgerColumns),
                              iceberg::SqlCatalogTarget{pg, "sinkd", "lake"});
  // Each snapshot carries positions, so expiry may drop all but the current one.
  const iceberg::Committed committed = iceberg::CommitFlushes(
      **lake, catalog, "t1", 4, 5, iceberg::StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z"));
  ASSERT_EQ(committed.event_ids.size(), 20u);
  auto row_names = [&] {
    Result<std::string> location = catalog.MetadataLocation();
    EXPECT_TRUE(location.ok());
    return location.ok() ? *location : std::string();
  };
  const std::string before = row_names();
  const std::vector<std::string> sql = {"--lake-dir", dir.path().string(),     "--iceberg-catalog",
                                        "sql",        "--iceberg-catalog-url", pg};
  const auto table = [&](std::vector<std::string> args) {
    args.insert(args.end(), sql.begin(), sql.end());
    return Sinkd(args);
  };

  CommandResult info = table({"table", "info", "ledger", "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.out << info.err;
  nlohmann::json j = nlohmann::json::parse(info.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << info.out;
  EXPECT_EQ(j["catalog"], "sql");
  EXPECT_EQ(j["metadata"], before);
  EXPECT_EQ(j["records"], 20);
  EXPECT_EQ(j["snapshots"], 4);
  EXPECT_EQ((info.out + info.err).find(pg.substr(pg.find('@') + 1)), std::string::npos)
      << "the catalog's URL is not printed";
  CommandResult text = table({"table", "info", "ledger"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("named by the sql catalog, namespace lake"), std::string::npos)
      << text.out;
  CommandResult files = Sinkd({"table", "info", "ledger", "--lake-dir", dir.path().string()});
  EXPECT_EQ(files.exit_code, 1) << "the files catalog has no v<N>.metadata.json here";
  CommandResult no_url = Sinkd(
      {"table", "info", "ledger", "--lake-dir", dir.path().string(), "--iceberg-catalog", "sql"});
  EXPECT_EQ(no_url.exit_code, 2) << no_url.err;
  EXPECT_NE(no_url.err.find("--iceberg-catalog sql needs --iceberg-catalog-url"), std::string::npos)
      << no_url.err;

  std::this_thread::sleep_for(1200ms);  // every file older than --older-than 1s
  CommandResult orphans = table({"table", "orphans", "ledger", "--older-than", "1s"});
  ASSERT_EQ(orphans.exit_code, 0) << orphans.out << orphans.err;
  EXPECT_NE(orphans.out.find("table ledger: 0 orphans"), std::string::npos) << orphans.out;
  EXPECT_EQ(orphans.out.find(before.substr(before.rfind('/') + 1)), std::string::npos)
      << "the current metadata file is no orphan:\n"
      << orphans.out;

  CommandResult expired =
      table({"table", "expire", "ledger", "--older-than", "1s", "--grace", "0s"});
  ASSERT_EQ(expired.exit_code, 0) << expired.out << expired.err;
  EXPECT_NE(expired.out.find("expired 3 snapshots"), std::string::npos) << expired.out;
  const std::string after = row_names();
  EXPECT_NE(after, before) << "expiry committed through the row";
  info = table({"table", "info", "ledger", "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  j = nlohmann::json::parse(info.out, nullptr, false);
  EXPECT_EQ(j["metadata"], after);
  EXPECT_EQ(j["snapshots"], 1);
  EXPECT_EQ(j["records"], 20);
  orphans = table({"table", "orphans", "ledger", "--older-than", "1s", "--delete"});
  EXPECT_EQ(orphans.exit_code, 0) << orphans.out << orphans.err;
  EXPECT_TRUE(std::filesystem::exists(after.substr(std::string("file://").size()))) << orphans.out;
  info = table({"table", "info", "ledger", "--json"});
  EXPECT_EQ(info.exit_code, 0) << "the table still reads after orphans --delete: " << info.err;
}

// Failed before: import committed to the files catalog whatever --iceberg-catalog said (the sql
// row absent, a v1.metadata.json written).
TEST(IcebergCatalogFlags, AnImportCommitsThroughTheSqlCatalogItIsGiven) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  TempDir dir;
  const std::string wire = (dir / "l.bin").string();
  const CommandResult gen = Sinkd({"generate", "ledger", "--messages", "10", "--events-per-batch",
                                   "20", "--seed", "6", "-o", wire});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  long good = 0, bad = 0;
  ASSERT_EQ(std::sscanf(gen.out.c_str(), "generated 10 messages: %ld good events, %ld bad", &good,
                        &bad),
            2)
      << gen.out;
  const std::string lake = (dir / "lake").string();
  const std::vector<std::string> sql = {"--lake-dir", lake, "--iceberg-catalog", "sql",
                                        "--iceberg-catalog-url", pg};
  std::vector<std::string> import = {"import", "ledger", "--instance-id", "i1",
                                     "--table-format", "iceberg", wire};
  import.insert(import.end(), sql.begin(), sql.end());
  const CommandResult imported = Sinkd(import);
  ASSERT_EQ(imported.exit_code, 0) << imported.out << imported.err;

  std::vector<std::string> info_args = {"table", "info", "ledger", "--json"};
  info_args.insert(info_args.end(), sql.begin(), sql.end());
  const CommandResult info = Sinkd(info_args);
  ASSERT_EQ(info.exit_code, 0) << info.out << info.err;
  const nlohmann::json j = nlohmann::json::parse(info.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << info.out;
  EXPECT_EQ(j["catalog"], "sql");
  EXPECT_EQ(j["records"], good) << info.out;
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(lake) / "ledger" / "metadata" /
                                       "v1.metadata.json"))
      << "no files-catalog table beside the sql one";
}

// The JDBC catalog's tables in the schema `pg` reaches (FreshDatabase gives each test a schema of
// its own): what a command that only looks must never create.
std::vector<std::string> CatalogRelations(const std::string& pg) {
  Result<outbox::PgConn> conn = outbox::PgConn::Connect(pg, "sinkd-test");
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return {"(no connection)"};
  Result<outbox::PgResult> r = conn->Exec(
      "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
      "WHERE n.nspname = current_schema() AND c.relname LIKE 'iceberg%' ORDER BY 1");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> out;
  for (int i = 0; r.ok() && i < r->rows(); ++i) out.emplace_back(r->Text(i, 0));
  return out;
}

// Namespaces with a property row (EnsureSchema writes exists=true for the one it opens).
std::vector<std::string> PropertyNamespaces(const std::string& pg) {
  Result<outbox::PgConn> conn = outbox::PgConn::Connect(pg, "sinkd-test");
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return {};
  Result<outbox::PgResult> r =
      conn->Exec("SELECT DISTINCT namespace FROM iceberg_namespace_properties ORDER BY 1");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> out;
  for (int i = 0; r.ok() && i < r->rows(); ++i) out.emplace_back(r->Text(i, 0));
  return out;
}

// Every command that only looks at a table kept in the sql catalog — table info, table orphans
// without --delete, table expire --dry-run, compact --dry-run --table-format iceberg, validate —
// leaves an empty database empty: no iceberg_tables, no iceberg_namespace_properties, and a
// missing catalog table reads as no table, named with its database. On a catalog that exists,
// they add no namespace row. Failed before: each of the first four created both tables (and
// the namespace's exists=true row).
TEST(IcebergCatalogFlags, CommandsThatOnlyLookCreateNothingInTheSqlCatalogsDatabase) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  const std::string schema = pg.substr(pg.rfind('=') + 1);
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  std::filesystem::create_directories(lake);
  const std::vector<std::string> sql = {"--lake-dir", lake, "--iceberg-catalog", "sql",
                                        "--iceberg-catalog-url", pg};
  const auto with_sql = [&](std::vector<std::string> args) {
    args.insert(args.end(), sql.begin(), sql.end());
    return Sinkd(args);
  };
  const std::vector<std::string> nothing;

  CommandResult info = with_sql({"table", "info", "ledger", "--json"});
  EXPECT_EQ(info.exit_code, 1) << info.out << info.err;
  EXPECT_NE(info.err.find("has no table iceberg_tables"), std::string::npos) << info.err;
  EXPECT_NE(info.err.find("database \"postgres\", schema " + schema), std::string::npos)
      << info.err;
  EXPECT_EQ(CatalogRelations(pg), nothing) << "after table info";

  CommandResult orphans = with_sql({"table", "orphans", "ledger", "--older-than", "0s"});
  EXPECT_EQ(orphans.exit_code, 1) << orphans.out << orphans.err;
  EXPECT_NE(orphans.err.find("has no table iceberg_tables"), std::string::npos) << orphans.err;
  EXPECT_EQ(CatalogRelations(pg), nothing) << "after table orphans";

  CommandResult expire =
      with_sql({"table", "expire", "ledger", "--older-than", "0s", "--dry-run"});
  EXPECT_EQ(expire.exit_code, 1) << expire.out << expire.err;
  EXPECT_NE(expire.err.find("has no table iceberg_tables"), std::string::npos) << expire.err;
  EXPECT_EQ(CatalogRelations(pg), nothing) << "after table expire --dry-run";

  CommandResult compact =
      with_sql({"compact", "ledger", "--dry-run", "--table-format", "iceberg"});
  EXPECT_EQ(compact.exit_code, 0) << compact.out << compact.err;
  EXPECT_NE(compact.out.find("nothing was changed"), std::string::npos) << compact.out;
  EXPECT_EQ(CatalogRelations(pg), nothing) << "after compact --dry-run";

  const std::string file = (dir / "sinkd.toml").string();
  WriteFile(file, "[lake]\ndir = \"" + lake + "\"\ntable_format = \"iceberg\"\n[iceberg]\n" +
                      "catalog = \"sql\"\ncatalog_url = \"" + pg + "\"\n");
  CommandResult valid = Sinkd({"validate", "--config", file});
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  EXPECT_EQ(CatalogRelations(pg), nothing) << "after validate";

  // A catalog that exists, a namespace that has nothing: still nothing written.
  auto dest = lake::DirDestination::Make(lake);
  ASSERT_TRUE(dest.ok());
  iceberg::SqlCatalog catalog(**dest, "file://" + lake, "ledger",
                              iceberg::SpecOf(row::kLedgerColumns),
                              iceberg::SqlCatalogTarget{pg, "sinkd", "lake"});
  const iceberg::Committed committed = iceberg::CommitFlushes(
      **dest, catalog, "t1", 2, 5, iceberg::StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z"));
  ASSERT_EQ(committed.event_ids.size(), 10u);
  const std::vector<std::string> lake_only = {"lake"};
  ASSERT_EQ(PropertyNamespaces(pg), lake_only);
  const std::string before = *catalog.MetadataLocation();
  const auto elsewhere = [&](std::vector<std::string> args) {
    return with_sql(Plus(args, {"--iceberg-namespace", "elsewhere"}));
  };
  info = elsewhere({"table", "info", "ledger"});
  EXPECT_EQ(info.exit_code, 1) << info.out << info.err;
  EXPECT_NE(info.err.find("no row for ledger in namespace elsewhere"), std::string::npos)
      << info.err;
  EXPECT_EQ(elsewhere({"table", "orphans", "ledger"}).exit_code, 1);
  EXPECT_EQ(elsewhere({"table", "expire", "ledger", "--dry-run"}).exit_code, 1);
  EXPECT_EQ(elsewhere({"compact", "ledger", "--dry-run", "--table-format", "iceberg"}).exit_code,
            0);
  EXPECT_EQ(PropertyNamespaces(pg), lake_only) << "no namespace row written by a look";
  // And the table that is there reads, a dry run of its expiry moving nothing.
  info = with_sql({"table", "info", "ledger", "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.out << info.err;
  expire = with_sql({"table", "expire", "ledger", "--older-than", "0s", "--dry-run"});
  ASSERT_EQ(expire.exit_code, 0) << expire.out << expire.err;
  EXPECT_NE(expire.out.find("would expire 1 snapshots"), std::string::npos) << expire.out;
  EXPECT_EQ(*catalog.MetadataLocation(), before) << "a dry run moved the pointer";
}

// A dispatch file's lake sinks take the catalog keys in their entries: validate refuses a kind
// that is not one naming the entry and the key, and config show prints them with the URL's
// password masked; without a URL the sql catalog is the outbox's own database, which is valid.
TEST(IcebergCatalogFlags, ADispatchFilesLakeSinkCatalogKeysAreValidatedAndShownMasked) {
  TempDir dir;
  const std::string file = (dir / "dispatch.toml").string();
  const std::string head =
      "[postgres]\nurl = \"postgresql://sinkd:hunter2@127.0.0.1:1/outbox\"\n"
      "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" +
      (dir / "lake").string() + "\"\ntable_format = \"iceberg\"\n";
  WriteFile(file, head + "iceberg_catalog = \"hive\"\n");
  CommandResult r = SinkdWithoutServers({"validate", "--config", file, "--offline"});
  EXPECT_EQ(r.exit_code, 78) << r.out << r.err;
  EXPECT_NE(r.out.find("sinks.events[0] (id \"lake\"): iceberg_catalog \"hive\" is not a catalog"),
            std::string::npos)
      << r.out << r.err;

  WriteFile(file, head + "iceberg_catalog = \"sql\"\n");
  r = SinkdWithoutServers({"validate", "--config", file, "--offline"});
  EXPECT_EQ(r.exit_code, 0) << "sql without a URL: the outbox's database\n" << r.out << r.err;

  WriteFile(file, head +
                      "iceberg_catalog = \"sql\"\niceberg_catalog_url = "
                      "\"postgresql://cat:swordfish@127.0.0.1:1/cat\"\niceberg_namespace = "
                      "\"prod\"\n");
  r = SinkdWithoutServers({"validate", "--config", file, "--offline"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  CommandResult show = SinkdWithoutServers({"config", "show", "--config", file});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out.find("swordfish"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("hunter2"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("iceberg_catalog = \"sql\""), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("iceberg_catalog_url = \"postgresql://cat:"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("iceberg_namespace = \"prod\""), std::string::npos) << show.out;
  // Reached (not offline, the outbox's database answering): the catalog's own database is
  // named by the entry, not its password.
  const std::string outbox = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(outbox.empty());
  WriteFile(file, "[postgres]\nurl = \"" + outbox + "\"\n[[sinks.events]]\nid = \"lake\"\n" +
                      "type = \"lake\"\nlake_dir = \"" + (dir / "lake").string() +
                      "\"\ntable_format = \"iceberg\"\niceberg_catalog = \"sql\"\n" +
                      "iceberg_catalog_url = \"postgresql://cat:swordfish@127.0.0.1:1/cat\"\n");
  r = SinkdWithoutServers({"validate", "--config", file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("the sql catalog's database (iceberg_catalog_url)"), std::string::npos)
      << r.out;
  EXPECT_EQ((r.out + r.err).find("swordfish"), std::string::npos) << r.out << r.err;
}

// `sinkd table register` and `sinkd lake verify --table-format iceberg` with the sql catalog:
// a lake `import` wrote without a table (returns its good events), the sql flags for `lake`.
long ImportWithoutTable(const TempDir& dir, const std::string& lake, int seed) {
  const std::string wire = (dir / ("in-" + std::to_string(seed) + ".bin")).string();
  const CommandResult gen = Sinkd({"generate", "ledger", "--messages", "30", "--events-per-batch",
                                   "40", "--seed", std::to_string(seed), "-o", wire});
  EXPECT_EQ(gen.exit_code, 0) << gen.err;
  long good = 0, bad = 0;
  EXPECT_EQ(std::sscanf(gen.out.c_str(), "generated 30 messages: %ld good events, %ld bad", &good,
                        &bad),
            2)
      << gen.out;
  const CommandResult imported = Sinkd({"import", "ledger", "--lake-dir", lake, "--instance-id",
                                        "box-1", "--batch-max-rows", "400", wire});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  return good;
}

std::vector<std::string> SqlAt(const std::string& lake, const std::string& pg) {
  return {"--lake-dir", lake, "--iceberg-catalog", "sql", "--iceberg-catalog-url", pg};
}

// The metadata_location (and previous) of the ledger row, "" when there is none.
std::pair<std::string, std::string> LedgerRow(const std::string& pg) {
  Result<outbox::PgConn> conn = outbox::PgConn::Connect(pg, "sinkd-test");
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return {};
  Result<outbox::PgResult> row = conn->Exec(
      "SELECT metadata_location, coalesce(previous_metadata_location, '') FROM iceberg_tables "
      "WHERE catalog_name = 'sinkd' AND table_namespace = 'lake' AND table_name = 'ledger'");
  EXPECT_TRUE(row.ok()) << row.status().ToString();
  if (!row.ok() || row->rows() != 1) return {};
  return {std::string(row->Text(0, 0)), std::string(row->Text(0, 1))};
}

// icebird's reading of the metadata file `location` names (a file:// URI under the table): the
// rows, or with `files` the data files its manifests list.
nlohmann::json IcebirdAt(const std::string& location, bool files) {
  const size_t at = location.find("/metadata/");
  return IcebirdRead(location.substr(0, at),
                     {.metadata = location.substr(at + std::string("/metadata/").size()),
                      .files = files});
}

// count(*) and count(DISTINCT event_id) of file:// URIs, as DuckDB reads them.
std::pair<std::string, std::string> DuckDbCounts(const nlohmann::json& uris) {
  std::string list;
  for (const auto& u : uris) {
    list += (list.empty() ? "" : ", ") +
            SqlQuote(u.get<std::string>().substr(std::string("file://").size()));
  }
  if (list.empty()) return {};
  const QueryResult q =
      DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet([" + list + "])");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok ? std::make_pair(q.rows[0][0], q.rows[0][1]) : std::pair<std::string, std::string>{};
}

TEST(IcebergCatalogFlags, RegisterAdoptsALakeIntoTheSqlCatalogOnceAndInfoThereShowsEveryPart) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  const long good = ImportWithoutTable(dir, lake, 21);
  const size_t parts = LakeFiles(dir / "lake/ledger", ".parquet").size();
  ASSERT_GE(parts, 3u) << "premise: several Parts";

  const std::vector<std::string> registration =
      Plus({"table", "register", "ledger"}, SqlAt(lake, pg));
  CommandResult r = Sinkd(registration);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("registered " + std::to_string(parts) + " Parts, " + std::to_string(good) +
                       " records"),
            std::string::npos)
      << r.out;
  const auto [location, previous] = LedgerRow(pg);
  ASSERT_EQ(location.rfind("file://" + lake + "/ledger/metadata/00001-", 0), 0u)
      << "the row names the table's first metadata file: " << location;
  EXPECT_EQ(previous, "");
  EXPECT_FALSE(std::filesystem::exists(lake + "/ledger/metadata/v1.metadata.json"))
      << "no files-catalog table beside the sql one";

  const auto info = [&] {
    const CommandResult i = Sinkd(Plus({"table", "info", "ledger", "--json"}, SqlAt(lake, pg)));
    EXPECT_EQ(i.exit_code, 0) << i.out << i.err;
    return nlohmann::json::parse(i.out, nullptr, false);
  };
  nlohmann::json j = info();
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["catalog"], "sql");
  EXPECT_EQ(j["metadata"], location);
  EXPECT_EQ(j["snapshots"], 1) << "every Part in one snapshot";
  EXPECT_EQ(j["data_files"], parts);
  EXPECT_EQ(j["records"], good);

  // Twice: nothing added, the row where it was.
  r = Sinkd(registration);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("nothing to register (" + std::to_string(parts) +
                       " Parts in the table already"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(LedgerRow(pg).first, location);
  j = info();
  EXPECT_EQ(j["snapshots"], 1);
  EXPECT_EQ(j["metadata"], location);

  // Read back from the file the row names: icebird's rows, DuckDB over its manifests' files.
  const nlohmann::json rows = IcebirdAt(location, false);
  ASSERT_FALSE(rows.is_discarded());
  const std::set<std::string> ids = EventIdsOf(rows);
  EXPECT_EQ(rows["rows"].size(), static_cast<size_t>(good));
  EXPECT_EQ(ids.size(), static_cast<size_t>(good));
  const nlohmann::json files = IcebirdAt(location, true);
  ASSERT_FALSE(files.is_discarded());
  EXPECT_EQ(files["files"].size(), parts);
  EXPECT_EQ(DuckDbCounts(files["files"]),
            std::make_pair(std::to_string(good), std::to_string(good)));
}

// The table an import committed to the sql catalog, verified. Failed before (main): with
// [iceberg] catalog = "sql" in its --config, verify read the files catalog, found no
// v<N>.metadata.json and failed the good table ("no Iceberg table", exit 1); the flags were
// unknown (exit 2).
TEST(IcebergCatalogFlags, VerifyChecksTheTableTheSqlRowNamesAndNamesADeletedPart) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  const std::string wire = (dir / "in.bin").string();
  ASSERT_EQ(Sinkd({"generate", "ledger", "--messages", "20", "--events-per-batch", "30", "--seed",
                   "22", "-o", wire})
                .exit_code,
            0);
  ASSERT_EQ(Sinkd(Plus({"import", "ledger", "--instance-id", "i1", "--batch-max-rows", "200",
                        "--table-format", "iceberg", wire},
                       SqlAt(lake, pg)))
                .exit_code,
            0);
  const std::string location = LedgerRow(pg).first;
  ASSERT_FALSE(location.empty());

  const std::string file = (dir / "sinkd.toml").string();
  WriteFile(file, "[lake]\ndir = \"" + lake + "\"\ntable_format = \"iceberg\"\n[iceberg]\n" +
                      "catalog = \"sql\"\ncatalog_url = \"" + pg + "\"\n");
  CommandResult r = Sinkd({"lake", "verify", "ledger", "--config", file});
  EXPECT_EQ(r.exit_code, 0) << "the [iceberg] keys name the catalog\n" << r.out << r.err;
  EXPECT_NE(r.out.find("table: " + location + ", snapshot "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("table OK"), std::string::npos) << r.out;
  const std::vector<std::string> verify =
      Plus({"lake", "verify", "ledger", "--table-format", "iceberg"}, SqlAt(lake, pg));
  r = Sinkd(verify);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("table: " + location + ", snapshot "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("table OK"), std::string::npos) << r.out;
  r = Sinkd({"lake", "verify", "ledger", "--lake-dir", lake, "--table-format", "iceberg"});
  EXPECT_EQ(r.exit_code, 1) << "the files catalog holds no table here\n" << r.out << r.err;
  EXPECT_NE(r.out.find("no metadata/v<N>.metadata.json"), std::string::npos) << r.out;
  r = Sinkd(Plus({"lake", "verify", "ledger", "--table-format", "iceberg", "--iceberg-namespace",
                  "other"},
                 SqlAt(lake, pg)));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("no row for ledger in namespace other of the sql catalog"),
            std::string::npos)
      << r.out;
  r = Sinkd({"lake", "verify", "ledger", "--lake-dir", lake, "--table-format", "iceberg",
             "--iceberg-catalog", "sql"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--iceberg-catalog sql needs --iceberg-catalog-url"), std::string::npos)
      << r.err;

  const std::vector<std::filesystem::path> parts = LakeFiles(dir / "lake/ledger", ".parquet");
  ASSERT_GE(parts.size(), 2u);
  std::filesystem::remove(parts[1]);
  r = Sinkd(verify);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("table file file://" + parts[1].string() + " does not exist"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("1 file of the table wrong"), std::string::npos) << r.err;
}

// A directory lake registered in the sql catalog, copied elsewhere and the original removed: the
// row names the old place, which register reads from the copy and --replace-metadata rebuilds
// at the new location, moving the row (compare-and-swap from the old file) to the new table.
TEST(IcebergCatalogFlags, ReplaceMetadataMovesTheSqlRowToACopiedLakesRebuiltTable) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  const long good = ImportWithoutTable(dir, lake, 23);
  ASSERT_EQ(Sinkd(Plus({"table", "register", "ledger"}, SqlAt(lake, pg))).exit_code, 0);
  const std::string old_location = LedgerRow(pg).first;
  ASSERT_FALSE(old_location.empty());
  const std::string copy = (dir / "elsewhere").string();
  std::filesystem::copy(lake, copy, std::filesystem::copy_options::recursive);
  std::filesystem::remove_all(lake);

  const std::vector<std::string> registration =
      Plus({"table", "register", "ledger"}, SqlAt(copy, pg));
  CommandResult r = Sinkd(registration);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("names the location file://" + lake + "/ledger"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--replace-metadata"), std::string::npos) << r.err;
  EXPECT_EQ(LedgerRow(pg).first, old_location) << "a refused register moves nothing";

  r = Sinkd(Plus(registration, {"--replace-metadata"}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("replaced metadata naming file://" + lake + "/ledger"), std::string::npos)
      << r.out;
  const auto [location, previous] = LedgerRow(pg);
  EXPECT_EQ(location.rfind("file://" + copy + "/ledger/metadata/00002-", 0), 0u) << location;
  EXPECT_EQ(previous, old_location) << "moved from the file the row named";

  const CommandResult info = Sinkd(Plus({"table", "info", "ledger", "--json"}, SqlAt(copy, pg)));
  ASSERT_EQ(info.exit_code, 0) << info.out << info.err;
  const nlohmann::json j = nlohmann::json::parse(info.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["location"], "file://" + copy + "/ledger");
  EXPECT_EQ(j["snapshots"], 1);
  EXPECT_EQ(j["records"], good);
  const nlohmann::json rows = IcebirdAt(location, false);
  ASSERT_FALSE(rows.is_discarded());
  EXPECT_EQ(rows["rows"].size(), static_cast<size_t>(good));
  const nlohmann::json files = IcebirdAt(location, true);
  ASSERT_FALSE(files.is_discarded());
  for (const auto& f : files["files"]) {
    EXPECT_EQ(f.get<std::string>().rfind("file://" + copy + "/ledger/", 0), 0u) << f;
  }
  EXPECT_EQ(DuckDbCounts(files["files"]),
            std::make_pair(std::to_string(good), std::to_string(good)));
  r = Sinkd(Plus({"lake", "verify", "ledger", "--table-format", "iceberg"}, SqlAt(copy, pg)));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  r = Sinkd(Plus(registration, {"--replace-metadata"}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("already names this location"), std::string::npos) << r.err;
}

// A table kept in the files catalog, registered into the sql catalog: its newest
// v<N>.metadata.json is adopted as the row (its snapshots and positions kept), not replaced by a
// new table of every Part; a second run changes nothing.
TEST(IcebergCatalogFlags, RegisterAdoptsAFilesCatalogTableIntoTheSqlCatalogKeepingItsSnapshots) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  const std::string wire = (dir / "in.bin").string();
  ASSERT_EQ(Sinkd({"generate", "ledger", "--messages", "20", "--events-per-batch", "30", "--seed",
                   "24", "-o", wire})
                .exit_code,
            0);
  ASSERT_EQ(Sinkd({"import", "ledger", "--lake-dir", lake, "--instance-id", "i1",
                   "--batch-max-rows", "200", "--table-format", "iceberg", wire})
                .exit_code,
            0);
  const CommandResult files_info = Sinkd({"table", "info", "ledger", "--lake-dir", lake, "--json"});
  ASSERT_EQ(files_info.exit_code, 0) << files_info.err;
  const nlohmann::json before = nlohmann::json::parse(files_info.out, nullptr, false);
  ASSERT_FALSE(before.is_discarded());
  ASSERT_GE(before["snapshots"].get<int>(), 2) << "premise: several flushes, several snapshots";

  const std::vector<std::string> registration =
      Plus({"table", "register", "ledger"}, SqlAt(lake, pg));
  CommandResult r = Sinkd(registration);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("adopted " + before["metadata"].get<std::string>() +
                       " into the sql catalog"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("nothing to register"), std::string::npos) << r.out;
  EXPECT_EQ(LedgerRow(pg).first, before["metadata"]);
  r = Sinkd(registration);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("adopted "), std::string::npos) << r.out;
  const CommandResult info = Sinkd(Plus({"table", "info", "ledger", "--json"}, SqlAt(lake, pg)));
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const nlohmann::json j = nlohmann::json::parse(info.out, nullptr, false);
  EXPECT_EQ(j["snapshots"], before["snapshots"]);
  EXPECT_EQ(j["records"], before["records"]);
  EXPECT_EQ(j["current_snapshot"], before["current_snapshot"]);
}

}  // namespace
}  // namespace sinkd::testing
