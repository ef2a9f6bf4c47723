"""changelog-producer = input: every write of a primary-key table also writes its records to
changelog files, listed in the snapshot's changelog manifest list, read back by incremental reads and
by pypaimon's streaming reader, and deleted exactly when their snapshot expires."""

import asyncio
from pathlib import Path

import pytest

from _support import error_text, read_snapshot, snapshot_ids, sql_rows, table_path
from paimon_connector import run_sql

CAT = "lamina"


def _create(spark, db, table="t", props=""):
    name = f"{CAT}.{db}.{table}"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', "
              f"'changelog-producer' = 'input', 'write-only' = 'true'{props})")
    return name


def _changelog_files(warehouse, db, table="t"):
    return sorted(p.name for p in table_path(warehouse, db, table).glob("bucket-*/changelog-*"))


def _audit(spark, name, between, mode=None):
    reader = spark.read.option("incremental-between", between)
    if mode:
        reader = reader.option("incremental-between-scan-mode", mode)
    head, table = name.rsplit(".", 1)
    return sorted(tuple(r) for r in reader.table(f"{head}.`{table}$audit_log`").collect())


def _history(spark, name):
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b'), (3, 'c')")   # snapshot 1
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a2')")                      # snapshot 2
    spark.sql(f"DELETE FROM {name} WHERE id = 2")                          # snapshot 3


def test_each_write_commits_its_records_as_changelog(spark, warehouse, db):
    name = _create(spark, db)
    _history(spark, name)
    assert snapshot_ids(warehouse, db, "t") == [1, 2, 3]
    for sid, count in [(1, 3), (2, 1), (3, 1)]:
        snap = read_snapshot(warehouse, db, "t", sid)
        assert snap["changelogRecordCount"] == count
        assert snap["changelogManifestList"].startswith("manifest-list-")
        assert snap["changelogManifestListSize"] > 0
    names = _changelog_files(warehouse, db)
    assert names and all(n.startswith("changelog-") and n.endswith(".parquet") for n in names)
    # the changelog of each snapshot, with row kinds; the table's rows are unchanged by it
    assert _audit(spark, name, "0,1") == [("+I", 1, "a"), ("+I", 2, "b"), ("+I", 3, "c")]
    # a DELETE writes the whole deleted row, as Paimon's does: so does its changelog record
    assert _audit(spark, name, "1,3") == [("+I", 1, "a2"), ("-D", 2, "b")]
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a2"), (3, "c")]
    # the table's own incremental read drops retractions, as Paimon's batch reads do
    got = spark.read.option("incremental-between", "1,3").table(name).collect()
    assert sorted(tuple(r) for r in got) == [(1, "a2")]


def test_overwrite_commits_no_changelog(spark, warehouse, db):
    name = _create(spark, db)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a')")
    before = _changelog_files(warehouse, db)
    spark.sql(f"INSERT OVERWRITE {name} VALUES (5, 'e')")
    assert "changelogManifestList" not in read_snapshot(warehouse, db, "t", 2)
    assert _changelog_files(warehouse, db) == before


def test_changelog_files_expire_with_their_snapshots_only(spark, warehouse, db):
    name = _create(spark, db, props=", 'snapshot.num-retained.min' = '2', 'snapshot.num-retained.max' = '2', "
                                     "'snapshot.time-retained' = '0 ms'")
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('write-only' = 'false')")
    per_snapshot = {}
    for i in range(1, 5):
        before = set(_changelog_files(warehouse, db))
        spark.sql(f"INSERT INTO {name} VALUES ({i}, 'v{i}')")
        per_snapshot[i] = set(_changelog_files(warehouse, db)) - before
    kept = snapshot_ids(warehouse, db, "t")
    assert kept == [3, 4]
    assert set(_changelog_files(warehouse, db)) == per_snapshot[3] | per_snapshot[4]
    assert _audit(spark, name, "2,4") == [("+I", 3, "v3"), ("+I", 4, "v4")]
    # remove_orphan_files knows them: nothing live is removed
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')")
    assert set(_changelog_files(warehouse, db)) == per_snapshot[3] | per_snapshot[4]
    assert _audit(spark, name, "2,4") == [("+I", 3, "v3"), ("+I", 4, "v4")]
    # a range reaching into expired snapshots names them
    with pytest.raises(Exception) as excinfo:
        _audit(spark, name, "0,4")
    assert f"Snapshot 1 of table {db}.t has expired; available snapshots are 3 to 4" in error_text(excinfo)


def test_pypaimon_reads_the_table_and_streams_its_changelog(spark, warehouse, db, paimon_catalog):
    name = _create(spark, db)
    _history(spark, name)
    table = paimon_catalog.get_table(f"{db}.t")
    rb = table.new_read_builder()
    got = sorted((r["id"], r["v"]) for r in rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())
    assert got == [(1, "a2"), (3, "c")]

    builder = table.new_stream_read_builder().with_include_row_kind(True).with_poll_interval_ms(10)
    scan, read = builder.new_streaming_scan(), builder.new_read()
    scan.next_snapshot_id = 1  # from the first snapshot on, changes only

    async def changes():
        out = []
        stream = scan.stream()
        while scan.next_snapshot_id is None or scan.next_snapshot_id <= 3:
            plan = await stream.__anext__()
            out += [(r["_row_kind"], r["id"], r["v"]) for r in read.to_arrow(plan.splits()).to_pylist()]
        return out

    got = asyncio.run(asyncio.wait_for(changes(), 60))
    assert sorted(got) == sorted([("+I", 1, "a"), ("+I", 2, "b"), ("+I", 3, "c"), ("+I", 1, "a2"), ("-D", 2, "b")])


# merge engines that honour deletes, each with the options they need
ENGINES = {
    "deduplicate": "",
    "partial-update": ", 'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'",
    "aggregation": ", 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', "
                   "'aggregation.remove-record-on-delete' = 'true'",
}


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_deletes_carry_the_deleted_row_into_the_changelog(spark, warehouse, db, engine):
    """DELETE, MERGE's WHEN MATCHED THEN DELETE (by keys, and under a condition) write the whole
    deleted row, as Paimon's deletes do, on every merge engine that honours deletes; the merge is as
    before: the row is gone, and a key written again starts afresh."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', "
              f"'bucket' = '2', 'changelog-producer' = 'input'{ENGINES[engine]})")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40), (5, 'e', 50)")  # 1
    spark.sql(f"DELETE FROM {name} WHERE v = 'b'")  # 2
    spark.sql(f"MERGE INTO {name} t USING (SELECT 3 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE")  # 3
    spark.sql(f"MERGE INTO {name} t USING (SELECT 4 AS id, true AS gone UNION ALL SELECT 5, false) s ON t.id = s.id "
              "WHEN MATCHED AND s.gone THEN DELETE")  # 4
    assert _audit(spark, name, "1,4") == [("-D", 2, "b", 20), ("-D", 3, "c", 30), ("-D", 4, "d", 40)]
    spark.sql(f"INSERT INTO {name} VALUES (2, 'again', 1)")
    expected = [(1, "a", 10), (2, "again", 1), (5, "e", 50)]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected


def test_paimon_reads_the_deleted_rows_in_the_changelog_of_lamina_deletes(spark, warehouse, db):
    """Paimon's connector reads the changelog Lamina's DELETE and MERGE wrote: each -D with its row."""
    name = _create(spark, db)
    _history(spark, name)
    spark.sql(f"MERGE INTO {name} t USING (SELECT 3 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE")  # 4
    got = run_sql(warehouse, ["SET `spark.paimon.incremental-between` = `2,4`",
                              f"SELECT * FROM paimon.{db}.`t$audit_log`"])[1]
    assert sorted(tuple(r) for r in got) == [("-D", 2, "b"), ("-D", 3, "c")]


def test_changelog_producer_needs_a_primary_key_and_kept_changelogs_need_a_producer(spark, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.a (id INT) TBLPROPERTIES ('changelog-producer' = 'input')")
    assert "asks for a changelog producer on a table without a primary key" in error_text(excinfo)
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.k (id INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
                  "'changelog.num-retained.max' = '50', 'snapshot.num-retained.max' = '10')")
    assert "asks for changelogs kept longer than snapshots on a table without a changelog producer" in error_text(excinfo)
    _create(spark, db, "ok", ", 'changelog.num-retained.max' = '50', 'snapshot.num-retained.max' = '10'")
