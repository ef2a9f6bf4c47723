"""Rollback: CALL sys.rollback (a snapshot id or a tag) and sys.rollback_to_timestamp."""

import pytest

from _lifecycle import CAT, systable, files_at, files_on_disk, make_history, rows_at
from _support import error_text, read_snapshot, snapshot_ids, sorted_tuples, sql_rows, table_path


def test_rollback_to_a_snapshot_removes_later_snapshots_tags_and_files(spark, warehouse, db, paimon_catalog):
    name = make_history(spark, db)
    latest = max(snapshot_ids(warehouse, db, "t"))
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'early', snapshot => 1)")
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'late', snapshot => {latest})")
    expected = rows_at(spark, name, 4)
    kept_files = set().union(*(files_at(spark, name, v) for v in (1, 2, 3, 4)))

    assert sql_rows(spark, f"CALL {CAT}.sys.rollback(table => '{db}.t', version => '4')") == [(latest, 4)]

    assert snapshot_ids(warehouse, db, "t") == [1, 2, 3, 4]
    assert (table_path(warehouse, db, "t") / "snapshot" / "LATEST").read_text().strip() == "4"
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    assert sql_rows(spark, f"SELECT tag_name FROM {systable(name, 'tags')}") == [("early",)]
    assert files_on_disk(warehouse, db) == kept_files
    rb = paimon_catalog.get_table(f"{db}.t").new_read_builder()
    got = sorted((r["id"], r["v"]) for r in rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())
    assert got == expected
    # the next commit takes snapshot 5 on top of 4
    spark.sql(f"INSERT INTO {name} VALUES (100, 'after')")
    assert snapshot_ids(warehouse, db, "t") == [1, 2, 3, 4, 5]
    assert sql_rows(spark, f"SELECT * FROM {name}") == sorted_tuples(expected + [(100, "after")])


def test_rollback_to_a_tag_whose_snapshot_expired(spark, warehouse, db, paimon_catalog):
    name = make_history(spark, db)
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'two', snapshot => 2)")
    expected = rows_at(spark, name, 2)
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    latest = max(snapshot_ids(warehouse, db, "t"))
    assert sql_rows(spark, f"CALL {CAT}.sys.rollback('{db}.t', 'two')") == [(latest, 2)]
    assert snapshot_ids(warehouse, db, "t") == [2]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    assert files_on_disk(warehouse, db) == files_at(spark, name, 2)
    rb = paimon_catalog.get_table(f"{db}.t").new_read_builder()
    got = sorted((r["id"], r["v"]) for r in rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())
    assert got == expected


def test_rollback_by_named_snapshot_and_to_timestamp(spark, warehouse, db):
    name = make_history(spark, db, commits=4)
    assert sql_rows(spark, f"CALL {CAT}.sys.rollback(table => '{db}.t', snapshot => 4)") == [(5, 4)]
    t2 = read_snapshot(warehouse, db, "t", 2)["timeMillis"]
    expected = rows_at(spark, name, 2)
    assert sql_rows(spark, f"CALL {CAT}.sys.rollback_to_timestamp(table => '{db}.t', timestamp => {t2 + 1})") \
        == [(4, 2)]
    assert snapshot_ids(warehouse, db, "t") == [1, 2]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected


@pytest.mark.parametrize("call, message", [
    ("rollback(table => '{t}', version => '9')", "Snapshot 9 of table {t} does not exist; available snapshots are 1 to 2"),
    ("rollback(table => '{t}', version => 'nope')", "Tag 'nope' of table {t} does not exist"),
    ("rollback(table => '{t}', version => '1', snapshot => 1)",
     "Give exactly one of the arguments 'version', 'snapshot' and 'tag'"),
    ("rollback(table => '{t}')", "Give exactly one of the arguments 'version', 'snapshot' and 'tag'"),
    ("rollback_to_timestamp(table => '{t}', timestamp => 0)", "Table {t} has no snapshot committed at or before"),
])
def test_bad_arguments_are_refused_naming_them(spark, warehouse, db, call, message):
    make_history(spark, db, commits=2)
    t = f"{db}.t"
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CALL {CAT}.sys." + call.format(t=t)).collect()
    assert message.format(t=t) in error_text(excinfo)
    assert snapshot_ids(warehouse, db, "t") == [1, 2]
