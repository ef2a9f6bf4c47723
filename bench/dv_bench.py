"""Deletion-vector benchmark on local[2]: a primary-key table with `deletion-vectors.enabled` beside
Lamina's merge-on-read table, plain Parquet, Apache Paimon's connector with deletion vectors and Delta
Lake with deletion vectors, all in one session, on the same rows.

Phases: bulk load of N rows; five upsert rounds of M rows (half updates of existing keys, half new keys),
each written as INSERT INTO (Lamina and Paimon: a write and its compaction, lookup compaction on the
deletion-vector tables; Lamina's merge-on-read table compacts as its writes do by default) and as the
MERGE INTO a Delta user writes for an upsert; then three scans of the result (a full scan, a filter on a
value column selecting about 0.1% of the rows, a key range of 0.1% of the keys), each the median of three
runs taken in turn with the plain Parquet copy of the same rows. Each upsert round also records the
lookup files the executor built and reused (`lookup_hit_rate`: reused over built plus reused) and the
bytes of the files it built (`lookup_local_bytes`).

Results: bench/results/dv.json (a list of {benchmark, metric, value, baseline, ratio}) and dv.md.
`.../vs_parquet`, `vs_parquet_zstd_v2` (the Parquet copy written with the tables' codec and page version),
`vs_lamina_mor`, `vs_paimon_dv`, `vs_delta_dv`: Lamina-with-vectors' time over the
baseline's (below 1: Lamina is faster). Paimon rows need its connector jar (`--paimon-jar`, by default in
`../shared/anchors/`), Delta rows Delta's jars (`make bench` fetches them); both are skipped, saying so,
where absent.

Usage: python bench/dv_bench.py [--rows N] [--round-rows M] [--out DIR] [--delta-jars ..] [--paimon-jar P.jar]
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pk_bench  # noqa: E402  (the session, timing and argument helpers of the primary-key benchmark)
from pk_bench import median_pair, parse_args, session, timed, write_results  # noqa: E402

DV_OPTIONS = "'primary-key' = 'id', 'bucket' = '2', 'deletion-vectors.enabled' = 'true'"
MOR_OPTIONS = "'primary-key' = 'id', 'bucket' = '2'"
PAIMON_DV_OPTIONS = (DV_OPTIONS + ", 'merge-engine' = 'deduplicate', 'file.format' = 'parquet', "
                     "'file.compression' = 'zstd', 'file.compression.zstd-level' = '1', 'parquet.writer.version' = 'v2'")
SCANS = {
    "full_scan": "SELECT sum(v), count(s) FROM {t}",
    "value_filter": "SELECT sum(v), count(s) FROM {t} WHERE v BETWEEN {lo} AND {hi}",
    "key_range": "SELECT sum(v), count(s) FROM {t} WHERE id BETWEEN {klo} AND {khi}",
}


def rows_of(spark, start, count, salt):
    """Keys start..start+count with values derived from the key and `salt`."""
    return spark.range(start, start + count).selectExpr(
        "id", f"id * 7 + {salt} AS v", f"concat('s', CAST(id % 1000 AS STRING), '-{salt}') AS s")


def round_batch(spark, r, next_new, per_round):
    """Upsert round r: half updates of keys spread over [0, next_new), half new keys from next_new."""
    half = per_round // 2
    updates = spark.range(0, half).selectExpr(f"(id * {max(1, next_new // half)}) % {next_new} AS id")
    batch = (updates.selectExpr("id", f"id * 7 + {r} AS v", f"concat('s', CAST(id % 1000 AS STRING), '-{r}') AS s")
             .union(rows_of(spark, next_new, per_round - half, r)))
    return batch.dropDuplicates(["id"]).localCheckpoint()


class DvBench:
    def __init__(self, spark, work, n, per_round, delta, paimon):
        self.spark, self.n, self.per_round, self.delta, self.paimon = spark, n, per_round, delta, paimon
        self.work = work
        self.results = []
        self.cache = spark.sparkContext._jvm.lamina.lookup.LocalFileCache

    def sql(self, text):
        return self.spark.sql(text).collect()

    def rows(self, start, count, salt):
        return rows_of(self.spark, start, count, salt)

    def record(self, name, value, baseline, metric="seconds"):
        if value is None or baseline is None:
            return
        v, b = (value.wall, baseline.wall) if metric == "seconds" else (value, baseline)
        self.results.append({"benchmark": name, "metric": metric, "value": round(v, 3), "baseline": round(b, 3),
                             "ratio": round(v / b, 3) if b else None})
        print(f"{name:<44} {metric:<20} {v:10.3f}  baseline {b:10.3f}  ratio {v / b if b else float('nan'):6.2f}",
              flush=True)

    def setup(self):
        self.sql("CREATE NAMESPACE lamina.bench")
        self.sql(f"CREATE TABLE lamina.bench.dv (id BIGINT, v BIGINT, s STRING) TBLPROPERTIES ({DV_OPTIONS})")
        self.sql(f"CREATE TABLE lamina.bench.mor (id BIGINT, v BIGINT, s STRING) TBLPROPERTIES ({MOR_OPTIONS})")
        if self.paimon:
            self.sql("CREATE DATABASE paimon.bench")
            self.sql(f"CREATE TABLE paimon.bench.dv (id BIGINT, v BIGINT, s STRING) TBLPROPERTIES ({PAIMON_DV_OPTIONS})")
        if self.delta:
            self.sql(f"CREATE TABLE delta.`{self.work}/delta` (id BIGINT, v BIGINT, s STRING) USING delta "
                     "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")

    def bulk_load(self):
        df = self.rows(0, self.n, 0)
        plain = timed(lambda: df.write.mode("overwrite").parquet(f"{self.work}/plain/load"))
        lamina = timed(lambda: df.writeTo("lamina.bench.dv").append())
        self.record("dv/bulk_load/vs_parquet", lamina, plain)
        self.record("dv/bulk_load/vs_lamina_mor", lamina, timed(lambda: df.writeTo("lamina.bench.mor").append()))
        if self.paimon:
            self.record("dv/bulk_load/vs_paimon_dv", lamina, timed(lambda: df.writeTo("paimon.bench.dv").append()))
        if self.delta:
            self.record("dv/bulk_load/vs_delta_dv", lamina,
                        timed(lambda: df.write.format("delta").mode("append").save(f"{self.work}/delta")))

    def upsert_rounds(self):
        next_new = self.n
        for r in range(1, 6):
            half = self.per_round // 2
            batch = round_batch(self.spark, r, next_new, self.per_round)
            batch.createOrReplaceTempView("bench_batch")
            plain = timed(lambda: batch.write.mode("overwrite").parquet(f"{self.work}/plain/round"))
            before = self.cache.stats()
            lamina = timed(lambda: batch.writeTo("lamina.bench.dv").append())
            after = self.cache.stats()
            name = f"dv/upsert_round_{r}"
            self.record(f"{name}/vs_parquet", lamina, plain)
            self.record(f"{name}/vs_lamina_mor", lamina, timed(lambda: batch.writeTo("lamina.bench.mor").append()))
            if self.paimon:
                self.record(f"{name}/vs_paimon_dv", lamina, timed(lambda: batch.writeTo("paimon.bench.dv").append()))
            if self.delta:
                merge = (f"MERGE INTO delta.`{self.work}/delta` t USING bench_batch s ON t.id = s.id "
                         "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
                self.record(f"{name}/vs_delta_dv", lamina, timed(lambda: self.sql(merge)))
            built, reused = after.built() - before.built(), after.reused() - before.reused()
            self.record(f"{name}/lookup_hit_rate", reused / max(1, built + reused), 1.0, metric="ratio")
            self.record(f"{name}/lookup_local_bytes", after.bytesBuilt() - before.bytesBuilt(), 1, metric="bytes")
            next_new += self.per_round - half
        return next_new

    def check(self, a, b):
        q = "SELECT count(*), bit_xor(xxhash64(id, v, s)) FROM {}"
        x, y = self.sql(q.format(a)), self.sql(q.format(b))
        if x != y:
            raise SystemExit(f"{a} and {b} hold different rows: {x} vs {y}")

    def scans(self, keys):
        self.spark.table("lamina.bench.dv").write.mode("overwrite").parquet(f"{self.work}/plain/current")
        self.spark.read.parquet(f"{self.work}/plain/current").createOrReplaceTempView("plain_current")
        # the same rows as Parquet written as the tables' files are (zstd level 1, v2 pages): how much of
        # the gap to plain Parquet is the file format's decoding rather than the table's reading
        (self.spark.table("lamina.bench.dv").write.mode("overwrite").option("compression", "zstd")
         .option("parquet.compression.codec.zstd.level", "1").option("parquet.writer.version", "v2")
         .parquet(f"{self.work}/plain/current_zstd"))
        self.spark.read.parquet(f"{self.work}/plain/current_zstd").createOrReplaceTempView("plain_current_zstd")
        self.check("lamina.bench.dv", "lamina.bench.mor")
        self.check("lamina.bench.dv", "plain_current")
        if self.paimon:
            self.check("lamina.bench.dv", "paimon.bench.dv")
        lo = keys * 7 // 2
        args = {"lo": lo, "hi": lo + keys * 7 // 1000, "klo": keys // 2, "khi": keys // 2 + keys // 1000}
        for scan, sql in SCANS.items():
            def run(t):
                return lambda: self.sql(sql.format(t=t, **args))
            lamina, plain = median_pair(run("lamina.bench.dv"), run("plain_current"), times=3)
            self.record(f"dv/{scan}/vs_parquet", lamina, plain)
            _, same_codec = median_pair(run("lamina.bench.dv"), run("plain_current_zstd"), times=3)
            self.record(f"dv/{scan}/vs_parquet_zstd_v2", lamina, same_codec)
            _, mor = median_pair(run("lamina.bench.dv"), run("lamina.bench.mor"), times=3)
            self.record(f"dv/{scan}/vs_lamina_mor", lamina, mor)
            if self.paimon:
                _, paimon = median_pair(run("lamina.bench.dv"), run("paimon.bench.dv"), times=3)
                self.record(f"dv/{scan}/vs_paimon_dv", lamina, paimon)
                self.record(f"dv/{scan}/paimon_dv_vs_parquet", paimon, plain)

    def write(self, out):
        write_results(out, "dv", self.results, f"# Deletion-vector benchmark ({self.n} rows, rounds of {self.per_round})\n\n")


def main():
    args = parse_args()
    delta_jars = [j for j in args.delta_jars.split(",") if j]
    paimon_jar = args.paimon_jar if args.paimon_jar and os.path.isfile(args.paimon_jar) else None
    if paimon_jar is None:
        print("Apache Paimon's Spark connector is absent: the Paimon rows are skipped", flush=True)
    if not delta_jars:
        print("Delta Lake's jars are absent: the Delta rows are skipped", flush=True)
    work = tempfile.mkdtemp(prefix="lamina-dv-bench-")
    spark = session(work, delta_jars, paimon_jar)
    spark.sparkContext.setLogLevel("ERROR")
    pk_bench._jvm_stat = f"/proc/{spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()}/stat"
    bench = DvBench(spark, work, args.rows, args.round_rows or max(1, args.rows // 10), bool(delta_jars), bool(paimon_jar))
    bench.setup()
    bench.bulk_load()
    keys = bench.upsert_rounds()
    bench.scans(keys)
    bench.write(args.out)
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
