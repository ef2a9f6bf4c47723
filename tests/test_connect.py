"""The `lamina` package on a Spark Connect session: a Connect server started here on loopback with the
Lamina jar and catalog, and the Python API's scenarios run against it from client processes."""

import pytest

from _connect import ConnectServer


@pytest.fixture(scope="module")
def server():
    with ConnectServer() as s:
        yield s


@pytest.mark.parametrize("scenario", ["columns_and_metrics", "maintenance", "upsert_stream_compact_expire", "restore"])
def test_python_api_on_spark_connect(server, scenario):
    done = server.run(scenario)
    assert done.returncode == 0, f"{scenario} failed on Spark Connect:\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
