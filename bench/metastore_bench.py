"""What a metastore costs, on local[2]: the filesystem catalog (the baseline) beside the JDBC catalog on
SQLite (a file) and on PostgreSQL (a private server on loopback, started here; left out, saying so,
where it cannot start), and the Hive metastore (a thrift server on loopback from PySpark's Hive jars,
started here, likewise), each with and without the commit lock (`lock.enabled`).

Each catalog holds a database with TABLES small primary-key tables. Measured, in rounds that take
the catalogs in turn so that all see the same machine state:
- `commit_seconds`: one single-row INSERT into a primary-key table (one snapshot commit; with the lock,
  taking and giving back its row), the median over `--commits` rounds;
- `show_tables_seconds`: `SHOW TABLES` of the database, the median over `--rounds`;
- `describe_seconds`: `DESCRIBE TABLE` (the table's load through the catalog), the median over `--rounds`;
- `count_seconds`: `SELECT count(*)` of a table of a few rows (load, plan and scan), the median over `--rounds`;
- `list_tables_call_seconds`, `load_table_call_seconds`: the catalog's own `listTables` and `loadTable`
  called through py4j, without Spark's parsing and planning (the same py4j cost on every side), the
  median over 5 x `--rounds`.
Each value is given beside the filesystem catalog's (baseline); the ratio above 1 is what the
metastore adds. Results: bench/results/metastore.json (a list of {benchmark, metric, value, baseline,
ratio}) and bench/results/metastore.md.

Usage: python bench/metastore_bench.py [--commits N] [--rounds N] [--tables N] [--out DIR]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

import lamina  # noqa: E402
from _hive import MetastoreServer  # noqa: E402
from _postgres import PostgresServer, PostgresUnavailable  # noqa: E402
from pk_bench import write_results  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

BASELINE = "filesystem"
LOCK = {"lock.enabled": "true", "lock-check-max-sleep": "100 ms"}
METRICS = ["commit_seconds", "show_tables_seconds", "describe_seconds", "count_seconds", "list_tables_call_seconds",
           "load_table_call_seconds"]


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=40, help="single-row INSERTs per catalog")
    ap.add_argument("--rounds", type=int, default=40, help="runs of each read statement per catalog")
    ap.add_argument("--tables", type=int, default=20, help="tables in each catalog's database")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    return ap.parse_args()


def catalogs(work, postgres, hive_uri):
    """{label: catalog options} of the catalogs measured, the baseline first."""
    sqlite = {"metastore": "jdbc", "uri": f"jdbc:sqlite:{work}/catalog.db"}
    found = {BASELINE: {"metastore": "filesystem"}, "jdbc-sqlite": sqlite,
             "jdbc-sqlite-lock": dict(sqlite, **LOCK, **{"catalog-key": "locked"})}
    if postgres is not None:
        pg = {"metastore": "jdbc", "uri": postgres.uri, "jdbc.user": "lamina"}
        found["jdbc-postgresql"] = pg
        found["jdbc-postgresql-lock"] = dict(pg, **LOCK, **{"catalog-key": "locked"})
    if hive_uri is not None:
        # one metastore for both: each catalog's database has its own name (see `database`)
        found["hive-thrift"] = {"metastore": "hive", "uri": hive_uri}
        found["hive-thrift-lock"] = dict(found["hive-thrift"], **LOCK)
    return found


def database(label):
    """The benchmark's database in catalog `label`: Hive's databases are global, so named after it."""
    return "bench_" + label.replace("-", "_") if label.startswith("hive") else "bench"


def session(work, measured):
    builder = (SparkSession.builder.master("local[2]").appName("lamina metastore bench")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2"))
    for label, options in measured.items():
        prefix = f"spark.sql.catalog.{catalog_name(label)}"
        builder = builder.config(prefix, "lamina.spark.LaminaCatalog").config(f"{prefix}.warehouse",
                                                                              os.path.join(work, label))
        for key, value in options.items():
            builder = builder.config(f"{prefix}.{key}", value)
    return lamina.configure(builder, warehouse=os.path.join(work, "unused")).getOrCreate()


def catalog_name(label):
    return "m_" + label.replace("-", "_")


def seconds(spark, statement):
    start = time.perf_counter()
    spark.sql(statement).collect()
    return time.perf_counter() - start


def setup(spark, cat, db, tables):
    spark.sql(f"CREATE NAMESPACE {cat}.{db}")
    for i in range(tables):
        spark.sql(f"CREATE TABLE {cat}.{db}.t{i} (id INT NOT NULL, v STRING) "
                  "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {cat}.{db}.t1 VALUES (1, 'a'), (2, 'b'), (3, 'c')")


def catalog_calls(spark, cat, db):
    """{metric: a call of the catalog plugin's method} for the `*_call_seconds` metrics."""
    plugin = spark._jsparkSession.sessionState().catalogManager().catalog(cat)
    namespace = spark.sparkContext._gateway.new_array(spark._jvm.java.lang.String, 1)
    namespace[0] = db
    ident = spark._jvm.org.apache.spark.sql.connector.catalog.Identifier.of(namespace, "t1")
    return {"list_tables_call_seconds": lambda: plugin.listTables(namespace),
            "load_table_call_seconds": lambda: plugin.loadTable(ident)}


def timed_call(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(spark, labels, args):
    """{label: {metric: [seconds, ...]}}, the catalogs taken in turn within each round."""
    samples = {label: {m: [] for m in METRICS} for label in labels}
    statements = {"show_tables_seconds": "SHOW TABLES IN {cat}.{db}",
                  "describe_seconds": "DESCRIBE TABLE {cat}.{db}.t1",
                  "count_seconds": "SELECT count(*) FROM {cat}.{db}.t1"}
    for r in range(args.commits):
        for label in labels:
            samples[label]["commit_seconds"].append(
                seconds(spark, f"INSERT INTO {catalog_name(label)}.{database(label)}.t0 VALUES ({r}, 'v{r}')"))
    for metric, statement in statements.items():
        for _ in range(args.rounds):
            for label in labels:
                samples[label][metric].append(
                    seconds(spark, statement.format(cat=catalog_name(label), db=database(label))))
    calls = {label: catalog_calls(spark, catalog_name(label), database(label)) for label in labels}
    for metric in ["list_tables_call_seconds", "load_table_call_seconds"]:
        for _ in range(5 * args.rounds):
            for label in labels:
                samples[label][metric].append(timed_call(calls[label][metric]))
    return samples


def start_postgres():
    try:
        return PostgresServer().setup()
    except PostgresUnavailable as e:
        print(f"PostgreSQL left out: {e}", file=sys.stderr)
        return None


def start_hive():
    server = MetastoreServer()
    try:
        return server, server.__enter__()
    except AssertionError as e:
        print(f"The Hive metastore left out: {e}", file=sys.stderr)
        return None, None


def main():
    args = parse_args()
    work = tempfile.mkdtemp(prefix="lamina-metastore-bench-")
    postgres = start_postgres()
    hive, hive_uri = start_hive()
    try:
        measured = catalogs(work, postgres, hive_uri)
        spark = session(work, measured)
        spark.sparkContext.setLogLevel("ERROR")
        for label in measured:
            setup(spark, catalog_name(label), database(label), args.tables)
        # warm-up: the first statements of a session pay for class loading and code generation
        measure(spark, list(measured), argparse.Namespace(commits=5, rounds=5))
        samples = measure(spark, list(measured), args)
        spark.stop()
    finally:
        if postgres is not None:
            postgres.teardown()
        if hive is not None:
            hive.__exit__(None, None, None)
        shutil.rmtree(work, ignore_errors=True)

    medians = {label: {m: statistics.median(v) for m, v in by_metric.items()} for label, by_metric in samples.items()}
    results = []
    print(f"{'metastore':<22}" + "".join(f"{m.removesuffix('_seconds'):>22}" for m in METRICS))
    for label, values in medians.items():
        cells = []
        for metric in METRICS:
            value, baseline = values[metric], medians[BASELINE][metric]
            results.append({"benchmark": f"metastore/{label}", "metric": metric, "value": round(value, 5),
                            "baseline": round(baseline, 5), "ratio": round(value / baseline, 3)})
            cells.append(f"{value * 1000:8.2f} ms x{value / baseline:5.2f}")
        print(f"{label:<22}" + "".join(f"{c:>22}" for c in cells), flush=True)
    write_results(args.out, "metastore", results,
                  f"# Metastores against the filesystem catalog (medians: {args.commits} single-row commits, "
                  f"{args.rounds} runs of each read; {args.tables} tables in the database)\n\n")


if __name__ == "__main__":
    main()
