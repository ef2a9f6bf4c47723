"""A Spark Connect server for the tests: PySpark's own (`SparkConnectServer`, shipped in its jars),
started with spark-submit on 127.0.0.1:PORT with the Lamina jar and a Lamina catalog named `lamina`
on a temporary warehouse, as a platform would configure it. Clients run in their own processes
(`_connect_client.py`): a Connect session switches PySpark's functions to Connect for the whole
process, which the classic session of the other tests must not see."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyspark

import lamina
from _support import free_port

_STARTUP_SECONDS = 180
TESTS = Path(__file__).resolve().parent


class ConnectServer:
    """`with ConnectServer() as server:` runs the server for the block; `server.url` is `sc://...`."""

    def __enter__(self) -> "ConnectServer":
        self.base = Path(tempfile.mkdtemp(prefix="lamina-connect-"))
        self.warehouse = self.base / "warehouse"
        self.port = free_port()
        self.url = f"sc://127.0.0.1:{self.port}"
        spark_submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
        conf = {
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.sql.extensions": "lamina.spark.LaminaSparkSessionExtensions",
            "spark.sql.catalog.lamina": "lamina.spark.LaminaCatalog",
            "spark.sql.catalog.lamina.warehouse": str(self.warehouse),
            "spark.sql.session.timeZone": "UTC",
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.driver.memory": "1g",
        }
        command = [spark_submit, "--master", "local[2]", "--jars", lamina.jar_path(),
                   "--class", "org.apache.spark.sql.connect.service.SparkConnectServer"]
        for key, value in conf.items():
            command += ["--conf", f"{key}={value}"]
        self.log = open(self.base / "server.log", "w")
        env = dict(os.environ, PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                        start_new_session=True)
        deadline = time.monotonic() + _STARTUP_SECONDS
        while "SparkConnectServer: Spark Connect server started" not in self._tail(200000):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise AssertionError(f"the Spark Connect server did not start:\n{self._tail()}")
            time.sleep(0.5)
        return self

    def _tail(self, size: int = 6000) -> str:
        path = self.base / "server.log"
        return path.read_text(errors="replace")[-size:] if path.exists() else ""

    def run(self, scenario: str, timeout: int = 600) -> subprocess.CompletedProcess:
        """Runs `_connect_client.py scenario` against this server; its output is in the result."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_") and k != "SPARK_REMOTE"}
        return subprocess.run([sys.executable, str(TESTS / "_connect_client.py"), self.url, scenario],
                              capture_output=True, text=True, timeout=timeout, env=env, cwd=TESTS)

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
        self.log.close()
        return False
