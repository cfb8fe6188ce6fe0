"""`tessera sql`'s interactive prompt (ctest cli.sql_prompt; docs/sql.md): a real terminal.

With standard input a terminal (a pseudo-terminal here) the command reads statements through
libedit, which it opens only then (util/shared_library.h):
- the prompt is drawn; a statement runs when a line ends with ';', also across lines (the
  continuation prompt);
- an error is printed and the prompt goes on;
- Ctrl-D ends the session with "Bye" and exit status 0, and the history file
  ($HOME/.tessera_sql_history) holds the statements entered.
A process whose first statement binds a filter that needs Arrow's compute functions (DELETE with
REGEXP: the pattern is checked while binding) runs it: the functions are registered where the
library first needs them, not at start.
And the CLI links none of the libraries its commands open on first use (libedit, libstemmer,
ICU, libcurl, OpenBLAS): each would cost every process at start (docs/benchmarks.md).
Every wait is bounded; a child still running at the end is killed.
"""

import argparse
import os
import pty
import select
import shutil
import subprocess
import sys
import termios
import time

import pyarrow as pa
import pyarrow.parquet as pq

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, flush=True)


class Prompt:
    """`cli sql --catalog CATALOG` with standard input and output on a pseudo-terminal."""

    def __init__(self, cli, catalog, home):
        self.master, slave = pty.openpty()
        environment = dict(os.environ, HOME=home, TERM="dumb")
        self.process = subprocess.Popen([cli, "sql", "--catalog", catalog], stdin=slave,
                                        stdout=slave, stderr=slave, env=environment,
                                        close_fds=True)
        os.close(slave)
        self.output = b""
        self.cursor = 0  # where the previous match ended

    def read_until(self, text, seconds=60):
        """Reads the terminal until `text` appears after the previous match; True if so."""
        deadline = time.monotonic() + seconds
        while True:
            found = self.output.find(text.encode(), self.cursor)
            if found >= 0:
                self.cursor = found + len(text.encode())
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            ready, _, _ = select.select([self.master], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the child closed the terminal
                return False
            if not chunk:
                return False
            self.output += chunk

    def send(self, text, seconds=30):
        """Types `text` once the line editor reads the terminal (canonical mode off). Typed
        earlier, the kernel's line discipline would take it: Ctrl-D there is an end of file the
        editor never sees."""
        deadline = time.monotonic() + seconds
        while termios.tcgetattr(self.master)[3] & termios.ICANON:
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
        os.write(self.master, text.encode())

    def finish(self, seconds=60):
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None
        finally:
            os.close(self.master)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    catalog = os.path.join(args.work, "catalog")
    home = os.path.join(args.work, "home")
    os.makedirs(catalog)
    os.makedirs(home)

    prompt = Prompt(args.cli, catalog, home)
    try:
        check(prompt.read_until("tessera> "), "the prompt is drawn")
        prompt.send("SELECT 20 + 22 AS answer;\r")
        check(prompt.read_until("42"), "a statement ending its line runs")
        check(prompt.read_until("tessera> "), "the prompt returns after a result")
        prompt.send("SELECT 6 *\r")
        check(prompt.read_until("-> "), "an unfinished statement gets the continuation prompt")
        prompt.send("7 AS product;\r")
        check(prompt.read_until("42"), "a statement across two lines runs")
        check(prompt.read_until("tessera> "), "the prompt returns after a result")
        prompt.send("SELECT no_such_column;\r")
        check(prompt.read_until("Unknown column 'no_such_column'"), "an error names what is wrong")
        check(prompt.read_until("tessera> "), "the prompt goes on after an error")
        prompt.send("\x04")
        check(prompt.read_until("Bye"), "Ctrl-D ends the session with Bye")
    finally:
        status = prompt.finish()
    check(status == 0, "exit status 0 after Ctrl-D, got %r" % status)
    history_path = os.path.join(home, ".tessera_sql_history")
    history = open(history_path, errors="replace").read() if os.path.exists(history_path) else ""
    # libedit's format: a header line, then one entry a line with blanks escaped (\040).
    entries = history.splitlines()[1:]
    check(len(entries) == 3 and entries[0].endswith("answer;") and
          entries[2].endswith("no_such_column;"),
          "the history file holds the three statements, got %r" % history)
    # One process per statement: each is the first of its process.
    table = os.path.join(args.work, "names.parquet")
    pq.write_table(pa.table({"name": ["ab", "b", "ac"]}), table)
    for statement in ("CREATE DATABASE d",
                      "CREATE TABLE d.t AS SELECT * FROM read_parquet('%s')" % table,
                      "DELETE FROM d.t WHERE name REGEXP '^a'"):
        done = subprocess.run([args.cli, "sql", "--catalog", catalog, "-e", statement],
                              capture_output=True, text=True, timeout=120)
        check(done.returncode == 0, "%s: exit 0, got %d: %s" % (statement, done.returncode,
                                                               done.stderr.strip()))
    left = subprocess.run([args.cli, "sql", "--catalog", catalog, "--format", "csv", "-e",
                           "SELECT name FROM d.t"], capture_output=True, text=True, timeout=120)
    check(left.stdout.split() == ["name", "b"], "the DELETE kept only 'b', got %r" % left.stdout)
    dynamic = subprocess.run(["readelf", "--dynamic", args.cli], capture_output=True, text=True,
                             check=True, timeout=60).stdout
    needed = [line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]
    for opened in ("libedit", "libstemmer", "libicu", "libcurl", "libopenblas"):
        check(not any(name.startswith(opened) for name in needed),
              "the CLI does not link %s (it is opened on first use), got %s" % (opened, needed))
    if failures:
        print("terminal output:", prompt.output.decode(errors="replace"), sep="\n")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
