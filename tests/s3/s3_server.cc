#include "s3_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

namespace sinkd::testing {

namespace fs = std::filesystem;

namespace {

std::vector<nlohmann::json> ReadJsonLines(const fs::path& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto doc = nlohmann::json::parse(line, nullptr, false);
    if (!doc.is_discarded()) out.push_back(std::move(doc));
  }
  return out;
}

std::string Tool(const std::string& name) { return (SourceDir() / "tools" / "s3" / name).string(); }

}  // namespace

NodeProcess::NodeProcess(const std::vector<std::string>& args, const fs::path& stderr_file,
                         const std::vector<std::string>& node_flags)
    : script_(args.empty() ? "" : fs::path(args.front()).filename().string()),
      stderr_file_(stderr_file) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    error_ = "pipe failed";
    return;
  }
  std::vector<std::string> argv = {"node"};
  argv.insert(argv.end(), node_flags.begin(), node_flags.end());
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargs;
  for (std::string& a : argv) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out[1], 1);
    if (err >= 0) dup2(err, 2);
    setpgid(0, 0);
    execvp("node", cargs.data());
    dprintf(2, "exec node: %s\n", strerror(errno));
    _exit(127);
  }
  close(out[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (text.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[256];
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  const size_t at = text.find("listening on 127.0.0.1:");
  if (at != std::string::npos) port_ = std::atoi(text.c_str() + at + 23);
  if (port_ <= 0) {
    error_ = "node did not start (" + args.front() + "): stdout \"" + text + "\", stderr \"" +
             ReadFile(stderr_file) + "\"";
  }
}

NodeProcess::~NodeProcess() {
  if (pid_ <= 0) return;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    ADD_FAILURE() << "the test server " << script_ << " ended before its test did ("
                  << (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                          : "exit " + std::to_string(WEXITSTATUS(status)))
                  << "); its stderr:\n" << ReadFile(stderr_file_);
    return;
  }
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
}

S3Server::S3Server(S3ServerOptions options) : options_(std::move(options)) {
  std::vector<std::string> args = {Tool("run-s3rver-verify.js"), (dir_.path() / "data").string(),
                                   "0", options_.access_key, options_.secret};
  if (!options_.bucket.empty()) args.push_back(options_.bucket);
  args.insert(args.end(), {"--log", (dir_.path() / "requests.jsonl").string(), "--if-none-match",
                           options_.if_none_match});
  if (options_.allow_anonymous) args.push_back("--allow-anonymous");
  if (!options_.session_token.empty()) {
    args.insert(args.end(), {"--session-token", options_.session_token});
  }
  if (options_.s3rver_abort) args.push_back("--s3rver-abort");
  if (!options_.last_modified.empty()) {
    args.insert(args.end(), {"--last-modified", options_.last_modified});
  }
  if (!options_.tls_cert.empty()) {
    args.insert(args.end(), {"--tls-cert", options_.tls_cert, "--tls-key", options_.tls_key});
  }
  // s3rver's ListObjectsV2 continuation tokens are DES, which OpenSSL 3 keeps in its legacy
  // provider (tools/s3/run-s3rver-verify.js).
  process_ = std::make_unique<NodeProcess>(args, dir_.path() / "server.err",
                                           std::vector<std::string>{"--openssl-legacy-provider"});
}

std::string S3Server::error() const { return process_->error(); }

fs::path S3Server::ObjectPath(const std::string& key) const {
  return BucketDir() / (key + "._S3rver_object");
}

std::vector<std::string> S3Server::Keys() const {
  static constexpr std::string_view kSuffix = "._S3rver_object";
  std::vector<std::string> keys;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(BucketDir(), ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string rel = fs::relative(it->path(), BucketDir()).string();
    if (it->is_regular_file() && rel.size() > kSuffix.size() &&
        rel.compare(rel.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
      keys.push_back(rel.substr(0, rel.size() - kSuffix.size()));
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<nlohmann::json> S3Server::Requests() const {
  return ReadJsonLines(dir_.path() / "requests.jsonl");
}

FaultProxy::FaultProxy(int upstream_port, const FaultRates& r) {
  std::vector<std::string> args = {Tool("fault-proxy.js"),
                                   std::to_string(upstream_port),
                                   "--seed", std::to_string(r.seed),
                                   "--rate-500", std::to_string(r.internal_error),
                                   "--rate-503", std::to_string(r.slow_down),
                                   "--rate-reset", std::to_string(r.reset),
                                   "--rate-reset-after", std::to_string(r.reset_after),
                                   "--rate-500-after", std::to_string(r.error_after),
                                   "--rate-latency", std::to_string(r.latency),
                                   "--latency-ms", std::to_string(r.latency_ms),
                                   "--log", (dir_.path() / "faults.jsonl").string()};
  if (!r.stall.empty()) {
    args.push_back("--stall");
    args.push_back(r.stall);
  }
  process_ = std::make_unique<NodeProcess>(args, dir_.path() / "proxy.err");
}

std::string FaultProxy::error() const { return process_->error(); }

std::vector<nlohmann::json> FaultProxy::Log() const {
  return ReadJsonLines(dir_.path() / "faults.jsonl");
}

s3::S3Options TestOptions(const std::string& endpoint, const std::string& bucket) {
  s3::S3Options o;
  o.endpoint = s3::ParseEndpoint(endpoint, false).value();
  o.bucket = bucket;
  o.credentials = {kTestKey, kTestSecret, ""};
  o.retry.attempts = 4;
  o.retry.backoff.initial = std::chrono::milliseconds(1);
  o.retry.backoff.cap = std::chrono::milliseconds(10);
  o.connect_timeout = std::chrono::milliseconds(2000);
  o.request_timeout = std::chrono::milliseconds(20'000);
  return o;
}

}  // namespace sinkd::testing
