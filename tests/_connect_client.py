"""Runs one scenario of the Python API on a Spark Connect session:

    python _connect_client.py sc://127.0.0.1:PORT SCENARIO

Exits 0 when it passes; a failure prints its traceback and exits 1. Scenarios are the functions of
`_table_api_scenarios` (run alike on a classic session by test_table_api) and the ones below."""

import sys
import traceback
import uuid

from pyspark.sql import SparkSession

import lamina  # noqa: F401 - maps Lamina errors raised on the server to lamina.errors
import _table_api_scenarios as scenarios

CATALOG = "lamina"


def main(url: str, scenario: str) -> int:
    spark = SparkSession.builder.remote(url).getOrCreate()
    assert type(spark).__module__.startswith("pyspark.sql.connect"), type(spark)
    db = "connect_" + uuid.uuid4().hex[:8]
    spark.sql(f"CREATE NAMESPACE {CATALOG}.{db}")
    try:
        getattr(scenarios, scenario)(spark, CATALOG, db)
        return 0
    except Exception:  # noqa: BLE001 - the test reads it from the output
        traceback.print_exc()
        return 1
    finally:
        spark.sql(f"DROP NAMESPACE IF EXISTS {CATALOG}.{db} CASCADE")
        spark.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
