#include "support/test_certificate.h"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

namespace sm::test {

std::optional<TestCertificate> make_test_certificate(const std::string& dir, const std::string& name) {
  TestCertificate c;
  c.cert_file = (std::filesystem::path(dir) / (name + "-cert.pem")).string();
  c.key_file = (std::filesystem::path(dir) / (name + "-key.pem")).string();
  // An EC key: made in milliseconds, unlike RSA.
  const std::string command = fmt::format(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-subj '/CN=speedmatrix test {0}' -addext 'subjectAltName=IP:127.0.0.1,DNS:localhost' "
      "-keyout '{1}' -out '{2}' >/dev/null 2>&1",
      name, c.key_file, c.cert_file);
  if (std::system(command.c_str()) != 0) return std::nullopt;
  if (!std::filesystem::exists(c.cert_file) || !std::filesystem::exists(c.key_file)) return std::nullopt;
  return c;
}

}  // namespace sm::test
