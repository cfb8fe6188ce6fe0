"""End-to-end tests of `tessera serve` with real clients (ctest server.clients).

Starts the server on a free loopback port over a fresh catalog (the root password from
TESSERA_ROOT_PASSWORD at the first start), then:
- the mariadb command-line client: mysql_native_password and caching_sha2_password logins, a
  wrong password and an unknown user (the same 1045 message), DDL, INSERT, SELECT, SHOW INDEX,
  table functions, EXPLAIN, errors with their codes, USE / -D, multi-statements;
- PyMySQL: types of result columns, parameters, errors as exceptions with MySQL codes, the
  statements it sends itself (SET AUTOCOMMIT, COMMIT);
- mysql-connector-python (pure and C extension): prepared statements over the binary
  protocol — SELECT with parameters, CREATE TABLE AS and INSERT (mutations in workers), errors
  at PREPARE and EXECUTE; SQLAlchemy over PyMySQL for one round trip with its reflection;
- users and privileges: CREATE / ALTER / DROP USER, GRANT / REVOKE, SHOW GRANTS, each
  statement kind denied (1142, 1044, 1227) without effect until granted;
- bad input on raw sockets: garbage instead of a handshake response, a packet over
  max_allowed_packet, a client that sends nothing (handshake deadline), an idle client (idle
  deadline), one connection over max_connections (1040) — and the server keeps serving;
- TLS and caching_sha2_password's full authentication, on a second server with tls_cert /
  tls_key: the mariadb client, PyMySQL and mysql-connector-python over TLS; accounts
  IDENTIFIED WITH caching_sha2_password (salted hash on disk) authenticating in full over TLS
  and over RSA key exchange without TLS, then on the fast path until a restart; accounts
  IDENTIFIED WITH mysql_native_password switched to it; require_secure_transport refusing a
  connection without TLS with 3159; query_memory_limit refusing a large result with 1041;
- SIGTERM: the server exits 0, and its log never shows the password.
Every wait is bounded; the server is killed if the test fails.
"""

import argparse
import os
import shutil
import socket
import struct
import subprocess
import sys
import time

# mysql-connector-python's C extension is loaded before pyarrow: both bring C++ runtimes, and
# the extension cannot get static TLS once pyarrow took it ("cannot allocate memory in static
# TLS block").
import mysql.connector  # noqa: E402  (before pyarrow, see above)
import pymysql
from server_process import ServerProcess

PASSWORD = "s3cret-Pass"
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, flush=True)


class Server(ServerProcess):
    def __init__(self, cli, catalog, config):
        super().__init__(cli, catalog, config, {"TESSERA_ROOT_PASSWORD": PASSWORD})


def mariadb(port, sql, *extra, password=PASSWORD, user="root"):
    command = ["mariadb", "-h", "127.0.0.1", "-P", str(port), "-u", user, f"-p{password}",
               "--batch", *extra, "-e", sql]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_mariadb(port, data):
    done = mariadb(port, f"""
        CREATE DATABASE shop;
        CREATE TABLE shop.items AS SELECT * FROM read_parquet('{data}');
        CREATE INDEX price_idx ON shop.items (price) USING BTREE;
        SELECT count(*) AS n FROM shop.items;""")
    check(done.returncode == 0 and done.stdout.split() == ["n", "100"],
          f"mariadb DDL + count: {done.stdout!r} {done.stderr!r}")
    done = mariadb(port, "SELECT id, category FROM items WHERE price < 3 ORDER BY id", "-D", "shop")
    check(done.returncode == 0 and done.stdout.splitlines()[0] == "id\tcategory"
          and len(done.stdout.splitlines()) == 3, f"mariadb -D select: {done.stdout!r} {done.stderr!r}")
    done = mariadb(port, "SHOW INDEX FROM shop.items", "--vertical")
    check("Key_name: price_idx" in done.stdout and "Index_type: BTREE" in done.stdout,
          f"SHOW INDEX: {done.stdout!r}")
    done = mariadb(port, "SELECT IndexName, Rows FROM tessera_index_entries(\"table\" = \"shop.items\")")
    check(done.stdout.split() == ["IndexName", "Rows", "price_idx", "100"], f"entries: {done.stdout!r}")
    done = mariadb(port, "EXPLAIN SELECT id FROM shop.items WHERE price < 3")
    check("BTREE index 'price_idx'" in done.stdout, f"EXPLAIN: {done.stdout!r}")
    # caching_sha2_password (fast path) and an unknown plugin (switched to native).
    for plugin in ("caching_sha2_password", "client_ed25519"):
        done = mariadb(port, "SELECT CURRENT_USER() AS u", f"--default-auth={plugin}")
        check(done.returncode == 0 and "root@127.0.0.1" in done.stdout,
              f"login with {plugin}: {done.stdout!r} {done.stderr!r}")
    # A wrong password and an unknown user read the same.
    wrong = mariadb(port, "SELECT 1", password="nope")
    unknown = mariadb(port, "SELECT 1", user="mallory")
    check(wrong.returncode == 1 and "ERROR 1045 (28000): Access denied for user 'root'@'127.0.0.1' "
          "(using password: YES)" in wrong.stderr, f"wrong password: {wrong.stderr!r}")
    check("ERROR 1045 (28000): Access denied for user 'mallory'@'127.0.0.1' (using password: YES)"
          in unknown.stderr, f"unknown user: {unknown.stderr!r}")
    for sql, code in (("SELECT * FROM shop.nosuch", "1146 (42S02)"),
                      ("SELECT pricee FROM shop.items", "1054 (42S22)"),
                      ("SELEC 1", "1064 (42000)"),
                      ("CREATE INDEX price_idx ON shop.items (id) USING BTREE", "1061 (42000)"),
                      ("SELECT @@no_such_variable", "1193 (HY000)"),
                      ("USE nodb", "1049 (42000)")):
        done = mariadb(port, sql)
        check(done.returncode == 1 and f"ERROR {code}" in done.stderr, f"{sql}: {done.stderr!r}")
    # Several statements in one query (the client enables multi-statements with -e).
    done = mariadb(port, "SELECT 1 AS a; SELECT 2 AS b; SHOW DATABASES")
    check(done.stdout.split() == ["a", "1", "b", "2", "Database", "shop"], f"multi: {done.stdout!r}")
    # Client statements inside a multi-statement query: each piece answered, none lost.
    done = subprocess.run(["mariadb", "-h", "127.0.0.1", "-P", str(port), "-u", "root",
                           f"-p{PASSWORD}", "--batch", "shop"],
                          input="SET NAMES utf8mb4; SELECT count(*) AS n FROM items; SET autocommit=1\n",
                          capture_output=True, text=True, timeout=60)
    check(done.returncode == 0 and done.stdout.split() == ["n", "100"],
          f"SET inside a multi-statement query: {done.stdout!r} {done.stderr!r}")


def test_pymysql(port):
    connection = pymysql.connect(host="127.0.0.1", port=port, user="root", password=PASSWORD,
                                 database="shop", connect_timeout=10, read_timeout=60)
    cursor = connection.cursor()
    cursor.execute("SELECT id, category, price, price > 50 AS big FROM items WHERE id < %s "
                   "ORDER BY id", (3,))
    rows = cursor.fetchall()
    check(len(rows) == 3 and rows[0][0] == 0 and isinstance(rows[0][2], float),
          f"pymysql rows: {rows!r}")
    check([d[1] for d in cursor.description] == [8, 253, 5, 1],
          f"column types: {cursor.description!r}")
    cursor.execute("INSERT INTO items SELECT id + 1000, category, price FROM items WHERE id < 5")
    check(cursor.rowcount == 5, f"INSERT rowcount {cursor.rowcount}")
    connection.commit()
    cursor.execute("SELECT count(*) FROM items")
    check(cursor.fetchone() == (105,), "count after INSERT")
    try:
        cursor.execute("SELECT nope FROM items")
        check(False, "pymysql: no error for an unknown column")
    except pymysql.err.OperationalError as error:
        check(error.args[0] == 1054, f"pymysql error: {error.args!r}")
    except pymysql.err.ProgrammingError as error:
        check(error.args[0] == 1054, f"pymysql error: {error.args!r}")
    cursor.execute("SELECT DATABASE(), @@autocommit")
    check(cursor.fetchone() == ("shop", 1), "DATABASE() / @@autocommit")
    # information_schema.PROCESSLIST: typed columns, filtered and projected by SQL.
    cursor.execute("SELECT CONNECTION_ID()")
    (me,) = cursor.fetchone()
    cursor.execute("SELECT id, user, db, command, state, info, progress FROM "
                   f"information_schema.PROCESSLIST WHERE id = {me}")
    rows = cursor.fetchall()
    check(len(rows) == 1 and rows[0] == (me, "root", "shop", "Query", "executing", "SELECT", None),
          f"information_schema.PROCESSLIST of this connection: {rows!r}")
    cursor.execute("SELECT count(*) FROM information_schema.processlist WHERE command = 'Query'")
    check(cursor.fetchone() == (1,), "information_schema.processlist: only this one runs")
    for sql, code in [("SELECT * FROM information_schema.tables", 1109),
                      ("SELECT * FROM information_schema.processlist FOR VERSION AS OF 1", 1235)]:
        try:
            cursor.execute(sql)
            check(False, f"no error for {sql}")
        except pymysql.MySQLError as error:
            check(error.args[0] == code, f"{sql}: expected {code}, got {error.args!r}")
    connection.ping()
    connection.select_db("shop")
    connection.close()


def packet(payload, sequence):
    return struct.pack("<I", len(payload))[:3] + bytes([sequence]) + payload


def read_packet(sock):
    header = b""
    while len(header) < 4:
        chunk = sock.recv(4 - len(header))
        if not chunk:
            return None
        header += chunk
    length = int.from_bytes(header[:3], "little")
    body = b""
    while len(body) < length:
        chunk = sock.recv(length - len(body))
        if not chunk:
            return None
        body += chunk
    return body


def closed_within(sock, seconds):
    sock.settimeout(seconds)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except (socket.timeout, TimeoutError):
        return False
    except ConnectionError:
        return True


def test_bad_input(port):
    # Garbage instead of a handshake response: 1043, closed.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        check(read_packet(sock)[0] == 10, "protocol-10 greeting")
        sock.sendall(packet(b"\x01\x02garbage", 1))
        reply = read_packet(sock)
        check(reply is not None and reply[0] == 0xFF and reply[1:3] == struct.pack("<H", 1043),
              f"garbage handshake: {reply!r}")
        check(closed_within(sock, 5), "closed after a bad handshake")
    # Before authentication a packet may hold 64 KiB at most: 1153.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        read_packet(sock)
        sock.sendall(struct.pack("<I", 100000)[:3] + b"\x01")
        reply = read_packet(sock)
        check(reply is not None and reply[1:3] == struct.pack("<H", 1153),
              f"unauthenticated 100 KB packet: {reply!r}")
    # COM_INIT_DB with a name that tries to end the USE statement: an unknown database only.
    with raw_login(port) as sock:
        sock.sendall(packet(b"\x02shop`; DROP DATABASE shop; --", 0))
        reply = read_packet(sock)
        check(reply is not None and reply[0] == 0xFF and reply[1:3] == struct.pack("<H", 1049),
              f"COM_INIT_DB injection: {reply!r}")
    done = mariadb(port, "SHOW DATABASES")
    check("shop" in done.stdout.split(), "the database survived a COM_INIT_DB injection")
    # A packet header claiming more than max_allowed_packet: 1153, closed.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        read_packet(sock)
        sock.sendall(b"\xff\xff\xff\x01")
        reply = read_packet(sock)
        check(reply is not None and reply[1:3] == struct.pack("<H", 1153), f"too large: {reply!r}")
    # Silence after the greeting: closed at the handshake deadline (2 s in the config).
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        read_packet(sock)
        start = time.monotonic()
        check(closed_within(sock, 8) and time.monotonic() - start < 8, "handshake deadline")
    # One connection over max_connections (4 in the config): 1040.
    held = [pymysql.connect(host="127.0.0.1", port=port, user="root", password=PASSWORD)
            for _ in range(4)]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        reply = read_packet(sock)
        check(reply is not None and reply[0] == 0xFF and reply[1:3] == struct.pack("<H", 1040),
              f"too many connections: {reply!r}")
    for connection in held:
        connection.close()
    time.sleep(0.5)
    # An idle client is closed at the idle deadline (3 s in the config).
    idle = pymysql.connect(host="127.0.0.1", port=port, user="root", password=PASSWORD)
    time.sleep(4.5)
    try:
        idle.ping(reconnect=False)
        check(False, "an idle connection outlived the idle deadline")
    except pymysql.err.Error:
        pass
    # The server still serves.
    done = mariadb(port, "SELECT 1 AS alive")
    check(done.stdout.split() == ["alive", "1"], f"alive after bad input: {done.stdout!r}")


def raw_login(port):
    """A socket past authentication as root (mysql_native_password computed here)."""
    import hashlib
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    greeting = read_packet(sock)
    version_end = greeting.index(b"\0", 1)
    at = version_end + 1 + 4
    nonce = greeting[at:at + 8]
    at += 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10
    nonce += greeting[at:at + 12]
    once = hashlib.sha1(PASSWORD.encode()).digest()
    mask = hashlib.sha1(nonce + hashlib.sha1(once).digest()).digest()
    proof = bytes(a ^ b for a, b in zip(once, mask))
    capabilities = 0x200 | 0x8000 | 0x80000 | 0x10000
    body = struct.pack("<IIB", capabilities, 1 << 24, 255) + b"\0" * 23 + b"root\0"
    body += bytes([len(proof)]) + proof + b"mysql_native_password\0"
    sock.sendall(packet(body, 1))
    reply = read_packet(sock)
    if not reply or reply[0] != 0:
        raise SystemExit(f"raw login failed: {reply!r}")
    return sock


def test_malformed_packets(port, count):
    """`count` malformed, truncated or random packets, before and after authentication."""
    import random
    rng = random.Random(11)
    sent = 0
    while sent < count:
        authenticated = rng.random() < 0.5
        try:
            sock = raw_login(port) if authenticated else socket.create_connection(
                ("127.0.0.1", port), timeout=10)
            if not authenticated:
                read_packet(sock)
            sock.settimeout(0.02)  # answers are read when they come, never waited for long
            for _ in range(rng.randint(1, 20)):
                shape = rng.randrange(7)
                if shape == 0:  # random bytes, no framing at all
                    data = rng.randbytes(rng.randint(1, 64))
                elif shape == 1:  # a header promising more than follows
                    data = struct.pack("<I", rng.randint(1, 5000))[:3] + bytes([1]) + b"ab"
                elif shape == 2:  # a command byte and random arguments
                    data = packet(bytes([rng.randrange(256)]) + rng.randbytes(rng.randint(0, 40)), 0)
                elif shape == 3:  # a query of random bytes
                    data = packet(b"\x03" + rng.randbytes(rng.randint(0, 200)), 0)
                elif shape == 4:  # a truncated handshake response
                    data = packet(struct.pack("<I", 0x200 | 0x8000)[: rng.randint(0, 4)], 1)
                elif shape == 5:  # an empty packet
                    data = packet(b"", rng.randrange(256))
                else:  # a prepared statement, then an EXECUTE with random parameters
                    data = packet(b"\x16SELECT ? + ?, 'a?'", 0) + packet(
                        b"\x17" + struct.pack("<I", rng.randint(0, 3)) +
                        rng.randbytes(rng.randint(0, 40)), 0)
                sent += 1
                sock.sendall(data)
                if rng.random() < 0.3:
                    try:
                        sock.recv(65536)
                    except (socket.timeout, TimeoutError):
                        pass
        except (ConnectionError, OSError):
            pass  # the server may close a connection it cannot parse: that is the answer
        finally:
            try:
                sock.close()
            except Exception:
                pass
    done = mariadb(port, "SELECT 1 AS alive")
    check(done.stdout.split() == ["alive", "1"],
          f"alive after {sent} malformed packets: {done.stdout!r} {done.stderr!r}")
    return sent


def test_empty_password(cli, work, config):
    """A root without a password (TESSERA_ROOT_PASSWORD empty) logs in with either plugin and
    no password, and not with one."""
    global PASSWORD
    saved, PASSWORD = PASSWORD, ""
    os.makedirs(os.path.join(work, "empty"))
    server = Server(cli, os.path.join(work, "empty"), config)
    try:
        for plugin in ("mysql_native_password", "caching_sha2_password"):
            done = subprocess.run(["mariadb", "-h", "127.0.0.1", "-P", str(server.port), "-u",
                                   "root", f"--default-auth={plugin}", "--batch", "-e",
                                   "SELECT 1 AS ok"], capture_output=True, text=True, timeout=60)
            check(done.stdout.split() == ["ok", "1"],
                  f"empty password with {plugin}: {done.stdout!r} {done.stderr!r}")
        done = mariadb(server.port, "SELECT 1", password="something")
        check("ERROR 1045" in done.stderr, f"a password for a root without one: {done.stderr!r}")
    finally:
        check(server.stop() == 0, "the empty-password server stops")
        PASSWORD = saved


def auth_methods(server, user):
    """How each of `user`'s logins so far authenticated (the server's log: auth=...)."""
    marker = f"user={user} connected "
    return [line.rsplit("auth=", 1)[1] for line in server.log_text().splitlines()
            if marker in line]


def test_tls_and_full_authentication(cli, work):
    """A server with TLS: clients over TLS, accounts of one plugin, full authentication over
    TLS and over RSA, the fast path after it, and require_secure_transport."""
    directory = os.path.join(work, "tls")
    os.makedirs(os.path.join(directory, "catalog"))
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                           "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                           "-keyout", key, "-out", cert], capture_output=True, timeout=60)
    check(made.returncode == 0, f"openssl makes a test certificate: {made.stderr!r}")
    config = os.path.join(directory, "server.conf")
    with open(config, "w") as f:
        f.write("tls_cert = cert.pem\ntls_key = key.pem\nhandshake_timeout = 2\n"  # beside it
                "query_memory_limit = 1048576\n")
    catalog = os.path.join(directory, "catalog")
    server = Server(cli, catalog, config)
    try:
        port = server.port
        done = mariadb(port, "status", f"--ssl-ca={cert}", "--ssl-verify-server-cert")
        check("Cipher in use is TLS" in done.stdout, f"mariadb over TLS: {done.stdout!r} "
              f"{done.stderr!r}")
        done = mariadb(port, "CREATE USER carol IDENTIFIED WITH caching_sha2_password BY 'c-pw';"
                       "CREATE USER nat IDENTIFIED WITH 'mysql_native_password' BY 'n-pw';"
                       "GRANT SELECT ON *.* TO carol; GRANT SELECT ON *.* TO nat")
        check(done.returncode == 0, f"accounts of one plugin: {done.stderr!r}")
        done = mariadb(port, "CREATE USER x IDENTIFIED WITH client_ed25519 BY 'x'")
        check("ERROR 1524" in done.stderr and "caching_sha2_password" in done.stderr,
              f"an unknown plugin: {done.stderr!r}")
        users = open(os.path.join(catalog, "_system", "users")).read()
        check("carol\t--\t\tcaching_sha2_password\tpbkdf2-sha256$" in users,
              f"carol keeps a salted hash only: {users!r}")
        # carol's first login is a full authentication: PyMySQL over TLS sends the password.
        connection = pymysql.connect(host="127.0.0.1", port=port, user="carol",
                                     password="c-pw", ssl={"ca": cert})
        check(connection._sock.version().startswith("TLSv1."), "PyMySQL over TLS")
        with connection.cursor() as cursor:
            cursor.execute("SELECT CURRENT_USER()")
            check(cursor.fetchone() == ("carol@127.0.0.1",), "carol over TLS")
        connection.close()
        # Then the fast path, with TLS (mariadb) or without (the plain mariadb client).
        for extra in ((), ("--skip-ssl", "--default-auth=caching_sha2_password")):
            done = mariadb(port, "SELECT CURRENT_USER() AS u", *extra, user="carol",
                           password="c-pw")
            check(done.stdout.split() == ["u", "carol@127.0.0.1"], f"carol {extra}: {done!r}")
        check(auth_methods(server, "carol") == ["caching_sha2_password/full-tls"] +
              ["caching_sha2_password/fast"] * 2, f"carol: {auth_methods(server, 'carol')}")
        # A wrong password in full: 1045, over RSA (PyMySQL asks for the key) and over TLS.
        for tls in (None, {"ca": cert}):
            try:
                pymysql.connect(host="127.0.0.1", port=port, user="carol", password="c-pW",
                                ssl=tls, ssl_disabled=tls is None)
                check(False, "carol with a wrong password logged in")
            except pymysql.err.OperationalError as error:
                check(error.args[0] == 1045, f"carol, wrong password, tls={tls}: {error}")
        # nat takes native proofs only: a client asking for caching_sha2 is switched.
        done = mariadb(port, "SELECT CURRENT_USER() AS u", "--default-auth=caching_sha2_password",
                       user="nat", password="n-pw")
        check(done.stdout.split() == ["u", "nat@127.0.0.1"], f"nat switched: {done!r}")
        check(auth_methods(server, "nat") == ["mysql_native_password"], "nat: native")
        # An SSL request followed by garbage, by a truncated ClientHello, or by nothing until
        # the handshake deadline: each connection is closed, the server keeps serving.
        import random
        generator = random.Random(7)
        ssl_request = struct.pack("<IIB", 0x200 | 0x800 | 0x8000, 1 << 24, 255) + b"\0" * 23
        for attempt in range(200):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                greeting = read_packet(sock)
                offered = int.from_bytes(greeting[greeting.index(b"\0", 1) + 1 + 4 + 9:][:2],
                                         "little")
                check(offered & 0x800, "CLIENT_SSL offered with tls_cert")
                sock.sendall(packet(ssl_request, 1))
                if attempt % 3 == 0:
                    sock.sendall(bytes(generator.randrange(256) for _ in range(
                        generator.randrange(1, 600))))
                elif attempt % 3 == 1:
                    sock.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" +
                                 bytes(generator.randrange(256) for _ in range(40)))
                    sock.shutdown(socket.SHUT_WR)
                if attempt % 3 != 2 or attempt == 2:
                    check(closed_within(sock, 5 if attempt == 2 else 3),
                          f"garbage after an SSL request {attempt} is closed")
        done = mariadb(port, "SELECT 1 AS alive")
        check(done.stdout.split() == ["alive", "1"], f"alive after TLS garbage: {done!r}")
        # query_memory_limit: a result over 1 MiB is 1041, and the connection goes on.
        import pyarrow as pa
        import pyarrow.parquet as pq
        big = os.path.join(directory, "big.parquet")
        pq.write_table(pa.table({"s": [f"row {i} " + "x" * 60 for i in range(50000)]}), big)
        connection = pymysql.connect(host="127.0.0.1", port=port, user="root", password=PASSWORD)
        with connection.cursor() as cursor:
            try:
                cursor.execute(f"SELECT * FROM read_parquet('{big}')")
                check(False, "a result over query_memory_limit was sent")
            except pymysql.err.OperationalError as error:
                check(error.args[0] == 1041 and "limit of 1048576 bytes" in error.args[1],
                      f"query_memory_limit: {error}")
            cursor.execute(f"SELECT count(*) FROM read_parquet('{big}')")
            check(cursor.fetchone() == (50000,), "a small result under query_memory_limit")
        connection.close()
        # mysql-connector-python over TLS, both implementations.
        for pure in (True, False):
            connection = mysql.connector.connect(host="127.0.0.1", port=port, user="root",
                                                 password=PASSWORD, ssl_ca=cert, use_pure=pure)
            cursor = connection.cursor()
            cursor.execute("SELECT 1")
            check(cursor.fetchall() == [(1,)], f"mysql-connector over TLS (pure={pure})")
            connection.close()
    finally:
        check(server.stop() == 0, "the TLS server stops")
    # A restart forgets carol's fast-path digest: full authentication again, now over RSA.
    with open(config, "a") as f:
        f.write("require_secure_transport = off\n")
    server = Server(cli, catalog, config)
    try:
        done = mariadb(server.port, "SELECT 1 AS ok", "--skip-ssl", user="carol",
                       password="c-pw")
        check(done.stdout.split() == ["ok", "1"], f"mariadb over RSA: {done!r}")
        # PyMySQL's proof after the switch to caching_sha2 uses the nonce with its NUL and does
        # not verify: as MySQL does, the server asks for a full authentication instead.
        pymysql.connect(host="127.0.0.1", port=server.port, user="carol", password="c-pw",
                        ssl_disabled=True).close()
        check(auth_methods(server, "carol") == ["caching_sha2_password/full-rsa",
                                                "caching_sha2_password/full-rsa"],
              f"carol after a restart: {auth_methods(server, 'carol')}")
    finally:
        check(server.stop() == 0, "the restarted TLS server stops")
    # require_secure_transport: without TLS, 3159 before any credential; with it, in.
    with open(config, "a") as f:
        f.write("require_secure_transport = on\n")
    server = Server(cli, catalog, config)
    try:
        done = mariadb(server.port, "SELECT 1", "--skip-ssl")
        check("ERROR 3159" in done.stderr, f"require_secure_transport: {done.stderr!r}")
        done = mariadb(server.port, "SELECT 1 AS ok")
        check(done.stdout.split() == ["ok", "1"], f"require_secure_transport, TLS: {done!r}")
    finally:
        check(server.stop() == 0, "the secure-transport server stops")
    log = server.log_text()
    check(all(p not in log for p in ("c-pw", "n-pw", PASSWORD)), "a password in the TLS log")


def test_connector(port):
    """mysql-connector-python's prepared statements (binary protocol), both implementations."""
    for pure in (True, False):
        connection = mysql.connector.connect(host="127.0.0.1", port=port, user="root",
                                             password=PASSWORD, database="shop", use_pure=pure,
                                             connection_timeout=10)
        cursor = connection.cursor(prepared=True)
        cursor.execute("SELECT id, category, price FROM items WHERE id < ? AND category = ? "
                       "ORDER BY id", (7, "a"))
        rows = cursor.fetchall()
        check(rows == [(0, "a", 1.5), (3, "a", 4.5), (6, "a", 7.5)],
              f"connector pure={pure}: prepared rows {rows!r}")
        check([d[1] for d in cursor.description] == [8, 253, 5],
              f"connector pure={pure}: column types {cursor.description!r}")
        cursor.execute("SELECT ? AS s, ? AS n, ? AS f", ("it's \\ ok", None, 2.0))
        check(cursor.fetchall() == [("it's \\ ok", None, 2.0)],
              f"connector pure={pure}: parameter literals")
        table = "items_pure" if pure else "items_c"
        cursor.execute(f"CREATE TABLE {table} AS SELECT * FROM items WHERE id < ?", (10,))
        cursor.execute(f"INSERT INTO {table} SELECT id + 100, category, price FROM items "
                       "WHERE id < ?", (3,))
        check(cursor.rowcount == 3, f"connector pure={pure}: INSERT rowcount {cursor.rowcount}")
        cursor.execute(f"SELECT count(*) FROM {table}")
        check(cursor.fetchall() == [(13,)], f"connector pure={pure}: count after INSERT")
        plain = connection.cursor()
        plain.execute("SHOW INDEX FROM items")
        check(len(plain.fetchall()) == 1, f"connector pure={pure}: SHOW INDEX")
        try:
            cursor.execute("SELECT nope FROM items WHERE id = ?", (1,))
            check(False, f"connector pure={pure}: no error for an unknown column")
        except mysql.connector.Error as error:
            check("Unknown column 'nope'" in str(error), f"connector error: {error!r}")
        try:
            cursor.execute("SELEC 1 FROM items WHERE id = ?", (1,))
            check(False, f"connector pure={pure}: no error at PREPARE for bad syntax")
        except mysql.connector.Error as error:
            check("syntax" in str(error), f"connector prepare error: {error!r}")
        connection.close()


def test_sqlalchemy(port):
    """SQLAlchemy over PyMySQL: its connect-time statements, a bound SELECT, a round trip."""
    import sqlalchemy
    engine = sqlalchemy.create_engine(
        f"mysql+pymysql://root:{PASSWORD}@127.0.0.1:{port}/shop", pool_pre_ping=True)
    with engine.connect() as connection:
        rows = connection.execute(sqlalchemy.text(
            "SELECT id, price FROM items WHERE id < :n ORDER BY id"), {"n": 3}).all()
        check([tuple(r) for r in rows] == [(0, 1.5), (1, 2.5), (2, 3.5)],
              f"sqlalchemy rows: {rows!r}")
        names = sqlalchemy.inspect(connection).get_table_names()
        check("items" in names, f"sqlalchemy table names: {names!r}")
    engine.dispose()


def test_privileges(port, work):
    """Users and privileges: every statement kind checked, denials with MySQL's codes that
    change nothing, grants and revokes taking effect at once, passwords never stored."""
    def as_alice(sql, password="alice-1"):
        return mariadb(port, sql, password=password, user="alice")

    def denied(done, code, what):
        check(done.returncode != 0 and f"ERROR {code} " in done.stderr,
              f"{what}: expected {code}, got {done.stdout!r} {done.stderr!r}")

    done = mariadb(port, "CREATE USER 'alice'@'%' IDENTIFIED BY 'alice-1'; SHOW GRANTS FOR alice")
    check(done.returncode == 0 and "GRANT USAGE ON *.* TO `alice`@`%`" in done.stdout,
          f"CREATE USER / SHOW GRANTS: {done.stdout!r} {done.stderr!r}")
    denied(mariadb(port, "CREATE USER alice IDENTIFIED BY 'x'"), 1396, "CREATE USER twice")
    denied(as_alice("SELECT count(*) FROM shop.items"), 1142, "SELECT without SELECT")
    denied(as_alice("SELECT * FROM tessera_index_entries(\"table\" = 'shop.items')"), 1142,
           "tessera_index_entries without SHOW")
    done = mariadb(port, "GRANT SELECT ON shop.* TO alice")
    check(done.returncode == 0, f"GRANT SELECT: {done.stderr!r}")
    done = as_alice("SELECT count(*) AS n FROM shop.items")
    check(done.returncode == 0 and done.stdout.split()[0] == "n", f"SELECT with SELECT: {done!r}")
    denied(as_alice("SHOW INDEX FROM shop.items"), 1142, "SHOW INDEX without SHOW")
    denied(as_alice("CREATE INDEX alice_idx ON shop.items (id) USING BTREE"), 1142,
           "CREATE INDEX without ALTER")
    denied(as_alice("INSERT INTO shop.items SELECT * FROM shop.items"), 1142,
           "INSERT without ALTER")
    denied(as_alice("CREATE DATABASE alices"), 1044, "CREATE DATABASE without ALTER")
    denied(as_alice("SELECT count(*) FROM read_parquet('/etc/hostname')"), 1227,
           "read_parquet by a non-administrator")
    denied(as_alice("CREATE USER bob IDENTIFIED BY 'x'"), 1227, "CREATE USER by a non-admin")
    denied(as_alice("GRANT ALL ON *.* TO alice"), 1227, "GRANT by a non-admin")
    done = as_alice("SELECT DISTINCT user FROM information_schema.processlist")
    check(done.returncode == 0 and done.stdout.split() == ["user", "alice"],
          f"a non-administrator sees only its own connections: {done.stdout!r} {done.stderr!r}")
    done = mariadb(port, "SHOW INDEX FROM shop.items")
    check("alice_idx" not in done.stdout, "a denied CREATE INDEX did nothing")
    done = mariadb(port, "GRANT SHOW, ALTER ON shop.items TO 'alice'@'%'")
    check(done.returncode == 0, f"GRANT SHOW, ALTER: {done.stderr!r}")
    done = as_alice("CREATE INDEX alice_idx ON shop.items (id) USING BTREE; "
                    "SHOW INDEX FROM shop.items; SHOW GRANTS")
    check(done.returncode == 0 and "alice_idx" in done.stdout and
          "GRANT SHOW, ALTER ON `shop`.`items` TO `alice`@`%`" in done.stdout,
          f"with SHOW and ALTER: {done.stdout!r} {done.stderr!r}")
    done = as_alice("ALTER USER alice IDENTIFIED BY 'alice-2'")
    check(done.returncode == 0, f"ALTER USER of oneself: {done.stderr!r}")
    denied(as_alice("SELECT 1"), 1045, "the old password after ALTER USER")
    done = mariadb(port, "REVOKE SELECT ON shop.* FROM alice")
    check(done.returncode == 0, f"REVOKE: {done.stderr!r}")
    denied(as_alice("SELECT id FROM shop.items LIMIT 1", password="alice-2"), 1142,
           "SELECT after REVOKE")
    denied(mariadb(port, "REVOKE SELECT ON shop.* FROM alice"), 1141, "REVOKE of nothing")
    done = mariadb(port, "SET PASSWORD FOR alice = 'alice-3'")
    check(done.returncode == 0, f"SET PASSWORD FOR: {done.stderr!r}")
    denied(as_alice("SELECT 1", password="alice-2"), 1045, "the old password after SET PASSWORD")
    done = as_alice("SELECT 1", password="alice-3")
    check(done.returncode == 0, f"the new password after SET PASSWORD: {done.stderr!r}")
    done = mariadb(port, "DROP USER alice")
    check(done.returncode == 0, f"DROP USER: {done.stderr!r}")
    denied(as_alice("SELECT 1", password="alice-3"), 1045, "a dropped user")
    for name in ("users", "grants"):
        path = os.path.join(work, "catalog", "_system", name)
        text = open(path).read()
        check(all(p not in text for p in ("alice-1", "alice-2", "alice-3")),
              f"no password in {name}")
        check(oct(os.stat(path).st_mode & 0o777) == "0o600", f"{name} is private")


def write_items(path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    ids = list(range(100))
    table = pa.table({"id": pa.array(ids, pa.int64()),
                      "category": pa.array([["a", "b", "c"][i % 3] for i in ids]),
                      "price": pa.array([1.5 + i for i in ids], pa.float64())})
    pq.write_table(table, path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--malformed-packets", type=int, default=10000)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(os.path.join(args.work, "catalog"))
    data = os.path.join(args.work, "items.parquet")
    write_items(data)
    config = os.path.join(args.work, "server.conf")
    with open(config, "w") as f:
        f.write("# test limits\nmax_connections = 4\nhandshake_timeout = 2\nidle_timeout = 3\n"
                "max_allowed_packet = 1048576\nstatement_threads = 2\n")
    server = Server(args.cli, os.path.join(args.work, "catalog"), config)
    try:
        test_mariadb(server.port, data)
        test_pymysql(server.port)
        test_connector(server.port)
        test_sqlalchemy(server.port)
        test_privileges(server.port, args.work)
        test_bad_input(server.port)
        sent = test_malformed_packets(server.port, args.malformed_packets)
        print(f"server.clients: {sent} malformed packets sent", flush=True)
    finally:
        code = server.stop()
    check(code == 0, f"SIGTERM: exit status {code}")
    log = server.log_text()
    check(PASSWORD not in log, "the password appears in the server's log")
    check(all(p not in log for p in ("alice-1", "alice-2", "alice-3")),
          "a user's password appears in the log")
    check("statement kind=SELECT" in log, "statements are logged")
    users = open(os.path.join(args.work, "catalog", "_system", "users")).read()
    check(PASSWORD not in users and oct(os.stat(os.path.join(args.work, "catalog", "_system",
                                                            "users")).st_mode & 0o777) == "0o600",
          "the users file holds no password and is private")
    test_empty_password(args.cli, args.work, config)
    test_tls_and_full_authentication(args.cli, args.work)
    if failures:
        print(f"{len(failures)} check(s) failed; server log:\n{log[-4000:]}")
        return 1
    print("server.clients: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
