#include "vector_literal.h"

#include <charconv>
#include <string>
#include <system_error>

#include "tessera/status.h"

namespace tessera::cli {

arrow::Result<std::vector<float>> ParseVectorLiteral(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return InvalidArgument("--vector '", text, "': ", why,
                           "; write the query as '[0.1, 0.2, ...]', one number per dimension");
  };
  constexpr std::string_view kBlanks = " \t\r\n";
  auto trim = [&](std::string_view part) {
    const size_t begin = part.find_first_not_of(kBlanks);
    if (begin == std::string_view::npos) return std::string_view();
    return part.substr(begin, part.find_last_not_of(kBlanks) + 1 - begin);
  };
  std::string_view body = trim(text);
  if (!body.empty() && body.front() == '[') {
    if (body.back() != ']') return fail("'[' without a closing ']'");
    body = trim(body.substr(1, body.size() - 2));
  }
  if (body.empty()) return fail("no number");
  const std::string_view separators =
      body.find(',') != std::string_view::npos ? std::string_view(",") : kBlanks;
  std::vector<float> values;
  while (true) {
    const size_t end = body.find_first_of(separators);
    const std::string_view token = trim(body.substr(0, end));
    if (token.empty()) return fail("an empty element");
    float value = 0;
    auto [rest, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || rest != token.data() + token.size()) {
      return fail("'" + std::string(token) + "' is not a number");
    }
    values.push_back(value);
    if (end == std::string_view::npos) break;
    body = body.substr(end + 1);
    if (separators != ",") body = trim(body);
  }
  return values;
}

}  // namespace tessera::cli
