// The NATS flags of every command that connects (drain, tail, provision): the URL and the
// authentication beyond it, each bound to its [nats] key of the configuration file.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/config_flags.h"
#include "jetstream/connection.h"

namespace sinkd::cli {

struct NatsFlags {
  std::string url = jetstream::DefaultNatsUrl();  // env NATS_URL
  std::string creds_file;
  std::string nkey_seed_file;
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  bool tls_required = false;
};

// Adds --nats-url, --nats-creds, --nats-nkey-seed, --nats-tls-ca, --nats-tls-cert, --nats-tls-key
// and --nats-tls, and binds them to [nats].
void AddNatsFlags(CLI::App& cmd, NatsFlags& flags, ConfigFlags& config);

// The connection options the flags name (url and authentication; the caller sets the rest).
jetstream::ConnectOptions ConnectOptionsFrom(const NatsFlags& flags);

}  // namespace sinkd::cli
