// Test-side nkeys and JWTs, made with OpenSSL as nsc would: an ed25519 key in nkey encoding, a
// JWT signed by an issuer's nkey, and a .creds file. Lets a test configure nats-server with nkey
// users or with an operator, an account and a user, without the nsc tool.
#pragma once

#include <openssl/evp.h>

#include <ctime>
#include <string>

#include <gtest/gtest.h>

#include "jetstream/nkey.h"

namespace sinkd::testing {

struct TestNkey {
  uint8_t type = jetstream::kNkeyUser;
  jetstream::Ed25519Raw seed{}, pub{};
  std::string Seed() const { return jetstream::EncodeNkeySeed(type, seed); }
  std::string Public() const { return jetstream::EncodeNkeyPublic(type, pub); }
};

inline TestNkey NewNkey(uint8_t type = jetstream::kNkeyUser) {
  TestNkey k;
  k.type = type;
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  EXPECT_EQ(EVP_PKEY_keygen_init(ctx), 1);
  EXPECT_EQ(EVP_PKEY_keygen(ctx, &key), 1);
  EVP_PKEY_CTX_free(ctx);
  size_t len = 32;
  EXPECT_EQ(EVP_PKEY_get_raw_private_key(key, k.seed.data(), &len), 1);
  len = 32;
  EXPECT_EQ(EVP_PKEY_get_raw_public_key(key, k.pub.data(), &len), 1);
  EVP_PKEY_free(key);
  return k;
}

inline std::string Base64Url(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

inline std::string Ed25519Sign(const TestNkey& key, const std::string& message) {
  auto sig = jetstream::SignWithNkeySeed(key.Seed(), message);
  EXPECT_TRUE(sig.ok()) << sig.status().ToString();
  return sig.ok() ? std::string(sig->begin(), sig->end()) : std::string();
}

// A NATS JWT for `subject`, issued (signed) by `issuer`; `nats` is the claims' "nats" object.
inline std::string NatsJwt(const TestNkey& issuer, const std::string& subject,
                           const std::string& name, const std::string& nats) {
  static int serial = 0;
  const std::string jti = Base64Url(subject.substr(0, 20) + std::to_string(++serial) +
                                    std::to_string(std::time(nullptr)));
  const std::string claims = "{\"jti\":\"" + jti + "\",\"iat\":" +
                             std::to_string(std::time(nullptr)) + ",\"iss\":\"" +
                             issuer.Public() + "\",\"name\":\"" + name + "\",\"sub\":\"" + subject +
                             "\",\"nats\":" + nats + "}";
  const std::string signing =
      Base64Url(R"({"typ":"JWT","alg":"ed25519-nkey"})") + "." + Base64Url(claims);
  return signing + "." + Base64Url(Ed25519Sign(issuer, signing));
}

inline std::string CredsFile(const std::string& user_jwt, const TestNkey& user) {
  return "-----BEGIN NATS USER JWT-----\n" + user_jwt +
         "\n------END NATS USER JWT------\n\n"
         "************************* IMPORTANT *************************\n"
         "NKEY Seed printed below can be used to sign and prove identity.\n"
         "NKEYs are sensitive and should be treated as secrets.\n\n"
         "-----BEGIN USER NKEY SEED-----\n" +
         user.Seed() + "\n------END USER NKEY SEED------\n\n"
         "*************************************************************\n";
}

// An operator-mode nats-server configuration trusting one account, and the creds of a user of
// that account.
struct OperatorSetup {
  std::string server_config;
  std::string creds;
};

inline OperatorSetup MakeOperatorSetup() {
  const TestNkey op = NewNkey(jetstream::kNkeyOperator);
  const TestNkey account = NewNkey(jetstream::kNkeyAccount);
  const TestNkey user = NewNkey(jetstream::kNkeyUser);
  // JetStream (nats-server -js) in operator mode needs a system account.
  const TestNkey system = NewNkey(jetstream::kNkeyAccount);
  const std::string system_jwt =
      NatsJwt(op, system.Public(), "SYS",
              R"({"limits":{"subs":-1,"data":-1,"payload":-1,"imports":-1,"exports":-1,)"
              R"("wildcards":true,"conn":-1,"leaf":-1},"type":"account","version":2})");
  const std::string op_jwt =
      NatsJwt(op, op.Public(), "sinkd-test-operator", R"({"type":"operator","version":2})");
  const std::string account_jwt = NatsJwt(
      op, account.Public(), "sinkd-test-account",
      R"({"limits":{"subs":-1,"data":-1,"payload":-1,"imports":-1,"exports":-1,"wildcards":true,)"
      R"("conn":-1,"leaf":-1,"mem_storage":-1,"disk_storage":-1,"streams":-1,"consumer":-1},)"
      R"("default_permissions":{"pub":{},"sub":{}},"type":"account","version":2})");
  const std::string user_jwt =
      NatsJwt(account, user.Public(), "sinkd",
              R"({"pub":{},"sub":{},"subs":-1,"data":-1,"payload":-1,"type":"user","version":2})");
  OperatorSetup s;
  s.server_config = "operator: \"" + op_jwt + "\"\nsystem_account: " + system.Public() +
                    "\nresolver: MEMORY\nresolver_preload: {\n  " + account.Public() + ": \"" +
                    account_jwt + "\"\n  " + system.Public() + ": \"" + system_jwt + "\"\n}\n";
  s.creds = CredsFile(user_jwt, user);
  return s;
}

}  // namespace sinkd::testing
