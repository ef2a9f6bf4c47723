"""Structured Streaming: `spark.readStream.table` (start positions by scan.mode, append tables'
new files, primary-key tables' changelog or deltas, limits per trigger, Trigger.AvailableNow) and
`df.writeStream.toTable` (one snapshot per micro-batch, exactly once across restarts)."""

import pytest

from _support import error_text, read_snapshot, snapshot_ids, sql_rows, table_path

CAT = "lamina"


def _run(spark, source, target, checkpoint, **options):
    """One Trigger.AvailableNow run of a query from `source` into `target`."""
    reader = spark.readStream
    for k, v in options.items():
        reader = reader.option(k, v)
    q = (reader.table(source).writeStream.option("checkpointLocation", checkpoint)
         .trigger(availableNow=True).toTable(target))
    q.awaitTermination(120)
    if q.exception():
        raise Exception(str(q.exception()))
    return q


def _commits(warehouse, db, table):
    """(commitUser, commitIdentifier) of every APPEND snapshot."""
    snaps = [read_snapshot(warehouse, db, table, i) for i in snapshot_ids(warehouse, db, table)]
    return [(s["commitUser"], s["commitIdentifier"]) for s in snaps if s["commitKind"] == "APPEND"]


def test_append_table_into_append_table_across_restarts(spark, warehouse, db, tmp_path):
    src, dst = f"{CAT}.{db}.src", f"{CAT}.{db}.dst"
    spark.sql(f"CREATE TABLE {src} (id INT, v STRING)")
    spark.sql(f"CREATE TABLE {dst} (id INT, v STRING)")
    spark.sql(f"INSERT INTO {src} VALUES (1, 'a'), (2, 'b')")
    ckpt = str(tmp_path / "ckpt")
    _run(spark, src, dst, ckpt)
    assert sql_rows(spark, f"SELECT * FROM {dst}") == [(1, "a"), (2, "b")]
    spark.sql(f"INSERT INTO {src} VALUES (3, 'c')")
    spark.sql(f"INSERT INTO {src} VALUES (4, 'd')")
    _run(spark, src, dst, ckpt)
    _run(spark, src, dst, ckpt)  # nothing new: nothing committed
    assert sql_rows(spark, f"SELECT * FROM {dst}") == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    commits = _commits(warehouse, db, "dst")
    assert len(commits) == 2 and len({u for u, _ in commits}) == 1  # one commit user for the query
    assert [i for _, i in commits] == [0, 1]                       # identifiers are batch ids


def test_limits_per_trigger_and_scan_modes(spark, warehouse, db, tmp_path):
    src, dst = f"{CAT}.{db}.src", f"{CAT}.{db}.dst"
    spark.sql(f"CREATE TABLE {src} (id INT)")
    for i in range(1, 4):
        spark.sql(f"INSERT INTO {src} VALUES ({i})")
    spark.sql(f"CREATE TABLE {dst} (id INT)")
    _run(spark, src, dst, str(tmp_path / "c1"), **{"read.stream.maxFilesPerTrigger": "1"})
    assert [i for _, i in _commits(warehouse, db, "dst")] == [0, 1, 2]  # one file per micro-batch
    assert sql_rows(spark, f"SELECT * FROM {dst}") == [(1,), (2,), (3,)]

    def fresh(name, **options):
        t = f"{CAT}.{db}.{name}"
        spark.sql(f"CREATE TABLE {t} (id INT)")
        _run(spark, src, t, str(tmp_path / name), **options)
        return [r[0] for r in sql_rows(spark, f"SELECT * FROM {t}")]

    assert fresh("latest", **{"scan.mode": "latest"}) == []
    assert fresh("from2", **{"scan.mode": "from-snapshot", "scan.snapshot-id": "2"}) == [2, 3]
    assert fresh("from2full", **{"scan.mode": "from-snapshot-full", "scan.snapshot-id": "2"}) == [1, 2, 3]
    t2 = read_snapshot(warehouse, db, "src", 2)["timeMillis"]
    assert fresh("fromts", **{"scan.mode": "from-timestamp", "scan.timestamp-millis": str(t2)}) == [3]


PRODUCERS = {"input": "", "none": "", "lookup": "", "full-compaction": ", 'full-compaction.delta-commits' = '1'"}


def test_primary_key_tables_stream_their_changelog_or_deltas(spark, warehouse, db, tmp_path):
    for producer, extra in PRODUCERS.items():
        src, dst = f"{CAT}.{db}.src_{producer.replace('-', '_')}", f"{CAT}.{db}.dst_{producer.replace('-', '_')}"
        spark.sql(f"CREATE TABLE {src} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', "
                  f"'changelog-producer' = '{producer}'{extra})")
        spark.sql(f"CREATE TABLE {dst} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '3')")
        spark.sql(f"INSERT INTO {src} VALUES (1, 'a'), (2, 'b')")
        ckpt = str(tmp_path / producer)
        _run(spark, src, dst, ckpt)
        spark.sql(f"INSERT INTO {src} VALUES (1, 'a2'), (3, 'c')")
        spark.sql(f"INSERT INTO {src} VALUES (1, 'a3')")
        _run(spark, src, dst, ckpt)
        assert sql_rows(spark, f"SELECT * FROM {dst}") == sql_rows(spark, f"SELECT * FROM {src}") == \
            [(1, "a3"), (2, "b"), (3, "c")]


@pytest.mark.parametrize("producer", ["input", "lookup"])
def test_audit_log_stream_carries_deletes_into_a_rowkind_table(spark, warehouse, db, tmp_path, producer):
    src, dst = f"{CAT}.{db}.src", f"{CAT}.{db}.dst"
    spark.sql(f"CREATE TABLE {src} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', "
              f"'changelog-producer' = '{producer}')")
    spark.sql(f"CREATE TABLE {dst} (rowkind STRING, id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'rowkind.field' = 'rowkind')")
    spark.sql(f"INSERT INTO {src} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    ckpt = str(tmp_path / "ckpt")
    _run(spark, f"{CAT}.{db}.`src$audit_log`", dst, ckpt)
    spark.sql(f"DELETE FROM {src} WHERE id = 2")
    spark.sql(f"UPDATE {src} SET v = 'c2' WHERE id = 3")
    _run(spark, f"{CAT}.{db}.`src$audit_log`", dst, ckpt)
    assert sql_rows(spark, f"SELECT id, v FROM {dst}") == sql_rows(spark, f"SELECT * FROM {src}") == \
        [(1, "a"), (3, "c2")]


def test_a_replayed_batch_is_not_committed_twice(spark, warehouse, db, tmp_path):
    src, dst = f"{CAT}.{db}.src", f"{CAT}.{db}.dst"
    spark.sql(f"CREATE TABLE {src} (id INT)")
    spark.sql(f"CREATE TABLE {dst} (id INT)")
    spark.sql(f"INSERT INTO {src} VALUES (1), (2)")
    ckpt = tmp_path / "ckpt"
    _run(spark, src, dst, str(ckpt))
    before = snapshot_ids(warehouse, db, "dst")
    # the sink committed batch 0, but the query died before recording it: a restart replays it
    (ckpt / "commits" / "0").unlink()
    (ckpt / "commits" / ".0.crc").unlink(missing_ok=True)
    _run(spark, src, dst, str(ckpt))
    assert snapshot_ids(warehouse, db, "dst") == before
    assert sql_rows(spark, f"SELECT * FROM {dst}") == [(1,), (2,)]
    assert (ckpt / "commits" / "0").exists()


def test_a_stream_whose_next_snapshot_expired_says_how_to_restart(spark, warehouse, db, tmp_path):
    src, dst = f"{CAT}.{db}.src", f"{CAT}.{db}.dst"
    spark.sql(f"CREATE TABLE {src} (id INT) TBLPROPERTIES ('snapshot.num-retained.min' = '1', "
              "'snapshot.num-retained.max' = '1')")
    spark.sql(f"CREATE TABLE {dst} (id INT)")
    spark.sql(f"INSERT INTO {src} VALUES (1)")
    ckpt = str(tmp_path / "ckpt")
    _run(spark, src, dst, ckpt)
    spark.sql(f"INSERT INTO {src} VALUES (2)")
    spark.sql(f"INSERT INTO {src} VALUES (3)")
    assert snapshot_ids(warehouse, db, "src") == [3]
    with pytest.raises(Exception) as excinfo:
        _run(spark, src, dst, ckpt)
    assert (f"Streaming read of table {db}.src needs snapshot 2, which has expired (the earliest kept snapshot is 3)"
            in error_text(excinfo))
    assert "Restart the query with a new checkpoint location" in error_text(excinfo)


def test_complete_output_mode_is_refused(spark, db, tmp_path):
    src, dst = f"{CAT}.{db}.src", f"{CAT}.{db}.dst"
    spark.sql(f"CREATE TABLE {src} (id INT)")
    spark.sql(f"CREATE TABLE {dst} (id INT, n BIGINT)")
    spark.sql(f"INSERT INTO {src} VALUES (1)")
    with pytest.raises(Exception) as excinfo:
        q = (spark.readStream.table(src).groupBy("id").count().withColumnRenamed("count", "n").writeStream
             .outputMode("complete").option("checkpointLocation", str(tmp_path / "c")).trigger(availableNow=True)
             .toTable(dst))
        q.awaitTermination(60)
    assert (f"Streaming write into table {db}.dst: output mode complete is not supported (each micro-batch would "
            "replace the whole table); use output mode append") in error_text(excinfo)


def test_consumer_progress_is_kept_and_holds_snapshots_back(spark, warehouse, db, tmp_path):
    from pypaimon.consumer.consumer import Consumer

    src = f"{CAT}.{db}.src"
    spark.sql(f"CREATE TABLE {src} (id INT) TBLPROPERTIES ('snapshot.num-retained.min' = '1', "
              "'snapshot.num-retained.max' = '1')")
    spark.sql(f"INSERT INTO {src} VALUES (1)")

    def run(target, ckpt, **options):
        spark.sql(f"CREATE TABLE IF NOT EXISTS {CAT}.{db}.{target} (id INT)")
        _run(spark, src, f"{CAT}.{db}.{target}", str(tmp_path / ckpt), **{"consumer-id": "c1", **options})
        return [r[0] for r in sql_rows(spark, f"SELECT * FROM {CAT}.{db}.{target}")]

    assert run("d1", "k1") == [1]
    consumer_file = table_path(warehouse, db, "src") / "consumer" / "consumer-c1"
    assert consumer_file.read_text() == '{"nextSnapshot":2}'
    assert Consumer.from_json(consumer_file.read_text()).next_snapshot == 2  # pypaimon reads it
    spark.sql(f"INSERT INTO {src} VALUES (2)")
    spark.sql(f"INSERT INTO {src} VALUES (3)")
    assert snapshot_ids(warehouse, db, "src") == [2, 3]  # snapshot 2 is kept for the consumer
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.`src$consumers`") == [("c1", 2)]
    # a new query of the consumer starts at its progress, unless told to ignore it
    assert run("d2", "k2") == [2, 3]
    assert run("d3", "k3", **{"consumer.ignore-progress": "true", "scan.mode": "latest"}) == []
    spark.sql(f"INSERT INTO {src} VALUES (4)")
    assert snapshot_ids(warehouse, db, "src") == [4]
    # an idle consumer expires with consumer.expiration-time, and holds nothing back then
    spark.sql(f"ALTER TABLE {src} SET TBLPROPERTIES ('consumer.expiration-time' = '1 ms')")
    spark.sql(f"INSERT INTO {src} VALUES (5)")
    assert not consumer_file.exists()
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.`src$consumers`") == []


def test_reset_consumer_moves_or_removes_a_consumer(spark, db, tmp_path):
    from lamina import LaminaTable

    src = f"{CAT}.{db}.src"
    spark.sql(f"CREATE TABLE {src} (id INT)")
    for i in (1, 2, 3):
        spark.sql(f"INSERT INTO {src} VALUES ({i})")
    consumers = f"SELECT * FROM {CAT}.{db}.`src$consumers`"

    def stream(target):
        spark.sql(f"CREATE TABLE {CAT}.{db}.{target} (id INT)")
        _run(spark, src, f"{CAT}.{db}.{target}", str(tmp_path / target), **{"consumer-id": "c1"})
        return [r[0] for r in sql_rows(spark, f"SELECT * FROM {CAT}.{db}.{target}")]

    assert stream("d1") == [1, 2, 3]
    assert sql_rows(spark, consumers) == [("c1", 4)]
    # Paimon's argument names, positional or named; the consumer's next stream starts there
    spark.sql(f"CALL {CAT}.sys.reset_consumer('{db}.src', 'c1', 3)")
    assert sql_rows(spark, consumers) == [("c1", 3)]
    assert stream("d2") == [3]
    table = LaminaTable.for_name(spark, f"{db}.src")
    table.reset_consumer("c1", next_snapshot_id=2)
    assert [tuple(r) for r in table.consumers().collect()] == [("c1", 2)]
    for bad in (0, 5):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"CALL {CAT}.sys.reset_consumer(table => '{db}.src', consumer_id => 'c1', next_snapshot_id => {bad})")
        assert (f"Cannot reset consumer 'c1' of table {db}.src to snapshot {bad}: the table keeps snapshots 1 to 3, "
                "so the next snapshot to read is one of 1 to 4") in error_text(excinfo)
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CALL {CAT}.sys.reset_consumer(table => '{db}.src', consumerId => 'c1', consumer_id => 'c1')")
    assert "Give only one of the arguments 'consumerId' and 'consumer_id'" in error_text(excinfo)
    assert sql_rows(spark, consumers) == [("c1", 2)]
    # without a snapshot the consumer goes
    table.reset_consumer("c1")
    assert sql_rows(spark, consumers) == []
    spark.sql(f"CALL {CAT}.sys.reset_consumer(table => '{db}.src', consumerId => 'never-there')")
