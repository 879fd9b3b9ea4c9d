#include "jetstream/connection.h"

#include <cstdlib>

namespace sinkd::jetstream {

std::string DefaultNatsUrl() {
  const char* env = std::getenv("NATS_URL");
  return env != nullptr && *env != '\0' ? env : "nats://127.0.0.1:4222";
}

Result<std::unique_ptr<Connection>> Connection::Connect(const ConnectOptions& options) {
  std::unique_ptr<Connection> c(new Connection());
  c->url_ = options.url;
  c->api_wait_ms_ = options.timeout.count();
  natsOptions* raw = nullptr;
  natsStatus s = natsOptions_Create(&raw);
  c->opts_.reset(raw);
  const std::string where = "connect to NATS at " + options.url;
  if (s == NATS_OK) s = natsOptions_SetURL(raw, options.url.c_str());
  if (s == NATS_OK) s = natsOptions_SetName(raw, options.name.c_str());
  if (s == NATS_OK) s = natsOptions_SetTimeout(raw, options.timeout.count());
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(raw, options.reconnect_forever ? -1 : 0);
  if (s == NATS_OK) s = natsOptions_SetAllowReconnect(raw, options.reconnect_forever);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(raw, 250);
  // A broker restarted on the same port is the common case; another URL it gossips may not be
  // reachable from here.
  if (s == NATS_OK) s = natsOptions_SetIgnoreDiscoveredServers(raw, true);
  if (s != NATS_OK) return FromNats(s, where);

  natsConnection* nc = nullptr;
  s = natsConnection_Connect(&nc, raw);
  if (s != NATS_OK) return FromNats(s, where).As(Status::Retry);
  c->nc_.reset(nc);
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = options.timeout.count();
  jsCtx* js = nullptr;
  s = natsConnection_JetStream(&js, nc, &jo);
  if (s != NATS_OK) return FromNats(s, "JetStream context on " + options.url);
  c->js_.reset(js);
  return c;
}

Connection::~Connection() {
  js_.reset();
  if (nc_) natsConnection_Close(nc_.get());
  nc_.reset();
}

// Asked of the connection rather than tracked through disconnected/reconnected callbacks: libnats
// runs those on its own thread, possibly after this object is gone.
bool Connection::connected() const {
  return natsConnection_Status(nc_.get()) == NATS_CONN_STATUS_CONNECTED;
}

Status Connection::FlushPending(std::chrono::milliseconds timeout) {
  return FromNats(natsConnection_FlushTimeout(nc_.get(), timeout.count()), "flush to NATS");
}

}  // namespace sinkd::jetstream
