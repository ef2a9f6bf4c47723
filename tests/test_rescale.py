"""`CALL sys.rescale`: a fixed-bucket table's partitions, or the whole table, rewritten into another
bucket count in one commit. After each rescale every key is in the bucket Paimon's hash gives it for
its partition's count (read from the data files, the hash computed here), the rows are unchanged,
earlier snapshots still read as they did, later writes, DML and compactions use each partition's own
count, and a write that read a partition's count before a rescale of it fails instead of landing in
the wrong buckets. Random histories of every merge engine, with deletion vectors on and off, are
checked against the model of `_pk_history`; Paimon's connector and pypaimon read the result."""

import random

import pyarrow.parquet as pq
import pytest

from lamina import LaminaTable

from _buckets import bucket_of, buckets_of_keys
from _kill import outlive_kills, steps
from _pk_history import create_table, engine_pairs, run_history
from _support import error_text, run_concurrently, sql_rows
from paimon_connector import require_paimon, run_sql

CAT = "lamina"


def rescale(spark, table, buckets, partition=None):
    args = f"table => '{table}', bucket_num => {buckets}" + (f", partition => '{partition}'" if partition else "")
    return tuple(spark.sql(f"CALL {CAT}.sys.rescale({args})").collect()[0])


def assert_keys_in_their_buckets(spark, warehouse, db, table, counts, key="k"):
    """Each key of partition P in exactly one bucket, bucket_of(key, counts[P]); `$files` agrees."""
    seen = buckets_of_keys(spark, warehouse, db, table, key)
    for (partition, k), buckets in seen.items():
        assert buckets == {bucket_of(k, counts[partition])}, (partition, k, buckets, counts[partition])
    return seen


def rows(spark, query):
    return sorted(tuple(r) for r in spark.sql(query).collect())


@pytest.mark.parametrize("dv", [False, True], ids=["merge", "dv"])
def test_rescaling_one_partition_moves_its_keys_and_keeps_its_rows(spark, warehouse, db, dv):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '2', 'deletion-vectors.enabled' = '{str(dv).lower()}')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 3 = 0, 'b', 'a'), 'v1' FROM range(60)")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 3 = 0, 'b', 'a'), 'v2' FROM range(40, 80)")
    spark.sql(f"DELETE FROM {t} WHERE k < 5")
    spark.sql(f"UPDATE {t} SET v = 'u' WHERE k BETWEEN 70 AND 74")
    before_id = spark.sql(f"SELECT max(snapshot_id) FROM {CAT}.{db}.`t$snapshots`").collect()[0][0]
    before = rows(spark, f"SELECT * FROM {t}")

    snapshot, partitions = rescale(spark, f"{db}.t", 5, "p=a")
    assert partitions == 1 and snapshot == before_id + 1
    assert rows(spark, f"SELECT * FROM {t}") == before
    assert rows(spark, f"SELECT * FROM {t} VERSION AS OF {before_id}") == before
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 5, "{p=b}": 2})
    assert sql_rows(spark, f"SELECT commit_kind, operation FROM {CAT}.{db}.`t$snapshots` WHERE snapshot_id = {snapshot}") == [
        ("COMPACT", "RESCALE")]
    # one sorted run at the top level per new bucket
    levels = sql_rows(spark, f"SELECT DISTINCT level FROM {CAT}.{db}.`t$files` WHERE partition = '{{p=a}}'")
    assert levels == [(5,)], levels  # num-levels: compaction trigger (5) + 1
    assert len(sql_rows(spark, f"SELECT bucket FROM {CAT}.{db}.`t$files` WHERE partition = '{{p=a}}'")) == 5

    # later writes go to each partition's own count; DML and compaction on top
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 3 = 0, 'b', 'a'), 'v3' FROM range(75, 100)")
    spark.sql(f"DELETE FROM {t} WHERE k BETWEEN 10 AND 14")
    spark.sql(f"MERGE INTO {t} USING (SELECT CAST(id AS INT) k, IF(id % 3 = 0, 'b', 'a') p FROM range(95, 105)) s "
              "ON t.k = s.k AND t.p = s.p WHEN MATCHED THEN UPDATE SET v = 'm' "
              "WHEN NOT MATCHED THEN INSERT (k, p, v) VALUES (s.k, s.p, 'n')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    expected = {}
    for k in range(60):
        expected[k] = "v1"
    for k in range(40, 80):
        expected[k] = "v2"
    for k in list(expected):
        if k < 5 or 10 <= k <= 14:
            del expected[k]
    for k in range(70, 75):
        expected[k] = "u"
    for k in range(75, 100):
        if not 10 <= k <= 14:
            expected[k] = "v3"
    for k in range(95, 105):
        expected[k] = "m" if k in expected else "n"
    assert rows(spark, f"SELECT k, p, v FROM {t}") == sorted(
        (k, "b" if k % 3 == 0 else "a", v) for k, v in expected.items())
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 5, "{p=b}": 2})
    # again at the same count: nothing to do
    assert rescale(spark, f"{db}.t", 5, "p=a") == (None, 0)


def test_rescaling_the_whole_table_changes_its_bucket_option(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '4')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'v' FROM range(50)")
    assert rescale(spark, f"{db}.t", 3, "p=b")[1] == 1
    before = rows(spark, f"SELECT * FROM {t}")
    snapshot, partitions = rescale(spark, f"{db}.t", 3)
    assert partitions == 1  # p=b is already in 3 buckets
    assert rows(spark, f"SELECT * FROM {t}") == before
    assert sql_rows(spark, f"SHOW TBLPROPERTIES {t} ('bucket')")[0][1] == "3"
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'c', 'new' FROM range(20)")
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 3, "{p=b}": 3, "{p=c}": 3})
    # ALTER TABLE changes the count of partitions written later; existing ones keep theirs
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('bucket' = '2')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id < 10, 'a', 'd'), 'later' FROM range(20)")
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 3, "{p=b}": 3, "{p=c}": 3, "{p=d}": 2})
    assert sql_rows(spark, f"SELECT p, count(*) FROM {t} GROUP BY p") == [("a", 30), ("b", 25), ("c", 20), ("d", 10)]
    # the Python API
    table = LaminaTable.for_name(spark, f"{db}.t")
    assert table.rescale(2, partitions=[{"p": "a"}, {"p": "b"}]).first()["num_snapshots"] == 1
    assert table.rescale(2, partitions={"p": "a"}).first()["num_snapshots"] == 0
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 2, "{p=b}": 2, "{p=c}": 3, "{p=d}": 2})
    with pytest.raises(ValueError, match="bucket_num must be an int above 0"):
        table.rescale(0)


def test_an_append_table_keeps_its_rows(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT, seq INT) TBLPROPERTIES ('bucket' = '3', 'bucket-key' = 'k')")
    for i in range(3):
        spark.sql(f"INSERT INTO {t} SELECT CAST(id % 10 AS INT), {i} FROM range(30)")
    before = rows(spark, f"SELECT * FROM {t}")
    assert rescale(spark, f"{db}.t", 2)[1] == 1
    assert rows(spark, f"SELECT * FROM {t}") == before
    files = spark.sql(f"SELECT bucket, file_path FROM {CAT}.{db}.`t$files`").collect()
    for bucket, path in files:
        table = pq.read_table(path)
        ks = table.column("k").to_pylist()
        assert all(bucket_of(k, 2) == bucket for k in ks), (bucket, ks)
    spark.sql(f"INSERT INTO {t} VALUES (1, 9), (2, 9)")
    spark.sql(f"DELETE FROM {t} WHERE k = 9")
    assert sql_rows(spark, f"SELECT count(*) FROM {t}") == [(83,)]


def test_rescale_refusals_name_what_is_wrong(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    with pytest.raises(Exception) as e:
        rescale(spark, f"{db}.t", 0)
    assert "bucket_num must be above 0" in error_text(e)
    with pytest.raises(Exception) as e:
        rescale(spark, f"{db}.t", 3, "p=zz")
    assert "no partition matches 'p=zz'" in error_text(e)
    with pytest.raises(Exception) as e:
        rescale(spark, f"{db}.t", 3, "q=1")
    assert "'q' is not a partition column" in error_text(e)
    with pytest.raises(Exception) as e:
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('bucket' = '-1')")
    assert "only a fixed bucket count" in error_text(e)
    spark.sql(f"CREATE TABLE {CAT}.{db}.d (k INT NOT NULL, v INT) TBLPROPERTIES ('primary-key' = 'k')")
    with pytest.raises(Exception) as e:
        rescale(spark, f"{db}.d", 3)
    assert f"{db}.d" in error_text(e) and "fixed bucket count" in error_text(e)
    assert sql_rows(spark, f"SELECT * FROM {t}") == [(1, "a")]


HISTORIES = engine_pairs()


@pytest.mark.parametrize("engine,dv", HISTORIES,
                         ids=lambda v: v if isinstance(v, str) else ("dv" if v else "merge"))
def test_random_histories_with_rescales_match_the_model(spark, warehouse, db, engine, dv):
    rnd = random.Random(20261129 + len(engine) + (7 if dv else 0))
    name = f"{CAT}.{db}.t"
    ordered = create_table(spark, name, engine, {"deletion-vectors.enabled": "true"} if dv else None)
    count = [2]

    def check(step, model):
        if step % 2 == 1:
            count[0] = rnd.choice([c for c in (1, 3, 4, 7) if c != count[0]])
            rescale(spark, f"{db}.t", count[0])
        assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == model.expected(), step
        assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{}": count[0]})

    model = run_history(spark, db, name, engine, ordered, rnd, 7, check)
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == model.expected()


def test_writers_racing_rescales_either_commit_or_conflict(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, w INT) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'a', -1 FROM range(20)")
    committed, rescaled, conflicts = [], [], []

    def writer():
        for i in range(6):
            try:
                spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'a', {i} FROM range({100 + 10 * i}, {110 + 10 * i})")
                committed.append(i)
            except Exception as e:  # a conflict, named as one
                assert "conflicts with a concurrent commit" in str(e), str(e)
                conflicts.append(i)

    def rescaler():
        for n in (3, 5, 2, 4):
            try:
                rescale(spark, f"{db}.t", n, "p=a")
                rescaled.append(n)
            except Exception as e:
                assert "conflicts with a concurrent commit" in str(e), str(e)
                conflicts.append(n)

    assert run_concurrently([writer, rescaler]) == []
    assert rescaled and committed, (rescaled, committed, conflicts)
    # the rescaler's last landed count is the partition's
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": rescaled[-1] if rescaled else 2})
    expected = sorted([(k, "a", -1) for k in range(20)] +
                      [(k, "a", i) for i in committed for k in range(100 + 10 * i, 110 + 10 * i)])
    assert rows(spark, f"SELECT * FROM {t}") == expected
    # the next write works and lands in the partition's count
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 99)")
    assert sql_rows(spark, f"SELECT w FROM {t} WHERE k = 1") == [(99,)]


def test_paimon_and_pypaimon_read_a_rescaled_table(spark, warehouse, db, paimon_catalog):
    require_paimon()
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '2', 'file.format' = 'parquet')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'v' FROM range(40)")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'a', 'w' FROM range(0, 40, 4)")
    rescale(spark, f"{db}.t", 5, "p=a")
    expected = rows(spark, f"SELECT * FROM {t}")
    table = paimon_catalog.get_table(f"{db}.t")
    builder = table.new_read_builder()
    read = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    assert sorted((r["k"], r["p"], r["v"]) for r in read) == expected
    # Paimon writes into the partition still in the table's count, and reads everything
    out = run_sql(warehouse, [f"INSERT INTO paimon.{db}.t VALUES (1, 'b', 'paimon'), (3, 'b', 'paimon')",
                              f"SELECT k, p, v FROM paimon.{db}.t"])
    assert sorted(tuple(r) for r in out[1]) == sorted(
        [r for r in expected if r[0] not in (1, 3)] + [(1, "b", "paimon"), (3, "b", "paimon")])
    assert rows(spark, f"SELECT * FROM {t}") == sorted(tuple(r) for r in out[1])
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 5, "{p=b}": 2})


_RESCALES = steps("INSERT INTO lamina.{table} SELECT CAST(id AS INT), {r} FROM range(0, {n})",
                  "CALL lamina.sys.rescale(table => '{table}', bucket_num => {buckets})")


def test_kill_9_during_a_rescale_leaves_the_last_snapshot(spark, warehouse, db):
    """kill -9 of a writer during its writes and rescales: the table reads as after some whole number of
    them, each key once, every key in the bucket Paimon's hash gives it for one count; the next write and
    rescale work."""
    n = 30000
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, v INT) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 0 FROM range(0, {n})")
    state = f"SELECT v, count(*), count(DISTINCT k) FROM {t} GROUP BY v"

    def assert_one_count():
        seen = buckets_of_keys(spark, warehouse, db, "t")
        assert all(len(b) == 1 for b in seen.values()), {k: b for k, b in seen.items() if len(b) > 1}
        counts = [c for c in (2, 3, 4) if all(b == {bucket_of(k, c)} for (_, k), b in seen.items())]
        assert counts, "the keys are not in the buckets of any one count"

    nxt = outlive_kills(spark, _RESCALES, warehouse, f"{db}.t", state, lambda c: [(c, n, n)], n,
                        check=assert_one_count) + 1
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), {nxt} FROM range(0, {n})")
    rescale(spark, f"{db}.t", 3)
    assert sql_rows(spark, state) == [(nxt, n, n)]
    assert_one_count()
