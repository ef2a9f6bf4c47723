"""Append tables: INSERT INTO, DataFrame writes, and the files and snapshots they leave."""

import re

import pytest

from _support import (data_files, read_snapshot, snapshot_ids, sorted_tuples, sql_rows, table_path)

CAT = "lamina"
DATA_FILE = re.compile(r"^(?:p=[^/]+/)?bucket-0/data-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d+\.(parquet|orc)$")


def test_insert_into_appends_one_snapshot_per_statement(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, name STRING)")
    assert snapshot_ids(warehouse, db, "t") == []
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == []
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (3, 'c')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT id + 10, upper(name) FROM {CAT}.{db}.t")
    assert snapshot_ids(warehouse, db, "t") == [1, 2, 3]
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == sorted_tuples([
        (1, "a"), (2, "b"), (3, "c"), (11, "A"), (12, "B"), (13, "C")])


def test_snapshot_files_and_hints(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1), (2)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (3)")
    snapshot_dir = table_path(warehouse, db, "t") / "snapshot"
    assert (snapshot_dir / "LATEST").read_text().strip() == "2"
    assert (snapshot_dir / "EARLIEST").read_text().strip() == "1"
    second = read_snapshot(warehouse, db, "t", 2)
    assert second["id"] == 2
    assert second["schemaId"] == 0
    assert second["commitKind"] == "APPEND"
    assert second["totalRecordCount"] == 3
    assert second["deltaRecordCount"] == 1
    manifest_dir = table_path(warehouse, db, "t") / "manifest"
    assert (manifest_dir / second["baseManifestList"]).is_file()
    assert (manifest_dir / second["deltaManifestList"]).is_file()


def test_data_file_layout_unpartitioned_and_partitioned(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.flat (id INT)")
    spark.sql(f"INSERT INTO {CAT}.{db}.flat VALUES (1)")
    files = data_files(warehouse, db, "flat")
    assert len(files) >= 1 and all(DATA_FILE.match(f) and f.endswith(".parquet") for f in files), files

    spark.sql(f"CREATE TABLE {CAT}.{db}.parts (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {CAT}.{db}.parts VALUES (1, 'x'), (2, 'y'), (3, 'x')")
    files = data_files(warehouse, db, "parts")
    assert all(DATA_FILE.match(f) for f in files), files
    assert sorted({f.split("/")[0] for f in files}) == ["p=x", "p=y"]
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.parts WHERE p = 'x'") == [(1, "x"), (3, "x")]


def test_orc_file_format(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.o (id INT, s STRING) TBLPROPERTIES ('file.format' = 'orc')")
    spark.sql(f"INSERT INTO {CAT}.{db}.o VALUES (1, 'a'), (2, NULL)")
    files = data_files(warehouse, db, "o")
    assert files and all(DATA_FILE.match(f) and f.endswith(".orc") for f in files), files
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.o") == [(1, "a"), (2, None)]


def test_file_compression_is_used(spark, warehouse, db):
    import pyarrow.parquet as pq

    spark.sql(f"CREATE TABLE {CAT}.{db}.z (id INT, s STRING) TBLPROPERTIES ('file.compression' = 'snappy')")
    spark.sql(f"INSERT INTO {CAT}.{db}.z VALUES (1, 'a')")
    (f,) = data_files(warehouse, db, "z")
    meta = pq.ParquetFile(table_path(warehouse, db, "z") / f).metadata
    assert meta.row_group(0).column(0).compression == "SNAPPY"


def test_insert_by_column_list(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, name STRING, score DOUBLE)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t (name, score, id) VALUES ('a', 0.5, 1)")
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == [(1, "a", 0.5)]


def test_insert_with_a_missing_column_names_it(spark, db):
    # column defaults are not supported: a column list must name every column
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, name STRING, score DOUBLE)")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"INSERT INTO {CAT}.{db}.t (name, id) VALUES ('a', 1)")
    assert "`score`" in str(excinfo.value)
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == []


def test_dataframe_write_to_append_and_create(spark, warehouse, db):
    df = spark.createDataFrame([(1, "a", "x"), (2, "b", "y")], "id INT, name STRING, p STRING")
    (df.writeTo(f"{CAT}.{db}.created").partitionedBy("p")
       .tableProperty("file.format", "orc").create())
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.created") == [(1, "a", "x"), (2, "b", "y")]
    assert sorted({f.split("/")[0] for f in data_files(warehouse, db, "created")}) == ["p=x", "p=y"]
    assert all(f.endswith(".orc") for f in data_files(warehouse, db, "created"))

    spark.createDataFrame([(3, "c", "x")], "id INT, name STRING, p STRING") \
        .writeTo(f"{CAT}.{db}.created").append()
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.created") == [
        (1, "a", "x"), (2, "b", "y"), (3, "c", "x")]
    assert snapshot_ids(warehouse, db, "created") == [1, 2]


def test_empty_insert_reads_empty(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT 1 WHERE false")
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == []
    assert len(snapshot_ids(warehouse, db, "t")) <= 1
