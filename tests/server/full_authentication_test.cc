// caching_sha2_password's full authentication without a network (auth.h, rsa_key.h): accounts
// IDENTIFIED WITH one plugin keep only what that plugin needs, a caching_sha2_password account
// keeps a salted hash on disk and its fast-path digest in memory only, the password a client
// encrypts with the server's public key (as PyMySQL and libmariadb do: XOR with the nonce,
// RSA-OAEP) comes back out, and the TLS and RSA configuration is validated at startup.
// tests/server/run_server_test.py runs the same with real clients over TLS and RSA.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/server/account_statements.h"
#include "tessera/server/auth.h"
#include "tessera/server/config.h"
#include "tessera/server/rsa_key.h"
#include "tessera/server/server.h"
#include "tessera/server/tls_context.h"
#include "tessera/server/user_store.h"

namespace tessera::server::full_authentication_test {
namespace {

// What a client does with the server's public key: (password NUL) XOR nonce, RSA-OAEP.
std::string EncryptAsAClientDoes(const std::string& public_pem, const std::string& password,
                                 const std::string& nonce) {
  std::string masked = password + '\0';
  for (size_t i = 0; i < masked.size(); ++i) masked[i] ^= nonce[i % nonce.size()];
  BIO* bio = BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  EXPECT_NE(key, nullptr);
  EVP_PKEY_CTX* context = EVP_PKEY_CTX_new(key, nullptr);
  size_t length = 0;
  const auto* in = reinterpret_cast<const unsigned char*>(masked.data());
  EVP_PKEY_encrypt_init(context);
  EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING);
  EVP_PKEY_encrypt(context, nullptr, &length, in, masked.size());
  std::string out(length, '\0');
  EVP_PKEY_encrypt(context, reinterpret_cast<unsigned char*>(out.data()), &length, in,
                   masked.size());
  out.resize(length);
  EVP_PKEY_CTX_free(context);
  EVP_PKEY_free(key);
  return out;
}

TEST(ServerFullAuthentication, AccountsKeepOnlyWhatTheirPluginNeeds) {
  const PasswordDigests any = DigestPassword("s3cret");
  EXPECT_EQ(any.native.size(), 20u);
  EXPECT_EQ(any.sha2.size(), 32u);
  EXPECT_TRUE(any.HasFastPath());
  const PasswordDigests native = DigestPassword("s3cret", AccountPlugin::kNative);
  EXPECT_EQ(native.native, any.native);
  EXPECT_TRUE(native.sha2.empty());
  EXPECT_FALSE(native.Accepts(AccountPlugin::kCachingSha2));
  // A native-only account takes no caching_sha2 proof, not even an empty one.
  EXPECT_FALSE(VerifyCachingSha2Password(native, MakeNonce(), ""));
  const PasswordDigests sha2 = DigestPassword("s3cret", AccountPlugin::kCachingSha2);
  EXPECT_TRUE(sha2.native.empty());
  EXPECT_TRUE(sha2.sha2.empty());
  EXPECT_EQ(sha2.salted.rfind("pbkdf2-sha256$20000$", 0), 0u) << sha2.salted;
  EXPECT_FALSE(sha2.HasFastPath());
  EXPECT_FALSE(VerifyNativePassword(sha2, MakeNonce(), ""));
  EXPECT_FALSE(VerifyCachingSha2Password(sha2, MakeNonce(), ""));
  EXPECT_TRUE(VerifyClearPassword(sha2, "s3cret"));
  EXPECT_FALSE(VerifyClearPassword(sha2, "s3cret "));
  EXPECT_FALSE(VerifyClearPassword(sha2, ""));
  // Salted: the same password twice gives two records.
  EXPECT_NE(DigestPassword("s3cret", AccountPlugin::kCachingSha2).salted, sha2.salted);
  // A damaged record verifies nothing.
  PasswordDigests damaged = sha2;
  damaged.salted = "pbkdf2-sha256$0$00$00";
  EXPECT_FALSE(VerifyClearPassword(damaged, "s3cret"));
  damaged.salted = "md5$1$2";
  EXPECT_FALSE(VerifyClearPassword(damaged, "s3cret"));
  // An empty password: no record, an empty password and the empty fast-path proof.
  const PasswordDigests empty = DigestPassword("", AccountPlugin::kCachingSha2);
  EXPECT_TRUE(empty.HasFastPath());
  EXPECT_TRUE(VerifyClearPassword(empty, ""));
  EXPECT_TRUE(VerifyCachingSha2Password(empty, MakeNonce(), ""));
  // A password in clear checks against the digests of the other kinds of account too.
  EXPECT_TRUE(VerifyClearPassword(any, "s3cret"));
  EXPECT_FALSE(VerifyClearPassword(any, "s3cre"));
  EXPECT_FALSE(VerifyClearPassword(any, ""));
  EXPECT_TRUE(VerifyClearPassword(native, "s3cret"));
  EXPECT_FALSE(VerifyClearPassword(native, ""));
  EXPECT_TRUE(VerifyClearPassword(DigestPassword(""), ""));
  EXPECT_EQ(PluginNamed("caching_sha2_password"), AccountPlugin::kCachingSha2);
  EXPECT_EQ(PluginNamed("client_ed25519"), std::nullopt);
}

TEST(ServerFullAuthentication, ThePasswordAClientEncryptsWithThePublicKeyComesBack) {
  auto key = RsaKey::Generate().ValueOrDie();
  EXPECT_EQ(key->public_pem().rfind("-----BEGIN PUBLIC KEY-----", 0), 0u);
  EXPECT_EQ(key->public_pem().find("PRIVATE"), std::string::npos);
  const std::string nonce = MakeNonce();
  for (const std::string password : {"pw", "a much longer password than the nonce is", ""}) {
    auto masked = key->Decrypt(EncryptAsAClientDoes(key->public_pem(), password, nonce));
    ASSERT_TRUE(masked.has_value());
    EXPECT_EQ(UnmaskPassword(*masked, nonce), password);
    // Unmasked with another connection's nonce, it is no password. The other nonce differs in
    // every byte: two random nonces share their first byte often enough that an empty password
    // (one masked byte) would unmask with both.
    std::string other_nonce = nonce;
    for (char& c : other_nonce) c = c == 'a' ? 'b' : 'a';
    EXPECT_NE(UnmaskPassword(*masked, other_nonce), password);
  }
  // Garbage, a password in clear, a ciphertext for another key: nothing decrypts.
  EXPECT_FALSE(key->Decrypt(std::string(256, 'x')).has_value());
  EXPECT_FALSE(key->Decrypt("pw").has_value());
  EXPECT_FALSE(key->Decrypt("").has_value());
  auto other = RsaKey::Generate().ValueOrDie();
  EXPECT_FALSE(key->Decrypt(EncryptAsAClientDoes(other->public_pem(), "pw", nonce)).has_value());
  // Bytes that unmask to "abc", without the NUL a password ends with. (Fixed bytes would unmask
  // to a NUL-terminated string whenever the nonce's matching byte happens to equal the last.)
  std::string no_terminator = "abc";
  for (size_t i = 0; i < no_terminator.size(); ++i) no_terminator[i] ^= nonce[i];
  EXPECT_EQ(UnmaskPassword(no_terminator, nonce), std::nullopt);
}

TEST(ServerFullAuthentication, TheFastPathDigestStaysInMemory) {
  testing::TempDirectory directory;
  ::setenv(kRootPasswordVariable, "root-pw", 1);
  auto store = UserStore::Open(directory.path().string()).ValueOrDie();
  ::unsetenv(kRootPasswordVariable);
  ASSERT_OK(store->CreateUser("carol", "c-pw", AccountPlugin::kCachingSha2, false));
  ASSERT_OK(store->CreateUser("nat", "n-pw", AccountPlugin::kNative, false));
  auto carol = *store->Find("carol");
  EXPECT_FALSE(carol.HasFastPath());
  store->RememberFastPath("carol", carol.salted, "c-pw");
  EXPECT_TRUE(store->Find("carol")->HasFastPath());
  EXPECT_EQ(store->Find("carol")->sha2, FastPathDigest("c-pw"));
  // On disk: the salted hash, no fast-path digest.
  std::ifstream users(directory.path() / "_system" / "users");
  const std::string text((std::istreambuf_iterator<char>(users)), {});
  EXPECT_EQ(text.find(ToHex(FastPathDigest("c-pw"))), std::string::npos);
  // Its native field is "--", which servers older than account plugins refuse as damage
  // (an empty field would read as an empty password there).
  EXPECT_NE(text.find("carol\t--\t\tcaching_sha2_password\tpbkdf2-sha256$"), std::string::npos);
  EXPECT_NE(text.find("nat\t" + ToHex(DigestPassword("n-pw").native) + "\t\tmysql_native_password"),
            std::string::npos);
  // A restart forgets it; the plugins are kept.
  store = UserStore::Open(directory.path().string()).ValueOrDie();
  EXPECT_FALSE(store->Find("carol")->HasFastPath());
  EXPECT_EQ(store->Find("nat")->plugin, AccountPlugin::kNative);
  // A password changed between the authentication's read and its end is not overwritten.
  carol = *store->Find("carol");
  ASSERT_OK(store->SetPassword("carol", "new", AccountPlugin::kCachingSha2));
  store->RememberFastPath("carol", carol.salted, "c-pw");
  EXPECT_FALSE(store->Find("carol")->HasFastPath());
}

TEST(ServerFullAuthentication, AlterUserWithoutWithKeepsThePlugin) {
  testing::TempDirectory directory;
  ::setenv(kRootPasswordVariable, "root-pw", 1);
  auto store = UserStore::Open(directory.path().string()).ValueOrDie();
  ::unsetenv(kRootPasswordVariable);
  auto run = [&](const std::string& text, const std::string& as) {
    auto answer = AnswerAccountStatement(text, as, "", *store);
    EXPECT_TRUE(answer.has_value()) << text;
    return answer->status();
  };
  ASSERT_OK(run("CREATE USER carol IDENTIFIED WITH caching_sha2_password BY 'a'", "root"));
  ASSERT_OK(run("ALTER USER carol IDENTIFIED BY 'b'", "carol"));  // her own password
  EXPECT_EQ(store->Find("carol")->plugin, AccountPlugin::kCachingSha2);
  EXPECT_TRUE(VerifyClearPassword(*store->Find("carol"), "b"));
  ASSERT_OK(run("SET PASSWORD = 'c'", "carol"));
  EXPECT_EQ(store->Find("carol")->plugin, AccountPlugin::kCachingSha2);
  ASSERT_OK(run("ALTER USER carol IDENTIFIED WITH mysql_native_password BY 'd'", "root"));
  EXPECT_EQ(store->Find("carol")->plugin, AccountPlugin::kNative);
  ASSERT_OK(run("CREATE USER dave IDENTIFIED BY 'e'", "root"));
  EXPECT_EQ(store->Find("dave")->plugin, AccountPlugin::kAny);
  auto unknown = run("CREATE USER x IDENTIFIED WITH client_ed25519 BY 'x'", "root");
  EXPECT_NE(unknown.message().find("Plugin 'client_ed25519' is not loaded"), std::string::npos);
}

TEST(ServerFullAuthentication, UsersFilesOfEveryVersionLoadAndDamageIsNamed) {
  testing::TempDirectory directory;
  std::filesystem::create_directories(directory.path() / "_system");
  const std::string path = (directory.path() / "_system" / "users").string();
  // Written before accounts had plugins: three fields.
  const PasswordDigests old = DigestPassword("old-pw");
  std::ofstream(path) << "root\t\t\nolga\t" << ToHex(old.native) << "\t" << ToHex(old.sha2) << "\n";
  auto store = UserStore::Open(directory.path().string()).ValueOrDie();
  EXPECT_EQ(store->Find("olga")->plugin, AccountPlugin::kAny);
  EXPECT_EQ(store->Find("olga")->sha2, old.sha2);
  for (const std::string& line :
       std::vector<std::string>{"eve\t\t\tcaching_sha2_password\tplain-text",
                                "eve\t" + ToHex(old.native) + "\t\tcaching_sha2_password\t",
                                "eve\t\t\tno_such_plugin\t"}) {
    std::ofstream(path) << "root\t\t\n" << line << "\n";
    auto damaged = UserStore::Open(directory.path().string());
    ASSERT_FALSE(damaged.ok()) << line;
    EXPECT_NE(damaged.status().message().find("damaged at line 2"), std::string::npos);
  }
}

TEST(ServerFullAuthentication, TlsAndRsaFilesAreCheckedAtStartup) {
  testing::TempDirectory directory;
  const std::string conf = (directory.path() / "server.conf").string();
  std::ofstream(conf) << "tls_cert = certs/server.pem\ntls_key = /abs/key.pem\n"
                         "require_secure_transport = on\nrsa_private_key = rsa.pem\n";
  ServerOptions options;
  ASSERT_OK(ApplyConfigFile(conf, &options));
  EXPECT_EQ(options.tls_cert, (directory.path() / "certs" / "server.pem").string());
  EXPECT_EQ(options.tls_key, "/abs/key.pem");
  EXPECT_TRUE(options.require_secure_transport);
  EXPECT_EQ(options.rsa_private_key, (directory.path() / "rsa.pem").string());
  std::ofstream(conf) << "require_secure_transport = yes\n";
  EXPECT_FALSE(ApplyConfigFile(conf, &options).ok());
  // Files that are missing or hold no key are named.
  const std::string missing = (directory.path() / "none.pem").string();
  auto tls = MakeTlsContext(missing, missing);
  ASSERT_FALSE(tls.ok());
  EXPECT_NE(tls.status().message().find("tls_cert: cannot use " + missing), std::string::npos);
  std::ofstream(directory.path() / "junk.pem") << "not a key\n";
  auto rsa = RsaKey::Load((directory.path() / "junk.pem").string());
  ASSERT_FALSE(rsa.ok());
  EXPECT_NE(rsa.status().message().find("holds no unencrypted RSA private key"), std::string::npos);
}

}  // namespace
}  // namespace tessera::server::full_authentication_test
