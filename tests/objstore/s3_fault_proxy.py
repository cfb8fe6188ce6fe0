"""An HTTP proxy in front of an S3-compatible server that injects the faults of real stores.

It forwards every request to the server unchanged (the client's Host header and signature
included) unless its `faults` say otherwise:

- ``ignore_conditions``: drops ``If-None-Match`` before forwarding, as a store without
  conditional puts would ignore it;
- ``throttle_every`` = N: answers every Nth request with 503 SlowDown instead of forwarding it;
- ``delay_seconds``: waits that long before answering each request;
- ``drop_manifest_puts`` = N: forwards the next N PUTs under ``_versions/`` and then closes the
  connection without answering, so the client cannot know that its put was applied;
- ``drop_every`` = N: closes every Nth connection's request unanswered without forwarding it;
- ``deny_access_key``: answers 403 AccessDenied to requests signed with that access key;
- ``conditions_not_implemented``: answers 501 NotImplemented to puts with ``If-None-Match``.

Counters record what was done (and how many requests and answer bytes passed), so tests can
prove the faults happened and benchmarks can count requests and bytes.
"""

from __future__ import annotations

import http.client
import http.server
import socket
import threading
import time

_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te",
               "trailer", "upgrade"}


class FaultProxy:
    def __init__(self, upstream_port: int):
        # When a list: (time, method, path, Range) of every request, for benchmarks to break
        # requests down.
        self.log = None
        self.upstream_port = upstream_port
        self.faults: dict = {}
        self.counters = {"requests": 0, "throttled": 0, "dropped": 0, "denied": 0,
                         "conditions_dropped": 0, "manifest_puts_dropped": 0,
                         "bytes_answered": 0}
        self._lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0], 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            break
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                    return b"".join(chunks)
                length = int(self.headers.get("Content-Length", 0) or 0)
                return self.rfile.read(length) if length else b""

            def _answer(self, status: int, code: str, message: str):
                body = (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code>"
                        f"<Message>{message}</Message></Error>").encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _drop(self):
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

            def _handle(self):
                body = self._body()
                faults = proxy.faults
                with proxy._lock:
                    proxy.counters["requests"] += 1
                    number = proxy.counters["requests"]
                    if proxy.log is not None:
                        proxy.log.append((time.monotonic(), self.command, self.path,
                                          self.headers.get("Range", "")))
                delay = faults.get("delay_seconds", 0)
                if delay:
                    time.sleep(delay)
                denied = faults.get("deny_access_key")
                if denied and f"Credential={denied}/" in self.headers.get("Authorization", ""):
                    proxy._count("denied")
                    return self._answer(403, "InvalidAccessKeyId",
                                        "The AWS Access Key Id you provided does not exist.")
                if faults.get("conditions_not_implemented") and "If-None-Match" in self.headers:
                    return self._answer(501, "NotImplemented",
                                        "A header you provided implies functionality that is "
                                        "not implemented")
                drop_every = faults.get("drop_every", 0)
                if drop_every and number % drop_every == 0:
                    proxy._count("dropped")
                    return self._drop()
                throttle_every = faults.get("throttle_every", 0)
                if throttle_every and number % throttle_every == 0:
                    proxy._count("throttled")
                    return self._answer(503, "SlowDown", "Please reduce your request rate.")
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                if faults.get("ignore_conditions") and "If-None-Match" in headers:
                    del headers["If-None-Match"]
                    proxy._count("conditions_dropped")
                headers["Content-Length"] = str(len(body))
                upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port,
                                                      timeout=60)
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                payload = response.read()
                upstream.close()
                if (self.command == "PUT" and "/_versions/" in self.path
                        and ".conditional-put-probe" not in self.path
                        and proxy._take("drop_manifest_puts")):
                    proxy._count("manifest_puts_dropped")
                    return self._drop()
                self.send_response(response.status)
                for name, value in response.getheaders():
                    # A HEAD's Content-Length is the object's size: passed on as it is.
                    if name.lower() not in _HOP_BY_HOP and (
                            name.lower() != "content-length" or self.command == "HEAD"):
                        self.send_header(name, value)
                if self.command != "HEAD":
                    self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
                    proxy._count("bytes_answered", len(payload))

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        class QuietServer(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a client that gave up on a delayed answer: expected under faults

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _count(self, name, amount=1):
        with self._lock:
            self.counters[name] += amount

    def _take(self, name) -> bool:
        with self._lock:
            left = self.faults.get(name, 0)
            if left <= 0:
                return False
            self.faults[name] = left - 1
            return True

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
