// The server's configuration file (docs/server.md, "Configuration"): `key = value` lines,
// `#` comments, blank lines. Every key is validated at startup; an unknown key or a bad value
// is an InvalidArgument naming the file, the line and the accepted keys or range.
//
//   listen = 127.0.0.1:9030        max_connections = 151        statement_threads = 4
//   handshake_timeout = 10         idle_timeout = 28800         (seconds)
//   max_allowed_packet = 67108864  catalog_name = tessera   query_memory_limit = 2147483648
//   max_mutations = 2              max_mutations_per_database = 2   mutation_queue = 16
//   mutation_budget = 3600 (s)     worker_memory = 4294967296 (bytes)
//   worker_max_processes = 256     cgroup_mount = /sys/fs/cgroup
//   tls_cert = FILE  tls_key = FILE (PEM; both or neither)   require_secure_transport = off
//   rsa_private_key = FILE (PEM; made at startup when absent)
// A relative file name is taken relative to the config file's directory.
#pragma once

#include <arrow/status.h>

#include <string>
#include <string_view>

#include "tessera/server/server.h"

namespace tessera::server {

arrow::Status ApplyConfigFile(const std::string& path, ServerOptions* options);

// "HOST:PORT" (an IPv6 host in brackets: "[::1]:9030") into options->host and port.
arrow::Status ApplyListen(std::string_view listen, ServerOptions* options);

}  // namespace tessera::server
