"""Rows waiting in `bucket-postpone` (a postpone-bucket table written with
`postpone.batch-write-fixed-bucket` = false, by Lamina or by Paimon) are read by no one until a
compaction assigns them to buckets: a partition with fixed buckets keeps its count, a new one gets
`postpone.default-bucket-num`. The waiting records follow the rows already in their buckets, merged by
the table's merge engine. Each check reads the data files: every key in the bucket Paimon's hash gives
it for its partition's count."""

import random
import re

import pytest

from lamina import LaminaTable

from _buckets import bucket_of, buckets_of_keys
from _kill import outlive_kills, steps
from _pk_history import create_table, engine_pairs, run_history
from _support import run_concurrently, sql_rows
from paimon_connector import run_sql
from test_postpone_buckets import create_in_paimon
from test_rescale import assert_keys_in_their_buckets, rows

CAT = "lamina"


def files(spark, db, table="t"):
    return sql_rows(spark, f"SELECT partition, bucket, level, file_path, min_sequence_number "
                           f"FROM {CAT}.{db}.`{table}$files`")


def compact(spark, db, table="t", strategy="full"):
    return spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.{table}', compact_strategy => '{strategy}')").collect()


@pytest.mark.parametrize("dv", [False, True], ids=["merge", "dv"])
def test_lamina_writes_wait_in_bucket_postpone_until_compaction(spark, warehouse, db, dv):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '-2', 'postpone.default-bucket-num' = '3', "
              f"'deletion-vectors.enabled' = '{str(dv).lower()}')")
    # partition a is first written straight into fixed buckets (the write's 2 tasks)
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'a', 'fixed' FROM range(30)")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('postpone.batch-write-fixed-bucket' = 'false')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id < 40, 'a', 'b'), 'w1' FROM range(20, 50)")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id < 40, 'a', 'b'), 'w2' FROM range(35, 45)")
    spark.sql(f"DELETE FROM {t} WHERE k < 5")  # of visible rows: its delete records wait too
    assert rows(spark, f"SELECT * FROM {t}") == [(k, "a", "fixed") for k in range(30)]
    expected = {(k, "a"): "fixed" for k in range(5, 30)}

    waiting = [f for f in files(spark, db) if f[1] == -2]
    assert {f[0] for f in waiting} == {"{p=a}", "{p=b}"}
    for partition, _, level, path, first_sequence in waiting:
        # Paimon's names: a writer's prefix that its compaction reads the writer's files in order by
        assert re.search(r"/bucket-postpone/data--u-[0-9a-f-]{36}-s-\d+-w-[0-9a-f-]{36}-\d+\.parquet$", path), path
        assert (level, first_sequence) == (0, 0)

    compact(spark, db)
    expected.update({(k, "a"): "w1" for k in range(20, 35)})
    expected.update({(k, "a"): "w2" for k in range(35, 40)})
    expected.update({(k, "b"): "w2" for k in range(40, 45)})
    expected.update({(k, "b"): "w1" for k in range(45, 50)})
    assert rows(spark, f"SELECT * FROM {t}") == sorted((k, p, v) for (k, p), v in expected.items())
    assert not [f for f in files(spark, db) if f[1] == -2]
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 2, "{p=b}": 3})
    operations = sql_rows(spark, f"SELECT commit_kind FROM {CAT}.{db}.`t$snapshots` ORDER BY snapshot_id")
    assert operations[-2:] == [("COMPACT",), ("COMPACT",)]  # the assignment, then the buckets' compaction

    # deletes and updates of visible rows wait too, and win over the rows they follow
    spark.sql(f"DELETE FROM {t} WHERE k IN (6, 41)")
    spark.sql(f"UPDATE {t} SET v = 'u' WHERE k IN (7, 42)")
    spark.sql(f"INSERT INTO {t} VALUES (8, 'a', 'i'), (8, 'c', 'i')")
    assert (6, "a", "fixed") in rows(spark, f"SELECT * FROM {t}")
    compact(spark, db, strategy="minor")
    for key in ((6, "a"), (41, "b")):
        del expected[key]
    expected.update({(7, "a"): "u", (42, "b"): "u", (8, "a"): "i", (8, "c"): "i"})
    assert rows(spark, f"SELECT * FROM {t}") == sorted((k, p, v) for (k, p), v in expected.items())
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 2, "{p=b}": 3, "{p=c}": 3})


HISTORIES = engine_pairs()


@pytest.mark.parametrize("engine,dv", HISTORIES,
                         ids=lambda v: v if isinstance(v, str) else ("dv" if v else "merge"))
def test_random_histories_through_bucket_postpone_match_the_model(spark, warehouse, db, engine, dv):
    """Every statement writes into bucket-postpone; a compaction assigns its rows before the next one
    (whose DML reads what is visible) and the table matches the model of `_pk_history`."""
    rnd = random.Random(39 + len(engine) + (7 if dv else 0))
    name = f"{CAT}.{db}.t"
    extra = {"bucket": "-2", "postpone.batch-write-fixed-bucket": "false", "postpone.default-bucket-num": "3"}
    if dv:
        extra["deletion-vectors.enabled"] = "true"
    ordered = create_table(spark, name, engine, extra)

    def check(step, model):
        compact(spark, db, strategy=rnd.choice(["minor", "full"]))
        assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == model.expected(), step
        assert not [f for f in files(spark, db) if f[1] == -2]
        assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{}": 3})

    run_history(spark, db, name, engine, ordered, rnd, 5, check)


def test_paimon_writes_into_bucket_postpone_and_lamina_compacts(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    create_in_paimon(warehouse, db, [
        # partition a in fixed buckets (Paimon's batch write), then everything waits in bucket-postpone
        f"INSERT INTO paimon.{db}.t SELECT CAST(id AS INT), 'a', 'fixed' FROM range(20)",
        f"ALTER TABLE paimon.{db}.t SET TBLPROPERTIES ('postpone.batch-write-fixed-bucket' = 'false')",
        f"INSERT INTO paimon.{db}.t SELECT CAST(id AS INT), IF(id < 30, 'a', 'b'), 'p1' FROM range(10, 40)",
        f"INSERT INTO paimon.{db}.t SELECT CAST(id AS INT), IF(id < 30, 'a', 'b'), 'p2' FROM range(25, 35)",
    ], options=", 'postpone.default-bucket-num' = '4'")
    counts = {"{p=a}": len({f[1] for f in files(spark, db) if f[0] == "{p=a}" and f[1] >= 0})}
    waiting = [f for f in files(spark, db) if f[1] == -2]
    assert waiting and all(re.search(r"/bucket-postpone/data--u-.*-s-\d+-w-.*\.avro$", f[3]) for f in waiting), waiting
    assert rows(spark, f"SELECT * FROM {t}") == [(k, "a", "fixed") for k in range(20)]

    compact(spark, db)
    expected = {(k, "a"): "fixed" for k in range(10)}
    expected.update({(k, "a"): "p1" for k in range(10, 25)})
    expected.update({(k, "a"): "p2" for k in range(25, 30)})
    expected.update({(k, "b"): "p2" for k in range(30, 35)})
    expected.update({(k, "b"): "p1" for k in range(35, 40)})
    expected = sorted((k, p, v) for (k, p), v in expected.items())
    assert rows(spark, f"SELECT * FROM {t}") == expected
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {**counts, "{p=b}": 4})
    out = run_sql(warehouse, [f"SELECT k, p, v FROM paimon.{db}.t"])
    assert sorted(tuple(r) for r in out[0]) == expected



def test_target_bucket_rows_sizes_new_partitions_by_their_waiting_records(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '-2', 'postpone.default-bucket-num' = '7', "
              "'postpone.batch-write-fixed-bucket.max-parallelism' = '1')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'fixed', 'v' FROM range(50)")  # 1 bucket, kept
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('postpone.batch-write-fixed-bucket' = 'false', "
              "'postpone.target-bucket-rows' = '10', 'postpone.batch-write-fixed-bucket.max-parallelism' = '5')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id < 25, 'small', IF(id < 55, 'mid', 'big')), 'w' "
              "FROM range(200)")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'fixed', 'w' FROM range(40, 60)")
    # the Python API, one partition: the others keep waiting
    LaminaTable.for_name(spark, t).compact(partitions={"p": "small"})
    assert {f[0] for f in files(spark, db) if f[1] == -2} == {"{p=mid}", "{p=big}", "{p=fixed}"}
    assert sql_rows(spark, f"SELECT count(*) FROM {t} WHERE p = 'small'") == [(25,)]
    compact(spark, db)
    # 25 records: 3 buckets; 30: 3; 145: 15, capped at 5; a partition with fixed buckets keeps its count
    counts = {"{p=small}": 3, "{p=mid}": 3, "{p=big}": 5, "{p=fixed}": 1}
    assert_keys_in_their_buckets(spark, warehouse, db, "t", counts)
    buckets = sql_rows(spark, f"SELECT partition, count(DISTINCT bucket) FROM {CAT}.{db}.`t$files` GROUP BY partition")
    assert dict(buckets) == counts
    assert sql_rows(spark, f"SELECT count(*) FROM {t}") == [(260,)]


def test_writers_into_bucket_postpone_racing_compactions_lose_nothing(spark, warehouse, db):
    """Files that arrive in bucket-postpone while a compaction assigns others wait for the next one (no
    conflict: PostponeAssignmentCommitTest makes the race certain), and the later write of a key wins."""
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, w INT) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '-2', "
              "'postpone.batch-write-fixed-bucket' = 'false', 'postpone.default-bucket-num' = '2')")
    compactions = []

    def writer():
        for i in range(6):  # every write rewrites keys 0..9 and adds ten of its own
            spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), {i} FROM range(10) "
                      f"UNION ALL SELECT CAST(id AS INT), {i} FROM range({100 + 10 * i}, {110 + 10 * i})")

    def compactor():
        for _ in range(4):
            compactions.append(compact(spark, db, strategy="minor"))

    assert run_concurrently([writer, compactor]) == []
    compact(spark, db)
    expected = sorted([(k, 5) for k in range(10)] + [(k, i) for i in range(6) for k in range(100 + 10 * i, 110 + 10 * i)])
    assert rows(spark, f"SELECT * FROM {t}") == expected
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{}": 2})


# every key again into bucket-postpone, then a compaction assigns the waiting rows to buckets
_ASSIGNS = steps("INSERT INTO lamina.{table} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), {r} "
                 "FROM range(0, {n})",
                 "CALL lamina.sys.compact(table => '{table}', compact_strategy => 'full')")


def test_kill_9_during_bucket_assignment_leaves_the_last_snapshot(spark, warehouse, db):
    """kill -9 of a writer while it writes into bucket-postpone or a compaction assigns the waiting rows:
    the table reads as after some whole number of assignments, each key once, in the bucket Paimon's hash
    gives it; the next write and compaction work."""
    n = 30000
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v INT) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '-2', 'postpone.default-bucket-num' = '3', "
              "'postpone.batch-write-fixed-bucket' = 'false')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 0 FROM range(0, {n})")
    compact(spark, db)
    state = f"SELECT v, count(*), count(DISTINCT k) FROM {t} GROUP BY v"

    def assert_assigned():
        for (partition, k), buckets in buckets_of_keys(spark, warehouse, db, "t").items():
            assert buckets - {-2} == {bucket_of(k, 3)}, (partition, k, buckets)

    nxt = outlive_kills(spark, _ASSIGNS, warehouse, f"{db}.t", state, lambda c: [(c, n, n)], n,
                        check=assert_assigned) + 1
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), {nxt} FROM range(0, {n})")
    compact(spark, db)
    assert sql_rows(spark, state) == [(nxt, n, n)]
    assert_assigned()
