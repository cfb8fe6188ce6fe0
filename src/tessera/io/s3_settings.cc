#include "tessera/io/s3_settings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "tessera/status.h"

namespace tessera::io {

namespace {

std::string Environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// The URI as a message may show it. User information may hold a secret, and a secret may
// contain '/', so a URI with '@' anywhere shows only its scheme; a query or fragment (which
// could hold one too) is cut off.
std::string Shown(std::string_view uri) {
  const size_t scheme_end = uri.find("://");
  const std::string scheme(uri.substr(0, scheme_end == std::string_view::npos ? 0 : scheme_end));
  if (uri.find('@') != std::string_view::npos) return scheme + "://*** (user information hidden)";
  return std::string(uri.substr(0, uri.find_first_of("?#")));
}

// S3's bucket naming rules: 3 to 63 characters of lowercase letters, digits, '.' and '-',
// beginning and ending with a letter or digit.
bool IsValidBucketName(std::string_view name) {
  if (name.size() < 3 || name.size() > 63) return false;
  auto alnum = [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c));
  };
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return alnum(c) || c == '.' || c == '-'; });
}

arrow::Result<std::chrono::milliseconds> Seconds(const char* variable,
                                                 std::chrono::milliseconds fallback) {
  const std::string text = Environment(variable);
  if (text.empty()) return fallback;
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(seconds > 0) || seconds > 86400) {
    return InvalidArgument(variable, "=", text, " is not a number of seconds between 0 and 86400");
  }
  // At least 1 ms: a limit of 0 would mean none to libcurl.
  return std::chrono::milliseconds(std::max<int64_t>(1, static_cast<int64_t>(seconds * 1000)));
}

}  // namespace

std::string S3Location::Uri() const {
  return prefix.empty() ? "s3://" + bucket : "s3://" + bucket + "/" + prefix;
}

std::string S3Location::FilesystemPath() const {
  return prefix.empty() ? bucket : bucket + "/" + prefix;
}

arrow::Result<S3Location> ParseS3Uri(std::string_view uri) {
  constexpr std::string_view kScheme = "s3://";
  const std::string shown = Shown(uri);
  if (uri.substr(0, kScheme.size()) != kScheme) {
    return InvalidArgument(shown, " is not an s3:// URI");
  }
  std::string_view rest = uri.substr(kScheme.size());
  const size_t slash = rest.find('/');
  const std::string_view bucket = rest.substr(0, slash);
  if (uri.find('@') != std::string_view::npos) {
    return InvalidArgument(
        "dataset URI ", shown,
        " holds user information; credentials come from the environment "
        "(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, or a profile), never from the URI");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return InvalidArgument("dataset URI ", shown,
                           " has a query or fragment; the endpoint, region and options of "
                           "object storage come from the environment (docs/objstore.md)");
  }
  if (!IsValidBucketName(bucket)) {
    return InvalidArgument(
        "dataset URI ", shown, " names bucket '", bucket,
        "', which is not a valid S3 bucket name (3 to 63 lowercase letters, digits, '.' and "
        "'-', beginning and ending with a letter or digit)");
  }
  S3Location location;
  location.bucket = std::string(bucket);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash + 1);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    size_t begin = 0;
    while (!prefix.empty() && begin <= prefix.size()) {
      const size_t end = std::min(prefix.find('/', begin), prefix.size());
      const std::string_view segment = prefix.substr(begin, end - begin);
      if (segment.empty() || segment == "." || segment == "..") {
        return InvalidArgument("dataset URI ", shown,
                               " has an empty, '.' or '..' path segment; name the prefix plainly");
      }
      begin = end + 1;
    }
    location.prefix = std::string(prefix);
  }
  return location;
}

arrow::Result<S3Object> ParseS3ObjectUri(std::string_view uri) {
  constexpr std::string_view kScheme = "s3://";
  if (uri.substr(0, kScheme.size()) != kScheme) {
    return InvalidArgument(Shown(uri), " is not an s3:// URI");
  }
  const std::string_view rest = uri.substr(kScheme.size());
  const size_t slash = rest.find('/');
  const std::string_view bucket = rest.substr(0, slash);
  if (bucket.find('@') != std::string_view::npos) {
    return InvalidArgument(
        "object URI s3://*** (user information hidden) holds user information; credentials "
        "come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, or a profile), "
        "never from the URI");
  }
  if (!IsValidBucketName(bucket)) {
    // A secret holding '/' splits "s3://key:secret@bucket" before the '@': the URI is then
    // shown only if it holds no '@' at all.
    const bool hidden = uri.find('@') != std::string_view::npos;
    return InvalidArgument(
        "object URI ", hidden ? Shown(uri) : std::string(uri), " names bucket '",
        hidden ? std::string("***") : std::string(bucket),
        "', which is not a valid S3 bucket name (3 to 63 lowercase letters, digits, '.' and "
        "'-', beginning and ending with a letter or digit)");
  }
  const std::string_view key = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  if (key.empty() || key.find('\0') != std::string_view::npos) {
    return InvalidArgument("object URI ", std::string(uri.substr(0, uri.find('\0'))),
                           " names no object: name its key, s3://", bucket, "/<key>");
  }
  return S3Object{std::string(bucket), std::string(key)};
}

arrow::Result<S3Settings> S3Settings::FromEnvironment() {
  S3Settings settings;
  const char* endpoint_variable = "AWS_ENDPOINT_URL_S3";
  std::string endpoint = Environment(endpoint_variable);
  if (endpoint.empty()) {
    endpoint_variable = "AWS_ENDPOINT_URL";
    endpoint = Environment(endpoint_variable);
  }
  if (!endpoint.empty()) {
    const size_t scheme_end = endpoint.find("://");
    const std::string scheme =
        scheme_end == std::string::npos ? "" : endpoint.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https") {
      return InvalidArgument(endpoint_variable, "=", Shown(endpoint),
                             " is not an http:// or https:// URL");
    }
    std::string authority = endpoint.substr(scheme_end + 3);
    while (!authority.empty() && authority.back() == '/') authority.pop_back();
    if (authority.empty() || authority.find_first_of("/?#@") != std::string::npos) {
      return InvalidArgument(endpoint_variable, "=", Shown(endpoint),
                             " must be scheme://host[:port], with no path, query or user");
    }
    // A default port is dropped: the Host header a client sends (and signs) omits it.
    const std::string default_port = scheme == "https" ? ":443" : ":80";
    if (authority.size() > default_port.size() &&
        authority.compare(authority.size() - default_port.size(), default_port.size(),
                          default_port) == 0) {
      authority.resize(authority.size() - default_port.size());
    }
    settings.endpoint_scheme = scheme;
    settings.endpoint_authority = authority;
  }
  settings.region = Environment("AWS_REGION");
  if (settings.region.empty()) settings.region = Environment("AWS_DEFAULT_REGION");
  settings.ca_file = Environment("AWS_CA_BUNDLE");
  const std::string single_writer = Environment("TESSERA_S3_SINGLE_WRITER");
  if (!single_writer.empty() && single_writer != "0" && single_writer != "1") {
    return InvalidArgument("TESSERA_S3_SINGLE_WRITER=", single_writer, " is not 0 or 1");
  }
  settings.single_writer = single_writer == "1";
  ARROW_ASSIGN_OR_RAISE(settings.request_timeout,
                        Seconds("TESSERA_S3_REQUEST_TIMEOUT_SECONDS", settings.request_timeout));
  ARROW_ASSIGN_OR_RAISE(settings.retry_deadline,
                        Seconds("TESSERA_S3_RETRY_DEADLINE_SECONDS", settings.retry_deadline));
  return settings;
}

std::string S3Settings::StoreName() const {
  return endpoint_authority.empty() ? "AWS S3" : endpoint_scheme + "://" + endpoint_authority;
}

}  // namespace tessera::io
