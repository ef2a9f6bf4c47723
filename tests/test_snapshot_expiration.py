"""Snapshot expiration: CALL sys.expire_snapshots and the expiration every commit runs."""

import time

import pytest

from _lifecycle import CAT, files_at, files_on_disk, make_history, rows_at
from _support import error_text, snapshot_ids, sql_rows, table_path


def test_expire_snapshots_keeps_what_retained_snapshots_and_tags_use(spark, warehouse, db, paimon_catalog):
    name = make_history(spark, db)
    latest = max(snapshot_ids(warehouse, db, "t"))
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'second', snapshot => 2)")
    kept = [latest - 1, latest]
    before = {v: rows_at(spark, name, v) for v in kept + ["second"]}
    needed = set().union(*(files_at(spark, name, v) for v in kept + ["second"]))
    on_disk = files_on_disk(warehouse, db)
    assert on_disk - needed, "the history must leave files that only expired snapshots use"

    result = sql_rows(spark, f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 2, retain_min => 1)")

    assert result == [(latest - 2,)]
    assert snapshot_ids(warehouse, db, "t") == kept
    assert (table_path(warehouse, db, "t") / "snapshot" / "EARLIEST").read_text().strip() == str(latest - 1)
    assert {v: rows_at(spark, name, v) for v in before} == before
    assert files_on_disk(warehouse, db) == needed
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {name} VERSION AS OF 1").collect()
    assert (f"Snapshot 1 of table {db}.t has expired; available snapshots are {latest - 1} to {latest}, "
            f"and tags 'second' (snapshot 2)") in error_text(excinfo)
    # Paimon's reader reads the expired table
    rb = paimon_catalog.get_table(f"{db}.t").new_read_builder()
    got = sorted((r["id"], r["v"]) for r in rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())
    assert got == before[latest]
    # writes go on from the kept history
    spark.sql(f"INSERT INTO {name} VALUES (1, 'after')")
    assert sql_rows(spark, f"SELECT v FROM {name} WHERE id = 1") == [("after",)]


def test_positional_arguments_and_older_than(spark, warehouse, db):
    name = make_history(spark, db, commits=4)
    ids = snapshot_ids(warehouse, db, "t")
    future = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() + 3600))
    # positional: table, retain_max, retain_min; older than an hour from now: all but retain_min go
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_snapshots('{db}.t', 100, 3)") == [(0,)]
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_snapshots('{db}.t', 100, 3, '{future}', 1)") == [(1,)]
    assert snapshot_ids(warehouse, db, "t") == ids[1:]
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_min => 3, "
                           f"older_than => '{future}')") == [(len(ids) - 4,)]
    assert snapshot_ids(warehouse, db, "t") == ids[-3:]
    assert rows_at(spark, name, ids[-1]) == sql_rows(spark, f"SELECT * FROM {name}")


@pytest.mark.parametrize("args, message", [
    ("retain_min => 0", "retain_min must be at least 1, got 0"),
    ("retain_max => 2, retain_min => 5", "retain_max (2) must not be less than retain_min (5)"),
    ("max_deletes => -1", "max_deletes must be at least 1, got -1"),
    ("older_than => 'yesterday'", "Invalid older_than 'yesterday': expected a timestamp such as '2024-05-01 12:00:00'"),
])
def test_bad_arguments_are_refused_naming_them(spark, warehouse, db, args, message):
    make_history(spark, db, commits=2)
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', {args})").collect()
    assert message in error_text(excinfo)
    assert snapshot_ids(warehouse, db, "t") == [1, 2]


def test_missing_table_is_named(spark, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.nope')").collect()
    assert f"Table {db}.nope does not exist" in error_text(excinfo)


def test_commits_expire_by_the_table_options(spark, warehouse, db, paimon_catalog):
    name = f"{CAT}.{db}.auto"
    spark.sql(f"CREATE TABLE {name} (id INT) TBLPROPERTIES ("
              "'snapshot.num-retained.min' = '2', 'snapshot.num-retained.max' = '3')")
    for i in range(1, 7):
        spark.sql(f"INSERT INTO {name} VALUES ({i})")
    assert snapshot_ids(warehouse, db, "auto") == [4, 5, 6]
    assert sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF 4") == [(i,) for i in range(1, 5)]
    # write-only skips it, as in Paimon
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('write-only' = 'true')")
    spark.sql(f"INSERT INTO {name} VALUES (7)")
    assert snapshot_ids(warehouse, db, "auto") == [4, 5, 6, 7]
    # Paimon's reader reads the table after expiration, latest and earliest kept snapshot
    table = paimon_catalog.get_table(f"{db}.auto")
    for snapshot, expected in ((None, 7), (4, 4)):
        t = table if snapshot is None else table.copy({"scan.snapshot-id": str(snapshot)})
        rb = t.new_read_builder()
        got = sorted(r["id"] for r in rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())
        assert got == list(range(1, expected + 1))


def test_default_retention_keeps_a_week(spark, warehouse, db):
    name = make_history(spark, db, commits=3, props=", 'snapshot.num-retained.min' = '1'")
    spark.sql(f"ALTER TABLE {name} UNSET TBLPROPERTIES ('write-only')")
    spark.sql(f"INSERT INTO {name} VALUES (9, 'x')")
    ids = snapshot_ids(warehouse, db, "t")
    assert ids == list(range(1, len(ids) + 1)) and len(ids) >= 5
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t')") == [(0,)]


def test_compact_manifest_folds_the_manifests_into_live_files_only(spark, warehouse, db, paimon_catalog):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              "'manifest.merge-min-count' = '100')")
    for i in range(4):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}'), (0, 'again{i}')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    manifests = f"SELECT num_added_files, num_deleted_files FROM {CAT}.{db}.`t$manifests`"
    before = sql_rows(spark, manifests)
    assert len(before) == 5 and sum(d for _, d in before) > 0, before
    rows = sql_rows(spark, f"SELECT * FROM {t}")
    latest = max(snapshot_ids(warehouse, db, "t"))

    assert sql_rows(spark, f"CALL {CAT}.sys.compact_manifest(table => '{db}.t')") == [(True,)]
    assert max(snapshot_ids(warehouse, db, "t")) == latest + 1
    live = len(sql_rows(spark, f"SELECT file_path FROM {CAT}.{db}.`t$files`"))
    assert sql_rows(spark, manifests) == [(live, 0)]
    assert sql_rows(spark, f"SELECT * FROM {t}") == rows
    assert sql_rows(spark, f"SELECT commit_kind, operation FROM {CAT}.{db}.`t$snapshots` WHERE snapshot_id = {latest + 1}") \
        == [("COMPACT", "COMPACT MANIFESTS")]
    # Paimon's reader sees the same rows
    table = paimon_catalog.get_table(f"{db}.t")
    read = table.new_read_builder()
    got = read.new_read().to_arrow(read.new_scan().plan().splits()).to_pylist()
    assert sorted((r["id"], r["v"]) for r in got) == rows
    # one manifest without deletes: nothing to fold, nothing committed
    spark.sql(f"CALL {CAT}.sys.compact_manifest(table => '{db}.t')")
    assert max(snapshot_ids(warehouse, db, "t")) == latest + 1
