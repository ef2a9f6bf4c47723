"""Scenarios of the Python table API that run alike on a classic session and on a Spark Connect
session: each takes a session whose catalog `cat` is Lamina's and a fresh database `db`."""

import datetime
import decimal

import pytest
from pyspark.sql import functions as F

import lamina
from lamina import COMMIT_METRICS, LaminaTable


def _rows(df):
    return sorted(tuple(r) for r in df.collect())


def _metrics(df):
    assert tuple(df.columns) == COMMIT_METRICS
    rows = df.collect()
    assert len(rows) == 1
    return rows[0]


def columns_and_metrics(spark, cat, db):
    """DELETE, UPDATE and MERGE with Column conditions and values (literals of several types among
    them) give what the same SQL gives, and each returns the metrics of what it committed."""
    spark.sql(f"CREATE TABLE {cat}.{db}.t (id INT NOT NULL, v STRING, n BIGINT, d DATE, p DECIMAL(10, 2)) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {cat}.{db}.t VALUES (1, 'a', 10, DATE'2024-01-01', 1.50), (2, 'b', 20, DATE'2024-01-02', 2.50), "
              "(3, 'it\\'s', 30, DATE'2024-01-03', 3.50), (4, 'd', 40, NULL, NULL)")
    t = LaminaTable.for_name(spark, f"{cat}.{db}.t")

    m = _metrics(t.delete((F.col("n") > 35) | F.col("d").isNull()))
    assert (m.num_snapshots, m.operation, m.first_snapshot_id, m.last_snapshot_id) == (1, "DELETE", 2, 2), m
    assert (m.num_inserted_rows, m.num_updated_rows, m.num_deleted_rows, m.num_upserted_rows) == (0, 0, 1, None), m
    m = _metrics(t.delete(F.col("v") == "it's"))
    assert m.num_snapshots == 1 and m.num_added_records == 1 and m.num_deleted_rows == 1
    assert _rows(t.to_df().select("id", "v")) == [(1, "a"), (2, "b")]

    m = _metrics(t.update(F.col("d") == datetime.date(2024, 1, 2),
                          {"v": F.upper(F.col("v")), "n": F.col("n") + 1, "p": decimal.Decimal("9.25")}))
    assert m.num_snapshots == 1 and m.operation == "UPDATE" and (m.num_updated_rows, m.num_deleted_rows) == (1, 0), m
    m = _metrics(t.update("id = 1", {"v": "concat(v, '!')", "d": F.lit(datetime.date(2025, 5, 6))}))
    assert m.num_snapshots == 1
    updated = _rows(t.to_df())
    assert updated == [(1, "a!", 10, datetime.date(2025, 5, 6), decimal.Decimal("1.50")),
                       (2, "B", 21, datetime.date(2024, 1, 2), decimal.Decimal("9.25"))], updated

    changes = spark.createDataFrame([(1, "x", "D"), (2, "y", "U"), (7, "new", "I"), (8, "gone", "D")],
                                    "id INT, v STRING, op STRING")
    m = _metrics(t.alias("target").merge(changes.alias("c"), F.col("target.id") == F.col("c.id"))
                 .when_matched_delete(F.col("c.op") == "D")
                 .when_matched_update(set={"v": F.col("c.v"), "n": F.col("target.n") * 10})
                 .when_not_matched_insert(F.col("c.op") != "D", values={"id": F.col("c.id"), "v": "c.v", "n": 0})
                 .execute())
    assert m.num_snapshots >= 1 and m.operation == "MERGE", m
    assert (m.num_inserted_rows, m.num_updated_rows, m.num_deleted_rows) == (1, 1, 1), m
    assert _rows(t.to_df().select("id", "v", "n")) == [(2, "y", 210), (7, "new", 0)]

    # nothing matched: nothing committed, and the metrics say so
    m = _metrics(t.delete(F.col("id") > 1000))
    assert m.num_snapshots in (0, 1)
    m = _metrics(t.compact(full=True))
    assert m.operation in ("COMPACT", "NONE")

    # a Column SQL text cannot carry is refused, naming the argument, before anything runs
    before = t.history().count()
    with pytest.raises((ValueError, lamina.BadInputException)) as excinfo:
        t.delete(F.udf(lambda x: x > 1, "boolean")(F.col("id")))
    assert "condition" in str(excinfo.value)
    assert t.history().count() == before


def maintenance(spark, cat, db):
    """Tags, branches, rollback, expiration and orphan removal through the API (procedures underneath)."""
    spark.sql(f"CREATE TABLE {cat}.{db}.m (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    t = LaminaTable.for_name(spark, f"{cat}.{db}.m")
    for i in range(1, 5):
        spark.sql(f"INSERT INTO {cat}.{db}.m VALUES ({i}, 'v{i}')")
    assert t.create_tag("two", snapshot_id=2) == 2
    assert [r.tag_name for r in t.tags().collect()] == ["two"]
    assert _rows(t.to_df(tag="two")) == [(1, "v1"), (2, "v2")]
    t.create_branch("dev", tag="two")
    assert [r.branch_name for r in t.branches().collect()] == ["dev"]
    assert t.to_df(branch="dev").count() == 2
    with pytest.raises(lamina.NotFoundException) as excinfo:
        t.to_df(branch="nope")
    assert "Branch 'nope'" in excinfo.value.message
    t.delete_branch("dev")
    assert t.rollback_to(version=3) == 3
    assert _rows(t.to_df()) == [(1, "v1"), (2, "v2"), (3, "v3")]
    expired = t.expire_snapshots(retain_max=1, retain_min=1)
    kept = [r.snapshot_id for r in t.history().collect()]
    # all but the latest go, except a snapshot an analysed DataFrame's scan still leases (a Connect
    # server keeps the session's analysed plans a while): expiration never takes what a reader holds
    assert kept[0] == 3 and expired + len(kept) == 3, (expired, kept)
    assert t.remove_orphan_files(dry_run=True)["deleted_file_count"] >= 0
    t.delete_tag("two")
    assert t.tags().count() == 0
    assert t.options()["bucket"] == "1"
    t.set_options({"snapshot.num-retained.max": 50})
    assert t.options()["snapshot.num-retained.max"] == "50"
    d = t.detail().collect()[0]
    assert d.primary_keys == "id" and d.bucket == 1 and d.latest_snapshot_id == 3
    with pytest.raises(lamina.NotFoundException):
        LaminaTable.for_name(spark, f"{cat}.{db}.absent")
    with pytest.raises(lamina.BadInputException) as excinfo:
        t.set_options({"bucket-kye": "2"})
    assert "bucket-kye" in excinfo.value.message


def upsert_stream_compact_expire(spark, cat, db):
    """A newcomer's path: create a primary-key table from Python, upsert into it with Columns, stream
    its changes (with their row kinds) into another table, compact and expire."""
    import tempfile

    orders = (LaminaTable.create(spark, f"{cat}.{db}.orders")
              .add_column("id", "BIGINT", nullable=False).add_column("status", "STRING").add_column("amount", "DOUBLE")
              .primary_key("id").property("bucket", 2).property("changelog-producer", "lookup").execute())
    spark.sql(f"CREATE TABLE {cat}.{db}.changes (rowkind STRING, id BIGINT, status STRING, amount DOUBLE)")
    checkpoint = tempfile.mkdtemp(prefix="lamina-stream-")

    def stream():
        q = (spark.readStream.table(f"{cat}.{db}.`orders$audit_log`").writeStream
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).toTable(f"{cat}.{db}.changes"))
        q.awaitTermination(300)
        return sorted(tuple(r) for r in spark.table(f"{cat}.{db}.changes").collect())

    def upsert(rows):
        batch = spark.createDataFrame(rows, "id BIGINT, status STRING, amount DOUBLE").alias("u")
        return _metrics(orders.alias("o").merge(batch, F.col("o.id") == F.col("u.id"))
                        .when_matched_update_all().when_not_matched_insert_all().execute())

    assert upsert([(1, "new", 10.0), (2, "new", 20.0)]).num_snapshots >= 1
    assert stream() == [("+I", 1, "new", 10.0), ("+I", 2, "new", 20.0)]
    upsert([(2, "paid", 20.0), (3, "new", 30.0)])
    changes = stream()
    assert changes[2:] == [("+I", 3, "new", 30.0), ("+U", 2, "paid", 20.0), ("-U", 2, "new", 20.0)], changes
    assert sorted(tuple(r) for r in orders.to_df().collect()) == [(1, "new", 10.0), (2, "paid", 20.0), (3, "new", 30.0)]
    m = _metrics(orders.compact(full=True))
    assert m.operation == "COMPACT" and m.num_snapshots == 1
    latest = m.last_snapshot_id
    expired = orders.expire_snapshots(retain_max=1, retain_min=1)
    kept = [r.snapshot_id for r in orders.history().collect()]
    # every snapshot but the latest goes, except one a scan still holds a lease on (a Connect server
    # keeps analysed plans of the session, and their scans, a while)
    assert kept[0] == latest and expired + len(kept) == latest, (expired, kept, latest)
    assert orders.to_df().count() == 3


def restore(spark, cat, db):
    """restore_to commits the old rows as a new snapshot: the history stays readable, every partition
    of the table comes back as it was (those written since included), a column added since is NULL."""
    spark.sql(f"CREATE TABLE {cat}.{db}.r (id INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '1', 'deletion-vectors.enabled' = 'true')")
    t = LaminaTable.for_name(spark, f"{cat}.{db}.r")
    spark.sql(f"INSERT INTO {cat}.{db}.r VALUES (1, 'a', 'one'), (2, 'b', 'two')")
    restore_point = t.history(1).collect()[0].snapshot_id
    spark.sql(f"INSERT INTO {cat}.{db}.r VALUES (3, 'c', 'three')")
    t.delete(F.col("id") == 1)
    t.add_columns("note STRING")
    t.update("id = 2", {"v": "'TWO'", "note": "'later'"})
    latest = t.history(1).collect()[0].snapshot_id
    m = _metrics(t.restore_to(version=restore_point))
    assert m.operation == "OVERWRITE" and m.first_snapshot_id == latest + 1, m
    assert _rows(t.to_df()) == [(1, "a", "one", None), (2, "b", "two", None)]
    assert _rows(t.to_df(version=latest).select("id", "v")) == [(2, "TWO"), (3, "three")]
    with pytest.raises(ValueError, match="exactly one of version, tag and timestamp"):
        t.restore_to(version=1, tag="x")
