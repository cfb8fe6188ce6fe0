// tessera: the command-line interface (docs/cli.md). Thin: it parses arguments, calls the
// library and prints. Exit codes: 0 success, 1 error (printed as "error: <Kind>: <message>"),
// 2 usage error, 130 cancelled by Ctrl-C.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string_view>

#include "command.h"
#include "dataset_commands.h"
#include "gen_command.h"
#include "tessera/index/vector/openblas.h"
#include "tessera/server/mutation_worker.h"
#include "tessera/status.h"
#include "tessera/util/exception_guard.h"

namespace {

constexpr int kUsageError = 2;

// The subcommand the user was typing ("index create"), for the hint after a usage error.
std::string SelectedCommand(CLI::App& app) {
  for (CLI::App* command : app.get_subcommands()) {
    return " " + command->get_name() + SelectedCommand(*command);
  }
  return "";
}

// Ends the process once the command is done and its output flushed, without running static
// destructors or exit handlers: tearing down what the libraries built (Arrow's compute
// function registry, after a filter, above all) cost 0.8-2.4 ms a process (docs/benchmarks.md,
// "Process start"), and nothing of a finished command is left to them: files are closed and
// commits published before the command returns, and writes to object storage are synchronous.
// In a sanitized build (TESSERA_SANITIZED, set by CMake) the process exits normally, so that
// LeakSanitizer still checks every command at exit.
int Finish(int code) {
#ifdef TESSERA_SANITIZED
  return code;
#else
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(code);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread starts (it sets an environment variable).
  tessera::index::vector::NameOpenBlasCoreType();
  // The server's mutation worker (tessera/server/mutation_worker.h): not a user command.
  if (argc == 2 && std::string_view(argv[1]) == "__mutation-worker") {
    return Finish(tessera::server::RunMutationWorker());
  }
  CLI::App app{"tessera: versioned columnar datasets with secondary indexes", "tessera"};
  app.require_subcommand(1, 1);
  app.footer(
      "Run 'tessera COMMAND --help' for the options of a command; docs/cli.md is the reference.\n"
      "Exit status: 0 success, 1 error (\"error: <Kind>: <message>\" on stderr), 2 usage error, "
      "130 cancelled (Ctrl-C).");
  tessera::cli::CommandSet commands(app);
  tessera::cli::AddGenCommand(commands);
  tessera::cli::AddDatasetCommands(commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {  // --help
    return app.exit(success);
  } catch (const CLI::ParseError& error) {
    std::cerr << "error: InvalidArgument: " << tessera::EscapeControlCharacters(error.what())
              << "\n"
              << "Run 'tessera" << SelectedCommand(app) << " --help' for usage." << std::endl;
    return kUsageError;
  }

  // Arrow's compute functions are registered by the library where it first needs them
  // (expr::EnsureComputeInitialized, about 2 ms), not here: most commands never do.
  // The library turns exceptions into errors where it allocates much; this is the last net,
  // for the command's own work (std::bad_alloc: ResourceExhausted, anything else: Internal).
  const arrow::Status status = tessera::util::GuardExceptions(
      "running 'tessera" + SelectedCommand(app) + "'", [&] { return commands.RunSelected(); });
  return Finish(status.ok() ? 0 : tessera::cli::ReportError(status));
}
