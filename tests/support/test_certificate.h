#pragma once
// A self-signed certificate made for one test with the openssl command (the `openssl` package):
// valid for 127.0.0.1 and localhost, so a client that trusts it (--cacert) checks it fully.
#include <optional>
#include <string>

namespace sm::test {

struct TestCertificate {
  std::string cert_file;  ///< PEM certificate (also the CA to trust: it signed itself)
  std::string key_file;   ///< PEM private key
};

/// Writes cert.pem and key.pem into `dir`; nullopt when the openssl command is missing or fails
/// (tests then GTEST_SKIP and say why).
std::optional<TestCertificate> make_test_certificate(const std::string& dir, const std::string& name = "server");

}  // namespace sm::test
