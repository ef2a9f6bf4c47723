"""Partition directories are named as Paimon names them (`partition.legacy-name`, true by default:
a DATE by its epoch day, a TIMESTAMP as `LocalDateTime` text), so Paimon's own connector finds the
files Lamina writes in DATE- and TIMESTAMP-partitioned tables, and Lamina finds Paimon's."""

import os

from _support import sql_rows, table_path
from paimon_connector import require_paimon, run_sql

CAT = "lamina"


def _partition_dirs(root):
    return sorted(os.path.relpath(d, root) for d, subdirs, _ in os.walk(root) if any(s.startswith("bucket-") for s in subdirs))


def test_lamina_names_date_and_timestamp_partitions_as_paimon(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, d DATE, ts TIMESTAMP, tn TIMESTAMP_NTZ) PARTITIONED BY (d, ts, tn)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, DATE'2024-01-01', TIMESTAMP'2024-01-01 12:30:00', "
              "TIMESTAMP_NTZ'2024-01-01 12:30:05.123')")
    assert _partition_dirs(table_path(warehouse, db, "t")) == [
        "d=19723/ts=2024-01-01T12%3A30/tn=2024-01-01T12%3A30%3A05.123"]


def test_lamina_sql_names_are_kept_with_legacy_name_false(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, d DATE) PARTITIONED BY (d) TBLPROPERTIES ('partition.legacy-name' = 'false')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, DATE'2024-01-01')")
    assert _partition_dirs(table_path(warehouse, db, "t")) == ["d=2024-01-01"]
    assert sql_rows(spark, f"SELECT id, CAST(d AS STRING) FROM {CAT}.{db}.t") == [(1, "2024-01-01")]


def test_paimon_and_lamina_share_date_and_timestamp_partitioned_tables(spark, warehouse, db):
    require_paimon()
    for legacy in ("true", "false"):
        t = f"t_{legacy}"
        spark.sql(f"CREATE TABLE {CAT}.{db}.{t} (id INT, d DATE, ts TIMESTAMP) PARTITIONED BY (d, ts) "
                  f"TBLPROPERTIES ('partition.legacy-name' = '{legacy}')")
        spark.sql(f"INSERT INTO {CAT}.{db}.{t} VALUES (1, DATE'2024-01-01', TIMESTAMP'2024-01-01 12:30:00'), "
                  "(2, DATE'1969-12-31', TIMESTAMP'1969-12-31 23:59:59.5')")
    results = run_sql(warehouse, [
        f"SELECT id, CAST(d AS STRING), CAST(ts AS STRING) FROM paimon.{db}.t_true ORDER BY id",
        f"SELECT id, CAST(d AS STRING), CAST(ts AS STRING) FROM paimon.{db}.t_false ORDER BY id",
        f"INSERT INTO paimon.{db}.t_true VALUES (3, DATE'2024-01-01', TIMESTAMP'2024-01-01 12:30:00')",
        f"INSERT INTO paimon.{db}.t_false VALUES (3, DATE'2024-01-01', TIMESTAMP'2024-01-01 12:30:00')",
    ])
    expected = [[1, "2024-01-01", "2024-01-01 12:30:00"], [2, "1969-12-31", "1969-12-31 23:59:59.5"]]
    assert results[0] == expected
    assert results[1] == expected
    for t in ("t_true", "t_false"):
        assert sql_rows(spark, f"SELECT id, CAST(d AS STRING), CAST(ts AS STRING) FROM {CAT}.{db}.{t}") == [
            (1, "2024-01-01", "2024-01-01 12:30:00"), (2, "1969-12-31", "1969-12-31 23:59:59.5"),
            (3, "2024-01-01", "2024-01-01 12:30:00")]
