// sinkd publish ledger|audit FILE...: a development publisher. Sends recorded wire messages (the
// varint-delimited files `sinkd generate` writes) to GARM_LEDGER or GARM_AUDIT, on the subject a
// garm publisher would use (garm.v1.<origin>.<tenant>.<app> of the message's first event), so the
// demo, the tests and the benchmark feed the broker what garmd would. Bad records are published as
// they are: a broker does not read payloads.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/stream_origin.h"
#include "contract/delimited.h"
#include "contract/event_scope.h"
#include "jetstream/connection.h"

namespace sinkd::cli {

namespace {

struct PublishFlags {
  LogFlags log;
  std::string nats_url = jetstream::DefaultNatsUrl();
  std::vector<std::string> files;
  int max_pending = 256;
};

// A subject token as garm makes one: empty → "_"; '.', '*', '>', space, tab, CR, LF → '_'.
std::string Token(std::string_view s) {
  if (s.empty()) return "_";
  std::string t(s);
  for (char& c : t) {
    if (c == '.' || c == '*' || c == '>' || c == ' ' || c == '\t' || c == '\n' || c == '\r') c = '_';
  }
  return t;
}

std::string SubjectFor(const StreamOrigin& origin, std::string_view message) {
  const contract::EventScope scope = contract::ScopeOf(origin.envelope, message);
  return "garm.v1." + origin.name + "." + Token(scope.tenant) + "." + Token(scope.app);
}

struct Failures {
  std::atomic<uint64_t> count{0};
  std::string first;
};

void OnPublishError(jsCtx*, jsPubAckErr* pae, void* closure) {
  auto* failures = static_cast<Failures*>(closure);
  if (failures->count.fetch_add(1) == 0 && pae->ErrText != nullptr) failures->first = pae->ErrText;
}

Status RunPublish(const PublishFlags& flags, const StreamOrigin& origin, Invocation& invocation) {
  if (flags.files.empty()) {
    return invocation.Usage(Status::Refuse("publish needs at least one FILE"));
  }
  jetstream::ConnectOptions connect;
  connect.url = flags.nats_url;
  connect.name = "sinkd publish " + origin.name;
  connect.reconnect_forever = false;
  SINKD_ASSIGN_OR_RETURN(auto connection, jetstream::Connection::Connect(connect));
  Failures failures;
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = 30000;
  jo.PublishAsync.MaxPending = flags.max_pending;
  // With max_pending in flight, the next publish waits for an ack up to StallWait (libnats'
  // default 200 ms) and then fails: an R3 stream on a loaded machine, or one electing a leader,
  // acks slower than that. Wait as long as an ack may take instead.
  jo.PublishAsync.StallWait = jo.Wait;
  jo.PublishAsync.ErrHandler = &OnPublishError;
  jo.PublishAsync.ErrHandlerClosure = &failures;
  jsCtx* raw = nullptr;
  natsStatus s = natsConnection_JetStream(&raw, connection->nc(), &jo);
  jetstream::JsPtr js(raw);
  if (s != NATS_OK) return jetstream::FromNats(s, "JetStream context");
  uint64_t messages = 0, bytes = 0;
  for (const std::string& name : flags.files) {
    int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::Refuse("publish " + name + ": " + std::strerror(errno));
    contract::DelimitedStreamReader reader(fd);
    Status status;
    while (true) {
      auto next = reader.Next();
      if (!next.ok()) {
        status = next.status().WithContext("publish " + name);
        break;
      }
      if (!next->has_value()) break;
      const std::string_view message = **next;
      const std::string subject = SubjectFor(origin, message);
      s = js_PublishAsync(js.get(), subject.c_str(), message.data(), static_cast<int>(message.size()),
                          nullptr);
      if (s != NATS_OK) {
        status = jetstream::FromNats(s, "publish to " + subject);
        break;
      }
      ++messages;
      bytes += message.size();
    }
    ::close(fd);
    SINKD_RETURN_IF_ERROR(status);
  }
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = 60000;
  s = js_PublishAsyncComplete(js.get(), &po);
  if (s != NATS_OK) return jetstream::FromNats(s, "waiting for publish acks");
  if (failures.count > 0) {
    return Status::Retry(std::to_string(failures.count.load()) + " of " + std::to_string(messages) +
                         " publishes failed; first: " + failures.first);
  }
  std::printf("published %llu messages (%llu bytes) to garm.v1.%s.>\n",
              static_cast<unsigned long long>(messages), static_cast<unsigned long long>(bytes),
              origin.name.c_str());
  return Status::OK();
}

void AddPublishOrigin(CLI::App& parent, Invocation& invocation, const StreamOrigin& origin,
                      const std::string& description) {
  auto flags = std::make_shared<PublishFlags>();
  CLI::App* cmd = parent.add_subcommand(origin.name, description);
  cmd->add_option("--nats-url", flags->nats_url, "NATS server URL (env NATS_URL)")
      ->capture_default_str();
  cmd->add_option("--max-pending", flags->max_pending, "publishes in flight before waiting")
      ->capture_default_str();
  cmd->add_option("files", flags->files, "varint-delimited wire messages (sinkd generate -o)");
  flags->log.Add(*cmd);
  cmd->callback([flags, &invocation, origin] {
    invocation.run = [flags, origin, &invocation] {
      SINKD_RETURN_IF_ERROR(flags->log.Apply());
      return RunPublish(*flags, origin, invocation);
    };
  });
}

}  // namespace

void AddPublishCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(
      root, "publish", "development: publish recorded wire messages to GARM_LEDGER or GARM_AUDIT");
  const auto origins = StreamOrigins();
  AddPublishOrigin(*parent, invocation, origins[0], "publish garm.ledger.v1.Batch messages");
  AddPublishOrigin(*parent, invocation, origins[1], "publish garm.ledger.v1.Event messages");
}

}  // namespace sinkd::cli
