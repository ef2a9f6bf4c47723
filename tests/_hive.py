"""A Hive metastore for the tests: a thrift server (Hive 2.3's `HiveMetaStore`, from the jars PySpark
ships) on a free loopback port, keeping its tables in Derby under a temporary directory, started and
stopped by the caller; and the options of an embedded (in-process) metastore.

Hive's transaction tables, which its lock manager (the commit lock's) needs, are created in the fresh
Derby database before the server starts (`fixtures/HiveTxnTables.java`); the server runs with
`hive.in.test`, which lets it use them without Hive's schema tool."""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape

import pyspark

from _support import free_port

_STARTUP_SECONDS = 120



def _site(properties: dict) -> str:
    body = "".join(f"<property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n"
                   for k, v in properties.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n'


def derby_url(directory) -> str:
    return f"jdbc:derby:;databaseName={directory};create=true"


def embedded_options(directory) -> dict:
    """Catalog options of an embedded metastore keeping its tables in Derby at `directory`. Derby lets
    one process open a database: every embedded catalog of a process shares it."""
    return {"metastore": "hive", "javax.jdo.option.ConnectionURL": derby_url(directory)}


class MetastoreServer:
    """`with MetastoreServer() as uri:` runs a thrift metastore for the block."""

    def __enter__(self) -> str:
        self.base = Path(tempfile.mkdtemp(prefix="lamina-hms-"))
        conf = self.base / "conf"
        conf.mkdir()
        (conf / "hive-site.xml").write_text(_site({
            "javax.jdo.option.ConnectionURL": derby_url(self.base / "metastore_db"),
            "datanucleus.schema.autoCreateAll": "true",
            "datanucleus.connectionPoolingType": "HikariCP",
            "hive.metastore.schema.verification": "false",
            "hive.metastore.warehouse.dir": str(self.base / "warehouse"),
            "hive.async.log.enabled": "false",
            "hive.in.test": "true",
        }))
        self.jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
        assert glob.glob(os.path.join(self.jars, "hive-metastore-*.jar")), f"no Hive metastore jar in {self.jars}"
        self.port = free_port()
        self.log = open(self.base / "server.log", "w")
        self._create_transaction_tables()
        self.start()
        self.uri = f"thrift://127.0.0.1:{self.port}"
        return self.uri

    def _create_transaction_tables(self):
        source = Path(__file__).resolve().parent / "fixtures" / "HiveTxnTables.java"
        done = subprocess.run(["java", "-cp", f"{self.base / 'conf'}:{self.jars}/*", str(source)],
                              stdout=self.log, stderr=subprocess.STDOUT, cwd=self.base, timeout=_STARTUP_SECONDS)
        if done.returncode != 0:
            raise AssertionError(f"could not create the metastore's transaction tables:\n{self._tail()}")

    def start(self):
        """Starts the server (again, after `stop`, on the same port and database)."""
        conf = self.base / "conf"
        self.process = subprocess.Popen(
            ["java", "-Xmx512m", f"-Dhive.log.dir={self.base}", "-Dderby.stream.error.file=" + str(self.base / "derby.log"),
             "-cp", f"{conf}:{self.jars}/*", "org.apache.hadoop.hive.metastore.HiveMetaStore", "-p", str(self.port)],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.base)
        deadline = time.time() + _STARTUP_SECONDS
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"the Hive metastore exited ({self.process.returncode}):\n{self._tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if time.time() > deadline:
                    self.__exit__(None, None, None)
                    raise AssertionError(f"the Hive metastore did not listen within {_STARTUP_SECONDS} s:\n{self._tail()}")
                time.sleep(0.5)

    def _tail(self) -> str:
        self.log.flush()
        return (self.base / "server.log").read_text()[-4000:]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __exit__(self, *exc):
        self.stop()
        self.log.close()
        shutil.rmtree(self.base, ignore_errors=True)
        return False
