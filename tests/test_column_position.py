"""ALTER TABLE ... ALTER COLUMN c FIRST | AFTER x: the column moves in the schema, files written before
and after read by field id in the new order, by Lamina and by pypaimon."""

from _support import sql_rows

CAT = "lamina"


def test_moving_columns_keeps_every_value(spark, db, paimon_catalog):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, a STRING, b INT, c DOUBLE) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'x', 10, 1.5)")
    spark.sql(f"ALTER TABLE {CAT}.{db}.t ALTER COLUMN c FIRST")
    spark.sql(f"ALTER TABLE {CAT}.{db}.t ALTER COLUMN a AFTER b")
    assert [f.name for f in spark.table(f"{CAT}.{db}.t").schema.fields] == ["c", "id", "b", "a"]
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (2.5, 2, 20, 'y')")
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == [(1.5, 1, 10, "x"), (2.5, 2, 20, "y")]
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t VERSION AS OF 1") == [(1, "x", 10, 1.5)]
    table = paimon_catalog.get_table(f"{db}.t")
    read = table.new_read_builder()
    rows = read.new_read().to_arrow(read.new_scan().plan().splits()).to_pylist()
    assert sorted(tuple(r.values()) for r in rows) == [(1.5, 1, 10, "x"), (2.5, 2, 20, "y")]
