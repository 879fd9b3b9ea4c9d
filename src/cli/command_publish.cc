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
#include "contract/delimited.h"
#include "jetstream/connection.h"

namespace sinkd::cli {

namespace {

struct PublishFlags {
  std::string nats_url = jetstream::DefaultNatsUrl();
  std::vector<std::string> files;
  int max_pending = 256;
};

// One protobuf varint at `p`; false when it runs past `end`.
bool Varint(const char*& p, const char* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; p < end && shift < 64; shift += 7) {
    const uint8_t b = static_cast<uint8_t>(*p++);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// Calls `f(field, bytes)` for each length-delimited field of a message; stops at anything odd.
template <typename F>
void Fields(std::string_view m, F&& f) {
  const char* p = m.data();
  const char* end = p + m.size();
  while (p < end) {
    uint64_t tag = 0, v = 0;
    if (!Varint(p, end, tag)) return;
    switch (tag & 7) {
      case 0: if (!Varint(p, end, v)) return; break;
      case 1: p += 8; break;
      case 5: p += 4; break;
      case 2:
        if (!Varint(p, end, v) || v > static_cast<uint64_t>(end - p)) return;
        if (!f(static_cast<uint32_t>(tag >> 3), std::string_view(p, v))) return;
        p += v;
        break;
      default: return;
    }
  }
}

// A subject token as garm makes one: empty → "_"; '.', '*', '>', space, tab, CR, LF → '_'.
std::string Token(std::string_view s) {
  if (s.empty()) return "_";
  std::string t(s);
  for (char& c : t) {
    if (c == '.' || c == '*' || c == '>' || c == ' ' || c == '\t' || c == '\n' || c == '\r') c = '_';
  }
  return t;
}

std::string SubjectFor(const std::string& origin, std::string_view message) {
  std::string_view event = message;
  if (origin == "ledger") {
    event = {};
    Fields(message, [&](uint32_t field, std::string_view bytes) {
      if (field != 1) return true;
      event = bytes;
      return false;
    });
  }
  std::string_view tenant, app;
  Fields(event, [&](uint32_t field, std::string_view bytes) {
    if (field == 10) tenant = bytes;
    if (field == 11) app = bytes;
    return true;
  });
  return "garm.v1." + origin + "." + Token(tenant) + "." + Token(app);
}

struct Failures {
  std::atomic<uint64_t> count{0};
  std::string first;
};

void OnPublishError(jsCtx*, jsPubAckErr* pae, void* closure) {
  auto* failures = static_cast<Failures*>(closure);
  if (failures->count.fetch_add(1) == 0 && pae->ErrText != nullptr) failures->first = pae->ErrText;
}

Status RunPublish(const PublishFlags& flags, const std::string& origin) {
  if (flags.files.empty()) return Status::Refuse("publish needs at least one FILE");
  jetstream::ConnectOptions connect;
  connect.url = flags.nats_url;
  connect.name = "sinkd publish " + origin;
  connect.reconnect_forever = false;
  SINKD_ASSIGN_OR_RETURN(auto connection, jetstream::Connection::Connect(connect));
  Failures failures;
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = 30000;
  jo.PublishAsync.MaxPending = flags.max_pending;
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
              origin.c_str());
  return Status::OK();
}

void AddPublishOrigin(CLI::App& parent, Invocation& invocation, const std::string& origin,
                      const std::string& description) {
  auto flags = std::make_shared<PublishFlags>();
  CLI::App* cmd = parent.add_subcommand(origin, description);
  cmd->add_option("--nats-url", flags->nats_url, "NATS server URL (env NATS_URL)")
      ->capture_default_str();
  cmd->add_option("--max-pending", flags->max_pending, "publishes in flight before waiting")
      ->capture_default_str();
  cmd->add_option("files", flags->files, "varint-delimited wire messages (sinkd generate -o)");
  cmd->callback([flags, &invocation, origin] {
    invocation.run = [flags, origin] { return RunPublish(*flags, origin); };
  });
}

}  // namespace

void AddPublishCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(
      root, "publish", "development: publish recorded wire messages to GARM_LEDGER or GARM_AUDIT");
  AddPublishOrigin(*parent, invocation, "ledger", "publish garm.ledger.v1.Batch messages");
  AddPublishOrigin(*parent, invocation, "audit", "publish garm.ledger.v1.Event messages");
}

}  // namespace sinkd::cli
