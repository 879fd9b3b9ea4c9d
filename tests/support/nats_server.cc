#include "support/nats_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sinkd::testing {

namespace fs = std::filesystem;

namespace {

bool CanConnect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

bool Exited(pid_t pid) {
  int status = 0;
  return ::waitpid(pid, &status, WNOHANG) == pid;
}

}  // namespace

NatsServer::NatsServer() : store_(dir_.path() / "store") {
  if (!Launch(-1)) ADD_FAILURE() << "nats-server did not start: " << error_;
}

NatsServer::NatsServer(std::string config) : config_(std::move(config)), store_(dir_.path() / "store") {
  WriteFile(dir_.path() / "nats.conf", config_);
  if (!Launch(-1)) ADD_FAILURE() << "nats-server did not start: " << error_;
}

NatsServer::NatsServer(int port, std::vector<std::string> extra, bool start)
    : extra_(std::move(extra)), store_(dir_.path() / "store"), port_(port) {
  if (start && !Launch(port)) ADD_FAILURE() << "nats-server did not start: " << error_;
}

NatsServer::~NatsServer() { Kill(); }

std::string NatsServer::log() const { return ReadFile(dir_.path() / "nats.log"); }

bool NatsServer::Launch(int port) {
  error_.clear();
  const fs::path ports_dir = dir_.path() / "ports";
  std::error_code ec;
  fs::remove_all(ports_dir, ec);
  fs::create_directories(ports_dir);
  fs::create_directories(store_);
  std::vector<std::string> args = {
      "nats-server", "-js", "-a", "127.0.0.1", "-p", std::to_string(port), "-sd", store_.string(),
      "--ports_file_dir", ports_dir.string(), "-l", (dir_.path() / "nats.log").string()};
  args.insert(args.end(), extra_.begin(), extra_.end());
  if (!config_.empty()) {
    args.push_back("-c");
    args.push_back((dir_.path() / "nats.conf").string());
  }
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    ::dprintf(2, "exec nats-server: %s\n", ::strerror(errno));
    ::_exit(127);
  }
  if (pid < 0) {
    error_ = "fork failed";
    return false;
  }
  pid_ = pid;
  // The ports file appears once the listeners are up; it names the port -p -1 chose.
  const std::regex nats_url(R"((?:nats|tls)://[^:"]+:(\d+))");
  const bool found = WaitUntil(
      [&] {
        if (Exited(pid_)) {
          pid_ = -1;
          return true;
        }
        for (const auto& e : fs::directory_iterator(ports_dir, ec)) {
          std::smatch m;
          const std::string text = ReadFile(e.path());
          if (std::regex_search(text, m, nats_url)) {
            port_ = std::stoi(m[1]);
            return true;
          }
        }
        return false;
      },
      std::chrono::seconds(20), std::chrono::milliseconds(10));
  if (!found || port_ == 0) {
    error_ = "no ports file within 20s (is nats-server installed?); log:\n" + log();
    Kill();
    return false;
  }
  if (!WaitUntil([&] { return CanConnect(port_); }, std::chrono::seconds(10))) {
    error_ = "port " + std::to_string(port_) + " never accepted a connection; log:\n" + log();
    Kill();
    return false;
  }
  return true;
}

void NatsServer::Stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  if (!WaitUntil([&] { return Exited(pid_); }, std::chrono::seconds(10))) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

void NatsServer::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

bool NatsServer::Restart() {
  Stop();
  return Launch(port_);
}

NatsCluster::NatsCluster(int nodes) {
  std::vector<int> ports, cluster_ports;
  for (int i = 0; i < nodes; ++i) {
    ports.push_back(FreeLoopbackPort());
    cluster_ports.push_back(FreeLoopbackPort());
    monitor_ports_.push_back(FreeLoopbackPort());
  }
  for (int i = 0; i < nodes; ++i) {
    std::string routes;
    for (int j = 0; j < nodes; ++j) {
      if (j == i) continue;
      routes += (routes.empty() ? "" : ",") + std::string("nats://127.0.0.1:") +
                std::to_string(cluster_ports[j]);
    }
    nodes_.push_back(std::make_unique<NatsServer>(
        ports[i],
        std::vector<std::string>{"-n", "n" + std::to_string(i), "-m",
                                 std::to_string(monitor_ports_[i]), "--cluster_name",
                                 "sinkd-test", "--cluster",
                                 "nats://127.0.0.1:" + std::to_string(cluster_ports[i]),
                                 "--routes", routes}));
  }
}

bool NatsCluster::ok() const {
  for (const auto& n : nodes_) {
    if (!n->ok()) return false;
  }
  return !nodes_.empty();
}

std::string NatsCluster::error() const {
  std::string out;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->ok()) continue;
    // Appended piece by piece: gcc 12 -O3 warns (-Wrestrict, falsely) on the chained +.
    out.append("n").append(std::to_string(i)).append(": ").append(nodes_[i]->error()).append("\n");
  }
  return out;
}

std::string NatsCluster::urls() const {
  std::string out;
  for (const auto& n : nodes_) out += (out.empty() ? "" : ",") + n->url();
  return out;
}

int NatsCluster::NodeOf(const std::string& client_name) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i]->ok()) continue;
    const CommandResult r = RunCommand(
        {"curl", "-sf", "--max-time", "2",
         "http://127.0.0.1:" + std::to_string(monitor_ports_[i]) + "/connz"},
        "", std::chrono::seconds(5));
    if (r.exit_code != 0) continue;
    const nlohmann::json connz = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    if (!connz.is_object() || !connz.contains("connections")) continue;
    for (const auto& c : connz["connections"]) {
      if (c.value("name", "") == client_name) return static_cast<int>(i);
    }
  }
  return -1;
}

bool MakeTlsFiles(const fs::path& dir, TlsFiles* out) {
  fs::create_directories(dir);
  out->ca = dir / "ca.pem";
  out->server_cert = dir / "server.pem";
  out->server_key = dir / "server.key";
  out->client_cert = dir / "client.pem";
  out->client_key = dir / "client.key";
  WriteFile(dir / "server.ext", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  WriteFile(dir / "client.ext", "extendedKeyUsage=clientAuth\n");
  const std::string ec = "ec", curve = "ec_paramgen_curve:prime256v1";
  const std::vector<std::vector<std::string>> steps = {
      {"openssl", "req", "-x509", "-newkey", ec, "-pkeyopt", curve, "-nodes", "-keyout",
       (dir / "ca.key").string(), "-out", out->ca.string(), "-days", "2", "-subj", "/CN=sinkd test CA"},
      {"openssl", "req", "-newkey", ec, "-pkeyopt", curve, "-nodes", "-keyout",
       out->server_key.string(), "-out", (dir / "server.csr").string(), "-subj", "/CN=127.0.0.1"},
      {"openssl", "x509", "-req", "-in", (dir / "server.csr").string(), "-CA", out->ca.string(),
       "-CAkey", (dir / "ca.key").string(), "-CAcreateserial", "-out", out->server_cert.string(),
       "-days", "2", "-extfile", (dir / "server.ext").string()},
      {"openssl", "req", "-newkey", ec, "-pkeyopt", curve, "-nodes", "-keyout",
       out->client_key.string(), "-out", (dir / "client.csr").string(), "-subj", "/CN=sinkd"},
      {"openssl", "x509", "-req", "-in", (dir / "client.csr").string(), "-CA", out->ca.string(),
       "-CAkey", (dir / "ca.key").string(), "-CAcreateserial", "-out", out->client_cert.string(),
       "-days", "2", "-extfile", (dir / "client.ext").string()},
  };
  for (const auto& step : steps) {
    CommandResult r = RunCommand(step, "", std::chrono::seconds(60));
    if (r.exit_code != 0) {
      ADD_FAILURE() << step[0] << " " << step[1] << " failed (" << r.exit_code << "): " << r.err;
      return false;
    }
  }
  return true;
}

}  // namespace sinkd::testing
