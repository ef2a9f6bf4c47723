"""Primary-key tables shared with Apache Paimon's Python library (pypaimon) on the same warehouse.

Lamina writes (several sorted runs, compacted, partitioned, each merge engine, row-level deletes)
and pypaimon reads the rows the merge semantics define; pypaimon writes (several commits, so several
level-0 runs; each merge engine; deletes through 'rowkind.field') and Lamina reads the same rows as
pypaimon. pypaimon-side tables are created and written before the SparkSession is first used.
"""

import itertools
import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from _support import sql_rows

CAT = "lamina"
_counter = itertools.count()


def _key(d):
    return repr(sorted(d.items()))


def dicts(rows):
    return sorted(rows, key=_key)


def paimon_read(catalog, identifier):
    table = catalog.get_table(identifier)
    builder = table.new_read_builder()
    return dicts(builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist())


def lamina_read(spark, name, columns="*"):
    return dicts(spark.sql(f"SELECT {columns} FROM {name}").toArrow().to_pylist())


def paimon_write(table, rows, schema):
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    try:
        write.write_arrow(pa.Table.from_pylist(rows, schema=schema))
        commit.commit(write.prepare_commit())
    finally:
        write.close()
        commit.close()


def paimon_create(catalog, identifier, schema, primary_keys, options, partition_keys=None):
    from pypaimon import Schema

    catalog.create_table(identifier, Schema.from_pyarrow_schema(
        schema, partition_keys=partition_keys, primary_keys=primary_keys,
        options={"bucket": "2", "file.format": "parquet", **options}), False)
    return catalog.get_table(identifier)


@pytest.fixture
def pdb(warehouse, paimon_catalog):
    """A database created by pypaimon (no Spark involved), removed afterwards."""
    name = f"interop_pk_{next(_counter)}"
    paimon_catalog.create_database(name, False)
    yield name
    shutil.rmtree(Path(warehouse) / f"{name}.db", ignore_errors=True)


def lamina_create(spark, db, columns, props, partitioned_by=None):
    name = f"{CAT}.{db}.t"
    options = ", ".join(f"'{k}' = '{v}'" for k, v in {"bucket": "2", **props}.items())
    partition = f" PARTITIONED BY ({partitioned_by})" if partitioned_by else ""
    spark.sql(f"CREATE TABLE {name} ({columns}){partition} TBLPROPERTIES ({options})")
    return name


# -- Lamina writes, pypaimon reads ----------------------------------------------------------------

def test_lamina_sorted_runs_then_compaction_read_by_pypaimon(spark, db, paimon_catalog):
    name = lamina_create(spark, db, "id INT, v STRING, n BIGINT", {"primary-key": "id"})
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'a', id FROM range(0, 20)")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'b', id * 10 FROM range(10, 30)")
    spark.sql(f"INSERT INTO {name} VALUES (3, NULL, NULL), (29, 'c', -1)")
    expected = dicts([{"id": i, "v": "a", "n": i} for i in range(10) if i != 3]
                     + [{"id": 3, "v": None, "n": None}]
                     + [{"id": i, "v": "b", "n": i * 10} for i in range(10, 29)]
                     + [{"id": 29, "v": "c", "n": -1}])
    assert set(r[0] for r in sql_rows(spark, f"SELECT level FROM {CAT}.{db}.`t$files`")) == {0}
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{db}.t") == expected

    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert 0 not in {r[0] for r in sql_rows(spark, f"SELECT level FROM {CAT}.{db}.`t$files`")}
    assert paimon_read(paimon_catalog, f"{db}.t") == expected


@pytest.mark.parametrize("version, encoding", [("v1", "PLAIN"), ("v2", "DELTA_BINARY_PACKED")])
def test_lamina_parquet_writer_versions_read_by_pypaimon(spark, db, paimon_catalog, version, encoding):
    import pyarrow.parquet as pq

    name = lamina_create(spark, db, "id BIGINT, v STRING, n BIGINT",
                         {"primary-key": "id", "parquet.writer.version": version, "file.compression.zstd-level": "3"})
    spark.sql(f"INSERT INTO {name} SELECT id, concat('v', CAST(id % 7 AS STRING)), id * 3 FROM range(0, 3000)")
    spark.sql(f"INSERT INTO {name} SELECT id, 'w', -id FROM range(2000, 4000)")
    expected = dicts([{"id": i, "v": f"v{i % 7}", "n": i * 3} for i in range(2000)]
                     + [{"id": i, "v": "w", "n": -i} for i in range(2000, 4000)])
    paths = [r[0] for r in sql_rows(spark, f"SELECT file_path FROM {CAT}.{db}.`t$files`")]
    for path in paths:
        column = pq.ParquetFile(path).metadata.row_group(0).column(1)
        assert column.path_in_schema == "_SEQUENCE_NUMBER"
        assert encoding in column.encodings
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{db}.t") == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{db}.t") == expected


def test_lamina_partitioned_pk_table_read_by_pypaimon(spark, db, paimon_catalog):
    name = lamina_create(spark, db, "p STRING, id INT, v STRING", {"primary-key": "p,id"}, partitioned_by="p")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'x1'), ('x', 2, 'x2'), ('y', 1, 'y1')")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'x1b'), ('y', 2, 'y2'), ('y', 1, 'y1b')")
    assert paimon_read(paimon_catalog, f"{db}.t") == dicts([
        {"p": "x", "id": 1, "v": "x1b"}, {"p": "x", "id": 2, "v": "x2"},
        {"p": "y", "id": 1, "v": "y1b"}, {"p": "y", "id": 2, "v": "y2"}])


def test_lamina_deletes_updates_and_merge_read_by_pypaimon(spark, db, paimon_catalog):
    name = lamina_create(spark, db, "id INT, v STRING", {"primary-key": "id"})
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), CAST(id AS STRING) FROM range(0, 10)")
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 3, 5)")
    spark.sql(f"UPDATE {name} SET v = 'updated' WHERE id = 2")
    spark.sql(f"""MERGE INTO {name} t USING (SELECT * FROM VALUES (4, 'm4'), (7, 'gone'), (20, 'new') AS s(id, v)) s
                  ON t.id = s.id WHEN MATCHED AND s.v = 'gone' THEN DELETE
                  WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *""")
    expected = dicts([{"id": 0, "v": "0"}, {"id": 2, "v": "updated"}, {"id": 4, "v": "m4"},
                      {"id": 6, "v": "6"}, {"id": 8, "v": "8"}, {"id": 9, "v": "9"}, {"id": 20, "v": "new"}])
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{db}.t") == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert paimon_read(paimon_catalog, f"{db}.t") == expected


def test_lamina_sequence_field_read_by_pypaimon(spark, db, paimon_catalog):
    name = lamina_create(spark, db, "id INT, v STRING, ts BIGINT", {"primary-key": "id", "sequence.field": "ts"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'new', 20), (2, 'old', 1)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'old', 10), (2, 'new', 2)")
    expected = dicts([{"id": 1, "v": "new", "ts": 20}, {"id": 2, "v": "new", "ts": 2}])
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{db}.t") == expected


@pytest.mark.parametrize("ts_type", ["BIGINT NOT NULL", "BIGINT"])
def test_lamina_deletes_with_sequence_field_read_by_pypaimon(spark, db, paimon_catalog, ts_type):
    name = lamina_create(spark, db, f"id INT, v STRING, ts {ts_type}",
                         {"primary-key": "id", "sequence.field": "ts"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 20), (2, 'b', 20), (3, 'c', 5)")
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 3)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'late', 10), (3, 'later', 6)")
    expected = dicts([{"id": 2, "v": "b", "ts": 20}, {"id": 3, "v": "later", "ts": 6}])
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{db}.t") == expected


N = None
# (options, three commits of (id, a, b, s) rows, rows after merging) per merge engine
ENGINE_CASES = {
    "partial-update": (
        {"merge-engine": "partial-update"},
        [[(1, 1, N, "x"), (2, 2, 20, N)], [(1, N, 10, N)], [(1, 5, N, N), (3, N, N, "z")]],
        [(1, 5, 10, "x"), (2, 2, 20, N), (3, N, N, "z")],
    ),
    "aggregation": (
        {"merge-engine": "aggregation", "fields.a.aggregate-function": "sum",
         "fields.b.aggregate-function": "max", "fields.s.aggregate-function": "listagg"},
        [[(1, 1, 5, "x"), (2, 2, 20, N)], [(1, 10, 3, "y")], [(1, N, 7, N), (2, 3, N, "w")]],
        [(1, 11, 7, "x,y"), (2, 5, 20, "w")],
    ),
    "first-row": (
        {"merge-engine": "first-row"},
        [[(1, 1, N, "x"), (2, 2, 20, N)], [(1, 9, 9, "y"), (3, 3, 30, "z")], [(3, 0, 0, "")]],
        [(1, 1, N, "x"), (2, 2, 20, N), (3, 3, 30, "z")],
    ),
}
ABS = pa.schema([pa.field("id", pa.int32(), nullable=False), ("a", pa.int32()), ("b", pa.int32()),
                 ("s", pa.string())])


def as_dicts(tuples):
    return dicts(dict(zip(ABS.names, t)) for t in tuples)


def sql_values(tuples):
    def literal(v):
        return "NULL" if v is None else f"'{v}'" if isinstance(v, str) else str(v)
    return ", ".join("(" + ", ".join(literal(v) for v in t) + ")" for t in tuples)


@pytest.mark.parametrize("engine", list(ENGINE_CASES))
def test_lamina_merge_engines_read_by_pypaimon(spark, db, paimon_catalog, engine):
    options, inserts, expected = ENGINE_CASES[engine]
    name = lamina_create(spark, db, "id INT, a INT, b INT, s STRING", {"primary-key": "id", **options})
    for commit in inserts:
        spark.sql(f"INSERT INTO {name} VALUES {sql_values(commit)}")
    assert lamina_read(spark, name) == as_dicts(expected)
    assert paimon_read(paimon_catalog, f"{db}.t") == as_dicts(expected)


# -- pypaimon writes, Lamina reads ----------------------------------------------------------------

def test_pypaimon_commits_are_level_0_runs_read_by_lamina(request, pdb, paimon_catalog):
    table = paimon_create(paimon_catalog, f"{pdb}.t", ABS, ["id"], {})
    paimon_write(table, [{"id": i, "a": i, "b": None, "s": "one"} for i in range(10)], ABS)
    paimon_write(table, [{"id": i, "a": -i, "b": 1, "s": "two"} for i in range(5, 15)], ABS)
    paimon_write(table, [{"id": 0, "a": None, "b": None, "s": None}], ABS)
    expected = paimon_read(paimon_catalog, f"{pdb}.t")
    assert expected == dicts([{"id": 0, "a": None, "b": None, "s": None}]
                             + [{"id": i, "a": i, "b": None, "s": "one"} for i in range(1, 5)]
                             + [{"id": i, "a": -i, "b": 1, "s": "two"} for i in range(5, 15)])

    spark = request.getfixturevalue("spark")
    name = f"{CAT}.{pdb}.t"
    assert {r[0] for r in sql_rows(spark, f"SELECT level FROM {CAT}.{pdb}.`t$files`")} == {0}
    assert lamina_read(spark, name) == expected
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(15,)]

    # Lamina upserts the same keys: a key lands in the bucket pypaimon chose, so it replaces the row.
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 100, 100, 'lamina' FROM range(0, 15, 2)")
    expected = dicts([r for r in expected if r["id"] % 2]
                     + [{"id": i, "a": 100, "b": 100, "s": "lamina"} for i in range(0, 15, 2)])
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{pdb}.t") == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{pdb}.t', compact_strategy => 'full')")
    assert paimon_read(paimon_catalog, f"{pdb}.t") == expected
    assert lamina_read(spark, name) == expected


def test_pypaimon_partitioned_sequence_field_read_by_lamina(request, pdb, paimon_catalog):
    schema = pa.schema([pa.field("p", pa.string(), nullable=False), pa.field("id", pa.int32(), nullable=False),
                        ("v", pa.string()), ("ts", pa.int64())])
    table = paimon_create(paimon_catalog, f"{pdb}.t", schema, ["p", "id"], {"sequence.field": "ts"},
                          partition_keys=["p"])
    paimon_write(table, [{"p": "x", "id": 1, "v": "new", "ts": 9}, {"p": "y", "id": 1, "v": "y-old", "ts": 1}], schema)
    paimon_write(table, [{"p": "x", "id": 1, "v": "old", "ts": 3}, {"p": "y", "id": 1, "v": "y-new", "ts": 2}], schema)
    expected = paimon_read(paimon_catalog, f"{pdb}.t")
    assert expected == dicts([{"p": "x", "id": 1, "v": "new", "ts": 9}, {"p": "y", "id": 1, "v": "y-new", "ts": 2}])
    spark = request.getfixturevalue("spark")
    assert lamina_read(spark, f"{CAT}.{pdb}.t") == expected


@pytest.mark.parametrize("engine", list(ENGINE_CASES))
def test_pypaimon_merge_engines_read_by_lamina(request, pdb, paimon_catalog, engine):
    options, inserts, merged = ENGINE_CASES[engine]
    table = paimon_create(paimon_catalog, f"{pdb}.t", ABS, ["id"], options)
    for commit in inserts:
        paimon_write(table, [dict(zip(ABS.names, t)) for t in commit], ABS)
    expected = paimon_read(paimon_catalog, f"{pdb}.t")
    # pypaimon does not compact first-row tables as it writes, and readers of first-row tables see
    # compacted levels only: its level-0 runs stay invisible until a compaction.
    assert expected == ([] if engine == "first-row" else as_dicts(merged))

    spark = request.getfixturevalue("spark")
    name = f"{CAT}.{pdb}.t"
    assert lamina_read(spark, name) == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{pdb}.t', compact_strategy => 'full')")
    assert lamina_read(spark, name) == as_dicts(merged)
    assert paimon_read(paimon_catalog, f"{pdb}.t") == as_dicts(merged)


def test_pypaimon_deletes_through_rowkind_field_read_by_lamina(request, pdb, paimon_catalog):
    schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("v", pa.string()), ("op", pa.string())])
    table = paimon_create(paimon_catalog, f"{pdb}.t", schema, ["id"], {"rowkind.field": "op"})
    paimon_write(table, [{"id": i, "v": f"v{i}", "op": "+I"} for i in range(6)], schema)
    paimon_write(table, [{"id": 1, "v": "v1", "op": "-D"}, {"id": 2, "v": None, "op": "-D"},
                         {"id": 3, "v": "v3", "op": "-U"}, {"id": 3, "v": "v3-new", "op": "+U"},
                         {"id": 9, "v": "v9", "op": "+I"}], schema)
    paimon_write(table, [{"id": 2, "v": "back", "op": "+I"}, {"id": 4, "v": None, "op": "-D"}], schema)
    expected = paimon_read(paimon_catalog, f"{pdb}.t")
    assert [(r["id"], r["v"]) for r in expected] == [
        (0, "v0"), (2, "back"), (3, "v3-new"), (5, "v5"), (9, "v9")]

    spark = request.getfixturevalue("spark")
    name = f"{CAT}.{pdb}.t"
    assert lamina_read(spark, name) == expected
    assert sql_rows(spark, f"SELECT count(*) FROM {name} WHERE id < 5") == [(3,)]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{pdb}.t', compact_strategy => 'full')")
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{pdb}.t") == expected


def test_pypaimon_deletes_in_a_single_level0_run_read_by_lamina(request, pdb, paimon_catalog):
    # One commit, so each bucket holds one level-0 file, which holds the -D records of the commit's
    # deletes while its manifest entry counts no deletes (pypaimon records 0): read without merging,
    # the deleted keys would come back. (pypaimon 2.1's own reader returns them here; Paimon's merge
    # of level 0 drops them, and so must Lamina.)
    schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("v", pa.string()), ("op", pa.string())])
    table = paimon_create(paimon_catalog, f"{pdb}.t", schema, ["id"], {"rowkind.field": "op"})
    paimon_write(table, [{"id": 1, "v": "a", "op": "+I"}, {"id": 2, "v": "b", "op": "+I"},
                         {"id": 2, "v": "b", "op": "-D"}, {"id": 3, "v": None, "op": "-D"},
                         {"id": 4, "v": "d", "op": "+I"}, {"id": 5, "v": "e", "op": "-D"}], schema)

    spark = request.getfixturevalue("spark")
    name = f"{CAT}.{pdb}.t"
    files = sql_rows(spark, f"SELECT level, record_count FROM {CAT}.{pdb}.`t$files`")
    assert sorted(r[0] for r in files) == [0, 0] and sum(r[1] for r in files) == 5
    assert sql_rows(spark, f"SELECT id, v, op FROM {name}") == [(1, "a", "+I"), (4, "d", "+I")]
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(2,)]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{pdb}.t', compact_strategy => 'full')")
    assert sql_rows(spark, f"SELECT id, v, op FROM {name}") == [(1, "a", "+I"), (4, "d", "+I")]
    assert paimon_read(paimon_catalog, f"{pdb}.t") == lamina_read(spark, name)


def test_composite_keys_of_several_types_upserted_by_both(spark, db, paimon_catalog):
    # Both writers must put a key in the same bucket and order keys the same way, or an upsert by
    # one would show up next to the other's row instead of replacing it.
    import datetime as dt
    from decimal import Decimal

    name = lamina_create(spark, db, "k1 BIGINT, k2 STRING, k3 DATE, k4 DECIMAL(10, 2), v STRING",
                         {"primary-key": "k1,k2,k3,k4", "bucket": "3"})
    spark.sql(f"""INSERT INTO {name} SELECT id * 1000003, concat('key-', id),
                  date_add(DATE'2024-01-01', CAST(id AS INT)), CAST(id AS DECIMAL(10, 2)) / 4, 'lamina'
                  FROM range(0, 30)""")
    table = paimon_catalog.get_table(f"{db}.t")
    schema = pa.schema([pa.field("k1", pa.int64(), nullable=False), pa.field("k2", pa.string(), nullable=False),
                        pa.field("k3", pa.date32(), nullable=False),
                        pa.field("k4", pa.decimal128(10, 2), nullable=False), ("v", pa.string())])

    def key(i):
        return {"k1": i * 1000003, "k2": f"key-{i}", "k3": dt.date(2024, 1, 1) + dt.timedelta(days=i),
                "k4": (Decimal(i) / 4).quantize(Decimal("0.01"))}

    paimon_write(table, [{**key(i), "v": "pypaimon"} for i in range(0, 30, 3)], schema)
    expected = dicts({**key(i), "v": "pypaimon" if i % 3 == 0 else "lamina"} for i in range(30))
    assert paimon_read(paimon_catalog, f"{db}.t") == expected
    assert lamina_read(spark, name) == expected
    spark.sql(f"UPDATE {name} SET v = 'updated' WHERE k1 = 0 OR k2 = 'key-1'")
    expected = dicts({**r, "v": "updated"} if r["k1"] in (0, 1000003) else r for r in expected)
    assert paimon_read(paimon_catalog, f"{db}.t") == expected
    assert lamina_read(spark, name) == expected


def test_pypaimon_explicit_bucket_key_upserted_by_lamina(request, pdb, paimon_catalog):
    schema = pa.schema([pa.field("a", pa.int32(), nullable=False), pa.field("b", pa.string(), nullable=False),
                        ("v", pa.string())])
    table = paimon_create(paimon_catalog, f"{pdb}.t", schema, ["a", "b"], {"bucket": "4", "bucket-key": "a"})
    paimon_write(table, [{"a": i, "b": f"b{i % 3}", "v": "pypaimon"} for i in range(24)], schema)
    spark = request.getfixturevalue("spark")
    name = f"{CAT}.{pdb}.t"
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), concat('b', id % 3), 'lamina' FROM range(0, 24, 2)")
    expected = dicts({"a": i, "b": f"b{i % 3}", "v": "lamina" if i % 2 == 0 else "pypaimon"} for i in range(24))
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{pdb}.t") == expected
    buckets = {r[0] for r in sql_rows(spark, f"SELECT bucket FROM {CAT}.{pdb}.`t$files`")}
    assert len(buckets) >= 2 and buckets <= {0, 1, 2, 3}, buckets


def test_lamina_delete_on_table_with_not_null_value_columns_read_by_pypaimon(spark, db, paimon_catalog):
    # A delete record must still be a valid row of the table's file schema, NOT NULL columns included.
    name = lamina_create(spark, db, "id INT, v STRING NOT NULL, n INT NOT NULL", {"primary-key": "id"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")
    expected = dicts([{"id": 1, "v": "a", "n": 1}, {"id": 3, "v": "c", "n": 3}])
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{db}.t") == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert lamina_read(spark, name) == expected
    assert paimon_read(paimon_catalog, f"{db}.t") == expected
