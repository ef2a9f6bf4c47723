"""Primary-key table benchmark on local[2], each phase beside plain Spark Parquet in the same run.

Phases: bulk load of N rows; five rounds of upserts (half updates of existing keys, half new keys);
a full scan before compaction (six sorted runs); a full compaction; a full scan after it. The
baseline of a write phase is Spark writing the same rows as plain Parquet. The scans and the
compaction are measured against a plain Parquet copy of the table's rows after the upserts (what
both scans return, checked equal): Spark scanning it, and Spark rewriting it. Results:
bench/results/pk.json (a list of {benchmark, metric, value, baseline, ratio}) and bench/results/pk.md.
Each phase gives two metrics: `seconds` (wall clock) and `jvm_cpu_seconds` (CPU time of the session's
JVM, driver and executors, over the same runs; read from /proc, so on Linux only).

A write phase changes the table, so it is run on three tables that receive the same writes (the
table and two copies, identical after every phase) and its time is the median of the three; its
baselines (idempotent overwrites) run once before each of the three appends, so that both sides see
the same machine state, and count the median of their three runs too. Both sides of a scan are the
median of five, taken in turn; the scans and the compaction use the first table. Each upsert
round is also compared with Spark clustering the same rows by the bucket key and sorting them by the
primary key before writing plain Parquet: the floor of a write through Spark's required distribution
and ordering. Each round is also written as a MERGE INTO (update matched ids, insert the others) into a
fourth table, the median of three runs (an upsert is idempotent): planned as a write of the source, it
costs what the round costs, not what the
table holds; in the first round the same MERGE with a matched condition shows Spark's row-level plan
(a scan of the table joined with the source) for comparison. After the rounds, a change set of a round's size
(deletes, updates and inserts flagged by an `op` column) is applied to the fourth table by the MERGE INTO a CDC
job writes, planned as a write of the source, beside the same MERGE in Spark's row-level plan and Delta's.

With Delta Lake's jars (`--delta-jars`, which `make bench` fetches), the same phases also run against
a Delta table with deletion vectors, in the same session: the bulk load as a Delta write, each upsert
round as the MERGE INTO a Delta user writes for an upsert (update matched ids, insert the others), and
the scan before compaction; rows `.../vs_delta` give Lamina's time over Delta's (below 1: Lamina is
faster). The Delta table is checked to hold the same rows as Lamina's. Each Delta phase is timed once.

Usage: python bench/pk_bench.py [--rows N] [--round-rows M] [--out DIR] [--delta-jars A.jar,B.jar]
"""

import argparse
import glob
import json
import math
import os
import shutil
import sys
import tempfile
import time
from typing import NamedTuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import lamina  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402


class Timing(NamedTuple):
    """Wall-clock seconds of an action, and the CPU seconds the session's JVM (driver and executors
    on local[2]) spent meanwhile: NaN where /proc is not there. CPU time is what a busy neighbour on
    the machine disturbs least."""
    wall: float
    cpu: float

    def __add__(self, other):
        return Timing(self.wall + other.wall, self.cpu + other.cpu)


ZERO = Timing(0.0, 0.0)
MERGED = "lamina.bench.pk_merge"
_jvm_stat = None


def _jvm_cpu_seconds():
    try:
        with open(_jvm_stat) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, TypeError, ValueError, IndexError):
        return math.nan


def timed(fn):
    cpu, start = _jvm_cpu_seconds(), time.perf_counter()
    fn()
    return Timing(time.perf_counter() - start, _jvm_cpu_seconds() - cpu)


def median(timings):
    """Wall and CPU medians, each of its own samples."""
    mid = len(timings) // 2
    return Timing(sorted(t.wall for t in timings)[mid], sorted(t.cpu for t in timings)[mid])


def median_of(fn, times=3):
    """The median of several timings of an idempotent action (a scan, or a write that overwrites)."""
    return median([timed(fn) for _ in range(times)])


def median_pair(a, b, times=5):
    """Medians of two idempotent actions timed in turn, so that both see the same machine state."""
    ta, tb = [], []
    for _ in range(times):
        ta.append(timed(a))
        tb.append(timed(b))
    return median(ta), median(tb)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--round-rows", type=int, default=0, help="rows per upsert round (default rows / 10)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--delta-jars", default=",".join(sorted(glob.glob(os.path.join(HERE, "..", ".cache", "bench-jars", "delta-*.jar")))),
                    help="Delta Lake's jars (delta-spark, delta-storage); empty: no Delta comparison")
    args = ap.parse_args()
    delta_jars = [j for j in args.delta_jars.split(",") if j]
    n = args.rows
    per_round = args.round_rows or max(1, n // 10)

    work = tempfile.mkdtemp(prefix="lamina-bench-")
    warehouse = os.path.join(work, "warehouse")
    plain = os.path.join(work, "plain")
    builder = (SparkSession.builder.master("local[2]").appName("lamina pk bench")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "6g"))
    if delta_jars:
        # Delta's state reconstruction defaults to 50 partitions; two, like the shuffles here, suit two cores
        builder = (builder.config("spark.jars", ",".join(os.path.abspath(j) for j in delta_jars))
                   .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                   .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                   .config("spark.databricks.delta.snapshotPartitions", "2"))
    spark = lamina.configure(builder, warehouse=warehouse).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    global _jvm_stat
    _jvm_stat = f"/proc/{spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()}/stat"
    spark.sql("CREATE NAMESPACE lamina.bench")
    tables = ["lamina.bench.pk", "lamina.bench.pk_copy1", "lamina.bench.pk_copy2"]
    for t in tables:
        spark.sql(f"CREATE TABLE {t} (id BIGINT, v BIGINT, s STRING) "
                  "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'write-only' = 'true')")

    def write_all(df_fn, *baselines):
        """Appends the same rows to each table, each append after one run of every baseline (idempotent
        overwrites), so that both sides see the same machine state; the medians of the three times."""
        times, base_times = [], [[] for _ in baselines]
        for t in tables:
            for b, ts in zip(baselines, base_times):
                ts.append(timed(b))
            times.append(timed(lambda: df_fn().writeTo(t).append()))
        return median(times), [t.wall for t in times], [median(ts) for ts in base_times]

    def rows(start, count, salt):
        return spark.range(start, start + count).selectExpr(
            "id", f"id * 7 + {salt} AS v", f"concat('s', CAST(id % 1000 AS STRING), '-{salt}') AS s")

    results = []

    def record(name, value, baseline, samples=None):
        """Two rows: wall-clock seconds, and the JVM's CPU seconds (when measured)."""
        for metric, v, b in (("seconds", value.wall, baseline.wall), ("jvm_cpu_seconds", value.cpu, baseline.cpu)):
            if math.isnan(v) or math.isnan(b):
                continue
            results.append({"benchmark": name, "metric": metric, "value": round(v, 3),
                            "baseline": round(b, 3), "ratio": round(v / b, 3) if b else None})
        shown = "" if samples is None else "  (" + ", ".join(f"{x:.2f}" for x in samples) + ")"
        cpu = value.cpu / baseline.cpu if baseline.cpu else math.nan
        print(f"{name:<48} {value.wall:7.2f}s  baseline {baseline.wall:7.2f}s  ratio {value.wall / baseline.wall:5.2f}"
              f"  cpu ratio {cpu:5.2f}{shown}", flush=True)

    # bulk load
    lam, each, (base,) = write_all(lambda: rows(0, n, 0),
                                   lambda: rows(0, n, 0).write.mode("overwrite").parquet(plain + "/load"))
    record("bulk_load", lam, base, each)
    # a fourth table, loaded unmeasured with the same rows, receives each round as a MERGE INTO
    spark.sql(f"CREATE TABLE {MERGED} (id BIGINT, v BIGINT, s STRING) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'write-only' = 'true')")
    spark.table(tables[0]).writeTo(MERGED).append()
    delta = os.path.join(work, "delta")

    def delta_upsert(source, path=delta):
        """MERGE INTO the Delta table: matched ids updated, the others inserted."""
        jvm = spark.sparkContext._jvm
        (jvm.io.delta.tables.DeltaTable.forPath(spark._jsparkSession, path).alias("t")
         .merge(source.alias("s")._jdf, "t.id = s.id")
         .whenMatched().updateAll().whenNotMatched().insertAll().execute())

    if delta_jars:
        # Delta's first statements load and compile its code; Lamina's were the three timed writes
        # above, whose median drops the first. A small unmeasured write and merge warm Delta up alike.
        for i in range(2):
            (rows(0, 1000, 0).write.format("delta").mode("overwrite")
             .option("delta.enableDeletionVectors", "true").save(delta + "-warmup"))
            delta_upsert(rows(500, 1000, 1), delta + "-warmup")
        took = timed(lambda: rows(0, n, 0).write.format("delta")
                     .option("delta.enableDeletionVectors", "true").save(delta))
        record("bulk_load/vs_delta", lam, took)

    # five rounds of upserts: half existing keys, half new ones
    next_new = n
    totals = [ZERO, ZERO, ZERO]
    delta_total = ZERO
    merge_total = ZERO
    for r in range(1, 6):
        half = per_round // 2
        start_old = (r * 7919 * half) % max(1, n - half)
        def batch():
            return rows(start_old, half, r).unionByName(rows(next_new, per_round - half, r))
        # The second baseline is what the required distribution and ordering alone cost: Spark
        # clustering the rows by the bucket key and sorting them by the primary key before writing
        # plain Parquet.
        lam, each, (base, clustered) = write_all(
            batch,
            lambda: batch().write.mode("overwrite").parquet(plain + f"/round{r}"),
            lambda: batch().repartition(2, "id").sortWithinPartitions("id")
            .write.mode("overwrite").parquet(plain + f"/clustered{r}"))
        record(f"upsert_round_{r}", lam, base, each)
        record(f"upsert_round_{r}/vs_clustered_sorted_parquet", lam, clustered)
        totals = [totals[0] + lam, totals[1] + base, totals[2] + clustered]
        if delta_jars:
            took = timed(lambda: delta_upsert(batch()))
            record(f"upsert_round_{r}/vs_delta", lam, took)
            delta_total += took
        # The same round as the MERGE INTO a user writes for an upsert, planned as a write of the
        # source; in the first round also with a condition that keeps Spark's row-level plan (a scan
        # of the table and a join), written first. An upsert is idempotent, so the table ends the same
        # and the MERGE can be timed as the median of three runs, like the upserts.
        batch().createOrReplaceTempView("bench_batch")
        merge = f"MERGE INTO {MERGED} t USING bench_batch s ON t.id = s.id WHEN MATCHED {{}}THEN UPDATE SET * " \
                "WHEN NOT MATCHED THEN INSERT *"
        if r == 1:
            row_level = timed(lambda: spark.sql(merge.format("AND s.v IS NOT NULL ")).collect())
            record(f"upsert_round_{r}/merge_into_row_level", row_level, base)
        merged = median_of(lambda: spark.sql(merge.format("")).collect())
        record(f"upsert_round_{r}/merge_into", merged, base)
        merge_total += merged
        if delta_jars:
            record(f"upsert_round_{r}/merge_into_vs_delta", merged, took)
        next_new += per_round - half

    # the five rounds together: one ratio that a single slow sample moves less
    record("upsert_rounds_total", totals[0], totals[1])
    record("upsert_rounds_total/vs_clustered_sorted_parquet", totals[0], totals[2])
    if delta_jars:
        record("upsert_rounds_total/vs_delta", totals[0], delta_total)
    record("upsert_rounds_total/merge_into", merge_total, totals[1])
    if delta_jars:
        record("upsert_rounds_total/merge_into_vs_delta", merge_total, delta_total)

    # the rows the table holds now, as plain Parquet: the baseline of the scans and the compaction
    spark.table("lamina.bench.pk").write.mode("overwrite").parquet(plain + "/current")
    total = spark.read.parquet(plain + "/current").count()
    scan_sql = "SELECT sum(v), count(s) FROM {}"
    spark.read.parquet(plain + "/current").createOrReplaceTempView("plain_current")

    def scan(name):
        return lambda: spark.sql(scan_sql.format(name)).collect()

    def same_rows():
        a, b = scan("plain_current")(), scan("lamina.bench.pk")()
        if a != b:
            raise SystemExit(f"the table and its plain copy differ: {b} vs {a}")

    same_rows()
    if scan(MERGED)() != scan("lamina.bench.pk")():
        raise SystemExit("the table written by MERGE INTO and the table written by INSERT INTO differ")
    base, lam = median_pair(scan("plain_current"), scan("lamina.bench.pk"))
    record("scan_before_compaction", lam, base)
    if delta_jars:
        spark.read.format("delta").load(delta).createOrReplaceTempView("delta_current")
        a, b = scan("delta_current")(), scan("lamina.bench.pk")()
        if a != b:
            raise SystemExit(f"the table and its Delta copy differ: {b} vs {a}")
        took, lam = median_pair(scan("delta_current"), scan("lamina.bench.pk"))
        record("scan_before_compaction/vs_delta", lam, took)

    # A change set as a CDC job applies it: a third of the round's rows delete present keys, a third update
    # present keys, a third insert new ones, flagged by an `op` column, into the MERGE table (and Delta's).
    # Applying a change set twice leaves what applying it once does, so the median of three runs again.
    third = per_round // 3
    from pyspark.sql import functions as F

    def changes():
        return (rows(0, third, 9).withColumn("op", F.lit("D"))
                .unionByName(rows(n // 2, third, 9).withColumn("op", F.lit("U")))
                .unionByName(rows(next_new, per_round - 2 * third, 9).withColumn("op", F.lit("I"))))
    changes().createOrReplaceTempView("bench_changes")
    change_merge = ("MERGE INTO {} t USING bench_changes s ON t.id = s.id WHEN MATCHED AND s.op = 'D'{} THEN DELETE "
                    "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT *")
    base = median_of(lambda: changes().write.mode("overwrite").parquet(plain + "/changes"))
    row_level = timed(lambda: spark.sql(change_merge.format(MERGED, " AND s.v IS NOT NULL")).collect())
    record("change_set/merge_into_row_level", row_level, base)
    merged = median_of(lambda: spark.sql(change_merge.format(MERGED, "")).collect())
    record("change_set/merge_into", merged, base)
    if delta_jars:
        took = timed(lambda: spark.sql(change_merge.format(f"delta.`{delta}`", "")).collect())
        record("change_set/merge_into_vs_delta", merged, took)
        spark.read.format("delta").load(delta).createOrReplaceTempView("delta_current")
        if scan(MERGED)() != scan("delta_current")():
            raise SystemExit("the change set left different rows in Lamina's and Delta's tables")

    base = median_of(lambda: spark.read.parquet(plain + "/current").write.mode("overwrite").parquet(plain + "/rewrite"))
    lam = timed(lambda: spark.sql("CALL lamina.sys.compact(table => 'bench.pk', compact_strategy => 'full')").collect())
    record("full_compaction", lam, base)

    same_rows()
    base, lam = median_pair(scan("plain_current"), scan("lamina.bench.pk"))
    record("scan_after_compaction", lam, base)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "pk.json"), "w") as f:
        json.dump(results, f, indent=2)
    with open(os.path.join(args.out, "pk.md"), "w") as f:
        f.write(f"# Primary-key benchmark ({n} rows loaded, {per_round} rows per upsert round, local[2])\n\n")
        f.write("Baseline: Spark writing plain Parquet of the same rows; for the scans and the compaction, "
                "Spark scanning / rewriting a plain Parquet copy of the table's rows after the upserts. "
                "Each write phase runs on three tables receiving the same writes and counts the median "
                "of the three times; write baselines run once before each of the three writes (taken in "
                "turn) and count the median of the three; scans, both sides the "
                "median of five, taken in turn. `/vs_clustered_sorted_parquet`: the same upsert round against Spark "
                "clustering the rows by bucket key and sorting them by primary key before writing plain "
                "Parquet (what the required distribution and ordering cost on their own). `/vs_delta`: against Delta Lake "
                "with deletion vectors in the same session (a Delta write; MERGE INTO for an upsert; a scan), "
                "each Delta phase timed once. `/merge_into`: the same upsert round as a MERGE INTO "
                "(`WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`) into a fourth table, the "
                "median of three runs of the same statement (an upsert is idempotent), against the plain Parquet write (and `/merge_into_vs_delta` against Delta's MERGE of the "
                "same round); `/merge_into_row_level`, in the first round, the same MERGE with a matched "
                "condition, which Spark plans as a scan of the table joined with the source. `change_set/...`: a "
                "change set of a round's size (a third deletes of present keys, a third updates, a third new "
                "keys, flagged by an `op` column) applied to the fourth table by `MERGE ... WHEN MATCHED AND "
                "s.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED AND s.op <> 'D' THEN "
                "INSERT *` (the median of three runs: applying it again changes nothing), against the plain "
                "Parquet write of the change set, with a matched condition (Spark's row-level plan), and "
                "against Delta's MERGE of the same change set. `seconds` is wall-clock time; `jvm_cpu_seconds` the CPU time "
                "of the session's JVM (driver and executors) over the same runs, which a busy neighbour on the "
                "machine disturbs less.\n\n")
        f.write("| benchmark | metric | value | baseline | ratio |\n|---|---|---|---|---|\n")
        for r in results:
            f.write(f"| {r['benchmark']} | {r['metric']} | {r['value']} | {r['baseline']} | {r['ratio']} |\n")
    print(f"table rows {total}; results in {args.out}")
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
