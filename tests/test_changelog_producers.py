"""changelog-producer = lookup and full-compaction: compactions write each changed key's row before and
after (-U/+U, +I, -D) to changelog files that the COMPACT snapshot lists; per merge engine, with and
without deletion vectors; row-deduplicate; full-compaction.delta-commits; the rules for setting and
changing the producer; pypaimon streams the changelog."""

import asyncio

import pytest

from _support import error_text, read_snapshot, snapshot_ids, sql_rows, table_path

CAT = "lamina"


def _changes(spark, name, start, end):
    head, table = name.rsplit(".", 1)
    reader = (spark.read.option("incremental-between", f"{start},{end}")
              .option("incremental-between-scan-mode", "changelog"))
    return [tuple(r) for r in reader.table(f"{head}.`{table}$audit_log`").collect()]


def _latest(warehouse, db, table="t"):
    return max(snapshot_ids(warehouse, db, table))


def _create(spark, db, columns, props, table="t"):
    name = f"{CAT}.{db}.{table}"
    spark.sql(f"CREATE TABLE {name} ({columns}) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', {props})")
    return name


ENGINES = {
    "deduplicate": ("k INT, v STRING", "'merge-engine' = 'deduplicate'",
                    ["(1, 'a'), (2, 'b')", "(1, 'a2'), (3, 'c')"],
                    [("+I", 1, "a"), ("+I", 2, "b"), ("-U", 1, "a"), ("+U", 1, "a2"), ("+I", 3, "c")]),
    "partial-update": ("k INT, v STRING, w STRING", "'merge-engine' = 'partial-update'",
                       ["(1, 'a', NULL), (2, 'b', 'x')", "(1, NULL, 'y'), (3, NULL, 'z')"],
                       [("+I", 1, "a", None), ("+I", 2, "b", "x"), ("-U", 1, "a", None), ("+U", 1, "a", "y"),
                        ("+I", 3, None, "z")]),
    "aggregation": ("k INT, n BIGINT", "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum'",
                    ["(1, 5), (2, 1)", "(1, 3), (3, 7)"],
                    [("+I", 1, 5), ("+I", 2, 1), ("-U", 1, 5), ("+U", 1, 8), ("+I", 3, 7)]),
    # first-row: a key's first row only, as +I; a later row of the key changes nothing
    "first-row": ("k INT, v STRING", "'merge-engine' = 'first-row'",
                  ["(1, 'a'), (2, 'b')", "(1, 'a2'), (3, 'c')"],
                  [("+I", 1, "a"), ("+I", 2, "b"), ("+I", 3, "c")]),
}
CASES = [(e, dv) for e in ENGINES for dv in (False, True) if not (dv and e == "first-row")]


@pytest.mark.parametrize("engine, dv", CASES, ids=[f"{e}{'-dv' if dv else ''}" for e, dv in CASES])
def test_lookup_changelog_per_engine(spark, warehouse, db, engine, dv):
    columns, props, writes, expected = ENGINES[engine]
    name = _create(spark, db, columns, f"{props}, 'changelog-producer' = 'lookup'"
                   f"{', ' + repr('deletion-vectors.enabled') + ' = ' + repr('true') if dv else ''}")
    for w in writes:
        spark.sql(f"INSERT INTO {name} VALUES {w}")
    # each write's compaction (a COMPACT snapshot after its APPEND) carries its changelog
    kinds = [read_snapshot(warehouse, db, "t", i)["commitKind"] for i in snapshot_ids(warehouse, db, "t")]
    assert kinds == ["APPEND", "COMPACT", "APPEND", "COMPACT"]
    assert "changelogManifestList" not in read_snapshot(warehouse, db, "t", 3)
    assert read_snapshot(warehouse, db, "t", 4)["changelogRecordCount"] == len(expected) - len(_changes(spark, name, 0, 2))
    assert _changes(spark, name, 0, 4) == expected
    assert list(table_path(warehouse, db, "t").glob("bucket-0/changelog-*"))


def test_a_delete_retracts_the_whole_row(spark, warehouse, db):
    name = _create(spark, db, "k INT, v STRING, w STRING",
                   "'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true', "
                   "'changelog-producer' = 'lookup'")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    start = _latest(warehouse, db)
    spark.sql(f"DELETE FROM {name} WHERE k = 2")
    assert _changes(spark, name, start, _latest(warehouse, db)) == [("-D", 2, "b", "y")]


def test_aggregation_without_vectors_reads_whole_rows_above_level_0(spark, warehouse, db):
    # no universal compaction: each write's level 0 goes up one level at a time, and the older rows of a
    # key stay in the levels above; each row above level 0 is the key's whole sum, and reads take the
    # newest one only
    name = _create(spark, db, "k INT, n BIGINT", "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', "
                   "'changelog-producer' = 'lookup', 'num-sorted-run.compaction-trigger' = '20'")
    for i in range(1, 5):
        spark.sql(f"INSERT INTO {name} VALUES (1, {i}), ({10 + i}, 1)")
    levels = sql_rows(spark, f"SELECT DISTINCT level FROM {CAT}.{db}.`t$files`")
    assert len(levels) > 1 and (0,) not in levels
    assert sql_rows(spark, f"SELECT * FROM {name} WHERE k = 1") == [(1, 10)]
    assert sql_rows(spark, f"SELECT sum(n) FROM {name}") == [(14,)]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sql_rows(spark, f"SELECT * FROM {name} WHERE k = 1") == [(1, 10)]
    assert sql_rows(spark, f"SELECT sum(n) FROM {name}") == [(14,)]
    # a full compaction of unchanged rows changes no key: no changelog
    assert _changes(spark, name, 8, _latest(warehouse, db)) == []


@pytest.mark.parametrize("dedup", [False, True])
def test_row_deduplicate_drops_unchanged_rows(spark, warehouse, db, dedup):
    name = _create(spark, db, "k INT, v STRING, t STRING",
                   f"'changelog-producer' = 'lookup', 'changelog-producer.row-deduplicate' = '{str(dedup).lower()}', "
                   "'changelog-producer.row-deduplicate-ignore-fields' = 't'")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 't1'), (2, 'b', 't1')")
    start = _latest(warehouse, db)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 't2'), (2, 'b2', 't2')")
    got = _changes(spark, name, start, _latest(warehouse, db))
    changed = [("-U", 2, "b", "t1"), ("+U", 2, "b2", "t2")]
    assert got == (changed if dedup else [("-U", 1, "a", "t1"), ("+U", 1, "a", "t2")] + changed)


def test_full_compaction_producer(spark, warehouse, db):
    # without delta-commits, only a full compaction produces the changelog (as Paimon's Spark writers)
    name = _create(spark, db, "k INT, v STRING", "'changelog-producer' = 'full-compaction'")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a2'), (3, 'c')")
    assert _changes(spark, name, 0, _latest(warehouse, db)) == []
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert _changes(spark, name, 0, _latest(warehouse, db)) == [("+I", 1, "a2"), ("+I", 2, "b"), ("+I", 3, "c")]
    start = _latest(warehouse, db)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a2'), (2, 'b2')")   # key 1 unchanged: no -U/+U
    spark.sql(f"DELETE FROM {name} WHERE k = 3")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert _changes(spark, name, start, _latest(warehouse, db)) == [("-U", 2, "b", None)[:3], ("+U", 2, "b2"),
                                                                    ("-D", 3, "c")]
    # with delta-commits, each batch write compacts fully after it commits
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('full-compaction.delta-commits' = '1')")
    start = _latest(warehouse, db)
    spark.sql(f"INSERT INTO {name} VALUES (4, 'd')")
    assert _changes(spark, name, start, _latest(warehouse, db)) == [("+I", 4, "d")]
    assert sql_rows(spark, f"SELECT DISTINCT level FROM {CAT}.{db}.`t$files`") == [(5,)]


def test_producer_rules(spark, warehouse, db):
    with pytest.raises(Exception) as excinfo:
        _create(spark, db, "k INT, v STRING", "'changelog-producer' = 'lookup', 'full-compaction.delta-commits' = '2'",
                "a")
    assert "'full-compaction.delta-commits' does not go with 'changelog-producer' = 'lookup'" in error_text(excinfo)
    with pytest.raises(Exception) as excinfo:
        _create(spark, db, "k INT, v STRING", "'changelog-producer' = 'lookup', "
                "'changelog-producer.row-deduplicate-ignore-fields' = 'nope'", "b")
    assert "names column 'nope', which the table does not have" in error_text(excinfo)
    # an aggregation table's rows above level 0 merge differently with the lookup producer: no switch with data
    agg = _create(spark, db, "k INT, n BIGINT", "'merge-engine' = 'aggregation'", "agg")
    spark.sql(f"INSERT INTO {agg} VALUES (1, 2)")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"ALTER TABLE {agg} SET TBLPROPERTIES ('changelog-producer' = 'lookup')")
    assert f"Cannot set 'changelog-producer' to 'lookup' on table {db}.agg" in error_text(excinfo)
    assert sql_rows(spark, f"SELECT * FROM {agg}") == [(1, 2)]
    # a deduplicate table's rows merge the same either way: the switch works, and the next write has changelog
    dedup = _create(spark, db, "k INT, v STRING", "'merge-engine' = 'deduplicate'", "d")
    spark.sql(f"INSERT INTO {dedup} VALUES (1, 'a')")
    # (a row still in level 0 when the producer changes is compacted with the next write's, as new: +I)
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.d')")
    spark.sql(f"ALTER TABLE {dedup} SET TBLPROPERTIES ('changelog-producer' = 'lookup')")
    start = _latest(warehouse, db, "d")
    spark.sql(f"INSERT INTO {dedup} VALUES (1, 'b')")
    assert _changes(spark, dedup, start, _latest(warehouse, db, "d")) == [("-U", 1, "a"), ("+U", 1, "b")]


def test_pypaimon_streams_the_lookup_changelog(spark, warehouse, db, paimon_catalog):
    name = _create(spark, db, "k INT, v STRING", "'changelog-producer' = 'lookup'")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a2')")
    spark.sql(f"DELETE FROM {name} WHERE k = 2")
    last = _latest(warehouse, db)
    table = paimon_catalog.get_table(f"{db}.t")
    builder = table.new_stream_read_builder().with_include_row_kind(True).with_poll_interval_ms(10)
    scan, read = builder.new_streaming_scan(), builder.new_read()
    scan.next_snapshot_id = 1

    async def changes():
        out = []
        stream = scan.stream()
        while scan.next_snapshot_id is None or scan.next_snapshot_id <= last:
            plan = await stream.__anext__()
            out += [(r["_row_kind"], r["k"], r["v"]) for r in read.to_arrow(plan.splits()).to_pylist()]
        return out

    got = asyncio.run(asyncio.wait_for(changes(), 60))
    assert got == [("+I", 1, "a"), ("+I", 2, "b"), ("-U", 1, "a"), ("+U", 1, "a2"), ("-D", 2, "b")]


def test_binlog_packs_updates(spark, warehouse, db, tmp_path):
    name = _create(spark, db, "k INT, v STRING", "'changelog-producer' = 'lookup'")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a2')")
    spark.sql(f"DELETE FROM {name} WHERE k = 2")
    binlog = f"{CAT}.{db}.`t$binlog`"
    assert spark.table(binlog).schema.simpleString() == "struct<rowkind:string,k:array<int>,v:array<string>>"
    expected = [("+I", [1], ["a"]), ("+I", [2], ["b"]), ("+U", [1, 1], ["a", "a2"]), ("-D", [2], ["b"])]
    got = spark.read.option("incremental-between", f"0,{_latest(warehouse, db)}").table(binlog).collect()
    assert [tuple(r) for r in got] == expected
    # a batch read is $audit_log's (the merged records, a delete still kept in the levels included)
    assert sorted(tuple(r) for r in spark.table(binlog).collect()) == sorted(
        tuple(r[:1]) + tuple([x] for x in r[1:]) for r in spark.table(f"{CAT}.{db}.`t$audit_log`").collect())
    # as a stream, from the first snapshot on
    spark.sql(f"CREATE TABLE {CAT}.{db}.bl (rowkind STRING, k ARRAY<INT>, v ARRAY<STRING>)")
    q = (spark.readStream.option("scan.mode", "from-snapshot").option("scan.snapshot-id", "1").table(binlog)
         .writeStream.option("checkpointLocation", str(tmp_path / "bl")).trigger(availableNow=True)
         .toTable(f"{CAT}.{db}.bl"))
    q.awaitTermination(120)
    assert q.exception() is None
    assert sorted(tuple(r) for r in spark.table(f"{CAT}.{db}.bl").collect()) == sorted(expected)
