"""Bucket -1 (unaware) and fixed buckets with a bucket key; assignment matches Apache Paimon's."""

import re

import pyarrow as pa
import pyarrow.parquet as pq

from _support import data_files, sql_rows, table_path

CAT = "lamina"
BUCKET_DIR = re.compile(r"(?:^|/)bucket-(\d+)/")


def ids_by_bucket(warehouse, db, table):
    """{bucket: sorted ids} read straight from the data files."""
    found = {}
    for f in data_files(warehouse, db, table):
        bucket = int(BUCKET_DIR.search(f).group(1))
        ids = pq.read_table(table_path(warehouse, db, table) / f, columns=["id"]).column("id").to_pylist()
        found.setdefault(bucket, []).extend(ids)
    return {b: sorted(ids) for b, ids in found.items()}


def test_unaware_bucket_writes_bucket_0(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT) TBLPROPERTIES ('bucket' = '-1')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT id FROM range(0, 20)")
    assert set(ids_by_bucket(warehouse, db, "t")) == {0}
    assert sql_rows(spark, f"SELECT count(*), sum(id) FROM {CAT}.{db}.t") == [(20, 190)]


def test_fixed_buckets_hold_each_key_in_exactly_one_bucket(spark, warehouse, db):
    spark.sql(f"""CREATE TABLE {CAT}.{db}.t (id INT, v STRING)
                  TBLPROPERTIES ('bucket' = '4', 'bucket-key' = 'id')""")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT CAST(id AS INT), CAST(id AS STRING) FROM range(0, 40)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT CAST(id AS INT), 'again' FROM range(0, 40)")
    by_bucket = ids_by_bucket(warehouse, db, "t")
    assert set(by_bucket) <= {0, 1, 2, 3}
    assert len(by_bucket) >= 2, by_bucket
    seen = {}
    for bucket, ids in by_bucket.items():
        for i in ids:
            seen.setdefault(i, set()).add(bucket)
    assert sorted(seen) == list(range(40))
    assert all(len(b) == 1 for b in seen.values()), seen
    assert sql_rows(spark, f"SELECT count(*), count(DISTINCT id) FROM {CAT}.{db}.t") == [(80, 40)]
    assert sql_rows(spark, f"SELECT v FROM {CAT}.{db}.t WHERE id = 7") == [("7",), ("again",)]


def test_partitioned_fixed_bucket_layout(spark, warehouse, db):
    spark.sql(f"""CREATE TABLE {CAT}.{db}.t (id INT, p STRING) PARTITIONED BY (p)
                  TBLPROPERTIES ('bucket' = '2', 'bucket-key' = 'id')""")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT CAST(id AS INT), IF(id % 2 = 0, 'even', 'odd') FROM range(0, 20)")
    files = data_files(warehouse, db, "t")
    assert all(re.match(r"^p=(even|odd)/bucket-[01]/data-[0-9a-f-]{36}-\d+\.parquet$", f) for f in files), files
    assert sql_rows(spark, f"SELECT p, count(*) FROM {CAT}.{db}.t GROUP BY p") == [("even", 10), ("odd", 10)]


def test_bucket_assignment_matches_paimon(spark, warehouse, db, paimon_catalog):
    """The same keys land in the same bucket numbers whether Lamina or pypaimon writes them."""
    from pypaimon import Schema

    ids = list(range(0, 64))
    options = {"bucket": "5", "bucket-key": "id"}
    schema = pa.schema([("id", pa.int32()), ("s", pa.string())])
    paimon_catalog.create_table(f"{db}.by_paimon", Schema.from_pyarrow_schema(schema, options=options), False)
    table = paimon_catalog.get_table(f"{db}.by_paimon")
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.table({"id": pa.array(ids, pa.int32()), "s": [str(i) for i in ids]}))
    commit.commit(write.prepare_commit())
    write.close()
    commit.close()

    spark.sql(f"""CREATE TABLE {CAT}.{db}.by_lamina (id INT, s STRING)
                  TBLPROPERTIES ('bucket' = '5', 'bucket-key' = 'id')""")
    spark.sql(f"INSERT INTO {CAT}.{db}.by_lamina SELECT id, CAST(id AS STRING) FROM {CAT}.{db}.by_paimon")

    assert ids_by_bucket(warehouse, db, "by_lamina") == ids_by_bucket(warehouse, db, "by_paimon")


def test_bucket_function_of_non_null_and_nullable_keys_agree(spark):
    """A non-null BIGINT, INT or DATE key runs through the function's generated-code path, a nullable
    one through the row path: both give Paimon's bucket, and a null key gets the bucket of a null."""
    got = sql_rows(spark, f"""
        SELECT count(*), count_if(b_long != b_long_n), count_if(b_int != b_int_n), count_if(b_date != b_date_n)
        FROM (SELECT {CAT}.bucket(5, id) AS b_long, {CAT}.bucket(5, IF(id < 0, NULL, id)) AS b_long_n,
                     {CAT}.bucket(7, CAST(id AS INT)) AS b_int,
                     {CAT}.bucket(7, IF(id < 0, NULL, CAST(id AS INT))) AS b_int_n,
                     {CAT}.bucket(3, date_add(DATE'2020-01-01', CAST(id AS INT))) AS b_date,
                     {CAT}.bucket(3, IF(id < 0, NULL, date_add(DATE'2020-01-01', CAST(id AS INT)))) AS b_date_n
              FROM range(0, 3000000, 997))""")
    assert got == [(len(range(0, 3000000, 997)), 0, 0, 0)]
    nulls = sql_rows(spark, f"""
        SELECT DISTINCT {CAT}.bucket(5, IF(id < 0, NULL, id)) = {CAT}.bucket(5, CAST(NULL AS BIGINT)),
                        {CAT}.bucket(7, IF(id < 0, NULL, CAST(id AS INT))) = {CAT}.bucket(7, CAST(NULL AS INT))
        FROM range(-3000, 0, 7)""")
    assert nulls == [(True, True)]
