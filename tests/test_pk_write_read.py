"""Primary-key tables written and read through Spark SQL: table rules checked at CREATE TABLE,
upserts merged on read (latest wins, or the larger `sequence.field`), level-0 sorted runs under
`bucket-N`, INSERT OVERWRITE, and nulls in the primary key rejected before anything is committed."""

import re

import pyarrow.parquet as pq
import pytest

from _support import (data_files, error_text, latest_snapshot_id, read_schema, snapshot_ids, sorted_tuples,
                      sql_rows, table_path, unchanged)

CAT = "lamina"
BUCKET_DIR = re.compile(r"(?:^|/)bucket-(\d+)/data-[^/]+$")


def files(spark, db, table="t"):
    """(partition, bucket, level, record_count) of every live data file, sorted."""
    return sql_rows(spark, f"SELECT partition, bucket, level, record_count FROM {CAT}.{db}.`{table}$files`")


def create(spark, db, columns, props, table="t", partitioned_by=None):
    name = f"{CAT}.{db}.{table}"
    partition = f" PARTITIONED BY ({partitioned_by})" if partitioned_by else ""
    options = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    spark.sql(f"CREATE TABLE {name} ({columns}){partition} TBLPROPERTIES ({options})")
    return name


# -- CREATE TABLE rules -------------------------------------------------------------------------

def test_primary_key_columns_become_not_null_and_are_recorded(spark, warehouse, db):
    name = create(spark, db, "a INT, b STRING, v STRING", {"primary-key": "a,b", "bucket": "2"})
    schema = read_schema(warehouse, db, "t", 0)
    assert schema["primaryKeys"] == ["a", "b"]
    assert schema["partitionKeys"] == []
    assert [(f["name"], f["type"]) for f in schema["fields"]] == [
        ("a", "INT NOT NULL"), ("b", "STRING NOT NULL"), ("v", "STRING")]
    assert schema["options"]["bucket"] == "2"
    assert "primary-key" not in schema["options"]
    assert [(f.name, f.nullable) for f in spark.table(name).schema.fields] == [
        ("a", False), ("b", False), ("v", True)]


def test_bucket_key_defaults_to_primary_key_minus_partition_columns(spark, warehouse, db):
    # The PK table buckets by id alone (p is a partition column), exactly as an append table whose
    # bucket key is id: each id lands in the same bucket number in both tables and both partitions.
    create(spark, db, "p STRING, id INT, v STRING", {"primary-key": "p,id", "bucket": "4"},
           partitioned_by="p")
    create(spark, db, "id INT, v STRING", {"bucket": "4", "bucket-key": "id"}, table="plain")
    for p in ("x", "y"):
        spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT '{p}', CAST(id AS INT), 'v' FROM range(0, 24)")
    spark.sql(f"INSERT INTO {CAT}.{db}.plain SELECT CAST(id AS INT), 'v' FROM range(0, 24)")

    def bucket_of_ids(table):
        found = {}
        for f in data_files(warehouse, db, table):
            bucket = int(BUCKET_DIR.search(f).group(1))
            partition = f.split("/")[0] if f.startswith("p=") else ""
            for i in pq.ParquetFile(table_path(warehouse, db, table) / f).read(columns=["id"]).column("id").to_pylist():
                found[(partition, i)] = bucket
        return found

    pk, plain = bucket_of_ids("t"), bucket_of_ids("plain")
    assert len(set(plain.values())) >= 2, plain
    assert {i: pk[("p=x", i)] for i in range(24)} == {i: plain[("", i)] for i in range(24)}
    assert {i: pk[("p=y", i)] for i in range(24)} == {i: plain[("", i)] for i in range(24)}


@pytest.mark.parametrize("columns, props, partitioned_by, expected", [
    ("p STRING, a INT, v STRING", {"primary-key": "a", "bucket": "2"}, "p",
     "Partition column 'p' of table {t} must be part of the primary key (a)"),
    ("a INT, v STRING", {"primary-key": "a", "bucket": "-3"}, None,
     "Invalid value '-3' for option 'bucket' of table {t}: use -1, a positive number, or -2 (postponed buckets) "
     "on a table with a primary key"),
    ("a INT, v STRING", {"primary-key": "a,nope", "bucket": "2"}, None,
     "Primary-key column 'nope' of table {t} is not a column"),
    ("a INT, b INT, v STRING", {"primary-key": "a", "bucket": "2", "bucket-key": "b"}, None,
     "Bucket-key column 'b' of table {t} must be part of the primary key"),
])
def test_bad_primary_key_tables_are_rejected(spark, warehouse, db, columns, props, partitioned_by, expected):
    with pytest.raises(Exception) as excinfo:
        create(spark, db, columns, props, partitioned_by=partitioned_by)
    assert expected.format(t=f"{db}.t") in error_text(excinfo)
    assert not table_path(warehouse, db, "t").exists()
    assert sql_rows(spark, f"SHOW TABLES IN {CAT}.{db}") == []


# -- upserts and sorted runs ----------------------------------------------------------------------

def test_upserts_across_inserts_latest_wins(spark, db):
    name = create(spark, db, "a INT, b STRING, v STRING, n INT", {"primary-key": "a,b", "bucket": "2"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x', 'one', 1), (2, 'x', 'two', 2), (1, 'y', 'other', 3)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x', 'ONE', 10), (3, 'x', 'three', NULL)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x', 'uno', NULL), (2, 'x', NULL, 20)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [
        (1, "x", "uno", None), (1, "y", "other", 3), (2, "x", None, 20), (3, "x", "three", None)]
    assert sql_rows(spark, f"SELECT v FROM {name} WHERE a = 1 AND b = 'x'") == [("uno",)]
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(4,)]
    # Every version reads merged: the first snapshot still has the first values.
    assert sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF 1") == [
        (1, "x", "one", 1), (1, "y", "other", 3), (2, "x", "two", 2)]


def test_filters_and_projections_apply_to_merged_rows(spark, db):
    # A filter on a value column must not reach the files before merging: the older run alone
    # still holds v = 'old' for every key, and statistics would let the newer file be skipped.
    name = create(spark, db, "id INT, v STRING, n INT", {"primary-key": "id", "bucket": "2"})
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'old', CAST(id AS INT) FROM range(0, 20)")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'new', CAST(id AS INT) + 100 FROM range(0, 20, 2)")
    assert sql_rows(spark, f"SELECT count(*) FROM {name} WHERE v = 'old'") == [(10,)]
    assert sql_rows(spark, f"SELECT id FROM {name} WHERE v = 'old' AND id < 4") == [(1,), (3,)]
    assert sql_rows(spark, f"SELECT id FROM {name} WHERE n < 5") == [(1,), (3,)]
    assert sql_rows(spark, f"SELECT id, n FROM {name} WHERE n >= 100 AND n < 104") == [(0, 100), (2, 102)]
    assert sql_rows(spark, f"SELECT v, count(*) FROM {name} GROUP BY v") == [("new", 10), ("old", 10)]
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(20,)]
    assert sql_rows(spark, f"SELECT n FROM {name} WHERE id = 4") == [(104,)]
    assert sql_rows(spark, f"SELECT DISTINCT v FROM {name} WHERE id IN (6, 7)") == [("new",), ("old",)]


def test_several_sorted_runs_are_level_0_files_under_bucket_dirs(spark, warehouse, db):
    name = create(spark, db, "id INT, v STRING", {"primary-key": "id", "bucket": "1"})
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'first' FROM range(0, 10)")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'second' FROM range(5, 15)")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'third' FROM range(8, 12)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == sorted_tuples(
        [(i, "first") for i in range(0, 5)] + [(i, "second") for i in (5, 6, 7, 12, 13, 14)]
        + [(i, "third") for i in range(8, 12)])
    assert sorted(r[1:] for r in files(spark, db)) == [(0, 0, 4), (0, 0, 10), (0, 0, 10)]

    on_disk = data_files(warehouse, db, "t")
    assert len(on_disk) == 3 and all(f.startswith("bucket-0/data-") for f in on_disk), on_disk
    # Paimon's key-value layout: key columns, sequence number and row kind before the value columns.
    schema = pq.read_schema(table_path(warehouse, db, "t") / on_disk[0])
    assert schema.names == ["_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND", "id", "v"]
    seqs = sql_rows(spark, f"SELECT min_sequence_number, max_sequence_number FROM {CAT}.{db}.`t$files`")
    assert sorted(seqs) == [(0, 9), (10, 19), (20, 23)]


def test_partitioned_pk_table_upserts_within_each_partition(spark, warehouse, db):
    name = create(spark, db, "p STRING, id INT, v STRING", {"primary-key": "p,id", "bucket": "2"},
                  partitioned_by="p")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'x1'), ('x', 2, 'x2'), ('y', 1, 'y1')")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'x1b'), ('y', 2, 'y2')")
    spark.sql(f"INSERT INTO {name} VALUES ('y', 1, 'y1b'), ('z', 1, 'z1')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [
        ("x", 1, "x1b"), ("x", 2, "x2"), ("y", 1, "y1b"), ("y", 2, "y2"), ("z", 1, "z1")]
    assert sql_rows(spark, f"SELECT id, v FROM {name} WHERE p = 'y'") == [(1, "y1b"), (2, "y2")]
    dirs = {f.split("/bucket-")[0] for f in data_files(warehouse, db, "t")}
    assert dirs == {"p=x", "p=y", "p=z"}
    assert all(re.fullmatch(r"p=[xyz]/bucket-[01]/data-[^/]+", f) for f in data_files(warehouse, db, "t"))
    assert {r[2] for r in files(spark, db)} == {0}


def test_sequence_field_larger_value_wins_even_if_written_earlier(spark, db):
    name = create(spark, db, "id INT, v STRING, ts BIGINT",
                  {"primary-key": "id", "bucket": "2", "sequence.field": "ts"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'new', 20), (2, 'two-a', 5), (3, 'three-a', 7)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'old', 10), (2, 'two-b', 6), (3, 'three-b', 7)")
    # 1: the earlier write has the larger ts; 2: the later one does; 3: a tie falls back to write order.
    assert sql_rows(spark, f"SELECT * FROM {name}") == [
        (1, "new", 20), (2, "two-b", 6), (3, "three-b", 7)]


def test_insert_overwrite_replaces_the_whole_pk_table(spark, db):
    name = create(spark, db, "id INT, v STRING", {"primary-key": "id", "bucket": "2"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"INSERT INTO {name} VALUES (2, 'B')")
    spark.sql(f"INSERT OVERWRITE {name} VALUES (2, 'two'), (4, 'four')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, "two"), (4, "four")]
    # Later upserts merge with the overwritten rows only.
    spark.sql(f"INSERT INTO {name} VALUES (4, 'FOUR'), (1, 'back')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "back"), (2, "two"), (4, "FOUR")]
    kinds = [r[0] for r in spark.sql(f"SELECT commit_kind FROM {CAT}.{db}.`t$snapshots` "
                                     "ORDER BY snapshot_id").collect()]
    assert kinds == ["APPEND", "APPEND", "OVERWRITE", "APPEND"]


def test_insert_overwrite_partition_of_pk_table(spark, db):
    name = create(spark, db, "p STRING, id INT, v STRING", {"primary-key": "p,id", "bucket": "2"},
                  partitioned_by="p")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'x1'), ('x', 2, 'x2'), ('y', 1, 'y1')")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 2, 'x2b'), ('y', 2, 'y2')")
    spark.sql(f"INSERT OVERWRITE {name} PARTITION (p = 'x') VALUES (3, 'x3')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 3, "x3"), ("y", 1, "y1"), ("y", 2, "y2")]
    spark.sql(f"INSERT INTO {name} VALUES ('x', 3, 'x3b'), ('y', 1, 'y1b')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 3, "x3b"), ("y", 1, "y1b"), ("y", 2, "y2")]


# -- nulls in the primary key ---------------------------------------------------------------------

def test_null_primary_key_literal_fails_naming_the_column_and_commits_nothing(spark, warehouse, db):
    name = create(spark, db, "a INT, region STRING, v STRING", {"primary-key": "a,region", "bucket": "2"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x', 'kept')")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"INSERT INTO {name} VALUES (2, 'x', 'fine'), (3, NULL, 'bad')")
        assert "region" in error_text(excinfo), error_text(excinfo)[:600]
    assert len(data_files(warehouse, db, "t")) == 1


def test_null_primary_key_at_runtime_fails_naming_the_column_and_commits_nothing(spark, warehouse, db):
    name = create(spark, db, "a INT, region STRING, v STRING", {"primary-key": "a,region", "bucket": "2"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x', 'kept')")
    spark.range(0, 20).selectExpr("CAST(id AS INT) AS a", "IF(id = 13, NULL, 'k') AS region", "'v' AS v") \
        .createOrReplaceTempView("null_pk_src")
    before = latest_snapshot_id(warehouse, db, "t")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"INSERT INTO {name} SELECT * FROM null_pk_src")
        assert "region" in error_text(excinfo), error_text(excinfo)[:600]
    assert snapshot_ids(warehouse, db, "t") == [before]
    assert len(data_files(warehouse, db, "t")) == 1


# -- schema changes -------------------------------------------------------------------------------

def test_schema_evolution_merges_rows_across_schemas(spark, db, paimon_catalog):
    name = create(spark, db, "id INT, a INT, b STRING", {"primary-key": "id", "bucket": "2"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 1, 'one'), (2, 2, 'two'), (3, 3, 'three')")
    spark.sql(f"ALTER TABLE {name} ADD COLUMN c STRING")
    spark.sql(f"ALTER TABLE {name} RENAME COLUMN b TO bb")
    spark.sql(f"ALTER TABLE {name} ALTER COLUMN a TYPE BIGINT")
    spark.sql(f"INSERT INTO {name} VALUES (2, 20000000000, 'TWO', 'c2'), (4, 4, 'four', NULL)")
    expected = [(1, 1, "one", None), (2, 20000000000, "TWO", "c2"), (3, 3, "three", None), (4, 4, "four", None)]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    assert sql_rows(spark, f"SELECT id FROM {name} WHERE bb = 'two'") == []
    builder = paimon_catalog.get_table(f"{db}.t").new_read_builder()
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    assert sorted((r["id"], r["a"], r["bb"], r["c"]) for r in got) == expected


@pytest.mark.parametrize("alter, words", [
    ("DROP COLUMN a", ["'a'", "primary key"]),
    ("RENAME COLUMN a TO a2", ["'a'", "primary key"]),
    ("ALTER COLUMN a TYPE BIGINT", ["'a'", "primary key"]),
], ids=["drop", "rename", "retype"])
def test_primary_key_columns_cannot_be_dropped_renamed_or_retyped(spark, warehouse, db, alter, words):
    name = create(spark, db, "a INT, v STRING", {"primary-key": "a", "bucket": "2"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x')")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"ALTER TABLE {name} {alter}")
        text = error_text(excinfo)
        for word in [f"{db}.t"] + words:
            assert word in text.replace("primary-key", "primary key").replace("Primary key", "primary key"), text[:800]


@pytest.mark.parametrize("props, option", [
    ("'merge-engine' = 'first-row'", "merge-engine"),
    ("'sequence.field' = 'n'", "sequence.field"),
    ("'bucket' = '-1'", "bucket"),  # a fixed count may change to another (each partition keeps its own)
    ("'primary-key' = 'v'", "primary-key"),
], ids=["merge-engine", "sequence-field", "bucket", "primary-key"])
def test_options_that_define_merged_rows_cannot_change(spark, warehouse, db, props, option):
    # Changing how records merge (or where keys live) would silently change or hide existing rows.
    name = create(spark, db, "a INT, v STRING, n INT", {"primary-key": "a", "bucket": "2"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x', 1)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'y', 0)")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ({props})")
        text = error_text(excinfo)
        for word in (f"{db}.t", f"'{option}'"):
            assert word in text, text[:800]
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "y", 0)]


def _upper_bound(s, length=16):
    """Paimon's truncate(16) upper bound of a string: itself when short, else its prefix with the last
    code point that can be incremented incremented."""
    if len(s) <= length:
        return s
    prefix = list(s[:length])
    for i in range(length - 1, -1, -1):
        if ord(prefix[i]) + 1 <= 0x10FFFF:
            return "".join(prefix[:i]) + chr(ord(prefix[i]) + 1)
    return None


def test_value_stats_of_files_hold_the_bounds_and_null_counts_of_the_rows(spark, db):
    """Integer, date and string columns take their stats from the Parquet footer, the others from each
    record: both must give the exact bounds and null counts of the rows written (strings truncated to 16
    characters, compared as UTF-8 bytes), and a string too long for Parquet to keep bounds of leaves its
    bounds and null count unknown."""
    import datetime
    import random

    rnd = random.Random(11)
    alphabet = "az\u00e9\u4e2d\U0001f600-"

    def maybe(v):
        return None if rnd.random() < 0.2 else v

    rows = []
    for i in range(2000):
        rows.append((i, maybe(rnd.randint(-2**31, 2**31 - 1)), maybe(rnd.randint(-2**15, 2**15 - 1)),
                     maybe(rnd.randint(-128, 127)), maybe(datetime.date(2000, 1, 1) + datetime.timedelta(days=rnd.randint(0, 9000))),
                     maybe("".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))),
                     maybe(rnd.uniform(-1e6, 1e6)), maybe(rnd.randint(-2**63, 2**63 - 1))))
    name = f"lamina.{db}.stats"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, i INT, sm SMALLINT, ti TINYINT, d DATE, s STRING, f DOUBLE, "
              "big BIGINT, long_text STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    df = spark.createDataFrame(rows, "id BIGINT, i INT, sm SMALLINT, ti TINYINT, d DATE, s STRING, f DOUBLE, big BIGINT")
    df.selectExpr("*", "CASE WHEN id = 7 THEN repeat('x', 5000) WHEN id = 8 THEN 'short' END AS long_text") \
        .coalesce(1).writeTo(name).append()
    (got_min, got_max, got_nulls), = [tuple(r) for r in spark.sql(
        f"SELECT min_value_stats, max_value_stats, null_value_counts FROM lamina.{db}.`stats$files`").collect()]

    columns = ["id", "i", "sm", "ti", "d", "s", "f", "big"]
    epoch = datetime.date(1970, 1, 1)

    def shown(c, v):
        if v is None:
            return "null"
        if c == "d":
            return str((v - epoch).days)
        return repr(v) if c == "f" else str(v)

    mins, maxs, nulls = [], [], []
    for k, c in enumerate(columns):
        values = [r[k] for r in rows if r[k] is not None]
        lo, hi = min(values), max(values)
        if c == "s":
            lo, hi = lo[:16], _upper_bound(hi)
        mins.append(f"{c}={shown(c, lo)}")
        maxs.append(f"{c}={shown(c, hi)}")
        nulls.append(f"{c}={sum(1 for r in rows if r[k] is None)}")
    assert got_min == "{" + ", ".join(mins + ["long_text=null"]) + "}"
    assert got_max == "{" + ", ".join(maxs + ["long_text=null"]) + "}"
    assert got_nulls == "{" + ", ".join(nulls + ["long_text=null"]) + "}"


@pytest.mark.parametrize("engine, props, expected", [
    ("deduplicate", "", None),
    ("aggregation", ", 'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum'", "sum"),
])
def test_a_write_with_repeated_keys_merges_them_into_one_file(spark, warehouse, db, engine, props, expected):
    # 20 000 rows of 20 keys in one write: each key's records merge before they reach a file, as Paimon's
    # write buffer merges them (without it, every repeat would start a new file)
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (k INT, v BIGINT) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', "
              f"'write-only' = 'true'{props})")
    spark.range(0, 20000, 1, 2).selectExpr("CAST(id % 20 AS INT) AS k", "id AS v").writeTo(name).append()
    assert len(data_files(warehouse, db, "t")) <= 2  # one file per writing task
    got = dict(sql_rows(spark, f"SELECT k, v FROM {name}"))
    assert sorted(got) == list(range(20))
    if expected == "sum":
        assert got == {k: sum(range(k, 20000, 20)) for k in range(20)}
    else:
        assert all(v % 20 == k for k, v in got.items())  # one of the key's rows
