"""Changelogs kept longer than snapshots (`changelog.num-retained.*`, `changelog.time-retained`):
snapshot expiration keeps an expiring snapshot's changelog as `changelog/changelog-<id>` with its
changelog files, incremental and streaming reads from an expired snapshot id read them,
`CALL sys.expire_changelogs` (and the expiration after each commit) removes them, and Apache Paimon's
own connector reads, writes and expires them alike."""

import json
import time

import pytest

from lamina import LaminaTable
from _support import snapshot_ids, sql_rows, table_path
from paimon_connector import run_sql

CAT = "lamina"
RETENTION = ("'snapshot.num-retained.min' = '1', 'snapshot.num-retained.max' = '2', "
             "'changelog.num-retained.max' = '10', 'num-sorted-run.compaction-trigger' = '10'")
CHANGES = [("+I", 1, "a"), ("+I", 2, "b"), ("+I", 1, "a2"), ("-D", 2, "b"), ("+I", 3, "c"), ("+I", 4, "d")]
# the lookup producer's compactions write each key's row before and after
LOOKUP_CHANGES = [("+I", 1, "a"), ("+I", 2, "b"), ("-U", 1, "a"), ("+U", 1, "a2"), ("-D", 2, "b"), ("+I", 3, "c"),
                  ("+I", 4, "d")]


def _create(spark, db, producer, write_only=False):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              f"'changelog-producer' = '{producer}', 'write-only' = '{str(write_only).lower()}', {RETENTION})")
    return name


def _write(spark, name):
    for statement in ["INSERT INTO {t} VALUES (1, 'a'), (2, 'b')", "INSERT INTO {t} VALUES (1, 'a2')",
                      "DELETE FROM {t} WHERE id = 2", "INSERT INTO {t} VALUES (3, 'c')",
                      "INSERT INTO {t} VALUES (4, 'd')"]:
        spark.sql(statement.format(t=name))


def _audit(spark, name, between):
    head, table = name.rsplit(".", 1)
    rows = spark.read.option("incremental-between", between).table(f"{head}.`{table}$audit_log`").collect()
    return sorted(tuple(r) for r in rows)


def _kept(warehouse, db):
    d = table_path(warehouse, db, "t") / "changelog"
    return sorted(int(p.name.split("-")[1]) for p in d.glob("changelog-*")) if d.exists() else []


def _changelog_files(warehouse, db):
    return sorted(p.name for p in table_path(warehouse, db, "t").glob("bucket-*/changelog-*"))


@pytest.mark.parametrize("producer,changes", [("input", CHANGES), ("lookup", LOOKUP_CHANGES)])
def test_expired_snapshots_keep_their_changelogs_for_incremental_and_streaming_reads(spark, warehouse, db, tmp_path,
                                                                                     producer, changes):
    name = _create(spark, db, producer)
    _write(spark, name)
    # each commit expired the snapshots beyond the latest two, and kept their changelogs
    last = snapshot_ids(warehouse, db, "t")[-1]
    assert snapshot_ids(warehouse, db, "t") == [last - 1, last]
    before = _audit(spark, name, f"0,{last}")
    assert before == sorted(changes)
    files = _changelog_files(warehouse, db)
    assert _kept(warehouse, db) == list(range(1, last - 1))
    kept = [json.loads((table_path(warehouse, db, "t") / "changelog" / f"changelog-{i}").read_text())
            for i in _kept(warehouse, db)]
    assert [c["id"] for c in kept] == _kept(warehouse, db)
    # the lookup producer's changelog comes with its compaction, not with every write
    assert any(c.get("changelogManifestList", "").startswith("manifest-list-") for c in kept)
    assert (table_path(warehouse, db, "t") / "changelog" / "LATEST").read_text().strip() == str(last - 2)
    # a stream from snapshot 1 reads the kept changelogs, then the snapshots' own
    dst = f"{CAT}.{db}.dst"
    spark.sql(f"CREATE TABLE {dst} (rowkind STRING, id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'rowkind.field' = 'rowkind')")
    q = (spark.readStream.option("scan.snapshot-id", "1").table(f"{CAT}.{db}.`t$audit_log`").writeStream
         .option("checkpointLocation", str(tmp_path / "ckpt")).trigger(availableNow=True).toTable(dst))
    q.awaitTermination(120)
    assert q.exception() is None
    assert sql_rows(spark, f"SELECT id, v FROM {dst}") == sql_rows(spark, f"SELECT * FROM {name}") == \
        [(1, "a2"), (3, "c"), (4, "d")]

    # orphan-file removal keeps what kept changelogs use
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01')").collect()
    assert _changelog_files(warehouse, db) == files
    assert _audit(spark, name, f"0,{last}") == before

    # expire_changelogs by count, then all of them
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_changelogs(table => '{db}.t', retain_max => {last - 1})") == [(1,)]
    assert _kept(warehouse, db) == list(range(2, last - 1))
    assert LaminaTable.for_name(spark, name).expire_changelogs(delete_all=True) == last - 3
    assert _kept(warehouse, db) == []
    # the changelog files of the two snapshots left stay
    assert 0 < len(_changelog_files(warehouse, db)) < len(files)
    with pytest.raises(Exception, match="has expired"):
        _audit(spark, name, f"0,{last}")


def test_each_commit_expires_snapshots_and_changelogs_by_the_options(spark, warehouse, db):
    name = _create(spark, db, "input")
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('changelog.num-retained.max' = '4')")
    _write(spark, name)
    assert snapshot_ids(warehouse, db, "t") == [4, 5]
    # the changelogs of the latest four snapshot ids: 2 and 3 kept, 1 expired with its files
    assert _kept(warehouse, db) == [2, 3]
    assert _audit(spark, name, "1,5") == sorted(CHANGES[2:])
    with pytest.raises(Exception, match="Snapshot 1 of table .* has expired"):
        _audit(spark, name, "0,5")


def test_paimon_expires_lamina_kept_changelogs_and_lamina_reads_paimon_kept_ones(spark, warehouse, db):
    # (Paimon 1.4.2's Spark reads no kept changelog: its batch reads stop at the earliest snapshot and its
    # streams start there; its commits expire them, reading their files)
    name = _create(spark, db, "input")
    _write(spark, name)
    assert _kept(warehouse, db) == [1, 2, 3]
    assert len(_changelog_files(warehouse, db)) == 5
    # Paimon's commit expires snapshot 4 into its own changelog-4 and, by the lowered option, Lamina's 1 to 3
    run_sql(warehouse, [f"ALTER TABLE paimon.{db}.t SET TBLPROPERTIES ('changelog.num-retained.max' = '3')",
                        f"INSERT INTO paimon.{db}.t VALUES (5, 'e')"])
    assert snapshot_ids(warehouse, db, "t") == [5, 6]
    assert _kept(warehouse, db) == [4]
    assert len(_changelog_files(warehouse, db)) == 3   # those of 4, 5 and 6
    assert _audit(spark, name, "3,6") == [("+I", 3, "c"), ("+I", 4, "d"), ("+I", 5, "e")]
    assert LaminaTable.for_name(spark, name).expire_changelogs(delete_all=True) == 1
    assert len(_changelog_files(warehouse, db)) == 2
