"""Primary-key tables with deletion vectors (`deletion-vectors.enabled`): which tables may have them,
what a write leaves on disk (no level-0 file, index files in Paimon's format listed by the snapshot's
index manifest), reads with every filter and LIMIT pushed down, the lookup-compaction modes, expiration
of index files, and the executor's lookup files reused from one write to the next."""

import pytest

import lamina
from _support import error_text, read_snapshot, latest_snapshot_id, sql_rows, table_path

CAT = "lamina"
DV = "'deletion-vectors.enabled' = 'true'"


def _create(spark, name, extra="", dv=True):
    spark.sql(f"CREATE TABLE {name} (id INT, a INT, b STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2'"
              f"{', ' + DV if dv else ''}{extra})")


def _rows(spark, query):
    return sorted(tuple(r) for r in spark.sql(query).collect())


def test_first_row_and_full_compaction_producer_refuse_deletion_vectors(spark, db):
    with pytest.raises(lamina.BadInputException) as excinfo:
        _create(spark, f"{CAT}.{db}.t", ", 'merge-engine' = 'first-row'")
    assert "merge-engine 'first-row' takes no deletion vectors ('deletion-vectors.enabled' = 'true')" in error_text(excinfo)
    with pytest.raises(lamina.BadInputException) as excinfo:
        _create(spark, f"{CAT}.{db}.t", ", 'deletion-vectors.bitmap64' = 'maybe'")
    assert "deletion-vectors.bitmap64" in error_text(excinfo)


def test_turning_deletion_vectors_on_needs_a_table_without_data(spark, warehouse, db):
    full, empty = f"{CAT}.{db}.full", f"{CAT}.{db}.empty"
    _create(spark, full, dv=False)
    _create(spark, empty, dv=False)
    spark.sql(f"INSERT INTO {full} VALUES (1, 1, 'a')")
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"ALTER TABLE {full} SET TBLPROPERTIES ({DV})")
    assert f"Cannot enable deletion vectors ('deletion-vectors.enabled') of table {db}.full" in error_text(excinfo)
    assert _rows(spark, f"SELECT * FROM {full}") == [(1, 1, "a")]
    spark.sql(f"ALTER TABLE {empty} SET TBLPROPERTIES ({DV})")
    spark.sql(f"INSERT INTO {empty} VALUES (1, 1, 'a')")
    spark.sql(f"INSERT INTO {empty} VALUES (1, 2, 'b')")
    assert _rows(spark, f"SELECT * FROM {empty}") == [(1, 2, "b")]
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"ALTER TABLE {empty} UNSET TBLPROPERTIES ('deletion-vectors.enabled')")
    assert "Cannot disable deletion vectors" in error_text(excinfo)


def test_a_write_leaves_no_level_0_and_its_vectors_in_the_index_manifest(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    _create(spark, name)
    spark.sql(f"INSERT INTO {name} SELECT id, id, 'a' FROM range(0, 100)")
    spark.sql(f"INSERT INTO {name} SELECT id, -id, 'b' FROM range(0, 100, 4)")
    spark.sql(f"DELETE FROM {name} WHERE id % 10 = 1")
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`t$files` WHERE level = 0") == [(0,)]
    snapshot = read_snapshot(warehouse, db, "t", latest_snapshot_id(warehouse, db, "t"))
    assert snapshot["commitKind"] == "COMPACT" and snapshot["indexManifest"].startswith("index-manifest-")
    indexes = spark.sql(f"SELECT bucket, index_type, file_name, row_count, dv_ranges FROM {CAT}.{db}.`t$table_indexes`").collect()
    assert indexes and {r.index_type for r in indexes} == {"DELETION_VECTORS"}
    live = {r[0] for r in sql_rows(spark, f"SELECT file_path FROM {CAT}.{db}.`t$files`")}
    for r in indexes:
        assert (table_path(warehouse, db, "t") / "index" / r.file_name).is_file()
        assert r.row_count == len(r.dv_ranges)
        # each vector belongs to a live file and deletes the older rows of keys written again
        assert all(any(p.endswith(d.f0) for p in live) and d._CARDINALITY > 0 for d in r.dv_ranges)
    cardinality = {d.f0: d._CARDINALITY for r in indexes for d in r.dv_ranges}
    files = sql_rows(spark, f"SELECT file_path, deletion_vector_cardinality FROM {CAT}.{db}.`t$files`")
    assert {p.rsplit("/", 1)[1]: c for p, c in files if c is not None} == cardinality
    expected = sorted([(i, -i, "b") if i % 4 == 0 else (i, i, "a") for i in range(100) if i % 10 != 1])
    assert _rows(spark, f"SELECT * FROM {name}") == expected


def test_reads_push_value_filters_and_limit_into_files_with_vectors(spark, db):
    name, model = f"{CAT}.{db}.t", f"{CAT}.{db}.m"
    for t, dv in ((name, True), (model, False)):
        _create(spark, t, dv=dv)
        spark.sql(f"INSERT INTO {t} SELECT id, id, CAST(id % 7 AS STRING) FROM range(0, 3000)")
        spark.sql(f"INSERT INTO {t} SELECT id, id * 10, 'x' FROM range(0, 3000, 3)")
        spark.sql(f"UPDATE {t} SET b = 'u' WHERE id % 11 = 0")
        spark.sql(f"DELETE FROM {t} WHERE id % 13 = 0")
    for where in ("a > 20000", "b = 'u'", "b = 'x' AND a < 300", "id BETWEEN 100 AND 140", "a IS NULL"):
        assert _rows(spark, f"SELECT * FROM {name} WHERE {where}") == _rows(spark, f"SELECT * FROM {model} WHERE {where}")
    df = spark.sql(f"SELECT * FROM {name} WHERE a > 20000")
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "ColumnarToRow" in plan, plan  # Spark's vectorized reader, the vectors applied to its batches
    assert _rows(spark, f"SELECT count(*) FROM {name}") == _rows(spark, f"SELECT count(*) FROM {model}")
    limited = spark.sql(f"SELECT id FROM {name} LIMIT 7").collect()
    assert len(limited) == 7 and {r.id for r in limited} <= {r[0] for r in _rows(spark, f"SELECT id FROM {model}")}


def test_write_only_and_gentle_leave_level_0_unread_until_merge_on_read_or_compaction(spark, db):
    name = f"{CAT}.{db}.t"
    _create(spark, name, ", 'lookup-compact' = 'gentle', 'lookup-compact.max-interval' = '3', "
                         "'num-sorted-run.compaction-trigger' = '3'")
    spark.sql(f"INSERT INTO {name} VALUES (1, 1, 'a')")  # gentle: the level-0 file waits, unread
    spark.sql(f"INSERT INTO {name} VALUES (1, 2, 'b')")
    assert _rows(spark, f"SELECT * FROM {name}") == []
    spark.conf.set("spark.lamina.deletion-vectors.merge-on-read", "true")
    try:
        assert _rows(spark, f"SELECT * FROM {name}") == [(1, 2, "b")]
    finally:
        spark.conf.unset("spark.lamina.deletion-vectors.merge-on-read")
    spark.sql(f"INSERT INTO {name} VALUES (2, 2, 'c')")  # three level-0 files: lookup compaction pushes them up
    assert _rows(spark, f"SELECT * FROM {name}") == [(1, 2, "b"), (2, 2, "c")]
    spark.sql(f"INSERT INTO {name} VALUES (3, 3, 'd')")
    spark.conf.set("spark.lamina.write-only", "true")
    try:
        spark.sql(f"INSERT INTO {name} VALUES (4, 4, 'e')")
    finally:
        spark.conf.unset("spark.lamina.write-only")
    assert (4, 4, "e") not in _rows(spark, f"SELECT * FROM {name}")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert _rows(spark, f"SELECT * FROM {name}") == [(1, 2, "b"), (2, 2, "c"), (3, 3, "d"), (4, 4, "e")]


def test_expiration_removes_the_index_files_no_snapshot_uses(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    _create(spark, name)
    spark.sql(f"INSERT INTO {name} SELECT id, 0, 'v' FROM range(0, 50)")
    for i in range(1, 4):
        spark.sql(f"INSERT INTO {name} SELECT id, {i}, 'v' FROM range(0, 50, 2)")  # half the rows: vectors
    index_dir = table_path(warehouse, db, "t") / "index"
    before = {p.name for p in index_dir.iterdir()}
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    after = {p.name for p in index_dir.iterdir()}
    used = {r[0] for r in sql_rows(spark, f"SELECT file_name FROM {CAT}.{db}.`t$table_indexes`")}
    assert before and after == used and after < before
    assert _rows(spark, f"SELECT count(*), min(a), max(a) FROM {name}") == [(50, 0, 3)]


def test_the_next_write_on_an_executor_reuses_its_lookup_files(spark, db):
    name = f"{CAT}.{db}.t"
    _create(spark, name, ", 'merge-engine' = 'partial-update'")
    cache = spark.sparkContext._jvm.lamina.lookup.LocalFileCache
    spark.sql(f"INSERT INTO {name} SELECT id, id, 'a' FROM range(0, 1000)")
    spark.sql(f"INSERT INTO {name} SELECT id, NULL, 'b' FROM range(0, 1000, 2)")  # builds lookup files of the top level
    before = cache.stats()
    spark.sql(f"INSERT INTO {name} SELECT id, NULL, 'c' FROM range(1, 1000, 2)")  # the top level again: reused
    after = cache.stats()
    assert after.reused() > before.reused()
    assert _rows(spark, f"SELECT count(*) FROM {name} WHERE a IS NULL") == [(0,)]
    assert _rows(spark, f"SELECT b, count(*) FROM {name} GROUP BY b") == [("b", 500), ("c", 500)]
