"""Bucket sizes on skewed data, local[2]: one partition holds 100 times the rows of each of the others.
A single fixed bucket count gives the small partitions tiny buckets and the large one huge ones; the
tables that choose buckets from the data should keep every bucket near its target size.

Tables, all with primary key (p, id) and the same rows:
- `postpone`: `bucket` = -2 with `postpone.batch-write-fixed-bucket` = false and
  `postpone.target-bucket-rows` = T: the write lands in `bucket-postpone`, then `CALL sys.compact` gives
  each partition one bucket per T waiting rows (rounded up);
- `dynamic`: `bucket` = -1 with `dynamic-bucket.target-row-num` = T: each partition's buckets fill to T
  keys, then a new one opens;
- `fixed`: one `bucket` count for every partition, the count that gives the average partition buckets of
  T rows.

T is the rows of a small partition. Reported per table: the largest and smallest bucket over T
(`largest_bucket` and `smallest_bucket`, target: within 2x of T everywhere, that is between 0.5 and 2),
and the time to write (and, for `postpone`, compact) against the fixed table's write.

Results: bench/results/bucket_sizing.json and bucket_sizing.md.

Usage: python bench/bucket_sizing_bench.py [--small-rows N] [--partitions P] [--out DIR]
"""

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pk_bench  # noqa: E402  (the session and timing helpers of the primary-key benchmark)
from pk_bench import session, timed, write_results  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = "(p INT NOT NULL, id BIGINT NOT NULL, v BIGINT, s STRING) PARTITIONED BY (p)"
SKEW = 100


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--small-rows", type=int, default=20_000, help="rows of each small partition (and the target T)")
    ap.add_argument("--partitions", type=int, default=10, help="partitions, the first of them SKEW times larger")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    return ap.parse_args()


class BucketSizingBench:
    def __init__(self, spark, small, partitions):
        self.spark, self.small, self.partitions = spark, small, partitions
        self.target = small
        self.total = small * SKEW + small * (partitions - 1)
        self.fixed_count = max(1, round(self.total / partitions / self.target))
        self.results = []

    def sql(self, text):
        return self.spark.sql(text).collect()

    def add(self, name, metric, value, baseline):
        ratio = round(value / baseline, 3) if baseline else None
        self.results.append({"benchmark": name, "metric": metric, "value": round(value, 3),
                             "baseline": round(baseline, 3), "ratio": ratio})
        print(f"{name:<40} {metric:<16} {value:12.3f}  baseline {baseline:12.3f}  ratio {ratio}", flush=True)

    def rows(self):
        """Partition 0: SKEW * small rows; the others small rows each; keys distinct within a partition."""
        big = SKEW * self.small
        return self.spark.range(0, self.total).selectExpr(
            f"CAST(CASE WHEN id < {big} THEN 0 ELSE 1 + (id - {big}) DIV {self.small} END AS INT) AS p",
            "id", "id % 1000 AS v", "CAST(id AS STRING) AS s").localCheckpoint()

    def create(self):
        self.sql("CREATE NAMESPACE IF NOT EXISTS lamina.bench")
        key = "'primary-key' = 'p,id'"
        self.sql(f"CREATE TABLE lamina.bench.postpone {COLUMNS} TBLPROPERTIES ({key}, 'bucket' = '-2', "
                 f"'postpone.batch-write-fixed-bucket' = 'false', 'postpone.target-bucket-rows' = '{self.target}')")
        self.sql(f"CREATE TABLE lamina.bench.dynamic {COLUMNS} TBLPROPERTIES ({key}, 'bucket' = '-1', "
                 f"'dynamic-bucket.target-row-num' = '{self.target}')")
        self.sql(f"CREATE TABLE lamina.bench.fixed {COLUMNS} TBLPROPERTIES ({key}, 'bucket' = '{self.fixed_count}')")

    def warm_up(self):
        """A small write into a table of each kind, so that no measured phase pays the JVM's warm-up."""
        df = self.spark.range(0, 20000).selectExpr("CAST(id % 3 AS INT) AS p", "id", "id AS v", "'w' AS s")
        for name, props in (("warm_fixed", "'bucket' = '2'"), ("warm_dynamic", "'bucket' = '-1'")):
            self.sql(f"CREATE TABLE lamina.bench.{name} {COLUMNS} TBLPROPERTIES ('primary-key' = 'p,id', {props})")
            df.writeTo(f"lamina.bench.{name}").append()

    def bucket_rows(self, table):
        """Rows per (partition, bucket): the live files' record counts (one write of distinct keys, so
        no key is counted twice)."""
        return [r[0] for r in self.sql(
            f"SELECT sum(record_count) FROM lamina.bench.`{table}$files` WHERE bucket >= 0 GROUP BY partition, bucket")]

    def run(self):
        df = self.rows()
        fixed = timed(lambda: df.writeTo("lamina.bench.fixed").append())
        dynamic = timed(lambda: df.writeTo("lamina.bench.dynamic").append())

        def postpone_write_and_compact():
            df.writeTo("lamina.bench.postpone").append()
            self.sql("CALL lamina.sys.compact(table => 'bench.postpone')")
        postpone = timed(postpone_write_and_compact)
        counts = [tuple(self.sql(f"SELECT count(*), sum(v) FROM lamina.bench.{t}")[0]) for t in ("fixed", "dynamic", "postpone")]
        assert len(set(counts)) == 1, f"the tables differ: {counts}"
        for table, took in (("postpone", postpone), ("dynamic", dynamic), ("fixed", fixed)):
            sizes = self.bucket_rows(table)
            name = f"bucket_sizing/{table}"
            print(f"{table}: {len(sizes)} buckets", flush=True)
            self.add(name, "largest_bucket", max(sizes), self.target)
            self.add(name, "smallest_bucket", min(sizes), self.target)
            self.add(name, "buckets", len(sizes), self.total / self.target)
            if table != "fixed":
                self.add(f"{name}/vs_fixed", "seconds", took.wall, fixed.wall)

    def write_results(self, out):
        write_results(out, "bucket_sizing", self.results,
                      f"# Bucket sizes on skewed data ({self.total} rows in {self.partitions} partitions, the first "
                      f"{SKEW}x each other; target T = {self.target} rows a bucket; the fixed table has "
                      f"{self.fixed_count} buckets in every partition)\n\n"
                      "`largest_bucket` and `smallest_bucket`: rows of the fullest and emptiest bucket over T (target: "
                      "0.5 to 2). `buckets`: the buckets made, over the table's rows / T. `/vs_fixed`: the write "
                      "(for `postpone` the write and the compaction that assigns the buckets) over the fixed "
                      "table's write.\n\n")


def main():
    args = parse_args()
    work = tempfile.mkdtemp(prefix="lamina-bucket-sizing-bench-")
    spark = session(work, [], None)
    spark.sparkContext.setLogLevel("ERROR")
    pk_bench._jvm_stat = f"/proc/{spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()}/stat"
    bench = BucketSizingBench(spark, args.small_rows, args.partitions)
    bench.create()
    bench.warm_up()
    bench.run()
    bench.write_results(args.out)
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
