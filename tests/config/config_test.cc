#include "config/config.h"

#include <gtest/gtest.h>

namespace sinkd::config {
namespace {

constexpr char kGood[] = R"(
[postgres]
url = "host=127.0.0.1 dbname=app"

[dispatch]
batch_size = 64
poll_interval = "250ms"
deliver_timeout = "15s"
metrics_listen = "127.0.0.1:9464"

[[sinks.events]]
id = "lake"
type = "lake"
lake_dir = "/var/lake"
batch_size = 512

[[sinks.events]]
id = "bus"
type = "jetstream"
url = "nats://127.0.0.1:4222"
subject_prefix = "compute.events"

[[sinks.audit]]
id = "archive"
type = "lake"
lake_dir = "/var/lake"
)";

TEST(Config, AFullConfigurationParses) {
  auto c = ParseConfig(kGood);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->postgres_url, "host=127.0.0.1 dbname=app");
  EXPECT_EQ(c->dispatch.batch_size, 64);
  EXPECT_EQ(c->dispatch.poll_interval, std::chrono::milliseconds(250));
  EXPECT_EQ(c->dispatch.deliver_timeout, std::chrono::seconds(15));
  EXPECT_EQ(c->dispatch.metrics_listen, "127.0.0.1:9464");
  ASSERT_EQ(c->event_sinks.size(), 2u);
  EXPECT_EQ(c->event_sinks[0].id, "lake");
  EXPECT_EQ(c->event_sinks[1].type, "jetstream");
  EXPECT_EQ(std::get<int64_t>(c->event_sinks[0].options.at("batch_size")), 512);
  ASSERT_EQ(c->audit_sinks.size(), 1u);
  EXPECT_EQ(c->audit_sinks[0].id, "archive");
}

TEST(Config, DeliverTimeoutIsSixtySecondsUnlessSet) {
  auto c = ParseConfig("[postgres]\nurl = \"x\"\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->dispatch.deliver_timeout, std::chrono::seconds(60));
}

void ExpectInvalid(const std::string& text, const std::string& needle) {
  auto c = ParseConfig(text);
  ASSERT_FALSE(c.ok()) << "must be refused:\n" << text;
  EXPECT_TRUE(c.status().IsRefuse());
  EXPECT_NE(c.status().message().find("INVALID_CONFIG"), std::string::npos)
      << c.status().message();
  EXPECT_NE(c.status().message().find(needle), std::string::npos)
      << "the message must name " << needle << ": " << c.status().message();
}

// Two sinks with one id would share a cursor: each would skip what the other delivered.
TEST(Config, DuplicateEventSinkIdsAreRefusedNamingTheId) {
  ExpectInvalid(R"([postgres]
url = "x"
[[sinks.events]]
id = "warehouse"
type = "lake"
[[sinks.events]]
id = "warehouse"
type = "jetstream"
)",
                "\"warehouse\"");
}

TEST(Config, DuplicateAuditSinkIdsAreRefusedButOneIdMayServeBothKinds) {
  ExpectInvalid(R"([postgres]
url = "x"
[[sinks.audit]]
id = "siem"
type = "lake"
[[sinks.audit]]
id = "siem"
type = "lake"
)",
                "\"siem\"");
  auto ok = ParseConfig(R"([postgres]
url = "x"
[[sinks.events]]
id = "lake"
type = "lake"
[[sinks.audit]]
id = "lake"
type = "lake"
)");
  EXPECT_TRUE(ok.ok()) << "uniqueness is per kind (their cursors live in different tables): "
                       << ok.status().ToString();
}

TEST(Config, AnEmptyOrMissingIdIsRefused) {
  ExpectInvalid("[postgres]\nurl = \"x\"\n[[sinks.events]]\nid = \"\"\ntype = \"lake\"\n",
                "sinks.events[0]");
  ExpectInvalid("[postgres]\nurl = \"x\"\n[[sinks.audit]]\ntype = \"lake\"\n", "sinks.audit[0]");
}

// Usage goes to billing through the IAM bridge; a usage sink is refused whatever it says.
TEST(Config, AnyUsageSinkIsRefused) {
  ExpectInvalid("[postgres]\nurl = \"x\"\n[[sinks.usage]]\nid = \"bridge\"\ntype = \"iam\"\n",
                "usage");
  auto empty = ParseConfig("[postgres]\nurl = \"x\"\n[sinks]\nusage = []\n");
  EXPECT_TRUE(empty.ok()) << "an empty usage list has no entry to refuse";
}

TEST(Config, SyntaxErrorsNameFileLineAndColumn) {
  ExpectInvalid("[postgres]\nurl = \"x\"\n[dispatch]\nbatch_size = \n", "config:4:14");
}

TEST(Config, UnknownKeysAreRefusedNamingFileLineAndColumn) {
  auto c = ParseConfig("[nats]\nurl = \"nats://h:4222\"\n\n[drain.ledger]\n  batch_max_rowz = 5\n",
                       "sinkd.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("INVALID_CONFIG: sinkd.toml:5:3: unknown key \"batch_max_rowz\" "
                                      "in [drain.ledger]"),
            std::string::npos)
      << c.status().message();
  ExpectInvalid("[nats]\ncreds = \"/x\"\n", "config:2:1: unknown key \"creds\" in [nats]");
  ExpectInvalid("[drain.ledgr]\ndurable = \"x\"\n", "config:1:8: unknown key \"ledgr\" in [drain]");
  ExpectInvalid("[lakes]\ndir = \"/x\"\n", "config:1:2: unknown key \"lakes\"");
  ExpectInvalid("[lake]\nzstd_level = \"3\"\n", "config:2:14: lake.zstd_level must be an integer");
}

TEST(Config, EverySectionOfTheOneFileIsReadWithWhereEachKeyWas) {
  auto c = ParseConfig(R"([nats]
url = "tls://127.0.0.1:4222"
creds_file = "/etc/sinkd/sinkd.creds"
tls_ca = "/etc/sinkd/ca.pem"
tls_required = true

[lake]
s3_endpoint = "http://127.0.0.1:9000"
s3_bucket = "lake"
zstd_level = 5

[drain.ledger]
batch_max_rows = 5000
batch_interval = "1m"

[drain.audit]
durable = "audit-lake"

[provision]
replicas = 3

[metrics]
listen = "127.0.0.1:9464"
)", "sinkd.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->event_sinks.empty());
  EXPECT_EQ(c->settings.at("nats.url").text, "tls://127.0.0.1:4222");
  EXPECT_EQ(c->settings.at("nats.url").where, "sinkd.toml:2:7");
  EXPECT_EQ(c->settings.at("nats.tls_required").text, "true");
  EXPECT_EQ(c->settings.at("lake.zstd_level").text, "5");
  EXPECT_EQ(c->settings.at("drain.ledger.batch_max_rows").text, "5000");
  EXPECT_EQ(c->settings.at("drain.ledger.batch_max_rows").where, "sinkd.toml:13:18");
  EXPECT_EQ(c->settings.at("drain.audit.durable").text, "audit-lake");
  EXPECT_EQ(c->settings.at("provision.replicas").text, "3");
  EXPECT_EQ(c->settings.at("metrics.listen").text, "127.0.0.1:9464");
  EXPECT_EQ(c->settings.count("drain.audit.batch_max_rows"), 0u);
}


TEST(Config, WrongTypesAndUnknownKeysNameTheKey) {
  ExpectInvalid("[postgres]\nurl = \"x\"\n[dispatch]\nbatch_size = \"32\"\n",
                "dispatch.batch_size");
  ExpectInvalid("[postgres]\nurl = \"x\"\n[dispatch]\nbatchsize = 32\n", "batchsize");
  ExpectInvalid("[postgres]\nurl = \"x\"\n[dispatch]\npoll_interval = \"soon\"\n",
                "dispatch.poll_interval");
  ExpectInvalid("[postgres]\nurl = \"x\"\n[dispatch]\ndeliver_timeout = \"0s\"\n",
                "dispatch.deliver_timeout");
  ExpectInvalid("[postgre]\nurl = \"x\"\n", "postgre");
  ExpectInvalid("[dispatch]\nbatch_size = 3\n", "[postgres]");
}

TEST(Config, OptionReaderRefusesAnOptionNobodyRead) {
  auto c = ParseConfig(
      "[postgres]\nurl = \"x\"\n[[sinks.events]]\nid = \"l\"\ntype = \"lake\"\nlake_dri = \"/x\"\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  OptionReader options(c->event_sinks[0]);
  EXPECT_TRUE(options.String("lake_dir", "").ok());
  Status done = options.Done();
  EXPECT_TRUE(done.IsRefuse());
  EXPECT_NE(done.message().find("lake_dri"), std::string::npos) << done.message();
}

// Every size key takes what its flag takes: bytes, or a string with a binary unit; a decimal
// unit is refused naming the file, line and key. Any key named for bytes must be a size key, so
// a new one cannot be added with a plain integer parser.
TEST(Config, EverySizeKeyTakesBinaryUnitsOrBytesAndRefusesADecimalUnit) {
  size_t sizes = 0;
  for (const SettingSpec& spec : FileSettings()) {
    const std::string name = spec.key.substr(spec.key.rfind('.') + 1);
    if (name.find("bytes") != std::string::npos || name.find("threshold") != std::string::npos) {
      EXPECT_EQ(spec.kind, SettingKind::kSize) << spec.key << " takes bytes but is no size key";
    }
    if (spec.kind != SettingKind::kSize) continue;
    ++sizes;
    const std::string section = spec.key.substr(0, spec.key.rfind('.'));
    for (const std::string value : {"\"1GiB\"", "\"256 MiB\"", "268435456", "\"1.5GiB\""}) {
      auto c = ParseConfig("[" + section + "]\n" + name + " = " + value + "\n", "sinkd.toml");
      ASSERT_TRUE(c.ok()) << spec.key << " = " << value << ": " << c.status().ToString();
      const std::string unquoted =
          value[0] == '"' ? value.substr(1, value.size() - 2) : value;
      EXPECT_EQ(c->settings.at(spec.key).text, unquoted) << "kept as written, for config show";
    }
    ExpectInvalid("[" + section + "]\n" + name + " = \"1GB\"\n", spec.key + ": size \"1GB\"");
    ExpectInvalid("[" + section + "]\n" + name + " = -1\n", spec.key + " must be a size");
    ExpectInvalid("[" + section + "]\n" + name + " = true\n", spec.key + " must be a size");
  }
  EXPECT_EQ(sizes, 7u) << "batch_max_bytes twice, three stream limits, target_bytes, "
                          "s3_multipart_threshold";
  auto c = ParseConfig("[compaction]\ntarget_bytes = \"1TB\"\n", "sinkd.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("sinkd.toml:2:16: compaction.target_bytes"),
            std::string::npos)
      << c.status().message();
}

// A sink's size options (batch_max_bytes, s3_multipart_threshold) read the same way.
TEST(Config, OptionReaderReadsASizeOptionAsBytesOrWithAUnit) {
  auto c = ParseConfig(
      "[postgres]\nurl = \"x\"\n[[sinks.events]]\nid = \"a\"\ntype = \"lake\"\n"
      "batch_max_bytes = \"64MiB\"\n[[sinks.events]]\nid = \"b\"\ntype = \"lake\"\n"
      "batch_max_bytes = 1048576\n[[sinks.events]]\nid = \"c\"\ntype = \"lake\"\n"
      "batch_max_bytes = \"64MB\"\n[[sinks.events]]\nid = \"d\"\ntype = \"lake\"\n"
      "batch_max_bytes = \"4GiB\"\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const uint64_t max = uint64_t{2} << 30;
  OptionReader a(c->event_sinks[0]);
  EXPECT_EQ(*a.Size("batch_max_bytes", 1, 0, max), uint64_t{64} << 20);
  OptionReader b(c->event_sinks[1]);
  EXPECT_EQ(*b.Size("batch_max_bytes", 1, 0, max), uint64_t{1} << 20);
  OptionReader fallback(c->event_sinks[1]);
  EXPECT_EQ(*fallback.Size("other_bytes", 77, 0, max), 77u);
  OptionReader decimal(c->event_sinks[2]);
  Result<uint64_t> r = decimal.Size("batch_max_bytes", 1, 0, max);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("option batch_max_bytes: size \"64MB\""), std::string::npos)
      << r.status().message();
  OptionReader big(c->event_sinks[3]);
  r = big.Size("batch_max_bytes", 1, 0, max);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("batch_max_bytes = \"4GiB\" must be between 0 and 2GiB"),
            std::string::npos)
      << r.status().message();
}

TEST(Config, TheUrlCanComeFromTheEnvironment) {
  setenv("SINKD_TEST_PG_URL", "host=envhost", 1);
  auto c = ParseConfig("[postgres]\nurl_env = \"SINKD_TEST_PG_URL\"\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->postgres_url, "host=envhost");
  ExpectInvalid("[postgres]\nurl_env = \"SINKD_TEST_PG_URL_UNSET\"\n", "SINKD_TEST_PG_URL_UNSET");
}

}  // namespace
}  // namespace sinkd::config
