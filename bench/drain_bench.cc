// drain_bench: the JetStream drain against its two limits, in one run, by wall clock.
//
// 2,000,000 generated ledger events in Batches of 500 (4,000 messages, ~1.2 GB) are published to
// GARM_LEDGER on a local nats-server started for the run, and written to a delimited file with the
// same bytes. Then --runs rounds (default 5), interleaved, of:
//   (1) a no-op consumer (a fresh durable each round) fetches and acks every message: the
//       broker's limit;
//   (2) `sinkd import ledger --lake-dir` reads the same bytes from the file: the lake's limit
//       (decode, sort, encode, fsync'd Parts) without a broker;
//   (3) `sinkd drain ledger --lake-dir` drains the stream (its durable deleted first, so it starts
//       from the first message) until the durable has nothing pending or unacked.
// sinkd gets `--encode-threads <cores>` when its --help lists the flag. Prints the machine, each
// rate as the median with min–max, the ratio (3) / (2) per round (target ≥ 0.85) and
// (3) / min((1), (2)), and the CPU seconds (user + sys, from wait4) the drain and the import spend
// per million events, with their peak RSS.
// Usage: drain_bench [--events N] [--runs R] [--keep DIR]
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "bench_flags.h"
#include "bench_support.h"
#include "contract/delimited.h"
#include "jetstream/connection.h"
#include "jetstream/pull_consumer.h"
#include "jetstream/streams.h"
#include "traffic/traffic_generator.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using sinkd::bench::Clock;
using sinkd::bench::Format;
using sinkd::bench::RatioLine;
using sinkd::bench::RatioSpread;
using sinkd::bench::Seconds;
using sinkd::bench::SpreadOf;

int Fail(const std::string& what) {
  std::fprintf(stderr, "drain_bench: %s\n", what.c_str());
  return 1;
}

std::vector<double> PerMillion(const std::vector<double>& cpu, double events) {
  std::vector<double> out;
  for (double c : cpu) out.push_back(c / (events / 1e6));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t events = 2'000'000;
  int runs = 5;
  std::string keep;
  sinkd::bench::BenchFlags flags(
      "drain_bench",
      "`sinkd drain ledger` against its two limits in one run: a no-op JetStream consumer (the "
      "broker's) and `sinkd import` of the same bytes (the lake's), by wall clock.");
  flags.Add("events", &events, "ledger events published (the full scale is the default)")
      .AddAtLeast("runs", &runs, 1, "rounds of each side, interleaved")
      .Add("keep", &keep, "work in this directory and keep it (default: a temporary one)");
  flags.Parse(argc, argv);
  const fs::path work = keep.empty()
                            ? fs::temp_directory_path() / ("drain-bench-" + std::to_string(getpid()))
                            : fs::path(keep);
  fs::remove_all(work);
  fs::create_directories(work / "nats");
  sinkd::bench::PrintMachine("drain_bench");
  const unsigned cores = sinkd::bench::Cores();
  const std::string sinkd = std::string(SINKD_BINARY_DIR) + "/src/cli/sinkd";
  const auto import_threads = sinkd::bench::EncodeThreadsFlag(sinkd, {"import", "ledger"}, cores);
  const auto drain_threads = sinkd::bench::EncodeThreadsFlag(sinkd, {"drain", "ledger"}, cores);

  // The broker: JetStream, loopback, a port the OS picks, a store in the work directory.
  sinkd::bench::ChildGuard nats(sinkd::bench::Spawn(
      {"nats-server", "-js", "-a", "127.0.0.1", "-p", "-1", "-sd", (work / "nats/store").string(),
       "--ports_file_dir", (work / "nats").string()},
      (work / "nats/nats.log").string()));
  if (nats.pid() < 0) return Fail("cannot start nats-server");
  std::string url;
  for (int i = 0; i < 200 && url.empty(); ++i) {
    std::this_thread::sleep_for(50ms);
    for (const auto& e : fs::directory_iterator(work / "nats")) {
      if (e.path().extension() != ".ports") continue;
      std::smatch m;
      const std::string text = sinkd::bench::ReadFile(e.path().string());
      static const std::regex re(R"((nats://[^"]+))");
      if (std::regex_search(text, m, re)) url = m[1];
    }
  }
  if (url.empty()) return Fail("nats-server did not start");
  auto connection = sinkd::jetstream::Connection::Connect({url, "drain_bench", 30s, false});
  if (!connection.ok()) return Fail(connection.status().ToString());
  sinkd::jetstream::Connection& c = **connection;
  auto provisioned = sinkd::jetstream::Provision(c, sinkd::jetstream::StreamSpecs({}));
  if (!provisioned.ok()) return Fail(provisioned.status().ToString());

  // Publish, and write the same bytes for the import.
  sinkd::traffic::TrafficOptions options;
  options.seed = 2026;
  options.events_per_batch = 500;
  options.expected_events = events;
  sinkd::traffic::TrafficGenerator generator(options);
  std::string file;
  std::string message;
  int64_t messages = 0;
  size_t bytes = 0;
  std::ofstream out(work / "ledger.bin", std::ios::binary);
  auto t = Clock::now();
  for (int64_t n = 0; n < events; n += options.events_per_batch, ++messages) {
    message.clear();
    generator.AppendLedgerMessage(message);
    bytes += message.size();
    file.clear();
    sinkd::contract::AppendDelimited(file, message);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    natsStatus s = js_PublishAsync(c.js(), "garm.v1.ledger.bench.svc", message.data(),
                                   static_cast<int>(message.size()), nullptr);
    if (s != NATS_OK) return Fail(std::string("publish: ") + natsStatus_GetText(s));
  }
  out.close();
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = 120000;
  if (js_PublishAsyncComplete(c.js(), &po) != NATS_OK) return Fail("publish acks");
  std::printf("published %lld messages, %lld events, %.1f MB in %.2f s\n",
              static_cast<long long>(messages), static_cast<long long>(events), bytes / 1e6,
              Seconds(t));

  std::vector<double> noop_s, import_s, drain_s, import_cpu, drain_cpu, import_rss, drain_rss;
  for (int r = 0; r < runs; ++r) {
    // (1) The broker's limit: fetch and ack, nothing else.
    sinkd::jetstream::ConsumerConfig noop{"GARM_LEDGER", "bench-noop-" + std::to_string(r),
                                          "garm.v1.ledger.>"};
    noop.max_ack_pending = 100000;
    auto consumer = sinkd::jetstream::PullConsumer::Bind(c, noop);
    if (!consumer.ok()) return Fail(consumer.status().ToString());
    std::vector<sinkd::jetstream::Message> got;
    int64_t seen = 0;
    t = Clock::now();
    while (seen < messages) {
      got.clear();
      sinkd::Status fetched = (*consumer)->Fetch(512, 2000ms, got);
      if (!fetched.ok()) return Fail("no-op fetch: " + fetched.ToString());
      for (auto& m : got) (void)m.Ack();
      seen += static_cast<int64_t>(got.size());
    }
    (void)c.FlushPending(10s);
    noop_s.push_back(Seconds(t));

    // (2) The lake's limit: the offline import of the same bytes.
    fs::remove_all(work / "lake-import");
    std::vector<std::string> args = {sinkd, "import", "ledger", "--lake-dir",
                                     (work / "lake-import").string()};
    args.insert(args.end(), import_threads.begin(), import_threads.end());
    args.push_back((work / "ledger.bin").string());
    const sinkd::bench::ChildRun import = sinkd::bench::Run(args, (work / "import.log").string());
    if (import.exit_code != 0) return Fail("import failed: " + sinkd::bench::ReadFile((work / "import.log").string()));
    import_s.push_back(import.wall);
    import_cpu.push_back(import.cpu);
    import_rss.push_back(import.max_rss_kib / 1024.0);
    fs::remove_all(work / "lake-import");

    // (3) The drain, from start to a durable with nothing pending or unacked.
    jsErrCode jerr{};
    js_DeleteConsumer(c.js(), "GARM_LEDGER", "sink-ledger", nullptr, &jerr);  // absent: fine
    fs::remove_all(work / "lake-drain");
    args = {sinkd, "drain", "ledger", "--nats-url", url, "--lake-dir", (work / "lake-drain").string(),
            "--batch-interval", "1s"};
    args.insert(args.end(), drain_threads.begin(), drain_threads.end());
    t = Clock::now();
    const Clock::time_point started = t;
    sinkd::bench::ChildGuard drain(sinkd::bench::Spawn(args, (work / "drain.log").string()));
    if (drain.pid() < 0) return Fail("cannot start sinkd drain");
    while (true) {
      std::this_thread::sleep_for(20ms);
      auto s = sinkd::jetstream::GetConsumerState(c, "GARM_LEDGER", "sink-ledger");
      if (s.ok() && s->pending == 0 && s->ack_pending == 0 &&
          s->ack_floor_stream >= uint64_t(messages)) {
        drain_s.push_back(Seconds(t));
        break;
      }
      if (Seconds(t) > 600) return Fail("the drain did not finish in 10 minutes");
    }
    kill(drain.pid(), SIGTERM);
    const sinkd::bench::ChildRun drained = sinkd::bench::Wait(drain.pid(), started);
    drain.Release();
    if (drained.exit_code != 0) return Fail("drain exit: " + sinkd::bench::ReadFile((work / "drain.log").string()));
    drain_cpu.push_back(drained.cpu);
    drain_rss.push_back(drained.max_rss_kib / 1024.0);
    fs::remove_all(work / "lake-drain");
  }

  const double e = static_cast<double>(events);
  std::vector<double> noop_eps, import_eps, drain_eps, limit_eps;
  for (int r = 0; r < runs; ++r) {
    noop_eps.push_back(e / noop_s[r]);
    import_eps.push_back(e / import_s[r]);
    drain_eps.push_back(e / drain_s[r]);
    limit_eps.push_back(std::min(noop_eps.back(), import_eps.back()));
  }
  std::printf("%d rounds; sinkd import %s, sinkd drain %s; median (min–max)\n", runs,
              import_threads.empty() ? "without --encode-threads (no such flag)"
                                     : ("--encode-threads " + import_threads[1]).c_str(),
              drain_threads.empty() ? "without --encode-threads (no such flag)"
                                    : ("--encode-threads " + drain_threads[1]).c_str());
  std::printf("(1) no-op consumer, fetch + ack:  %s events/s\n", Format(SpreadOf(noop_eps)).c_str());
  std::printf("(2) sinkd import ledger:          %s events/s\n", Format(SpreadOf(import_eps)).c_str());
  std::printf("(3) sinkd drain ledger:           %s events/s\n", Format(SpreadOf(drain_eps)).c_str());
  std::printf("ratio (3) / (2), drain / import:          %s\n",
              RatioLine(RatioSpread(drain_eps, import_eps), 0.85).c_str());
  std::printf("ratio (3) / min((1), (2)):                %s\n",
              RatioLine(RatioSpread(drain_eps, limit_eps), 0.8).c_str());
  std::printf("CPU s (user+sys) per million events: drain %s, import %s\n",
              Format(SpreadOf(PerMillion(drain_cpu, e)), "%.2f").c_str(),
              Format(SpreadOf(PerMillion(import_cpu, e)), "%.2f").c_str());
  std::printf("peak RSS: drain %s MiB, import %s MiB\n", Format(SpreadOf(drain_rss)).c_str(),
              Format(SpreadOf(import_rss)).c_str());
  sinkd::bench::PrintLoadAfter();
  nats.Stop();
  if (keep.empty()) fs::remove_all(work);
  return 0;
}
