"""Executors in JVMs of their own (`local-cluster[2,1,1024]`): a primary-key write, MERGE, DELETE and
compaction, the same writes to a table with deletion vectors (lookup compaction, each executor with its own
lookup files and cache), DELETE and UPDATE of a partitioned fixed-bucket append table (copy-on-write, and with
deletion vectors, whose positions the executors collect, then compacted), keys moving between partitions
(cross-partition upsert, each task's key index built in its executor), and a
streaming query from one primary-key table into another, give the same rows as in one JVM, so nothing an
executor does relies on state the driver
set up (an option registry filled by side effects, a singleton, a cache)."""

import json
import os
import subprocess
import sys

_SCRIPT = r"""
import json, sys
from pyspark.sql import SparkSession
import lamina
warehouse = sys.argv[1]
builder = (SparkSession.builder.master("local-cluster[2,1,1024]").appName("lamina-local-cluster")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "4")
    .config("spark.executor.memory", "1g")
    .config("spark.scheduler.minRegisteredResourcesRatio", "1.0")
    .config("spark.sql.session.timeZone", "UTC"))
spark = lamina.configure(builder, warehouse=warehouse, catalog="lamina").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
spark.sql("CREATE NAMESPACE lamina.d")
spark.sql("CREATE TABLE lamina.d.t (id INT NOT NULL, v STRING, n BIGINT) TBLPROPERTIES "
          "('primary-key' = 'id', 'bucket' = '4', 'merge-engine' = 'partial-update')")
spark.sql("CREATE TABLE lamina.d.tdv (id INT NOT NULL, v STRING, n BIGINT) TBLPROPERTIES "
          "('primary-key' = 'id', 'bucket' = '4', 'merge-engine' = 'partial-update', 'deletion-vectors.enabled' = 'true')")
for t in ("t", "tdv"):
    spark.sql(f"INSERT INTO lamina.d.{t} SELECT id, CONCAT('v', id), NULL FROM range(200)")
    spark.sql(f"INSERT INTO lamina.d.{t} SELECT id, NULL, id * 10 FROM range(100, 300)")
    spark.sql(f"MERGE INTO lamina.d.{t} t USING (SELECT id, 'm' AS v FROM range(0, 400, 3)) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (id, v, n) VALUES (s.id, s.v, -1)")
dvrows = sorted(tuple(r) for r in spark.sql("SELECT id, v, n FROM lamina.d.tdv").collect())
spark.sql("CREATE TABLE lamina.d.k (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '3')")
spark.sql("INSERT INTO lamina.d.k SELECT id, CONCAT('k', id) FROM range(100)")
spark.sql("DELETE FROM lamina.d.k WHERE id % 4 = 0")
spark.sql("UPDATE lamina.d.k SET v = 'u' WHERE id % 5 = 0")
arows = {}
for t, dv in (("a", "false"), ("adv", "true")):  # copy-on-write, then rows marked in deletion vectors
    spark.sql(f"CREATE TABLE lamina.d.{t} (id INT, v STRING, p INT) PARTITIONED BY (p) TBLPROPERTIES "
              f"('bucket' = '2', 'bucket-key' = 'id', 'deletion-vectors.enabled' = '{dv}')")
    spark.sql(f"INSERT INTO lamina.d.{t} SELECT id, CONCAT('a', id), id % 3 FROM range(100)")
    spark.sql(f"DELETE FROM lamina.d.{t} WHERE id % 4 = 0")
    spark.sql(f"UPDATE lamina.d.{t} SET v = 'u' WHERE id % 5 = 0")
    arows[t] = sorted(tuple(r) for r in spark.sql(f"SELECT id, v, p FROM lamina.d.{t}").collect())
spark.sql("CALL lamina.sys.compact(table => 'd.adv')")  # the vectors applied and dropped
arows["adv_compacted"] = sorted(tuple(r) for r in spark.sql("SELECT id, v, p FROM lamina.d.adv").collect())
compacted = [r[0] for r in spark.sql("CALL lamina.sys.compact(table => 'd.t')").collect()]
rows = sorted(tuple(r) for r in spark.sql("SELECT id, v, n FROM lamina.d.t").collect())
krows = sorted(tuple(r) for r in spark.sql("SELECT id, v FROM lamina.d.k").collect())
# a streaming query whose readers and writers run in the executors: the primary-key table k into a copy
spark.sql("CREATE TABLE lamina.d.kc (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
q = (spark.readStream.table("lamina.d.k").writeStream.option("checkpointLocation", warehouse + "/ckpt")
     .trigger(availableNow=True).toTable("lamina.d.kc"))
q.awaitTermination(300)
streamed = sorted(tuple(r) for r in spark.sql("SELECT id, v FROM lamina.d.kc").collect())
# a cross-partition upsert: each executor's tasks build the key index of their share of keys
spark.sql("CREATE TABLE lamina.d.x (id INT NOT NULL, p INT NOT NULL, v STRING) PARTITIONED BY (p) TBLPROPERTIES "
          "('primary-key' = 'id', 'dynamic-bucket.target-row-num' = '20')")
spark.sql("INSERT INTO lamina.d.x SELECT id, id % 3, 'x' FROM range(200)")
spark.sql("INSERT INTO lamina.d.x SELECT id, (id + 1) % 3, 'w' FROM range(100, 300)")
spark.sql("DELETE FROM lamina.d.x WHERE id % 7 = 0")
xrows = sorted(tuple(r) for r in spark.sql("SELECT id, p, v FROM lamina.d.x").collect())
# counted after the jobs: executors register asynchronously, and jobs wait for all (ratio 1.0)
executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
print("RESULT" + json.dumps({"executors": executors, "compacted": compacted, "rows": rows, "k": krows, "a": arows,
                             "dv": dvrows, "streamed": streamed, "x": xrows}))
"""


def _expected():
    t = {}
    for i in range(200):
        t[i] = [f"v{i}", None]
    for i in range(100, 300):
        old = t.get(i, [None, None])
        t[i] = [old[0], i * 10]  # partial-update: NULLs keep what the row held
    for i in range(0, 400, 3):
        t[i] = ["m", t[i][1]] if i in t else ["m", -1]
    k = {i: f"k{i}" for i in range(100) if i % 4 != 0}
    for i in k:
        if i % 5 == 0:
            k[i] = "u"
    a = sorted([i, "u" if i % 5 == 0 else f"a{i}", i % 3] for i in range(100) if i % 4 != 0)
    return sorted([i, v, n] for i, (v, n) in t.items()), sorted([i, v] for i, v in k.items()), a


def test_dml_and_compaction_on_separate_executor_jvms(tmp_path):
    env = dict(os.environ, TZ="UTC", PYSPARK_PYTHON=sys.executable)
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(tmp_path / "wh")], capture_output=True, text=True,
                          env=env, timeout=900)
    lines = [l for l in done.stdout.splitlines() if l.startswith("RESULT")]
    assert lines, f"the local-cluster job failed (exit {done.returncode}):\n{done.stderr[-4000:]}"
    result = json.loads(lines[0][len("RESULT"):])
    assert result["executors"] == 2
    assert result["compacted"][0] is not None
    expected_t, expected_k, expected_a = _expected()
    assert [list(r) for r in result["rows"]] == expected_t
    assert [list(r) for r in result["dv"]] == expected_t
    assert [list(r) for r in result["k"]] == expected_k
    assert [list(r) for r in result["streamed"]] == expected_k
    for t in ("a", "adv", "adv_compacted"):
        assert [list(r) for r in result["a"][t]] == expected_a, t
    assert [list(r) for r in result["x"]] == [[i, i % 3 if i < 100 else (i + 1) % 3, "x" if i < 100 else "w"]
                                              for i in range(300) if i % 7 != 0]
