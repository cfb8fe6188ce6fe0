"""The CLI's progress line and Ctrl-C (ctest cli.progress; docs/cli.md, "Progress and Ctrl-C").

- With standard error not a terminal, a long command prints nothing there: only its result.
- With standard error a terminal (a pseudo-terminal here), `index create` draws its progress
  line (phase, bar, percentage, rows) and erases it before the result.
- Ctrl-C (a real SIGINT) during an IVF_PQ training: exit status 130, "error: Cancelled:
  cancelled while training ...; nothing was committed", the dataset still at its version and
  no segment directory left behind; the same for `append`, cancelled while it writes.
Every wait is bounded; a child still running at the end is killed.
"""

import argparse
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import time

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, flush=True)


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=240)


class TerminalRun:
    """`cli args` with standard error on a pseudo-terminal and standard output on a pipe."""

    def __init__(self, cli, *args):
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen([cli, *args], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        self.terminal = b""

    def read_until(self, wanted, seconds):
        """Reads the terminal until `wanted` appears (True) or `seconds` pass (False)."""
        deadline = time.monotonic() + seconds
        while wanted not in self.terminal and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.terminal += os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    break
        return wanted in self.terminal

    def finish(self):
        # The terminal is drained while the command runs: a full one would block its drawing.
        deadline = time.monotonic() + 120
        while self.process.poll() is None and time.monotonic() < deadline:
            self.read_until(b"\0never", 0.1)
        try:
            out, _ = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, _ = self.process.communicate()
        self.read_until(b"\0never", 0.2)  # what is left on the terminal
        os.close(self.master)
        return self.process.returncode, out.decode(), self.terminal.decode(errors="replace")


def latest_version(cli, dataset):
    result = run(cli, "info", dataset)
    for line in result.stdout.splitlines():
        if line.startswith("version"):
            return line.split()[1].rstrip(",")
    return result.stdout


def segment_directories(dataset):
    path = os.path.join(dataset, "_indices")
    return sorted(os.listdir(path)) if os.path.isdir(path) else []


def data_files(dataset):
    return sorted(os.listdir(os.path.join(dataset, "data")))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    cli = args.cli
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    dataset = os.path.join(args.work, "items")
    result = run(cli, "gen", "--dataset", dataset, "--rows", "60000", "--dim", "64")
    check(result.returncode == 0, f"gen: {result.stderr}")

    # Not a terminal: nothing on standard error.
    result = run(cli, "index", "create", dataset, "--name", "id_idx", "--column", "id",
                 "--type", "BTREE")
    check(result.returncode == 0 and result.stderr == "",
          f"index create with stderr on a pipe prints no progress: {result.returncode} "
          f"{result.stderr!r}")
    check("created index 'id_idx'" in result.stdout, f"index create's result: {result.stdout}")

    # A terminal: the progress line, erased before the result.
    terminal = TerminalRun(cli, "index", "create", dataset, "--name", "id_idx", "--column", "id",
                           "--type", "BTREE", "--replace")
    code, out, drawn = terminal.finish()
    check(code == 0 and "replaced index 'id_idx'" in out, f"index create on a terminal: {code} {out}")
    check("building [" in drawn and "%" in drawn and "60,000 / 60,000 rows" in drawn,
          f"the progress line shows phase, bar, percentage and rows: {drawn!r}")
    check(drawn.endswith("\r\x1b[K"), f"the progress line is erased at the end: {drawn[-40:]!r}")

    # Ctrl-C while an IVF_PQ index trains.
    version = latest_version(cli, dataset)
    segments = segment_directories(dataset)
    terminal = TerminalRun(cli, "index", "create", dataset, "--name", "v_idx", "--column",
                           "vector", "--type", "IVF_PQ", "--param", "num_partitions=256",
                           "--param", "num_sub_vectors=8", "--param", "max_iters=200")
    check(terminal.read_until(b"training", 60), f"the training phase is drawn: {terminal.terminal!r}")
    terminal.process.send_signal(signal.SIGINT)
    code, out, drawn = terminal.finish()
    check(code == 130, f"a command cancelled by Ctrl-C exits with 130: {code} {drawn!r}")
    check("error: Cancelled: cancelled while training" in drawn and
          "nothing was committed" in drawn, f"the cancellation's message: {drawn!r}")
    check(out == "", f"a cancelled command prints no result: {out!r}")
    check(latest_version(cli, dataset) == version,
          f"a cancelled index create commits nothing: {latest_version(cli, dataset)} vs {version}")
    check(segment_directories(dataset) == segments,
          f"a cancelled index create leaves no segment directory: {segment_directories(dataset)}")

    # Ctrl-C while append writes: a source large enough to be writing when the signal comes.
    source = os.path.join(args.work, "more.arrow")
    result = run(cli, "gen", source, "--rows", "400000", "--dim", "64")
    check(result.returncode == 0, f"gen of the append's source: {result.stderr}")
    files = data_files(dataset)
    terminal = TerminalRun(cli, "append", dataset, "--from", source, "--max-rows-per-file", "1000",
                           "--rows-per-batch", "100")
    check(terminal.read_until(b"writing", 60), f"the writing phase is drawn: {terminal.terminal!r}")
    terminal.process.send_signal(signal.SIGINT)
    code, out, drawn = terminal.finish()
    check(code == 130 and "error: Cancelled: cancelled while writing" in drawn,
          f"append cancelled by Ctrl-C: {code} {drawn!r}")
    check(latest_version(cli, dataset) == version, "a cancelled append commits nothing")
    check(data_files(dataset) == files, "a cancelled append leaves no data file")

    if failures:
        print(f"cli.progress: {len(failures)} failure(s)")
        sys.exit(1)
    print("cli.progress: all checks passed")


if __name__ == "__main__":
    main()
