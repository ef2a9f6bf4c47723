"""A MERGE into a primary-key table reads, of the target, only what the source's keys can match: the
source's values of the joined key and partition columns reach the target's scan as a runtime filter,
which skips partitions, buckets and files without them and hands on only rows with them. The same
statements with the filter off (`merge.key-filter.max-keys` = 0) are the oracle."""

import os
import random
import zlib

import pytest

from _support import lamina_metrics, sorted_tuples, sql_rows

CAT = "lamina"

# statements per random history: `make stress` (LAMINA_STRESS=1) runs longer ones
STEPS = 40 if os.environ.get("LAMINA_STRESS") == "1" else 10

SKIPPED_FILES = "lamina data files skipped by join keys"
SKIPPED_ROWS = "lamina rows skipped by join keys"


def explain(spark, statement):
    return spark.sql(f"EXPLAIN {statement}").collect()[0][0]


def source(spark, rows, name="src"):
    spark.createDataFrame(rows, "k BIGINT, v BIGINT, s STRING").createOrReplaceTempView(name)


def merge_sql(table, clauses):
    return f"MERGE INTO {table} t USING src ON t.k = src.k {clauses}"


UPSERT_IF_NEWER = ("WHEN MATCHED AND t.v < src.v THEN UPDATE SET v = src.v, s = src.s "
                   "WHEN NOT MATCHED THEN INSERT *")


def ranges_table(spark, table, props="", batches=4, width=1000):
    """A table whose keys were written in `batches` commits of `width` contiguous keys each: its files
    cover disjoint key ranges."""
    spark.sql(f"CREATE TABLE {table} (k BIGINT NOT NULL, v BIGINT, s STRING) "
              f"TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2'{props})")
    for b in range(batches):
        spark.sql(f"INSERT INTO {table} SELECT id, id % 7, CAST(id AS STRING) FROM range({b * width}, {(b + 1) * width})")


def test_a_merge_of_one_key_range_reads_only_the_files_of_that_range(spark, db):
    t = f"{CAT}.{db}.t"
    ranges_table(spark, t)
    before = {r[0]: r for r in sql_rows(spark, f"SELECT k, v, s FROM {t}")}
    rows = [(k, 100 + k % 3, f"new{k}") for k in range(1500, 1520)] + [(k, 5, "fresh") for k in (10_000, 10_001)]
    source(spark, rows)
    statement = merge_sql(t, UPSERT_IF_NEWER)
    assert "dynamicpruning" in explain(spark, statement)
    metrics = lamina_metrics(spark, lambda: spark.sql(statement).collect())
    expected = dict(before)
    for k, v, s in rows:
        if k not in expected or expected[k][1] < v:
            expected[k] = (k, v, s)
    assert sql_rows(spark, f"SELECT k, v, s FROM {t}") == sorted_tuples(expected.values())
    # 4 commits of 2 buckets: 8 files, of which only the two holding keys 1000-1999 can match
    assert metrics[SKIPPED_FILES] == 6, metrics
    # of those two files' 1000 rows, the 980 keys the source does not hold never reach the join
    assert metrics[SKIPPED_ROWS] == 980, metrics


SMALL_PAGES = (("parquet.page.row.count.limit", "50"), ("parquet.page.size.row.check.min", "1"),
               ("parquet.page.size.row.check.max", "1"))


@pytest.fixture
def small_pages(spark):
    """Parquet pages of 50 rows in the files this session writes (the writer's settings, read from the
    session's Hadoop configuration)."""
    for k, v in SMALL_PAGES:
        spark.conf.set(k, v)
    yield
    for k, _ in SMALL_PAGES:
        spark.conf.unset(k)


def test_keys_in_a_range_read_only_the_pages_of_that_range_in_each_sorted_run(spark, db, small_pages):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k BIGINT NOT NULL, v BIGINT, s STRING) "
              f"TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', 'write-only' = 'true')")
    spark.sql(f"INSERT INTO {t} SELECT id, id % 7, CAST(id AS STRING) FROM range(0, 400)")
    spark.sql(f"INSERT INTO {t} SELECT id, id % 5, 'b' FROM range(0, 400, 2)")
    source(spark, [(k, 100, "n") for k in range(110, 116)])
    metrics = lamina_metrics(spark, lambda: spark.sql(merge_sql(t, "WHEN MATCHED AND t.v < src.v THEN UPDATE SET v = src.v")).collect())
    # two sorted runs, pages of 50 rows: of the first run's page of keys 100-149, 44 rows are not the
    # source's; of the second run's (keys 100-198, even), 47; every other page is left unread
    assert metrics[SKIPPED_ROWS] == 44 + 47, metrics
    assert sql_rows(spark, f"SELECT k FROM {t} WHERE v = 100") == [(k,) for k in range(110, 116)]
    assert spark.table(t).count() == 400


LOOKED_UP = "lamina join keys looked up in lookup files"
UPSERT_NEWER_ROW = "WHEN MATCHED AND t.v < src.v THEN UPDATE SET v = src.v, s = src.s WHEN NOT MATCHED THEN INSERT *"


def twin_tables(spark, db, props, writes):
    """Tables `looked_up` and `scanned` of 20 000 keys with `props`, each then given `writes(table)`."""
    tables = f"{CAT}.{db}.looked_up", f"{CAT}.{db}.scanned"
    for t in tables:
        spark.sql(f"CREATE TABLE {t} (k BIGINT NOT NULL, v BIGINT, s STRING) "
                  f"TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', {props})")
        spark.sql(f"INSERT INTO {t} SELECT id, id % 7, CAST(id AS STRING) FROM range(0, 20000)")
        writes(t)
    return tables


def test_few_keys_against_a_large_run_are_looked_up_in_the_lookup_files_compaction_built(spark, db):
    # lookup compaction after each write keeps the top run and builds its file's local lookup file
    looked_up, scanned = twin_tables(spark, db, "'changelog-producer' = 'lookup'", lambda t: [
        spark.sql(f"INSERT INTO {t} SELECT id, id % 5, 'b' FROM range({i}, 20000, 97)") for i in range(3)])
    assert sorted(sql_rows(spark, f"SELECT level FROM {CAT}.{db}.`looked_up$files`")) == [(4,), (5,)]
    source(spark, [(k, 100 + k % 3, "n") for k in list(range(1000, 20000, 1500)) + [40, 45, 20001]])
    statement = UPSERT_NEWER_ROW
    assert "keyLookups=[runs above level 0" in explain(spark, merge_sql(looked_up, statement))
    metrics = lamina_metrics(spark, lambda: spark.sql(merge_sql(looked_up, statement)).collect())
    # the 15 keys inside the top run's 20 000 rows are looked up; the run of 207 rows (one key per 97),
    # too small for 15 lookups, is read, and the one of its rows that is a source key kept
    assert metrics[LOOKED_UP] == 15 and metrics[SKIPPED_ROWS] == 206, metrics
    spark.conf.set("spark.lamina.merge.key-lookup.rows-per-key", "0")
    try:
        metrics = lamina_metrics(spark, lambda: spark.sql(merge_sql(scanned, statement)).collect())
    finally:
        spark.conf.unset("spark.lamina.merge.key-lookup.rows-per-key")
    assert metrics[LOOKED_UP] == 0 and metrics[SKIPPED_ROWS] > 20000 - 15, metrics
    assert sql_rows(spark, f"SELECT k, v, s FROM {looked_up}") == sql_rows(spark, f"SELECT k, v, s FROM {scanned}")
    assert sql_rows(spark, f"SELECT rowkind, k, v, s FROM {CAT}.{db}.`looked_up$audit_log`") == \
        sql_rows(spark, f"SELECT rowkind, k, v, s FROM {CAT}.{db}.`scanned$audit_log`")


def test_a_merge_builds_the_lookup_files_its_runs_lack_when_asked_and_the_next_looks_keys_up(spark, db):
    # no lookup compaction: no local lookup file exists until a MERGE builds one
    looked_up, scanned = twin_tables(spark, db, "'write-only' = 'true'", lambda t: (
        spark.sql(f"CALL {CAT}.sys.compact(table => '{t.split('.', 1)[1]}')"),
        spark.sql(f"INSERT INTO {t} SELECT id, id % 5, 'b' FROM range(0, 20000, 3)")))
    statement = UPSERT_NEWER_ROW
    found = []
    for round_ in range(2):
        source(spark, [(k, 100 + round_ + k % 3, f"n{round_}") for k in range(7 + round_, 20000, 1999)])
        # the first MERGE builds the local file; the second finds it built, without the option
        spark.conf.set("spark.lamina.merge.key-lookup.build", "true" if round_ == 0 else "false")
        # the plan names the rule where lookup compaction keeps local files or the option builds them (the
        # second MERGE, without the option, still finds the files the first built)
        assert ("keyLookups=" in explain(spark, merge_sql(looked_up, statement))) == (round_ == 0)
        try:
            metrics = lamina_metrics(spark, lambda: spark.sql(merge_sql(looked_up, statement)).collect())
        finally:
            spark.conf.unset("spark.lamina.merge.key-lookup.build")
        found.append(metrics[LOOKED_UP])
        spark.sql(merge_sql(scanned, statement))
        assert sql_rows(spark, f"SELECT k, v, s FROM {looked_up}") == sql_rows(spark, f"SELECT k, v, s FROM {scanned}")
    # the top run of 20 000 rows is looked up for the 11 keys, its local file built by the first MERGE
    # and reused by the second; level 0 (the second INSERT, then the first MERGE's write) is read
    assert found == [11, 11], found


def test_scattered_keys_skip_no_file_but_every_other_row(spark, db):
    t = f"{CAT}.{db}.t"
    ranges_table(spark, t)
    rows = [(k, 50, "x") for k in range(0, 4000, 100)]
    source(spark, rows)
    metrics = lamina_metrics(spark, lambda: spark.sql(merge_sql(t, "WHEN MATCHED THEN UPDATE SET v = t.v + src.v")).collect())
    assert metrics[SKIPPED_FILES] == 0 and metrics[SKIPPED_ROWS] == 4000 - len(rows), metrics
    assert sql_rows(spark, f"SELECT k, v FROM {t} WHERE v >= 50") == sorted_tuples((k, k % 7 + 50) for k in range(0, 4000, 100))


def test_not_matched_by_source_reads_the_whole_target(spark, db):
    t = f"{CAT}.{db}.t"
    ranges_table(spark, t, batches=2, width=10)
    source(spark, [(3, 9, "a"), (30, 9, "b")])
    statement = merge_sql(t, "WHEN MATCHED THEN UPDATE SET v = src.v WHEN NOT MATCHED THEN INSERT * "
                             "WHEN NOT MATCHED BY SOURCE AND t.k > 15 THEN DELETE")
    assert "dynamicpruning" not in explain(spark, statement)
    spark.sql(statement)
    assert sql_rows(spark, f"SELECT k, v FROM {t}") == sorted_tuples(
        [(k, 9 if k == 3 else k % 7) for k in range(16)] + [(30, 9)])


def test_a_source_with_more_keys_than_the_limit_and_the_option_at_zero_read_the_whole_target(spark, db):
    t = f"{CAT}.{db}.t"
    ranges_table(spark, t, batches=2, width=10)
    source(spark, [(k, 9, "a") for k in range(3)])
    statement = merge_sql(t, "WHEN MATCHED THEN UPDATE SET v = t.v + src.v")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('merge.key-filter.max-keys' = '2')")
    # the source's size is unknown: its values are computed, up to 3, and the scan finds them too many
    assert "dynamicpruning" in explain(spark, statement)
    metrics = lamina_metrics(spark, lambda: spark.sql(statement).collect())
    assert metrics[SKIPPED_FILES] == 0 and metrics.get(SKIPPED_ROWS, 0) == 0, metrics
    assert sql_rows(spark, f"SELECT k, v FROM {t} WHERE k < 4") == [(0, 9), (1, 10), (2, 11), (3, 3)]
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('merge.key-filter.max-keys' = '3')")
    metrics = lamina_metrics(spark, lambda: spark.sql(statement).collect())
    # keys 10-19 are in two other files (one per bucket); of the 10 rows of keys 0-9, 7 are not the source's
    assert metrics[SKIPPED_FILES] == 2 and metrics[SKIPPED_ROWS] == 7, metrics
    assert sql_rows(spark, f"SELECT k, v FROM {t} WHERE k < 4") == [(0, 18), (1, 19), (2, 20), (3, 3)]
    spark.conf.set("spark.lamina.merge.key-filter.max-keys", "0")
    try:
        assert "dynamicpruning" not in explain(spark, statement)
    finally:
        spark.conf.unset("spark.lamina.merge.key-filter.max-keys")


def test_a_source_known_to_hold_more_rows_than_the_limit_is_not_read_twice(spark, db):
    t = f"{CAT}.{db}.t"
    ranges_table(spark, t, batches=1, width=10)
    spark.range(0, 5000).selectExpr("id AS k", "id AS v", "'x' AS s").createOrReplaceTempView("src")
    statement = merge_sql(t, "WHEN MATCHED THEN UPDATE SET v = t.v + src.v")
    assert "dynamicpruning" in explain(spark, statement)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('merge.key-filter.max-keys' = '1000')")
    assert "dynamicpruning" not in explain(spark, statement)


def test_partition_and_string_key_columns_prune_partitions_and_rows(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (p INT NOT NULL, id STRING NOT NULL, v BIGINT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('primary-key' = 'p,id', 'bucket' = '1')")
    for p in range(4):
        spark.sql(f"INSERT INTO {t} SELECT {p}, CONCAT('id', id), id FROM range(0, 50)")
    spark.createDataFrame([(2, "id7", 1000), (2, "id8", 1000), (2, "new", 5)], "p INT, id STRING, v BIGINT") \
        .createOrReplaceTempView("psrc")
    statement = (f"MERGE INTO {t} t USING psrc s ON t.p = s.p AND t.id = s.id "
                 f"WHEN MATCHED AND t.v < s.v THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    metrics = lamina_metrics(spark, lambda: spark.sql(statement).collect())
    assert metrics[SKIPPED_FILES] == 3 and metrics[SKIPPED_ROWS] == 48, metrics
    assert sql_rows(spark, f"SELECT p, id, v FROM {t} WHERE p = 2 AND (v >= 1000 OR id = 'new')") == [
        (2, "id7", 1000), (2, "id8", 1000), (2, "new", 5)]
    assert spark.table(t).count() == 201


def test_delete_and_update_with_an_in_subquery_read_only_what_its_keys_can_match(spark, db):
    t = f"{CAT}.{db}.t"
    ranges_table(spark, t, ", 'write-only' = 'true'")  # no compaction: the files keep their key ranges
    spark.createDataFrame([(k,) for k in (1005, 1010, 1990)], "k BIGINT").createOrReplaceTempView("gone")
    delete = f"DELETE FROM {t} WHERE k IN (SELECT k FROM gone) AND v >= 0"
    assert "dynamicpruning" in explain(spark, delete)
    metrics = lamina_metrics(spark, lambda: spark.sql(delete).collect())
    # 8 files (4 commits of 2 buckets): the two of keys 1000-1999 are read, and 3 of their rows kept
    assert metrics[SKIPPED_FILES] == 6 and metrics[SKIPPED_ROWS] == 997, metrics
    assert spark.table(t).count() == 3997
    assert sql_rows(spark, f"SELECT k FROM {t} WHERE k IN (1005, 1010, 1990)") == []

    # two columns of a subquery, of which only the key is filterable; and NOT IN is never a filter
    spark.createDataFrame([(k, k % 7) for k in (2, 3003)], "k BIGINT, v BIGINT").createOrReplaceTempView("changed")
    update = f"UPDATE {t} SET s = 'u' WHERE (k, v) IN (SELECT k, v FROM changed)"
    files = spark.sql(f"SELECT * FROM {CAT}.{db}.`t$files`").count()
    metrics = lamina_metrics(spark, lambda: spark.sql(update).collect())
    # only the file of keys 0-999 in the bucket of key 2 and that of 3000-3999 in the bucket of 3003
    assert metrics[SKIPPED_FILES] == files - 2, metrics
    assert sql_rows(spark, f"SELECT k FROM {t} WHERE s = 'u'") == [(2,), (3003,)]
    not_in = f"UPDATE {t} SET s = 'n' WHERE k NOT IN (SELECT k FROM changed)"
    assert "dynamicpruning" not in explain(spark, not_in)
    # a subquery that refers to the target (correlated) is left as it is
    correlated = f"DELETE FROM {t} WHERE k IN (SELECT k FROM changed c WHERE c.v = {t}.v)"
    assert "dynamicpruning" not in explain(spark, correlated)
    spark.sql(correlated)
    assert spark.table(t).count() == 3995


def test_random_deletes_by_subquery_with_the_filter_equal_the_same_deletes_without(spark, db):
    filtered, whole = f"{CAT}.{db}.filtered", f"{CAT}.{db}.whole"
    for table, extra in ((filtered, ""), (whole, ", 'merge.key-filter.max-keys' = '0'")):
        ranges_table(spark, table, f", 'deletion-vectors.enabled' = 'true'{extra}", batches=3, width=100)
    rng = random.Random(7)
    for _ in range(STEPS // 2):
        keys = rng.sample(range(0, 320), rng.randrange(1, 20))
        spark.createDataFrame([(k, rng.randrange(7)) for k in keys], "k BIGINT, v BIGINT").createOrReplaceTempView("sub")
        statement = ("DELETE FROM {t} WHERE k IN (SELECT k FROM sub)" if rng.random() < 0.5 else
                     "UPDATE {t} SET v = v + 1 WHERE k IN (SELECT k FROM sub WHERE v > 2)")
        for table in (filtered, whole):
            # (Spark's own dynamic pruning may plan a filter on the other table too, where the subquery
            # has a selective predicate; its scan ignores it)
            assert table != filtered or "dynamicpruning" in explain(spark, statement.format(t=table))
            spark.sql(statement.format(t=table))
        assert sql_rows(spark, f"SELECT k, v, s FROM {filtered}") == sql_rows(spark, f"SELECT k, v, s FROM {whole}"), statement


def _history(rng, steps):
    """Random statements: writes that add files, and MERGEs whose sources hold a contiguous range or
    scattered keys, each with clauses that read the target's values."""
    clauses = [
        UPSERT_IF_NEWER,
        "WHEN MATCHED AND t.v > src.v THEN DELETE WHEN NOT MATCHED AND src.v % 2 = 0 THEN INSERT *",
        "WHEN MATCHED AND t.v % 2 = 0 THEN UPDATE SET v = t.v + src.v WHEN MATCHED THEN DELETE",
        "WHEN MATCHED THEN UPDATE SET s = CONCAT(t.s, src.s) WHEN NOT MATCHED THEN INSERT *",
    ]
    out = []
    for _ in range(steps):
        r = rng.random()
        if r < 0.25:
            lo = rng.randrange(0, 400)
            out.append(("insert", [(k, rng.randrange(20), f"i{k}") for k in range(lo, lo + rng.randrange(1, 60))]))
        elif r < 0.35:
            out.append(("compact", None))
        else:
            if rng.random() < 0.5:
                lo = rng.randrange(0, 450)
                keys = range(lo, lo + rng.randrange(1, 30))
            else:
                keys = rng.sample(range(0, 500), rng.randrange(1, 30))
            out.append(("merge", ([(k, rng.randrange(20), f"m{k}") for k in keys], rng.choice(clauses))))
    return out


# deletion-vector tables read without page filters or lookups: their history runs in `make stress` only
HISTORIES = [
    ("deduplicate", ""),
    ("partial_update", ", 'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'"),
    ("lookup_changelog", ", 'changelog-producer' = 'lookup'"),
] + ([("deletion_vectors", ", 'deletion-vectors.enabled' = 'true'")] if os.environ.get("LAMINA_STRESS") == "1" else [])


@pytest.mark.parametrize("props", [p for _, p in HISTORIES], ids=[i for i, _ in HISTORIES])
def test_random_merges_with_the_filter_equal_the_same_merges_without(spark, db, props, small_pages):
    filtered, whole = f"{CAT}.{db}.filtered", f"{CAT}.{db}.whole"
    for table, extra in ((filtered, ""), (whole, ", 'merge.key-filter.max-keys' = '0'")):
        spark.sql(f"CREATE TABLE {table} (k BIGINT NOT NULL, v BIGINT, s STRING) "
                  f"TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2'{props}{extra})")
    rng = random.Random(zlib.crc32(props.encode()))
    skipped = looked_up = 0
    # a run is looked up wherever its files' local lookup files are built (lookup compaction's)
    spark.conf.set("spark.lamina.merge.key-lookup.rows-per-key", "1")
    for op, arg in _history(rng, STEPS):
        for table in (filtered, whole):
            if op == "insert":
                spark.createDataFrame(arg, "k BIGINT, v BIGINT, s STRING").writeTo(table).append()
            elif op == "compact":
                spark.sql(f"CALL {CAT}.sys.compact(table => '{table.split('.', 1)[1]}')")
            else:
                rows, clauses = arg
                source(spark, rows)
                statement = merge_sql(table, clauses)
                assert ("dynamicpruning" in explain(spark, statement)) == (table == filtered)
                metrics = lamina_metrics(spark, lambda: spark.sql(statement).collect())
                if table == filtered:
                    skipped += metrics.get(SKIPPED_ROWS, 0)
                    looked_up += metrics.get(LOOKED_UP, 0)
        assert sql_rows(spark, f"SELECT k, v, s FROM {filtered}") == sql_rows(spark, f"SELECT k, v, s FROM {whole}"), (op, arg)
    spark.conf.unset("spark.lamina.merge.key-lookup.rows-per-key")
    assert skipped > 0
    # only lookup compaction without deletion vectors builds local lookup files with values
    assert (looked_up > 0) == ("lookup" in props), looked_up
