"""`tessera serve` as a child process of a test: started on a free loopback port (the port it
prints), its log in a file, stopped with SIGTERM (killed if it does not stop within 30 s)."""

import os
import signal
import subprocess


class ServerProcess:
    def __init__(self, cli, catalog, config, environment):
        self.log_path = os.path.join(os.path.dirname(catalog), "server.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [cli, "serve", "--catalog", catalog, "--listen", "127.0.0.1:0", "--config", config],
            stdout=subprocess.PIPE, stderr=self.log, text=True,
            env=dict(os.environ, **environment))
        line = self.process.stdout.readline()
        if not line.startswith("listening on "):
            raise SystemExit(f"the server did not start: {line!r}")
        self.port = int(line.strip().rsplit(":", 1)[1])

    def stop(self):
        """The exit status after SIGTERM, or None when it had to be killed."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return None

    def log_text(self):
        with open(self.log_path, encoding="utf-8") as f:  # the log is ASCII (names escaped)
            return f.read()
