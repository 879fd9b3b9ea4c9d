// NATS authentication beyond the URL against a real nats-server configured for it: an nkey user
// (the public key derived from the seed file), TLS verified with a CA, and a client certificate
// the server demands. Each test also shows the server refusing the connection without the setting.
#include <gtest/gtest.h>

#include "jetstream/connection.h"
#include "jetstream/nkey.h"
#include "jetstream/nkey_test_support.h"
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
