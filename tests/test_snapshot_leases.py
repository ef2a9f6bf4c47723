"""Snapshot leases: a running query holds the snapshot it reads (`<table>/lease/`), so that snapshot
expiration, however aggressive, never removes a file the query has yet to read."""

import threading
import time

from pyspark.sql.functions import udf

from _lifecycle import CAT
from _support import sql_rows, table_path


def test_a_slow_read_survives_an_aggressive_expiration(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '8', "
              "'write-only' = 'true')")
    for i in range(3):
        spark.sql(f"INSERT INTO {name} SELECT id, 'v{i}' FROM range({i * 8}, {i * 8 + 16})")
    expected = sql_rows(spark, f"SELECT * FROM {name}")
    leases = table_path(warehouse, db, "t") / "lease"
    expired_marker = str(table_path(warehouse, db, "t").parent / "expired")

    @udf("int")
    def slow(x):
        # the read's first rows wait for the expiration, so that the tasks after them open their files
        # once those files are dropped, however slow the machine
        import os
        import time
        deadline = time.time() + 300
        while not os.path.exists(expired_marker) and time.time() < deadline:
            time.sleep(0.05)
        return x

    expired = []

    def expire_while_reading():
        try:
            deadline = time.time() + 300
            while not (leases.exists() and any(leases.iterdir())):
                assert time.time() < deadline, "the read took no lease"
                time.sleep(0.05)
            # every file the reader needs is dropped by an overwrite, and every snapshot but the latest may go
            spark.sql(f"INSERT OVERWRITE {name} SELECT id, 'new' FROM range(0, 4)")
            expired.append(sql_rows(spark, f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, "
                                           "retain_min => 1, older_than => '2999-01-01 00:00:00')"))
        finally:
            open(expired_marker, "w").close()

    other = threading.Thread(target=expire_while_reading)
    other.start()
    # one task reads every split in turn (the later ones open their files after the expiration), leaving
    # the other core to the overwrite: with a task per core all blocked in `slow`, the overwrite's
    # tasks could not start until the deadline
    got = sorted(tuple(r) for r in spark.table(name).coalesce(1).select(slow("id").alias("id"), "v").collect())
    other.join()
    assert got == sorted(expected)
    # the snapshots before the leased one (3) expired; it and the overwrite stayed
    assert expired == [[(2,)]]
    assert sorted(r[0] for r in sql_rows(spark, f"SELECT * FROM {name}")) == [0, 1, 2, 3]


def test_a_lapsed_lease_holds_nothing(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT) TBLPROPERTIES ('write-only' = 'true')")
    for i in range(3):
        spark.sql(f"INSERT INTO {name} VALUES ({i})")
    leases = table_path(warehouse, db, "t") / "lease"
    leases.mkdir()
    (leases / "lease-dead-1").write_text('{"snapshotId":1,"expireAtMillis":1,"holder":"gone"}')
    (leases / "lease-live-1").write_text('{"snapshotId":2,"expireAtMillis":%d,"holder":"alive"}'
                                         % (int(time.time() * 1000) + 600000))
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, "
                           "retain_min => 1, older_than => '2999-01-01 00:00:00')") == [(1,)]
    (leases / "lease-live-1").unlink()
    assert sql_rows(spark, f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, "
                           "retain_min => 1, older_than => '2999-01-01 00:00:00')") == [(1,)]
