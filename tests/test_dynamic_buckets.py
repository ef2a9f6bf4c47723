"""Dynamic buckets (`bucket` = -1 on a primary-key table): keys are assigned to buckets through the
table's hash index, a bucket taking `dynamic-bucket.target-row-num` keys before the next opens. Checked
against a model over random histories of every merge engine with and without deletion vectors,
with concurrent writers, overwrites, bucket limits, a changelog producer and a streaming sink; after
each, no key lives in two buckets (read from the data files themselves) and the hash index lists
exactly the keys of each bucket."""

import random
import struct

import pytest

import lamina
from _pk_history import ENGINES, create_table, run_history
from _buckets import buckets_of_keys, key_hash
from _kill import outlive_kills, steps
from _support import changes_between, run_concurrently, sql_rows, table_path

CAT = "lamina"


def _hash_index(spark, warehouse, db, table):
    """{(partition, bucket): [hashes]} read from the table's HASH index files."""
    out = {}
    rows = spark.sql(f"SELECT partition, bucket, index_type, file_name, row_count FROM {CAT}.{db}.`{table}$table_indexes`"
                     ).collect()
    for partition, bucket, kind, name, count in rows:
        if kind != "HASH":
            continue
        data = (table_path(warehouse, db, table) / "index" / name).read_bytes()
        assert len(data) == 4 * count
        assert (partition, bucket) not in out, "two hash index files for one bucket"
        out[(partition, bucket)] = list(struct.unpack(f">{count}i", data))
    return out


def assert_one_bucket_per_key(spark, warehouse, db, table, key="k"):
    """No key in two buckets of its partition, and each key's hash in the hash index of its bucket
    (which may also keep keys deleted since)."""
    seen = buckets_of_keys(spark, warehouse, db, table, key)
    twice = {k: b for k, b in seen.items() if len(b) > 1}
    assert not twice, f"keys in two buckets: {twice}"
    index = _hash_index(spark, warehouse, db, table)
    for (partition, bucket), hs in index.items():
        assert len(set(hs)) == len(hs), f"a hash twice in the index of bucket {bucket}"
    where = {(partition, h): bucket for (partition, bucket), hs in index.items() for h in hs}
    for (partition, k), buckets in seen.items():
        assert where.get((partition, key_hash(k))) == next(iter(buckets)), (partition, k, buckets)
    return seen, index


def test_keys_fill_buckets_to_the_target_and_keep_their_bucket(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'dynamic-bucket.target-row-num' = '10')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'v1' FROM range(100)")
    seen, index = assert_one_bucket_per_key(spark, warehouse, db, "t")
    assert all(len(hs) <= 10 for hs in index.values()), {b: len(hs) for b, hs in index.items()}
    assert sum(len(hs) for hs in index.values()) == 100
    # 50 keys in each partition, about half in each of the write's 2 assigner groups, which open their own
    assert 5 <= len([b for p, b in index if p == "{p=a}"]) <= 7
    # upserts of known keys and new keys: the known keys stay where they are
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'v2' FROM range(50, 130)")
    after, index = assert_one_bucket_per_key(spark, warehouse, db, "t")
    assert {k: b for k, b in after.items() if k in seen} == seen
    assert sum(len(hs) for hs in index.values()) == 130
    assert sql_rows(spark, f"SELECT v, count(*) FROM {t} GROUP BY v") == [("v1", 50), ("v2", 80)]
    # row-level DML and compaction on top
    spark.sql(f"DELETE FROM {t} WHERE k < 10")
    spark.sql(f"UPDATE {t} SET v = 'u' WHERE k >= 120")
    spark.sql(f"MERGE INTO {t} USING (SELECT CAST(id AS INT) k, IF(id % 2 = 0, 'a', 'b') p FROM range(125, 140)) s "
              "ON t.k = s.k AND t.p = s.p WHEN MATCHED THEN UPDATE SET v = 'm' "
              "WHEN NOT MATCHED THEN INSERT (k, p, v) VALUES (s.k, s.p, 'n')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sql_rows(spark, f"SELECT v, count(*) FROM {t} GROUP BY v") == [
        ("m", 5), ("n", 10), ("u", 5), ("v1", 40), ("v2", 70)]
    assert sql_rows(spark, f"SELECT count(*), count(DISTINCT k) FROM {t}") == [(130, 130)]
    assert_one_bucket_per_key(spark, warehouse, db, "t")


def test_max_buckets_bounds_each_partition(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, v INT) TBLPROPERTIES ('primary-key' = 'k', "
              "'dynamic-bucket.target-row-num' = '5', 'dynamic-bucket.max-buckets' = '3')")
    for start in (0, 30):
        spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 1 FROM range({start}, {start + 30})")
    _, index = assert_one_bucket_per_key(spark, warehouse, db, "t")
    assert {b for _, b in index} <= {0, 1, 2}
    assert sum(len(hs) for hs in index.values()) == 60
    assert sql_rows(spark, f"SELECT count(*), sum(v) FROM {t}") == [(60, 60)]


def test_an_overwrite_starts_the_partitions_it_replaces_afresh(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'dynamic-bucket.target-row-num' = '10')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id < 40, 'a', 'b'), 'old' FROM range(60)")
    before = _hash_index(spark, warehouse, db, "t")
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (p = 'a') SELECT CAST(id AS INT), 'new' FROM range(5)")
    index = _hash_index(spark, warehouse, db, "t")
    assert {b: h for b, h in index.items() if b[0] == "{p=b}"} == {b: h for b, h in before.items() if b[0] == "{p=b}"}
    assert sum(len(h) for b, h in index.items() if b[0] == "{p=a}") == 5
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'a', 'again' FROM range(3, 8)")
    assert sql_rows(spark, f"SELECT p, v, count(*) FROM {t} GROUP BY p, v") == [
        ("a", "again", 5), ("a", "new", 3), ("b", "old", 20)]
    assert_one_bucket_per_key(spark, warehouse, db, "t")
    spark.sql(f"TRUNCATE TABLE {t}")
    assert _hash_index(spark, warehouse, db, "t") == {}


# first-row takes no deletion vectors (it never deletes an older row)
CASES = [(e, False) for e in ENGINES] + [(e, True) for e in ENGINES if e != "first-row"]


@pytest.mark.parametrize("engine, dv", CASES, ids=[f"{e}{'-dv' if dv else ''}" for e, dv in CASES])
def test_random_histories_match_the_model(spark, warehouse, db, engine, dv):
    rnd = random.Random(20261128 + len(engine) + (7 if dv else 0))
    name = f"{CAT}.{db}.t"
    extra = {"bucket": "-1", "dynamic-bucket.target-row-num": "4"}
    if dv:
        extra["deletion-vectors.enabled"] = "true"
    ordered = create_table(spark, name, engine, extra)

    def check(step, model):
        assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == model.expected(), step
        assert_one_bucket_per_key(spark, warehouse, db, "t")

    model = run_history(spark, db, name, engine, ordered, rnd, 8, check)
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == model.expected()


def test_concurrent_writers_never_put_a_key_in_two_buckets(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', "
              "'dynamic-bucket.target-row-num' = '8')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'base' FROM range(10)")
    committed = {}

    def writer(w):
        def run():
            for n in range(3):
                # overlapping new keys, and known ones
                keys = list(range(5 + n * 7, 25 + n * 7))
                try:
                    spark.sql(f"INSERT INTO {t} VALUES " + ", ".join(f"({k}, 'w{w}')" for k in keys))
                    committed.setdefault(w, []).append(keys)
                except lamina.CommitConflictException as e:
                    assert "dynamic-bucket index" in str(e)
        return run

    assert run_concurrently([writer(w) for w in range(3)]) == []
    expected = set(range(10)) | {k for ks in committed.values() for batch in ks for k in batch}
    assert sql_rows(spark, f"SELECT count(*), count(DISTINCT k) FROM {t}") == [(len(expected), len(expected))]
    assert {k for (k,) in sql_rows(spark, f"SELECT k FROM {t}")} == expected
    seen, index = assert_one_bucket_per_key(spark, warehouse, db, "t")
    assert sum(len(h) for h in index.values()) == len(expected)


def test_lookup_changelog_and_a_streaming_sink(spark, warehouse, db, tmp_path):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', "
              "'dynamic-bucket.target-row-num' = '3', 'changelog-producer' = 'lookup')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    first = sql_rows(spark, f"SELECT max(snapshot_id) FROM {CAT}.{db}.`t$snapshots`")[0][0]
    spark.sql(f"INSERT INTO {t} VALUES (2, 'B'), (5, 'e')")
    last = sql_rows(spark, f"SELECT max(snapshot_id) FROM {CAT}.{db}.`t$snapshots`")[0][0]
    assert changes_between(spark, t, first, last) == [("+I", 5, "e"), ("+U", 2, "B"), ("-U", 2, "b")]
    # a streaming sink assigns its keys through the same index, batch after batch
    source = tmp_path / "source"
    spark.range(0, 10).selectExpr("CAST(id AS INT) AS k", "'s1' AS v").write.parquet(str(source / "1"))
    query = (spark.readStream.schema("k INT, v STRING").parquet(str(source / "*"))
             .writeStream.option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).toTable(t))
    query.awaitTermination()
    spark.range(5, 15).selectExpr("CAST(id AS INT) AS k", "'s2' AS v").write.parquet(str(source / "2"))
    query = (spark.readStream.schema("k INT, v STRING").parquet(str(source / "*"))
             .writeStream.option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).toTable(t))
    query.awaitTermination()
    assert sql_rows(spark, f"SELECT v, count(*) FROM {t} GROUP BY v") == [("s1", 5), ("s2", 10)]
    assert_one_bucket_per_key(spark, warehouse, db, "t")


# every key so far again, and `n` new ones: known keys keep their buckets, new ones open buckets
_KILL_STEPS = steps("INSERT INTO lamina.{table} SELECT CAST(id AS INT), {r} FROM range(0, ({r} + 1) * {n})")


def test_kill_9_during_bucket_assignment_leaves_the_last_snapshot(spark, warehouse, db):
    """kill -9 of a writer while it assigns buckets and writes hash index files: the table reads as after
    some whole number of writes, each key once in one bucket, and the next write works."""
    per = 15000
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, v INT) TBLPROPERTIES ('primary-key' = 'k', "
              f"'dynamic-bucket.target-row-num' = '{per}', 'write-only' = 'true')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 0 FROM range(0, {per})")
    committed = outlive_kills(spark, _KILL_STEPS, warehouse, f"{db}.t",
                              f"SELECT v, count(*), count(DISTINCT k), max(k) FROM {t} GROUP BY v",
                              lambda c: [(c, (c + 1) * per, (c + 1) * per, (c + 1) * per - 1)], per,
                              check=lambda: assert_one_bucket_per_key(spark, warehouse, db, "t"), rounds=2,
                              seed=20261128)
    nxt = committed + 1
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), {nxt} FROM range(0, {(nxt + 1) * per})")
    assert sql_rows(spark, f"SELECT v, count(*), count(DISTINCT k) FROM {t} GROUP BY v") == [
        (nxt, (nxt + 1) * per, (nxt + 1) * per)]
    assert_one_bucket_per_key(spark, warehouse, db, "t")


def test_pypaimon_reads_a_dynamic_bucket_table(spark, warehouse, db, paimon_catalog):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'dynamic-bucket.target-row-num' = '10')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'v1' FROM range(100)")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'v2' FROM range(50, 120)")
    spark.sql(f"DELETE FROM {t} WHERE k < 5")
    builder = paimon_catalog.get_table(f"{db}.t").new_read_builder()
    rows = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    assert sorted((r["k"], r["p"], r["v"]) for r in rows) == sorted(
        tuple(r) for r in spark.sql(f"SELECT k, p, v FROM {t}").collect())
    assert len(rows) == 115


@pytest.mark.parametrize("partitioned", [False, True])
def test_keys_the_bucket_functions_cannot_hash_are_assigned_in_one_task_per_partition(spark, db, partitioned):
    """A timestamp key: rows are clustered by partition (one task for an unpartitioned table), and its
    task assigns every key of the partition."""
    t = f"{CAT}.{db}.t"
    part = ", p STRING NOT NULL) PARTITIONED BY (p" if partitioned else ""
    spark.sql(f"CREATE TABLE {t} (ts TIMESTAMP NOT NULL, v INT{part}) TBLPROPERTIES "
              f"('primary-key' = '{'ts,p' if partitioned else 'ts'}', 'dynamic-bucket.target-row-num' = '7')")
    select = "timestamp_seconds(id), CAST(id AS INT)" + (", IF(id % 2 = 0, 'a', 'b')" if partitioned else "")
    spark.sql(f"INSERT INTO {t} SELECT {select} FROM range(40)")
    spark.sql(f"INSERT INTO {t} SELECT {select.replace('CAST(id AS INT)', 'CAST(id AS INT) + 100')} FROM range(20, 60)")
    assert sql_rows(spark, f"SELECT count(*), count(DISTINCT ts), sum(IF(v >= 100, 1, 0)) FROM {t}") == [(60, 60, 40)]
    counts = [c for (c,) in sql_rows(spark, f"SELECT row_count FROM {CAT}.{db}.`t$table_indexes`")]
    assert sum(counts) == 60 and max(counts) <= 7 and len(counts) >= 9, counts
