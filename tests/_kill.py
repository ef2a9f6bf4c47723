"""kill -9 of a writer process in the middle of its work: a Spark session of its own runs steps against
one table, printing `DONE <step>` after each whole step, until the test kills its process group."""

import os
import random
import signal
import subprocess
import sys
import time

from _support import sql_rows

# The writer's session; a step script follows it, reading `warehouse`, `table` (db.name), `start` (its first
# step's number) and `args` (the rest of argv).
_SESSION = r"""
import sys
from pyspark.sql import SparkSession
import lamina
warehouse, table, start, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
builder = (SparkSession.builder.master("local[2]").appName("lamina-kill")
    .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2"))
spark = lamina.configure(builder, warehouse=warehouse, catalog="lamina").getOrCreate()
spark.sparkContext.setLogLevel("OFF")
"""


def steps(*statements) -> str:
    """A step script that runs `statements` in each step r, each a SQL template of `{table}` (db.name),
    `{r}`, `{n}` (the script's first argument) and `{buckets}` (2, 3 or 4: another count each step)."""
    return f"""
n = int(args[0]) if args else 0
for r in range(start, start + 1000):
    for s in {list(statements)!r}:
        spark.sql(s.format(table=table, r=r, n=n, buckets=2 + r % 3))
    print(f"DONE {{r}}", flush=True)
"""


def kill_during(steps, warehouse, table, start, rnd, *args) -> int:
    """Runs the step script `steps` from step `start` in a writer process and kills it (SIGKILL to its
    process group) a random 0.5 to 3 s after its first step; the last step it reported whole."""
    env = dict(os.environ, TZ="UTC", PYSPARK_PYTHON=sys.executable)
    proc = subprocess.Popen([sys.executable, "-c", _SESSION + steps, warehouse, table, str(start), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                            start_new_session=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("DONE"), f"the writer failed before its first step (exit {proc.poll()})"
        time.sleep(rnd.uniform(0.5, 3.0))
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    return max(int(x.split()[1]) for x in [line] + out.splitlines() if x.startswith("DONE"))


def kills() -> int:
    """How many writers a kill test kills: more under `make stress` (LAMINA_STRESS=1)."""
    return 3 if os.environ.get("LAMINA_STRESS") == "1" else 1


def outlive_kills(spark, steps, warehouse, table, state, expected, *args, check=lambda: None, rounds=None,
                  seed=20261129) -> int:
    """Kills `rounds` writers (default: `kills()`) running `steps` from step 1 on, each going on from the last
    step before it. After each kill the query `state` reads `expected(c)` (sorted rows), for c the last step
    the writer reported whole or the one after (the step in flight landed whole), and `check()` holds; the
    last whole step."""
    rnd = random.Random(seed)
    committed = 0
    for kill in range(kills() if rounds is None else rounds):
        committed = kill_during(steps, warehouse, table, committed + 1, rnd, *args)
        rows = sql_rows(spark, state)
        landed = [c for c in (committed, committed + 1) if rows == expected(c)]
        assert landed, (kill, committed, rows)
        committed = landed[0]
        check()
    return committed
