"""SHOW PARTITIONS and ALTER TABLE ... DROP PARTITION (Spark's partition management): the partitions
holding live rows, and a partition's files removed in one OVERWRITE snapshot that Paimon's readers
read; ADD PARTITION succeeds and changes nothing (Paimon has no empty partitions)."""

import pytest

from _support import error_text, read_snapshot, latest_snapshot_id, sql_rows

CAT = "lamina"


@pytest.mark.parametrize("pk", [False, True])
def test_show_and_drop_partitions(spark, warehouse, db, paimon_catalog, pk):
    props = "TBLPROPERTIES ('primary-key' = 'id,p,d', 'bucket' = '1')" if pk else ""
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, p STRING NOT NULL, d DATE NOT NULL) "
              f"PARTITIONED BY (p, d) {props}")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'a', DATE'2024-01-01'), (2, 'a', DATE'2024-01-02'), "
              "(3, 'b c', DATE'2024-01-01')")
    shown = sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {CAT}.{db}.t").collect())
    assert shown == ["p=a/d=2024-01-01", "p=a/d=2024-01-02", "p=b c/d=2024-01-01"]
    assert sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {CAT}.{db}.t PARTITION (p = 'a')").collect()) == [
        "p=a/d=2024-01-01", "p=a/d=2024-01-02"]
    spark.sql(f"ALTER TABLE {CAT}.{db}.t DROP PARTITION (p = 'a', d = DATE'2024-01-02')")
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{db}.t") == [(1,), (3,)]
    assert read_snapshot(warehouse, db, "t", latest_snapshot_id(warehouse, db, "t"))["commitKind"] == "OVERWRITE"
    assert sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {CAT}.{db}.t").collect()) == [
        "p=a/d=2024-01-01", "p=b c/d=2024-01-01"]
    # the earlier snapshot still holds the partition
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{db}.t VERSION AS OF 1") == [(1,), (2,), (3,)]
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"ALTER TABLE {CAT}.{db}.t DROP PARTITION (p = 'zz', d = DATE'2024-01-01')")
    assert "zz" in error_text(excinfo)
    before = latest_snapshot_id(warehouse, db, "t")
    spark.sql(f"ALTER TABLE {CAT}.{db}.t DROP IF EXISTS PARTITION (p = 'zz', d = DATE'2024-01-01')")
    assert latest_snapshot_id(warehouse, db, "t") == before
    spark.sql(f"ALTER TABLE {CAT}.{db}.t ADD PARTITION (p = 'new', d = DATE'2024-02-01')")
    assert latest_snapshot_id(warehouse, db, "t") == before
    assert "p=new/d=2024-02-01" not in [r[0] for r in spark.sql(f"SHOW PARTITIONS {CAT}.{db}.t").collect()]
    table = paimon_catalog.get_table(f"{db}.t")
    read = table.new_read_builder()
    rows = read.new_read().to_arrow(read.new_scan().plan().splits()).to_pylist()
    assert sorted(r["id"] for r in rows) == [1, 3]
