"""A streaming query killed with SIGKILL at random points (its driver JVM included) and restarted from
its checkpoint each time delivers every row of its source exactly once: no row lost, none twice, and
one sink snapshot per micro-batch id."""

import os
import random
import signal
import subprocess
import sys
import time

from _support import read_snapshot, snapshot_ids, sql_rows

CAT = "lamina"

# How many times the query is killed (each kill costs a JVM start and its batches, about twenty seconds on two cores): 5
# in `make test`, 30 in `make stress` (LAMINA_STRESS=1); LAMINA_STREAM_KILL_POINTS sets another number.
_STRESS = os.environ.get("LAMINA_STRESS") == "1"
KILL_POINTS = int(os.environ.get("LAMINA_STREAM_KILL_POINTS", "30" if _STRESS else "5"))
SEED = 20261126
# at least two source commits (micro-batches) between kill points, so that every kill lands further on
SOURCE_COMMITS = max(18, 2 * (KILL_POINTS + 1))

_JOB = r"""
import sys
from pyspark.sql import SparkSession
import lamina
warehouse, source, target, checkpoint = sys.argv[1:5]
builder = (SparkSession.builder.master("local[1]").appName("lamina-stream-kill")
    .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1"))
spark = lamina.configure(builder, warehouse=warehouse, catalog="lamina").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
q = (spark.readStream.option("read.stream.maxFilesPerTrigger", "1").table(source).writeStream
     .option("checkpointLocation", checkpoint).trigger(processingTime="0 seconds").toTable(target))
print("started", flush=True)
q.awaitTermination()
"""


def _await(condition, proc, timeout=120.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, "the streaming job died on its own"
        assert time.monotonic() < deadline, "the streaming job made no progress"
        time.sleep(0.05)


def test_killed_and_restarted_query_delivers_each_row_once(spark, warehouse, db, tmp_path):
    src, dst = f"{CAT}.{db}.src", f"{CAT}.{db}.dst"
    spark.sql(f"CREATE TABLE {src} (id INT, v STRING)")
    spark.sql(f"CREATE TABLE {dst} (id INT, v STRING)")
    for i in range(SOURCE_COMMITS):
        spark.sql(f"INSERT INTO {src} VALUES ({2 * i}, 'v{i}'), ({2 * i + 1}, 'w{i}')")
    job = tmp_path / "job.py"
    job.write_text(_JOB)
    ckpt = str(tmp_path / "ckpt")
    rng = random.Random(SEED)
    step = SOURCE_COMMITS // (KILL_POINTS + 1)
    for k in range(KILL_POINTS):
        proc = subprocess.Popen([sys.executable, str(job), warehouse, src, dst, ckpt], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            assert proc.stdout.readline().strip() == "started"
            # the kill points spread over the run: once the sink holds about k * step batches, anywhere in
            # the next one (reading, writing files, committing, recording the commit)
            _await(lambda: len(snapshot_ids(warehouse, db, "dst")) >= k * step, proc)
            time.sleep(rng.uniform(0.0, 1.5))
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    # the last run finishes what is left
    q = (spark.readStream.table(src).writeStream.option("checkpointLocation", ckpt)
         .trigger(availableNow=True).toTable(dst))
    q.awaitTermination(300)
    assert q.exception() is None
    assert sql_rows(spark, f"SELECT * FROM {dst}") == sql_rows(spark, f"SELECT * FROM {src}")
    appends = [read_snapshot(warehouse, db, "dst", i) for i in snapshot_ids(warehouse, db, "dst")]
    identifiers = [s["commitIdentifier"] for s in appends if s["commitKind"] == "APPEND"]
    assert identifiers == sorted(set(identifiers))  # no micro-batch committed twice
    assert len({s["commitUser"] for s in appends}) == 1
