"""Apache Paimon's own Spark connector as an interop oracle, run in a separate Spark process.

The connector's jar is looked for at `../shared/anchors/paimon-spark-4.0_2.13-*.jar` beside the
project (never a dependency of Lamina); tests that need it are skipped, saying so, where it is
absent. `run_sql` starts one PySpark process with Paimon's catalog `paimon` on the given warehouse,
runs the statements and returns the rows of each as lists of plain values (JSON-encoded across the
process boundary; dates and timestamps as ISO text)."""

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ANCHORS = REPO.parent / "shared" / "anchors"

_SCRIPT = r"""
import json, sys
from pyspark.sql import SparkSession
jar, warehouse, lamina_jar, options = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
statements = json.loads(sys.stdin.read())
builder = (SparkSession.builder.master("local[1]").appName("paimon-oracle")
    .config("spark.ui.enabled", "false")
    .config("spark.jars", jar + ("," + lamina_jar if lamina_jar else ""))
    .config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
    .config("spark.sql.catalog.paimon.warehouse", warehouse)
    .config("spark.sql.extensions", "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions"
            + (",lamina.spark.LaminaSparkSessionExtensions" if lamina_jar else ""))
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC"))
for key, value in options.items():
    builder = builder.config("spark.sql.catalog.paimon." + key, value)
if lamina_jar:
    builder = (builder.config("spark.sql.catalog.lamina", "lamina.spark.LaminaCatalog")
               .config("spark.sql.catalog.lamina.warehouse", warehouse))
spark = builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
out = []
for s in statements:
    rows = spark.sql(s).collect()
    out.append([[v.isoformat() if hasattr(v, "isoformat") else (str(v) if v.__class__.__name__ == "Decimal" else v)
                 for v in r] for r in rows])
print("RESULT" + json.dumps(out))
"""


def paimon_jar():
    found = sorted(glob.glob(str(ANCHORS / "paimon-spark-4.0_2.13-*.jar")))
    return found[-1] if found else None


def require_paimon():
    jar = paimon_jar()
    if jar is None:
        pytest.skip(f"Apache Paimon's Spark connector is not at {ANCHORS}: interop with it not tested")
    return jar


def _cause(stderr: str) -> str:
    """The process's error output without stack frames, so that every exception's message shows."""
    lines = [ln for ln in stderr.splitlines() if not ln.lstrip().startswith(("at ", "... "))]
    return "\n".join(lines)[-4000:]


def run_sql(warehouse: str, statements, lamina_jar: str = "", paimon_options=None):
    """With `lamina_jar`, the process also has Lamina's catalog `lamina` on the same warehouse and its
    session extensions listed after Paimon's. `paimon_options` are further options of Paimon's catalog
    (`metastore`, `uri`, ...)."""
    jar = require_paimon()
    env = dict(os.environ, TZ="UTC")
    done = subprocess.run([sys.executable, "-c", _SCRIPT, jar, warehouse, lamina_jar, json.dumps(paimon_options or {})], input=json.dumps(list(statements)),
                          capture_output=True, text=True, env=env, timeout=600)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT"):
            return json.loads(line[len("RESULT"):])
    raise AssertionError(f"Paimon's connector failed (exit {done.returncode}):\n{_cause(done.stderr)}")
