// s3_upload_bench: how fast the S3 destination puts a flush's Parts into a store, against the
// limit of the same store: a raw `curl` PUT of the same bytes.
//
// The store is s3rver behind our SigV4-verifying layer (tools/s3/run-s3rver-verify.js) on
// loopback, started here on a port the OS chooses. One flush of --mib MiB of incompressible bytes
// is uploaded as 1, 16 and 200 Parts (signed, SHA-256 and MD5 of every body, If-None-Match),
// --rounds times each, and the best round is kept. The limit is curl 7.88 uploading the same
// files, in one process (so it reuses its connection), signing with --aws-sigv4 and given the
// same integrity headers, precomputed off the clock. Prints MB/s for both and sinkd/curl.
// Usage: s3_upload_bench [--mib N] [--rounds R]
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_flags.h"
#include "base/base64.h"
#include "base/log.h"
#include "s3/crypto.h"
#include "s3/s3_destination.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr char kKey[] = "AKBENCH";
constexpr char kSecret[] = "SKBENCH-secret";
constexpr char kBucket[] = "bench";

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The verifying server, started for the run and stopped (SIGTERM, then SIGKILL) at the end.
class Server {
 public:
  explicit Server(const fs::path& dir) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;
    const std::string script = std::string(SINKD_SOURCE_DIR) + "/tools/s3/run-s3rver-verify.js";
    const std::string data = (dir / "data").string();
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      // --openssl-legacy-provider: s3rver's continuation tokens are DES (run-s3rver-verify.js).
      execlp("node", "node", "--openssl-legacy-provider", script.c_str(), data.c_str(), "0", kKey,
             kSecret, kBucket, nullptr);
      _exit(127);
    }
    close(out[1]);
    std::string text;
    pollfd p{out[0], POLLIN, 0};
    while (text.find('\n') == std::string::npos && poll(&p, 1, 20'000) > 0) {
      char buf[256];
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
    close(out[0]);
    const size_t at = text.find("127.0.0.1:");
    if (at != std::string::npos) port_ = std::atoi(text.c_str() + at + 10);
  }
  ~Server() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

std::string RandomBytes(size_t n) {
  std::mt19937_64 random(1);
  std::string out(n, '\0');
  for (size_t i = 0; i + 8 <= n; i += 8) {
    const uint64_t v = random();
    std::memcpy(&out[i], &v, 8);
  }
  return out;
}

// One flush through the destination: `parts` Parts of equal size; seconds taken, or < 0 on error.
double SinkdFlush(sinkd::s3::S3Destination& destination, const std::string& bytes, int parts,
                  const std::string& prefix) {
  const size_t size = bytes.size() / parts;
  const auto start = Clock::now();
  for (int i = 0; i < parts; ++i) {
    const std::string key = prefix + "/date=2026-09-29/app=a/part-bench-" + std::to_string(i) +
                            ".parquet";
    auto upload = destination.Begin(key);
    if (!upload.ok()) return -1;
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data()) + i * size;
    // Appends of 1 MiB, as a Part writer streams its row groups.
    for (size_t at = 0; at < size; at += 1 << 20) {
      if (!(*upload)->Append({data + at, std::min<size_t>(1 << 20, size - at)}).ok()) return -1;
    }
    sinkd::Status s = (*upload)->Commit().status();
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return -1;
    }
  }
  return destination.Sync().ok() ? Seconds(start) : -1;
}

// The same bytes through one curl process: `parts` files, one PUT each, one connection. curl is
// handed the same integrity headers sinkd sends (x-amz-content-sha256, Content-MD5; computed
// before the clock starts), so the store does the same checking work for both.
double CurlFlush(int port, const fs::path& dir, const std::string& bytes, int parts,
                 const std::string& prefix) {
  const size_t size = bytes.size() / parts;
  const fs::path config = dir / (prefix + ".curl");
  {
    std::ofstream c(config);
    for (int i = 0; i < parts; ++i) {
      const std::string_view body(bytes.data() + i * size, size);
      const fs::path file = dir / (prefix + "-" + std::to_string(i));
      std::ofstream(file, std::ios::binary).write(body.data(), body.size());
      if (i > 0) c << "next\n";
      c << "silent\nfail\naws-sigv4 = \"aws:amz:us-east-1:s3\"\n"
        << "user = \"" << kKey << ":" << kSecret << "\"\n"
        << "header = \"x-amz-content-sha256: " << sinkd::s3::Sha256Hex(body) << "\"\n"
        << "header = \"Content-MD5: " << sinkd::Base64Encode(sinkd::s3::Md5(body)) << "\"\n"
        << "header = \"Expect:\"\n"
        << "upload-file = \"" << file.string() << "\"\n"
        << "url = \"http://127.0.0.1:" << port << "/" << kBucket << "/" << prefix
        << "/date%3D2026-09-29/app%3Da/part-curl-" << i << ".parquet\"\n"
        << "output = \"/dev/null\"\n";
    }
  }
  const std::string command = "curl -K " + config.string();
  const auto start = Clock::now();
  const int rc = std::system(command.c_str());
  const double seconds = Seconds(start);
  for (int i = 0; i < parts; ++i) fs::remove(dir / (prefix + "-" + std::to_string(i)));
  return rc == 0 ? seconds : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int mib = 48;
  int rounds = 4;
  sinkd::bench::BenchFlags flags(
      "s3_upload_bench",
      "The S3 destination putting one flush's Parts (1, 16 and 200 per flush) into s3rver behind "
      "the SigV4 layer, against curl's PUT of the same bytes.");
  flags.AddAtLeast("mib", &mib, 1, "MiB of one flush")
      .AddAtLeast("rounds", &rounds, 1, "rounds of each shape (the best is kept)");
  flags.Parse(argc, argv);
  const fs::path dir = fs::temp_directory_path() / ("s3_upload_bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  int failed = 0;
  {
    Server server(dir);
    if (server.port() <= 0) {
      std::fprintf(stderr, "the S3 server did not start (node, npm ci?)\n");
      return 1;
    }
    sinkd::s3::S3Options options;
    options.endpoint = sinkd::s3::ParseEndpoint("127.0.0.1:" + std::to_string(server.port()),
                                                false).value();
    options.bucket = kBucket;
    options.credentials = {kKey, kSecret, ""};
    std::FILE* quiet = std::fopen("/dev/null", "w");
    sinkd::Logger log(quiet);
    auto destination = sinkd::s3::S3Destination::Make(options, &log).value();
    if (!destination->Ensure().ok()) return 1;
    const std::string bytes = RandomBytes(static_cast<size_t>(mib) << 20);
    std::printf("s3_upload_bench: one flush of %d MiB to s3rver+SigV4 layer on loopback, best of "
                "%d rounds\n",
                mib, rounds);
    std::printf("%6s %10s %10s %10s %10s\n", "parts", "part KiB", "sinkd MB/s", "curl MB/s",
                "sinkd/curl");
    for (int parts : {1, 16, 200}) {
      double ours = 1e9, limit = 1e9;
      for (int r = 0; r < rounds; ++r) {
        const std::string tag = std::to_string(parts) + "-" + std::to_string(r);
        // Alternate who goes first: the server's garbage collection and the page cache's
        // write-back of the previous flush would otherwise always land on the same side.
        double s = -1, c = -1;
        if (r % 2 == 0) s = SinkdFlush(*destination, bytes, parts, "sinkd-" + tag);
        c = CurlFlush(server.port(), dir, bytes, parts, "curl-" + tag);
        if (r % 2 == 1) s = SinkdFlush(*destination, bytes, parts, "sinkd-" + tag);
        if (s < 0 || c < 0) ++failed;
        if (s > 0) ours = std::min(ours, s);
        if (c > 0) limit = std::min(limit, c);
      }
      const double mb = static_cast<double>(bytes.size() / parts * parts) / 1e6;
      std::printf("%6d %10zu %10.1f %10.1f %10.2f\n", parts, bytes.size() / parts / 1024,
                  mb / ours, mb / limit, limit / ours);
    }
    std::fclose(quiet);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (failed) std::fprintf(stderr, "%d uploads failed\n", failed);
  return failed ? 1 : 0;
}
