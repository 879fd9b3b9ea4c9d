// NatsServer runs a real `nats-server -js` for one test: loopback only, a port the OS chose
// (-p -1, read back from --ports_file_dir), a store in its own temporary directory. It can be
// stopped, killed and restarted on the same port and store (a broker restart mid-drain), and it is
// always killed on destruction, and with the test process if that dies first (PDEATHSIG).
// With a configuration text (NatsServer(text)), that text is the server's config file (-c), for
// authorization and TLS; MakeTlsFiles writes a CA and server and client certificates for it.
// A missing nats-server binary, or one that does not come up, is a test failure, never a skip.
// Threads: one thread at a time.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

#include "support/support.h"

namespace sinkd::testing {

class NatsServer {
 public:
  // Starts the server and waits until it accepts connections; on failure records a gtest failure
  // and leaves ok() false (use ASSERT_TRUE(server.ok()) << server.error()).
  NatsServer();
  // `config` is written to nats.conf in the server's directory and passed with -c.
  explicit NatsServer(std::string config);
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
  std::filesystem::path store_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
};

// A throwaway CA (ca.pem), a server certificate for 127.0.0.1 (server.pem, server.key) and a
// client certificate (client.pem, client.key), all signed by it, written with the openssl CLI
// into `dir`. Records a gtest failure (and returns false) when openssl fails.
struct TlsFiles {
  std::filesystem::path ca, server_cert, server_key, client_cert, client_key;
};
bool MakeTlsFiles(const std::filesystem::path& dir, TlsFiles* out);

}  // namespace sinkd::testing
