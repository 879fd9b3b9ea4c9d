// NATS authentication beyond the URL against a real nats-server configured for it: an nkey user
// (the public key derived from the seed file), TLS verified with a CA, and a client certificate
// the server demands. Each of those tests also shows the server refusing the connection without
// the setting. The rest pin NonceSigner, which stands in for libnats's signing (libnats 3.4.1 drops
// a signature that begins with a zero byte), and the .creds file checks made before connecting.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdlib>
#include <memory>

#include "jetstream/connection.h"
#include "jetstream/nkey.h"
#include "jetstream/nkey_test_support.h"
#include "jetstream/nonce_signer.h"
#include "support/nats_server.h"

namespace sinkd::jetstream {
namespace {

using testing::NatsServer;
using testing::TempDir;
using testing::TlsFiles;

struct UserNkey {
  std::string seed;
  std::string public_key;
};

UserNkey NewUserNkey() {
  const testing::TestNkey k = testing::NewNkey(kNkeyUser);
  return {k.Seed(), k.Public()};
}

ConnectOptions OneShot(const std::string& url) {
  ConnectOptions o;
  o.url = url;
  o.reconnect_forever = false;
  o.timeout = std::chrono::seconds(10);
  return o;
}

TEST(NatsAuth, AUserSeedDerivesTheUserPublicKeyAndAMangledSeedIsRefusedWithoutQuotingIt) {
  const UserNkey user = NewUserNkey();
  EXPECT_EQ(user.seed.substr(0, 2), "SU");
  EXPECT_EQ(user.public_key[0], 'U');
  auto pub = NkeyPublicFromSeed(user.seed);
  ASSERT_TRUE(pub.ok()) << pub.status().ToString();
  EXPECT_EQ(*pub, user.public_key);
  std::string mangled = user.seed;
  mangled[10] = mangled[10] == 'A' ? 'B' : 'A';
  auto bad = NkeyPublicFromSeed(mangled);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find(mangled), std::string::npos);
}

TEST(NatsAuth, AnNkeyUserConnectsWithItsSeedFileAndIsRefusedWithoutIt) {
  const UserNkey user = NewUserNkey();
  NatsServer server("authorization {\n  users = [\n    {nkey: \"" + user.public_key + "\"}\n  ]\n}\n");
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir dir;
  testing::WriteFile(dir / "sinkd.nk", user.seed + "\n");

  ConnectOptions with = OneShot(server.url());
  with.nkey_seed_file = (dir / "sinkd.nk").string();
  auto c = Connection::Connect(with);
  ASSERT_TRUE(c.ok()) << c.status().ToString() << "\n" << server.log();
  EXPECT_TRUE((*c)->connected());

  auto without = Connection::Connect(OneShot(server.url()));
  ASSERT_FALSE(without.ok());
  EXPECT_NE(without.status().message().find("uthoriz"), std::string::npos)
      << without.status().ToString();

  const UserNkey stranger = NewUserNkey();
  testing::WriteFile(dir / "other.nk", stranger.seed + "\n");
  ConnectOptions wrong = OneShot(server.url());
  wrong.nkey_seed_file = (dir / "other.nk").string();
  EXPECT_FALSE(Connection::Connect(wrong).ok());
}

TEST(NatsAuth, ACredsFileConnectsToAnOperatorModeServerAndAStrangerIsRefused) {
  const testing::OperatorSetup setup = testing::MakeOperatorSetup();
  NatsServer server(setup.server_config);
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir dir;
  testing::WriteFile(dir / "sinkd.creds", setup.creds);
  ConnectOptions with = OneShot(server.url());
  with.creds_file = (dir / "sinkd.creds").string();
  auto c = Connection::Connect(with);
  ASSERT_TRUE(c.ok()) << c.status().ToString() << "\n" << server.log();
  EXPECT_TRUE((*c)->connected());

  EXPECT_FALSE(Connection::Connect(OneShot(server.url())).ok());
  // A user of an account the server does not trust.
  const testing::OperatorSetup other = testing::MakeOperatorSetup();
  testing::WriteFile(dir / "other.creds", other.creds);
  ConnectOptions stranger = OneShot(server.url());
  stranger.creds_file = (dir / "other.creds").string();
  EXPECT_FALSE(Connection::Connect(stranger).ok());
}

bool VerifiesWith(const testing::TestNkey& key, const std::string& message,
                  const unsigned char* sig, int length) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pub(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.pub.data(), key.pub.size()),
      &EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  return EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pub.get()) == 1 &&
         EVP_DigestVerify(ctx.get(), sig, static_cast<size_t>(length),
                          reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

// libnats 3.4.1 would send a signature whose first byte is zero as no signature at all; the
// signer refuses it (so the connection attempt fails here, not at the server) and remembers it.
TEST(NatsAuth, ASignatureBeginningWithAZeroByteIsRefusedAndRememberedAnyOtherIsHandedOver) {
  const testing::TestNkey user = testing::NewNkey(kNkeyUser);
  TempDir dir;
  testing::WriteFile(dir / "sinkd.nk", user.Seed() + "\n");
  std::string zero_nonce, plain_nonce;
  for (int i = 0; i < 100000 && (zero_nonce.empty() || plain_nonce.empty()); ++i) {
    const std::string nonce = "nonce-" + std::to_string(i);
    auto sig = SignWithNkeySeed(user.Seed(), nonce);
    ASSERT_TRUE(sig.ok()) << sig.status().ToString();
    ((*sig)[0] == 0 ? zero_nonce : plain_nonce) = nonce;
  }
  ASSERT_FALSE(zero_nonce.empty());
  ASSERT_FALSE(plain_nonce.empty());

  NonceSigner signer((dir / "sinkd.nk").string(), "");
  char* error = nullptr;
  unsigned char* sig = nullptr;
  int length = 0;
  EXPECT_EQ(NonceSigner::Sign(&error, &sig, &length, zero_nonce.c_str(), &signer), NATS_ERR);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("zero byte"), std::string::npos) << error;
  std::free(error);
  EXPECT_EQ(sig, nullptr);
  EXPECT_TRUE(signer.TakeUnsendable());
  EXPECT_FALSE(signer.TakeUnsendable());

  error = nullptr;
  ASSERT_EQ(NonceSigner::Sign(&error, &sig, &length, plain_nonce.c_str(), &signer), NATS_OK)
      << (error != nullptr ? error : "");
  ASSERT_NE(sig, nullptr);
  EXPECT_EQ(length, 64);
  EXPECT_TRUE(VerifiesWith(user, plain_nonce, sig, length));
  std::free(sig);
  EXPECT_FALSE(signer.TakeUnsendable());
}

// What the signer is for, end to end against real servers: with libnats's own handlers one nkey
// or .creds connection in 256 is refused as an authorization violation. Connects until each kind
// has needed a second connection at least once (about 256 each; 4,000 each misses with
// probability 2e-7).
TEST(NatsAuth, EveryNkeyAndCredsConnectSucceedsThoughOneSignatureIn256CannotBeSent) {
  const UserNkey user = NewUserNkey();
  NatsServer nkey_server("authorization {\n  users = [\n    {nkey: \"" + user.public_key +
                         "\"}\n  ]\n}\n");
  ASSERT_TRUE(nkey_server.ok()) << nkey_server.error();
  const testing::OperatorSetup setup = testing::MakeOperatorSetup();
  NatsServer creds_server(setup.server_config);
  ASSERT_TRUE(creds_server.ok()) << creds_server.error();
  TempDir dir;
  testing::WriteFile(dir / "sinkd.nk", user.seed + "\n");
  testing::WriteFile(dir / "sinkd.creds", setup.creds);
  ConnectOptions nkey = OneShot(nkey_server.url());
  nkey.nkey_seed_file = (dir / "sinkd.nk").string();
  ConnectOptions creds = OneShot(creds_server.url());
  creds.creds_file = (dir / "sinkd.creds").string();

  int nkey_redone = 0, creds_redone = 0, connects = 0;
  for (int i = 0; i < 4000 && (nkey_redone == 0 || creds_redone == 0); ++i) {
    for (auto [options, redone] : {std::pair{&nkey, &nkey_redone}, {&creds, &creds_redone}}) {
      auto c = Connection::Connect(*options);
      ASSERT_TRUE(c.ok()) << "connect " << i << " to " << options->url << ": "
                          << c.status().ToString();
      connects += (*c)->connects();
      if ((*c)->connects() > 1) ++*redone;
    }
  }
  EXPECT_GT(nkey_redone, 0) << connects << " connections";
  EXPECT_GT(creds_redone, 0) << connects << " connections";
}

TEST(NatsAuth, AMissingOrJwtlessCredsFileIsRefusedBeforeConnectingNamingTheFile) {
  TempDir dir;
  const testing::TestNkey user = testing::NewNkey(kNkeyUser);
  testing::WriteFile(dir / "seed-only.creds", "-----BEGIN USER NKEY SEED-----\n" + user.Seed() +
                                                  "\n------END USER NKEY SEED------\n");
  for (const std::string name : {"absent.creds", "seed-only.creds"}) {
    ConnectOptions o = OneShot("nats://127.0.0.1:1");
    o.creds_file = (dir / name).string();
    auto c = Connection::Connect(o);
    ASSERT_FALSE(c.ok()) << name;
    EXPECT_TRUE(c.status().IsRefuse()) << c.status().ToString();
    EXPECT_NE(c.status().message().find(o.creds_file), std::string::npos) << c.status().ToString();
    EXPECT_EQ(c.status().message().find(user.Seed()), std::string::npos);
  }
}

TEST(NatsAuth, TlsWithACaAndAClientCertificateConnectsAndEachMissingPieceIsRefused) {
  TempDir certs;
  TlsFiles tls;
  ASSERT_TRUE(testing::MakeTlsFiles(certs.path(), &tls));
  NatsServer server("tls {\n  cert_file: \"" + tls.server_cert.string() + "\"\n  key_file: \"" +
                    tls.server_key.string() + "\"\n  ca_file: \"" + tls.ca.string() +
                    "\"\n  verify: true\n  timeout: 5\n}\n");
  ASSERT_TRUE(server.ok()) << server.error();

  ConnectOptions full = OneShot(server.url());
  full.tls_ca = tls.ca.string();
  full.tls_cert = tls.client_cert.string();
  full.tls_key = tls.client_key.string();
  auto c = Connection::Connect(full);
  ASSERT_TRUE(c.ok()) << c.status().ToString() << "\n" << server.log();
  EXPECT_TRUE((*c)->connected());

  // No TLS at all: the server wants it.
  EXPECT_FALSE(Connection::Connect(OneShot(server.url())).ok());
  // No client certificate: verify: true refuses the handshake.
  ConnectOptions no_cert = OneShot(server.url());
  no_cert.tls_ca = tls.ca.string();
  EXPECT_FALSE(Connection::Connect(no_cert).ok());
  // No CA: the server's certificate is not trusted.
  ConnectOptions no_ca = OneShot(server.url());
  no_ca.tls_cert = tls.client_cert.string();
  no_ca.tls_key = tls.client_key.string();
  EXPECT_FALSE(Connection::Connect(no_ca).ok());
  // A certificate without its key is refused before any connection.
  ConnectOptions half = OneShot(server.url());
  half.tls_cert = tls.client_cert.string();
  auto refused = Connection::Connect(half);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("together"), std::string::npos);
}

}  // namespace
}  // namespace sinkd::jetstream
