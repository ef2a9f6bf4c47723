"""The merge engines of primary-key tables, with Apache Paimon's semantics: partial-update (nulls
never overwrite, sequence groups, ignore-delete, remove-record-on-delete), aggregation (per-field
functions, the default function, ignore-retract) and first-row (the first write wins; touched
buckets are compacted with every commit)."""


import pyarrow as pa
import pytest

from _support import changes_between, error_text, latest_snapshot_id, sql_rows, table_path, unchanged

CAT = "lamina"


def create(spark, db, columns, props, table="t"):
    name = f"{CAT}.{db}.{table}"
    options = ", ".join(f"'{k}' = '{v}'" for k, v in {"bucket": "2", **props}.items())
    spark.sql(f"CREATE TABLE {name} ({columns}) TBLPROPERTIES ({options})")
    return name


def compact_full(spark, db, table="t"):
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.{table}', compact_strategy => 'full')")


# -- partial-update -------------------------------------------------------------------------------

def test_partial_update_nulls_do_not_overwrite(spark, db):
    name = create(spark, db, "id INT, a STRING, b STRING, n INT",
                  {"primary-key": "id", "merge-engine": "partial-update"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a1', NULL, 10), (2, 'a2', 'b2', NULL)")
    spark.sql(f"INSERT INTO {name} VALUES (1, NULL, 'b1', NULL), (3, NULL, NULL, 30)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a1-new', NULL, NULL), (2, NULL, NULL, 20)")
    expected = [(1, "a1-new", "b1", 10), (2, "a2", "b2", 20), (3, None, None, 30)]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    assert sql_rows(spark, f"SELECT b FROM {name} WHERE id = 1") == [("b1",)]
    assert sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF 2") == [
        (1, "a1", "b1", 10), (2, "a2", "b2", None), (3, None, None, 30)]
    compact_full(spark, db)
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected


def test_partial_update_sequence_groups(spark, db):
    # a, b are ordered by s1; c, d by s2; o belongs to no group (plain partial update).
    name = create(spark, db, "id INT, a INT, b INT, s1 INT, c INT, d INT, s2 INT, o STRING",
                  {"primary-key": "id", "merge-engine": "partial-update",
                   "fields.s1.sequence-group": "a,b", "fields.s2.sequence-group": "c,d"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 1, 1, 1, 1, 1, 1, 'o1')")
    # s1 newer: a, b take the new values; s2 older: c, d keep theirs.
    spark.sql(f"INSERT INTO {name} VALUES (1, 2, 2, 2, 2, 2, 0, NULL)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, 2, 2, 2, 1, 1, 1, "o1")]
    # s1 newer again: within its group a null does overwrite; s2 null: the group is left alone.
    spark.sql(f"INSERT INTO {name} VALUES (1, 3, NULL, 3, 9, 9, NULL, 'o3')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, 3, None, 3, 1, 1, 1, "o3")]
    # s1 older, s2 newer (written later but a smaller s1 is an older group version).
    spark.sql(f"INSERT INTO {name} VALUES (1, 7, 7, 1, 5, NULL, 5, NULL)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, 3, None, 3, 5, None, 5, "o3")]
    compact_full(spark, db)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, 3, None, 3, 5, None, 5, "o3")]


def test_partial_update_sequence_group_naming_a_missing_column_is_rejected(spark, warehouse, db):
    with pytest.raises(Exception) as excinfo:
        create(spark, db, "id INT, a INT, s1 INT",
               {"primary-key": "id", "merge-engine": "partial-update", "fields.s1.sequence-group": "a,nope"})
    text = error_text(excinfo)
    assert f"{db}.t" in text and "nope" in text and "fields.s1.sequence-group" in text, text[:800]
    assert not table_path(warehouse, db, "t").exists()


def test_partial_update_ignore_delete_drops_delete_records(spark, warehouse, db, paimon_catalog):
    # A DELETE statement would do nothing on such a table, so it is rejected; delete records from
    # another writer (pypaimon, through 'rowkind.field') are dropped on read. pypaimon refuses to
    # write partial-update tables with ignore-delete, so that option is set afterwards: it only
    # matters when records merge.
    from pypaimon import Schema

    schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("a", pa.string()), ("b", pa.string()),
                        ("op", pa.string())])
    paimon_catalog.create_table(f"{db}.t", Schema.from_pyarrow_schema(schema, primary_keys=["id"], options={
        "bucket": "1", "merge-engine": "partial-update", "rowkind.field": "op", "file.format": "parquet"}), False)
    table = paimon_catalog.get_table(f"{db}.t")
    for batch in ([(1, "a1", None, "+I"), (2, "a2", "b2", "+I")], [(1, None, None, "-D")]):
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(pa.Table.from_pylist([dict(zip(schema.names, r)) for r in batch], schema=schema))
        commit.commit(write.prepare_commit())
        write.close()
        commit.close()
    name = f"{CAT}.{db}.t"
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('ignore-delete' = 'true')")
    assert sql_rows(spark, f"SELECT id, a, b FROM {name}") == [(1, "a1", None), (2, "a2", "b2")]

    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"DELETE FROM {name} WHERE id = 2")
        for word in (f"{db}.t", "ignore-delete"):
            assert word in error_text(excinfo), error_text(excinfo)[:800]
    spark.sql(f"INSERT INTO {name} VALUES (1, NULL, 'b1', '+I')")
    assert sql_rows(spark, f"SELECT id, a, b FROM {name}") == [(1, "a1", "b1"), (2, "a2", "b2")]


def test_partial_update_remove_record_on_delete(spark, db):
    name = create(spark, db, "id INT, a STRING, b STRING",
                  {"primary-key": "id", "merge-engine": "partial-update",
                   "partial-update.remove-record-on-delete": "true"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a1', NULL), (2, 'a2', NULL)")
    spark.sql(f"INSERT INTO {name} VALUES (1, NULL, 'b1')")
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, "a2", None)]
    # The key starts from an empty row: 'a1' and 'b1' do not come back.
    spark.sql(f"INSERT INTO {name} VALUES (1, NULL, 'b-new'), (2, NULL, 'b2')")
    expected = [(1, None, "b-new"), (2, "a2", "b2")]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    compact_full(spark, db)
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected


# -- aggregation ----------------------------------------------------------------------------------

AGG_COLUMNS = """id INT, s INT, mn INT, mx INT, lv STRING, lnn STRING, fv STRING, fnn STRING, pr DOUBLE,
    band BOOLEAN, bor BOOLEAN, la STRING, co ARRAY<INT>, mm MAP<STRING, INT>, dflt STRING"""
AGG_FUNCTIONS = {"s": "sum", "mn": "min", "mx": "max", "lv": "last_value", "lnn": "last_non_null_value",
                 "fv": "first_value", "fnn": "first_non_null_value", "pr": "product", "band": "bool_and",
                 "bor": "bool_or", "la": "listagg", "co": "collect", "mm": "merge_map"}


def test_aggregation_functions(spark, db):
    props = {"primary-key": "id", "merge-engine": "aggregation",
             **{f"fields.{c}.aggregate-function": f for c, f in AGG_FUNCTIONS.items()}}
    name = create(spark, db, AGG_COLUMNS, props)
    spark.sql(f"""INSERT INTO {name} VALUES
        (1, 10, 5, 5, 'a', 'a', NULL, NULL, 2.0, true, false, 'x', array(1, 2), map('a', 1), 'd1'),
        (2, 7, 7, 7, 'k', 'k', 'k', 'k', 1.5, true, true, 'only', array(9), map('k', 9), NULL)""")
    spark.sql(f"""INSERT INTO {name} VALUES
        (1, NULL, 3, NULL, 'b', 'b', 'f2', 'g2', 3.0, true, false, NULL, array(2, 3), map('a', 2, 'b', 3), NULL)""")
    spark.sql(f"""INSERT INTO {name} VALUES
        (1, 5, NULL, 9, NULL, NULL, 'f3', 'g3', 4.0, false, true, 'z', NULL, map('c', 4), 'd3')""")
    expected = [
        (1, 15, 3, 9, None, "b", None, "g2", 24.0, False, True, "x,z", [1, 2, 2, 3],
         {"a": 2, "b": 3, "c": 4}, "d3"),
        (2, 7, 7, 7, "k", "k", "k", "k", 1.5, True, True, "only", [9], {"k": 9}, None),
    ]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    compact_full(spark, db)
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    # A write after compaction folds into the compacted value.
    spark.sql(f"""INSERT INTO {name} VALUES
        (1, 1, 0, 1, 'c', NULL, 'f4', 'g4', 0.5, true, true, NULL, array(4), map('a', 0), NULL)""")
    assert sql_rows(spark, f"SELECT s, mn, mx, lv, lnn, fv, fnn, pr, band, bor, la, co, mm, dflt "
                           f"FROM {name} WHERE id = 1") == [
        (16, 0, 9, "c", "b", None, "g2", 12.0, False, True, "x,z", [1, 2, 2, 3, 4],
         {"a": 0, "b": 3, "c": 4}, "d3")]


def test_aggregation_listagg_delimiter(spark, db):
    name = create(spark, db, "id INT, la STRING",
                  {"primary-key": "id", "merge-engine": "aggregation",
                   "fields.la.aggregate-function": "listagg", "fields.la.list-agg-delimiter": "|"})
    for v in ("p", "q", "r"):
        spark.sql(f"INSERT INTO {name} VALUES (1, '{v}')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "p|q|r")]


def test_aggregation_default_function(spark, db):
    # Columns without their own function use fields.default-aggregate-function.
    name = create(spark, db, "id INT, a INT, b INT, c INT",
                  {"primary-key": "id", "merge-engine": "aggregation",
                   "fields.default-aggregate-function": "sum", "fields.c.aggregate-function": "max"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 1, 10, 5), (2, 2, 20, 6)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 2, NULL, 3), (2, 3, 1, 8)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, 3, 10, 5), (2, 5, 21, 8)]


def test_aggregation_without_functions_keeps_last_non_null(spark, db):
    name = create(spark, db, "id INT, a INT, b STRING", {"primary-key": "id", "merge-engine": "aggregation"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 1, 'x')")
    spark.sql(f"INSERT INTO {name} VALUES (1, NULL, 'y')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 3, NULL)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, 3, "y")]


@pytest.mark.parametrize("column, function, words", [
    ("b", "sum", ["sum", "b"]),          # sum of a STRING column
    ("a", "no_such_function", ["no_such_function"]),
], ids=["type", "unknown"])
def test_aggregation_bad_function_is_rejected(spark, warehouse, db, column, function, words):
    with pytest.raises(Exception) as excinfo:
        create(spark, db, "id INT, a INT, b STRING",
               {"primary-key": "id", "merge-engine": "aggregation",
                f"fields.{column}.aggregate-function": function})
    text = error_text(excinfo)
    for word in [f"{db}.t"] + words:
        assert word in text, text[:800]
    assert not table_path(warehouse, db, "t").exists()


def test_aggregation_remove_record_on_delete(spark, db):
    name = create(spark, db, "id INT, n INT, s STRING",
                  {"primary-key": "id", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
                   "fields.s.aggregate-function": "listagg", "aggregation.remove-record-on-delete": "true"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 1, 'a'), (2, 2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 10, 'c')")
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, 2, "b")]
    # The key starts over: nothing of the deleted aggregate comes back.
    spark.sql(f"INSERT INTO {name} VALUES (1, 100, 'd')")
    expected = [(1, 100, "d"), (2, 2, "b")]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    compact_full(spark, db)
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected


def test_aggregation_ignore_retract_with_delete_records_from_pypaimon(spark, db, paimon_catalog):
    # Lamina's own DML never retracts on aggregation tables; pypaimon writes -D and -U records
    # through 'rowkind.field' (it refuses tables with ignore-retract, so that is set afterwards: it
    # only matters when records merge). s retracts (sum subtracts), r ignores retraction.
    from pypaimon import Schema

    schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("s", pa.int64()), ("r", pa.int64()),
                        ("op", pa.string())])
    options = {"bucket": "1", "merge-engine": "aggregation", "rowkind.field": "op", "file.format": "parquet",
               "fields.s.aggregate-function": "sum", "fields.r.aggregate-function": "sum",
               "fields.op.aggregate-function": "last_value"}
    paimon_catalog.create_table(f"{db}.t", Schema.from_pyarrow_schema(
        schema, primary_keys=["id"], options=options), False)
    table = paimon_catalog.get_table(f"{db}.t")
    # pypaimon folds a multi-row batch with its own merge function, which has no retract: each
    # retracting record is therefore a one-row commit.
    for batch in ([(1, 10, 10, "+I"), (2, 1, 1, "+I")], [(1, 5, 5, "+I")], [(1, 3, 3, "-D")], [(2, 1, 1, "-U")]):
        data = pa.Table.from_pylist([dict(zip(schema.names, r)) for r in batch], schema=schema)
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(data)
        commit.commit(write.prepare_commit())
        write.close()
        commit.close()
    spark.sql(f"ALTER TABLE {CAT}.{db}.t SET TBLPROPERTIES "
              "('fields.r.ignore-retract' = 'true', 'fields.op.ignore-retract' = 'true')")
    assert sql_rows(spark, f"SELECT id, s, r FROM {CAT}.{db}.t") == [(1, 12, 15), (2, 0, 1)]


# -- first-row ------------------------------------------------------------------------------------

def test_first_row_first_write_wins_and_buckets_are_compacted_each_commit(spark, db):
    name = create(spark, db, "id INT, v STRING", {"primary-key": "id", "merge-engine": "first-row"})
    batches = [
        "(1, 'a1'), (2, 'b1')",
        "(1, 'a2'), (3, 'c2')",
        "(2, 'b3'), (3, 'c3'), (4, NULL)",
        "(4, 'd4')",
    ]
    for n, values in enumerate(batches, start=1):
        spark.sql(f"INSERT INTO {name} VALUES {values}")
        levels = sql_rows(spark, f"SELECT level FROM {CAT}.{db}.`t$files`")
        assert levels and all(level > 0 for (level,) in levels), (n, levels)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a1"), (2, "b1"), (3, "c2"), (4, None)]
    kinds = [r[0] for r in spark.sql(f"SELECT commit_kind FROM {CAT}.{db}.`t$snapshots` "
                                     "ORDER BY snapshot_id").collect()]
    assert kinds == ["APPEND", "COMPACT"] * len(batches)
    # Readers of first-row tables see compacted levels only (as in Paimon): snapshot 4 is the COMPACT
    # that follows the second INSERT.
    assert sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF 4") == [(1, "a1"), (2, "b1"), (3, "c2")]


def test_first_row_partitioned(spark, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"""CREATE TABLE {name} (p STRING, id INT, v STRING) PARTITIONED BY (p)
                  TBLPROPERTIES ('primary-key' = 'p,id', 'bucket' = '2', 'merge-engine' = 'first-row')""")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'x1'), ('y', 1, 'y1')")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'x1b'), ('x', 2, 'x2'), ('y', 1, 'y1b')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 1, "x1"), ("x", 2, "x2"), ("y", 1, "y1")]
    assert all(level > 0 for (level,) in sql_rows(spark, f"SELECT level FROM {CAT}.{db}.`t$files`"))


# -- sequence.field.sort-order ---------------------------------------------------------------------

def test_descending_sequence_order_keeps_the_smallest_value(spark, warehouse, db):
    name = create(spark, db, "id INT NOT NULL, v STRING, ts BIGINT",
                  {"primary-key": "id", "bucket": "1", "sequence.field": "ts",
                   "sequence.field.sort-order": "descending", "changelog-producer": "lookup"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 5), (2, 'b', NULL), (3, 'c', 1), (4, 'd', 9)")
    before = latest_snapshot_id(warehouse, db, "t")
    # 1: 7 is larger, so older; 2: any value beats NULL; 3: equal values, the later write wins;
    # 4: smaller, so newer
    spark.sql(f"INSERT INTO {name} VALUES (1, 'late', 7), (2, 'x', 4), (3, 'e', 1), (4, 'f', 2)")
    expected = [(1, "a", 5), (2, "x", 4), (3, "e", 1), (4, "f", 2)]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    # the lookup changelog: key 1, whose written record lost, keeps its row (an update to the same row,
    # as Paimon's lookup producer writes one without changelog-producer.row-deduplicate)
    assert changes_between(spark, name, before, latest_snapshot_id(warehouse, db, "t")) == [
        ("+U", 1, "a", 5), ("+U", 2, "x", 4), ("+U", 3, "e", 1), ("+U", 4, "f", 2),
        ("-U", 1, "a", 5), ("-U", 2, "b", None), ("-U", 3, "c", 1), ("-U", 4, "d", 9)]
    compact_full(spark, db)
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    # row-level DML: a delete and an update carry the row's own value, so they win as later writes
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    spark.sql(f"UPDATE {name} SET v = 'u' WHERE id = 2")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, "u", 4), (3, "e", 1), (4, "f", 2)]


def test_descending_sequence_order_with_partial_update(spark, db):
    name = create(spark, db, "id INT NOT NULL, a STRING, b STRING, ts BIGINT",
                  {"primary-key": "id", "merge-engine": "partial-update", "sequence.field": "ts",
                   "sequence.field.sort-order": "descending"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x', NULL, 5)")
    spark.sql(f"INSERT INTO {name} VALUES (1, NULL, 'y', 9)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'z', NULL, 7)")
    # merged in the order ts 9, 7, 5: each column's last non-null value
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "x", "y", 5)]
    compact_full(spark, db)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "x", "y", 5)]


def test_sequence_sort_order_is_checked_and_fixed(spark, warehouse, db):
    with pytest.raises(Exception) as excinfo:
        create(spark, db, "id INT, ts BIGINT",
               {"primary-key": "id", "sequence.field": "ts", "sequence.field.sort-order": "down"})
    text = error_text(excinfo)
    for word in ("'sequence.field.sort-order'", "'down'", "ascending, descending"):
        assert word in text, text[:800]
    assert not table_path(warehouse, db, "t").exists()
    name = create(spark, db, "id INT, ts BIGINT", {"primary-key": "id", "sequence.field": "ts"})
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('sequence.field.sort-order' = 'descending')")
    assert (f"Cannot change option 'sequence.field.sort-order' of existing table {db}.t: it decides which rows "
            "the table holds") in error_text(excinfo)


def test_first_row_with_sequence_field_is_rejected(spark, warehouse, db):
    with pytest.raises(Exception) as excinfo:
        create(spark, db, "id INT, v STRING, ts INT",
               {"primary-key": "id", "merge-engine": "first-row", "sequence.field": "ts"})
    text = error_text(excinfo)
    for word in (f"{db}.t", "sequence.field", "first-row"):
        assert word in text, text[:800]
    assert not table_path(warehouse, db, "t").exists()


def test_unknown_merge_engine_is_rejected(spark, warehouse, db):
    with pytest.raises(Exception) as excinfo:
        create(spark, db, "id INT, v STRING", {"primary-key": "id", "merge-engine": "dedup"})
    text = error_text(excinfo)
    for word in ("merge-engine", "dedup", "deduplicate"):
        assert word in text, text[:800]
    assert not table_path(warehouse, db, "t").exists()


@pytest.mark.parametrize("engine, props, after_overwrite, after_insert", [
    ("aggregation", {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"}, [(1, 5)], [(1, 6), (3, 1)]),
    ("partial-update", {"merge-engine": "partial-update"}, [(1, 5)], [(1, 1), (3, 1)]),
    ("first-row", {"merge-engine": "first-row"}, [(1, 5)], [(1, 5), (3, 1)]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_insert_overwrite_starts_the_merge_afresh(spark, db, engine, props, after_overwrite, after_insert):
    # Overwritten records take no part in later merges: the sum restarts, first-row's first row is new.
    name = create(spark, db, "id INT, n INT", {"primary-key": "id", **props})
    spark.sql(f"INSERT INTO {name} VALUES (1, 10), (2, 20)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 1)")
    spark.sql(f"INSERT OVERWRITE {name} VALUES (1, 5)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == after_overwrite
    spark.sql(f"INSERT INTO {name} VALUES (1, 1), (3, 1)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == after_insert
