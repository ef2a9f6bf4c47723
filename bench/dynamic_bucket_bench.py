"""Dynamic-bucket benchmark on local[2]: a primary-key table with dynamic buckets (`bucket` = -1, buckets
filled to `dynamic-bucket.target-row-num`) beside the same table with a well chosen fixed bucket count
(the count the dynamic table ends with) and Apache Paimon's connector on a dynamic-bucket table, all in
one session, on the same rows.

Phases: bulk load of N rows; five upsert rounds of M rows (half updates of existing keys, half new
keys), each an INSERT INTO (a write and the compaction after it). The target row number is N / 4 by
default, so the dynamic table holds about four buckets of keys at the end, as a 10 M-row table does
with Paimon's default of 2 M keys a bucket per 5 buckets.

Results: bench/results/dynamic_bucket.json and dynamic_bucket.md. `.../vs_fixed`: the dynamic table's
time over the fixed-bucket table's (target: at most 1.2); `.../vs_paimon_dynamic`: over Paimon's
(target: at most 0.5). Paimon rows need its connector jar (`--paimon-jar`, by default in
`../shared/anchors/`) and are skipped, saying so, where it is absent.

Usage: python bench/dynamic_bucket_bench.py [--rows N] [--round-rows M] [--out DIR] [--paimon-jar P.jar]
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pk_bench  # noqa: E402  (the session, timing and argument helpers of the primary-key benchmark)
from dv_bench import round_batch, rows_of  # noqa: E402
from pk_bench import parse_args, session, timed, write_results  # noqa: E402

COLUMNS = "(id BIGINT NOT NULL, v BIGINT, s STRING)"
PAIMON_FORMAT = ("'file.format' = 'parquet', 'file.compression' = 'zstd', 'file.compression.zstd-level' = '1', "
                 "'parquet.writer.version' = 'v2'")


class DynamicBucketBench:
    def __init__(self, spark, n, per_round, paimon):
        self.spark, self.n, self.per_round, self.paimon = spark, n, per_round, paimon
        self.target = max(1, n // 4)
        self.results = []

    def sql(self, text):
        return self.spark.sql(text).collect()

    def record(self, name, value, baseline):
        if value is None or baseline is None:
            return
        v, b = value.wall, baseline.wall
        self.results.append({"benchmark": name, "metric": "seconds", "value": round(v, 3), "baseline": round(b, 3),
                             "ratio": round(v / b, 3) if b else None})
        print(f"{name:<48} seconds {v:10.3f}  baseline {b:10.3f}  ratio {v / b if b else float('nan'):6.2f}",
              flush=True)

    def setup(self):
        self.sql("CREATE NAMESPACE lamina.bench")
        self.sql(f"CREATE TABLE lamina.bench.dynamic {COLUMNS} TBLPROPERTIES ('primary-key' = 'id', "
                 f"'dynamic-bucket.target-row-num' = '{self.target}')")
        # the count the dynamic table ends with: the rows of the bulk load and the rounds' new keys
        final_keys = self.n + 5 * (self.per_round - self.per_round // 2)
        buckets = max(1, -(-final_keys // self.target))
        self.sql(f"CREATE TABLE lamina.bench.fixed {COLUMNS} TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '{buckets}')")
        if self.paimon:
            self.sql("CREATE DATABASE paimon.bench")
            self.sql(f"CREATE TABLE paimon.bench.dynamic {COLUMNS} TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '-1', "
                     f"'dynamic-bucket.target-row-num' = '{self.target}', {PAIMON_FORMAT})")

    def warm_up(self):
        """A small write into each kind of table first, so that no measured phase pays the JVM's warm-up."""
        df = rows_of(self.spark, 0, 20000, 0)
        self.sql(f"CREATE TABLE lamina.bench.warm_dynamic {COLUMNS} TBLPROPERTIES ('primary-key' = 'id')")
        self.sql(f"CREATE TABLE lamina.bench.warm_fixed {COLUMNS} TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
        targets = ["lamina.bench.warm_dynamic", "lamina.bench.warm_fixed"]
        if self.paimon:
            self.sql(f"CREATE TABLE paimon.bench.warm {COLUMNS} TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '-1', "
                     f"{PAIMON_FORMAT})")
            targets.append("paimon.bench.warm")
        for _ in range(2):
            for t in targets:
                df.writeTo(t).append()

    def write(self, phase, df):
        dynamic = timed(lambda: df.writeTo("lamina.bench.dynamic").append())
        fixed = timed(lambda: df.writeTo("lamina.bench.fixed").append())
        self.record(f"dynamic_bucket/{phase}/vs_fixed", dynamic, fixed)
        if self.paimon:
            self.record(f"dynamic_bucket/{phase}/vs_paimon_dynamic", dynamic,
                        timed(lambda: df.writeTo("paimon.bench.dynamic").append()))

    def run(self):
        self.write("bulk_load", rows_of(self.spark, 0, self.n, 0).localCheckpoint())
        next_new = self.n
        for r in range(1, 6):
            self.write(f"upsert_round_{r}", round_batch(self.spark, r, next_new, self.per_round))
            next_new += self.per_round - self.per_round // 2
        counts = [self.sql(f"SELECT count(*), sum(v) FROM {t}")[0]
                  for t in ("lamina.bench.dynamic", "lamina.bench.fixed") + (("paimon.bench.dynamic",) if self.paimon else ())]
        assert len(set(tuple(c) for c in counts)) == 1, f"the tables differ: {counts}"
        buckets = self.sql("SELECT count(*), max(row_count) FROM lamina.bench.`dynamic$table_indexes` "
                           "WHERE index_type = 'HASH'")[0]
        print(f"dynamic table: {buckets[0]} buckets, the fullest holding {buckets[1]} keys (target {self.target})",
              flush=True)

    def write_results(self, out):
        write_results(out, "dynamic_bucket", self.results,
                      f"# Dynamic-bucket benchmark ({self.n} rows, rounds of {self.per_round}, target {self.target} "
                      "keys a bucket)\n\n")


def main():
    args = parse_args()
    paimon_jar = args.paimon_jar if args.paimon_jar and os.path.isfile(args.paimon_jar) else None
    if paimon_jar is None:
        print("Apache Paimon's Spark connector is absent: the Paimon rows are skipped", flush=True)
    work = tempfile.mkdtemp(prefix="lamina-dynamic-bucket-bench-")
    spark = session(work, [], paimon_jar)
    spark.sparkContext.setLogLevel("ERROR")
    pk_bench._jvm_stat = f"/proc/{spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()}/stat"
    bench = DynamicBucketBench(spark, args.rows, args.round_rows or max(1, args.rows // 10), bool(paimon_jar))
    bench.setup()
    bench.warm_up()
    bench.run()
    bench.write_results(args.out)
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
