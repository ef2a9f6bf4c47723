"""Compaction of append tables: `CALL <catalog>.sys.compact` packing small files, and sort compaction
with Paimon's `order_strategy` (order, zorder, hilbert), `order_by` and `where`, through SQL and
`LaminaTable.compact`: the rows stay the same, and a table clustered on its filter columns has its
scans plan fewer files."""

import random
import subprocess
import sys

import pytest

from _support import error_text, planned_files, read_snapshot, latest_snapshot_id, sorted_tuples, sql_rows
from lamina import LaminaTable

CAT = "lamina"


def files_per_partition(spark, db, table):
    return {r[0]: r[1] for r in spark.sql(
        f"SELECT partition, count(*) FROM {CAT}.{db}.`{table}$files` GROUP BY partition").collect()}


def test_small_files_are_packed_per_partition_in_one_compact_snapshot(spark, warehouse, db):
    name = f"{CAT}.{db}.events"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) PARTITIONED BY (p)")
    for i in range(3):
        spark.sql(f"INSERT INTO {name} VALUES ({i}, 'x{i}', 'a'), ({i + 10}, 'y{i}', 'b')")
    before = sorted_tuples(spark.table(name).collect())
    assert files_per_partition(spark, db, "events") == {"{p=a}": 3, "{p=b}": 3}

    # a minor compaction waits for compaction.min.file-num (5) small files
    assert sql_rows(spark, f"CALL {CAT}.sys.compact(table => '{db}.events', compact_strategy => 'minor')") == [(None,)]
    (snapshot,) = sql_rows(spark, f"CALL {CAT}.sys.compact(table => '{db}.events', partitions => 'p=a')")[0]
    assert snapshot == latest_snapshot_id(warehouse, db, "events")
    assert files_per_partition(spark, db, "events") == {"{p=a}": 1, "{p=b}": 3}
    assert read_snapshot(warehouse, db, "events", snapshot)["commitKind"] == "COMPACT"
    sql_rows(spark, f"CALL {CAT}.sys.compact(table => '{db}.events', where => \"p = 'b'\")")
    assert files_per_partition(spark, db, "events") == {"{p=a}": 1, "{p=b}": 1}
    assert sorted_tuples(spark.table(name).collect()) == before
    # nothing left to pack
    assert sql_rows(spark, f"CALL {CAT}.sys.compact('{db}.events')") == [(None,)]
    assert sql_rows(spark, f"SELECT operation, added_files, removed_files FROM {CAT}.{db}.`events$snapshots` "
                           f"WHERE snapshot_id > 3 ORDER BY snapshot_id") == [("COMPACT", 1, 3), ("COMPACT", 1, 3)]


def scattered(spark, name, batches=8, rows=2500, seed=5):
    """Rows whose (a, b) spread over 0..999 in every insert, so that every file spans both ranges."""
    rnd = random.Random(seed)
    for _ in range(batches):
        data = [(rnd.randrange(1000), rnd.randrange(1000), f"v{rnd.randrange(10**6)}") for _ in range(rows)]
        spark.createDataFrame(data, "a INT, b INT, v STRING").writeTo(name).append()


FILTERS = ("a < 100", "b < 100", "a BETWEEN 400 AND 450")


@pytest.mark.parametrize("strategy, clustered_filters", [
    ("zorder", FILTERS), ("hilbert", FILTERS), ("order", ("a < 100", "a BETWEEN 400 AND 450"))])
def test_sort_compaction_makes_filters_on_its_columns_skip_files(spark, warehouse, db, strategy, clustered_filters):
    name = f"{CAT}.{db}.points"
    spark.sql(f"CREATE TABLE {name} (a INT, b INT, v STRING) TBLPROPERTIES ('target-file-size' = '24 kb')")
    scattered(spark, name)
    everything = sorted_tuples(spark.table(name).collect())
    before = {f: planned_files(spark.sql(f"SELECT * FROM {name} WHERE {f}")) for f in FILTERS}
    answers = {f: sorted_tuples(spark.sql(f"SELECT * FROM {name} WHERE {f}").collect()) for f in FILTERS}
    total_before = spark.sql(f"SELECT * FROM {CAT}.{db}.`points$files`").count()
    assert all(n == total_before for n in before.values())  # every file spans every range

    (snapshot,) = sql_rows(spark, f"CALL {CAT}.sys.compact(table => '{db}.points', order_strategy => '{strategy}', "
                                  f"order_by => 'a,b')")[0]
    assert read_snapshot(warehouse, db, "points", snapshot)["commitKind"] == "OVERWRITE"
    assert sql_rows(spark, f"SELECT operation, removed_files FROM {CAT}.{db}.`points$snapshots` "
                           f"WHERE snapshot_id = {snapshot}") == [("COMPACT", total_before)]
    total_after = spark.sql(f"SELECT * FROM {CAT}.{db}.`points$files`").count()
    assert total_after >= 8
    assert sorted_tuples(spark.table(name).collect()) == everything
    for f in FILTERS:
        after = planned_files(spark.sql(f"SELECT * FROM {name} WHERE {f}"))
        assert sorted_tuples(spark.sql(f"SELECT * FROM {name} WHERE {f}").collect()) == answers[f]
        if f in clustered_filters:
            # a tenth of a column's range: at most about half the files, where every file was read before
            assert after <= total_after // 2, (strategy, f, after, total_after)


def test_sort_compaction_of_selected_partitions_only(spark, warehouse, db):
    name = f"{CAT}.{db}.parts"
    spark.sql(f"CREATE TABLE {name} (a INT, b INT, p INT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('target-file-size' = '16 kb')")
    for _ in range(3):
        spark.sql(f"INSERT INTO {name} SELECT CAST(rand(1) * 1000 AS INT), CAST(rand(2) * 1000 AS INT), "
                  f"CAST(id % 3 AS INT) FROM range(3000)")
    before = sorted_tuples(spark.table(name).collect())
    files = lambda: {r[0]: r[1] for r in spark.sql(  # noqa: E731
        f"SELECT partition, collect_set(file_path) FROM {CAT}.{db}.`parts$files` GROUP BY partition").collect()}
    old = files()
    sql_rows(spark, f"CALL {CAT}.sys.compact(table => '{db}.parts', order_strategy => 'zorder', order_by => 'a,b', "
                    f"where => 'p >= 1')")
    new = files()
    assert set(new["{p=0}"]) == set(old["{p=0}"])
    assert not set(new["{p=1}"]) & set(old["{p=1}"]) and not set(new["{p=2}"]) & set(old["{p=2}"])
    assert sorted_tuples(spark.table(name).collect()) == before


def test_python_compact_takes_the_same_arguments(spark, db):
    name = f"{CAT}.{db}.points"
    spark.sql(f"CREATE TABLE {name} (a INT, b INT, v STRING) TBLPROPERTIES ('target-file-size' = '24 kb')")
    scattered(spark, name, batches=4)
    everything = sorted_tuples(spark.table(name).collect())
    table = LaminaTable.for_name(spark, f"{db}.points")
    metrics = table.compact(order_strategy="hilbert", order_by=["a", "b"]).collect()[0]
    assert metrics.num_snapshots == 1
    snapshot = metrics.last_snapshot_id
    assert sql_rows(spark, f"SELECT operation FROM {CAT}.{db}.`points$snapshots` WHERE snapshot_id = {snapshot}") == \
        [("COMPACT",)]
    assert sorted_tuples(spark.table(name).collect()) == everything
    for kwargs, message in [
            ({"order_strategy": "morton"}, "order_strategy must be one of none, order, zorder, hilbert, got 'morton'"),
            ({"order_by": ["a", 3]}, "order_by must be column names, got ['a', 3]"),
            ({"where": " "}, "where must be a non-empty SQL condition, got ' '"),
            ({"where": "a > 1", "partitions": {"p": "1"}}, "give partitions or where, not both")]:
        with pytest.raises(ValueError) as e:
            table.compact(**kwargs)
        assert str(e.value) == message
    with pytest.raises(Exception) as e:
        table.compact(order_strategy="zorder", order_by="a,nope")
    assert "order_by column 'nope' is not a column of table" in error_text(e)


def test_python_cli_sort_compaction_of_partitions_where(spark, warehouse, db):
    """`python -m lamina compact` (the spark-submit job) with --order-strategy, --order-by and --where."""
    name = f"{CAT}.{db}.points"
    spark.sql(f"CREATE TABLE {name} (a INT, b INT, p INT) PARTITIONED BY (p) TBLPROPERTIES ('target-file-size' = '16 kb')")
    for _ in range(2):
        spark.sql(f"INSERT INTO {name} SELECT CAST(rand() * 1000 AS INT), CAST(rand() * 1000 AS INT), "
                  f"CAST(id % 2 AS INT) FROM range(4000)")
    before = sorted_tuples(spark.table(name).collect())
    result = subprocess.run(
        [sys.executable, "-m", "lamina", "compact", "--warehouse", warehouse, "--table", f"{db}.points",
         "--order-strategy", "zorder", "--order-by", "a,b", "--where", "p = 1", "--master", "local[1]",
         "--conf", "spark.ui.enabled=false"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    snapshot = latest_snapshot_id(warehouse, db, "points")
    assert f"compacted {db}.points: snapshot {snapshot}" in result.stdout
    assert sql_rows(spark, f"SELECT operation FROM {CAT}.{db}.`points$snapshots` WHERE snapshot_id = {snapshot}") == \
        [("COMPACT",)]
    rewritten = sql_rows(spark, f"SELECT DISTINCT partition FROM {CAT}.{db}.`points$files` "
                                f"WHERE creation_time >= (SELECT max(commit_time) FROM {CAT}.{db}.`points$snapshots`"
                                f" WHERE snapshot_id < {snapshot})")
    assert rewritten == [("{p=1}",)]
    assert sorted_tuples(spark.table(name).collect()) == before


def test_bad_arguments_are_refused_naming_them(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (a INT, b STRING, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'x', 'p1')")
    spark.sql(f"CREATE TABLE {CAT}.{db}.pk (a INT, b STRING) TBLPROPERTIES ('primary-key' = 'a', 'bucket' = '1')")
    spark.sql(f"CREATE TABLE {CAT}.{db}.fixed (a INT, b STRING) TBLPROPERTIES ('bucket' = '2', 'bucket-key' = 'a')")
    spark.sql(f"INSERT INTO {CAT}.{db}.fixed VALUES (1, 'x')")
    cases = [
        ("t", "order_strategy => 'morton', order_by => 'a'",
         "Unknown order_strategy 'morton': use 'none', 'order', 'zorder', 'hilbert'"),
        ("t", "order_strategy => 'zorder', order_by => 'a,nope'",
         f"order_by column 'nope' is not a column of table {db}.t; columns are a, b, p"),
        ("t", "order_strategy => 'zorder', order_by => 'p'",
         f"order_by column 'p' is a partition column of table {db}.t"),
        ("t", "order_strategy => 'zorder'", "order_strategy 'zorder' needs order_by columns"),
        ("t", "order_by => 'a'", "order_strategy 'none' cannot be given order_by columns"),
        ("t", "where => 'a > 1'", f"Argument 'where' must be a condition on the partition columns of table {db}.t (p)"),
        ("t", "where => \"p = 'p1'\", partitions => 'p=p1'",
         "Arguments 'partitions' and 'where' cannot be used together"),
        ("pk", "order_strategy => 'order', order_by => 'b'",
         f"order_strategy 'order' sorts append tables only: table {db}.pk has a primary key (a)"),
        ("fixed", "order_strategy => 'order', order_by => 'b'",
         f"order_strategy 'order' sorts bucket-unaware append tables (bucket = -1) only: table {db}.fixed has 2"),
        ("fixed", "where => 'a > 1'", f"Argument 'where' selects partitions, but table {db}.fixed is not partitioned"),
    ]
    for table, args, message in cases:
        with pytest.raises(Exception) as e:
            spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.{table}', {args})").collect()
        assert message in error_text(e), (args, error_text(e))


def files_per_bucket(spark, db, table):
    return {r[0]: r[1] for r in spark.sql(
        f"SELECT bucket, count(*) FROM {CAT}.{db}.`{table}$files` GROUP BY bucket").collect()}


def test_fixed_bucket_append_tables_compact_their_buckets_after_writes(spark, warehouse, db):
    """As Paimon's writers compact the buckets of an append table with fixed buckets: once a bucket holds
    compaction.min.file-num (5) small files, the write that made the fifth packs them, in a COMPACT
    snapshot after its own; `write-only` writes and tables without buckets keep their files."""
    tables = {"fixed": "'bucket' = '2', 'bucket-key' = 'id'",
              "write_only": "'bucket' = '2', 'bucket-key' = 'id', 'write-only' = 'true'",
              "unbucketed": "'bucket' = '-1'"}
    for t, props in tables.items():
        spark.sql(f"CREATE TABLE {CAT}.{db}.{t} (id INT, v STRING) TBLPROPERTIES ({props})")
    for i in range(5):
        # one task per write: one new file per bucket
        rows = spark.range(i * 10, i * 10 + 6).selectExpr("CAST(id AS INT) AS id", f"concat('v{i}-', id - {i * 10}) AS v")
        for t in tables:
            rows.coalesce(1).writeTo(f"{CAT}.{db}.{t}").append()
        if i == 3:
            assert files_per_bucket(spark, db, "fixed") == {0: 4, 1: 4}
    assert files_per_bucket(spark, db, "fixed") == {0: 1, 1: 1}
    assert read_snapshot(warehouse, db, "fixed", latest_snapshot_id(warehouse, db, "fixed"))["commitKind"] == "COMPACT"
    assert files_per_bucket(spark, db, "write_only") == {0: 5, 1: 5}
    assert spark.sql(f"SELECT * FROM {CAT}.{db}.`unbucketed$files`").count() == 5
    expected = sorted_tuples((i * 10 + k, f"v{i}-{k}") for i in range(5) for k in range(6))
    for t in tables:
        assert sorted_tuples(spark.table(f"{CAT}.{db}.{t}").collect()) == expected


def test_row_level_dml_on_fixed_bucket_append_tables_does_not_compact(spark, warehouse, db):
    """A DELETE marks rows in deletion vectors and leaves the files where they are, however many wait."""
    name = f"{CAT}.{db}.marks"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES "
              "('bucket' = '1', 'bucket-key' = 'id', 'deletion-vectors.enabled' = 'true', 'write-only' = 'true')")
    for i in range(6):
        spark.sql(f"INSERT INTO {name} VALUES ({i}, 'a'), ({i + 100}, 'b')")
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('write-only' = 'false')")
    before = latest_snapshot_id(warehouse, db, "marks")
    spark.sql(f"DELETE FROM {name} WHERE id >= 100")
    assert latest_snapshot_id(warehouse, db, "marks") == before + 1
    assert spark.sql(f"SELECT * FROM {CAT}.{db}.`marks$files`").count() == 6
    assert sorted_tuples(spark.table(name).collect()) == [(i, "a") for i in range(6)]
