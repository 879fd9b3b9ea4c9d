// NatsServer runs a real `nats-server -js` for one test: loopback only, a port the OS chose
// (-p -1, read back from --ports_file_dir), a store in its own temporary directory. It can be
// stopped, killed and restarted on the same port and store (a broker restart mid-drain), and it is
// always killed on destruction, and with the test process if that dies first (PDEATHSIG).
// With a configuration text (NatsServer(text)), that text is the server's config file (-c), for
// authorization and TLS; MakeTlsFiles writes a CA and server and client certificates for it.
// NatsCluster runs three (or more) of them as one JetStream cluster on loopback, each with its
// monitoring port, for the tests of a client that must survive losing its node.
// A missing nats-server binary, or one that does not come up, is a test failure, never a skip.
// Threads: one thread at a time.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/support.h"

namespace sinkd::testing {

class NatsServer {
 public:
  // Starts the server and waits until it accepts connections; on failure records a gtest failure
  // and leaves ok() false (use ASSERT_TRUE(server.ok()) << server.error()).
  NatsServer();
  // `config` is written to nats.conf in the server's directory and passed with -c.
  explicit NatsServer(std::string config);
  // On `port` with `extra` arguments after the usual ones (a cluster node's name, routes and
  // monitoring port); not started when `start` is false: Restart() starts it then (a server that
  // comes up after its client began connecting).
  NatsServer(int port, std::vector<std::string> extra, bool start = true);
  ~NatsServer();
  NatsServer(const NatsServer&) = delete;
  NatsServer& operator=(const NatsServer&) = delete;

  bool ok() const { return pid_ > 0 && error_.empty(); }
  const std::string& error() const { return error_; }
  std::string url() const { return "nats://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  const std::filesystem::path& store() const { return store_; }
  const std::filesystem::path& dir() const { return dir_.path(); }
  std::string log() const;

  // SIGTERM and wait (a graceful broker shutdown); SIGKILL after 10 s.
  void Stop();
  // SIGKILL at once (a crash).
  void Kill();
  // Starts it again on the same port and store; false (with error()) when it does not come up.
  bool Restart();

 private:
  bool Launch(int port);

  TempDir dir_;
  std::string config_;
  std::vector<std::string> extra_;
  std::filesystem::path store_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
};

// `nodes` nats-servers (n0, n1, …) routed to each other as cluster "sinkd-test", JetStream on
// each, every port fixed up front so that a node killed and restarted comes back where it was.
class NatsCluster {
 public:
  explicit NatsCluster(int nodes = 3);
  bool ok() const;
  std::string error() const;
  int size() const { return static_cast<int>(nodes_.size()); }
  NatsServer& node(int i) { return *nodes_[i]; }
  int monitor_port(int i) const { return monitor_ports_[i]; }
  // Every node's client URL, comma-separated, n0 first.
  std::string urls() const;
  // The node a client named `client_name` is connected to, from each live node's /connz; -1
  // when none lists it.
  int NodeOf(const std::string& client_name) const;
  // Restarts node `i` (after Kill or Stop) with its ports, name and routes.
  bool Restart(int i) { return nodes_[i]->Restart(); }

 private:
  std::vector<std::unique_ptr<NatsServer>> nodes_;
  std::vector<int> monitor_ports_;
};

// A throwaway CA (ca.pem), a server certificate for 127.0.0.1 (server.pem, server.key) and a
// client certificate (client.pem, client.key), all signed by it, written with the openssl CLI
// into `dir`. Records a gtest failure (and returns false) when openssl fails.
struct TlsFiles {
  std::filesystem::path ca, server_cert, server_key, client_cert, client_key;
};
bool MakeTlsFiles(const std::filesystem::path& dir, TlsFiles* out);

}  // namespace sinkd::testing
