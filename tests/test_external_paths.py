"""External data paths (`data-file.external-paths`, Paimon's semantics): new data files, changelog files
and file indexes go under external roots with the table's layout and record their full path; every
read, DML, compaction, expiration, orphan removal and DROP TABLE finds them there; Apache Paimon's own
connector reads what Lamina wrote, and Lamina reads and writes what Paimon wrote."""

import os
import time
from pathlib import Path

import lamina
import pytest

from _support import error_text, sorted_tuples, sql_rows, table_path
from paimon_connector import require_paimon, run_sql

CAT = "lamina"


def _roots(tmp_path, *names):
    dirs = [tmp_path / n for n in names]
    return dirs, ",".join(d.as_uri() for d in dirs)


def _files(directory: Path, suffix=".parquet"):
    return sorted(p for p in directory.rglob(f"*{suffix}") if p.is_file()) if directory.exists() else []


def _file_paths(spark, t):
    catalog, db, name = t.split(".")
    return [r[0] for r in spark.sql(f"SELECT file_path FROM {catalog}.{db}.`{name}$files`").collect()]


def test_primary_key_table_round_robin_through_writes_compaction_expiration_orphans_and_drop(
        spark, warehouse, db, tmp_path):
    (a, b), roots = _roots(tmp_path, "a", "b")
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING, p STRING NOT NULL) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '2', 'changelog-producer' = 'lookup', "
              "'deletion-vectors.enabled' = 'true', "
              f"'data-file.external-paths' = '{roots}', 'data-file.external-paths.strategy' = 'round-robin')")
    for i in range(3):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}', 'x'), ({i + 10}, 'w{i}', 'y')")
    spark.sql(f"UPDATE {t} SET v = 'upd' WHERE id = 1")
    spark.sql(f"DELETE FROM {t} WHERE id = 12")
    spark.sql(f"MERGE INTO {t} USING (SELECT 2 AS id, 'merged' AS v, 'x' AS p) s ON {t}.id = s.id AND {t}.p = s.p "
              "WHEN MATCHED THEN UPDATE SET v = s.v")
    expected = sorted_tuples([(0, "v0", "x"), (1, "upd", "x"), (2, "merged", "x"), (10, "w0", "y"), (11, "w1", "y")])
    assert sql_rows(spark, f"SELECT * FROM {t} ORDER BY id") == expected

    home = table_path(warehouse, db, "t")
    assert _files(home) == [], "no data or changelog file in the table's directory"
    outside = _files(a) + _files(b)
    assert _files(a) and _files(b), "both roots take files"
    assert all(p.parent.name.startswith("bucket-") and p.parent.parent.name in ("p=x", "p=y") for p in outside)
    assert any(p.name.startswith("changelog-") for p in outside), "changelog files go outside too"
    assert all(f.startswith(("file:" + str(a), "file:" + str(b))) for f in _file_paths(spark, t))

    lamina.compact(spark, f"{db}.t", full=True)
    assert sql_rows(spark, f"SELECT * FROM {t} ORDER BY id") == expected
    live = _file_paths(spark, t)
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    left = {f"file:{p}" for p in _files(a) + _files(b) if not p.name.startswith("changelog-")}
    assert left == set(live), "expiration removes the compacted-away files outside, keeps the live ones"

    stray = a / "p=x" / "bucket-0" / "data-failed-write.parquet"
    stray.write_bytes(b"not referenced")
    os.utime(stray, (time.time() - 3 * 86400,) * 2)
    elsewhere = a / "not-a-partition" / "bucket-0" / "kept.parquet"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_bytes(b"not the table's layout")
    row = spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')") \
        .collect()[0]
    assert not stray.exists() and elsewhere.exists()
    assert row.deletedFileCount >= 1
    assert sql_rows(spark, f"SELECT * FROM {t} ORDER BY id") == expected

    spark.sql(f"DROP TABLE {t}")
    assert not a.exists() and not b.exists(), "DROP TABLE deletes the external roots, as Paimon's catalogs do"


def test_append_table_specific_fs_with_file_index_deletes_and_compaction(spark, warehouse, db, tmp_path):
    (a,), roots = _roots(tmp_path, "a")
    t = f"{CAT}.{db}.a"
    spark.sql(f"CREATE TABLE {t} (k INT, s STRING) TBLPROPERTIES ("
              f"'data-file.external-paths' = 's3://elsewhere/t,{roots}', "
              "'data-file.external-paths.strategy' = 'specific-fs', 'data-file.external-paths.specific-fs' = 'FILE', "
              "'file-index.bloom-filter.columns' = 'k', 'file-index.in-manifest-threshold' = '1 b')")
    for i in range(3):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 's{i}'), ({i + 100}, 't{i}')")
    assert _files(a, ".index"), "file indexes lie beside their data files"
    spark.sql(f"DELETE FROM {t} WHERE k = 1")
    spark.sql(f"UPDATE {t} SET s = 'u' WHERE k = 2")
    expected = sorted_tuples([(0, "s0"), (2, "u"), (100, "t0"), (101, "t1"), (102, "t2")])
    assert sql_rows(spark, f"SELECT * FROM {t} ORDER BY k") == expected
    assert sql_rows(spark, f"SELECT * FROM {t} WHERE k = 101") == [(101, "t1")]
    lamina.compact(spark, f"{db}.a", full=True)
    assert sql_rows(spark, f"SELECT * FROM {t} ORDER BY k") == expected
    assert _files(table_path(warehouse, db, "a")) == []
    assert all(f.startswith("file:" + str(a)) for f in _file_paths(spark, t))
    # indexes added to existing files lie beside them too
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('file-index.bloom-filter.columns' = 'k,s')")
    spark.sql(f"CALL {CAT}.sys.rewrite_file_index(table => '{db}.a')")
    assert _files(table_path(warehouse, db, "a"), ".index") == [] and _files(a, ".index")
    assert sql_rows(spark, f"SELECT * FROM {t} WHERE s = 't1'") == [(101, "t1")]

    # a rollback removes the files of the snapshots it drops, where they lie
    spark.sql(f"CALL {CAT}.sys.rollback(table => '{db}.a', snapshot => 1)")
    assert sql_rows(spark, f"SELECT * FROM {t}") == sorted_tuples([(0, "s0"), (100, "t0")])
    assert {f"file:{p}" for p in _files(a)} == set(_file_paths(spark, t))
    # purge_files leaves no data file, inside or outside
    spark.sql(f"CALL {CAT}.sys.purge_files(table => '{db}.a')")
    assert _files(a) == [] and _files(a, ".index") == []
    spark.sql(f"INSERT INTO {t} VALUES (7, 'after')")
    assert sql_rows(spark, f"SELECT * FROM {t}") == [(7, "after")] and len(_files(a)) == 1


def test_roots_and_strategies_that_cannot_be_used_are_refused_by_name(spark, db, tmp_path):
    def refused(props):
        with pytest.raises(lamina.BadInputException) as excinfo:
            spark.sql(f"CREATE TABLE {CAT}.{db}.bad (k INT) TBLPROPERTIES ({props})")
        return error_text(excinfo)

    text = refused("'data-file.external-paths' = 'relative/dir', 'data-file.external-paths.strategy' = 'round-robin'")
    assert "Invalid value 'relative/dir' for option 'data-file.external-paths'" in text and "scheme" in text, text
    text = refused(f"'data-file.external-paths' = '{(tmp_path / 'a').as_uri()}', "
                   "'data-file.external-paths.strategy' = 'specific-fs', 'data-file.external-paths.specific-fs' = 'oss'")
    assert "Invalid value 'oss' for option 'data-file.external-paths.specific-fs'" in text, text
    text = refused("'data-file.external-paths.strategy' = 'sideways'")
    assert "Invalid value 'sideways' for option 'data-file.external-paths.strategy'" in text, text
    text = refused(f"'data-file.external-paths' = '{(tmp_path / 'a').as_uri()}', "
                   "'data-file.external-paths.strategy' = 'entropy-inject'")
    assert "'data-file.external-paths.strategy'" in text and "entropy-inject" in text, text


def test_paimon_and_lamina_read_and_write_each_others_external_files(spark, warehouse, db, tmp_path):
    require_paimon()
    (a, b), roots = _roots(tmp_path, "pa", "pb")
    props = (f"'primary-key' = 'id', 'bucket' = '1', 'data-file.external-paths' = '{roots}', "
             "'data-file.external-paths.strategy' = 'round-robin'")
    (own,), own_root = _roots(tmp_path, "own")
    spark.sql(f"CREATE TABLE {CAT}.{db}.own (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              f"'bucket' = '2', 'data-file.external-paths' = 's3://nowhere/own,{own_root}', "
              "'data-file.external-paths.strategy' = 'specific-fs', 'data-file.external-paths.specific-fs' = 'file')")
    spark.sql(f"INSERT INTO {CAT}.{db}.own VALUES (1, 'o1'), (2, 'o2'), (3, 'o3')")
    spark.sql(f"UPDATE {CAT}.{db}.own SET v = 'o2b' WHERE id = 2")
    assert _files(own) and _files(table_path(warehouse, db, "own")) == []
    run_sql(warehouse, [
        f"CREATE TABLE paimon.{db}.pk (id INT NOT NULL, v STRING) TBLPROPERTIES ({props})",
        f"INSERT INTO paimon.{db}.pk VALUES (1, 'p1'), (2, 'p2')",
        f"INSERT INTO paimon.{db}.pk VALUES (2, 'p2b'), (3, 'p3')",
        f"CREATE TABLE paimon.{db}.ap (id INT, v STRING) TBLPROPERTIES ("
        f"'data-file.external-paths' = '{roots}', 'data-file.external-paths.strategy' = 'round-robin')",
        f"INSERT INTO paimon.{db}.ap VALUES (1, 'a1'), (2, 'a2')",
    ])
    pk, ap = f"{CAT}.{db}.pk", f"{CAT}.{db}.ap"
    assert _files(table_path(warehouse, db, "pk")) == [] and _files(a) + _files(b)
    assert sql_rows(spark, f"SELECT * FROM {pk} ORDER BY id") == [(1, "p1"), (2, "p2b"), (3, "p3")]
    assert sql_rows(spark, f"SELECT * FROM {ap} ORDER BY id") == [(1, "a1"), (2, "a2")]
    paimon_paths = set(_file_paths(spark, pk))
    spark.sql(f"INSERT INTO {pk} VALUES (4, 'l4'), (1, 'l1')")
    spark.sql(f"DELETE FROM {pk} WHERE id = 3")
    lamina.compact(spark, f"{db}.pk", full=True)
    spark.sql(f"INSERT INTO {ap} VALUES (3, 'l3')")
    assert set(_file_paths(spark, pk)).isdisjoint(paimon_paths), "compaction rewrote Paimon's files"
    assert _files(table_path(warehouse, db, "pk")) == [] and _files(table_path(warehouse, db, "ap")) == []
    pk_rows = [[1, "l1"], [2, "p2b"], [4, "l4"]]
    results = run_sql(warehouse, [
        f"SELECT id, v FROM paimon.{db}.pk ORDER BY id",
        f"SELECT id, v FROM paimon.{db}.ap ORDER BY id",
        f"SELECT file_path FROM paimon.{db}.`pk$files`",
        f"SELECT id, v FROM paimon.{db}.own ORDER BY id",
    ])
    assert results[0] == pk_rows
    assert results[1] == [[1, "a1"], [2, "a2"], [3, "l3"]]
    assert sorted(r[0] for r in results[2]) == sorted(_file_paths(spark, pk)), "both show the same paths"
    assert results[3] == [[1, "o1"], [2, "o2b"], [3, "o3"]]
