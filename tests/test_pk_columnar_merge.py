"""Merge-on-read handing Spark columnar batches: whole batches that one sorted run alone covers go
through as they are, merged records in batches of their own. Small reader batches make many of both
out of little data; every read is checked against a model of the table."""

import datetime
import random
from decimal import Decimal
from pathlib import Path

import pytest

from _support import sorted_tuples, sql_rows, table_path

CAT = "lamina"


@pytest.fixture
def small_batches(spark):
    key = "spark.sql.parquet.columnarReaderBatchSize"
    old = spark.conf.get(key)
    spark.conf.set(key, "64")
    yield
    spark.conf.set(key, old)


def plan_of(spark, query):
    df = spark.sql(query)
    df.collect()
    return df._jdf.queryExecution().executedPlan().toString()


def test_columnar_merge_matches_the_model(spark, db, small_batches):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v BIGINT, s STRING, d DECIMAL(10, 2), b BOOLEAN, dt DATE) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'write-only' = 'true')")
    model = {}
    rnd = random.Random(7)

    def upsert(ids, salt):
        rows = []
        for i in ids:
            s = None if rnd.random() < 0.1 else f"s{i}-{salt}"
            row = (i, i * 7 + salt, s, Decimal(i % 1000) / 100, i % 3 == 0, datetime.date(2026, 1, 1 + i % 28))
            model[i] = row
            rows.append(row)
        spark.createDataFrame(rows, "id BIGINT, v BIGINT, s STRING, d DECIMAL(10, 2), b BOOLEAN, dt DATE") \
            .writeTo(t).append()

    upsert(range(0, 5000), 0)                                   # one long run per bucket
    upsert(list(range(1000, 1200)) + list(range(5000, 5300)), 1)  # overlaps, then new keys past the end
    upsert(range(3000, 3100, 3), 2)                             # sparse overlap
    spark.sql(f"DELETE FROM {t} WHERE id BETWEEN 2000 AND 2049 OR id IN (5100, 5101, 4999)")
    for i in list(range(2000, 2050)) + [5100, 5101, 4999]:
        model.pop(i, None)
    upsert(range(4990, 5010), 3)                                # across a run's end

    expected = sorted_tuples(model.values())
    assert sql_rows(spark, f"SELECT * FROM {t}") == expected
    assert "ColumnarToRow" in plan_of(spark, f"SELECT * FROM {t}"), "the columnar merge was not used"
    # a projection, a value filter above the merge, and an aggregate over the batches
    assert sql_rows(spark, f"SELECT s, id FROM {t} WHERE v % 5 = 1") == \
        sorted_tuples((r[2], r[0]) for r in expected if r[1] % 5 == 1)
    assert sql_rows(spark, f"SELECT count(*), sum(v), count(s) FROM {t}") == \
        [(len(expected), sum(r[1] for r in expected), sum(1 for r in expected if r[2] is not None))]

    # a column added later: absent from the older files, null there
    spark.sql(f"ALTER TABLE {t} ADD COLUMN extra INT")
    spark.sql(f"INSERT INTO {t} VALUES (42, 1, 'late', 1.00, true, DATE'2026-02-01', 9)")
    model[42] = (42, 1, "late", Decimal("1.00"), True, datetime.date(2026, 2, 1))
    got = sql_rows(spark, f"SELECT id, v, s, extra FROM {t}")
    assert got == sorted_tuples((r[0], r[1], r[2], 9 if r[0] == 42 else None) for r in model.values())


@pytest.mark.parametrize("buckets", [2, 4])  # one task per bucket (2 <= shuffle partitions); by bucket id (4 > 2)
def test_writes_cluster_rows_by_paimon_bucket(spark, db, warehouse, buckets):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v STRING) "
              f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '{buckets}', 'write-only' = 'true')")
    spark.range(0, 20000).selectExpr("id", "CAST(id AS STRING) AS v").writeTo(t).append()
    root = table_path(warehouse, db, "t")
    dirs = sorted(p for p in Path(root).glob("bucket-*"))
    assert [len(list(b.glob("*.parquet"))) for b in dirs] == [1] * buckets, "one file per bucket"
    # the catalog's bucket function agrees with where every row was written
    for b in dirs:
        n = int(b.name.split("-")[1])
        keys = spark.read.parquet(str(next(b.glob("*.parquet")))).selectExpr("_KEY_id AS id")
        keys.createOrReplaceTempView("keys_in_bucket")
        assert sql_rows(spark, f"SELECT DISTINCT {CAT}.bucket({buckets}, id) FROM keys_in_bucket") == [(n,)]


def test_partitioned_writes_cluster_by_partition_and_bucket(spark, db, warehouse):
    t = f"{CAT}.{db}.p"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, day STRING, v STRING) PARTITIONED BY (day) "
              "TBLPROPERTIES ('primary-key' = 'id,day', 'bucket' = '3', 'write-only' = 'true')")
    spark.range(0, 9000).selectExpr("id", "IF(id % 2 = 0, 'a', 'b') AS day", "CAST(id AS STRING) AS v") \
        .writeTo(t).append()
    root = Path(table_path(warehouse, db, "p"))
    counts = sorted((d.parent.name, d.name, len(list(d.glob("*.parquet")))) for d in root.glob("day=*/bucket-*"))
    assert counts == [(day, f"bucket-{b}", 1) for day in ("day=a", "day=b") for b in range(3)]
    assert sql_rows(spark, f"SELECT count(*), count(DISTINCT id) FROM {t}") == [(9000, 9000)]
