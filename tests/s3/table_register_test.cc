// `sinkd table register` and `sinkd lake verify --table-format iceberg` on a bucket (s3rver behind
// the SigV4 layer), through the binary: an imported bucket lake adopted in one snapshot, a second
// register adding nothing, verify passing and then failing naming a deleted Part; a directory lake
// with its table copied into a bucket, rebuilt there with --replace-metadata and read by icebird;
// the same with the table's pointer in the sql catalog (a real PostgreSQL), whose row moves from
// the directory's metadata file to the bucket's.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "iceberg/committers.h"
#include "outbox/pg.h"
#include "s3/s3_destination.h"
#include "s3_server.h"
#include "support/icebird.h"
#include "support/lake_files.h"
#include "support/postgres_server.h"

namespace sinkd::testing {
namespace {

namespace fs = std::filesystem;

CommandResult SinkdOn(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SinkdBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(
      argv, "", std::chrono::seconds(120),
      {std::string("AWS_ACCESS_KEY_ID=") + kTestKey,
       std::string("AWS_SECRET_ACCESS_KEY=") + kTestSecret, "AWS_SESSION_TOKEN=",
       "AWS_ENDPOINT_URL=", "S3_BUCKET=", "LAKE_DIR=", "NATS_URL=nats://127.0.0.1:1"});
}

// Generated ledger traffic written to `input`; returns the good events.
long Generate(const std::string& input, int messages, int seed) {
  const CommandResult gen =
      SinkdOn({"generate", "ledger", "--messages", std::to_string(messages), "--events-per-batch",
               "40", "--seed", std::to_string(seed), "--bad-share", "0", "-o", input});
  EXPECT_EQ(gen.exit_code, 0) << gen.err;
  long good = 0;
  EXPECT_EQ(std::sscanf(gen.out.c_str(), "generated %*d messages: %ld good events", &good), 1)
      << gen.out;
  return good;
}

// Every object of the bucket copied into `dir` by key (what icebird's --s3-mirror reads).
void Mirror(s3::S3Destination& bucket, const fs::path& dir) {
  auto objects = bucket.List("");
  ASSERT_TRUE(objects.ok());
  for (const lake::StoredObject& o : *objects) {
    auto bytes = bucket.Read(o.key, 0, o.size);
    ASSERT_TRUE(bytes.ok());
    fs::create_directories((dir / o.key).parent_path());
    WriteFile(dir / o.key, *bytes);
  }
}

std::unique_ptr<s3::S3Destination> Bucket(const S3Server& server, Logger& log) {
  auto made = s3::S3Destination::Make(TestOptions(server.endpoint()), &log);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::move(*made) : nullptr;
}

TEST(S3TableRegister, AnImportedBucketLakeIsAdoptedOnceAndVerifyNamesADeletedPart) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir tmp;
  const long good = Generate((tmp / "in.bin").string(), 30, 4);
  const std::vector<std::string> at = {"--s3-endpoint", server.endpoint(), "--s3-bucket",
                                       "garm-lake"};
  std::vector<std::string> import = {"import", "ledger",           "--instance-id",
                                     "box-1",  "--batch-max-rows", "400"};
  import.insert(import.end(), at.begin(), at.end());
  import.push_back((tmp / "in.bin").string());
  CommandResult r = SinkdOn(import);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  std::vector<std::string> registration = {"table", "register", "ledger"};
  registration.insert(registration.end(), at.begin(), at.end());
  r = SinkdOn(registration);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("table ledger at s3://garm-lake/ledger: registered "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(std::to_string(good) + " records"), std::string::npos) << r.out;
  r = SinkdOn(registration);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nothing to register"), std::string::npos) << r.out;

  std::vector<std::string> info = {"table", "info", "ledger", "--json"};
  info.insert(info.end(), at.begin(), at.end());
  r = SinkdOn(info);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["snapshots"], 1);
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["records"], good);

  std::vector<std::string> verify = {"lake", "verify", "ledger", "--table-format", "iceberg"};
  verify.insert(verify.end(), at.begin(), at.end());
  r = SinkdOn(verify);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("table OK"), std::string::npos) << r.out;

  Logger log(stderr);
  auto bucket = Bucket(server, log);
  ASSERT_TRUE(bucket);
  auto objects = bucket->List("ledger/date=");
  ASSERT_TRUE(objects.ok());
  ASSERT_FALSE(objects->empty());
  const std::string gone = objects->front().key;
  ASSERT_TRUE(bucket->Delete(gone).ok());
  r = SinkdOn(verify);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("table file s3://garm-lake/" + gone + " does not exist"), std::string::npos)
      << r.out;
}

TEST(S3TableRegister, ADirectoryLakeCopiedIntoABucketIsRebuiltThereAndReadByIcebird) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir tmp;
  const long good = Generate((tmp / "in.bin").string(), 30, 6);
  const std::string lake = (tmp / "lake").string();
  ASSERT_EQ(SinkdOn({"import", "ledger", "--lake-dir", lake, "--instance-id", "box-1",
                     "--batch-max-rows", "400", (tmp / "in.bin").string()})
                .exit_code,
            0);
  ASSERT_EQ(SinkdOn({"table", "register", "ledger", "--lake-dir", lake}).exit_code, 0);

  Logger log(stderr);
  auto bucket = Bucket(server, log);
  ASSERT_TRUE(bucket);
  for (const std::string& key : LakeKeys(tmp / "lake", "")) {
    ASSERT_TRUE(bucket->Replace(key, ReadFile(tmp / "lake" / key)).ok()) << key;
  }
  const std::vector<std::string> at = {"--s3-endpoint", server.endpoint(), "--s3-bucket",
                                       "garm-lake"};
  std::vector<std::string> registration = {"table", "register", "ledger"};
  registration.insert(registration.end(), at.begin(), at.end());
  CommandResult r = SinkdOn(registration);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("--replace-metadata"), std::string::npos) << r.err;
  registration.push_back("--replace-metadata");
  r = SinkdOn(registration);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("replaced metadata naming file://" + lake + "/ledger"), std::string::npos)
      << r.out;

  fs::remove_all(lake);  // icebird must read the bucket's table, not the old place
  Mirror(*bucket, tmp / "mirror");
  const nlohmann::json read =
      IcebirdRead("s3://garm-lake/ledger", {.s3_mirror = tmp / "mirror"});
  ASSERT_FALSE(read.is_discarded());
  const std::set<std::string> ids = EventIdsOf(read);
  EXPECT_EQ(read["rows"].size(), static_cast<size_t>(good));
  EXPECT_EQ(ids.size(), static_cast<size_t>(good));

  std::vector<std::string> verify = {"lake", "verify", "ledger", "--table-format", "iceberg"};
  verify.insert(verify.end(), at.begin(), at.end());
  r = SinkdOn(verify);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("table: s3://garm-lake/ledger/metadata/v2.metadata.json"), std::string::npos)
      << r.out;
}

// The ledger row of the sql catalog at `pg`: metadata_location and previous_metadata_location.
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

TEST(S3TableRegister, ADirectoryTableInTheSqlCatalogCopiedIntoABucketHasItsRowMovedThere) {
  const std::string pg = PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir tmp;
  const long good = Generate((tmp / "in.bin").string(), 30, 9);
  const std::string lake = (tmp / "lake").string();
  const std::vector<std::string> sql = {"--iceberg-catalog", "sql", "--iceberg-catalog-url", pg};
  ASSERT_EQ(SinkdOn({"import", "ledger", "--lake-dir", lake, "--instance-id", "box-1",
                     "--batch-max-rows", "400", (tmp / "in.bin").string()})
                .exit_code,
            0);
  std::vector<std::string> here = {"table", "register", "ledger", "--lake-dir", lake};
  here.insert(here.end(), sql.begin(), sql.end());
  ASSERT_EQ(SinkdOn(here).exit_code, 0);
  const std::string old_row = LedgerRow(pg).first;
  ASSERT_EQ(old_row.rfind("file://" + lake + "/ledger/metadata/", 0), 0u) << old_row;

  Logger log(stderr);
  auto bucket = Bucket(server, log);
  ASSERT_TRUE(bucket);
  for (const std::string& key : LakeKeys(tmp / "lake", "")) {
    ASSERT_TRUE(bucket->Replace(key, ReadFile(tmp / "lake" / key)).ok()) << key;
  }
  fs::remove_all(lake);
  std::vector<std::string> at = {"--s3-endpoint", server.endpoint(), "--s3-bucket", "garm-lake"};
  at.insert(at.end(), sql.begin(), sql.end());
  std::vector<std::string> registration = {"table", "register", "ledger"};
  registration.insert(registration.end(), at.begin(), at.end());
  CommandResult r = SinkdOn(registration);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("--replace-metadata"), std::string::npos) << r.err;
  registration.push_back("--replace-metadata");
  r = SinkdOn(registration);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("replaced metadata naming file://" + lake + "/ledger"), std::string::npos)
      << r.out;
  const auto [row, previous] = LedgerRow(pg);
  EXPECT_EQ(row.rfind("s3://garm-lake/ledger/metadata/00002-", 0), 0u) << row;
  EXPECT_EQ(previous, old_row);

  std::vector<std::string> info = {"table", "info", "ledger", "--json"};
  info.insert(info.end(), at.begin(), at.end());
  r = SinkdOn(info);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["location"], "s3://garm-lake/ledger");
  EXPECT_EQ(j["metadata"], row);
  EXPECT_EQ(j["records"], good);

  Mirror(*bucket, tmp / "mirror");
  const nlohmann::json rows = IcebirdRead(
      "s3://garm-lake/ledger",
      {.metadata = row.substr(row.rfind('/') + 1), .s3_mirror = tmp / "mirror"});
  ASSERT_FALSE(rows.is_discarded());
  const std::set<std::string> ids = EventIdsOf(rows);
  EXPECT_EQ(rows["rows"].size(), static_cast<size_t>(good));
  EXPECT_EQ(ids.size(), static_cast<size_t>(good));

  std::vector<std::string> verify = {"lake", "verify", "ledger", "--table-format", "iceberg"};
  verify.insert(verify.end(), at.begin(), at.end());
  r = SinkdOn(verify);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("table: " + row + ", snapshot "), std::string::npos) << r.out;
  auto parts = bucket->List("ledger/date=");
  ASSERT_TRUE(parts.ok());
  ASSERT_FALSE(parts->empty());
  const std::string gone = parts->back().key;
  ASSERT_TRUE(bucket->Delete(gone).ok());
  r = SinkdOn(verify);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("table file s3://garm-lake/" + gone + " does not exist"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace sinkd::testing
