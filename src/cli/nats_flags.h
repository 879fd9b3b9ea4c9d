// The NATS flags of every command that connects (drain, tail, provision, lake verify, dead): the
// server list, the authentication beyond it and how long a first connect is retried, each bound
// to its [nats] key of the configuration file.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "cli/config_flags.h"
#include "jetstream/connection.h"

namespace sinkd::cli {

// Adds --nats-url (one URL or a comma-separated list; its default DefaultNatsUrl(), so NATS_URL),
// --nats-creds, --nats-nkey-seed, --nats-tls-ca, --nats-tls-cert, --nats-tls-key, --nats-tls,
// --nats-use-discovered-servers and --connect-timeout (`connect_timeout_default` unless given),
// bound to [nats], straight into the connection options they name (the caller sets the rest:
// name, timeout, reconnects, log, stop).
void AddNatsFlags(CLI::App& cmd, jetstream::ConnectOptions& options, ConfigFlags& config,
                  const std::string& connect_timeout_default = "0");

// "forever" is jetstream::kConnectForever; else a duration ("30s", "0": try each server once).
Result<std::chrono::milliseconds> ParseConnectTimeout(const std::string& text);

// `sinkd validate`: connects once (no reconnects, a 5 s timeout) and looks up each of `streams`;
// one Status per failure, the connect's naming --nats-url (redacted), a stream's naming it.
std::vector<Status> ReachNats(jetstream::ConnectOptions options,
                              const std::vector<std::string>& streams);

}  // namespace sinkd::cli
