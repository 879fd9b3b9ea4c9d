// The NATS flags of every command that connects (drain, tail, provision): the URL and the
// authentication beyond it, each bound to its [nats] key of the configuration file.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/config_flags.h"
#include "jetstream/connection.h"

namespace sinkd::cli {

// Adds --nats-url (its default DefaultNatsUrl(), so NATS_URL), --nats-creds, --nats-nkey-seed,
// --nats-tls-ca, --nats-tls-cert, --nats-tls-key and --nats-tls, bound to [nats], straight into
// the connection options they name (the caller sets the rest: name, timeout, reconnects).
void AddNatsFlags(CLI::App& cmd, jetstream::ConnectOptions& options, ConfigFlags& config);

}  // namespace sinkd::cli
