// `tessera serve --catalog DIR [--listen HOST:PORT] [--config FILE]` (docs/server.md): serves
// the catalog over the MySQL protocol until SIGTERM / SIGINT. Prints "listening on HOST:PORT"
// on standard output once the socket is bound (port 0 picks a free one), and a log line per
// connection and statement on standard error.
#include <iostream>

#include "command.h"
#include "dataset_commands.h"
#include "tessera/server/config.h"
#include "tessera/server/server.h"

namespace tessera::cli {

namespace {

struct ServeArguments {
  std::string catalog;
  std::string listen;
  std::string config;
};

arrow::Status RunServe(const ServeArguments& arguments) {
  server::ServerOptions options;
  options.catalog_root = arguments.catalog;
  if (!arguments.config.empty()) RETURN_NOT_OK(server::ApplyConfigFile(arguments.config, &options));
  // The command line wins over the file.
  if (!arguments.listen.empty()) RETURN_NOT_OK(server::ApplyListen(arguments.listen, &options));
  ARROW_ASSIGN_OR_RAISE(auto server, server::Server::Start(options));
  std::cout << "listening on " << options.host << ":" << server->port() << std::endl;
  RETURN_NOT_OK(server->Run());
  std::cerr << "tessera serve: stopped" << std::endl;
  return arrow::Status::OK();
}

}  // namespace

void AddServeCommand(CommandSet& commands) {
  auto arguments = std::make_shared<ServeArguments>();
  CLI::App* command =
      commands.Add("serve", "Serve a catalog over the MySQL protocol (docs/server.md)",
                   [arguments] { return RunServe(*arguments); });
  command->add_option("--catalog", arguments->catalog, "Catalog directory: DIR/<db>/<table>/")
      ->required();
  command->add_option("--listen", arguments->listen,
                      "HOST:PORT to listen on (default 127.0.0.1:9030)");
  command->add_option("--config", arguments->config, "Configuration file (docs/server.md)");
}

}  // namespace tessera::cli
