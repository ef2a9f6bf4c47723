"""Record-level expiration (`record-level.expire-time` over `record-level.time-field`, Paimon's
semantics): a primary-key table's compaction drops the records whose time plus the expire time lies
in the past; reads do not filter. Paimon's connector compacts Lamina's tables so, and the other way."""

import time

import pytest

from _support import sql_rows
from paimon_connector import require_paimon, run_sql

CAT = "lamina"
DAY = 24 * 3600
PROPS = ("'primary-key' = 'id', 'bucket' = '1', 'record-level.expire-time' = '1 d', "
         "'record-level.time-field' = 'ts'")


def rows_sql(table, now):
    """Ids 1..4: 1 two days old (seconds), 2 now, 3 two days old in milliseconds, 4 without a time."""
    return (f"INSERT INTO {table} VALUES (1, 'old', {now - 2 * DAY}), (2, 'new', {now}), "
            f"(3, 'old-ms', {(now - 2 * DAY) * 1000}), (4, 'null', NULL)")


def ids(spark, table):
    return [r[0] for r in sql_rows(spark, f"SELECT id FROM {table} ORDER BY id")]


def test_compaction_drops_expired_records_and_reads_do_not(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING, ts BIGINT) TBLPROPERTIES ({PROPS}, "
              "'num-sorted-run.compaction-trigger' = '10')")
    now = int(time.time())
    spark.sql(rows_sql(t, now))
    spark.sql(f"INSERT INTO {t} VALUES (5, 'recent', {now - 3600})")
    assert ids(spark, t) == [1, 2, 3, 4, 5]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert ids(spark, t) == [2, 4, 5]
    # all in one top-level run now: a shorter expire time makes a full compaction rewrite the file
    # whose oldest time has expired
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('record-level.expire-time' = '30 min')")
    assert ids(spark, t) == [2, 4, 5]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert ids(spark, t) == [2, 4]


def test_timestamp_fields_deletion_vectors_and_refusals(spark, db):
    t = f"{CAT}.{db}.dv"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING, ts TIMESTAMP) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'deletion-vectors.enabled' = 'true', 'record-level.expire-time' = '1 d', "
              "'record-level.time-field' = 'ts')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'old', current_timestamp() - INTERVAL 2 DAYS), "
              "(2, 'new', current_timestamp()), (3, 'null', NULL)")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.dv')")
    assert ids(spark, t) == [2, 3]
    with pytest.raises(Exception, match="record-level.expire-time needs record-level.time-field"):
        spark.sql(f"CREATE TABLE {CAT}.{db}.bad (id INT NOT NULL, ts BIGINT) TBLPROPERTIES ('primary-key' = 'id', "
                  "'bucket' = '1', 'record-level.expire-time' = '1 d')")
    with pytest.raises(Exception, match="its type STRING is not INT, BIGINT, TIMESTAMP or TIMESTAMP_LTZ"):
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('record-level.time-field' = 'v')")


def test_paimon_and_lamina_expire_each_others_records(spark, warehouse, db):
    require_paimon()
    now = int(time.time())
    results = run_sql(warehouse, [
        f"CREATE TABLE paimon.{db}.by_paimon (id INT NOT NULL, v STRING, ts BIGINT) TBLPROPERTIES ({PROPS})",
        rows_sql(f"paimon.{db}.by_paimon", now)])
    assert ids(spark, f"{CAT}.{db}.by_paimon") == [1, 2, 3, 4]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.by_paimon')")
    assert ids(spark, f"{CAT}.{db}.by_paimon") == [2, 4]

    spark.sql(f"CREATE TABLE {CAT}.{db}.by_lamina (id INT NOT NULL, v STRING, ts BIGINT) TBLPROPERTIES ({PROPS})")
    spark.sql(rows_sql(f"{CAT}.{db}.by_lamina", now))
    results = run_sql(warehouse, [f"SELECT id FROM paimon.{db}.by_paimon ORDER BY id",
                                  f"SELECT id FROM paimon.{db}.by_lamina ORDER BY id",
                                  f"CALL paimon.sys.compact(table => '{db}.by_lamina')",
                                  f"SELECT id FROM paimon.{db}.by_lamina ORDER BY id"])
    assert results[0] == [[2], [4]] and results[1] == [[1], [2], [3], [4]] and results[3] == [[2], [4]]
    assert ids(spark, f"{CAT}.{db}.by_lamina") == [2, 4]
