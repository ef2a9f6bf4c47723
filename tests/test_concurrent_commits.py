"""Several writers commit at once and no row is lost: threads on the shared session, and separate
processes each with their own JVM."""

import os
import subprocess
import sys
from pathlib import Path

from _support import read_snapshot, run_concurrently, snapshot_ids, sorted_tuples, sql_rows

CAT = "lamina"
HERE = Path(__file__).resolve().parent


def run_threads(targets):
    assert run_concurrently(targets) == []


def assert_snapshots_consistent(warehouse, db, table, expected_rows):
    ids = snapshot_ids(warehouse, db, table)
    assert ids == list(range(1, len(ids) + 1))
    deltas = [read_snapshot(warehouse, db, table, i)["deltaRecordCount"] for i in ids]
    assert sum(deltas) == expected_rows
    assert read_snapshot(warehouse, db, table, ids[-1])["totalRecordCount"] == expected_rows
    return ids


def test_threads_appending_through_one_session(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, writer STRING) PARTITIONED BY (writer)")
    writers, inserts, per_insert = 3, 4, 5

    def writer(w):
        def run():
            for n in range(inserts):
                start = (w * inserts + n) * per_insert
                spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'w{w}' "
                          f"FROM range({start}, {start + per_insert})")
        return run

    run_threads([writer(w) for w in range(writers)])
    total = writers * inserts * per_insert
    assert sql_rows(spark, f"SELECT id FROM {name}") == sorted_tuples([(i,) for i in range(total)])
    assert sql_rows(spark, f"SELECT writer, count(*) FROM {name} GROUP BY writer") == [
        ("w0", 20), ("w1", 20), ("w2", 20)]
    assert len(assert_snapshots_consistent(warehouse, db, "t", total)) == writers * inserts


def test_threads_appending_to_a_fixed_bucket_table(spark, warehouse, db):
    name = f"{CAT}.{db}.b"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('bucket' = '2', 'bucket-key' = 'id')")

    def writer(w):
        return lambda: [spark.sql(f"INSERT INTO {name} VALUES ({w * 10 + n}, 'w{w}')") for n in range(3)]

    run_threads([writer(w) for w in range(3)])
    assert sql_rows(spark, f"SELECT id FROM {name}") == sorted_tuples([(w * 10 + n,) for w in range(3) for n in range(3)])
    assert_snapshots_consistent(warehouse, db, "b", 9)


def test_separate_processes_and_the_session_append_together(spark, warehouse, db):
    name = f"{CAT}.{db}.p"
    spark.sql(f"CREATE TABLE {name} (id INT, source STRING)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))
    procs = [
        subprocess.Popen([sys.executable, str(HERE / "_writer.py"), warehouse, f"{db}.p", str(first), "3", "4"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        for first in (1000, 2000)
    ]
    for n in range(3):
        spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'session' FROM range({n * 4}, {n * 4 + 4})")
    for p in procs:
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0, out.decode(errors="replace")[-4000:]
    expected = sorted(list(range(12)) + list(range(1000, 1012)) + list(range(2000, 2012)))
    assert sql_rows(spark, f"SELECT id FROM {name}") == sorted_tuples([(i,) for i in expected])
    assert sql_rows(spark, f"SELECT source, count(*) FROM {name} GROUP BY source") == [
        ("proc", 24), ("session", 12)]
    assert len(assert_snapshots_consistent(warehouse, db, "p", 36)) == 9


def test_threads_writing_to_a_first_row_table_leave_every_row_visible(spark, db):
    # Readers of first-row tables skip level 0, so each write compacts the buckets it touched right
    # after its commit; concurrent writers' compactions conflict and must be planned again until they
    # land, or a written row would stay invisible.
    name = f"{CAT}.{db}.fr"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'first-row')")
    writers, inserts = 3, 4

    def writer(w):
        return lambda: [spark.sql(f"INSERT INTO {name} VALUES ({w * 100 + n}, 'w{w}'), (0, 'w{w}')")
                        for n in range(1, inserts + 1)]

    run_threads([writer(w) for w in range(writers)])
    ids = sorted(r[0] for r in sql_rows(spark, f"SELECT id FROM {name}"))
    assert ids == sorted([0] + [w * 100 + n for w in range(writers) for n in range(1, inserts + 1)])
    assert 0 not in {r[0] for r in sql_rows(spark, f"SELECT level FROM {CAT}.{db}.`fr$files`")}
