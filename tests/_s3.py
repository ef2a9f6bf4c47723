"""A private S3-compatible server on a free loopback port (`_s3_server.py`: moto's S3, with request
counts and fault injection), and the class path that gives Spark Hadoop's S3A connector.

The S3A jars (hadoop-aws for Spark 4.0's Hadoop 3.4.1 and the AWS SDK bundle it was built with) are
fetched from Maven into `.cache/s3-jars` by `make s3-jars`, which `make test` runs."""

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

from _support import free_port

REPO = Path(__file__).resolve().parents[1]
JARS_DIR = REPO / ".cache" / "s3-jars"
ACCESS_KEY = "lamina-test"
SECRET_KEY = "lamina-test-secret"


class S3Unavailable(Exception):
    """The server or the S3A jars could not be set up; the message says why."""


def class_path() -> str:
    """The S3A jars, joined for `spark.driver.extraClassPath`."""
    jars = sorted(JARS_DIR.glob("*.jar"))
    names = {j.name.split("-")[0] for j in jars}
    if not {"hadoop", "bundle"} <= names:
        raise S3Unavailable(f"the S3A jars are not in {JARS_DIR}: run `make s3-jars` (make test does)")
    return os.pathsep.join(str(j) for j in jars)



class S3Server:
    """`with S3Server() as s3:` a running server with a new bucket (`s3.bucket`); stopped at the end."""

    def __init__(self):
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.process = None
        # a bucket of its own: Hadoop keeps one S3A client per bucket and JVM, made with the settings
        # (the endpoint among them) of whoever opened the bucket first
        self.bucket = f"lamina-{uuid.uuid4().hex[:12]}"

    def __enter__(self) -> "S3Server":
        script = Path(__file__).resolve().parent / "_s3_server.py"
        # the server logs each request: to a file, which (unlike a pipe nobody reads) never fills up
        self.log = tempfile.NamedTemporaryFile(prefix="lamina-s3-", suffix=".log", delete=False)
        self.process = subprocess.Popen([sys.executable, str(script), str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 60
        while True:
            try:
                self.counts()
                break
            except OSError:
                if self.process.poll() is not None:
                    raise S3Unavailable(f"the S3 server did not start: {Path(self.log.name).read_text()[-2000:]}")
                if time.time() > deadline:
                    self.__exit__(None, None, None)
                    raise S3Unavailable(f"the S3 server did not answer on {self.endpoint} within 60 s")
                time.sleep(0.2)
        self.client().create_bucket(Bucket=self.bucket)
        return self

    def __exit__(self, *exc):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None:
            self.log.close()
            os.unlink(self.log.name)

    # ---- what the tests read and set ----

    def warehouse(self, name: str = None) -> str:
        """A new warehouse URI in the bucket."""
        return f"s3a://{self.bucket}/{name or 'wh-' + uuid.uuid4().hex[:10]}"

    def catalog_options(self, **more) -> dict:
        """The catalog options (Paimon's names) that point S3A at this server."""
        options = {
            "s3.endpoint": self.endpoint,
            "s3.access-key": ACCESS_KEY,
            "s3.secret-key": SECRET_KEY,
            "s3.path.style.access": "true",
            "s3.endpoint.region": "us-east-1",
            "s3.connection.ssl.enabled": "false",
            # a request the server holds is given up after 3 s, so a fault test does not wait a minute
            "s3.connection.request.timeout": "3s",
            "s3.retry.interval": "50ms",
        }
        options.update(more)
        return options

    def hadoop_conf(self) -> dict:
        """The same settings as Hadoop keys (`spark.hadoop.<key>` or `lamina.configure(hadoop_conf=...)`)."""
        return {"fs.s3a." + k[len("s3."):].replace("access-key", "access.key").replace("secret-key", "secret.key"): v
                for k, v in self.catalog_options().items()}

    def client(self):
        import boto3
        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=ACCESS_KEY,
                            aws_secret_access_key=SECRET_KEY, region_name="us-east-1")

    def keys(self, prefix: str) -> list:
        """The object keys under `prefix` (a key, not a URI)."""
        out, token = [], None
        while True:
            args = {"Bucket": self.bucket, "Prefix": prefix}
            if token:
                args["ContinuationToken"] = token
            page = self.client().list_objects_v2(**args)
            out += [o["Key"] for o in page.get("Contents", [])]
            if not page.get("IsTruncated"):
                return out
            token = page["NextContinuationToken"]

    def read(self, key: str) -> bytes:
        return self.client().get_object(Bucket=self.bucket, Key=key)["Body"].read()

    def _control(self, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.endpoint + "/_lamina/" + path, data=data,
                                         method="GET" if body is None and path != "reset" else "POST")
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.loads(r.read())

    def counts(self) -> dict:
        return self._control("counts")

    def reset_counts(self) -> None:
        self._control("reset", {})

    def inject(self, rules: list) -> None:
        """Fault rules for the next requests (see `_s3_server.py`)."""
        self._control("faults", rules)

    def pending_faults(self) -> list:
        return self._control("faults")
