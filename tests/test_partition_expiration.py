"""Partition expiration: CALL sys.expire_partitions with Paimon's arguments, the table options
`partition.expiration-time` (+ check interval, formatter, pattern, strategy) applied after commits,
and LaminaTable.expire_partitions."""

import time

import pytest

from _lifecycle import CAT
from _support import error_text, read_snapshot, snapshot_ids, sql_rows, table_path
from lamina import LaminaTable


def make_partitioned(spark, db, table="t", props=""):
    name = f"{CAT}.{db}.{table}"
    spark.sql(f"CREATE TABLE {name} (id INT, dt STRING, hr INT) PARTITIONED BY (dt, hr) "
              f"TBLPROPERTIES ('write-only' = 'false'{props})")
    spark.sql(f"INSERT INTO {name} VALUES (1, '2020-01-01', 1), (2, '2020-01-02', 2), (3, '2999-01-01', 3)")
    return name


def test_expire_partitions_by_values_time(spark, warehouse, db):
    name = make_partitioned(spark, db)
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_partitions(table => '{db}.t', expiration_time => '1 d', "
                           "max_expires => 1)") == [("dt=2020-01-01, hr=1",)]
    assert sql_rows(spark, f"SELECT id FROM {name}") == [(2,), (3,)]
    latest = max(snapshot_ids(warehouse, db, "t"))
    assert read_snapshot(warehouse, db, "t", latest)["commitKind"] == "OVERWRITE"
    # positional arguments, Paimon's order
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_partitions('{db}.t', '1 d')") == [("dt=2020-01-02, hr=2",)]
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_partitions('{db}.t', '1 d')") == [("No expired partitions.",)]
    assert sql_rows(spark, f"SELECT id FROM {name}") == [(3,)]


def test_pattern_and_formatter_spell_the_time_from_several_columns(spark, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, d STRING, h STRING) PARTITIONED BY (d, h)")
    spark.sql(f"INSERT INTO {name} VALUES (1, '20200101', '05'), (2, '29990101', '05'), (3, 'not-a-day', '01')")
    got = sql_rows(spark, f"CALL {CAT}.sys.expire_partitions(table => '{db}.t', expiration_time => '1 h', "
                          "timestamp_formatter => 'yyyyMMdd HH', timestamp_pattern => '$d $h')")
    assert got == [("d=20200101, h=05",)]
    # a partition whose values spell no time is never expired
    assert sql_rows(spark, f"SELECT id FROM {name}") == [(2,), (3,)]


def test_table_option_expires_partitions_after_commits(spark, db):
    name = make_partitioned(spark, db, props=", 'partition.expiration-time' = '1 d', "
                                              "'partition.expiration-check-interval' = '0 s'")
    assert sql_rows(spark, f"SELECT id FROM {name}") == [(3,)]
    spark.sql(f"INSERT INTO {name} VALUES (4, '2021-06-01', 1)")
    assert sql_rows(spark, f"SELECT id FROM {name}") == [(3,)]
    # update-time: every partition was just written, none expires
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('partition.expiration-strategy' = 'update-time')")
    spark.sql(f"INSERT INTO {name} VALUES (5, '2021-06-01', 1)")
    assert sql_rows(spark, f"SELECT id FROM {name}") == [(3,), (5,)]


def test_table_api_expire_partitions(spark, db):
    make_partitioned(spark, db)
    t = LaminaTable.for_name(spark, f"{db}.t")
    assert t.expire_partitions("1 d") == ["dt=2020-01-01, hr=1", "dt=2020-01-02, hr=2"]
    assert t.expire_partitions("1 d") == []
    with pytest.raises(ValueError) as excinfo:
        t.expire_partitions("1 d", max_expires=0)
    assert "max_expires" in str(excinfo.value)


@pytest.mark.parametrize("call, message", [
    ("expire_partitions(table => '{t}')",
     "Argument 'expiration_time' must be given: table {t} has no 'partition.expiration-time' option"),
    ("expire_partitions(table => '{t}', expiration_time => 'soon')", "Invalid expiration_time 'soon'"),
    ("expire_partitions(table => '{t}', expiration_time => '1 d', expire_strategy => 'custom')",
     "Invalid expire_strategy 'custom': expected one of values-time, update-time"),
    ("expire_partitions(table => '{t}', expiration_time => '1 d', max_expires => 0)", "max_expires must be at least 1"),
    ("expire_partitions(table => '{u}', expiration_time => '1 d')", "Table {u} has no partitions to expire"),
])
def test_bad_arguments_are_refused_naming_them(spark, db, call, message):
    make_partitioned(spark, db)
    spark.sql(f"CREATE TABLE {CAT}.{db}.u (id INT)")
    t, u = f"{db}.t", f"{db}.u"
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CALL {CAT}.sys." + call.format(t=t, u=u)).collect()
    assert message.format(t=t, u=u) in error_text(excinfo)
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{t}") == [(1,), (2,), (3,)]


def test_mark_partition_done_writes_a_success_file_in_each_partition(spark, warehouse, db):
    import json

    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, day DATE, hh STRING) PARTITIONED BY (day, hh)")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, DATE'2024-05-01', '00'), (2, DATE'2024-05-01', '01'), "
              "(3, DATE'2024-05-02', '00')")
    directory = table_path(warehouse, db, "t")
    # the directories name a DATE by its epoch day (Paimon's legacy partition names); the argument by its SQL text
    day1 = directory / "day=19844"
    call = f"CALL {CAT}.sys.mark_partition_done(table => '{db}.t', partitions => '{{}}')"
    assert sql_rows(spark, call.format("day=2024-05-01,hh=00;day=2024-05-02")) == [(True,)]
    first = json.loads((day1 / "hh=00" / "_SUCCESS").read_text())
    assert set(first) == {"creationTime", "modificationTime"} and first["creationTime"] == first["modificationTime"]
    assert (directory / "day=19845" / "hh=00" / "_SUCCESS").is_file()
    assert not (day1 / "hh=01" / "_SUCCESS").exists()
    # marked again: the creation time stays
    time.sleep(0.01)
    spark.sql(call.format("day=2024-05-01,hh=00"))
    again = json.loads((day1 / "hh=00" / "_SUCCESS").read_text())
    assert again["creationTime"] == first["creationTime"] < again["modificationTime"]
    # the file is no orphan, and the rows read as before
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')")
    assert (day1 / "hh=00" / "_SUCCESS").is_file()
    assert spark.table(f"{CAT}.{db}.t").count() == 3

    for partitions, message in [("day=2024-06-01", f"No partition of table {db}.t matches day=2024-06-01"),
                                ("id=1", f"'id' is not a partition column of table {db}.t")]:
        with pytest.raises(Exception) as excinfo:
            spark.sql(call.format(partitions))
        assert message in error_text(excinfo)
    spark.sql(f"ALTER TABLE {CAT}.{db}.t SET TBLPROPERTIES ('partition.mark-done-action' = 'success-file,done-partition')")
    with pytest.raises(Exception) as excinfo:
        spark.sql(call.format("day=2024-05-01"))
    assert (f"Cannot mark partitions of table {db}.t done: action 'done-partition' of option "
            "'partition.mark-done-action' is not supported; supported: success-file") in error_text(excinfo)
