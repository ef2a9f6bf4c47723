"""Interop with Apache Paimon's Python reader and writer (pypaimon) on the same warehouse.

Lamina writes -> pypaimon reads identical rows, at the latest and an earlier snapshot.
pypaimon writes -> Lamina reads identical rows, including time travel.

In the pypaimon -> Lamina tests the SparkSession is fetched only after pypaimon has written and
read back, so the pypaimon half runs (and is checked) on its own.
"""

import datetime as dt
import itertools
import shutil
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

from _support import data_files, table_path

CAT = "lamina"
_counter = itertools.count()


# -- pypaimon helpers -------------------------------------------------------------------------

def paimon_write(table, data: pa.Table, overwrite=None):
    """One pypaimon batch commit; `overwrite` is None (append), {} (whole table) or a partition."""
    builder = table.new_batch_write_builder()
    if overwrite is not None:
        builder = builder.overwrite(overwrite)
    write, commit = builder.new_write(), builder.new_commit()
    try:
        write.write_arrow(data)
        commit.commit(write.prepare_commit())
    finally:
        write.close()
        commit.close()


def paimon_read(catalog, identifier, snapshot_id=None):
    """Rows as dicts sorted by id, at the latest snapshot or `snapshot_id`."""
    table = catalog.get_table(identifier)
    if snapshot_id is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot_id)})
    builder = table.new_read_builder()
    splits = builder.new_scan().plan().splits()
    return by_id(builder.new_read().to_arrow(splits).to_pylist())


def _normalize(v):
    # a map arrives as a list of (key, value) pairs whose order carries no meaning
    if isinstance(v, list) and v and all(isinstance(e, tuple) and len(e) == 2 for e in v):
        return sorted(v, key=lambda e: repr(e[0]))
    return v


def by_id(dicts):
    return sorted(({k: _normalize(v) for k, v in d.items()} for d in dicts), key=lambda d: d["id"])


def lamina_read(spark, name, version=None, columns=None):
    """Rows as dicts sorted by id, through Spark's Arrow conversion (same Python values as pyarrow)."""
    df = spark.sql(f"SELECT * FROM {name}" + (f" VERSION AS OF {version}" if version else ""))
    if columns is not None:
        df = df.select(*columns)
    return by_id(df.toArrow().to_pylist())


@pytest.fixture
def pdb(warehouse, paimon_catalog):
    """A database created by pypaimon (no Spark involved), removed afterwards."""
    name = f"interop_{next(_counter)}"
    paimon_catalog.create_database(name, False)
    yield name
    shutil.rmtree(Path(warehouse) / f"{name}.db", ignore_errors=True)


# -- rows used in both directions ---------------------------------------------------------------

ALL_TYPES_ARROW = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    ("b", pa.bool_()), ("ti", pa.int8()), ("si", pa.int16()), ("i", pa.int32()), ("bi", pa.int64()),
    ("f", pa.float32()), ("d", pa.float64()), ("dec", pa.decimal128(12, 3)), ("s", pa.string()),
    ("vc", pa.string()), ("ch", pa.string()), ("bin", pa.binary()), ("dt", pa.date32()),
    ("ts", pa.timestamp("us", tz="UTC")), ("ntz", pa.timestamp("us")),
    ("arr", pa.list_(pa.int32())), ("m", pa.map_(pa.string(), pa.int32())),
    ("st", pa.struct([("x", pa.int32()), ("y", pa.string())])),
])

UTC = dt.timezone.utc
ALL_TYPES_ROWS = [
    {"id": 1, "b": True, "ti": -128, "si": 32767, "i": -2147483648, "bi": 9223372036854775807,
     "f": 1.5, "d": -2.25, "dec": Decimal("123456789.123"), "s": "héllo ✓", "vc": "abcde", "ch": "abc",
     "bin": b"\x00\x01\xff", "dt": dt.date(2024, 2, 29),
     "ts": dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC),
     "ntz": dt.datetime(1999, 12, 31, 23, 59, 59, 999999),
     "arr": [1, None, 3], "m": [("k", 1), ("n", None)], "st": {"x": 7, "y": "seven"}},
    {"id": 2, "b": False, "ti": 0, "si": 0, "i": 0, "bi": 0, "f": 0.0, "d": 0.0, "dec": Decimal("0.000"),
     "s": "", "vc": "", "ch": "xyz", "bin": b"", "dt": dt.date(1970, 1, 1),
     "ts": dt.datetime(1970, 1, 1, tzinfo=UTC), "ntz": dt.datetime(1970, 1, 1),
     "arr": [], "m": [], "st": {"x": None, "y": None}},
    dict({"id": 3}, **{name: None for name in ALL_TYPES_ARROW.names[1:]}),
]
ALL_TYPES_DDL = """id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE,
    dec DECIMAL(12, 3), s STRING, vc VARCHAR(5), ch CHAR(3), bin BINARY, dt DATE, ts TIMESTAMP,
    ntz TIMESTAMP_NTZ, arr ARRAY<INT>, m MAP<STRING, INT>, st STRUCT<x: INT, y: STRING>"""


def paimon_all_types_schema():
    from pypaimon import Schema
    from pypaimon.schema.data_types import AtomicType

    schema = Schema.from_pyarrow_schema(ALL_TYPES_ARROW)
    for field in schema.fields:
        if field.name == "vc":
            field.type = AtomicType("VARCHAR(5)", True)
        elif field.name == "ch":
            field.type = AtomicType("CHAR(3)", True)
    return schema


# -- Lamina writes, pypaimon reads --------------------------------------------------------------

def test_lamina_partitioned_append_read_by_pypaimon(spark, db, paimon_catalog):
    name = f"{CAT}.{db}.events"
    spark.sql(f"""CREATE TABLE {name} (id INT NOT NULL, name STRING, amount DECIMAL(10, 2), d DATE, p STRING)
                  PARTITIONED BY (p)""")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1.10, DATE'2024-01-01', 'x'), (2, NULL, NULL, NULL, 'y')")
    spark.sql(f"INSERT INTO {name} VALUES (3, 'c', 3.30, DATE'2024-01-03', 'x')")
    first = [
        {"id": 1, "name": "a", "amount": Decimal("1.10"), "d": dt.date(2024, 1, 1), "p": "x"},
        {"id": 2, "name": None, "amount": None, "d": None, "p": "y"},
    ]
    third = {"id": 3, "name": "c", "amount": Decimal("3.30"), "d": dt.date(2024, 1, 3), "p": "x"}
    assert paimon_read(paimon_catalog, f"{db}.events") == first + [third]
    assert paimon_read(paimon_catalog, f"{db}.events", snapshot_id=1) == first

    spark.sql(f"INSERT OVERWRITE {name} PARTITION (p = 'x') VALUES (4, 'd', 4.40, DATE'2024-01-04')")
    fourth = {"id": 4, "name": "d", "amount": Decimal("4.40"), "d": dt.date(2024, 1, 4), "p": "x"}
    assert paimon_read(paimon_catalog, f"{db}.events") == [first[1], fourth]
    assert paimon_read(paimon_catalog, f"{db}.events", snapshot_id=2) == first + [third]


def test_lamina_fixed_bucket_table_shared_with_pypaimon(spark, db, paimon_catalog):
    name = f"{CAT}.{db}.b"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('bucket' = '3', 'bucket-key' = 'id')")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), CAST(id AS STRING) FROM range(0, 30)")
    expected = [{"id": i, "v": str(i)} for i in range(30)]
    assert paimon_read(paimon_catalog, f"{db}.b") == expected

    # pypaimon appends to Lamina's table; Lamina reads both writers' rows and both snapshots.
    table = paimon_catalog.get_table(f"{db}.b")
    paimon_write(table, pa.table({"id": pa.array([100, 101], pa.int32()), "v": ["p100", "p101"]}))
    expected += [{"id": 100, "v": "p100"}, {"id": 101, "v": "p101"}]
    assert lamina_read(spark, name) == expected
    assert lamina_read(spark, name, version=1) == expected[:30]


def test_lamina_all_types_read_by_pypaimon(spark, db, paimon_catalog):
    name = f"{CAT}.{db}.all_types"
    spark.sql(f"CREATE TABLE {name} ({ALL_TYPES_DDL})")
    spark.createDataFrame(_spark_rows(), _spark_schema()).createOrReplaceTempView("all_types_src")
    spark.sql(f"INSERT INTO {name} SELECT * FROM all_types_src")
    assert lamina_read(spark, name) == ALL_TYPES_ROWS
    assert paimon_read(paimon_catalog, f"{db}.all_types") == ALL_TYPES_ROWS


def test_lamina_schema_change_read_by_pypaimon(spark, db, paimon_catalog):
    name = f"{CAT}.{db}.evolving"
    spark.sql(f"CREATE TABLE {name} (id INT, a INT)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 10)")
    spark.sql(f"ALTER TABLE {name} ADD COLUMN c STRING")
    spark.sql(f"ALTER TABLE {name} RENAME COLUMN a TO b")
    spark.sql(f"ALTER TABLE {name} ALTER COLUMN b TYPE BIGINT")
    spark.sql(f"INSERT INTO {name} VALUES (2, 20000000000, 'two')")
    assert paimon_read(paimon_catalog, f"{db}.evolving") == [
        {"id": 1, "b": 10, "c": None}, {"id": 2, "b": 20000000000, "c": "two"}]
    assert paimon_read(paimon_catalog, f"{db}.evolving", snapshot_id=1) == [{"id": 1, "a": 10}]


def _spark_schema():
    return ("id INT, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE, "
            "dec DECIMAL(12, 3), s STRING, vc STRING, ch STRING, bin BINARY, dt DATE, ts TIMESTAMP, "
            "ntz TIMESTAMP_NTZ, arr ARRAY<INT>, m MAP<STRING, INT>, st STRUCT<x: INT, y: STRING>")


def _spark_rows():
    """ALL_TYPES_ROWS as tuples for createDataFrame (maps as dicts, structs as tuples, UTC naive)."""
    out = []
    for row in ALL_TYPES_ROWS:
        values = []
        for key, value in row.items():
            if key == "m" and value is not None:
                value = dict(value)
            elif key == "st" and value is not None:
                value = (value["x"], value["y"])
            elif key == "ts" and value is not None:
                value = value.replace(tzinfo=None)  # the session and the process are in UTC
            values.append(value)
        out.append(tuple(values))
    return out


# -- pypaimon writes, Lamina reads --------------------------------------------------------------

def test_pypaimon_append_read_by_lamina(request, pdb, paimon_catalog):
    from pypaimon import Schema

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()), ("score", pa.float64())])
    paimon_catalog.create_table(f"{pdb}.t", Schema.from_pyarrow_schema(schema), False)
    table = paimon_catalog.get_table(f"{pdb}.t")
    first = [{"id": 1, "name": "a", "score": 1.5}, {"id": 2, "name": None, "score": None}]
    second = [{"id": 3, "name": "c", "score": -3.0}]
    paimon_write(table, pa.Table.from_pylist(first, schema=schema))
    paimon_write(table, pa.Table.from_pylist(second, schema=schema))
    assert paimon_read(paimon_catalog, f"{pdb}.t") == first + second
    assert paimon_read(paimon_catalog, f"{pdb}.t", snapshot_id=1) == first

    spark = request.getfixturevalue("spark")
    assert lamina_read(spark, f"{CAT}.{pdb}.t") == first + second
    assert lamina_read(spark, f"{CAT}.{pdb}.t", version=1) == first
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{pdb}").collect()] == ["t"]
    assert spark.sql(f"SELECT * FROM {CAT}.{pdb}.t WHERE name = 'c'").count() == 1


def test_pypaimon_partitioned_fixed_bucket_with_overwrite_read_by_lamina(request, pdb, paimon_catalog):
    from pypaimon import Schema

    schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("v", pa.string()), ("p", pa.string())])
    options = {"bucket": "3", "bucket-key": "id", "file.format": "parquet"}
    paimon_catalog.create_table(
        f"{pdb}.t", Schema.from_pyarrow_schema(schema, partition_keys=["p"], options=options), False)
    table = paimon_catalog.get_table(f"{pdb}.t")
    batches = [
        [{"id": i, "v": f"v{i}", "p": "x" if i % 2 else "y"} for i in range(0, 12)],
        [{"id": i, "v": f"v{i}", "p": "z"} for i in range(12, 16)],
        [{"id": 16, "v": "v16", "p": "x"}],
    ]
    for batch in batches:
        paimon_write(table, pa.Table.from_pylist(batch, schema=schema))
    paimon_write(table, pa.Table.from_pylist([{"id": 99, "v": "new", "p": "y"}], schema=schema),
                 overwrite={"p": "y"})
    per_snapshot = {s: paimon_read(paimon_catalog, f"{pdb}.t", snapshot_id=s) for s in (1, 2, 3, 4)}
    assert [len(per_snapshot[s]) for s in (1, 2, 3, 4)] == [12, 16, 17, 12]
    assert per_snapshot[4] == paimon_read(paimon_catalog, f"{pdb}.t")
    assert {r["id"] for r in per_snapshot[4] if r["p"] == "y"} == {99}

    spark = request.getfixturevalue("spark")
    name = f"{CAT}.{pdb}.t"
    assert lamina_read(spark, name) == per_snapshot[4]
    for s in (1, 2, 3, 4):
        assert lamina_read(spark, name, version=s) == per_snapshot[s], f"snapshot {s}"
    assert [r[0] for r in spark.sql(f"SELECT commit_kind FROM {CAT}.{pdb}.`t$snapshots` "
                                    "ORDER BY snapshot_id").collect()] == [
        "APPEND", "APPEND", "APPEND", "OVERWRITE"]
    assert spark.sql(f"SELECT id FROM {name} WHERE p = 'z' AND id > 13").count() == 2

    # Lamina appends to pypaimon's table and pypaimon sees it.
    spark.sql(f"INSERT INTO {name} VALUES (200, 'lamina', 'x')")
    assert {"id": 200, "v": "lamina", "p": "x"} in paimon_read(paimon_catalog, f"{pdb}.t")


def test_pypaimon_all_types_with_nulls_read_by_lamina(request, pdb, paimon_catalog):
    paimon_catalog.create_table(f"{pdb}.all_types", paimon_all_types_schema(), False)
    table = paimon_catalog.get_table(f"{pdb}.all_types")
    paimon_write(table, pa.Table.from_pylist(ALL_TYPES_ROWS[:2], schema=ALL_TYPES_ARROW))
    paimon_write(table, pa.Table.from_pylist(ALL_TYPES_ROWS[2:], schema=ALL_TYPES_ARROW))
    assert paimon_read(paimon_catalog, f"{pdb}.all_types") == ALL_TYPES_ROWS
    assert paimon_read(paimon_catalog, f"{pdb}.all_types", snapshot_id=1) == ALL_TYPES_ROWS[:2]

    spark = request.getfixturevalue("spark")
    name = f"{CAT}.{pdb}.all_types"
    assert lamina_read(spark, name) == ALL_TYPES_ROWS
    assert lamina_read(spark, name, version=1) == ALL_TYPES_ROWS[:2]
    described = [(r.col_name, r.data_type) for r in spark.sql(f"DESCRIBE TABLE {name}").collect()][:19]
    assert described[10:12] == [("vc", "string"), ("ch", "string")]
    assert described[14:16] == [("ts", "timestamp"), ("ntz", "timestamp_ntz")]


def test_pypaimon_filters_lamina_files_by_their_value_stats(spark, warehouse, db, paimon_catalog):
    """pypaimon skips data files by the value stats Lamina records (here from the Parquet footers of
    integer, date and string columns). Every file a filter excludes is overwritten with garbage, so the
    read succeeds only if pypaimon skipped it, and must return exactly the rows Spark's filter returns."""
    import datetime

    name = f"lamina.{db}.stats_filtered"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, n INT, d DATE, s STRING)")
    for k in range(4):  # one file per insert, each with its own ranges of n, d and s, and nulls in s
        spark.sql(f"INSERT INTO {name} SELECT id, CAST(id * 3 AS INT), date_add(DATE'2024-01-01', CAST(id AS INT)), "
                  f"CASE WHEN id % 7 = 0 THEN NULL ELSE concat('{'abcd'[k]}', CAST(id AS STRING)) END "
                  f"FROM range({k * 100}, {k * 100 + 100}) AS t(id)")
    expected = {}
    cases = [
        (lambda p: p.between("n", 300, 450), "n BETWEEN 300 AND 450"),
        (lambda p: p.greater_or_equal("s", "c"), "s >= 'c'"),
        (lambda p: p.less_than("d", datetime.date(2024, 2, 15)), "d < DATE'2024-02-15'"),
    ]
    for _, condition in cases:
        expected[condition] = sorted(r.id for r in spark.sql(f"SELECT id FROM {name} WHERE {condition}").collect())
    files = {f: sorted(r.id for r in spark.read.parquet(str(table_path(warehouse, db, "stats_filtered") / f))
                       .select("id").collect()) for f in data_files(warehouse, db, "stats_filtered")}
    originals = {f: (table_path(warehouse, db, "stats_filtered") / f).read_bytes() for f in files}
    table = paimon_catalog.get_table(f"{db}.stats_filtered")
    for make, condition in cases:
        spoiled = [f for f, ids in files.items() if not set(ids) & set(expected[condition])]
        assert spoiled and len(spoiled) < len(files), condition
        for f in spoiled:
            path = table_path(warehouse, db, "stats_filtered") / f
            path.write_bytes(b"\x00" * path.stat().st_size)
        try:
            builder = table.new_read_builder()
            builder = builder.with_filter(make(builder.new_predicate_builder()))
            splits = builder.new_scan().plan().splits()
            got = sorted(r["id"] for r in builder.new_read().to_arrow(splits).to_pylist())
            assert got == expected[condition], condition
        finally:
            for f in spoiled:
                (table_path(warehouse, db, "stats_filtered") / f).write_bytes(originals[f])
