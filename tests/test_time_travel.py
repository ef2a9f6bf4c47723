"""VERSION AS OF, TIMESTAMP AS OF, and the scan.snapshot-id / scan.timestamp-millis read options."""

import datetime as dt

import pytest

from _support import error_text, read_snapshot, rows, sql_rows, unchanged

CAT = "lamina"


@pytest.fixture
def history(spark, db):
    """Three snapshots: {1: [1]}, {2: [1, 2]}, {3: [1, 2, 3]}."""
    name = f"{CAT}.{db}.h"
    spark.sql(f"CREATE TABLE {name} (id INT)")
    for i in (1, 2, 3):
        spark.sql(f"INSERT INTO {name} VALUES ({i})")
    return name


def ts_literal(millis):
    return dt.datetime.fromtimestamp(millis / 1000, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def test_version_as_of(spark, history):
    assert sql_rows(spark, f"SELECT * FROM {history} VERSION AS OF 1") == [(1,)]
    assert sql_rows(spark, f"SELECT * FROM {history} VERSION AS OF 2") == [(1,), (2,)]
    assert sql_rows(spark, f"SELECT * FROM {history} VERSION AS OF 3") == [(1,), (2,), (3,)]
    assert sql_rows(spark, f"SELECT * FROM {history} FOR VERSION AS OF '2'") == [(1,), (2,)]


def test_timestamp_as_of(spark, warehouse, db, history):
    t1 = read_snapshot(warehouse, db, "h", 1)["timeMillis"]
    t2 = read_snapshot(warehouse, db, "h", 2)["timeMillis"]
    t3 = read_snapshot(warehouse, db, "h", 3)["timeMillis"]
    assert t1 < t2 < t3
    assert sql_rows(spark, f"SELECT * FROM {history} TIMESTAMP AS OF '{ts_literal(t2)}'") == [(1,), (2,)]
    assert sql_rows(spark, f"SELECT * FROM {history} TIMESTAMP AS OF '{ts_literal(t3 - 1)}'") == [(1,), (2,)]
    assert sql_rows(spark, f"SELECT * FROM {history} FOR SYSTEM_TIME AS OF '{ts_literal(t1)}'") == [(1,)]
    assert sql_rows(spark, f"SELECT * FROM {history} TIMESTAMP AS OF '{ts_literal(t3 + 60_000)}'") == [
        (1,), (2,), (3,)]


def test_read_options(spark, warehouse, db, history):
    assert rows(spark.read.option("scan.snapshot-id", "2").table(history)) == [(1,), (2,)]
    t1 = read_snapshot(warehouse, db, "h", 1)["timeMillis"]
    assert rows(spark.read.option("scan.timestamp-millis", str(t1)).table(history)) == [(1,)]


def test_time_travel_reads_the_schema_of_that_snapshot(spark, history):
    spark.sql(f"ALTER TABLE {history} ADD COLUMN tag STRING")
    spark.sql(f"INSERT INTO {history} VALUES (4, 'four')")
    old = spark.sql(f"SELECT * FROM {history} VERSION AS OF 2")
    assert old.columns == ["id"]
    assert rows(old) == [(1,), (2,)]
    assert sql_rows(spark, f"SELECT * FROM {history} VERSION AS OF 4") == [
        (1, None), (2, None), (3, None), (4, "four")]


def test_missing_snapshot_is_a_clear_error(spark, warehouse, db, history):
    with unchanged(spark, warehouse, db, "h"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"SELECT * FROM {history} VERSION AS OF 42").collect()
        assert "42" in error_text(excinfo)
        assert "snapshot" in error_text(excinfo).lower()
        with pytest.raises(Exception) as excinfo:
            spark.read.option("scan.snapshot-id", "42").table(history).collect()
        assert "42" in error_text(excinfo)


def test_timestamp_before_the_first_snapshot_is_a_clear_error(spark, warehouse, db, history):
    t1 = read_snapshot(warehouse, db, "h", 1)["timeMillis"]
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {history} TIMESTAMP AS OF '{ts_literal(t1 - 60_000)}'").collect()
    assert "snapshot" in error_text(excinfo).lower()


def test_writes_after_time_travel_go_to_the_latest(spark, history):
    assert sql_rows(spark, f"SELECT * FROM {history} VERSION AS OF 1") == [(1,)]
    spark.sql(f"INSERT INTO {history} VALUES (9)")
    assert sql_rows(spark, f"SELECT * FROM {history}") == [(1,), (2,), (3,), (9,)]
