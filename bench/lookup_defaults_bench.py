"""The lookup store's options measured on the workload they serve: lookup compaction of a primary-key
table with deletion vectors, on local[2]. For each setting (the defaults, then one option changed at a
time: the block size `cache-page-size`, the block compression `lookup.cache-spill-compression` and the
local file type `lookup.local-file-type`; the block cache, one per JVM, keeps the size it was made with),
after an untimed warm-up at a tenth of the rows, a fresh table takes a bulk load of N rows and five upsert rounds of M rows (the deletion-vector benchmark's rounds:
half updates spread over the keys, half new keys), each round a write and its lookup compaction.

Results: bench/results/lookup_defaults.json and .md: per setting, the five rounds' total time (value)
against the defaults' (baseline: the mean of the defaults measured first and again last; below 1: the
setting is faster than the defaults), the first round
(which builds the lookup files of the bulk load) and the bytes of local lookup files built.

Usage: python bench/lookup_defaults_bench.py [--rows N] [--round-rows M] [--out DIR]
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dv_bench import round_batch, rows_of  # noqa: E402
from pk_bench import parse_args, session, timed, write_results  # noqa: E402

TABLE = "'primary-key' = 'id', 'bucket' = '2', 'deletion-vectors.enabled' = 'true'"
SETTINGS = [
    ("defaults", ""),
    ("page_4kb", "'cache-page-size' = '4 kb'"),
    ("page_16kb", "'cache-page-size' = '16 kb'"),
    ("page_256kb", "'cache-page-size' = '256 kb'"),
    ("compression_none", "'lookup.cache-spill-compression' = 'none'"),
    ("compression_lz4", "'lookup.cache-spill-compression' = 'lz4'"),
    ("file_hash", "'lookup.local-file-type' = 'hash'"),
    ("defaults_again", ""),
]


def run_setting(spark, cache, name, extra, n, per_round):
    table = f"lamina.lookup_bench.{name}"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, v BIGINT, s STRING) TBLPROPERTIES ({TABLE}{', ' + extra if extra else ''})")
    rows_of(spark, 0, n, 0).writeTo(table).append()
    rounds, next_new = [], n
    before = cache.stats()
    for r in range(1, 6):
        batch = round_batch(spark, r, next_new, per_round)
        rounds.append(timed(lambda: batch.writeTo(table).append()).wall)
        next_new += per_round - per_round // 2
    built = cache.stats().bytesBuilt() - before.bytesBuilt()
    spark.sql(f"DROP TABLE {table}")
    print(f"{name:<20} rounds {' '.join(f'{x:6.2f}' for x in rounds)}  total {sum(rounds):6.2f} s  "
          f"built {built / 1e6:8.1f} MB", flush=True)
    return rounds, built


def main():
    args = parse_args()
    n = args.rows
    per_round = args.round_rows or max(1, n // 10)
    work = tempfile.mkdtemp(prefix="lamina-lookup-defaults-")
    spark = session(work, [], None)
    spark.sparkContext.setLogLevel("ERROR")
    cache = spark.sparkContext._jvm.lamina.lookup.LocalFileCache
    spark.sql("CREATE NAMESPACE lamina.lookup_bench")
    run_setting(spark, cache, "warm_up", "", max(1, n // 10), max(1, per_round // 10))
    measured = {name: run_setting(spark, cache, name, extra, n, per_round) for name, extra in SETTINGS}
    # the defaults run first and last: a drift over the run (the JVM warming up further) shows between
    # them, and their mean is the baseline
    first, last = measured["defaults"], measured["defaults_again"]
    base_rounds = [(a + b) / 2 for a, b in zip(first[0], last[0])]
    base_built = first[1]
    results = []
    for name, _ in SETTINGS:
        rounds, built = measured[name]
        for metric, value, baseline in (("total_seconds", sum(rounds), sum(base_rounds)),
                                        ("round_1_seconds", rounds[0], base_rounds[0]),
                                        ("local_bytes", built, base_built)):
            results.append({"benchmark": f"lookup_defaults/{name}", "metric": metric, "value": round(value, 3),
                            "baseline": round(baseline, 3), "ratio": round(value / baseline, 3) if baseline else None})
    write_results(args.out, "lookup_defaults", results,
                  f"# Lookup store settings under lookup compaction ({n} rows, five rounds of {per_round}; "
                  "baseline: the defaults, measured first and last)\n\n")
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
