"""Primary-key table benchmark on local[2], each phase beside plain Spark Parquet in the same run.

Phases: bulk load of N rows; five rounds of upserts (half updates of existing keys, half new keys);
a full scan before compaction (six sorted runs), and a scan of a key range holding 0.1% of the keys
(`WHERE id BETWEEN a AND b`); a change set applied by MERGE INTO; a row-level MERGE updating 1% of the
keys; a full compaction; the two scans after it. The
baseline of a write phase is Spark writing the same rows as plain Parquet. The scans and the
compaction are measured against a plain Parquet copy of the table's rows after the upserts (what
both scans return, checked equal): Spark scanning it, and Spark rewriting it. Results:
bench/results/pk.json (a list of {benchmark, metric, value, baseline, ratio}) and bench/results/pk.md.
Each phase gives two metrics: `seconds` (wall clock) and `jvm_cpu_seconds` (CPU time of the session's
JVM, driver and executors, over the same runs; read from /proc, so on Linux only). Each scan also gives
`rows_to_spark`: the rows its scan node handed Spark (the node's `numOutputRows` metric), the table's
beside the baseline's.

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
Then a MERGE with a matched condition (`WHEN MATCHED AND s.v IS NOT NULL THEN UPDATE SET v = s.v`) whose
source holds every hundredth key, 1% of the table's rows, updates the first copy (which received the same
writes as the table): Spark's row-level plan, the median of three runs (the update is idempotent), against
the plain Parquet write of the source.

With Delta Lake's jars (`--delta-jars`, which `make bench` fetches), the same phases also run against
a Delta table with deletion vectors, in the same session: the bulk load as a Delta write, each upsert
round as the MERGE INTO a Delta user writes for an upsert (update matched ids, insert the others), and
the scans before compaction; rows `.../vs_delta` give Lamina's time over Delta's (below 1: Lamina is
faster). The Delta table is checked to hold the same rows as Lamina's. Each Delta phase is timed once.

With Apache Paimon's own Spark connector (`--paimon-jar`; by default `paimon-spark-4.0_2.13-*.jar` in
`../shared/anchors/` beside the project root, and where it is absent the Paimon rows are skipped, saying
so), every phase also runs against Paimon tables in the same session (catalog `paimon` on a warehouse of
its own; Paimon's session extensions listed before Lamina's, so that `CALL lamina.sys.*` reaches Lamina),
on the same rows; rows `.../vs_paimon` give Lamina's time over Paimon's (below 1: Lamina is faster).
Paimon's tables are set up as Lamina's: primary key `id`, `bucket` = 2, `merge-engine` = deduplicate,
`write-only` = true (no compaction until the full compaction, on either side), `file.format` = parquet
with Lamina's defaults spelled out: `file.compression` = zstd at level 1 (Paimon's default too) and
`parquet.writer.version` = v2 (Paimon's default, v1, writes files about twice the size of the same rows).
- Bulk load and upsert rounds as INSERT INTO: three Paimon tables receive the same appends, each right
  after Lamina's append to the matching table; the median of the three, as on Lamina's side.
- Upsert rounds as MERGE INTO, and the change set: Paimon's MERGE into a fourth Paimon table, timed
  once, so that the table holds the sorted runs a user's would (repeating it would add one per run, and
  Paimon's MERGE reads them all). Paimon plans every MERGE as a join of the table with the source,
  matched condition or not, so in the first round its one time is also the baseline of
  `/merge_into_row_level_vs_paimon`. A warm-up MERGE into a small table runs first, unmeasured, as for Delta.
- The 1% row-level MERGE: the same statement on Paimon's first copy, both sides the median of three,
  taken in turn.
- Scans before and after compaction, full and key range: Paimon's first table, checked to give the same
  result, both sides the median of five, taken in turn.
- Full compaction: `CALL paimon.sys.compact(table => 'bench.pk', compact_strategy => 'full')` after
  Lamina's `CALL lamina.sys.compact(table => 'bench.pk', compact_strategy => 'full')`, each timed once.
Paimon's tables are checked to hold the same rows as Lamina's (the INSERT tables after the upserts and
after compaction, the MERGE tables after the rounds, the change set and the 1% MERGE).

Usage: python bench/pk_bench.py [--rows N] [--round-rows M] [--out DIR] [--delta-jars A.jar,B.jar]
                                [--paimon-jar P.jar]
"""

import argparse
import functools
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
ANCHORS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "anchors"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import lamina  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402


class Timing(NamedTuple):
    """Wall-clock seconds of an action, and the CPU seconds the session's JVM (driver and executors
    on local[2]) spent meanwhile: NaN where /proc is not there. CPU time is what a busy neighbour on
    the machine disturbs least."""
    wall: float
    cpu: float

    def __add__(self, other):
        return Timing(self.wall + other.wall, self.cpu + other.cpu)


ZERO = Timing(0.0, 0.0)
TABLES = ["lamina.bench.pk", "lamina.bench.pk_copy1", "lamina.bench.pk_copy2"]
MERGED = "lamina.bench.pk_merge"
TABLE_OPTIONS = "'primary-key' = 'id', 'bucket' = '2', 'write-only' = 'true'"
# Lamina's defaults for the rest, spelled out for Paimon: same engine, format, codec and page version.
PAIMON_OPTIONS = (TABLE_OPTIONS + ", 'merge-engine' = 'deduplicate', 'file.format' = 'parquet', "
                  "'file.compression' = 'zstd', 'file.compression.zstd-level' = '1', 'parquet.writer.version' = 'v2'")
PAIMON_EXTENSIONS = "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions"
SCAN_SQL = "SELECT sum(v), count(s) FROM {}"
# What the tables are checked by: the rows' number, and an order-free fingerprint of their values.
ROWS_SQL = "SELECT count(*), bit_xor(xxhash64(id, v, s)) FROM {}"
UPSERT_SQL = ("MERGE INTO {table} t USING bench_batch s ON t.id = s.id WHEN MATCHED {cond}THEN UPDATE SET * "
              "WHEN NOT MATCHED THEN INSERT *")
CHANGE_SQL = ("MERGE INTO {table} t USING bench_changes s ON t.id = s.id WHEN MATCHED AND s.op = 'D'{cond} THEN DELETE "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT *")
UPDATE_SQL = "MERGE INTO {table} t USING bench_update s ON t.id = s.id WHEN MATCHED AND s.v IS NOT NULL THEN UPDATE SET v = s.v"
COMPACT_SQL = "CALL {catalog}.sys.compact(table => 'bench.pk', compact_strategy => 'full')"
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


def paimon_name(table):
    """Paimon's table that receives the same writes as Lamina's `table`."""
    return "paimon." + table.split(".", 1)[1]


def rows_to_spark(df):
    """Runs `df`; returns its rows and the rows its scan nodes handed Spark (the sum of their
    `numOutputRows`, None where no scan reports it), read from the executed plan, through the query
    stages of adaptive execution."""
    result, counts = df.collect(), []

    def walk(node):
        kind = node.getClass().getSimpleName()
        if kind == "AdaptiveSparkPlanExec":
            walk(node.executedPlan())
        elif kind.endswith("QueryStageExec"):
            walk(node.plan())
        elif node.children().isEmpty():
            metric = node.metrics().get("numOutputRows")
            if metric.isDefined():
                counts.append(metric.get().value())
        else:
            children = node.children().iterator()
            while children.hasNext():
                walk(children.next())

    walk(df._jdf.queryExecution().executedPlan())
    return result, (sum(counts) if counts else None)


def write_results(out, stem, results, heading):
    """`<stem>.json` (the list of {benchmark, metric, value, baseline, ratio}) and `<stem>.md` (`heading`,
    then the same rows as a table) in `out`."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{stem}.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(out, f"{stem}.md"), "w") as f:
        f.write(heading)
        f.write("| benchmark | metric | value | baseline | ratio |\n|---|---|---|---|---|\n")
        for r in results:
            f.write(f"| {r['benchmark']} | {r['metric']} | {r['value']} | {r['baseline']} | {r['ratio']} |\n")


def default_paimon_jar():
    found = sorted(glob.glob(os.path.join(ANCHORS, "paimon-spark-4.0_2.13-*.jar")))
    return found[-1] if found else os.path.join(ANCHORS, "paimon-spark-4.0_2.13-1.4.2.jar")


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--round-rows", type=int, default=0, help="rows per upsert round (default rows / 10)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--delta-jars", default=",".join(sorted(glob.glob(os.path.join(HERE, "..", ".cache", "bench-jars", "delta-*.jar")))),
                    help="Delta Lake's jars (delta-spark, delta-storage); empty: no Delta comparison")
    ap.add_argument("--paimon-jar", default=default_paimon_jar(),
                    help="Apache Paimon's Spark connector jar (default: in ../shared/anchors/ beside the project); "
                         "empty or absent: no Paimon comparison")
    return ap.parse_args()


def session(work, delta_jars, paimon_jar):
    """local[2] with Lamina's catalog `lamina`, Delta's catalog as the session catalog when its jars are
    given, and Paimon's catalog `paimon` when its jar is."""
    builder = (SparkSession.builder.master("local[2]").appName("lamina pk bench")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "6g"))
    jars, extensions = [os.path.abspath(j) for j in delta_jars], []
    if delta_jars:
        # Delta's state reconstruction defaults to 50 partitions; two, like the shuffles here, suit two cores
        extensions.append("io.delta.sql.DeltaSparkSessionExtension")
        builder = (builder.config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                   .config("spark.databricks.delta.snapshotPartitions", "2"))
    if paimon_jar:
        # Paimon's extensions claim every CALL; Lamina's, which lamina.configure appends after them,
        # keep CALL lamina.sys.* for Lamina
        jars.append(os.path.abspath(paimon_jar))
        extensions.append(PAIMON_EXTENSIONS)
        builder = (builder.config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
                   .config("spark.sql.catalog.paimon.warehouse", os.path.join(work, "paimon")))
    if jars:
        builder = builder.config("spark.jars", ",".join(jars)).config("spark.sql.extensions", ",".join(extensions))
    return lamina.configure(builder, warehouse=os.path.join(work, "warehouse")).getOrCreate()


class Bench:
    """One run: the session, the tables of each side, and the rows recorded."""

    def __init__(self, spark, work, n, per_round, delta, paimon):
        self.spark, self.n, self.per_round = spark, n, per_round
        self.delta, self.paimon = delta, paimon
        self.plain = os.path.join(work, "plain")
        self.delta_path = os.path.join(work, "delta")
        self.results = []

    def sql(self, text):
        return self.spark.sql(text).collect()

    def rows(self, start, count, salt):
        return self.spark.range(start, start + count).selectExpr(
            "id", f"id * 7 + {salt} AS v", f"concat('s', CAST(id % 1000 AS STRING), '-{salt}') AS s")

    def create_tables(self):
        self.sql("CREATE NAMESPACE lamina.bench")
        for t in TABLES:
            self.create(t)
        if self.paimon:
            self.sql("CREATE DATABASE paimon.bench")
            for t in TABLES + [MERGED]:
                self.create(paimon_name(t))

    def create(self, table):
        options = PAIMON_OPTIONS if table.startswith("paimon.") else TABLE_OPTIONS
        self.sql(f"CREATE TABLE {table} (id BIGINT, v BIGINT, s STRING) TBLPROPERTIES ({options})")

    # -- recording --

    def record(self, name, value, baseline, samples=None):
        """Two rows: wall-clock seconds, and the JVM's CPU seconds (when measured); none where the
        baseline did not run (None)."""
        if baseline is None:
            return
        for metric, v, b in (("seconds", value.wall, baseline.wall), ("jvm_cpu_seconds", value.cpu, baseline.cpu)):
            if math.isnan(v) or math.isnan(b):
                continue
            self.results.append({"benchmark": name, "metric": metric, "value": round(v, 3),
                                 "baseline": round(b, 3), "ratio": round(v / b, 3) if b else None})
        shown = "" if samples is None else "  (" + ", ".join(f"{x:.2f}" for x in samples) + ")"
        cpu = value.cpu / baseline.cpu if baseline.cpu else math.nan
        print(f"{name:<48} {value.wall:7.2f}s  baseline {baseline.wall:7.2f}s  ratio {value.wall / baseline.wall:5.2f}"
              f"  cpu ratio {cpu:5.2f}{shown}", flush=True)

    def record_rows(self, name, value, baseline):
        """A `rows_to_spark` row: the rows Lamina's scan handed Spark beside the baseline's scan."""
        if value is None or baseline is None:
            return
        self.results.append({"benchmark": name, "metric": "rows_to_spark", "value": value,
                             "baseline": baseline, "ratio": round(value / baseline, 3) if baseline else None})
        print(f"{name:<48} {value:>12} rows to Spark  baseline {baseline:>12}", flush=True)

    def same_rows(self, a, b):
        x, y = self.sql(ROWS_SQL.format(a)), self.sql(ROWS_SQL.format(b))
        if x != y:
            raise SystemExit(f"{a} and {b} hold different rows: {x} vs {y}")

    # -- one helper per kind of comparison --

    def write_all(self, df_fn, *baselines):
        """Appends the same rows to each of Lamina's tables, each append after one run of every baseline
        (idempotent overwrites) and followed by the same append to Paimon's matching table, so that all
        sides see the same machine state. Returns Lamina's median and samples, the baselines' medians, and
        Paimon's median (None without Paimon)."""
        times, paimon_times, base_times = [], [], [[] for _ in baselines]
        for t in TABLES:
            for b, ts in zip(baselines, base_times):
                ts.append(timed(b))
            times.append(timed(lambda: df_fn().writeTo(t).append()))
            if self.paimon:
                paimon_times.append(timed(lambda: df_fn().writeTo(paimon_name(t)).append()))
        return median(times), [t.wall for t in times], [median(ts) for ts in base_times], \
            (median(paimon_times) if paimon_times else None)

    def paimon_once(self, template, **fields):
        """A statement on Paimon's MERGE table, timed once (None without Paimon)."""
        if not self.paimon:
            return None
        return timed(lambda: self.sql(template.format(table=paimon_name(MERGED), **fields)))

    def compare_scans(self, name, query, others):
        """Lamina's first table against each (suffix, relation) of `others`: the same result checked,
        both sides the median of five taken in turn, then the rows each scan handed Spark."""
        for suffix, relation in others:
            mine, mine_rows = rows_to_spark(self.spark.sql(query.format(TABLES[0])))
            theirs, their_rows = rows_to_spark(self.spark.sql(query.format(relation)))
            if mine != theirs:
                raise SystemExit(f"{TABLES[0]} and {relation} answer {query} differently: {mine} vs {theirs}")
            base, lam = median_pair(lambda: self.sql(query.format(relation)),
                                    lambda: self.sql(query.format(TABLES[0])))
            self.record(name + suffix, lam, base)
            self.record_rows(name + suffix, mine_rows, their_rows)

    # -- phases --

    def bulk_load(self):
        def load():
            return self.rows(0, self.n, 0)

        lam, each, (base,), paimon = self.write_all(load, lambda: load().write.mode("overwrite").parquet(self.plain + "/load"))
        self.record("bulk_load", lam, base, each)
        self.record("bulk_load/vs_paimon", lam, paimon)
        # a fourth table on each side, loaded unmeasured with the same rows, receives each round as a MERGE INTO
        self.create(MERGED)
        self.spark.table(TABLES[0]).writeTo(MERGED).append()
        if self.paimon:
            self.spark.table(paimon_name(TABLES[0])).writeTo(paimon_name(MERGED)).append()
        if self.delta:
            self.warm_up_delta()
            took = timed(lambda: load().write.format("delta")
                         .option("delta.enableDeletionVectors", "true").save(self.delta_path))
            self.record("bulk_load/vs_delta", lam, took)
        if self.paimon:
            self.warm_up_paimon()

    def delta_upsert(self, source, path):
        """MERGE INTO the Delta table: matched ids updated, the others inserted."""
        jvm = self.spark.sparkContext._jvm
        (jvm.io.delta.tables.DeltaTable.forPath(self.spark._jsparkSession, path).alias("t")
         .merge(source.alias("s")._jdf, "t.id = s.id")
         .whenMatched().updateAll().whenNotMatched().insertAll().execute())

    def warm_up_delta(self):
        # Delta's first statements load and compile its code; Lamina's were the three timed writes
        # above, whose median drops the first. A small unmeasured write and merge warm Delta up alike.
        for _ in range(2):
            (self.rows(0, 1000, 0).write.format("delta").mode("overwrite")
             .option("delta.enableDeletionVectors", "true").save(self.delta_path + "-warmup"))
            self.delta_upsert(self.rows(500, 1000, 1), self.delta_path + "-warmup")

    def warm_up_paimon(self):
        # Paimon's writes were timed three times like Lamina's; its MERGE, timed once, is warmed up as Delta's is.
        self.create("paimon.bench.warmup")
        for _ in range(2):
            self.rows(0, 1000, 0).writeTo("paimon.bench.warmup").append()
            self.rows(500, 1000, 1).createOrReplaceTempView("bench_batch")
            self.sql(UPSERT_SQL.format(table="paimon.bench.warmup", cond=""))

    def upsert_rounds(self):
        """Five rounds, half existing keys, half new ones; returns the next new key."""
        totals = {}
        next_new = self.n
        for r in range(1, 6):
            for key, t in self.upsert_round(r, next_new).items():
                totals[key] = None if t is None else totals.get(key, ZERO) + t
            next_new += self.per_round - self.per_round // 2
        # the five rounds together: one ratio that a single slow sample moves less
        self.record("upsert_rounds_total", totals["insert"], totals["parquet"])
        self.record("upsert_rounds_total/vs_clustered_sorted_parquet", totals["insert"], totals["clustered"])
        self.record("upsert_rounds_total/vs_delta", totals["insert"], totals["delta"])
        self.record("upsert_rounds_total/vs_paimon", totals["insert"], totals["paimon"])
        self.record("upsert_rounds_total/merge_into", totals["merge"], totals["parquet"])
        self.record("upsert_rounds_total/merge_into_vs_delta", totals["merge"], totals["delta"])
        self.record("upsert_rounds_total/merge_into_vs_paimon", totals["merge"], totals["paimon_merge"])
        return next_new

    def upsert_round(self, r, next_new):
        """Round `r` as INSERT INTO (and Delta's MERGE) and as MERGE INTO; the times of each side."""
        name = f"upsert_round_{r}"
        half = self.per_round // 2
        start_old = (r * 7919 * half) % max(1, self.n - half)

        def batch():
            return self.rows(start_old, half, r).unionByName(self.rows(next_new, self.per_round - half, r))

        # The second baseline is what the required distribution and ordering alone cost: Spark
        # clustering the rows by the bucket key and sorting them by the primary key before writing
        # plain Parquet.
        lam, each, (base, clustered), paimon = self.write_all(
            batch,
            lambda: batch().write.mode("overwrite").parquet(self.plain + f"/round{r}"),
            lambda: batch().repartition(2, "id").sortWithinPartitions("id")
            .write.mode("overwrite").parquet(self.plain + f"/clustered{r}"))
        self.record(name, lam, base, each)
        self.record(f"{name}/vs_clustered_sorted_parquet", lam, clustered)
        delta = timed(lambda: self.delta_upsert(batch(), self.delta_path)) if self.delta else None
        self.record(f"{name}/vs_delta", lam, delta)
        self.record(f"{name}/vs_paimon", lam, paimon)
        # The same round as the MERGE INTO a user writes for an upsert, planned as a write of the
        # source; in the first round also with a condition that keeps Spark's row-level plan (a scan
        # of the table and a join), written first. An upsert is idempotent, so the table ends the same
        # and the MERGE can be timed as the median of three runs, like the upserts.
        batch().createOrReplaceTempView("bench_batch")
        row_level = None
        if r == 1:
            row_level = timed(lambda: self.sql(UPSERT_SQL.format(table=MERGED, cond="AND s.v IS NOT NULL ")))
            self.record(f"{name}/merge_into_row_level", row_level, base)
        merged = median_of(lambda: self.sql(UPSERT_SQL.format(table=MERGED, cond="")))
        self.record(f"{name}/merge_into", merged, base)
        self.record(f"{name}/merge_into_vs_delta", merged, delta)
        paimon_merged = self.paimon_once(UPSERT_SQL, cond="")
        self.record(f"{name}/merge_into_vs_paimon", merged, paimon_merged)
        if row_level is not None:
            self.record(f"{name}/merge_into_row_level_vs_paimon", row_level, paimon_merged)
        return {"insert": lam, "parquet": base, "clustered": clustered, "delta": delta, "paimon": paimon,
                "merge": merged, "paimon_merge": paimon_merged}

    def scans(self, when, key_range, with_delta=False):
        """The full scan and the key-range scan against the plain copy, Delta's table and Paimon's."""
        others = [("", "plain_current")]
        if with_delta:
            self.spark.read.format("delta").load(self.delta_path).createOrReplaceTempView("delta_current")
            others.append(("/vs_delta", "delta_current"))
        if self.paimon:
            self.same_rows(TABLES[0], paimon_name(TABLES[0]))
            others.append(("/vs_paimon", paimon_name(TABLES[0])))
        lo, hi = key_range
        self.compare_scans(f"scan_{when}_compaction", SCAN_SQL, others)
        self.compare_scans(f"scan_key_range_{when}_compaction", SCAN_SQL + f" WHERE id BETWEEN {lo} AND {hi}", others)

    def change_set(self, next_new):
        # A change set as a CDC job applies it: a third of the round's rows delete present keys, a third update
        # present keys, a third insert new ones, flagged by an `op` column, into the MERGE table (and Delta's).
        # Applying a change set twice leaves what applying it once does, so the median of three runs again.
        third = self.per_round // 3

        def changes():
            return (self.rows(0, third, 9).withColumn("op", F.lit("D"))
                    .unionByName(self.rows(self.n // 2, third, 9).withColumn("op", F.lit("U")))
                    .unionByName(self.rows(next_new, self.per_round - 2 * third, 9).withColumn("op", F.lit("I"))))
        changes().createOrReplaceTempView("bench_changes")
        base = median_of(lambda: changes().write.mode("overwrite").parquet(self.plain + "/changes"))
        row_level = timed(lambda: self.sql(CHANGE_SQL.format(table=MERGED, cond=" AND s.v IS NOT NULL")))
        self.record("change_set/merge_into_row_level", row_level, base)
        merged = median_of(lambda: self.sql(CHANGE_SQL.format(table=MERGED, cond="")))
        self.record("change_set/merge_into", merged, base)
        if self.delta:
            took = timed(lambda: self.sql(CHANGE_SQL.format(table=f"delta.`{self.delta_path}`", cond="")))
            self.record("change_set/merge_into_vs_delta", merged, took)
            self.spark.read.format("delta").load(self.delta_path).createOrReplaceTempView("delta_current")
            self.same_rows(MERGED, "delta_current")
        self.record("change_set/merge_into_vs_paimon", merged, self.paimon_once(CHANGE_SQL, cond=""))
        if self.paimon:
            self.same_rows(MERGED, paimon_name(MERGED))

    def update_1pct(self, next_new):
        """The row-level MERGE of 1% of the keys into the first copy of each side: the source's keys
        scattered (every hundredth key), then in ten contiguous ranges of 0.1% each."""
        span = max(1, next_new // 1000)
        ranges = [self.spark.range(i * (next_new // 10), i * (next_new // 10) + span) for i in range(10)]
        sources = [("", self.spark.range(0, next_new, 100)),
                   ("_ranges", functools.reduce(lambda a, b: a.union(b), ranges))]
        table = TABLES[1]
        for suffix, keys in sources:
            source = keys.selectExpr("id", "id * 11 + 99 AS v")
            source.createOrReplaceTempView("bench_update")
            base = median_of(lambda: source.write.mode("overwrite").parquet(self.plain + "/update"))
            merge = lambda: self.sql(UPDATE_SQL.format(table=table))  # noqa: E731
            if self.paimon:
                lam, paimon = median_pair(merge, lambda: self.sql(UPDATE_SQL.format(table=paimon_name(table))), times=3)
                self.same_rows(table, paimon_name(table))
            else:
                lam, paimon = median_of(merge), None
            self.spark.conf.set("spark.lamina.merge.key-filter.max-keys", "0")
            try:
                whole = median_of(merge)
            finally:
                self.spark.conf.unset("spark.lamina.merge.key-filter.max-keys")
            name = f"row_level_merge_1pct{suffix}"
            self.record(name, lam, base)
            self.record(f"{name}/vs_paimon", lam, paimon)
            self.record(f"{name}/vs_whole_table_read", lam, whole)
            if self.delta:
                delta = timed(lambda: self.sql(UPDATE_SQL.format(table=f"delta.`{self.delta_path}`")))
                self.record(f"{name}/vs_delta", lam, delta)

    def full_compaction(self):
        current = self.plain + "/current"
        base = median_of(lambda: self.spark.read.parquet(current).write.mode("overwrite").parquet(self.plain + "/rewrite"))
        lam = timed(lambda: self.sql(COMPACT_SQL.format(catalog="lamina")))
        self.record("full_compaction", lam, base)
        if self.paimon:
            self.record("full_compaction/vs_paimon", lam, timed(lambda: self.sql(COMPACT_SQL.format(catalog="paimon"))))

    def write_results(self, out):
        write_results(out, "pk", self.results,
                      f"# Primary-key benchmark ({self.n} rows loaded, {self.per_round} rows per upsert round, local[2])\n\n"
                      + MD_INTRO + "\n\n" + (MD_PAIMON + "\n\n" if self.paimon else ""))


MD_INTRO = (
    "Baseline: Spark writing plain Parquet of the same rows; for the scans and the compaction, "
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
    "against Delta's MERGE of the same change set. `row_level_merge_1pct`: `MERGE ... WHEN MATCHED AND "
    "s.v IS NOT NULL THEN UPDATE SET v = s.v` from a source of every hundredth key (1% of the table's rows) "
    "into the first copy of the table (Spark's row-level plan, with the source's keys as the target scan's "
    "runtime filter), the median of three runs, against the plain Parquet write of the source; "
    "`row_level_merge_1pct_ranges`: the same from a source of ten contiguous ranges of 0.1% of the keys each; "
    "`/vs_whole_table_read`: against the same MERGE with the filter off (`merge.key-filter.max-keys` = 0), "
    "which reads and joins the whole table; `/vs_delta`: against Delta's MERGE of the same source into the "
    "Delta table (deletion vectors), timed once. `scan_key_range_...`: the scan with `WHERE id BETWEEN a AND b` over 0.1% "
    "of the keys. `seconds` is wall-clock time; `jvm_cpu_seconds` the CPU time "
    "of the session's JVM (driver and executors) over the same runs, which a busy neighbour on the "
    "machine disturbs less; `rows_to_spark`, for each scan, the rows the table's scan node handed Spark "
    "(its `numOutputRows`) beside those of the baseline's scan.")

MD_PAIMON = (
    "`/vs_paimon`: against Apache Paimon's own Spark connector in the same session, on tables set up as "
    "Lamina's (primary key `id`, `bucket` = 2, `merge-engine` = deduplicate, `write-only` = true, "
    "`file.format` = parquet, `file.compression` = zstd at level 1, `parquet.writer.version` = v2). Bulk load "
    "and upsert rounds as INSERT INTO: three Paimon tables receive the same appends, each right after "
    "Lamina's, and count the median of three. `/merge_into_vs_paimon`: Paimon's MERGE of the same round (and "
    "of the change set) into a fourth Paimon table, timed once so that the table keeps the sorted runs a "
    "user's would; Paimon plans every MERGE as a join of the table with the source, so in the first round "
    "the same time is the baseline of `/merge_into_row_level_vs_paimon`. `row_level_merge_1pct/vs_paimon`: "
    "the same MERGE on Paimon's first copy, both sides the median of three taken in turn. Scans: Paimon's "
    "first table, both sides the median of five taken in turn. `full_compaction/vs_paimon`: "
    "`CALL paimon.sys.compact(table => 'bench.pk', compact_strategy => 'full')`, timed once like Lamina's. "
    "Paimon's tables are checked to hold the same rows as Lamina's.")


def main():
    args = parse_args()
    delta_jars = [j for j in args.delta_jars.split(",") if j]
    paimon_jar = args.paimon_jar if args.paimon_jar and os.path.isfile(args.paimon_jar) else None
    if paimon_jar is None:
        print(f"Apache Paimon's Spark connector is not at {args.paimon_jar or '(no --paimon-jar)'}: "
              "the Paimon rows are skipped", flush=True)
    n = args.rows
    per_round = args.round_rows or max(1, n // 10)

    work = tempfile.mkdtemp(prefix="lamina-bench-")
    spark = session(work, delta_jars, paimon_jar)
    spark.sparkContext.setLogLevel("ERROR")
    global _jvm_stat
    _jvm_stat = f"/proc/{spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()}/stat"
    bench = Bench(spark, work, n, per_round, delta=bool(delta_jars), paimon=bool(paimon_jar))
    bench.create_tables()
    bench.bulk_load()
    next_new = bench.upsert_rounds()

    # the rows the table holds now, as plain Parquet: the baseline of the scans and the compaction
    spark.table(TABLES[0]).write.mode("overwrite").parquet(bench.plain + "/current")
    total = spark.read.parquet(bench.plain + "/current").count()
    spark.read.parquet(bench.plain + "/current").createOrReplaceTempView("plain_current")
    bench.same_rows(MERGED, TABLES[0])
    if bench.paimon:
        bench.same_rows(MERGED, paimon_name(MERGED))
    # keys 0 .. next_new - 1 are all present: a range of 0.1% of them in the middle
    key_range = (next_new // 2, next_new // 2 + max(1, next_new // 1000) - 1)
    bench.scans("before", key_range, with_delta=bench.delta)
    bench.change_set(next_new)
    bench.update_1pct(next_new)
    bench.full_compaction()
    bench.scans("after", key_range)

    bench.write_results(args.out)
    print(f"table rows {total}; results in {args.out}")
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
