"""`ANALYZE TABLE ... COMPUTE STATISTICS` on Lamina tables: Paimon's statistics file under `statistics/`,
named by an ANALYZE snapshot's `statistics` field and carried on by later snapshots, and `t$statistics`
with Paimon's columns; the file survives expiration while a snapshot uses it and orphan-file removal."""

import datetime
import os

import pytest

from _support import error_text, latest_snapshot_id, read_json, read_snapshot, sql_rows, table_path

CAT = "lamina"


@pytest.fixture
def events(spark, db):
    name = f"{CAT}.{db}.events"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, name STRING, amount DECIMAL(10, 2), day DATE, ts TIMESTAMP, "
              f"tags ARRAY<STRING>, p STRING) PARTITIONED BY (p)")
    spark.sql(f"""INSERT INTO {name} VALUES
        (1, 'ann', 10.50, DATE'2024-05-01', TIMESTAMP'2024-05-01 10:00:00', array('a'), 'x'),
        (2, 'bob', -3.25, DATE'2024-05-02', TIMESTAMP'2024-05-02 11:30:00.5', NULL, 'x'),
        (3, NULL, NULL, NULL, NULL, NULL, 'y'),
        (4, 'carla', 7.00, DATE'2024-04-30', TIMESTAMP'2024-04-30 00:00:00', array(), 'y')""")
    return name


def statistics_file(warehouse, db, table, snapshot_id):
    name = read_snapshot(warehouse, db, table, snapshot_id)["statistics"]
    assert name.startswith("stat-") and name.endswith("-0")
    return read_json(table_path(warehouse, db, table) / "statistics" / name)


def test_analyze_for_columns_writes_paimons_statistics_file_in_an_analyze_snapshot(spark, warehouse, db, events):
    before = latest_snapshot_id(warehouse, db, "events")
    spark.sql(f"ANALYZE TABLE {events} COMPUTE STATISTICS FOR COLUMNS id, name, amount, day, ts")
    snapshot = latest_snapshot_id(warehouse, db, "events")
    assert snapshot == before + 1
    meta = read_snapshot(warehouse, db, "events", snapshot)
    assert meta["commitKind"] == "ANALYZE"
    stats = statistics_file(warehouse, db, "events", snapshot)
    assert stats["snapshotId"] == before and stats["schemaId"] == 0 and stats["mergedRecordCount"] == 4
    files = spark.sql(f"SELECT sum(file_size_in_bytes) FROM {CAT}.{db}.`events$files`").collect()[0][0]
    assert stats["mergedRecordSize"] == files
    cols = stats["colStats"]
    assert cols["id"] == {"colId": 0, "distinctCount": 4, "min": "1", "max": "4", "nullCount": 0, "avgLen": 8,
                          "maxLen": 8}
    assert cols["name"] == {"colId": 1, "distinctCount": 3, "nullCount": 1, "avgLen": 4, "maxLen": 5}
    assert cols["amount"] == {"colId": 2, "distinctCount": 3, "min": "-3.25", "max": "10.50", "nullCount": 1,
                              "avgLen": 8, "maxLen": 8}
    assert cols["day"]["min"] == str((datetime.date(2024, 4, 30) - datetime.date(1970, 1, 1)).days)
    assert (cols["ts"]["min"], cols["ts"]["max"]) == ("2024-04-30 00:00:00.000000", "2024-05-02 11:30:00.500000")
    assert set(cols) == {"id", "name", "amount", "day", "ts"}
    # the rows are untouched, and $snapshots shows the commit
    assert spark.table(events).count() == 4
    assert sql_rows(spark, f"SELECT operation, added_files, removed_files FROM {CAT}.{db}.`events$snapshots` "
                           f"WHERE snapshot_id = {snapshot}") == [("ANALYZE", 0, 0)]


def test_statistics_system_table_shows_the_latest_statistics(spark, warehouse, db, events):
    assert spark.sql(f"SELECT * FROM {CAT}.{db}.`events$statistics`").collect() == []
    got = spark.sql(f"SELECT * FROM {CAT}.{db}.`events$statistics`")
    assert got.columns == ["snapshot_id", "schema_id", "mergedRecordCount", "mergedRecordSize", "colstat"]
    spark.sql(f"ANALYZE TABLE {events} COMPUTE STATISTICS")
    (row,) = spark.sql(f"SELECT * FROM {CAT}.{db}.`events$statistics`").collect()
    assert (row.snapshot_id, row.schema_id, row.mergedRecordCount, row.colstat) == (1, 0, 4, "{}")
    # later snapshots carry the statistics on; the next ANALYZE replaces them
    spark.sql(f"INSERT INTO {events} (id, name, amount, day, ts, tags, p) VALUES "
              f"(5, 'dan', 1.00, NULL, NULL, NULL, 'x')")
    assert read_snapshot(warehouse, db, "events", 3)["statistics"] == read_snapshot(warehouse, db, "events", 2)["statistics"]
    assert [r.snapshot_id for r in spark.sql(f"SELECT * FROM {CAT}.{db}.`events$statistics`").collect()] == [1]
    spark.sql(f"ANALYZE TABLE {events} COMPUTE STATISTICS FOR ALL COLUMNS")
    (row,) = spark.sql(f"SELECT * FROM {CAT}.{db}.`events$statistics`").collect()
    assert (row.snapshot_id, row.mergedRecordCount) == (3, 5)
    assert row.colstat.startswith("{id=ColStats{colId=0, distinctCount=5, min=1, max=5, nullCount=0, avgLen=8, maxLen=8}, ")
    assert "tags=" not in row.colstat and "p=ColStats{colId=6" in row.colstat  # nested columns have none
    # time travel reads the statistics a snapshot had
    (old,) = spark.sql(f"SELECT * FROM {CAT}.{db}.`events$statistics` VERSION AS OF 3").collect()
    assert old.snapshot_id == 1


def test_primary_key_table_counts_merged_rows(spark, warehouse, db):
    name = f"{CAT}.{db}.pk"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              f"'write-only' = 'true')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'c')")
    spark.sql(f"ANALYZE TABLE {name} COMPUTE STATISTICS FOR COLUMNS v")
    stats = statistics_file(warehouse, db, "pk", latest_snapshot_id(warehouse, db, "pk"))
    files = spark.sql(f"SELECT sum(file_size_in_bytes) FROM {CAT}.{db}.`pk$files`").collect()[0][0]
    assert stats["mergedRecordCount"] == 2 and stats["mergedRecordSize"] == int(files * 2 / 3)
    assert stats["colStats"]["v"]["distinctCount"] == 2
    spark.sql(f"ANALYZE TABLE {name} COMPUTE STATISTICS NOSCAN")
    stats = statistics_file(warehouse, db, "pk", latest_snapshot_id(warehouse, db, "pk"))
    assert "mergedRecordCount" not in stats and stats["mergedRecordSize"] == files


def test_statistics_file_is_kept_while_used_and_removed_with_its_snapshots(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT) TBLPROPERTIES ('snapshot.num-retained.min' = '1', "
              f"'snapshot.num-retained.max' = '2')")
    spark.sql(f"INSERT INTO {name} VALUES (1)")
    spark.sql(f"ANALYZE TABLE {name} COMPUTE STATISTICS")
    stats_dir = table_path(warehouse, db, "t") / "statistics"
    (first,) = os.listdir(stats_dir)
    for i in range(3):
        spark.sql(f"INSERT INTO {name} VALUES ({i})")
    assert os.listdir(stats_dir) == [first]  # carried on by every later snapshot
    assert sql_rows(spark, f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', "
                           f"older_than => '2999-01-01 00:00:00')") == [(0, 0)]
    assert os.listdir(stats_dir) == [first]
    spark.sql(f"ANALYZE TABLE {name} COMPUTE STATISTICS")
    spark.sql(f"INSERT INTO {name} VALUES (9)")
    spark.sql(f"INSERT INTO {name} VALUES (10)")
    (second,) = os.listdir(stats_dir)  # the first went with the last snapshot that named it
    assert second != first


def test_bad_analyze_statements_are_refused(spark, db, events):
    for statement, message in [
            (f"ANALYZE TABLE {events} COMPUTE STATISTICS FOR COLUMNS nope",
             f"ANALYZE TABLE {db}.events FOR COLUMNS: 'nope' is not a column; columns are id, name, amount, day, ts, tags, p"),
            (f"ANALYZE TABLE {events} COMPUTE STATISTICS FOR COLUMNS tags",
             f"ANALYZE TABLE {db}.events FOR COLUMNS: column 'tags' has type ARRAY<STRING>, which has no statistics"),
            (f"ANALYZE TABLE {events} PARTITION (p = 'x') COMPUTE STATISTICS",
             "Lamina records statistics of the whole table only")]:
        with pytest.raises(Exception) as excinfo:
            spark.sql(statement)
        assert message in error_text(excinfo), statement


def test_spark_sees_the_statistics_of_an_analysed_table(spark, db, events):
    def plan_stats():
        return spark.table(events).select("id", "name")._jdf.queryExecution().optimizedPlan().stats()

    unknown = plan_stats()
    assert unknown.rowCount().isEmpty()
    assert int(str(unknown.sizeInBytes())) == 2**63 - 1  # spark.sql.defaultSizeInBytes
    spark.sql(f"ANALYZE TABLE {events} COMPUTE STATISTICS FOR COLUMNS id, name")
    (row,) = spark.sql(f"SELECT mergedRecordCount, mergedRecordSize FROM {CAT}.{db}.`events$statistics`").collect()
    stats = plan_stats()
    assert int(str(stats.rowCount().get())) == 4
    assert 0 < int(str(stats.sizeInBytes())) < 2**63 - 1
    scan_stats = spark.table(events)._jdf.queryExecution().optimizedPlan().collectLeaves().head().stats()
    assert int(str(scan_stats.sizeInBytes())) == row.mergedRecordSize
    entries = stats.attributeStats().iterator()
    columns = {}
    while entries.hasNext():
        entry = entries.next()
        columns[entry._1().name()] = entry._2()
    column = columns["name"]
    assert [int(str(o.get())) for o in (column.distinctCount(), column.nullCount(), column.maxLen())] == [3, 1, 5]
