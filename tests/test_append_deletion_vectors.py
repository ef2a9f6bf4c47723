"""DELETE, UPDATE and MERGE INTO on append tables with `deletion-vectors.enabled`: rows are marked in
deletion vectors (Paimon's append-table layout: index files of a partition's bucket in its index
entries), no data file is rewritten, an update's new rows are new files.

Each statement runs on an unpartitioned, a partitioned and a fixed-bucket table and is checked against
a Python model: the rows read through Lamina and pypaimon, `$files`' deletion-vector cardinalities, the
files kept, and the snapshot before (time travel) still reading the old rows."""

import threading

import pytest

import lamina
from _append_rows import BATCHES, expected, merge_with_every_clause, pypaimon_rows, rows, values
from _support import (
    error_text, latest_snapshot_id, read_snapshot, scan_output_rows, session_conf, snapshot_ids, sql_rows,
    table_path)

CAT = "lamina"
DV = "'deletion-vectors.enabled' = 'true'"

KINDS = {
    "unpartitioned": f"TBLPROPERTIES ({DV})",
    "partitioned": f"PARTITIONED BY (p) TBLPROPERTIES ({DV})",
    "bucketed": f"TBLPROPERTIES ('bucket' = '3', 'bucket-key' = 'id', {DV})",
}


def _insert_one_file(spark, name, rows):
    """INSERTs `rows` as one data file per partition (one write task)."""
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ * FROM VALUES {values(rows)} AS s(id, v, p)")


@pytest.fixture(params=sorted(KINDS))
def table(spark, db, request):
    """(name, model) of a seeded append table with deletion vectors of the parametrized kind."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) {KINDS[request.param]}")
    model = {}
    for batch in BATCHES:
        spark.sql(f"INSERT INTO {name} VALUES {values(batch)}")
        model.update({i: (v, p) for i, v, p in batch})
    return name, model


def _files(spark, name, at=""):
    """{file name: (row count, deletion-vector cardinality or None)} of the live data files."""
    prefix, table = name.rsplit(".", 1)
    found = sql_rows(spark, f"SELECT file_path, record_count, deletion_vector_cardinality "
                            f"FROM {prefix}.`{table}$files` {at}")
    return {p.rsplit("/", 1)[-1]: (n, dv) for p, n, dv in found}


def _check(spark, warehouse, paimon_catalog, name, model, before_rows, before_files, inserted):
    """The table reads `model` (through pypaimon too); every file live before is still live (none
    rewritten) unless every row of it is deleted, its vector counting its deleted rows; `inserted` rows
    are in new files; the snapshot is an OVERWRITE (Paimon commits any change of vectors so); the
    snapshot before reads `before_rows`."""
    db = name.split(".")[1]
    latest = latest_snapshot_id(warehouse, db, "t")
    assert rows(spark, name) == expected(model)
    assert pypaimon_rows(paimon_catalog, name) == expected(model)
    files = _files(spark, name)
    kept = {f: v for f, v in files.items() if f in before_files}
    added = {f: v for f, v in files.items() if f not in before_files}
    assert sum(n for n, _ in added.values()) == inserted and all(dv is None for _, dv in added.values())
    live_in_kept = sum(n - (dv or 0) for n, dv in kept.values())
    assert live_in_kept == len(model) - inserted
    assert all(dv is None or 0 < dv < n for n, dv in kept.values())
    assert rows(spark, name, latest - 1) == before_rows
    snapshot = read_snapshot(warehouse, db, "t", latest)
    assert snapshot["totalRecordCount"] == sum(n for n, _ in files.values())
    assert snapshot["commitKind"] == "OVERWRITE"
    return snapshot


def test_delete_marks_rows_and_rewrites_no_file(spark, warehouse, paimon_catalog, table):
    name, model = table
    before, before_files = rows(spark, name), _files(spark, name)
    spark.sql(f"DELETE FROM {name} WHERE id >= 20 AND id % 4 = 0")
    model = {i: r for i, r in model.items() if not (i >= 20 and i % 4 == 0)}
    snapshot = _check(spark, warehouse, paimon_catalog, name, model, before, before_files, inserted=0)
    assert snapshot["indexManifest"]
    assert _marked(spark, name, before_files) == 3  # 20, 24, 28
    # a second DELETE of rows of the same files adds to their vectors
    spark.sql(f"DELETE FROM {name} WHERE id IN (21, 22, 3)")
    model = {i: r for i, r in model.items() if i not in (21, 22, 3)}
    assert _marked(spark, name, before_files) == 6
    assert rows(spark, name) == expected(model) == pypaimon_rows(paimon_catalog, name)


def _marked(spark, name, before_files):
    """Rows deleted from the files of `before_files`: marked in vectors, or gone with their file."""
    files = _files(spark, name)
    return sum(dv or 0 for f, (_, dv) in files.items() if f in before_files) + \
        sum(n for f, (n, _) in before_files.items() if f not in files)


def test_update_writes_new_rows_and_marks_old_ones(spark, warehouse, paimon_catalog, table):
    name, model = table
    before, before_files = rows(spark, name), _files(spark, name)
    spark.sql(f"UPDATE {name} SET v = concat(v, '!') WHERE id < 10 AND id % 3 = 1")
    changed = [i for i in model if i < 10 and i % 3 == 1]
    model = {i: (v + "!" if i in changed else v, p) for i, (v, p) in model.items()}
    _check(spark, warehouse, paimon_catalog, name, model, before, before_files, inserted=len(changed))
    # updating a row again marks its new copy
    spark.sql(f"UPDATE {name} SET v = 'again' WHERE id = 1")
    model[1] = ("again", model[1][1])
    assert rows(spark, name) == expected(model) == pypaimon_rows(paimon_catalog, name)


def test_merge_with_every_clause(spark, warehouse, paimon_catalog, table):
    name, model = table
    before, before_files = rows(spark, name), _files(spark, name)
    model, inserted = merge_with_every_clause(spark, name, model)
    _check(spark, warehouse, paimon_catalog, name, model, before, before_files, inserted)


def test_a_file_whose_rows_are_all_deleted_leaves_the_table(spark, warehouse, paimon_catalog, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) TBLPROPERTIES ({DV})")
    _insert_one_file(spark, name, BATCHES[0])
    _insert_one_file(spark, name, BATCHES[1])
    first = _files(spark, name)
    spark.sql(f"DELETE FROM {name} WHERE id < 5")
    spark.sql(f"DELETE FROM {name} WHERE id < 10")
    after = _files(spark, name)
    assert len(after) == 1 and set(after) < set(first) and list(after.values())[0] == (10, None)
    snapshot = read_snapshot(warehouse, db, "t", latest_snapshot_id(warehouse, db, "t"))
    assert snapshot["commitKind"] == "OVERWRITE" and snapshot["totalRecordCount"] == 10
    # no vector is left, of the file gone or any other
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`t$table_indexes`") == [(0,)]
    assert rows(spark, name) == sorted(BATCHES[1]) == pypaimon_rows(paimon_catalog, name)


def test_delete_of_nothing_commits_nothing_and_partition_deletes_drop_vectors(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) PARTITIONED BY (p) TBLPROPERTIES ({DV})")
    _insert_one_file(spark, name, BATCHES[0])
    ids = snapshot_ids(warehouse, db, "t")
    spark.sql(f"DELETE FROM {name} WHERE id = 5 AND v = 'none'")
    assert snapshot_ids(warehouse, db, "t") == ids
    spark.sql(f"DELETE FROM {name} WHERE id IN (0, 1, 2)")  # one row of each partition
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`t$table_indexes`") == [(3,)]
    spark.sql(f"DELETE FROM {name} WHERE p = 'a'")  # whole partition, no rows read
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`t$table_indexes`") == [(2,)]
    assert rows(spark, name) == sorted(r for r in BATCHES[0] if r[0] > 2 and r[2] != "a")


@pytest.mark.parametrize("file_format", ["parquet", "orc", "avro"])
def test_row_position_columns_can_be_selected(spark, db, file_format):
    """Parquet's reader says each row's position; ORC's and Avro's rows are counted, no filter pushed into them."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) TBLPROPERTIES ({DV}, 'file.format' = '{file_format}')")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, 'v', 'p' FROM range(5) ORDER BY id")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")
    placed = sql_rows(spark, f"SELECT id, __lamina_row_position, __lamina_file FROM {name} WHERE id > 0")
    assert [(i, pos) for i, pos, _ in placed] == [(1, 1), (3, 3), (4, 4)]
    assert len({f for *_, f in placed}) == 1 and placed[0][2].startswith("data-")
    spark.sql(f"UPDATE {name} SET v = 'u' WHERE id = 3")
    assert sql_rows(spark, f"SELECT id, v, __lamina_row_position FROM {name} WHERE id >= 3") == [(3, "u", 0), (4, "v", 4)]


def test_concurrent_deletes_of_one_file_never_lose_a_mark(spark, warehouse, db):
    """Two DELETEs planned on the same snapshot mark rows of the same file: one commits, the other
    fails with a conflict (its positions were counted before the other's marks), and every mark
    committed stays."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) TBLPROPERTIES ({DV})")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, 'v', 'p' FROM range(100)")
    start = threading.Barrier(2)
    errors, done = [], []

    def delete(low):
        try:
            start.wait()
            spark.sql(f"DELETE FROM {name} WHERE id >= {low} AND id < {low + 10}")
            done.append(low)
        except Exception as e:  # noqa: BLE001 - the conflict is the expected outcome
            errors.append(e)

    threads = [threading.Thread(target=delete, args=(low,)) for low in (0, 50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in errors:
        assert isinstance(e, lamina.CommitConflictException) or "CommitConflictException" in str(e)
    deleted = {i for low in done for i in range(low, low + 10)}
    assert done and sorted(r[0] for r in sql_rows(spark, f"SELECT id FROM {name}")) == \
        sorted(set(range(100)) - deleted)


def test_compaction_applies_and_drops_the_vectors_of_the_files_it_rewrites(spark, warehouse, paimon_catalog, table):
    name, model = table
    db = name.split(".")[1]
    spark.sql(f"DELETE FROM {name} WHERE id % 3 = 0")
    spark.sql(f"UPDATE {name} SET v = 'u' WHERE id % 5 = 0")
    model = {i: ("u" if i % 5 == 0 else v, p) for i, (v, p) in model.items() if i % 3 != 0}
    marked_at = latest_snapshot_id(warehouse, db, "t")
    before_rows = rows(spark, name)
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    snapshot = read_snapshot(warehouse, db, "t", latest_snapshot_id(warehouse, db, "t"))
    assert snapshot["commitKind"] == "COMPACT" and snapshot["totalRecordCount"] == len(model)
    files = _files(spark, name)
    assert all(dv is None for _, dv in files.values()) and sum(n for n, _ in files.values()) == len(model)
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`t$table_indexes`") == [(0,)]
    assert rows(spark, name) == expected(model) == pypaimon_rows(paimon_catalog, name)
    assert rows(spark, name, marked_at) == before_rows  # time travel: the vectors of the snapshot read
    # the compacted files take marks again
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    del model[1]
    assert rows(spark, name) == expected(model) == pypaimon_rows(paimon_catalog, name)


def test_minor_compaction_rewrites_files_with_many_deleted_rows(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) TBLPROPERTIES ({DV})")
    _insert_one_file(spark, name, BATCHES[0])
    _insert_one_file(spark, name, BATCHES[1])
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('target-file-size' = '1 b')")  # no file is small now
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 11, 12, 13)")  # 10% of one file, 30% of the other
    files = _files(spark, name)
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'minor')")
    after = _files(spark, name)
    kept = [f for f, (_, dv) in files.items() if dv == 1]
    assert kept and set(kept) < set(after) and after[kept[0]] == (10, 1)
    assert sum(n for f, (n, _) in after.items() if f not in files) == 7  # the other file's live rows, rewritten
    assert rows(spark, name) == sorted(r for r in BATCHES[0] + BATCHES[1] if r[0] not in (1, 11, 12, 13))


def test_merge_matching_a_row_twice_is_refused(spark, warehouse, db):
    """Two source rows matching one target row would write two new versions of it: Spark refuses the MERGE
    (its cardinality check, which its delta-based plan makes too), nothing is committed."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) TBLPROPERTIES ({DV})")
    _insert_one_file(spark, name, BATCHES[0])
    ids = snapshot_ids(warehouse, db, "t")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"MERGE INTO {name} t USING (SELECT 1 AS id, 'x' AS v UNION ALL SELECT 1, 'y') s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET v = s.v")
    assert "MERGE_CARDINALITY_VIOLATION" in error_text(excinfo)
    assert snapshot_ids(warehouse, db, "t") == ids
    assert rows(spark, name) == sorted(BATCHES[0])


def test_filters_skip_row_groups_and_positions_stay_exact(spark, warehouse, db):
    """A DELETE's scan pushes its filters into Parquet row groups: the rows it reads carry their
    positions in the file as the reader says them (Spark's row index), not as counted, so the rows
    marked are exactly the ones deleted, also after row groups were skipped."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) TBLPROPERTIES ({DV})")
    with session_conf(spark, "parquet.block.size", "1"), session_conf(spark, "parquet.page.size.row.check.min", "10"), \
            session_conf(spark, "parquet.page.size.row.check.max", "10"):
        spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, 'v', 'p' FROM range(1000) ORDER BY id")
    df = spark.sql(f"SELECT * FROM {name} WHERE id = 995")
    assert df.count() == 1 and scan_output_rows(df) < 1000  # the file has row groups a filter skips
    spark.sql(f"DELETE FROM {name} WHERE id = 995 OR id = 500")
    spark.sql(f"UPDATE {name} SET v = 'u' WHERE id > 990")
    assert sql_rows(spark, f"SELECT count(*), sum(id) FROM {name}") == [(998, sum(range(1000)) - 995 - 500)]
    assert sql_rows(spark, f"SELECT id FROM {name} WHERE v = 'u' ORDER BY id") == \
        [(i,) for i in range(991, 1000) if i != 995]
    placed = sql_rows(spark, f"SELECT id, __lamina_row_position FROM {name} WHERE id BETWEEN 498 AND 502")
    assert sorted(placed) == [(498, 498), (499, 499), (501, 501), (502, 502)]
    # the read that says where rows live skips row groups too, as the DELETE's and UPDATE's scans did
    df = spark.sql(f"SELECT id, __lamina_row_position FROM {name} WHERE id = 700")
    assert [tuple(r) for r in df.collect()] == [(700, 700)] and scan_output_rows(df) < 1000



def test_expiration_and_orphan_removal_keep_exactly_the_index_files_in_use(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) PARTITIONED BY (p) TBLPROPERTIES ({DV})")
    _insert_one_file(spark, name, BATCHES[0] + BATCHES[1])
    for i in range(3):
        spark.sql(f"DELETE FROM {name} WHERE id % 7 = {i}")
    index_dir = table_path(warehouse, db, "t") / "index"
    before = {p.name for p in index_dir.iterdir() if not p.name.startswith(".")}
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    after = {p.name for p in index_dir.iterdir() if not p.name.startswith(".")}
    used = {r[0] for r in sql_rows(spark, f"SELECT file_name FROM {CAT}.{db}.`t$table_indexes`")}
    assert before and after == used and after < before
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')")
    assert {p.name for p in index_dir.iterdir() if not p.name.startswith(".")} == used
    assert rows(spark, name) == sorted(r for r in BATCHES[0] + BATCHES[1] if r[0] % 7 > 2)


def test_turning_vectors_on_for_an_append_table_with_data(spark, paimon_catalog, db):
    """An append table's files hold no vector until a DELETE marks one: vectors may be turned on while it
    holds data, and not off again once a file has one."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING)")
    _insert_one_file(spark, name, BATCHES[0])
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ({DV})")
    before = _files(spark, name)
    spark.sql(f"DELETE FROM {name} WHERE id < 3")
    assert _files(spark, name) == {f: (10, 3) for f in before}
    assert rows(spark, name) == sorted(BATCHES[0][3:]) == pypaimon_rows(paimon_catalog, name)
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('deletion-vectors.enabled' = 'false')")
    assert f"Cannot disable deletion vectors ('deletion-vectors.enabled') of table {db}.t" in error_text(excinfo)


def test_a_merge_that_only_inserts_is_an_append(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) TBLPROPERTIES ({DV})")
    _insert_one_file(spark, name, BATCHES[0])
    spark.sql(f"MERGE INTO {name} t USING (SELECT 77 AS id) s ON t.id = s.id "
              "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (id, v, p) VALUES (s.id, 'n', 'a')")
    assert read_snapshot(warehouse, db, "t", latest_snapshot_id(warehouse, db, "t"))["commitKind"] == "APPEND"
    assert rows(spark, name) == sorted(BATCHES[0] + [(77, "n", "a")])
