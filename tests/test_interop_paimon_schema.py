"""Schema changes Paimon's own connector makes, read by Lamina: a field added inside a struct column
(`ALTER TABLE ... ADD COLUMN s.w`) reads as null in the files written before it, on primary-key and
append tables, merged with rows written after it."""

from _support import sql_rows
from paimon_connector import require_paimon, run_sql

CAT = "lamina"


def test_nested_column_added_by_paimon(spark, warehouse, db):
    require_paimon()
    statements = [f"CREATE DATABASE IF NOT EXISTS paimon.{db}"]
    for t, props in [("pk", "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')"), ("ap", "")]:
        statements += [
            f"CREATE TABLE paimon.{db}.{t} (id INT NOT NULL, s STRUCT<a: INT, b: STRING>) {props}",
            f"INSERT INTO paimon.{db}.{t} VALUES (1, named_struct('a', 1, 'b', 'x')), (2, named_struct('a', 2, 'b', 'y'))",
            f"ALTER TABLE paimon.{db}.{t} ADD COLUMN s.w DOUBLE",
            f"INSERT INTO paimon.{db}.{t} VALUES (3, named_struct('a', 3, 'b', 'z', 'w', 3.5))",
        ]
    run_sql(warehouse, statements)
    for t in ("pk", "ap"):
        assert sql_rows(spark, f"SELECT id, s.a, s.b, s.w FROM {CAT}.{db}.{t}") == [
            (1, 1, "x", None), (2, 2, "y", None), (3, 3, "z", 3.5)]
    spark.sql(f"INSERT INTO {CAT}.{db}.pk VALUES (2, named_struct('a', 20, 'b', 'yy', 'w', 2.5))")
    assert sql_rows(spark, f"SELECT id, s.a, s.w FROM {CAT}.{db}.pk WHERE s.w IS NOT NULL") == [(2, 20, 2.5), (3, 3, 3.5)]
