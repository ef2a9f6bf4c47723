"""INSERT OVERWRITE (whole table, static partition, dynamic mode), overwritePartitions, TRUNCATE."""

import pytest

from _support import read_snapshot, snapshot_ids, sql_rows

CAT = "lamina"


@pytest.fixture
def parts(spark, db):
    name = f"{CAT}.{db}.parts"
    spark.sql(f"CREATE TABLE {name} (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x'), (2, 'x'), (3, 'y'), (4, 'z')")
    return name


def test_insert_overwrite_whole_table(spark, warehouse, db, parts):
    spark.sql(f"INSERT OVERWRITE {parts} VALUES (10, 'x')")
    assert sql_rows(spark, f"SELECT * FROM {parts}") == [(10, "x")]
    assert snapshot_ids(warehouse, db, "parts") == [1, 2]
    assert read_snapshot(warehouse, db, "parts", 2)["commitKind"] == "OVERWRITE"
    assert sql_rows(spark, f"SELECT * FROM {parts} VERSION AS OF 1") == [
        (1, "x"), (2, "x"), (3, "y"), (4, "z")]


def test_insert_overwrite_unpartitioned(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.flat (id INT)")
    spark.sql(f"INSERT INTO {CAT}.{db}.flat VALUES (1), (2)")
    spark.sql(f"INSERT OVERWRITE {CAT}.{db}.flat VALUES (3)")
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.flat") == [(3,)]


def test_insert_overwrite_static_partition(spark, parts):
    spark.sql(f"INSERT OVERWRITE {parts} PARTITION (p = 'x') VALUES (20)")
    assert sql_rows(spark, f"SELECT * FROM {parts}") == [(20, "x"), (3, "y"), (4, "z")]


def test_insert_overwrite_static_partition_with_no_rows_empties_it(spark, parts):
    spark.sql(f"INSERT OVERWRITE {parts} PARTITION (p = 'y') SELECT 1 WHERE false")
    assert sql_rows(spark, f"SELECT * FROM {parts}") == [(1, "x"), (2, "x"), (4, "z")]


def test_static_mode_overwrites_all_partitions(spark, parts):
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static")
    try:
        spark.sql(f"INSERT OVERWRITE {parts} VALUES (30, 'y')")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert sql_rows(spark, f"SELECT * FROM {parts}") == [(30, "y")]


def test_dynamic_partition_overwrite(spark, parts):
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql(f"INSERT OVERWRITE {parts} VALUES (30, 'y'), (31, 'w')")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert sql_rows(spark, f"SELECT * FROM {parts}") == [
        (1, "x"), (2, "x"), (30, "y"), (31, "w"), (4, "z")]


def test_dataframe_overwrite_partitions(spark, parts):
    spark.createDataFrame([(40, "z"), (41, "z")], "id INT, p STRING").writeTo(parts).overwritePartitions()
    assert sql_rows(spark, f"SELECT * FROM {parts}") == [
        (1, "x"), (2, "x"), (3, "y"), (40, "z"), (41, "z")]


def test_truncate_table(spark, warehouse, db, parts):
    spark.sql(f"TRUNCATE TABLE {parts}")
    assert sql_rows(spark, f"SELECT * FROM {parts}") == []
    assert snapshot_ids(warehouse, db, "parts") == [1, 2]
    assert read_snapshot(warehouse, db, "parts", 2)["totalRecordCount"] == 0
    assert sql_rows(spark, f"SELECT count(*) FROM {parts} VERSION AS OF 1") == [(4,)]
    spark.sql(f"INSERT INTO {parts} VALUES (5, 'x')")
    assert sql_rows(spark, f"SELECT * FROM {parts}") == [(5, "x")]
