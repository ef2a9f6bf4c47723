"""Incremental batch reads: `incremental-between` (snapshot ids or tag names),
`incremental-between-timestamp` and `incremental-between-scan-mode`. The table returns the inserted and
updated rows of the changes (Paimon drops retractions in batch reads); `$audit_log` returns every change
with its rowkind."""

import pytest

from _support import error_text, read_snapshot, snapshot_ids, sql_rows

CAT = "lamina"


def _read(spark, name, audit=False, **options):
    reader = spark.read
    for k, v in options.items():
        reader = reader.option(k.replace("_", "-"), v)
    head, table = name.rsplit(".", 1)
    target = f"{head}.`{table}$audit_log`" if audit else name
    return sorted(tuple(r) for r in reader.table(target).collect())


@pytest.fixture
def pk(spark, warehouse, db):
    """Snapshots 1 (APPEND), 2 (APPEND), 3 (COMPACT), 4 (APPEND: a delete)."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', "
              "'write-only' = 'true')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a2'), (3, 'c')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")
    assert [read_snapshot(warehouse, db, "t", i)["commitKind"] for i in snapshot_ids(warehouse, db, "t")] == \
        ["APPEND", "APPEND", "COMPACT", "APPEND"]
    return name


def test_delta_of_a_primary_key_table(spark, pk):
    assert _read(spark, pk, audit=True, incremental_between="1,4") == [("+I", 1, "a2"), ("+I", 3, "c"), ("-D", 2, "b")]
    assert _read(spark, pk, incremental_between="1,4") == [(1, "a2"), (3, "c")]
    assert _read(spark, pk, audit=True, incremental_between="2,3") == []  # a compaction changes no rows
    assert _read(spark, pk, audit=True, incremental_between="0,1") == [("+I", 1, "a"), ("+I", 2, "b")]
    # delta is what auto reads without a changelog producer; changelog finds none
    assert _read(spark, pk, audit=True, incremental_between="1,4", incremental_between_scan_mode="delta") == \
        _read(spark, pk, audit=True, incremental_between="1,4")
    assert _read(spark, pk, audit=True, incremental_between="0,4", incremental_between_scan_mode="changelog") == []
    # filters and projections apply to the changes
    df = spark.read.option("incremental-between", "0,2").table(pk).where("id = 1").select("v")
    assert sorted(r[0] for r in df.collect()) == ["a", "a2"]


def test_tag_names_and_timestamps(spark, warehouse, db, pk):
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'one', snapshot => 1)")
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'four', snapshot => 4)")
    assert _read(spark, pk, audit=True, incremental_between="one,four") == \
        _read(spark, pk, audit=True, incremental_between="1,4")
    t1 = read_snapshot(warehouse, db, "t", 1)["timeMillis"]
    t4 = read_snapshot(warehouse, db, "t", 4)["timeMillis"]
    assert _read(spark, pk, audit=True, incremental_between_timestamp=f"{t1},{t4}") == \
        _read(spark, pk, audit=True, incremental_between="1,4")
    # a start before the first snapshot reads from the beginning
    assert _read(spark, pk, incremental_between_timestamp=f"0,{t1}") == [(1, "a"), (2, "b")]


def test_append_table(spark, db):
    name = f"{CAT}.{db}.a"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING)")
    for i in range(1, 4):
        spark.sql(f"INSERT INTO {name} VALUES ({i}, 'v{i}')")
    assert _read(spark, name, incremental_between="1,3") == [(2, "v2"), (3, "v3")]
    assert _read(spark, name, audit=True, incremental_between="1,3") == [("+I", 2, "v2"), ("+I", 3, "v3")]
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(3,)]


def test_diff_between_two_snapshots(spark, pk):
    # snapshot 1: (1, a), (2, b); snapshot 4: (1, a2), (3, c)
    diff = dict(incremental_between="1,4", incremental_between_scan_mode="diff")
    assert _read(spark, pk, audit=True, **diff) == \
        [("+I", 3, "c"), ("+U", 1, "a2"), ("-D", 2, "b"), ("-U", 1, "a")]
    assert _read(spark, pk, **diff) == [(1, "a2"), (3, "c")]
    # a compaction changes files, not rows; from before the first snapshot everything is new
    assert _read(spark, pk, audit=True, incremental_between="2,3", incremental_between_scan_mode="diff") == []
    assert _read(spark, pk, audit=True, incremental_between="0,1", incremental_between_scan_mode="diff") == \
        [("+I", 1, "a"), ("+I", 2, "b")]


def test_diff_of_an_append_table(spark, db):
    name = f"{CAT}.{db}.a"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (3, 'c')")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")
    diff = dict(incremental_between="1,3", incremental_between_scan_mode="diff")
    # the DELETE rewrote the file that held (2, b): its rows leave, the ones it kept come back
    got = _read(spark, name, audit=True, **diff)
    kept = [r for r in got if ("-D" if r[0] == "+I" else "+I", *r[1:]) in got]
    assert sorted(set(got) - set(kept)) == [("+I", 3, "c"), ("-D", 2, "b")]
    assert all(r[0] in ("+I", "-D") for r in got)
    assert set(_read(spark, name, **diff)) == {(r[1], r[2]) for r in got if r[0] == "+I"}


@pytest.mark.parametrize("options, message", [
    ({"incremental_between": "3,1"}, "the start of an incremental read (3) lies after its end (1)"),
    ({"incremental_between": "1"}, "'incremental-between' = '1' must be 'start,end'"),
    ({"incremental_between": "1,4", "incremental_between_timestamp": "1,4"},
     "set only one of 'incremental-between' and 'incremental-between-timestamp'"),
    ({"incremental_between": "1,9"}, "Snapshot 5 of table"),
    ({"incremental_between": "nope,4"}, "nope"),
])
def test_bad_ranges_are_refused(spark, pk, options, message):
    with pytest.raises(Exception) as excinfo:
        _read(spark, pk, **options)
    assert message in error_text(excinfo)
