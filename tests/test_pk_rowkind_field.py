"""`rowkind.field`: a STRING column whose value ('+I', '-U', '+U', '-D') gives each written row's kind,
so that a change stream is applied to a primary-key table by appending it (Paimon's option of the
same name). Rows are merged as the merge engine merges records of those kinds; a kind the engine
cannot merge is refused when written, with nothing committed; Paimon's reader sees the same rows.
"""

import pytest

from _support import changes_between, error_text, latest_snapshot_id, sql_rows, unchanged

CAT = "lamina"


def make(spark, db, props=None, table="t"):
    name = f"{CAT}.{db}.{table}"
    props = {"primary-key": "id", "bucket": "2", "rowkind.field": "op", **(props or {})}
    options = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    spark.sql(f"CREATE TABLE {name} (id INT NOT NULL, v STRING, n BIGINT, op STRING) TBLPROPERTIES ({options})")
    return name


def test_a_change_stream_applied_by_insert(spark, db):
    name = make(spark, db)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '+I'), (2, 'b', 2, '+I'), (3, 'c', 3, '+I')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '-U'), (1, 'A', 10, '+U'), (2, 'b', 2, '-D'), (4, 'd', 4, '+I')")
    # the change of a key within one write: the row written last wins
    assert sql_rows(spark, f"SELECT id, v, n FROM {name}") == [(1, "A", 10), (3, "c", 3), (4, "d", 4)]
    assert sql_rows(spark, f"SELECT rowkind, id FROM {CAT}.{db}.`t$audit_log` WHERE id = 2") == [("-D", 2)]
    # a delete of a key the table does not hold removes nothing else
    spark.createDataFrame([(9, None, None, "-D"), (3, "c", 3, "-D")], "id int, v string, n bigint, op string") \
        .writeTo(name).append()
    assert sql_rows(spark, f"SELECT id, v, n FROM {name}") == [(1, "A", 10), (4, "d", 4)]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert sql_rows(spark, f"SELECT id, v, n FROM {name}") == [(1, "A", 10), (4, "d", 4)]


@pytest.mark.parametrize("value, shown", [("X", "'X'"), (None, "NULL")])
def test_a_bad_row_kind_is_refused_and_nothing_committed(spark, warehouse, db, value, shown):
    name = make(spark, db)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '+I')")
    op = "NULL" if value is None else f"'{value}'"
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(f"INSERT INTO {name} VALUES (2, 'b', 2, '+I'), (3, 'c', 3, {op})")
    assert (f"Table {db}.t: column 'op' (option 'rowkind.field') of a written row holds {shown}; "
            "expected +I, -U, +U or -D") in error_text(e)


@pytest.mark.parametrize("props, kind, words", [
    ({"merge-engine": "partial-update"}, "-D", ["partial-update", "'partial-update.remove-record-on-delete'"]),
    ({"merge-engine": "aggregation", "fields.n.aggregate-function": "max"}, "-U",
     ["aggregate function 'max' of column 'n' cannot retract", "'fields.n.ignore-retract'"]),
    ({"merge-engine": "first-row"}, "-D", ["first-row keeps the first row of each key", "'ignore-delete'"]),
], ids=["partial-update", "aggregation-max", "first-row"])
def test_a_retract_the_engine_cannot_merge_is_refused(spark, warehouse, db, props, kind, words):
    name = make(spark, db, props)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '+I')")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '{kind}')")
    assert f"Table {db}.t: a row of kind {kind} (column 'op', option 'rowkind.field') cannot be written" in error_text(e)
    for w in words:
        assert w in error_text(e)


def test_aggregation_retracts_updates(spark, db):
    name = make(spark, db, {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 5, '+I'), (2, 'b', 7, '+I')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 5, '-U'), (1, 'a', 8, '+U'), (2, 'b', 3, '+I')")
    assert sql_rows(spark, f"SELECT id, n FROM {name}") == [(1, 8), (2, 10)]


def test_ignore_delete_drops_retracts(spark, db):
    name = make(spark, db, {"ignore-delete": "true"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '+I'), (2, 'b', 2, '+I')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '-D'), (2, 'B', 2, '+U')")
    assert sql_rows(spark, f"SELECT id, v FROM {name}") == [(1, "a"), (2, "B")]


def test_ignore_update_before_drops_update_before_records(spark, warehouse, db):
    # the change stream of test_aggregation_retracts_updates: its -U no longer retracts the sum, and the
    # input changelog holds no -U either
    name = make(spark, db, {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
                            "ignore-update-before": "true", "changelog-producer": "input", "write-only": "true"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 5, '+I'), (2, 'b', 7, '+I')")
    before = latest_snapshot_id(warehouse, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 5, '-U'), (1, 'a', 8, '+U'), (2, 'b', 3, '+I')")
    assert sql_rows(spark, f"SELECT id, n FROM {name}") == [(1, 13), (2, 10)]
    assert changes_between(spark, name, before, latest_snapshot_id(warehouse, db, "t")) == [
        ("+I", 2, "b", 3, "+I"), ("+U", 1, "a", 8, "+U")]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert sql_rows(spark, f"SELECT id, n FROM {name}") == [(1, 13), (2, 10)]
    # switched on, it stays on: the records it dropped are gone
    with pytest.raises(Exception) as e:
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('ignore-update-before' = 'false')")
    assert f"Cannot change option 'ignore-update-before' of existing table {db}.t from true to false" in error_text(e)


def test_ignore_update_before_lets_partial_update_take_a_change_stream(spark, warehouse, db):
    # partial-update cannot retract: a -U is refused (test_a_retract_the_engine_cannot_merge_is_refused)
    # unless it is dropped; a -D still is refused
    name = make(spark, db, {"merge-engine": "partial-update", "ignore-update-before": "true"})
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '+I')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '-U'), (1, NULL, 5, '+U')")
    assert sql_rows(spark, f"SELECT id, v, n FROM {name}") == [(1, "a", 5)]
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 5, '-D')")
    assert f"Table {db}.t: a row of kind -D (column 'op', option 'rowkind.field') cannot be written" in error_text(e)


@pytest.mark.parametrize("column_type, field, words", [
    ("op STRING", "nope", ["column 'nope' named by option 'rowkind.field' does not exist"]),
    ("op INT", "op", ["column 'op' named by option 'rowkind.field' has type INT", "STRING"]),
    ("op STRING", "id", ["column 'id' named by option 'rowkind.field' is a primary-key column"]),
])
def test_create_checks_the_rowkind_column(spark, db, column_type, field, words):
    with pytest.raises(Exception) as e:
        spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, {column_type}) "
                  f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'rowkind.field' = '{field}')")
    for w in words:
        assert w in error_text(e), error_text(e)


def test_merge_keeps_the_row_level_plan_and_writes_its_own_kinds(spark, db):
    name = make(spark, db)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '+I')")
    spark.sql(f"MERGE INTO {name} t USING (SELECT 1 AS id, 'A' AS v, 2L AS n, '-D' AS op) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    # the update is an update: the column's value is stored, the row stays
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "A", 2, "-D")]


def test_pypaimon_reads_the_applied_stream(spark, db, paimon_catalog):
    name = make(spark, db)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1, '+I'), (2, 'b', 2, '+I')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'A', 10, '+U'), (2, 'b', 2, '-D')")
    table = paimon_catalog.get_table(f"{db}.t")
    rb = table.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    assert [(r["id"], r["v"], r["n"]) for r in got] == [(1, "A", 10)]


def test_alter_checks_the_rowkind_column(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT NOT NULL, n INT, op STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('rowkind.field' = 'n')")
    assert "column 'n' named by option 'rowkind.field' has type INT" in error_text(e)
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('rowkind.field' = 'op')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 1, '+I'), (2, 2, '+I')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 1, '-D')")
    assert sql_rows(spark, f"SELECT id FROM {name}") == [(2,)]
