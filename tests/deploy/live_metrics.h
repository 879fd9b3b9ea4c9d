// The /metrics pages of a real `sinkd drain ledger` (against a real nats-server, after a few
// flushes and dead letters), a real `sinkd dispatch` (against the shared PostgreSQL, holding its
// leases) and a real `sinkd compact ledger --follow` (after its first pass over an imported lake
// of small Parts): what Prometheus scrapes in production. Each returns "" after a gtest failure.
// Header-only. Threads: one thread at a time.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "outbox/process.h"
#include "support/nats_server.h"
#include "support/postgres_server.h"
#include "support/support.h"

namespace sinkd::testing {

inline std::string ScrapeLiveDrain() {
  using sinkd::outbox::testing::Background;
  NatsServer server;
  if (!server.ok()) {
    ADD_FAILURE() << server.error();
    return "";
  }
  TempDir dir;
  const std::string url = server.url();
  const std::string wire = (dir / "ledger.bin").string();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"provision", "--nats-url", url},
           {"generate", "ledger", "--messages", "20", "--events-per-batch", "50", "--seed", "11",
            "--bad-share", "0.05", "-o", wire},
           {"publish", "ledger", "--nats-url", url, wire}}) {
    std::vector<std::string> argv = {SinkdBinary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult r = RunCommand(argv);
    if (r.exit_code != 0) {
      ADD_FAILURE() << "sinkd " << args[0] << ": " << r.err;
      return "";
    }
  }
  const int port = sinkd::outbox::testing::FreeLoopbackPort();
  Background drain({SinkdBinary().string(), "drain", "ledger", "--nats-url", url, "--lake-dir",
                    (dir / "lake").string(), "--batch-interval", "200ms", "--metrics-listen",
                    "127.0.0.1:" + std::to_string(port)},
                   dir / "drain.log");
  // Every message flushed or dead-lettered, so the page has real counts and histogram buckets.
  std::string body;
  const bool ok = WaitUntil(
      [&] {
        const auto reply = sinkd::outbox::testing::HttpGet(port, "/metrics");
        body = "\n" + reply.body;
        return reply.code == 200 &&
               body.find("sinkd_flushes_total{origin=\"ledger\"} 0\n") == std::string::npos &&
               body.find("sinkd_flushes_total{origin=\"ledger\"}") != std::string::npos &&
               body.find("sinkd_consumer_pending{origin=\"ledger\"} 0\n") != std::string::npos;
      },
      std::chrono::seconds(60), std::chrono::milliseconds(100));
  if (!ok) {
    ADD_FAILURE() << "the drain never flushed; its log:\n"
                  << drain.Log() << "\nlast page:\n"
                  << body;
    return "";
  }
  return body.substr(1);
}

inline std::string ScrapeLiveDispatch() {
  using sinkd::outbox::testing::Background;
  const std::string conninfo = PostgresServer::Shared().FreshDatabase();
  if (conninfo.empty()) return "";
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  const std::string config = (dir / "sinkd.toml").string();
  WriteFile(config,
            "[postgres]\nurl = \"" + conninfo +
                "\"\n[dispatch]\npoll_interval = \"50ms\"\n"
                "audit_interval = \"200ms\"\n[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\n"
                "lake_dir = \"" +
                lake +
                "\"\n[[sinks.audit]]\nid = \"archive\"\n"
                "type = \"lake\"\nlake_dir = \"" +
                lake + "\"\n");
  const CommandResult migrate =
      RunCommand({SinkdBinary().string(), "outbox", "migrate", "--config", config});
  if (migrate.exit_code != 0) {
    ADD_FAILURE() << "sinkd outbox migrate: " << migrate.err;
    return "";
  }
  const int port = sinkd::outbox::testing::FreeLoopbackPort();
  Background dispatch({SinkdBinary().string(), "dispatch", "--config", config, "--metrics-listen",
                       "127.0.0.1:" + std::to_string(port)},
                      dir / "dispatch.log");
  std::string body;
  const bool ok = WaitUntil(
      [&] {
        const auto reply = sinkd::outbox::testing::HttpGet(port, "/metrics");
        body = reply.body;
        return reply.code == 200 &&
               body.find("sinkd_outbox_lease_held{kind=\"events\",sink=\"lake\"} 1") !=
                   std::string::npos &&
               body.find("sinkd_outbox_lease_held{kind=\"audit\",sink=\"archive\"} 1") !=
                   std::string::npos &&
               body.find("sinkd_outbox_lease_holder_info{") != std::string::npos;
      },
      std::chrono::seconds(60), std::chrono::milliseconds(100));
  if (!ok) {
    ADD_FAILURE() << "the dispatcher never held its leases; its log:\n"
                  << dispatch.Log() << "\nlast page:\n"
                  << body;
    return "";
  }
  return body;
}

inline std::string ScrapeLiveCompact() {
  using sinkd::outbox::testing::Background;
  TempDir dir;
  const std::string wire = (dir / "ledger.bin").string();
  const std::string lake = (dir / "lake").string();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"generate", "ledger", "--messages", "40", "--events-per-batch", "50", "--seed", "12",
            "-o", wire},
           {"import", "ledger", "--lake-dir", lake, "--batch-max-rows", "100", wire}}) {
    std::vector<std::string> argv = {SinkdBinary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult r = RunCommand(argv);
    if (r.exit_code != 0) {
      ADD_FAILURE() << "sinkd " << args[0] << ": " << r.err;
      return "";
    }
  }
  const int port = sinkd::outbox::testing::FreeLoopbackPort();
  Background compact({SinkdBinary().string(), "compact", "ledger", "--lake-dir", lake, "--follow",
                      "--every", "1s", "--min-parts", "2", "--metrics-listen",
                      "127.0.0.1:" + std::to_string(port)},
                     dir / "compact.log");
  // One pass over, whichever way it ended, so every counter has been touched once.
  std::string body;
  const bool ok = WaitUntil(
      [&] {
        const auto reply = sinkd::outbox::testing::HttpGet(port, "/metrics");
        body = "\n" + reply.body;
        return reply.code == 200 &&
               body.find("\nsinkd_compact_passes_total{table=\"ledger\"} ") != std::string::npos &&
               (body.find("\nsinkd_compact_passes_total{table=\"ledger\"} 0\n") ==
                    std::string::npos ||
                body.find("\nsinkd_compact_pass_failures_total{table=\"ledger\"} 0\n") ==
                    std::string::npos);
      },
      std::chrono::seconds(60), std::chrono::milliseconds(100));
  if (!ok) {
    ADD_FAILURE() << "sinkd compact never finished a pass; its log:\n"
                  << compact.Log() << "\nlast page:\n"
                  << body;
    return "";
  }
  return body.substr(1);
}

}  // namespace sinkd::testing
