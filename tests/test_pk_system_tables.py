"""System tables of primary-key tables: `$audit_log` (each key's merged record with its row kind),
`$ro` (the top level only, as compaction left it) and `$buckets` (live files per bucket)."""

import pytest

from _support import sql_rows

CAT = "lamina"


def create(spark, db, props, table="t"):
    name = f"{CAT}.{db}.{table}"
    options = ", ".join(f"'{k}' = '{v}'" for k, v in {"primary-key": "id", "bucket": "2", **props}.items())
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ({options})")
    return name


def test_audit_log_shows_each_keys_last_record_and_its_kind(spark, db):
    name = create(spark, db, {})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    spark.sql(f"UPDATE {name} SET v = 'B' WHERE id = 2")
    spark.sql(f"DELETE FROM {name} WHERE id = 3")
    spark.sql(f"INSERT INTO {name} VALUES (4, 'D'), (5, 'e')")
    audit = f"{CAT}.{db}.`t$audit_log`"
    # the delete's record carries the deleted row, as Paimon's does
    expected = [("+I", 1, "a"), ("+U", 2, "B"), ("-D", 3, "c"), ("+I", 4, "D"), ("+I", 5, "e")]
    assert sql_rows(spark, f"SELECT rowkind, id, v FROM {audit}") == sorted(expected)
    assert sql_rows(spark, f"SELECT id FROM {audit} WHERE rowkind = '-D'") == [(3,)]
    # a compaction to the top level drops the delete: the key is gone from the log too
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sql_rows(spark, f"SELECT rowkind, id, v FROM {audit}") == sorted(r for r in expected if r[1] != 3)


def test_audit_log_of_a_key_removed_and_written_again_shows_the_new_row_only(spark, db):
    # Compaction below the top level keeps the removing -D before the new row (the new row must not
    # merge with an older level's); a read of every level shows the key once, as its new row.
    name = create(spark, db, {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'x')")
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'b')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "b"), (2, "x")]
    assert sql_rows(spark, f"SELECT rowkind, id, v FROM {CAT}.{db}.`t$audit_log`") == [("+I", 1, "b"), ("+I", 2, "x")]


def test_read_optimized_shows_what_compaction_left_at_the_top_level(spark, db):
    name = create(spark, db, {"write-only": "true"})
    ro = f"{CAT}.{db}.`t$ro`"
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    assert sql_rows(spark, f"SELECT * FROM {ro}") == [], "level-0 files are not read"
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    spark.sql(f"INSERT INTO {name} VALUES (2, 'B'), (4, 'd')")
    assert sql_rows(spark, f"SELECT * FROM {ro}") == [(1, "a"), (2, "b"), (3, "c")], "the compacted rows, not newer ones"
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a"), (2, "B"), (3, "c"), (4, "d")]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sql_rows(spark, f"SELECT * FROM {ro}") == [(1, "a"), (2, "B"), (3, "c"), (4, "d")]


def test_buckets_counts_the_live_files_and_records_of_each_bucket(spark, db):
    name = create(spark, db, {"write-only": "true"})
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'v' FROM range(0, 100)")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'w' FROM range(50, 150)")
    buckets = f"{CAT}.{db}.`t$buckets`"
    files = sql_rows(spark, f"SELECT bucket, count(*), sum(record_count), sum(file_size_in_bytes) "
                            f"FROM {CAT}.{db}.`t$files` GROUP BY bucket")
    assert sql_rows(spark, f"SELECT bucket, file_count, record_count, file_size_in_bytes FROM {buckets}") == files
    assert [r[0] for r in files] == [0, 1] and sum(r[2] for r in files) == 200
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    rows = sql_rows(spark, f"SELECT bucket, file_count, record_count FROM {buckets}")
    assert [(b, n) for b, n, _ in rows] == [(0, 1), (1, 1)] and sum(r[2] for r in rows) == 150
    assert sql_rows(spark, f"SELECT count(*) FROM {buckets} WHERE last_update_time IS NULL") == [(0,)]


@pytest.mark.parametrize("props", [
    {},
    {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
    {"merge-engine": "aggregation", "aggregation.remove-record-on-delete": "true"},
], ids=["deduplicate", "partial-update", "aggregation"])
def test_audit_log_shows_the_deleted_row_of_a_delete(spark, db, props):
    # without a changelog producer: a DELETE's and a MERGE's -D record holds the row deleted, as Paimon's
    name = create(spark, db, {"write-only": "true", **props})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"DELETE FROM {name} WHERE v = 'b'")
    spark.sql(f"MERGE INTO {name} t USING (SELECT 3 AS id, true AS gone) s ON t.id = s.id "
              "WHEN MATCHED AND s.gone THEN DELETE")
    assert sql_rows(spark, f"SELECT rowkind, id, v FROM {CAT}.{db}.`t$audit_log`") == [
        ("+I", 1, "a"), ("-D", 2, "b"), ("-D", 3, "c")]
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a")]
