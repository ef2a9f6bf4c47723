"""`CALL sys.remove_orphan_files` and `LaminaTable.remove_orphan_files`: files that no snapshot or tag
refers to (a failed write's, a crashed expiration's) go once older than the margin; every snapshot and
tag reads as before, and pypaimon reads the table."""

import os
import time

from lamina import LaminaTable
from _support import sql_rows, table_path

CAT = "lamina"


def _stray(path, age_seconds):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not referenced")
    old = time.time() - age_seconds
    os.utime(path, (old, old))
    return path


def test_orphans_are_removed_and_snapshots_and_tags_read_the_same(spark, warehouse, db, paimon_catalog):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, v STRING, p STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'first')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'aa', 'x')")
    root = table_path(warehouse, db, "t")
    old = [_stray(root / "p=x" / "bucket-0" / "data-failed-write.parquet", 3 * 86400),
           _stray(root / "manifest" / "manifest-failed-commit-0", 3 * 86400)]
    young = _stray(root / "p=y" / "bucket-0" / "data-running-write.parquet", 60)
    before = sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t")
    tagged = sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t VERSION AS OF 'first'")
    # dry run: counted, nothing removed
    row = spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', dry_run => true)").collect()[0]
    assert row.deletedFileCount == 2 and row.deletedFileTotalLenInBytes == 2 * len(b"not referenced")
    assert all(p.exists() for p in old)
    # the default margin (a day) keeps the young file
    assert LaminaTable.for_name(spark, f"{db}.t").remove_orphan_files() == {
        "deleted_file_count": 2, "deleted_file_total_bytes": 2 * len(b"not referenced")}
    assert not any(p.exists() for p in old) and young.exists()
    # an explicit older_than in the future takes the young one too
    row = spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')").collect()[0]
    assert row.deletedFileCount == 1 and not young.exists()
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == before
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t VERSION AS OF 'first'") == tagged
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t VERSION AS OF 1") == tagged
    table = paimon_catalog.get_table(f"{db}.t")
    read = table.new_read_builder()
    rows = read.new_read().to_arrow(read.new_scan().plan().splits()).to_pylist()
    assert sorted((r["id"], r["v"], r["p"]) for r in rows) == sorted(before)
