"""The primary-key table at scale, in a bounded memory: 100 M rows loaded, five upsert rounds of 10 M
(half updates of existing keys, half new keys), a full scan and a key-range scan before compaction, a
full compaction, and the scans after it, on local[2] with `spark.driver.memory` = 4g (in local mode
the driver's JVM is the executors' too). The tables are Lamina's defaults with `bucket` = 8 and
`write-only` = true, so that the rounds pile up sorted runs for the compaction, as in the primary-key
benchmark.

Each phase reports its wall-clock seconds (against Spark writing or scanning plain Parquet of the same
rows, the physical limit), the peak heap of the JVM during the phase (the sum of the heap pools' peak
usage, reset before the phase: an upper bound of the heap in use at any moment), and the bytes Spark's
tasks spilled to memory and disk (the stages' `memoryBytesSpilled` and `diskBytesSpilled`). Results:
bench/results/pk_large.json and bench/results/pk_large.md.

Usage: python bench/large/pk_large.py [--rows N] [--round-rows M] [--buckets B] [--memory 4g] [--out DIR]
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))

import lamina  # noqa: E402
from pk_bench import write_results  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

SCAN_SQL = "SELECT sum(v), count(s) FROM {}"


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--round-rows", type=int, default=0, help="rows per upsert round (default rows / 10)")
    ap.add_argument("--buckets", type=int, default=8)
    ap.add_argument("--memory", default="4g", help="spark.driver.memory (the heap of driver and executors)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "results"))
    return ap.parse_args()


class Memory:
    """Peak heap and spilled bytes of the session's JVM, per phase."""

    def __init__(self, spark):
        self.spark = spark
        jvm = spark.sparkContext._jvm
        self.pools = [p for p in jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
                      if p.getType().toString() == "Heap memory"]
        self.store = spark.sparkContext._jsc.sc().statusStore()
        self.seen_stages = set()

    def start(self):
        for p in self.pools:
            p.resetPeakUsage()
        self.seen_stages = {s[0] for s in self._stages()}

    def _stages(self):
        jvm = self.spark.sparkContext._jvm
        # every stage: no status filter, no details, no quantiles, no task status filter
        stages = self.store.stageList(jvm.java.util.ArrayList(), False, False,
                                      getattr(self.store, "stageList$default$4")(),
                                      getattr(self.store, "stageList$default$5")())
        out, it = [], stages.iterator()
        while it.hasNext():
            s = it.next()
            out.append(((s.stageId(), s.attemptId()), s.memoryBytesSpilled(), s.diskBytesSpilled()))
        return out

    def end(self):
        """(peak heap bytes, memory bytes spilled, disk bytes spilled) since `start`."""
        peak = sum(p.getPeakUsage().getUsed() for p in self.pools)
        new = [s for s in self._stages() if s[0] not in self.seen_stages]
        return peak, sum(s[1] for s in new), sum(s[2] for s in new)


class LargeBench:
    def __init__(self, spark, work, n, per_round, buckets):
        self.spark, self.work, self.n, self.per_round = spark, work, n, per_round
        self.table = "lamina.bench_large.pk"
        self.memory = Memory(spark)
        self.results = []
        spark.sql("CREATE NAMESPACE IF NOT EXISTS lamina.bench_large")
        spark.sql(f"CREATE TABLE {self.table} (id BIGINT, v BIGINT, s STRING) TBLPROPERTIES "
                  f"('primary-key' = 'id', 'bucket' = '{buckets}', 'write-only' = 'true')")

    def rows(self, start, count, salt):
        return self.spark.range(start, start + count).selectExpr(
            "id", f"id * 7 + {salt} AS v", f"concat('s', CAST(id % 1000 AS STRING), '-{salt}') AS s")

    def phase(self, name, action, baseline):
        """Times `baseline` (plain Parquet), then `action` with its memory figures."""
        start = time.perf_counter()
        baseline()
        base = time.perf_counter() - start
        self.memory.start()
        start = time.perf_counter()
        action()
        took = time.perf_counter() - start
        peak, spilled_memory, spilled_disk = self.memory.end()
        self.record(name, "seconds", round(took, 3), round(base, 3))
        self.record(name, "peak_heap_mib", round(peak / 2**20, 1), None)
        self.record(name, "spilled_memory_mib", round(spilled_memory / 2**20, 1), None)
        self.record(name, "spilled_disk_mib", round(spilled_disk / 2**20, 1), None)
        print(f"{name}: {took:.1f} s (Parquet {base:.1f} s), peak heap {peak / 2**20:.0f} MiB, "
              f"spilled {spilled_memory / 2**20:.0f} MiB in memory, {spilled_disk / 2**20:.0f} MiB to disk", flush=True)

    def record(self, name, metric, value, baseline):
        ratio = round(value / baseline, 3) if baseline else None
        self.results.append({"benchmark": name, "metric": metric, "value": value, "baseline": baseline, "ratio": ratio})

    def plain_write(self, df, name):
        return lambda: df.write.mode("overwrite").parquet(os.path.join(self.work, "plain", name))

    def run(self):
        load = self.rows(0, self.n, 0)
        self.phase("bulk_load", lambda: load.writeTo(self.table).append(), self.plain_write(load, "load"))
        next_new = self.n
        half = self.per_round // 2
        for r in range(1, 6):
            updates = self.spark.range(0, half).selectExpr(f"(id * {max(1, next_new // half)}) % {next_new} AS id")
            batch = (updates.selectExpr("id", f"id * 7 + {r} AS v", f"concat('s', CAST(id % 1000 AS STRING), '-{r}') AS s")
                     .union(self.rows(next_new, self.per_round - half, r)).dropDuplicates(["id"]))
            batch.write.mode("overwrite").parquet(os.path.join(self.work, "rounds", str(r)))
            source = self.spark.read.parquet(os.path.join(self.work, "rounds", str(r)))
            self.phase(f"upsert_round_{r}", lambda: source.writeTo(self.table).append(), self.plain_write(source, "round"))
            next_new += self.per_round - half
        self.spark.table(self.table).write.mode("overwrite").parquet(os.path.join(self.work, "plain", "current"))
        plain = self.spark.read.parquet(os.path.join(self.work, "plain", "current"))
        plain.createOrReplaceTempView("plain_current")
        lo = next_new // 2
        key_range = f" WHERE id BETWEEN {lo} AND {lo + next_new // 1000}"
        for when in ("before", "after"):
            if when == "after":
                self.phase("full_compaction",
                           lambda: self.spark.sql("CALL lamina.sys.compact(table => 'bench_large.pk', "
                                                  "compact_strategy => 'full')").collect(),
                           self.plain_write(plain, "rewrite"))
            self.phase(f"scan_{when}_compaction", lambda: self.spark.sql(SCAN_SQL.format(self.table)).collect(),
                       lambda: self.spark.sql(SCAN_SQL.format("plain_current")).collect())
            self.phase(f"scan_key_range_{when}_compaction",
                       lambda: self.spark.sql(SCAN_SQL.format(self.table) + key_range).collect(),
                       lambda: self.spark.sql(SCAN_SQL.format("plain_current") + key_range).collect())
        same = self.spark.sql(f"SELECT count(*), bit_xor(xxhash64(id, v, s)) FROM {self.table}").collect()
        expected = self.spark.sql("SELECT count(*), bit_xor(xxhash64(id, v, s)) FROM plain_current").collect()
        if same != expected:
            raise SystemExit(f"the compacted table holds other rows than before compaction: {same} vs {expected}")


def main():
    args = parse_args()
    work = tempfile.mkdtemp(prefix="lamina-large-bench-")
    spark = lamina.configure(
        SparkSession.builder.master("local[2]").appName("lamina large bench")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.driver.memory", args.memory),
        warehouse=os.path.join(work, "warehouse")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        bench = LargeBench(spark, work, args.rows, args.round_rows or max(1, args.rows // 10), args.buckets)
        bench.run()
        heading = (f"# Primary-key table at scale ({args.rows} rows, rounds of {args.round_rows or args.rows // 10}, "
                   f"{args.buckets} buckets, local[2], spark.driver.memory = {args.memory})\n\n"
                   "`seconds`: wall clock, against plain Parquet of the same rows; `peak_heap_mib`: the sum of the "
                   "heap pools' peaks during the phase; `spilled_*_mib`: the bytes the phase's stages spilled.\n\n")
        write_results(args.out, "pk_large", bench.results, heading)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
