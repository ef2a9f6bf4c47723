"""Cross-partition upsert: a primary key without every partition column, with dynamic buckets
(`bucket` = -1). A key's new row in another partition deletes its old row there (deduplicate), merges
into the old partition (partial-update, aggregation) or is dropped (first-row), as Paimon's writers
do; the key index each write builds from the table's live keys is spread over the write's tasks by key
hash. Checked against a model over random histories of each engine with and without deletion vectors,
with concurrent writers, and with Paimon's own connector writing and reading the same table."""

import random

import pytest

import lamina
from _pk_history import ENGINES, engine_pairs
from _kill import outlive_kills, steps
from _support import run_concurrently, sql_rows, table_path
from paimon_connector import require_paimon, run_sql

CAT = "lamina"

# the engines whose histories the model follows without sequence fields
ENGINES = {e: ENGINES[e] for e in ("deduplicate", "partial-update", "aggregation", "first-row")}


def create(spark, name, engine="deduplicate", extra=None):
    props = {"primary-key": "k", "dynamic-bucket.target-row-num": "4", "num-sorted-run.compaction-trigger": "3",
             **ENGINES[engine], **(extra or {})}
    spark.sql(f"CREATE TABLE {name} (k INT NOT NULL, p STRING NOT NULL, v STRING, n INT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ({', '.join(f'{a!r} = {b!r}' for a, b in props.items())})")


def rows_by_key(spark, name):
    """{k: [(p, v, n), ...]} over every partition and bucket: a key twice is a broken table."""
    out = {}
    for k, p, v, n in sql_rows(spark, f"SELECT k, p, v, n FROM {name}"):
        out.setdefault(k, []).append((p, v, n))
    return out


def assert_each_key_once(spark, name):
    seen = rows_by_key(spark, name)
    twice = {k: r for k, r in seen.items() if len(r) > 1}
    assert not twice, f"keys in two places: {twice}"
    return {k: r[0] for k, r in seen.items()}


def test_a_key_moves_to_its_new_partition_and_leaves_the_old(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    create(spark, t)
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x', 1), (2, 'a', 'y', 2), (3, 'b', 'z', 3)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'b', 'x2', 10), (3, 'c', 'z2', 30)")
    assert assert_each_key_once(spark, t) == {1: ("b", "x2", 10), 2: ("a", "y", 2), 3: ("c", "z2", 30)}
    # the old partitions got delete records, as Paimon's writer leaves them
    kinds = sql_rows(spark, f"SELECT rowkind, k, p FROM {CAT}.{db}.`t$audit_log` WHERE rowkind = '-D' ORDER BY k")
    assert kinds == [("-D", 1, "a"), ("-D", 3, "b")]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert assert_each_key_once(spark, t) == {1: ("b", "x2", 10), 2: ("a", "y", 2), 3: ("c", "z2", 30)}
    spark.sql(f"DELETE FROM {t} WHERE k = 1")
    spark.sql(f"UPDATE {t} SET v = 'u' WHERE k = 3")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a', 'back', 0)")
    assert assert_each_key_once(spark, t) == {2: ("a", "y", 2), 3: ("a", "back", 0)}


class Model:
    """{k: (p, v, n)}: what each engine makes of the statements, Paimon's cross-partition rules."""

    def __init__(self, engine):
        self.engine = engine
        self.rows = {}

    def upsert(self, k, p, v, n):
        old = self.rows.get(k)
        if old is None or self.engine == "deduplicate":
            self.rows[k] = (p, v, n)  # deduplicate: the key moves to p, its old row deleted
        elif self.engine == "partial-update":  # merged where the key is: the old partition stays
            self.rows[k] = (old[0], v if v is not None else old[1], n if n is not None else old[2])
        elif self.engine == "aggregation":
            total = None if old[2] is None and n is None else (old[2] or 0) + (n or 0)
            self.rows[k] = (old[0], v if v is not None else old[1], total)
        # first-row keeps the first, wherever it is


def _literal(x):
    return "NULL" if x is None else repr(x)


def run_history(spark, db, name, engine, rnd, steps, check):
    model = Model(engine)
    deletes = engine != "first-row"
    updates = engine in ("deduplicate", "partial-update")
    for step in range(steps):
        roll = rnd.random()
        if step > 0 and deletes and roll < 0.2 and model.rows:
            victims = rnd.sample(sorted(model.rows), min(3, len(model.rows)))
            spark.sql(f"DELETE FROM {name} WHERE k IN ({', '.join(map(str, victims))})")
            for k in victims:
                model.rows.pop(k)
        elif step > 0 and updates and roll < 0.35 and model.rows:
            keys = rnd.sample(sorted(model.rows), min(4, len(model.rows)))
            spark.sql(f"UPDATE {name} SET v = 'u{step}' WHERE k IN ({', '.join(map(str, keys))})")
            for k in keys:
                model.rows[k] = (model.rows[k][0], f"u{step}", model.rows[k][2])
        elif step > 0 and updates and roll < 0.45 and model.rows:
            # matched keys get v; new keys come in with a partition of the source
            matched = rnd.sample(sorted(model.rows), min(2, len(model.rows)))
            fresh = rnd.sample([k for k in range(0, 30) if k not in model.rows], 2)
            source = " UNION ALL ".join(f"SELECT {k} AS k, '{rnd.choice('abc')}' AS p, 'm{step}' AS v"
                                        for k in matched + fresh)
            spark.sql(f"MERGE INTO {name} t USING ({source}) s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v "
                      "WHEN NOT MATCHED THEN INSERT (k, p, v, n) VALUES (s.k, s.p, s.v, NULL)")
            for k in matched:
                model.rows[k] = (model.rows[k][0], f"m{step}", model.rows[k][2])
            for r in spark.sql(f"SELECT * FROM ({source})").collect():
                if r.k in fresh:
                    model.upsert(r.k, r.p, r.v, None)
        elif step > 0 and roll < 0.55:
            strategy = rnd.choice(["minor", "full"])
            spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => '{strategy}')")
        else:
            batch = {}  # one version per key per statement: the order inside one write is not defined
            for _ in range(rnd.randint(1, 12)):
                k = rnd.randint(0, 25)
                v = f"v{step}_{k}" if engine == "deduplicate" else rnd.choice([None, f"v{step}_{k}"])
                batch[k] = (rnd.choice("abc"), v, rnd.choice([None, rnd.randint(-5, 5)]))
            spark.sql(f"INSERT INTO {name} VALUES " + ", ".join(
                f"({k}, '{p}', {_literal(v)}, {_literal(n)})" for k, (p, v, n) in batch.items()))
            for k, row in batch.items():
                model.upsert(k, *row)
        check(step, model)
    return model


# make test: each engine once; make stress: with deletion vectors on and off (first-row takes none)
CASES = [(e, dv) for e, dv in engine_pairs() if e in ENGINES]


@pytest.mark.parametrize("engine, dv", CASES, ids=[f"{e}{'-dv' if dv else ''}" for e, dv in CASES])
def test_random_histories_match_the_model(spark, warehouse, db, engine, dv):
    rnd = random.Random(20261129 + len(engine) + (7 if dv else 0))
    name = f"{CAT}.{db}.t"
    create(spark, name, engine, {"deletion-vectors.enabled": "true"} if dv else None)

    def check(step, model):
        assert assert_each_key_once(spark, name) == model.rows, step

    model = run_history(spark, db, name, engine, rnd, 10, check)
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert assert_each_key_once(spark, name) == model.rows
    if dv:  # a compaction may keep rows its vectors delete
        return
    # after a full compaction each bucket's files hold its live keys: at most the target of 4, as new keys
    # open further buckets of their partition
    per_bucket = sql_rows(spark, f"SELECT partition, bucket, SUM(record_count) FROM {CAT}.{db}.`t$files` "
                                 "GROUP BY partition, bucket")
    assert sum(n for _, _, n in per_bucket) == len(model.rows)
    assert all(n <= 4 for _, _, n in per_bucket) and max(b for _, b, _ in per_bucket) >= 2, per_bucket


def test_concurrent_writers_never_leave_a_key_in_two_partitions(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    create(spark, t, extra={"dynamic-bucket.target-row-num": "8"})
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'a', 'base', 0 FROM range(20)")
    committed, conflicts = {}, []

    def writer(w):
        def run():
            for n in range(3):
                # the same keys, each writer moving them to its own partition
                keys = list(range(n * 5, 20 + n * 5))
                try:
                    spark.sql(f"INSERT INTO {t} VALUES " + ", ".join(f"({k}, 'w{w}', 'w{w}', {n})" for k in keys))
                    committed.setdefault(w, []).append(n)
                except lamina.CommitConflictException as e:
                    assert "could end up in two partitions" in str(e) and f"{db}.t" in str(e)
                    conflicts.append(w)
        return run

    def compactor():
        spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")

    assert run_concurrently([writer(0), writer(1), compactor]) == []
    rows = assert_each_key_once(spark, t)
    assert set(rows) == set(range(30))
    assert sum(len(c) for c in committed.values()) + len(conflicts) == 6 and committed
    # every key the last committed write of its keys wrote sits in that writer's partition
    assert {p for p, v, _ in rows.values() if v != "base"} <= {"w0", "w1"}
    assert all(p == v for p, v, _ in rows.values() if v != "base")


def test_overwriting_some_partitions_and_streaming_are_refused_by_name(spark, warehouse, db, tmp_path):
    t = f"{CAT}.{db}.t"
    create(spark, t)
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x', 1), (2, 'b', 'y', 2)")
    with pytest.raises(lamina.BadInputException) as e:
        spark.sql(f"INSERT OVERWRITE {t} PARTITION (p = 'a') VALUES (3, 'z', 3)")
    assert f"INSERT OVERWRITE of some partitions of table {db}.t is not supported" in str(e.value)
    # the whole table may be overwritten: the index starts afresh
    spark.sql(f"INSERT OVERWRITE {t} VALUES (1, 'c', 'o', 1)")
    assert assert_each_key_once(spark, t) == {1: ("c", "o", 1)}
    spark.sql(f"TRUNCATE TABLE {t}")
    assert assert_each_key_once(spark, t) == {}
    stream = (spark.readStream.format("rate").option("rowsPerSecond", 1).load()
              .selectExpr("CAST(value AS INT) AS k", "'a' AS p", "'s' AS v", "0 AS n"))
    with pytest.raises(Exception) as e:
        stream.writeStream.option("checkpointLocation", str(tmp_path / "cp")).toTable(t).awaitTermination(30)
    assert f"Streaming write into table {db}.t is not supported" in str(e.value)


def test_the_index_ttl_forgets_keys_of_old_buckets(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    create(spark, t)
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x', 1)")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('cross-partition-upsert.index-ttl' = '1 ms')")
    # the bucket's only file was written more than 1 ms ago: the key is not indexed and lands twice, as in Paimon
    spark.sql(f"INSERT INTO {t} VALUES (1, 'b', 'y', 2)")
    assert sorted(rows_by_key(spark, t)[1]) == [("a", "x", 1), ("b", "y", 2)]


def test_paimon_reads_lamina_writes_after_paimon_and_keys_stay_unique(spark, warehouse, db):
    require_paimon()
    t = f"{CAT}.{db}.t"
    create(spark, t, extra={"deletion-vectors.enabled": "true"})
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'l1', CAST(id AS INT) FROM range(12)")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'c', 'l2', 0 FROM range(0, 12, 3)")
    expected = assert_each_key_once(spark, t)
    out = run_sql(warehouse, [
        f"SELECT k, p, v, n FROM paimon.{db}.t ORDER BY k",
        # Paimon's writer moves keys of Lamina's table: its index bootstraps from Lamina's files
        f"INSERT INTO paimon.{db}.t VALUES (1, 'c', 'p1', 100), (4, 'a', 'p1', 400), (20, 'b', 'p1', 2000)",
        f"SELECT k, p, v, n FROM paimon.{db}.t ORDER BY k",
    ])
    assert out[0] == [[k, *expected[k]] for k in sorted(expected)]
    expected.update({1: ("c", "p1", 100), 4: ("a", "p1", 400), 20: ("b", "p1", 2000)})
    assert out[2] == [[k, *expected[k]] for k in sorted(expected)]
    assert assert_each_key_once(spark, t) == expected
    # Lamina writes after Paimon: its index bootstraps from Paimon's files
    spark.sql(f"INSERT INTO {t} VALUES (20, 'a', 'l3', 1), (1, 'b', 'l3', 2), (5, 'b', 'l3', 3)")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    expected.update({20: ("a", "l3", 1), 1: ("b", "l3", 2), 5: ("b", "l3", 3)})
    assert assert_each_key_once(spark, t) == expected
    back = run_sql(warehouse, [f"SELECT k, p, v, n FROM paimon.{db}.t ORDER BY k"])
    assert back[0] == [[k, *expected[k]] for k in sorted(expected)]


def test_merges_update_values_in_place_and_delete_keys_wherever_they_are(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    create(spark, t)
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x', 1), (2, 'a', 'y', 2), (3, 'b', 'z', 3)")
    spark.sql(f"CREATE OR REPLACE TEMP VIEW src AS SELECT * FROM VALUES (1, 'c', 'm', 10), (4, 'c', 'n', 40) "
              "AS s(k, p, v, n)")
    # a MERGE does not update partition columns (a write of the key into another partition moves it)
    with pytest.raises(lamina.BadInputException) as e:
        spark.sql(f"MERGE INTO {t} t USING src s ON t.k = s.k WHEN MATCHED THEN UPDATE SET * "
                  "WHEN NOT MATCHED THEN INSERT *")
    assert f"table {db}.t" in str(e.value) and "column 'p' is a partition column" in str(e.value)
    spark.sql(f"MERGE INTO {t} t USING src s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v, n = s.n "
              "WHEN NOT MATCHED THEN INSERT *")
    assert assert_each_key_once(spark, t) == {1: ("a", "m", 10), 2: ("a", "y", 2), 3: ("b", "z", 3),
                                              4: ("c", "n", 40)}
    # deletes by key, whatever partition the source names
    spark.sql(f"CREATE OR REPLACE TEMP VIEW gone AS SELECT * FROM VALUES (1, 'a'), (3, 'a') AS s(k, p)")
    spark.sql(f"MERGE INTO {t} t USING gone s ON t.k = s.k WHEN MATCHED THEN DELETE")
    assert assert_each_key_once(spark, t) == {2: ("a", "y", 2), 4: ("c", "n", 40)}
    spark.sql(f"INSERT INTO {t} VALUES (1, 'b', 'again', 1), (3, 'a', 'again', 3)")
    assert assert_each_key_once(spark, t) == {1: ("b", "again", 1), 2: ("a", "y", 2), 3: ("a", "again", 3),
                                              4: ("c", "n", 40)}


def test_an_index_beyond_its_memory_spills_to_local_lookup_files(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    # half of a 16 kb write buffer: the index of each task spills every hundred-odd keys
    create(spark, t, extra={"write-buffer-size": "16 kb", "dynamic-bucket.target-row-num": "100"})
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'a', 'v1', CAST(id AS INT) FROM range(2000)")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 3 = 0, 'b', 'a'), 'v2', 0 FROM range(0, 2000, 2)")
    rows = assert_each_key_once(spark, t)
    assert len(rows) == 2000
    assert all(rows[k] == (("b" if k % 3 == 0 else "a"), "v2", 0) for k in range(0, 2000, 2))
    assert all(rows[k] == ("a", "v1", k) for k in range(1, 2000, 2))


def test_keys_the_bucket_functions_cannot_hash_are_placed_by_one_task(spark, warehouse, db):
    """A timestamp key: every row goes to one task, which holds the whole index."""
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (ts TIMESTAMP NOT NULL, p STRING NOT NULL, v INT) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'ts', 'dynamic-bucket.target-row-num' = '7')")
    spark.sql(f"INSERT INTO {t} SELECT timestamp_seconds(id), 'a', CAST(id AS INT) FROM range(40)")
    spark.sql(f"INSERT INTO {t} SELECT timestamp_seconds(id), 'b', CAST(id AS INT) + 100 FROM range(20, 60)")
    assert sql_rows(spark, f"SELECT p, count(*), count(DISTINCT ts), min(v), max(v) FROM {t} GROUP BY p ORDER BY p") == [
        ("a", 20, 20, 0, 19), ("b", 40, 40, 120, 159)]


@pytest.mark.parametrize("producer", ["input", "lookup"])
def test_a_moved_key_shows_as_a_delete_and_an_insert_in_the_changelog(spark, warehouse, db, producer):
    t = f"{CAT}.{db}.t"
    create(spark, t, extra={"changelog-producer": producer})
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x', 1), (2, 'a', 'y', 2)")

    def last():
        return sql_rows(spark, f"SELECT max(snapshot_id) FROM {CAT}.{db}.`t$snapshots`")[0][0]

    before = last()  # the lookup producer's changelog of the first write came with its compaction
    spark.sql(f"INSERT INTO {t} VALUES (1, 'b', 'x2', 10)")
    changes = sorted(tuple(r) for r in spark.read.option("incremental-between", f"{before},{last()}")
                     .option("incremental-between-scan-mode", "changelog").table(f"{CAT}.{db}.`t$audit_log`").collect())
    assert changes == [("+I", 1, "b", "x2", 10), ("-D", 1, "a", "x2" if producer == "input" else "x",
                                                   10 if producer == "input" else 1)]


def test_paimon_reads_partial_update_merged_into_the_old_partition(spark, warehouse, db):
    require_paimon()
    t = f"{CAT}.{db}.t"
    create(spark, t, "partial-update")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x', NULL), (2, 'b', NULL, 2)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'c', NULL, 10), (2, 'c', 'y', NULL)")  # merged where the keys are
    out = run_sql(warehouse, [
        f"SELECT k, p, v, n FROM paimon.{db}.t ORDER BY k",
        f"INSERT INTO paimon.{db}.t VALUES (1, 'b', 'z', NULL), (3, 'b', 'w', 3)",
    ])
    assert out[0] == [[1, "a", "x", 10], [2, "b", "y", 2]]
    assert assert_each_key_once(spark, t) == {1: ("a", "z", 10), 2: ("b", "y", 2), 3: ("b", "w", 3)}


# every key moves to another partition: a -D in its old one, the row in its new one
_MOVES = steps("INSERT INTO lamina.{table} SELECT CAST(id AS INT), CAST((id + {r}) % 4 AS INT), {r} "
               "FROM range(0, {n})")


def test_kill_9_during_a_write_leaves_the_last_snapshot(spark, warehouse, db):
    """kill -9 of a writer during its bootstrap scan or its write: the table reads as after some whole
    number of writes, each key once, in the partition that write gave it, and the next write works."""
    n = 40000
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p INT NOT NULL, v INT) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '-1', 'dynamic-bucket.target-row-num' = '5000')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), CAST(id % 4 AS INT), 0 FROM range(0, {n})")
    state = f"SELECT v, count(*), count(DISTINCT k), sum(IF(p = (k + v) % 4, 0, 1)) FROM {t} GROUP BY v"
    nxt = outlive_kills(spark, _MOVES, warehouse, f"{db}.t", state, lambda c: [(c, n, n, 0)], n) + 1
    # the bootstrap scan's shares a killed write left behind are orphans; a whole write removes its own
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), CAST((id + {nxt}) % 4 AS INT), {nxt} FROM range(0, {n})")
    assert sql_rows(spark, state) == [(nxt, n, n, 0)]
    assert not [f for f in (table_path(warehouse, db, "t") / "key-index").rglob("*") if f.is_file()]
