"""Streaming ingest benchmark on local[2]: N rows in micro-batches of M rows (Structured Streaming, one
file of M rows per trigger from a Parquet directory, `Trigger.AvailableNow`) into a primary-key table
with `changelog-producer` none, input and lookup, beside the batch write of the same rows into the same
kind of table and Apache Paimon's connector streaming the same micro-batches into the same kind of
Paimon table, all in one session.

The rows: `id` = a hash of the row number modulo N/2 (each key written about twice, so about half the
rows of the later batches update a key), `v` BIGINT and `s` STRING derived from `id`. Lamina's tables compact after each
micro-batch as its writes do (lookup compaction for the lookup producer); Paimon's tables are set up as
Lamina's (primary key `id`, `bucket` = 2, the same producer, Parquet with zstd level 1 and writer
version v2) and compact as Paimon's writers do.

Rows: `stream/<producer>/rows_per_second` (the streaming ingest's rows per second; baseline: the batch
write's, ratio = streaming over batch), `stream/<producer>/vs_paimon` (Lamina's streaming ingest time
over Paimon's; below 1: Lamina is faster), and `stream/latency/<producer>` (seconds from an INSERT's
commit returning to its row reaching a running streaming reader of the table, the median of five;
baseline: Paimon's reader of a Paimon table of the same kind). Results: bench/results/stream.json and
stream.md.

Usage: python bench/stream_bench.py [--rows N] [--round-rows M] [--out DIR] [--paimon-jar P.jar]
"""

import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pk_bench  # noqa: E402  (the session, timing and argument helpers of the primary-key benchmark)
from pk_bench import parse_args, session, timed, write_results  # noqa: E402

PRODUCERS = ["none", "input", "lookup"]
PAIMON_FORMAT = ("'file.format' = 'parquet', 'file.compression' = 'zstd', 'file.compression.zstd-level' = '1', "
                 "'parquet.writer.version' = 'v2'")
SCHEMA = "id BIGINT, v BIGINT, s STRING"


def options(producer, paimon):
    base = f"'primary-key' = 'id', 'bucket' = '2', 'changelog-producer' = '{producer}'"
    return base + (", 'merge-engine' = 'deduplicate', " + PAIMON_FORMAT if paimon else "")


class StreamBench:
    def __init__(self, spark, work, n, per_batch, paimon):
        self.spark, self.work, self.n, self.per_batch, self.paimon = spark, work, n, per_batch, paimon
        self.results = []
        self.source = os.path.join(work, "source")

    def sql(self, text):
        return self.spark.sql(text).collect()

    def record(self, name, metric, value, baseline):
        self.results.append({"benchmark": name, "metric": metric, "value": round(value, 3),
                             "baseline": round(baseline, 3), "ratio": round(value / baseline, 3) if baseline else None})
        print(f"{name:<36} {metric:<16} {value:12.3f}  baseline {baseline:12.3f}  ratio "
              f"{value / baseline if baseline else float('nan'):6.2f}", flush=True)

    def setup(self):
        files = max(1, self.n // self.per_batch)
        # a key's rows are equal, so that the table's rows do not depend on which of a key's rows in one
        # write is the later one (undefined within a write), and the batch and stream tables compare equal
        (self.spark.range(0, self.n, 1, files)
         .selectExpr(f"pmod(xxhash64(id), {max(1, self.n // 2)}) AS id")
         .selectExpr("id", "id * 7 AS v", "concat('s', CAST(id % 1000 AS STRING)) AS s")
         .write.parquet(self.source))
        self.sql("CREATE NAMESPACE lamina.bench")
        if self.paimon:
            self.sql("CREATE DATABASE paimon.bench")

    def create(self, catalog, table, producer):
        self.sql(f"CREATE TABLE {catalog}.bench.{table} ({SCHEMA}) TBLPROPERTIES ({options(producer, catalog == 'paimon')})")
        return f"{catalog}.bench.{table}"

    def stream_into(self, target, checkpoint):
        def run():
            w = (self.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(self.source)
                 .writeStream.option("checkpointLocation", os.path.join(self.work, "ckpt", checkpoint))
                 .trigger(availableNow=True))
            if target.startswith("paimon."):
                # Paimon's streaming sink is its path-based format (its catalog tables take no streaming write)
                q = w.format("paimon").start(os.path.join(self.work, "paimon", "bench.db", target.split(".")[-1]))
            else:
                q = w.toTable(target)
            q.awaitTermination()
            if q.exception():
                raise RuntimeError(str(q.exception()))
        return timed(run)

    def check(self, a, b):
        q = "SELECT count(*), bit_xor(xxhash64(id, v, s)) FROM {}"
        x, y = self.sql(q.format(a)), self.sql(q.format(b))
        if x != y:
            raise AssertionError(f"{a} holds {x}, {b} holds {y}")

    def ingest(self):
        for p in PRODUCERS:
            batch_table = self.create("lamina", f"batch_{p}", p)
            batch = timed(lambda: self.spark.read.parquet(self.source).writeTo(batch_table).append())
            lamina = self.stream_into(self.create("lamina", f"stream_{p}", p), f"lamina_{p}")
            self.check(f"lamina.bench.stream_{p}", batch_table)
            self.record(f"stream/{p}/rows_per_second", "rows/s", self.n / lamina.wall, self.n / batch.wall)
            if self.paimon:
                paimon = self.stream_into(self.create("paimon", f"stream_{p}", p), f"paimon_{p}")
                self.check(f"lamina.bench.stream_{p}", f"paimon.bench.stream_{p}")
                self.record(f"stream/{p}/vs_paimon", "seconds", lamina.wall, paimon.wall)

    def latency_of(self, table, samples=5):
        """Seconds from each INSERT returning to its row reaching a streaming reader of `table`."""
        seen, lock = {}, threading.Lock()

        def arrived(df, _):
            now = time.perf_counter()
            with lock:
                for r in df.select("id").collect():
                    seen.setdefault(r[0], now)

        if table.startswith("paimon."):
            source = self.spark.readStream.format("paimon").load(
                os.path.join(self.work, "paimon", "bench.db", table.split(".")[-1]))
        else:
            source = self.spark.readStream.table(table)
        q = (source.writeStream.foreachBatch(arrived)
             .option("checkpointLocation", os.path.join(self.work, "ckpt", "latency_" + table.replace(".", "_")))
             .start())
        out = []
        try:
            for i in range(samples):
                key = 1_000_000_000 + i
                self.sql(f"INSERT INTO {table} VALUES ({key}, {i}, 'latency')")
                committed = time.perf_counter()
                deadline = committed + 120
                while key not in seen and time.perf_counter() < deadline:
                    time.sleep(0.01)
                if key not in seen:
                    raise AssertionError(f"row {key} did not reach the stream of {table}")
                out.append(seen[key] - committed)
        finally:
            q.stop()
        return sorted(out)[len(out) // 2]

    def latency(self):
        for p in PRODUCERS:
            lamina = self.latency_of(self.create("lamina", f"latency_{p}", p))
            paimon = self.latency_of(self.create("paimon", f"latency_{p}", p)) if self.paimon else 0.0
            self.record(f"stream/latency/{p}", "seconds", lamina, paimon)

    def write(self, out):
        write_results(out, "stream", self.results,
                      f"# Streaming ingest benchmark ({self.n} rows, micro-batches of {self.per_batch})\n\n")


def main():
    args = parse_args()
    paimon_jar = args.paimon_jar if args.paimon_jar and os.path.isfile(args.paimon_jar) else None
    if paimon_jar is None:
        print("Apache Paimon's Spark connector is absent: the Paimon rows are skipped", flush=True)
    work = tempfile.mkdtemp(prefix="lamina-stream-bench-")
    spark = session(work, [], paimon_jar)
    spark.sparkContext.setLogLevel("ERROR")
    pk_bench._jvm_stat = f"/proc/{spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()}/stat"
    bench = StreamBench(spark, work, args.rows, args.round_rows or 100_000, bool(paimon_jar))
    bench.setup()
    bench.ingest()
    bench.latency()
    bench.write(args.out)
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
