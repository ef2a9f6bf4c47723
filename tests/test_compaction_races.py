"""Compactions racing on the same buckets never delete a live file.

Two `CALL sys.compact` in threads of one session plan from the same snapshot; one commits, the other
loses with a conflict and removes only the files it created. A lookup compaction upgrades a lone
level-0 file to the top level under the same name, so the loser's outputs name the winner's live
file: before the fix the loser deleted it and every later read failed. Each round here checks that
every row is still there and every file of the latest snapshot exists."""

import os

import pytest

from _support import run_concurrently, sql_rows, table_path

CAT = "lamina"

_TABLES = {
    "pk_dv": "(k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', "
             "'deletion-vectors.enabled' = 'true', 'write-only' = 'true')",
    "pk_lookup_changelog": "(k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', "
                           "'changelog-producer' = 'lookup', 'write-only' = 'true')",
    "pk_mor": "(k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', 'write-only' = 'true')",
    "append_dv": "(k INT, v STRING) TBLPROPERTIES ('bucket' = '1', 'bucket-key' = 'k', "
                 "'deletion-vectors.enabled' = 'true', 'write-only' = 'true')",
}


def _race(spark, statements):
    """Runs the statements at once in threads; the errors they raised."""
    return run_concurrently([lambda s=s: spark.sql(s).collect() for s in statements])


def _files_of_latest_exist(spark, warehouse, db, name):
    root = table_path(warehouse, db, name)
    for (path,) in sql_rows(spark, f"SELECT file_path FROM {CAT}.{db}.`{name}$files`"):
        p = path if path.startswith("/") else str(root / path)
        assert os.path.exists(p.replace("file:", "")), f"live file {path} is missing"


@pytest.mark.parametrize("kind", list(_TABLES))
def test_racing_full_compactions_keep_every_live_file(spark, warehouse, db, kind):
    name = f"r_{kind}"
    spark.sql(f"CREATE TABLE {CAT}.{db}.{name} {_TABLES[kind]}")
    expected = {}
    for round_ in range(4):
        rows = [(k, f"r{round_}") for k in range(round_ * 2, round_ * 2 + 3)]
        values = ", ".join(f"({k}, '{v}')" for k, v in rows)
        spark.sql(f"INSERT INTO {CAT}.{db}.{name} VALUES {values}")
        if kind.startswith("pk"):
            expected.update(dict(rows))
        else:
            expected.setdefault("rows", []).extend(rows)
        call = f"CALL {CAT}.sys.compact(table => '{db}.{name}', compact_strategy => 'full')"
        errors = _race(spark, [call, call])
        for e in errors:
            assert "conflict" in str(e).lower(), e
        got = sql_rows(spark, f"SELECT k, v FROM {CAT}.{db}.{name}")
        want = sorted(expected.items()) if kind.startswith("pk") else sorted(expected["rows"])
        assert got == want, f"round {round_}"
        _files_of_latest_exist(spark, warehouse, db, name)


def test_racing_sort_compactions_keep_every_live_file(spark, warehouse, db):
    """A sort compaction writes new files; the loser of a race removes only those."""
    name = "r_sort"
    spark.sql(f"CREATE TABLE {CAT}.{db}.{name} (k INT, v STRING) TBLPROPERTIES ('deletion-vectors.enabled' = 'true')")
    expected = []
    for round_ in range(3):
        rows = [(k, f"r{round_}") for k in range(round_ * 3, round_ * 3 + 3)]
        spark.sql(f"INSERT INTO {CAT}.{db}.{name} VALUES " + ", ".join(f"({k}, '{v}')" for k, v in rows))
        expected.extend(rows)
        call = f"CALL {CAT}.sys.compact(table => '{db}.{name}', order_strategy => 'zorder', order_by => 'k,v')"
        for e in _race(spark, [call, call]):
            assert "conflict" in str(e).lower(), e
        assert sql_rows(spark, f"SELECT k, v FROM {CAT}.{db}.{name}") == sorted(expected), f"round {round_}"
        _files_of_latest_exist(spark, warehouse, db, name)
