"""DELETE, UPDATE and MERGE INTO on append tables (no primary key, no deletion vectors), written copy-on-write.

Each statement runs on an unpartitioned, a partitioned and a fixed-bucket table and is checked against
the rows a Python model computes. The files the statement's condition rules out (by partition or by
their min/max statistics) keep their names; the snapshot is one OVERWRITE that removes exactly the
files the statement read; the snapshot before still reads the old rows; pypaimon reads the result
exactly. A DELETE that deletes nothing commits nothing: no snapshot, no data file left behind.
"""

import json

import pytest

import lamina
from _append_rows import BATCHES, expected, merge_with_every_clause, pypaimon_rows, rows, values
from _support import (
    data_files, error_text, read_snapshot, scan_output_rows, session_conf, snapshot_ids, sql_rows, table_path)

CAT = "lamina"

KINDS = {
    "unpartitioned": "",
    "partitioned": "PARTITIONED BY (p)",
    # write-only: the seeded files stay as written (no compaction after the inserts), so that which
    # files a statement rewrites shows
    "bucketed": "TBLPROPERTIES ('bucket' = '3', 'bucket-key' = 'id', 'write-only' = 'true')",
}


@pytest.fixture(params=sorted(KINDS))
def table(spark, db, request):
    """(name, model, file names of each INSERT) of a seeded append table of the parametrized kind."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) {KINDS[request.param]}")
    model, files = {}, []
    for batch in BATCHES:
        before = _file_names(spark, name)
        spark.sql(f"INSERT INTO {name} VALUES {values(batch)}")
        files.append(_file_names(spark, name) - before)
        model.update({i: (v, p) for i, v, p in batch})
    return name, model, files


def _file_names(spark, name, where="true"):
    """The names of the live data files (`$files`) that `where` selects."""
    prefix, table = name.rsplit(".", 1)
    table, _, at = table.partition(" ")  # "t VERSION AS OF 3"
    query = f"SELECT file_path FROM {prefix}.`{table}$files` {at} WHERE {where}"
    return {r[0].rsplit("/", 1)[-1] for r in sql_rows(spark, query)}


def _check_rewrite(spark, warehouse, paimon_catalog, name, model, before_rows, kept_files):
    """The table reads `model`, the latest snapshot is one OVERWRITE that removed some files, the
    snapshot before still reads `before_rows`, the files in `kept_files` are still live, pypaimon
    reads the same rows."""
    db = name.split(".")[1]
    latest = max(snapshot_ids(warehouse, db, "t"))
    assert rows(spark, name) == expected(model)
    snapshot = read_snapshot(warehouse, db, "t", latest)
    assert snapshot["commitKind"] == "OVERWRITE"
    assert snapshot["totalRecordCount"] == len(model)
    assert rows(spark, name, latest - 1) == before_rows
    removed = _file_names(spark, f"{name} VERSION AS OF {latest - 1}") - _file_names(spark, name)
    assert removed and not removed & kept_files
    assert kept_files <= _file_names(spark, name)
    assert pypaimon_rows(paimon_catalog, name) == expected(model)


def test_delete(spark, warehouse, paimon_catalog, table):
    name, model, files = table
    before = rows(spark, name)
    spark.sql(f"DELETE FROM {name} WHERE id >= 20 AND id % 4 = 0")
    model = {i: r for i, r in model.items() if not (i >= 20 and i % 4 == 0)}
    # the files of the first two INSERTs hold no id >= 20: their statistics rule them out
    _check_rewrite(spark, warehouse, paimon_catalog, name, model, before, files[0] | files[1])


def test_update(spark, warehouse, paimon_catalog, table):
    name, model, files = table
    before = rows(spark, name)
    spark.sql(f"UPDATE {name} SET v = concat(v, '!') WHERE id < 10 AND id % 3 = 1")
    model = {i: (v + "!" if i < 10 and i % 3 == 1 else v, p) for i, (v, p) in model.items()}
    _check_rewrite(spark, warehouse, paimon_catalog, name, model, before, files[1] | files[2])


def test_merge_with_every_clause(spark, warehouse, paimon_catalog, table):
    name, model, files = table
    before = rows(spark, name)
    model, _ = merge_with_every_clause(spark, name, model)
    # NOT MATCHED BY SOURCE reads the whole table: only the rows change, not the file count rule
    _check_rewrite(spark, warehouse, paimon_catalog, name, model, before, set())


def test_merge_matched_only_rewrites_the_files_it_may_touch(spark, warehouse, paimon_catalog, table):
    name, model, files = table
    before = rows(spark, name)
    spark.sql(f"""MERGE INTO {name} t USING (SELECT 25 AS id, 'x' AS v UNION ALL SELECT 26, 'D') s
        ON t.id = s.id AND t.id >= 20
        WHEN MATCHED AND s.v = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v""")
    model[25] = ("x", model[25][1])
    del model[26]
    _check_rewrite(spark, warehouse, paimon_catalog, name, model, before, files[0] | files[1])


def test_partition_condition_keeps_other_partitions_files(spark, warehouse, paimon_catalog, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {name} VALUES {values(BATCHES[0])}")
    model = {i: (v, p) for i, v, p in BATCHES[0]}
    others = _file_names(spark, name, "file_path NOT LIKE '%p=a/%'")
    assert others
    before = rows(spark, name)
    spark.sql(f"DELETE FROM {name} WHERE p = 'a' AND id > 3")
    model = {i: r for i, r in model.items() if not (r[1] == "a" and i > 3)}
    _check_rewrite(spark, warehouse, paimon_catalog, name, model, before, others)


def test_every_row_group_of_a_file_read_is_rewritten(spark, warehouse, db):
    """A query's filter skips a file's row groups that cannot match; the files a DELETE rewrites
    are read whole, or the rows of skipped row groups would be lost."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING)")
    with session_conf(spark, "parquet.block.size", "1"), session_conf(spark, "parquet.page.size.row.check.min", "10"), \
            session_conf(spark, "parquet.page.size.row.check.max", "10"):
        spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, 'v', 'p' FROM range(1000) ORDER BY id")
    assert len(data_files(warehouse, db, "t")) == 1
    df = spark.sql(f"SELECT * FROM {name} WHERE id = 5")
    assert df.count() == 1 and scan_output_rows(df) < 1000  # the file has row groups a filter skips
    spark.sql(f"DELETE FROM {name} WHERE id = 5")
    assert sql_rows(spark, f"SELECT count(*), sum(id) FROM {name}") == [(999, sum(range(1000)) - 5)]


def test_delete_of_nothing_commits_nothing(spark, warehouse, table):
    name, model, _ = table
    db = name.split(".")[1]
    snapshots, files = snapshot_ids(warehouse, db, "t"), data_files(warehouse, db, "t")
    spark.sql(f"DELETE FROM {name} WHERE id = 1000")  # no file's statistics admit it: nothing read
    spark.sql(f"DELETE FROM {name} WHERE id = 5 AND v = 'none'")  # files read and rewritten, no row deleted
    assert snapshot_ids(warehouse, db, "t") == snapshots
    assert data_files(warehouse, db, "t") == files  # the rewritten copies were discarded
    assert rows(spark, name) == expected(model)


def test_whole_table_and_empty_table(spark, warehouse, paimon_catalog, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING)")
    spark.sql(f"UPDATE {name} SET v = 'x'")
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    assert snapshot_ids(warehouse, db, "t") == []
    # a MERGE into an empty table only adds files: an APPEND, as Paimon commits a write that removes none
    spark.sql(f"MERGE INTO {name} t USING (SELECT 1 AS id, 'a' AS v, 'p' AS p) s ON t.id = s.id "
              "WHEN NOT MATCHED THEN INSERT *")
    assert read_snapshot(warehouse, db, "t", 1)["commitKind"] == "APPEND"
    spark.sql(f"UPDATE {name} SET v = 'b'")
    assert rows(spark, name) == [(1, "b", "p")]
    assert read_snapshot(warehouse, db, "t", 2)["commitKind"] == "OVERWRITE"
    assert pypaimon_rows(paimon_catalog, name) == [(1, "b", "p")]

