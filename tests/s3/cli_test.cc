// Through the binary: which destination the flags and the environment name, every refusal with
// its exact text, and `sinkd import` into a bucket giving the lake a --lake-dir import gives.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "s3_server.h"
#include "s3_test_util.h"

namespace sinkd::s3 {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::CommandResult;
using sinkd::testing::DuckDb;
using sinkd::testing::ReadFile;
using sinkd::testing::RunCommand;
using sinkd::testing::S3Server;
using sinkd::testing::SinkdBinary;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::kTestKey;
using sinkd::testing::kTestSecret;

// Every variable the destination reads, emptied, then `set` on top: the machine running the tests
// may export any of them.
std::vector<std::string> ChildEnv(const std::vector<std::string>& set) {
  std::vector<std::string> env = {
      "LAKE_DIR=",         "AWS_ENDPOINT_URL=",  "S3_BUCKET=",         "AWS_ACCESS_KEY_ID=",
      "AWS_SECRET_ACCESS_KEY=", "AWS_SESSION_TOKEN=", "AWS_REGION=", "AWS_DEFAULT_REGION=",
      "S3_ACCESS_KEY=",    "S3_SECRET_KEY=",     "S3_ENDPOINT="};
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

CommandResult Import(const std::vector<std::string>& flags, const std::vector<std::string>& env,
                     const std::string& file = "/dev/null") {
  std::vector<std::string> args = {SinkdBinary().string(), "import", "ledger", "--instance-id",
                                   "box-77"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(file);
  return RunCommand(args, "", std::chrono::seconds(60), ChildEnv(env));
}

struct Refusal {
  std::vector<std::string> flags;
  std::vector<std::string> env;
  std::string message;
};

// Every way to name a destination wrongly stops before any I/O with a message that names the
// flags or variables to fix (docs/reference-go-sink.md §8.2, §8.3, §9.3).
TEST(S3Cli, AWrongDestinationIsRefusedByNameBeforeAnyIo) {
  const std::string creds1 = "AWS_ACCESS_KEY_ID=k", creds2 = "AWS_SECRET_ACCESS_KEY=s";
  const std::vector<Refusal> cases = {
      {{"--lake-dir", "/tmp/x", "--s3-bucket", "b"}, {},
       "--lake-dir and --s3-endpoint/--s3-bucket name two different destinations; pass one of "
       "them"},
      {{}, {},
       "no destination: pass --lake-dir <path> for a lake on this machine, or --s3-endpoint and "
       "--s3-bucket for an object store"},
      {{}, {"S3_ACCESS_KEY=a", "S3_SECRET_KEY=b", "S3_ENDPOINT=h:1"},
       "S3_ACCESS_KEY is no longer read: export AWS_ACCESS_KEY_ID instead; S3_SECRET_KEY is no "
       "longer read: export AWS_SECRET_ACCESS_KEY instead; S3_ENDPOINT is no longer read: export "
       "AWS_ENDPOINT_URL instead"},
      {{"--s3-bucket", "b"}, {},
       "--s3-bucket without --s3-endpoint: there is no store to put the bucket on"},
      {{"--s3-endpoint", "127.0.0.1:1"}, {},
       "--s3-endpoint without --s3-bucket: there is no bucket to put the objects in"},
      {{"--s3-endpoint", "127.0.0.1:1", "--s3-bucket", "b"}, {"S3_ACCESS_KEY=a", "S3_SECRET_KEY=b"},
       "S3_ACCESS_KEY is no longer read: export AWS_ACCESS_KEY_ID instead; S3_SECRET_KEY is no "
       "longer read: export AWS_SECRET_ACCESS_KEY instead"},
      {{"--s3-endpoint", "127.0.0.1:1", "--s3-bucket", "b"}, {},
       "no S3 credentials: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass "
       "--s3-anonymous for a store with no IAM configured"},
      {{"--s3-endpoint", "127.0.0.1:1", "--s3-bucket", "b"}, {creds1},
       "AWS_ACCESS_KEY_ID is set and AWS_SECRET_ACCESS_KEY is empty: a request signed with an "
       "empty secret is refused by the store as a bad signature"},
      {{"--s3-endpoint", "127.0.0.1:1", "--s3-bucket", "b", "--s3-anonymous"}, {creds1},
       "--s3-anonymous with AWS_ACCESS_KEY_ID set: unset one of them, because there is no way to "
       "tell which was meant"},
      {{"--s3-endpoint", "s3://x", "--s3-bucket", "b"}, {creds1, creds2},
       "s3 endpoint \"s3://x\": scheme \"s3\" is not http or https"},
      {{"--s3-endpoint", "127.0.0.1:1", "--s3-bucket", "b", "--s3-multipart-threshold", "1MiB"},
       {creds1, creds2},
       "--s3-multipart-threshold must be at least 5MiB: S3 refuses multipart pieces smaller than "
       "that"},
      {{}, {"LAKE_DIR=/tmp/x", "S3_BUCKET=b"},
       "--lake-dir and --s3-endpoint/--s3-bucket name two different destinations; pass one of "
       "them (LAKE_DIR and AWS_ENDPOINT_URL or S3_BUCKET are all exported)"},
  };
  for (const Refusal& c : cases) {
    CommandResult run = Import(c.flags, c.env);
    EXPECT_EQ(run.exit_code, 2) << c.message << "\n" << run.err;
    EXPECT_EQ(run.err, "sinkd: " + c.message + "\n");
  }
}

// A lake on disk needs no credentials, and a leftover retired name or an exported endpoint
// (for the platform's other tools) must not stop it.
TEST(S3Cli, AnExplicitLakeDirIgnoresTheS3Variables) {
  TempDir tmp;
  CommandResult run = Import({"--lake-dir", (tmp / "lake").string()},
                             {"S3_ACCESS_KEY=old", "AWS_ENDPOINT_URL=127.0.0.1:1", "S3_BUCKET=b"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("\"destination\":\"dir "), std::string::npos) << run.err;
}

// AWS_ENDPOINT_URL and S3_BUCKET naming `server`'s bucket, and the test key pair.
std::vector<std::string> BucketEnv(const S3Server& server) {
  return {"AWS_ENDPOINT_URL=http://" + server.endpoint(), "S3_BUCKET=garm-lake",
          std::string("AWS_ACCESS_KEY_ID=") + kTestKey,
          std::string("AWS_SECRET_ACCESS_KEY=") + kTestSecret};
}

CommandResult Generate(const fs::path& file) {
  return RunCommand({SinkdBinary().string(), "generate", "ledger", "--messages", "20",
                     "--events-per-batch", "50", "--expected-events", "1000", "--bad-share",
                     "0.02", "-o", file.string()});
}

// End to end: the same recorded traffic imported into a bucket and into a directory gives the
// same objects and the same rows; the first log line says where and how it signs, never a secret.
TEST(S3Cli, ImportIntoABucketGivesTheLakeAnImportIntoADirectoryGives) {
  TempDir tmp;
  ASSERT_EQ(Generate(tmp / "in.bin").exit_code, 0);
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::vector<std::string> creds = {std::string("AWS_ACCESS_KEY_ID=") + kTestKey,
                                          std::string("AWS_SECRET_ACCESS_KEY=") + kTestSecret,
                                          "AWS_DEFAULT_REGION=us-east-1"};
  CommandResult to_bucket =
      Import({"--s3-endpoint", server.endpoint(), "--s3-bucket", "garm-lake"}, creds,
             (tmp / "in.bin").string());
  ASSERT_EQ(to_bucket.exit_code, 0) << to_bucket.err;
  CommandResult to_dir = Import({"--lake-dir", (tmp / "lake").string()}, {}, (tmp / "in.bin").string());
  ASSERT_EQ(to_dir.exit_code, 0) << to_dir.err;

  EXPECT_NE(to_bucket.err.find("\"destination\":\"s3://garm-lake at " + server.endpoint() +
                               " (region us-east-1, signed with AWS_ACCESS_KEY_ID)\""),
            std::string::npos) << to_bucket.err;
  EXPECT_EQ(to_bucket.err.find(kTestSecret), std::string::npos) << to_bucket.err;
  EXPECT_EQ(to_bucket.out, to_dir.out) << "the same report";

  std::vector<std::string> dir_keys;
  for (const auto& e : fs::recursive_directory_iterator(tmp / "lake")) {
    if (e.is_regular_file()) dir_keys.push_back(fs::relative(e.path(), tmp / "lake").string());
  }
  std::sort(dir_keys.begin(), dir_keys.end());
  ASSERT_FALSE(dir_keys.empty());
  EXPECT_EQ(server.Keys(), dir_keys);
  auto summary = [](const std::string& glob) {
    return "(SELECT count(*) || ' ' || count(DISTINCT event_id) || ' ' || min(date) || ' ' || "
           "max(app) FROM read_parquet(" + SqlQuote(glob) + ", hive_partitioning=true))";
  };
  auto q = DuckDb("SELECT " + summary((tmp / "lake/ledger/**/*.parquet").string()) + ", " +
                  summary((server.BucketDir() / "ledger/**/*._S3rver_object").string()));
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], q.rows[0][1]) << "rows, events, dates and apps agree";
  EXPECT_NE(q.rows[0][0].rfind("0 ", 0), 0u) << q.rows[0][0];
}

// The defaults come from AWS_ENDPOINT_URL and S3_BUCKET; a wrong secret stops the import at
// startup naming the bucket and the variable to check, and the secret appears nowhere.
TEST(S3Cli, TheEnvironmentNamesTheStoreAndAWrongSecretIsRefusedWithoutPrintingIt) {
  TempDir tmp;
  ASSERT_EQ(Generate(tmp / "in.bin").exit_code, 0);
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::vector<std::string> env = {"AWS_ENDPOINT_URL=http://" + server.endpoint(),
                                        "S3_BUCKET=garm-lake",
                                        std::string("AWS_ACCESS_KEY_ID=") + kTestKey};
  std::vector<std::string> good = env;
  good.push_back(std::string("AWS_SECRET_ACCESS_KEY=") + kTestSecret);
  CommandResult ok = Import({}, good, (tmp / "in.bin").string());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_FALSE(server.Keys().empty());

  std::vector<std::string> bad = env;
  bad.push_back("AWS_SECRET_ACCESS_KEY=not-the-secret-42");
  CommandResult refused = Import({}, bad, (tmp / "in.bin").string());
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err, "sinkd: bucket check on s3://garm-lake at " + server.endpoint() +
                             " (region us-east-1, signed with AWS_ACCESS_KEY_ID): 403 "
                             "SignatureDoesNotMatch: The request signature we calculated does not "
                             "match the signature you provided. (check AWS_SECRET_ACCESS_KEY)\n");
  EXPECT_EQ((refused.out + refused.err).find("not-the-secret-42"), std::string::npos);
}

// `sinkd lake verify` on a bucket reads the same footers through the same Destination: an
// import's lake passes, and an object deleted from the bucket is named with its sequences.
TEST(S3Cli, LakeVerifyOnABucketPassesAndNamesADeletedPart) {
  TempDir tmp;
  ASSERT_EQ(Generate(tmp / "in.bin").exit_code, 0);
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  std::vector<std::string> env = BucketEnv(server);
  ASSERT_EQ(Import({"--batch-max-rows", "400"}, env, (tmp / "in.bin").string()).exit_code, 0);
  auto verify = [&] {
    return RunCommand({SinkdBinary().string(), "lake", "verify", "ledger"}, "",
                      std::chrono::seconds(60), ChildEnv(env));
  };
  CommandResult ok = verify();
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("(s3://garm-lake at " + server.endpoint()), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("import@box-77: covered 1-20; expected 1-20"), std::string::npos) << ok.out;

  std::string victim;
  for (const std::string& key : server.Keys()) {
    if (key.rfind("ledger/", 0) == 0 && key.find("part-box-77-1-") != std::string::npos) {
      victim = key;
      break;
    }
  }
  ASSERT_FALSE(victim.empty());
  for (const auto& e : fs::directory_iterator(server.ObjectPath(victim).parent_path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(fs::path(victim).filename().string() + "._S3rver", 0) == 0) fs::remove(e.path());
  }
  CommandResult bad = verify();
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("missing: " + fs::path(victim).filename().string()), std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("gap import@box-77 "), std::string::npos) << bad.out;
}

// `sinkd lake stats` reads the listing and the footers through the same Destination on a bucket:
// the same imported traffic gives the same figures as in a directory (which the cli test checks
// against the files and DuckDB), and the bucket's object count and bytes.
TEST(S3Cli, LakeStatsOnABucketGivesTheFiguresOfTheSameLakeInADirectory) {
  TempDir tmp;
  ASSERT_EQ(Generate(tmp / "in.bin").exit_code, 0);
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::vector<std::string> env = BucketEnv(server);
  ASSERT_EQ(Import({"--batch-max-rows", "400"}, env, (tmp / "in.bin").string()).exit_code, 0);
  ASSERT_EQ(Import({"--batch-max-rows", "400", "--lake-dir", (tmp / "lake").string()}, {},
                   (tmp / "in.bin").string())
                .exit_code,
            0);
  auto stats = [&](std::vector<std::string> flags, const std::vector<std::string>& env) {
    std::vector<std::string> args = {SinkdBinary().string(), "lake", "stats", "ledger", "--json"};
    args.insert(args.end(), flags.begin(), flags.end());
    return RunCommand(args, "", std::chrono::seconds(60), ChildEnv(env));
  };
  CommandResult bucket = stats({}, env);
  ASSERT_EQ(bucket.exit_code, 0) << bucket.err;
  CommandResult dir = stats({"--lake-dir", (tmp / "lake").string()}, {});
  ASSERT_EQ(dir.exit_code, 0) << dir.err;
  nlohmann::json b = nlohmann::json::parse(bucket.out), d = nlohmann::json::parse(dir.out);
  EXPECT_EQ(b["destination"].get<std::string>().rfind("s3://garm-lake at ", 0), 0u) << bucket.out;
  b.erase("destination");
  d.erase("destination");
  EXPECT_EQ(b, d);
  uint64_t objects = 0, bytes = 0;
  for (const std::string& key : server.Keys()) {
    if (key.rfind("ledger/", 0) != 0) continue;
    ++objects;
    bytes += fs::file_size(server.ObjectPath(key));
  }
  EXPECT_GT(objects, 0u);
  EXPECT_EQ(b["total"]["parts"], objects);
  EXPECT_EQ(b["total"]["bytes"], bytes);
}

// A store that silently ignores If-None-Match (it answers 200 to a create of a taken key) was not
// noticed before: only a 501 was. Compaction now probes the store at start and refuses it,
// naming the store, what it did and the way out; --s3-unsafe-unconditional (or the [lake] key)
// lets it run, with an error in the log. Nothing is compacted by the refused run, and the probe
// leaves no object behind either way.
TEST(S3Cli, CompactionRefusesAStoreThatIgnoresIfNoneMatchUnlessTheOperatorAcceptsIt) {
  TempDir tmp;
  ASSERT_EQ(Generate(tmp / "in.bin").exit_code, 0);
  sinkd::testing::S3ServerOptions ignoring;
  ignoring.if_none_match = "ignore";
  S3Server server(ignoring);
  ASSERT_TRUE(server.ok()) << server.error();
  const std::vector<std::string> env = BucketEnv(server);
  ASSERT_EQ(Import({"--batch-max-rows", "100"}, env, (tmp / "in.bin").string()).exit_code, 0);
  const size_t parts = server.Keys().size();
  auto compact = [&](std::vector<std::string> flags) {
    std::vector<std::string> args = {SinkdBinary().string(), "compact", "ledger", "--min-parts",
                                     "2", "--grace", "1h"};
    args.insert(args.end(), flags.begin(), flags.end());
    return RunCommand(args, "", std::chrono::seconds(120), ChildEnv(env));
  };
  auto outputs = [&] {
    size_t n = 0;
    for (const std::string& key : server.Keys()) {
      EXPECT_EQ(key.find("_sinkd/probe"), std::string::npos) << "a probe object was left: " << key;
      if (key.find("/compact-") != std::string::npos) ++n;
    }
    return n;
  };

  CommandResult refused = compact({});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("compaction refuses to run on s3://garm-lake at " + server.endpoint()),
            std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("ignores If-None-Match"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--s3-unsafe-unconditional"), std::string::npos) << refused.err;
  EXPECT_EQ(outputs(), 0u) << "a refused compaction wrote an output";
  EXPECT_EQ(server.Keys().size(), parts);

  CommandResult accepted = compact({"--s3-unsafe-unconditional"});
  ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
  EXPECT_NE(accepted.out.find("compacted ledger: "), std::string::npos) << accepted.out;
  EXPECT_NE(accepted.err.find("\"level\":\"ERROR\""), std::string::npos) << accepted.err;
  EXPECT_NE(accepted.err.find("UNSAFE: the store lets a create replace an object"),
            std::string::npos) << accepted.err;
  EXPECT_GT(outputs(), 0u) << "the accepted run compacted nothing";

  const std::string config = (tmp / "sinkd.toml").string();
  sinkd::testing::WriteFile(config, "[lake]\ns3_unsafe_unconditional = true\n");
  CommandResult from_file = compact({"--config", config});
  EXPECT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_NE(from_file.err.find("UNSAFE"), std::string::npos) << from_file.err;
}

// The same compaction on a store that honours If-None-Match runs without the flag: the probe
// passes and says nothing.
TEST(S3Cli, CompactionRunsWithoutTheFlagOnAStoreThatHonoursIfNoneMatch) {
  TempDir tmp;
  ASSERT_EQ(Generate(tmp / "in.bin").exit_code, 0);
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::vector<std::string> env = BucketEnv(server);
  ASSERT_EQ(Import({"--batch-max-rows", "100"}, env, (tmp / "in.bin").string()).exit_code, 0);
  CommandResult r = RunCommand({SinkdBinary().string(), "compact", "ledger", "--min-parts", "2"},
                               "", std::chrono::seconds(120), ChildEnv(env));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("UNSAFE"), std::string::npos) << r.err;
  bool merged = false;
  for (const std::string& key : server.Keys()) {
    EXPECT_EQ(key.find("_sinkd/probe"), std::string::npos) << "a probe object was left: " << key;
    merged = merged || key.find("/compact-") != std::string::npos;
  }
  EXPECT_TRUE(merged) << r.out;
}

}  // namespace
}  // namespace sinkd::s3
