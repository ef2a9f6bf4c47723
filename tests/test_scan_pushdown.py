"""Reads: column pruning, filter pushdown (partition pruning, file skipping), LIMIT.

Pruning is observed, not assumed: a data file that the filter excludes is overwritten with garbage,
so the query succeeds only if that file is never opened.
"""

import re

import pytest

from _support import data_files, error_text, sql_rows, table_path

CAT = "lamina"


def spoil(warehouse, db, table, relative):
    path = table_path(warehouse, db, table) / relative
    size = path.stat().st_size
    path.write_bytes(b"\x00" * size)


def scan_columns(df):
    """The column names the scan node outputs in the executed plan."""
    plan = df._jdf.queryExecution().executedPlan().toString()
    match = re.search(r"BatchScan \S+\[([^\]]*)\]", plan)
    assert match, plan
    return [re.sub(r"#\d+L?$", "", c.strip()) for c in match.group(1).split(",")]


@pytest.fixture
def events(spark, db):
    name = f"{CAT}.{db}.events"
    spark.sql(f"CREATE TABLE {name} (id INT, name STRING, score DOUBLE, p STRING) PARTITIONED BY (p)")
    spark.sql(f"""INSERT INTO {name} VALUES
        (1, 'a', 1.0, 'x'), (2, 'b', NULL, 'x'), (3, 'c', 3.0, 'y'), (4, NULL, 4.0, 'y'), (5, 'e', 5.0, 'z')""")
    return name


def test_column_pruning(spark, events):
    df = spark.sql(f"SELECT name FROM {events}")
    assert scan_columns(df) == ["name"]
    assert sorted(r.name or "" for r in df.collect()) == ["", "a", "b", "c", "e"]


@pytest.mark.parametrize("where, ids", [
    ("p = 'x'", [1, 2]),
    ("p IN ('x', 'z')", [1, 2, 5]),
    ("p <> 'x'", [3, 4, 5]),
    ("id > 3", [4, 5]),
    ("id BETWEEN 2 AND 4", [2, 3, 4]),
    ("name IS NULL", [4]),
    ("score IS NULL", [2]),
    ("name LIKE 'a%'", [1]),
    ("id = 1 OR p = 'z'", [1, 5]),
    ("p = 'y' AND score > 3.5", [4]),
    ("NOT (id < 5)", [5]),
])
def test_filters_return_exact_rows(spark, events, where, ids):
    assert [r[0] for r in sql_rows(spark, f"SELECT id FROM {events} WHERE {where}")] == ids


def test_partition_pruning_skips_other_partitions(spark, warehouse, db, events):
    for f in data_files(warehouse, db, "events"):
        if not f.startswith("p=x/"):
            spoil(warehouse, db, "events", f)
    assert sql_rows(spark, f"SELECT id, name FROM {events} WHERE p = 'x'") == [(1, "a"), (2, "b")]
    with pytest.raises(Exception):
        spark.sql(f"SELECT * FROM {events} WHERE p = 'y'").collect()


def test_file_skipping_with_min_max_stats(spark, warehouse, db):
    name = f"{CAT}.{db}.ranges"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING)")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'low' FROM range(0, 10)")
    low_files = set(data_files(warehouse, db, "ranges"))
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'high' FROM range(100, 110)")
    high_files = set(data_files(warehouse, db, "ranges")) - low_files
    assert high_files
    for f in high_files:
        spoil(warehouse, db, "ranges", f)
    assert sql_rows(spark, f"SELECT id FROM {name} WHERE id < 3") == [(0,), (1,), (2,)]
    assert sql_rows(spark, f"SELECT count(*) FROM {name} WHERE id BETWEEN 5 AND 50") == [(5,)]


def test_limit(spark, events):
    got = spark.sql(f"SELECT id, p FROM {events} LIMIT 3").collect()
    assert len(got) == 3
    assert {tuple(r) for r in got} <= {(1, "x"), (2, "x"), (3, "y"), (4, "y"), (5, "z")}
    assert sql_rows(spark, f"SELECT id FROM {events} WHERE p = 'y' LIMIT 10") == [(3,), (4,)]
    assert spark.sql(f"SELECT * FROM {events} LIMIT 0").collect() == []


def test_corrupt_data_file_is_reported_with_its_name(spark, warehouse, db, events):
    (victim,) = [f for f in data_files(warehouse, db, "events") if f.startswith("p=z/")]
    spoil(warehouse, db, "events", victim)
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {events}").collect()
    assert victim.split("/")[-1] in error_text(excinfo)


@pytest.mark.parametrize("props", ["TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')", ""], ids=["pk", "append"])
def test_nested_fields_of_a_struct_column(spark, db, props):
    """Spark asks for the struct fields a query uses; the scan reads the struct whole and Spark picks
    the fields, on one sorted run, on several and after a merge."""
    name = f"{CAT}.{db}.n"
    spark.sql(f"CREATE TABLE {name} (id INT NOT NULL, s STRUCT<a: INT, b: STRING, w: DOUBLE>, t STRUCT<x: INT>) {props}")
    spark.sql(f"INSERT INTO {name} VALUES (1, named_struct('a', 1, 'b', 'x', 'w', 1.5), named_struct('x', 10))")
    assert sql_rows(spark, f"SELECT s.w, t.x FROM {name}") == [(1.5, 10)]
    spark.sql(f"INSERT INTO {name} VALUES (2, named_struct('a', 2, 'b', 'y', 'w', NULL), named_struct('x', 20))")
    assert sql_rows(spark, f"SELECT id, s.a, s.w FROM {name} WHERE s.w IS NOT NULL") == [(1, 1, 1.5)]
    assert sql_rows(spark, f"SELECT s.b FROM {name} WHERE s.a > 1") == [("y",)]
    assert sql_rows(spark, f"SELECT id, s FROM {name} WHERE t.x = 20") == [(2, (2, "y", None))]


def test_key_equality_reads_only_the_bucket_of_its_keys(spark, db):
    from _support import planned_files
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k BIGINT NOT NULL, s STRING NOT NULL, v BIGINT) "
              f"TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '4')")
    for lo in (0, 1000):  # two files per bucket, each spanning nearly the whole range of its commit's keys
        spark.sql(f"INSERT INTO {t} SELECT id, CAST(id AS STRING), id FROM range({lo}, {lo + 1000})")
    assert planned_files(spark.table(t)) == 8
    assert planned_files(spark.table(t).where("k = 500")) == 1
    assert spark.table(t).where("k = 500").collect()[0].v == 500
    # each bucket's files are pruned by the keys of that bucket alone
    assert planned_files(spark.table(t).where("k IN (500, 1500)")) == 2
    assert sorted(r.v for r in spark.table(t).where("k IN (500, 1500, 99999)").collect()) == [500, 1500]
    # a key column of another type, compared after a cast, prunes nothing it cannot convert
    assert sql_rows(spark, f"SELECT v FROM {t} WHERE k = 7.0") == [(7,)]
