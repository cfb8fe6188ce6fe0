// The mutation worker: what `tessera __mutation-worker` runs inside its boundary (docs/server.md,
// "Mutations"). It reads one request envelope from standard input — the invocation id, the
// catalog, the current database, the statement's text and its admission (table, version,
// schema contract) — runs the statement once through sql::Session with that admission (the
// table opened at the admitted version, the contract checked), and writes to descriptor 3:
//   type=started   just before the one mutating call (nothing before it has changed anything)
//   type=result    ok=1 with the statement's result, or ok=0 with the error's kind, code and
//                  message
// and exits. The server classifies the run from these and from how the process ended.
//
// Test fault hooks (docs/development.md) act only when the environment holds
// TESSERA_TEST_FAULT_HOOKS=1, which only a server started so by a test harness passes on.
#pragma once

namespace tessera::server {

// The worker's exit status: 0 after a result was written, 2 when the request was unusable.
int RunMutationWorker();

}  // namespace tessera::server
