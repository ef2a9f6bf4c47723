"""Postponed buckets (`bucket` = -2 on a primary-key table), as Paimon's Spark writers use them: a batch
write puts each partition's rows straight into fixed buckets, a partition's first write choosing its
count (the write's tasks), later writes keeping it; files that Paimon's streaming writers leave in
`bucket-postpone` are read by no one until a compaction (Paimon's or Lamina's,
tests/test_postpone_compact.py) assigns them. Each check reads the data
files: every key in the bucket Paimon's hash gives it for its partition's count."""

import pytest

from _buckets import bucket_of, buckets_of_keys
from _support import error_text, sql_rows
from paimon_connector import require_paimon, run_sql
from test_rescale import assert_keys_in_their_buckets, rescale, rows

CAT = "lamina"


def count_of(spark, warehouse, db, partition):
    """The bucket count that puts every key of `partition` in the bucket its data files hold it in."""
    seen = {k: bs for (p, k), bs in buckets_of_keys(spark, warehouse, db, "t").items() if p == partition}
    fits = [n for n in range(1, 65) if all(bs == {bucket_of(k, n)} for k, bs in seen.items())]
    assert fits, f"no bucket count places the keys of {partition}"
    return fits[0]


def test_partitions_keep_the_count_of_their_first_write(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '-2')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), 'a', 'v1' FROM range(40)")  # default parallelism: 2
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('postpone.batch-write-fixed-bucket.max-parallelism' = '1')")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id < 20, 'a', 'b'), 'v2' FROM range(10, 50)")
    counts = {"{p=a}": 2, "{p=b}": 1}
    assert_keys_in_their_buckets(spark, warehouse, db, "t", counts)
    spark.sql(f"DELETE FROM {t} WHERE k < 5")
    spark.sql(f"UPDATE {t} SET v = 'u' WHERE k BETWEEN 45 AND 47")
    spark.sql(f"MERGE INTO {t} USING (SELECT CAST(id AS INT) k FROM range(48, 53)) s ON t.k = s.k AND t.p = 'b' "
              "WHEN MATCHED THEN UPDATE SET v = 'm' WHEN NOT MATCHED THEN INSERT (k, p, v) VALUES (s.k, 'b', 'n')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    expected = {(k, "a"): "v1" for k in range(5, 40)}
    expected.update({(k, "a"): "v2" for k in range(10, 20)})
    expected.update({(k, "b"): "v2" for k in range(20, 45)})
    expected.update({(k, "b"): "u" for k in range(45, 48)})
    expected.update({(k, "b"): "m" for k in (48, 49)})
    expected.update({(k, "b"): "n" for k in (50, 51, 52)})
    assert rows(spark, f"SELECT * FROM {t}") == sorted((k, p, v) for (k, p), v in expected.items())
    assert_keys_in_their_buckets(spark, warehouse, db, "t", counts)
    # a partition's count changes by a rescale only; the table stays postponed
    rescale(spark, f"{db}.t", 4, "p=a")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'again'), (60, 'c', 'new')")
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {"{p=a}": 4, "{p=b}": 1, "{p=c}": 1})
    assert sql_rows(spark, f"SHOW TBLPROPERTIES {t} ('bucket')")[0][1] == "-2"


def test_postponed_buckets_need_a_primary_key(spark, db):
    with pytest.raises(Exception) as e:
        spark.sql(f"CREATE TABLE {CAT}.{db}.a (k INT, v STRING) TBLPROPERTIES ('bucket' = '-2')")
    assert "-2 (postponed buckets) on a table with a primary key" in error_text(e)


def create_in_paimon(warehouse, db, statements, options=""):
    """Creates t (k, p, v), keyed by (k, p), partitioned by p, with postponed buckets and `options`, through
    Paimon's connector, and runs `statements` there."""
    require_paimon()
    run_sql(warehouse, [
        f"CREATE DATABASE IF NOT EXISTS paimon.{db}",
        f"CREATE TABLE paimon.{db}.t (k INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
        f"TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '-2', 'file.format' = 'parquet'{options})",
        *statements,
    ])


def test_shared_with_paimon_both_ways(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    # Paimon's batch writes into fixed buckets; Lamina reads, writes, rescales
    create_in_paimon(warehouse, db,
                     [f"INSERT INTO paimon.{db}.t SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'paimon' FROM range(30)"])
    assert sql_rows(spark, f"SELECT count(*) FROM {t}") == [(30,)]
    counts = {p: count_of(spark, warehouse, db, p) for p in ("{p=a}", "{p=b}")}
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'c'), 'lamina' FROM range(20, 40)")
    expected = rows(spark, f"SELECT * FROM {t}")
    assert len(expected) == 45  # 30, 5 new keys in a, 10 in c
    # Paimon reads Lamina's writes; its streaming-style writes wait in bucket-postpone, unread by both
    out = run_sql(warehouse, [
        f"SELECT k, p, v FROM paimon.{db}.t",
        f"ALTER TABLE paimon.{db}.t SET TBLPROPERTIES ('postpone.batch-write-fixed-bucket' = 'false')",
        f"INSERT INTO paimon.{db}.t VALUES (100, 'a', 'waiting')",
        f"SELECT count(*) FROM paimon.{db}.t",
    ])
    assert sorted(tuple(r) for r in out[0]) == expected, sorted(set(tuple(r) for r in out[0]) ^ set(expected))
    assert out[3] == [[45]]
    waiting = sql_rows(spark, f"SELECT bucket FROM {CAT}.{db}.`t$files` WHERE bucket = -2")
    assert waiting, "Paimon's write should have left a file in bucket-postpone"
    assert rows(spark, f"SELECT * FROM {t}") == expected
    # Lamina's writes wait there too (the option is the table's now); Paimon's compaction assigns both,
    # and Lamina reads them in the partition's count
    spark.sql(f"INSERT INTO {t} VALUES (101, 'a', 'lamina waiting')")
    assert len(sql_rows(spark, f"SELECT bucket FROM {CAT}.{db}.`t$files` WHERE bucket = -2")) == len(waiting) + 1
    run_sql(warehouse, [f"CALL paimon.sys.compact(table => '{db}.t')"])
    assert rows(spark, f"SELECT * FROM {t} WHERE k >= 100") == [(100, "a", "waiting"), (101, "a", "lamina waiting")]
    assert_keys_in_their_buckets(spark, warehouse, db, "t", {**counts, "{p=c}": 2})
