#include "http/listener.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "metrics/process_metrics.h"
#include "metrics/s3_request_metrics.h"

namespace sinkd::http {

namespace {

using Clock = std::chrono::steady_clock;

int64_t NowUnixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Waits until `fd` has one of `events` (or an error or hang-up, which the next call reports), or
// `deadline` passes; past it, only what is already there counts.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
    if (n > 0) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

void IpAndPort(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    port = ntohs(v6.sin6_port);
  } else {
    port = 0;  // a socketpair (the fuzz target)
  }
  ip = text;
}

// One connection as cpp-httplib's request parser and response writer see it. It is ours, not the
// library's SocketStream, because the library bounds each wait but neither a request's total time
// nor its size: a client trickling a byte every few seconds, or one endless header line, would
// hold a worker for ever. Here every read ends at the request deadline and after max_read bytes
// (the parser then sees the end of the stream and answers 400, which the error handler makes 408
// or 431), and every write at the write deadline.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(int fd, Clock::time_point read_deadline, std::chrono::milliseconds write_timeout,
                   size_t max_read)
      : fd_(fd),
        read_deadline_(read_deadline),
        write_timeout_(write_timeout),
        max_read_(max_read) {}

  bool timed_out() const { return timed_out_; }
  bool too_large() const { return too_large_; }
  bool answered() const { return write_started_; }

  bool is_readable() const override { return pos_ < end_ || WaitFor(fd_, POLLIN, read_deadline_); }
  bool is_writable() const override {
    return WaitFor(fd_, POLLOUT, write_started_ ? write_deadline_ : Clock::now() + write_timeout_);
  }

  ssize_t read(char* ptr, size_t size) override {
    if (pos_ == end_) {
      if (read_ >= max_read_) {
        too_large_ = true;
        return 0;
      }
      if (!WaitFor(fd_, POLLIN, read_deadline_)) {
        timed_out_ = true;
        return 0;
      }
      ssize_t n;
      do {
        n = ::recv(fd_, buffer_, std::min(sizeof buffer_, max_read_ - read_), MSG_DONTWAIT);
      } while (n < 0 && errno == EINTR);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) n = 0;
      if (n <= 0) return n;
      pos_ = 0;
      end_ = static_cast<size_t>(n);
      read_ += end_;
    }
    const size_t take = std::min(size, end_ - pos_);
    std::memcpy(ptr, buffer_ + pos_, take);
    pos_ += take;
    return static_cast<ssize_t>(take);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!write_started_) {
      write_started_ = true;
      write_deadline_ = Clock::now() + write_timeout_;
    }
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::send(fd_, ptr + done, size - done, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        done += static_cast<size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (!(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
                   WaitFor(fd_, POLLOUT, write_deadline_))) {
        return -1;  // the client left, or does not read: the connection is cut off
      }
    }
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) a.ss_family = AF_UNSPEC;
    IpAndPort(a, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) a.ss_family = AF_UNSPEC;
    IpAndPort(a, ip, port);
  }
  int socket() const override { return fd_; }

 private:
  const int fd_;
  const Clock::time_point read_deadline_;
  const std::chrono::milliseconds write_timeout_;
  const size_t max_read_;
  char buffer_[4096];
  size_t pos_ = 0, end_ = 0, read_ = 0;
  bool timed_out_ = false, too_large_ = false;
  bool write_started_ = false;
  Clock::time_point write_deadline_;
};

// How the connection a worker is about to serve came in; read by process_and_close_socket, which
// cpp-httplib calls with nothing but the socket.
struct Admission {
  Clock::time_point accepted_at;
  bool overloaded = false;
};
thread_local const Admission* admission = nullptr;
// The connection the calling thread serves, for the error handler.
thread_local const ConnectionStream* serving = nullptr;

// cpp-httplib's thread pool queues without bound and serves in the order of arrival; this one
// admits max_waiting connections and has the one after answered 503 on the accepting thread, so
// a flood costs neither memory nor the time of the connections behind it.
class WorkerPool final : public httplib::TaskQueue {
 public:
  WorkerPool(int threads, size_t max_waiting) : max_waiting_(max_waiting) {
    for (int i = 0; i < std::max(1, threads); ++i) workers_.emplace_back([this] { Work(); });
  }
  ~WorkerPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (waiting_.size() < max_waiting_) {
        waiting_.push_back({Clock::now(), std::move(fn)});
        wake_.notify_one();
        return;
      }
    }
    const Admission refused{Clock::now(), true};
    admission = &refused;
    fn();
    admission = nullptr;
  }

  // Serves what is queued (each connection bounded by its deadline), then ends the workers.
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  struct Waiting {
    Clock::time_point accepted_at;
    std::function<void()> serve;
  };

  void Work() {
    for (;;) {
      Waiting next;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
        if (waiting_.empty()) return;
        next = std::move(waiting_.front());
        waiting_.pop_front();
      }
      const Admission admitted{next.accepted_at, false};
      admission = &admitted;
      next.serve();
      admission = nullptr;
    }
  }

  const size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Waiting> waiting_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// Closes the connection. When an answer went out while the client may still be sending (a
// request cut short at max_request_bytes, or pipelined bytes), it half-closes first and reads
// what comes for a moment: closing with unread bytes makes the kernel reset the connection, and
// the reset can reach the client before it has read the answer.
void Close(int fd, bool answered, bool cut_short) {
  int unread = 0;
  if (answered && (cut_short || (::ioctl(fd, FIONREAD, &unread) == 0 && unread > 0))) {
    ::shutdown(fd, SHUT_WR);
    const auto until = Clock::now() + std::chrono::milliseconds(200);
    char sink[4096];
    size_t drained = 0;
    while (drained < 256 * 1024 && WaitFor(fd, POLLIN, until)) {
      const ssize_t n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
      if (n > 0)
        drained += static_cast<size_t>(n);
      else if (!(n < 0 && errno == EINTR))
        break;
    }
  }
  ::close(fd);
}

const char* ErrorText(int status) {
  switch (status) {
    case 400:
      return "bad request\n";
    case 404:
      return "not found\n";
    case 408:
      return "request timeout: the request did not arrive in time\n";
    case 413:
    case 431:
      return "request too large\n";
    case 414:
      return "request line too long\n";
    default:
      return "error\n";
  }
}

}  // namespace

class Listener::Server final : public httplib::Server {
 public:
  Server(Render render, Ready ready, const Limits& limits)
      : render_(std::move(render)), ready_(std::move(ready)), limits_(limits) {
    Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      // Every page says which binary answers and how its process fares (its object-store
      // requests included), whichever command serves.
      res.set_content(render_() + metrics::RenderProcessMetrics() +
                          metrics::S3RequestMetrics::Process().Render(),
                      "text/plain; version=0.0.4; charset=utf-8");
    });
    Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok\n", "text/plain");
    });
    Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
      std::string why;
      const bool ok = ready_(&why);
      res.status = ok ? 200 : 503;
      res.set_content((ok ? "ready: " : "not ready: ") + why + "\n", "text/plain");
    });
    set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      if (req.method == "GET" || req.method == "HEAD") return HandlerResponse::Unhandled;
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      res.set_content("GET only\n", "text/plain");
      return HandlerResponse::Handled;
    });
    // Runs for every status >= 400, after the handlers: it names what a 400 really was and gives a
    // body to the library's bodiless errors.
    set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.status == 400 && serving != nullptr) {
        if (serving->too_large())
          res.status = 431;
        else if (serving->timed_out())
          res.status = 408;
      }
      if (res.body.empty()) res.set_content(ErrorText(res.status), "text/plain");
    });
    // The library's own knobs, set to the same bounds: its socket timeouts (our stream does not
    // rely on them), no keep-alive, no body past the request's limit, and our workers.
    set_read_timeout(limits_.request_timeout);
    set_write_timeout(limits_.write_timeout);
    set_keep_alive_max_count(1);
    set_payload_max_length(limits_.max_request_bytes);
    new_task_queue = [this] {
      return new WorkerPool(limits_.threads, static_cast<size_t>(std::max(0, limits_.max_waiting)));
    };
  }

  // Serves on `fd`, already bound and listening, until stop().
  bool ListenOn(int fd) {
    svr_sock_ = fd;
    return listen_after_bind();
  }

  void Serve(int fd, Clock::time_point accepted_at) {
    ConnectionStream stream(fd, accepted_at + limits_.request_timeout, limits_.write_timeout,
                            limits_.max_request_bytes);
    serving = &stream;
    bool closed = true;
    process_request(stream, /*close_connection=*/true, closed, nullptr);
    serving = nullptr;
    Close(fd, stream.answered(), stream.too_large());
  }

 private:
  // cpp-httplib hands each accepted socket here, on a worker (or, when the pool is full, on the
  // accepting thread, with admission->overloaded). It is a private virtual of httplib::Server,
  // overridden as the library's own SSLServer does; with process_request (protected) it lets the
  // library parse and answer over our stream instead of its own.
  bool process_and_close_socket(int fd) override {
    if (admission != nullptr && admission->overloaded) {
      // Not through the library's writer: that needs a parsed request, and the accepting thread
      // must not wait for one.
      static constexpr char kBusy[] =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
          "Connection: close\r\n\r\nbusy\n";
      (void)!::send(fd, kBusy, sizeof kBusy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
      return true;
    }
    Serve(fd, admission != nullptr ? admission->accepted_at : Clock::now());
    return true;
  }

  Render render_;
  Ready ready_;
  const Limits limits_;
};

Listener::Listener(Render render, Ready ready, Limits limits)
    : server_(std::make_unique<Server>(std::move(render), std::move(ready), limits)) {}

Listener::Listener(const metrics::DrainMetrics& drain, Limits limits)
    : Listener([&drain] { return drain.Render(NowUnixNs()); },
                   [&drain](std::string* why) {
                     *why = drain.Readiness();
                     return drain.ready();
                   },
                   limits) {}

Listener::~Listener() { Stop(); }

Status Listener::Start(const std::string& address) {
  if (thread_.joinable()) return Status::Refuse("the metrics listener is already listening");
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return Status::Refuse("--metrics-listen \"" + address + "\": want host:port or :port");
  }
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    return Status::Refuse("--metrics-listen \"" + address + "\": the port must be 0 to 65535");
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    return Status::Refuse("--metrics-listen \"" + address + "\": " + ::gai_strerror(rc));
  }
  int listening = -1;
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      sockaddr_storage bound{};
      socklen_t len = sizeof bound;
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
      std::string ip;
      IpAndPort(bound, ip, port_);
      listening = fd;
      break;
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  if (listening < 0) return Status::Refuse("--metrics-listen \"" + address + "\": " + last_error);
  auto returned = std::make_shared<std::atomic<bool>>(false);
  thread_ = std::thread([this, listening, returned] {
    server_->ListenOn(listening);
    *returned = true;
  });
  // stop() is a no-op until the accept loop runs, so Stop() right after Start() must find it
  // running.
  const auto give_up = Clock::now() + std::chrono::seconds(10);
  while (!server_->is_running() && !*returned && Clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::OK();
}

void Listener::Stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

void Listener::ServeConnection(int fd) { server_->Serve(fd, Clock::now()); }

}  // namespace sinkd::http
