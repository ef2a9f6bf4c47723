"""kill -9 of a Spark application (driver and executors) while it writes a table with deletion vectors,
at random points of its writes and their lookup compactions: the table reads as it stood after some
whole number of writes (a write whose compaction did not land stays in level 0, unread, until the next
write's compaction takes it), nothing is corrupt, and the next write works."""

import os
import random
import signal
import subprocess
import sys
import time

from _support import sql_rows

CAT = "lamina"
KEYS = 60000
KILLS = 3

_SCRIPT = r"""
import sys
from pyspark.sql import SparkSession
import lamina
warehouse, table, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
builder = (SparkSession.builder.master("local[2]").appName("lamina-kill")
    .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2"))
spark = lamina.configure(builder, warehouse=warehouse, catalog="lamina").getOrCreate()
spark.sparkContext.setLogLevel("OFF")
for r in range(start, start + 1000):
    spark.sql(f"INSERT INTO lamina.{table} SELECT id, {r}, 'w' FROM range(0, %d) WHERE id %% 4 = {r %% 4}")
    print(f"DONE {r}", flush=True)
""" % KEYS


def _state(rounds: int) -> dict:
    """a of each key after writes 1..rounds (round r writes the keys with id % 4 == r % 4)."""
    last = {m: 0 for m in range(4)}
    for r in range(1, rounds + 1):
        last[r % 4] = r
    return last


def _read(spark, name):
    rows = sql_rows(spark, f"SELECT id % 4, a, count(*) FROM {name} GROUP BY id % 4, a")
    return {m: a for m, a, n in rows if n == KEYS // 4}, len(rows)


def test_kill_9_during_writes_and_lookup_compaction_loses_nothing(spark, warehouse, db):
    name = f"{db}.t"
    spark.sql(f"CREATE TABLE {CAT}.{name} (id BIGINT, a INT, b STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '2', 'deletion-vectors.enabled' = 'true')")
    spark.sql(f"INSERT INTO {CAT}.{name} SELECT id, 0, 'w' FROM range(0, {KEYS})")
    rnd = random.Random(20261126)
    committed = 0  # writes known to have returned
    env = dict(os.environ, TZ="UTC", PYSPARK_PYTHON=sys.executable)
    for kill in range(KILLS):
        proc = subprocess.Popen([sys.executable, "-c", _SCRIPT, warehouse, name, str(committed + 1)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                start_new_session=True)
        try:
            line = proc.stdout.readline()  # the first write of this run returned
            assert line.startswith("DONE"), f"the writer failed before its first write (exit {proc.poll()})"
            time.sleep(rnd.uniform(0.0, 4.0))
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        done = [int(l.split()[1]) for l in ([line] + out.splitlines()) if l.startswith("DONE")]
        before, committed = committed, max(done)
        state, groups = _read(spark, f"{CAT}.{name}")
        # each key once, at the state after `committed` writes, or one more (the write in flight landed)
        assert groups == 4, (kill, state)
        assert state in (_state(committed), _state(committed + 1)), (kill, before, committed, state)
        if state == _state(committed + 1):
            committed += 1
    # the next write works, and takes any write whose compaction was cut off with it
    nxt = committed + 1
    spark.sql(f"INSERT INTO {CAT}.{name} SELECT id, {nxt}, 'w' FROM range(0, {KEYS}) WHERE id % 4 = {nxt % 4}")
    state, groups = _read(spark, f"{CAT}.{name}")
    assert groups == 4 and state == _state(nxt), state
    assert sql_rows(spark, f"SELECT count(*), count(DISTINCT id) FROM {CAT}.{name}") == [(KEYS, KEYS)]
