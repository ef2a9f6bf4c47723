"""A private PostgreSQL server on a free loopback port, for the JDBC metastore's tests and benchmark:
a cluster made by `initdb` in a fresh directory under the system temp directory (which the `postgres`
user can reach), run by `pg_ctl`, with one database `catalog` owned by the trust-authenticated user
`lamina`. PostgreSQL refuses to run as root: its binaries then run as the `postgres` user.

`stop()` and `start()` may be called in between, to take the server away from clients and bring it
back on the same port with the same data."""

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from _support import free_port

USER = "lamina"


class PostgresUnavailable(Exception):
    """The server could not be set up on this machine; the message says why."""



def _run(args, check=True):
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    done = subprocess.run(prefix + args, capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise PostgresUnavailable(f"{' '.join(args)} failed: {done.stdout}{done.stderr}")
    return done


class PostgresServer:
    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            raise PostgresUnavailable("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")
        self.bindir = os.path.dirname(bins[-1])
        self.base = Path(tempfile.mkdtemp(prefix="lamina-postgres-"))
        self.data = self.base / "data"
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres")
        self.port = free_port()
        self.uri = f"jdbc:postgresql://127.0.0.1:{self.port}/catalog"
        self.running = False

    def setup(self) -> "PostgresServer":
        """initdb, start, createdb; the directory is removed again when a step fails."""
        try:
            _run([f"{self.bindir}/initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8"])
            self.start()
            _run([f"{self.bindir}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "catalog"])
        except BaseException:
            self.teardown()
            raise
        return self

    def start(self) -> None:
        _run([f"{self.bindir}/pg_ctl", "-D", str(self.data), "-l", str(self.base / "log"), "-w", "-o",
              f"-p {self.port} -h 127.0.0.1 -k {self.base}", "start"])
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        """`mode` as pg_ctl's -m: `immediate` drops every connection at once, as a crash does."""
        _run([f"{self.bindir}/pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop"])
        self.running = False

    def psql(self, query: str) -> list:
        """The rows of `query` in database `catalog`, each a tuple of strings."""
        done = _run([f"{self.bindir}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", "catalog",
                     "-At", "-F", "\t", "-c", query])
        return [tuple(line.split("\t")) for line in done.stdout.splitlines() if line]

    def teardown(self) -> None:
        if self.running:
            _run([f"{self.bindir}/pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop"], check=False)
            self.running = False
        shutil.rmtree(self.base, ignore_errors=True)


def postgres_server():
    """A generator for a pytest fixture: yields a running server, stops and removes it afterwards. A
    server that cannot start fails the tests that use it (CI must not skip them)."""
    try:
        server = PostgresServer().setup()
    except PostgresUnavailable as e:
        raise AssertionError(str(e)) from e
    try:
        yield server
    finally:
        server.teardown()
