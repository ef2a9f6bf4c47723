"""What a commit and a read cost on S3, in requests and time: Lamina and Apache Paimon's own Spark
connector on the same S3 server on loopback (moto, `tests/_s3.py`, which counts the requests it
serves by kind: HEAD, GET, LIST, PUT, DELETE, ...), through the same Hadoop S3A connector, in one
Spark session.

Each side has a primary-key table (2 buckets) and an append table, loaded with `--rounds` INSERTs
first. Measured per side and table, each the median over `--rounds`:
- `commit_requests`, `commit_seconds`: one INSERT of 10 rows (data files, manifests, snapshot);
- `read_requests`, `read_seconds`: `SELECT count(*)` of the table (table load, scan plan, data files);
- `point_read_requests`: `SELECT * WHERE k = <one key>` (the key-range and file skipping).
Requests are also given by kind. The baseline is Paimon's connector (left out, saying so, where its jar
is absent); ratio = Lamina / Paimon (below 1: Lamina sends fewer). Results: bench/results/s3.json and
bench/results/s3.md.

Usage: python bench/s3_bench.py [--rounds N] [--paimon-jar P.jar] [--out DIR]
"""

import argparse
import os
import statistics
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

import lamina  # noqa: E402
from _s3 import S3Server, class_path  # noqa: E402
from pk_bench import PAIMON_EXTENSIONS, default_paimon_jar, write_results  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

TABLES = {
    "pk": "(k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')",
    "append": "(k INT, v STRING)",
}


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--paimon-jar", default=default_paimon_jar())
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    return ap.parse_args()


def session(s3, paimon_jar):
    builder = (SparkSession.builder.master("local[2]").appName("lamina-s3-bench")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.extraClassPath", class_path()))
    if paimon_jar:
        builder = (builder.config("spark.jars", paimon_jar)
                   .config("spark.sql.extensions", PAIMON_EXTENSIONS)
                   .config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
                   .config("spark.sql.catalog.paimon.warehouse", s3.warehouse("paimon")))
    builder = lamina.configure(builder, s3.warehouse("lamina"), catalog="lamina", hadoop_conf=s3.hadoop_conf())
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def measure(s3, run):
    """(requests by kind, seconds) of `run()`."""
    s3.reset_counts()
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    return Counter(s3.counts()), seconds


def side(spark, s3, catalog, rounds):
    """{(table, metric): value} for one catalog."""
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {catalog}.bench")
    out = {}
    for table, ddl in TABLES.items():
        name = f"{catalog}.bench.{table}"
        spark.sql(f"CREATE TABLE {name} {ddl}")
        for i in range(rounds):
            spark.sql(f"INSERT INTO {name} SELECT id + {i * 10} AS k, 'v' AS v FROM range(10)")
        commits, reads, points = [], [], []
        for i in range(rounds):
            base = (rounds + i) * 10
            commits.append(measure(s3, lambda: spark.sql(
                f"INSERT INTO {name} SELECT id + {base} AS k, 'w' AS v FROM range(10)").collect()))
            reads.append(measure(s3, lambda: spark.sql(f"SELECT count(*) FROM {name}").collect()))
            points.append(measure(s3, lambda: spark.sql(f"SELECT * FROM {name} WHERE k = 3").collect()))
        for metric, samples in (("commit", commits), ("read", reads), ("point_read", points)):
            totals = [sum(c.values()) for c, _ in samples]
            out[(table, f"{metric}_requests")] = statistics.median(totals)
            out[(table, f"{metric}_seconds")] = round(statistics.median(s for _, s in samples), 4)
            kinds = sorted({k for c, _ in samples for k in c})
            for kind in kinds:
                out[(table, f"{metric}_{kind}")] = statistics.median(c.get(kind, 0) for c, _ in samples)
    return out


def main():
    args = parse_args()
    paimon_jar = args.paimon_jar if args.paimon_jar and os.path.isfile(args.paimon_jar) else None
    if not paimon_jar:
        print(f"Paimon's connector is not at {args.paimon_jar}: measuring Lamina alone", file=sys.stderr)
    with S3Server() as s3:
        spark = session(s3, paimon_jar)
        try:
            ours = side(spark, s3, "lamina", args.rounds)
            theirs = side(spark, s3, "paimon", args.rounds) if paimon_jar else {}
        finally:
            spark.stop()
    results = []
    for (table, metric), value in sorted(ours.items()):
        base = theirs.get((table, metric))
        ratio = round(value / base, 3) if base else None
        results.append({"benchmark": f"s3/{table}", "metric": metric, "value": value, "baseline": base, "ratio": ratio})
        print(f"s3/{table:7} {metric:28} lamina {value:>10}  paimon {base!s:>10}  ratio {ratio}")
    write_results(args.out, "s3", results,
                  f"# S3 requests and times ({args.rounds} rounds, local[2], moto on loopback)\n\n"
                  "Baseline: Apache Paimon's Spark connector on the same server through the same S3A; "
                  "ratio = Lamina / Paimon.\n\n")


if __name__ == "__main__":
    main()
