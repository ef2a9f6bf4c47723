"""CREATE / DROP / SHOW / DESCRIBE / ALTER / RENAME tables; every schema change writes schema-N."""

import os

import pytest

from _support import (error_text, field_types, read_schema, schema_ids, sql_rows, table_path)

CAT = "lamina"


def create_events(spark, db, name="events"):
    spark.sql(f"""
        CREATE TABLE {CAT}.{db}.{name} (
            id INT NOT NULL COMMENT 'event id',
            name STRING COMMENT 'who',
            amount DOUBLE,
            p STRING NOT NULL
        ) COMMENT 'events table'
        PARTITIONED BY (p)
        TBLPROPERTIES ('bucket' = '-1', 'file.format' = 'parquet', 'file.compression' = 'zstd')
    """)


def test_create_table_writes_schema_0(spark, warehouse, db):
    create_events(spark, db)
    assert schema_ids(warehouse, db, "events") == [0]
    schema = read_schema(warehouse, db, "events", 0)
    assert schema["id"] == 0
    assert [f["name"] for f in schema["fields"]] == ["id", "name", "amount", "p"]
    assert field_types(schema) == {
        "id": "INT NOT NULL", "name": "STRING", "amount": "DOUBLE", "p": "STRING NOT NULL"}
    assert [f["id"] for f in schema["fields"]] == [0, 1, 2, 3]
    assert {f["name"]: f.get("description") for f in schema["fields"]}["id"] == "event id"
    assert schema["partitionKeys"] == ["p"]
    assert schema["primaryKeys"] == []
    assert schema["comment"] == "events table"
    assert schema["options"]["file.format"] == "parquet"
    assert schema["options"]["file.compression"] == "zstd"
    assert schema["options"]["bucket"] == "-1"


def test_create_existing_table_is_an_error_naming_it(spark, db):
    create_events(spark, db)
    with pytest.raises(Exception) as excinfo:
        create_events(spark, db)
    assert "events" in error_text(excinfo)
    spark.sql(f"CREATE TABLE IF NOT EXISTS {CAT}.{db}.events (x INT)")  # keeps the old one
    assert spark.table(f"{CAT}.{db}.events").columns == ["id", "name", "amount", "p"]


def test_show_tables_and_drop_table(spark, warehouse, db):
    create_events(spark, db, "a")
    create_events(spark, db, "b")
    assert sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{db}").collect()) == ["a", "b"]
    spark.sql(f"DROP TABLE {CAT}.{db}.a")
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{db}").collect()] == ["b"]
    assert not table_path(warehouse, db, "a").exists()
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"DROP TABLE {CAT}.{db}.a")
    assert "a" in error_text(excinfo) and db in error_text(excinfo)
    spark.sql(f"DROP TABLE IF EXISTS {CAT}.{db}.a")  # no error


def test_describe_shows_columns_types_comments_and_partitioning(spark, db):
    create_events(spark, db)
    described = [(r.col_name, r.data_type, r.comment) for r in
                 spark.sql(f"DESCRIBE TABLE {CAT}.{db}.events").collect()]
    assert described[:4] == [
        ("id", "int", "event id"), ("name", "string", "who"),
        ("amount", "double", None), ("p", "string", None)]
    names = [d[0] for d in described]
    assert "# Partition Information" in names
    assert names[names.index("# Partition Information") + 2] == "p"


def test_describe_extended_shows_table_details(spark, db):
    create_events(spark, db)
    described = {r.col_name: r.data_type for r in
                 spark.sql(f"DESCRIBE TABLE EXTENDED {CAT}.{db}.events").collect()}
    assert "# Detailed Table Information" in described
    assert described["Comment"] == "events table"
    assert "events" in described["Name"]
    assert "file.format=parquet" in described["Table Properties"]


def test_show_create_table(spark, db):
    create_events(spark, db)
    ddl = spark.sql(f"SHOW CREATE TABLE {CAT}.{db}.events").collect()[0][0]
    assert ddl.startswith("CREATE TABLE ") and f"{db}.events" in ddl.splitlines()[0]
    assert "id INT NOT NULL COMMENT 'event id'" in ddl
    assert "name STRING COMMENT 'who'" in ddl
    assert "PARTITIONED BY (p)" in ddl
    assert "COMMENT 'events table'" in ddl
    assert "'file.compression' = 'zstd'" in ddl


def test_ctas(spark, warehouse, db):
    spark.sql(f"""
        CREATE TABLE {CAT}.{db}.copy PARTITIONED BY (p) TBLPROPERTIES ('file.format' = 'orc')
        AS SELECT * FROM VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x') AS v(id, name, p)
    """)
    assert sql_rows(spark, f"SELECT id, name, p FROM {CAT}.{db}.copy") == [
        (1, "a", "x"), (2, "b", "y"), (3, "c", "x")]
    schema = read_schema(warehouse, db, "copy", 0)
    assert schema["partitionKeys"] == ["p"]
    assert schema["options"]["file.format"] == "orc"
    assert all(f.endswith(".orc") for f in os.listdir(table_path(warehouse, db, "copy") / "p=x" / "bucket-0"))


def test_set_and_unset_tblproperties_write_new_schemas(spark, warehouse, db):
    create_events(spark, db)
    spark.sql(f"ALTER TABLE {CAT}.{db}.events SET TBLPROPERTIES ('target-file-size' = '20')")
    assert schema_ids(warehouse, db, "events") == [0, 1]
    assert read_schema(warehouse, db, "events", 1)["options"]["target-file-size"] == "20"
    props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES {CAT}.{db}.events").collect()}
    assert props["target-file-size"] == "20"
    spark.sql(f"ALTER TABLE {CAT}.{db}.events UNSET TBLPROPERTIES ('target-file-size')")
    assert schema_ids(warehouse, db, "events") == [0, 1, 2]
    assert "target-file-size" not in read_schema(warehouse, db, "events", 2)["options"]
    assert read_schema(warehouse, db, "events", 2)["options"]["file.compression"] == "zstd"


def test_add_columns_old_data_reads_null(spark, warehouse, db):
    create_events(spark, db)
    spark.sql(f"INSERT INTO {CAT}.{db}.events VALUES (1, 'a', 1.5, 'x')")
    spark.sql(f"ALTER TABLE {CAT}.{db}.events ADD COLUMN score BIGINT COMMENT 'new'")
    spark.sql(f"ALTER TABLE {CAT}.{db}.events ADD COLUMNS (tag STRING, flag BOOLEAN)")
    assert schema_ids(warehouse, db, "events") == [0, 1, 2]
    schema = read_schema(warehouse, db, "events", 2)
    assert [f["name"] for f in schema["fields"]] == ["id", "name", "amount", "p", "score", "tag", "flag"]
    assert [f["id"] for f in schema["fields"]] == [0, 1, 2, 3, 4, 5, 6]
    spark.sql(f"INSERT INTO {CAT}.{db}.events VALUES (2, 'b', 2.5, 'x', 20, 't', true)")
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.events") == [
        (1, "a", 1.5, "x", None, None, None), (2, "b", 2.5, "x", 20, "t", True)]


def test_rename_column_keeps_data(spark, warehouse, db):
    create_events(spark, db)
    spark.sql(f"INSERT INTO {CAT}.{db}.events VALUES (1, 'a', 1.5, 'x')")
    spark.sql(f"ALTER TABLE {CAT}.{db}.events RENAME COLUMN name TO who")
    assert schema_ids(warehouse, db, "events") == [0, 1]
    fields = read_schema(warehouse, db, "events", 1)["fields"]
    assert [(f["id"], f["name"]) for f in fields] == [(0, "id"), (1, "who"), (2, "amount"), (3, "p")]
    spark.sql(f"INSERT INTO {CAT}.{db}.events VALUES (2, 'b', 2.5, 'y')")
    assert sql_rows(spark, f"SELECT id, who FROM {CAT}.{db}.events") == [(1, "a"), (2, "b")]


def test_drop_column_then_add_same_name_does_not_resurrect_data(spark, warehouse, db):
    create_events(spark, db)
    spark.sql(f"INSERT INTO {CAT}.{db}.events VALUES (1, 'a', 1.5, 'x')")
    spark.sql(f"ALTER TABLE {CAT}.{db}.events DROP COLUMN amount")
    assert spark.table(f"{CAT}.{db}.events").columns == ["id", "name", "p"]
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.events") == [(1, "a", "x")]
    spark.sql(f"ALTER TABLE {CAT}.{db}.events ADD COLUMN amount DOUBLE")
    assert schema_ids(warehouse, db, "events") == [0, 1, 2]
    # The new column has a new field id: the old file's values of the dropped one stay hidden.
    assert read_schema(warehouse, db, "events", 2)["fields"][-1]["id"] == 4
    assert sql_rows(spark, f"SELECT id, amount FROM {CAT}.{db}.events") == [(1, None)]


def test_type_widening_reads_old_files_in_the_new_type(spark, warehouse, db):
    from decimal import Decimal

    spark.sql(f"CREATE TABLE {CAT}.{db}.w (i INT, f FLOAT, d DECIMAL(5, 2))")
    spark.sql(f"INSERT INTO {CAT}.{db}.w VALUES (2147483647, 1.5, 123.45)")
    spark.sql(f"ALTER TABLE {CAT}.{db}.w ALTER COLUMN i TYPE BIGINT")
    spark.sql(f"ALTER TABLE {CAT}.{db}.w ALTER COLUMN f TYPE DOUBLE")
    spark.sql(f"ALTER TABLE {CAT}.{db}.w ALTER COLUMN d TYPE DECIMAL(10, 2)")
    assert schema_ids(warehouse, db, "w") == [0, 1, 2, 3]
    assert field_types(read_schema(warehouse, db, "w", 3)) == {
        "i": "BIGINT", "f": "DOUBLE", "d": "DECIMAL(10, 2)"}
    spark.sql(f"INSERT INTO {CAT}.{db}.w VALUES (9000000000, 2.25, 12345678.91)")
    assert [f.dataType.simpleString() for f in spark.table(f"{CAT}.{db}.w").schema.fields] == [
        "bigint", "double", "decimal(10,2)"]
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.w") == [
        (2147483647, 1.5, Decimal("123.45")), (9000000000, 2.25, Decimal("12345678.91"))]


def test_narrowing_a_type_is_refused_naming_the_column(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.n (big BIGINT)")
    spark.sql(f"INSERT INTO {CAT}.{db}.n VALUES (1)")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"ALTER TABLE {CAT}.{db}.n ALTER COLUMN big TYPE INT")
    assert "big" in error_text(excinfo)
    assert schema_ids(warehouse, db, "n") == [0]
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.n") == [(1,)]


def test_rename_table(spark, warehouse, db):
    create_events(spark, db)
    spark.sql(f"INSERT INTO {CAT}.{db}.events VALUES (1, 'a', 1.5, 'x')")
    spark.sql(f"ALTER TABLE {CAT}.{db}.events RENAME TO {CAT}.{db}.renamed")
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{db}").collect()] == ["renamed"]
    assert not table_path(warehouse, db, "events").exists()
    assert table_path(warehouse, db, "renamed").is_dir()
    assert sql_rows(spark, f"SELECT id, name FROM {CAT}.{db}.renamed") == [(1, "a")]
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {CAT}.{db}.events").collect()
    assert "events" in error_text(excinfo)


def test_rename_to_an_existing_table_is_an_error(spark, db):
    create_events(spark, db, "a")
    create_events(spark, db, "b")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"ALTER TABLE {CAT}.{db}.a RENAME TO {CAT}.{db}.b")
    assert "b" in error_text(excinfo)
    assert sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{db}").collect()) == ["a", "b"]
