// `sinkd provision` through the binary: output lines, exit codes and the refusal text on stderr.
#include <gtest/gtest.h>

#include "jetstream/jetstream_test_support.h"

namespace sinkd {
namespace {

using testing::RunCommand;
using testing::SinkdBinary;

TEST(ProvisionCli, DryRunPrintsEveryConfigurationAndConnectsToNothing) {
  auto r = RunCommand({SinkdBinary().string(), "provision", "--dry-run", "--nats-url",
                       "nats://127.0.0.1:1", "--ledger-max-age", "24h"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GARM_LEDGER: subjects=[garm.v1.ledger.>] discard=DiscardOld retention=Limits "
                       "max_bytes=8589934592 max_age=24h0m0s replicas=1 deny_delete=false\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("GARM_AUDIT: subjects=[garm.v1.audit.>] discard=DiscardNew"), std::string::npos);
  EXPECT_NE(r.out.find("GARM_SINK_DEAD: subjects=[garm.v1.sink.dead.>] discard=DiscardNew"),
            std::string::npos);
}

// created → ok → REFUSED with exit 1, the exact mismatch text, and nothing changed.
TEST(ProvisionCli, CreatesThenVerifiesThenRefusesAChangedSizeAndExitsNonZero) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::vector<std::string> base = {SinkdBinary().string(), "provision"};
  const std::vector<std::string> env = {"NATS_URL=" + server.url()};
  auto first = RunCommand(base, "", std::chrono::seconds(60), env);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "GARM_LEDGER: created\nGARM_AUDIT: created\nGARM_SINK_DEAD: created\n");
  auto second = RunCommand(base, "", std::chrono::seconds(60), env);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, "GARM_LEDGER: ok\nGARM_AUDIT: ok\nGARM_SINK_DEAD: ok\n");
  auto refused = RunCommand({SinkdBinary().string(), "provision", "--nats-url", server.url(),
                             "--dead-max-bytes", "4096"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.out, "GARM_LEDGER: ok\nGARM_AUDIT: ok\nGARM_SINK_DEAD: REFUSED\n");
  EXPECT_EQ(refused.err,
            "sinkd: stream exists with a different policy: GARM_SINK_DEAD differs in 1 field(s):\n"
            "  max_bytes: want 4096, running 1073741824\n\nNothing was changed. Decide which is "
            "right: if the running stream is wrong, fix it explicitly (`nats stream edit "
            "GARM_SINK_DEAD`) or recreate it; if this binary is wrong, it needs a change here.\n");
}

TEST(ProvisionCli, AnUnreachableServerIsAnErrorNamingTheURL) {
  auto r = RunCommand({SinkdBinary().string(), "provision", "--nats-url", "nats://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("nats://127.0.0.1:1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sinkd
