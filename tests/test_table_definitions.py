"""Definitions that would make a table unusable are refused at CREATE or ALTER with the reason;
options Lamina does not honour are refused, the user's own properties kept; NULLs in NOT NULL columns
are refused naming the table and the column."""

import pytest

import lamina
from _support import error_text, sql_rows

CAT = "lamina"


@pytest.mark.parametrize("column_type", ["MAP<STRING, INT>", "ARRAY<INT>", "STRUCT<a: INT>"])
def test_primary_key_of_a_complex_type_is_refused(spark, db, column_type):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.t (k {column_type} NOT NULL, v INT) "
                  "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
    assert error_text(excinfo).startswith(f"Primary-key column 'k' of table {db}.t has type ")
    assert "which cannot be a key" in error_text(excinfo)
    assert sql_rows(spark, f"SHOW TABLES IN {CAT}.{db}") == []


def test_partition_column_of_a_complex_type_is_refused(spark, db):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.t (v INT, p ARRAY<INT>) PARTITIONED BY (p)")
    assert error_text(excinfo).startswith(f"Partition column 'p' of table {db}.t has type ARRAY<INT>")


@pytest.mark.parametrize("name", ["my part", "a/b", "x=y", "c%d"])
def test_quoted_partition_columns_simply_work(spark, db, name):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, `{name}` STRING) PARTITIONED BY (`{name}`)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'a/b c'), (2, 'z')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (3, 'z')")
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == [(1, "a/b c"), (2, "z"), (3, "z")]
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{db}.t WHERE `{name}` = 'z'") == [(2,), (3,)]


def test_location_is_refused(spark, db, tmp_path):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT) LOCATION '{tmp_path}'")
    assert error_text(excinfo).startswith(f"Table {db}.t: LOCATION '")
    assert "is not supported" in error_text(excinfo)
    assert sql_rows(spark, f"SHOW TABLES IN {CAT}.{db}") == []


@pytest.mark.parametrize("key, value, expected", [
    ("num-sorted-run.compaction-trigger", "0", "expected at least 1"),
    ("num-sorted-run.stop-trigger", "0", "expected at least 1"),
    ("commit.max-retries", "-1", "expected at least 0"),
    ("compaction.size-ratio", "-1", "expected at least 0"),
    ("target-file-size", "0", "expected a size of at least 1 byte"),
    ("num-levels", "1", "expected at least 2"),
])
def test_out_of_range_options_are_refused_at_create_and_alter(spark, db, key, value, expected):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL) "
                  f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', '{key}' = '{value}')")
    assert error_text(excinfo).startswith(f"Invalid value '{value}' for option '{key}' of table {db}.t: {expected}")
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"ALTER TABLE {CAT}.{db}.t SET TBLPROPERTIES ('{key}' = '{value}')")
    assert error_text(excinfo).startswith(f"Invalid value '{value}' for option '{key}' of table {db}.t: {expected}")


@pytest.mark.parametrize("key, value, expected", [
    ("bucket", "x", "expected an integer"),
    ("file.format", "csv", "expected one of parquet, orc, avro"),
    ("deletion-vectors.enabled", "sometimes", "expected true or false"),
])
def test_a_value_that_does_not_parse_names_the_table_option_and_value(spark, db, key, value, expected):
    message = f"Invalid value '{value}' for option '{key}' of table {db}.t: {expected}"
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT) TBLPROPERTIES ('{key}' = '{value}')")
    assert error_text(excinfo).splitlines()[0] == message
    assert sql_rows(spark, f"SHOW TABLES IN {CAT}.{db}") == []
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT)")
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"ALTER TABLE {CAT}.{db}.t SET TBLPROPERTIES ('write-only' = 'true', '{key}' = '{value}')")
    assert error_text(excinfo).splitlines()[0] == message
    assert "write-only" not in dict(sql_rows(spark, f"SELECT key, value FROM {CAT}.{db}.`t$options`"))


def test_user_properties_are_kept(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT) TBLPROPERTIES ('owner.team' = 'payments', 'retention' = '7y')")
    spark.sql(f"ALTER TABLE {CAT}.{db}.t SET TBLPROPERTIES ('data.steward' = 'ann')")
    options = dict(sql_rows(spark, f"SELECT key, value FROM {CAT}.{db}.`t$options`"))
    assert options["owner.team"] == "payments"
    assert options["retention"] == "7y"
    assert options["data.steward"] == "ann"
    props = dict(sql_rows(spark, f"SHOW TBLPROPERTIES {CAT}.{db}.t"))
    assert props["owner.team"] == "payments"


@pytest.mark.parametrize("key, message", [
    ("merge-engin", "Unknown option 'merge-engin' for table {db}.t; did you mean 'merge-engine'?"),
    ("bucket-kye", "Unknown option 'bucket-kye' for table {db}.t; did you mean 'bucket-key'?"),
    ("compaction.optimization-interval", "Unknown option 'compaction.optimization-interval' for table {db}.t"),
    ("deletion-vectors.modifiable", "Unknown option 'deletion-vectors.modifiable' for table {db}.t"),
])
def test_near_misses_and_paimon_keys_are_still_refused(spark, db, key, message):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT) TBLPROPERTIES ('{key}' = 'x')")
    assert error_text(excinfo).startswith(message.format(db=db))


def test_unsupported_catalog_options_are_refused_naming_them(spark, tmp_path):
    for i, (key, value) in enumerate([("metastore", "glue"), ("uri", "thrift://h:9083"), ("metastore", "jdbc")]):
        # metastore=jdbc without its 'uri' is refused naming the missing option
        name = f"badcat{i}"
        spark.conf.set(f"spark.sql.catalog.{name}", "lamina.spark.LaminaCatalog")
        spark.conf.set(f"spark.sql.catalog.{name}.warehouse", str(tmp_path))
        spark.conf.set(f"spark.sql.catalog.{name}.{key}", value)
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"SHOW NAMESPACES IN {name}").collect()
        assert f"Catalog '{name}'" in error_text(excinfo)
        assert (f"'{value}' is not supported" in error_text(excinfo) or f"option '{key}' is not supported" in error_text(excinfo)
                or "metastore 'jdbc' needs the option 'uri'" in error_text(excinfo))
    assert list(tmp_path.iterdir()) == []


def test_catalog_table_defaults_apply_to_new_tables(spark, tmp_path):
    spark.conf.set("spark.sql.catalog.defaults", "lamina.spark.LaminaCatalog")
    spark.conf.set("spark.sql.catalog.defaults.warehouse", str(tmp_path))
    spark.conf.set("spark.sql.catalog.defaults.metastore", "filesystem")
    spark.conf.set("spark.sql.catalog.defaults.table-default.file.format", "orc")
    spark.sql("CREATE NAMESPACE defaults.d")
    spark.sql("CREATE TABLE defaults.d.t (id INT)")
    spark.sql("CREATE TABLE defaults.d.p (id INT) TBLPROPERTIES ('file.format' = 'parquet')")
    assert dict(sql_rows(spark, "SELECT key, value FROM defaults.d.`t$options`"))["file.format"] == "orc"
    assert dict(sql_rows(spark, "SELECT key, value FROM defaults.d.`p$options`"))["file.format"] == "parquet"


def test_null_primary_key_names_table_and_column(spark, db, warehouse):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'a')")
    expected = f"Column 'id' of table {db}.t is part of the primary key and must not be NULL"
    for statement in (
        f"INSERT INTO {CAT}.{db}.t VALUES (CAST(NULL AS INT), 'x')",
        f"INSERT INTO {CAT}.{db}.t SELECT IF(id > 0, NULL, id), v FROM VALUES (5, 'y') AS s(id, v)",
        f"MERGE INTO {CAT}.{db}.t t USING (SELECT CAST(NULL AS INT) AS id, 'z' AS v) s ON t.id = s.id "
        "WHEN NOT MATCHED THEN INSERT *",
    ):
        with pytest.raises(lamina.BadInputException) as excinfo:
            spark.sql(statement).collect()
        assert error_text(excinfo).startswith(expected), statement
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == [(1, "a")]


def test_null_in_a_not_null_column_names_table_and_column(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, v STRING NOT NULL)")
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT 1, IF(rand() > 2, 'x', NULL)").collect()
    assert error_text(excinfo).startswith(f"Column 'v' of table {db}.t is NOT NULL and cannot take a NULL")
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == []
