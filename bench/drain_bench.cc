// drain_bench: the JetStream drain against its two limits, in one run.
//
// 2,000,000 generated ledger events in Batches of 500 (4,000 messages, ~1.4 GB) are published to
// GARM_LEDGER on a local nats-server started for the run, and written to a delimited file with the
// same bytes. Then:
//   (1) a no-op consumer fetches and acks every message: the broker's limit;
//   (2) `sinkd import ledger --lake-dir` reads the same bytes from the file: the lake's limit
//       (decode, sort, encode, fsync'd Parts) without a broker;
//   (3) `sinkd drain ledger --lake-dir` drains the stream until its durable has nothing pending.
// Prints events/s for each and the ratio (3) / min((1), (2)); the target is ≥ 0.8.
// Usage: drain_bench [--events N] [--keep DIR]
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "contract/delimited.h"
#include "jetstream/connection.h"
#include "jetstream/pull_consumer.h"
#include "jetstream/streams.h"
#include "traffic/traffic_generator.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

pid_t Spawn(const std::vector<std::string>& args, const fs::path& log) {
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool Fail(const std::string& what) {
  std::fprintf(stderr, "drain_bench: %s\n", what.c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t events = 2'000'000;
  std::string keep;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--events") events = std::stoll(argv[i + 1]);
    if (flag == "--keep") keep = argv[i + 1];
  }
  const fs::path work = keep.empty() ? fs::temp_directory_path() / ("drain-bench-" + std::to_string(getpid()))
                                     : fs::path(keep);
  fs::remove_all(work);
  fs::create_directories(work / "nats");
  const std::string sinkd = std::string(SINKD_BINARY_DIR) + "/src/cli/sinkd";

  // The broker: JetStream, loopback, a port the OS picks, a store in the work directory.
  pid_t nats = Spawn({"nats-server", "-js", "-a", "127.0.0.1", "-p", "-1", "-sd",
                      (work / "nats/store").string(), "--ports_file_dir", (work / "nats").string()},
                     work / "nats/nats.log");
  std::string url;
  for (int i = 0; i < 200 && url.empty(); ++i) {
    std::this_thread::sleep_for(50ms);
    for (const auto& e : fs::directory_iterator(work / "nats")) {
      if (e.path().extension() != ".ports") continue;
      std::smatch m;
      const std::string text = ReadAll(e.path());
      static const std::regex re(R"((nats://[^"]+))");
      if (std::regex_search(text, m, re)) url = m[1];
    }
  }
  if (url.empty()) return Fail("nats-server did not start"), 1;
  auto connection = sinkd::jetstream::Connection::Connect({url, "drain_bench", 30s, false});
  if (!connection.ok()) return Fail(connection.status().ToString()), 1;
  sinkd::jetstream::Connection& c = **connection;
  auto provisioned = sinkd::jetstream::Provision(c, sinkd::jetstream::StreamSpecs({}));
  if (!provisioned.ok()) return Fail(provisioned.status().ToString()), 1;

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
    if (s != NATS_OK) return Fail(std::string("publish: ") + natsStatus_GetText(s)), 1;
  }
  out.close();
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = 120000;
  if (js_PublishAsyncComplete(c.js(), &po) != NATS_OK) return Fail("publish acks"), 1;
  std::printf("published %lld messages, %lld events, %.1f MB in %.2f s\n",
              static_cast<long long>(messages), static_cast<long long>(events), bytes / 1e6,
              Seconds(t));

  // (1) The broker's limit: fetch and ack, nothing else.
  sinkd::jetstream::ConsumerConfig noop{"GARM_LEDGER", "bench-noop", "garm.v1.ledger.>"};
  noop.max_ack_pending = 100000;
  auto consumer = sinkd::jetstream::PullConsumer::Bind(c, noop);
  if (!consumer.ok()) return Fail(consumer.status().ToString()), 1;
  std::vector<sinkd::jetstream::Message> got;
  int64_t seen = 0;
  t = Clock::now();
  while (seen < messages) {
    got.clear();
    sinkd::Status fetched = (*consumer)->Fetch(512, 2000ms, got);
    if (!fetched.ok()) return Fail("no-op fetch: " + fetched.ToString()), 1;
    for (auto& m : got) (void)m.Ack();
    seen += static_cast<int64_t>(got.size());
  }
  (void)c.FlushPending(10s);
  const double noop_s = Seconds(t);

  // (2) The lake's limit: the offline import of the same bytes.
  t = Clock::now();
  int rc = Wait(Spawn({sinkd, "import", "ledger", "--lake-dir", (work / "lake-import").string(),
                       (work / "ledger.bin").string()},
                      work / "import.log"));
  const double import_s = Seconds(t);
  if (rc != 0) return Fail("import failed: " + ReadAll(work / "import.log")), 1;

  // (3) The drain, from start to a durable with nothing pending or unacked.
  t = Clock::now();
  pid_t drain = Spawn({sinkd, "drain", "ledger", "--nats-url", url, "--lake-dir",
                       (work / "lake-drain").string(), "--batch-interval", "1s"},
                      work / "drain.log");
  double drain_s = 0;
  while (true) {
    std::this_thread::sleep_for(20ms);
    auto s = sinkd::jetstream::GetConsumerState(c, "GARM_LEDGER", "sink-ledger");
    if (s.ok() && s->pending == 0 && s->ack_pending == 0 && s->ack_floor_stream >= uint64_t(messages)) {
      drain_s = Seconds(t);
      break;
    }
    if (Seconds(t) > 600) return Fail("the drain did not finish in 10 minutes"), 1;
  }
  kill(drain, SIGTERM);
  if (Wait(drain) != 0) return Fail("drain exit: " + ReadAll(work / "drain.log")), 1;
  kill(nats, SIGTERM);
  Wait(nats);

  const double e = static_cast<double>(events);
  const double noop_eps = e / noop_s, import_eps = e / import_s, drain_eps = e / drain_s;
  std::printf("(1) no-op consumer, fetch + ack:  %10.0f events/s  (%.2f s)\n", noop_eps, noop_s);
  std::printf("(2) sinkd import ledger:          %10.0f events/s  (%.2f s)\n", import_eps, import_s);
  std::printf("(3) sinkd drain ledger:           %10.0f events/s  (%.2f s)\n", drain_eps, drain_s);
  const double ratio = drain_eps / std::min(noop_eps, import_eps);
  std::printf("ratio (3) / min((1), (2)) = %.2f  (target >= 0.8: %s)\n", ratio,
              ratio >= 0.8 ? "met" : "NOT met");
  if (keep.empty()) fs::remove_all(work);
  return 0;
}
