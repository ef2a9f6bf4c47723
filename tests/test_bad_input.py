"""Bad input gets a clear error naming the thing, and nothing already committed changes."""

import os

import pytest

from _support import error_text, snapshot_ids, sql_rows, table_path, unchanged

CAT = "lamina"


@pytest.fixture
def t(spark, db):
    """A table with data: (id INT NOT NULL, name STRING, p STRING) partitioned by p."""
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, name STRING, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    return f"{CAT}.{db}.t"


def tables(spark, db):
    return sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{db}").collect())


@pytest.mark.parametrize("key, suggestion", [
    ("buckett", "bucket"),
    ("file.formatt", "file.format"),
    ("bucket_key", "bucket-key"),
])
def test_unknown_option_in_create_names_it_and_suggests(spark, warehouse, db, key, suggestion):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.u (id INT) TBLPROPERTIES ('{key}' = '2')")
    text = error_text(excinfo)
    assert f"'{key}'" in text or f"`{key}`" in text or key in text
    assert suggestion in text.replace(key, "")
    assert tables(spark, db) == []
    assert not table_path(warehouse, db, "u").exists()


def test_unknown_option_in_alter_names_it_and_suggests(spark, warehouse, db, t):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('file.compresion' = 'zstd')")
        assert "file.compresion" in error_text(excinfo)
        assert "file.compression" in error_text(excinfo).replace("file.compresion", "")


@pytest.mark.parametrize("key, value", [
    ("bucket", "abc"),
    ("bucket", "0"),
    ("file.format", "csvx"),
    ("file.compression.zstd-level", "23"),
    ("parquet.writer.version", "v3"),
])
def test_bad_option_value_names_key_and_value(spark, warehouse, db, key, value):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.v (id INT) TBLPROPERTIES ('{key}' = '{value}', 'bucket-key' = 'id')")
    assert key in error_text(excinfo)
    assert value in error_text(excinfo)
    assert tables(spark, db) == []


def test_bad_option_value_in_alter(spark, warehouse, db, t):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('file.format' = 'csvx')")
        assert "file.format" in error_text(excinfo) and "csvx" in error_text(excinfo)


def test_partitioned_by_missing_column(spark, warehouse, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.m (id INT) PARTITIONED BY (nope)")
    assert "nope" in error_text(excinfo)
    assert tables(spark, db) == []
    assert not table_path(warehouse, db, "m").exists()


def test_bucket_key_missing_column(spark, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.m (id INT) TBLPROPERTIES ('bucket' = '2', 'bucket-key' = 'nope')")
    assert "nope" in error_text(excinfo)
    assert tables(spark, db) == []


def test_insert_wrong_type(spark, warehouse, db, t):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"INSERT INTO {t} VALUES ('not a number', 'c', 'x')")
        assert "id" in error_text(excinfo)
        with pytest.raises(Exception) as excinfo:
            spark.createDataFrame([(3, [1, 2], "x")], "id INT, name ARRAY<INT>, p STRING").writeTo(t).append()
        assert "name" in error_text(excinfo)


def test_insert_wrong_number_of_columns(spark, warehouse, db, t):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"INSERT INTO {t} VALUES (3, 'c')")
        assert db in error_text(excinfo)


def test_insert_null_into_not_null(spark, warehouse, db, t):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"INSERT INTO {t} VALUES (NULL, 'c', 'x')")
        assert "id" in error_text(excinfo)
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"INSERT INTO {t} SELECT IF(id > 0, NULL, 1), 'c', 'x' FROM range(3)")
        assert "id" in error_text(excinfo)
        with pytest.raises(Exception) as excinfo:
            spark.createDataFrame([(None, "c", "x")], "id INT, name STRING, p STRING").writeTo(t).append()
        assert "id" in error_text(excinfo)


def test_write_to_missing_table(spark, db, t):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"INSERT INTO {CAT}.{db}.missing_table VALUES (1)")
    assert "missing_table" in error_text(excinfo)
    with pytest.raises(Exception) as excinfo:
        spark.createDataFrame([(1,)], "id INT").writeTo(f"{CAT}.{db}.missing_table").append()
    assert "missing_table" in error_text(excinfo)
    assert tables(spark, db) == ["t"]


def test_read_missing_table(spark, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {CAT}.{db}.missing_table").collect()
    assert "missing_table" in error_text(excinfo)


def test_read_missing_snapshot(spark, warehouse, db, t):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"SELECT * FROM {t} VERSION AS OF 777").collect()
        assert "777" in error_text(excinfo)


def test_drop_non_empty_namespace_without_cascade(spark, warehouse, db, t):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"DROP NAMESPACE {CAT}.{db}")
        assert db in error_text(excinfo)
    assert tables(spark, db) == ["t"]


@pytest.mark.parametrize("bad", ["a/b", "../escape"])
def test_table_name_with_path_separator(spark, warehouse, db, bad):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.`{bad}` (id INT)")
    assert bad in error_text(excinfo)
    assert tables(spark, db) == []
    assert os.listdir(os.path.join(warehouse, f"{db}.db")) == []
    assert not os.path.exists(os.path.join(warehouse, "escape"))


def test_namespace_name_with_path_separator(spark, warehouse):
    before = sorted(os.listdir(warehouse))
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE NAMESPACE {CAT}.`x/y`")
    assert "x/y" in error_text(excinfo)
    assert sorted(os.listdir(warehouse)) == before


def test_failed_write_leaves_no_snapshot(spark, warehouse, db, t):
    """A write whose job fails mid-way (a runtime error in a task) commits nothing."""
    before = snapshot_ids(warehouse, db, "t")
    with pytest.raises(Exception):
        spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), CAST(1 / (id - 5) AS STRING), 'x' "
                  f"FROM range(10)").collect()
    assert snapshot_ids(warehouse, db, "t") == before
    assert sql_rows(spark, f"SELECT id, name, p FROM {t}") == [(1, "a", "x"), (2, "b", "y")]
