#include "tessera/server/config.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tessera/status.h"

namespace tessera::server {

namespace {

std::string Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

template <typename T>
arrow::Status ParseNumber(const std::string& value, uint64_t minimum, uint64_t maximum,
                          const std::string& where, T* out) {
  uint64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size() || number < minimum ||
      number > maximum) {
    return InvalidArgument(where, ": expected an integer in [", minimum, ", ", maximum, "], got '",
                           value, "'");
  }
  *out = static_cast<T>(number);
  return arrow::Status::OK();
}

}  // namespace

arrow::Status ApplyListen(std::string_view listen, ServerOptions* options) {
  std::string host;
  std::string port;
  if (!listen.empty() && listen.front() == '[') {
    const size_t close = listen.find(']');
    if (close == std::string_view::npos || close + 1 >= listen.size() || listen[close + 1] != ':') {
      return InvalidArgument("listen address '", listen, "': expected [HOST]:PORT");
    }
    host = std::string(listen.substr(1, close - 1));
    port = std::string(listen.substr(close + 2));
  } else {
    const size_t colon = listen.rfind(':');
    if (colon == std::string_view::npos) {
      return InvalidArgument("listen address '", listen, "': expected HOST:PORT");
    }
    host = std::string(listen.substr(0, colon));
    port = std::string(listen.substr(colon + 1));
  }
  if (host.empty()) return InvalidArgument("listen address '", listen, "' has no host");
  options->host = host;
  return ParseNumber(port, 0, 65535, Concat("listen address '", listen, "' port"), &options->port);
}

arrow::Status ApplyConfigFile(const std::string& path, ServerOptions* options) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read the configuration file '", path, "'");
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (Trim(line).empty()) continue;
    const size_t equals = line.find('=');
    const std::string where = Concat(path, ":", number);
    if (equals == std::string::npos) return InvalidArgument(where, ": expected key = value");
    const std::string key = Trim(std::string_view(line).substr(0, equals));
    const std::string value = Trim(std::string_view(line).substr(equals + 1));
    const std::string at = Concat(where, ": ", key);
    constexpr uint64_t kSecondsMax = 365ull * 86400;
    if (key == "listen") {
      RETURN_NOT_OK(ApplyListen(value, options));
    } else if (key == "max_connections") {
      RETURN_NOT_OK(ParseNumber(value, 1, 100000, at, &options->max_connections));
    } else if (key == "statement_threads") {
      RETURN_NOT_OK(ParseNumber(value, 1, 1024, at, &options->statement_threads));
    } else if (key == "handshake_timeout") {
      RETURN_NOT_OK(ParseNumber(value, 1, kSecondsMax, at, &options->handshake_timeout_seconds));
    } else if (key == "idle_timeout") {
      RETURN_NOT_OK(ParseNumber(value, 1, kSecondsMax, at, &options->idle_timeout_seconds));
    } else if (key == "max_allowed_packet") {
      RETURN_NOT_OK(ParseNumber(value, 1024, 1ull << 30, at, &options->max_allowed_packet));
    } else if (key == "query_memory_limit") {
      RETURN_NOT_OK(ParseNumber(value, 0, 1ull << 50, at, &options->query_memory_limit));
      if (options->query_memory_limit != 0 && options->query_memory_limit < (1u << 20)) {
        return InvalidArgument(at, ": expected 0 (no limit) or at least 1048576 bytes, got ",
                               value);
      }
    } else if (key == "catalog_name") {
      if (value.empty()) return InvalidArgument(at, ": must not be empty");
      options->catalog_name = value;
    } else if (key == "max_mutations") {
      RETURN_NOT_OK(ParseNumber(value, 1, 1024, at, &options->max_mutations));
    } else if (key == "max_mutations_per_database") {
      RETURN_NOT_OK(ParseNumber(value, 1, 1024, at, &options->max_mutations_per_database));
    } else if (key == "mutation_queue") {
      RETURN_NOT_OK(ParseNumber(value, 0, 100000, at, &options->mutation_queue));
    } else if (key == "mutation_budget") {
      RETURN_NOT_OK(ParseNumber(value, 1, kSecondsMax, at, &options->mutation_budget_seconds));
    } else if (key == "worker_memory") {
      RETURN_NOT_OK(ParseNumber(value, 16ull << 20, 1ull << 50, at, &options->worker_memory_bytes));
    } else if (key == "worker_max_processes") {
      RETURN_NOT_OK(ParseNumber(value, 8, 1u << 20, at, &options->worker_max_processes));
    } else if (key == "tls_cert" || key == "tls_key" || key == "rsa_private_key") {
      // A relative path is the config file's neighbour.
      if (value.empty()) return InvalidArgument(at, ": expected a file name");
      const std::filesystem::path file =
          std::filesystem::path(path).parent_path() / std::filesystem::path(value);
      std::string& option = key == "tls_cert"  ? options->tls_cert
                            : key == "tls_key" ? options->tls_key
                                               : options->rsa_private_key;
      option = value[0] == '/' ? value : file.string();
    } else if (key == "require_secure_transport") {
      if (value != "on" && value != "off") return InvalidArgument(at, ": expected on or off");
      options->require_secure_transport = value == "on";
    } else if (key == "cgroup_mount") {
      if (value.empty() || value[0] != '/')
        return InvalidArgument(at, ": expected an absolute path");
      options->cgroup_mount = value;
    } else {
      return InvalidArgument(
          where, ": unknown key '", key,
          "'; the keys are listen, max_connections, statement_threads, "
          "handshake_timeout, idle_timeout, max_allowed_packet, query_memory_limit, "
          "catalog_name, "
          "max_mutations, max_mutations_per_database, mutation_queue, "
          "mutation_budget, worker_memory, worker_max_processes, cgroup_mount, "
          "tls_cert, tls_key, require_secure_transport, rsa_private_key");
    }
  }
  return arrow::Status::OK();
}

}  // namespace tessera::server
