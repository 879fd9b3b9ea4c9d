#include "sinks/registry.h"

#include <gtest/gtest.h>

#include "lake/dir_destination.h"
#include "support/support.h"

namespace sinkd::sinks {
namespace {

SinkEnvironment Env(const std::string& root) {
  SinkEnvironment env;
  env.instance = "host-1";
  env.created_by = "sinkd test";
  env.make_destination = [root](config::OptionReader& o)
      -> Result<std::unique_ptr<lake::Destination>> {
    SINKD_ASSIGN_OR_RETURN(std::string dir, o.String("lake_dir", root));
    SINKD_ASSIGN_OR_RETURN(auto d, lake::DirDestination::Make(dir));
    return std::unique_ptr<lake::Destination>(std::move(d));
  };
  return env;
}

config::Config Parse(const std::string& sinks) {
  auto c = config::ParseConfig("[postgres]\nurl = \"x\"\n" + sinks);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : config::Config{};
}

TEST(Registry, BuiltInTypesAreBuiltWithTheirOptions) {
  sinkd::testing::TempDir tmp;
  const auto c = Parse("[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nbatch_size = 512\n"
                       "key_prefix = \"events/v1\"\n[[sinks.events]]\nid = \"bus\"\n"
                       "type = \"jetstream\"\nsubject_prefix = \"compute.events\"\n"
                       "[[sinks.audit]]\nid = \"archive\"\ntype = \"lake\"\n");
  const SinkRegistry registry = SinkRegistry::Builtin();
  auto lake = registry.MakeEventSink(c.event_sinks[0], Env(tmp.path().string()));
  ASSERT_TRUE(lake.ok()) << lake.status().ToString();
  EXPECT_EQ(lake->batch_size, 512);
  EXPECT_EQ(lake->sink->id(), "lake");
  auto bus = registry.MakeEventSink(c.event_sinks[1], Env(tmp.path().string()));
  ASSERT_TRUE(bus.ok()) << bus.status().ToString();
  EXPECT_EQ(bus->batch_size, 32) << "the [dispatch] default";
  const auto d = Parse("[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\n");
  auto lake_default = registry.MakeEventSink(d.event_sinks[0], Env(tmp.path().string()));
  ASSERT_TRUE(lake_default.ok());
  EXPECT_EQ(lake_default->batch_size, kLakeBatchSize) << "a lake flush is durable Parquet: big batches";
  auto archive = registry.MakeAuditSink(c.audit_sinks[0], Env(tmp.path().string()));
  ASSERT_TRUE(archive.ok()) << archive.status().ToString();
}

void ExpectInvalid(const Status& s, const std::string& needle) {
  EXPECT_TRUE(s.IsRefuse()) << s.ToString();
  EXPECT_NE(s.message().find("INVALID_CONFIG"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

TEST(Registry, UnknownTypesOptionsAndBadValuesAreRefusedNamingTheEntry) {
  const SinkRegistry registry = SinkRegistry::Builtin();
  const auto c = Parse(
      "[[sinks.events]]\nid = \"a\"\ntype = \"kafka\"\n"
      "[[sinks.events]]\nid = \"b\"\ntype = \"lake\"\nlake_dri = \"/x\"\n"
      "[[sinks.events]]\nid = \"c\"\ntype = \"jetstream\"\n"
      "[[sinks.events]]\nid = \"d\"\ntype = \"lake\"\nkey_prefix = \"../up\"\n"
      "[[sinks.audit]]\nid = \"e\"\ntype = \"jetstream\"\nsubject_prefix = \"x\"\n");
  const SinkEnvironment env = Env("/tmp/unused");
  ExpectInvalid(registry.MakeEventSink(c.event_sinks[0], env).status(), "\"kafka\"");
  ExpectInvalid(registry.MakeEventSink(c.event_sinks[1], env).status(), "lake_dri");
  ExpectInvalid(registry.MakeEventSink(c.event_sinks[2], env).status(), "subject_prefix");
  ExpectInvalid(registry.MakeEventSink(c.event_sinks[3], env).status(), "../up");
  ExpectInvalid(registry.MakeAuditSink(c.audit_sinks[0], env).status(), "unknown audit sink type");
}

// A lake sink's batch_max_bytes bounds the rows of one flush: past 2 GiB a string column could
// reach the 4 GiB its 32-bit offsets address, so larger values are refused, as are tiny ones.
TEST(Registry, ALakeSinksBatchByteLimitIsReadAndCappedAtTwoGiB) {
  sinkd::testing::TempDir tmp;
  const SinkRegistry registry = SinkRegistry::Builtin();
  const auto c = Parse(
      "[[sinks.events]]\nid = \"ok\"\ntype = \"lake\"\nbatch_max_bytes = 1048576\n"
      "[[sinks.events]]\nid = \"big\"\ntype = \"lake\"\nbatch_max_bytes = 4294967296\n"
      "[[sinks.events]]\nid = \"small\"\ntype = \"lake\"\nbatch_max_bytes = 1000\n"
      "[[sinks.audit]]\nid = \"archive\"\ntype = \"lake\"\nbatch_max_bytes = 2147483649\n");
  const SinkEnvironment env = Env(tmp.path().string());
  auto ok = registry.MakeEventSink(c.event_sinks[0], env);
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  ExpectInvalid(registry.MakeEventSink(c.event_sinks[1], env).status(),
                "batch_max_bytes 4294967296: must be between 1048576 (1 MiB) and 2147483648");
  ExpectInvalid(registry.MakeEventSink(c.event_sinks[2], env).status(), "batch_max_bytes 1000");
  ExpectInvalid(registry.MakeAuditSink(c.audit_sinks[0], env).status(), "batch_max_bytes");
}

// The partitions one lake flush may write is read from the entry; below 1 nothing could be
// written, so it is refused naming the key.
TEST(Registry, ALakeSinksPartitionCapIsReadAndMustBeAtLeastOne) {
  sinkd::testing::TempDir tmp;
  const SinkRegistry registry = SinkRegistry::Builtin();
  const auto c = Parse(
      "[[sinks.events]]\nid = \"ok\"\ntype = \"lake\"\nmax_partitions_per_flush = 5\n"
      "[[sinks.events]]\nid = \"none\"\ntype = \"lake\"\nmax_partitions_per_flush = 0\n"
      "[[sinks.audit]]\nid = \"archive\"\ntype = \"lake\"\nmax_partitions_per_flush = 0\n");
  const SinkEnvironment env = Env(tmp.path().string());
  auto ok = registry.MakeEventSink(c.event_sinks[0], env);
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  ExpectInvalid(registry.MakeEventSink(c.event_sinks[1], env).status(), "max_partitions_per_flush");
  ExpectInvalid(registry.MakeAuditSink(c.audit_sinks[0], env).status(), "max_partitions_per_flush");
}

// A program linking sinkd can register its own sink type and configure it like a built-in.
class MySink final : public EventSink {
 public:
  explicit MySink(std::string id, std::string endpoint) : id_(std::move(id)), endpoint_(std::move(endpoint)) {}
  const std::string& id() const override { return id_; }
  Status Deliver(std::span<const Event>) override { return Status::OK(); }
  const std::string& endpoint() const { return endpoint_; }

 private:
  std::string id_;
  std::string endpoint_;
};

TEST(Registry, AUserSinkTypeIsConfiguredLikeABuiltInOne) {
  SinkRegistry registry = SinkRegistry::Builtin();
  registry.AddEventType("warehouse", [](const config::SinkConfig& entry, config::OptionReader& o,
                                        const SinkEnvironment&) -> Result<std::unique_ptr<EventSink>> {
    SINKD_ASSIGN_OR_RETURN(std::string endpoint, o.RequiredString("endpoint"));
    return std::unique_ptr<EventSink>(std::make_unique<MySink>(entry.id, endpoint));
  });
  const auto c = Parse("[[sinks.events]]\nid = \"wh\"\ntype = \"warehouse\"\n"
                       "endpoint = \"https://wh.example\"\n");
  auto built = registry.MakeEventSink(c.event_sinks[0], Env("/tmp/unused"));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(static_cast<MySink&>(*built->sink).endpoint(), "https://wh.example");
}

}  // namespace
}  // namespace sinkd::sinks
