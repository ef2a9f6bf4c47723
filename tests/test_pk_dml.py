"""DELETE, UPDATE and MERGE INTO on primary-key tables, one test per (statement, merge engine) cell.

Where the merge engine can honour the statement, the exact rows afterwards are asserted. Where it
cannot (a delete that first-row or aggregation would not apply, a partial-update delete without
'partial-update.remove-record-on-delete', any delete where 'ignore-delete' drops delete records, an
update that aggregation would fold instead of assign,
an update of a primary-key column) the statement must fail up front, naming the table and the
reason, and leave rows, snapshots and schemas as they were. Up front means before any Spark job
runs: UPDATE and MERGE INTO are refused during analysis, a row-level DELETE when its write is
planned (a DELETE of whole partitions needs no records and every engine honours it).
"""

import contextlib
import uuid

import pytest

from _support import error_text, snapshot_ids, sql_rows, unchanged

CAT = "lamina"

ENGINES = {
    "deduplicate": {},
    "partial-update": {"merge-engine": "partial-update"},
    "partial-update-remove": {"merge-engine": "partial-update",
                              "partial-update.remove-record-on-delete": "true"},
    "aggregation": {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
    "aggregation-remove": {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
                           "aggregation.remove-record-on-delete": "true"},
    "first-row": {"merge-engine": "first-row"},
    "deduplicate-ignore-delete": {"ignore-delete": "true"},
    "partial-update-ignore-delete": {"merge-engine": "partial-update", "ignore-delete": "true"},
}

SEED = [(1, "a", 10), (2, "b", 20), (3, "c", 30)]
SOURCE = "SELECT * FROM VALUES (2, 'B', 22), (4, 'd', 40) AS s(id, v, n)"

# statement -> SQL ({t} is the table). Every MERGE has one clause so that each cell tests one thing.
STATEMENTS = {
    "delete": "DELETE FROM {t} WHERE n = 20",
    "update": "UPDATE {t} SET v = 'B', n = 21 WHERE id = 2",
    "merge_matched_update": f"MERGE INTO {{t}} t USING ({SOURCE}) s ON t.id = s.id "
                            "WHEN MATCHED THEN UPDATE SET v = s.v, n = s.n",
    "merge_matched_delete": f"MERGE INTO {{t}} t USING ({SOURCE}) s ON t.id = s.id "
                            "WHEN MATCHED THEN DELETE",
    "merge_not_matched_insert": f"MERGE INTO {{t}} t USING ({SOURCE}) s ON t.id = s.id "
                                "WHEN NOT MATCHED THEN INSERT *",
    "merge_not_matched_by_source_delete": f"MERGE INTO {{t}} t USING ({SOURCE}) s ON t.id = s.id "
                                          "WHEN NOT MATCHED BY SOURCE THEN DELETE",
    "merge_not_matched_by_source_update": f"MERGE INTO {{t}} t USING ({SOURCE}) s ON t.id = s.id "
                                          "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 'gone'",
}

# The rows after the statement when the engine honours it (same rows for every engine that does).
HONOURED = {
    "delete": [(1, "a", 10), (3, "c", 30)],
    "update": [(1, "a", 10), (2, "B", 21), (3, "c", 30)],
    "merge_matched_update": [(1, "a", 10), (2, "B", 22), (3, "c", 30)],
    "merge_matched_delete": [(1, "a", 10), (3, "c", 30)],
    "merge_not_matched_insert": [(1, "a", 10), (2, "b", 20), (3, "c", 30), (4, "d", 40)],
    "merge_not_matched_by_source_delete": [(2, "b", 20)],
    "merge_not_matched_by_source_update": [(1, "gone", 10), (2, "b", 20), (3, "gone", 30)],
}

# (statement, engine) -> words the rejection must contain besides the table name; absent = honoured.
# An UPDATE on aggregation would fold the assigned values into the old ones (here: sum of n).
REJECTED = {
    ("delete", "partial-update"): ["partial-update", "partial-update.remove-record-on-delete"],
    ("delete", "aggregation"): ["aggregation"],
    ("delete", "first-row"): ["first-row"],
    ("update", "aggregation"): ["aggregation"],
    ("update", "aggregation-remove"): ["aggregation", "'n'"],
    ("update", "first-row"): ["first-row"],
    ("merge_matched_update", "aggregation"): ["aggregation"],
    ("merge_matched_update", "aggregation-remove"): ["aggregation", "'n'"],
    ("merge_matched_update", "first-row"): ["first-row"],
    ("merge_matched_delete", "partial-update"): ["partial-update", "partial-update.remove-record-on-delete"],
    ("merge_matched_delete", "aggregation"): ["aggregation"],
    ("merge_matched_delete", "first-row"): ["first-row"],
    ("merge_not_matched_by_source_delete", "partial-update"): [
        "partial-update", "partial-update.remove-record-on-delete"],
    ("merge_not_matched_by_source_delete", "aggregation"): ["aggregation"],
    ("merge_not_matched_by_source_delete", "first-row"): ["first-row"],
    ("merge_not_matched_by_source_update", "aggregation"): ["aggregation", "'n'"],
    ("merge_not_matched_by_source_update", "aggregation-remove"): ["aggregation", "'n'"],
    ("merge_not_matched_by_source_update", "first-row"): ["first-row"],
    # ignore-delete drops delete records when written: a delete would do nothing
    **{(st, e): ["'ignore-delete'"] for st in ("delete", "merge_matched_delete", "merge_not_matched_by_source_delete")
       for e in ("deduplicate-ignore-delete", "partial-update-ignore-delete")},
}


def make_table(spark, db, engine, table="t"):
    """A PK table of SEED written in two commits (two sorted runs), with `engine`'s options."""
    name = f"{CAT}.{db}.{table}"
    props = {"primary-key": "id", "bucket": "2", **ENGINES[engine]}
    options = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, n INT) TBLPROPERTIES ({options})")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 10), (2, 'b', 20)")
    spark.sql(f"INSERT INTO {name} VALUES (3, 'c', 30)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == SEED
    return name


@contextlib.contextmanager
def no_job_runs(spark):
    """Asserts that no Spark job starts inside the block: the statement was refused before running."""
    sc = spark.sparkContext
    group = f"refusal-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "a statement that must be refused before it runs")
    try:
        yield
    finally:
        # asserted here so that it also holds when the block raises (as a refused statement does)
        jobs = list(sc.statusTracker().getJobIdsForGroup(group))
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
        assert jobs == [], f"the statement ran {len(jobs)} Spark job(s) before it was refused"


def test_no_job_runs_sees_a_job(spark, db):
    name = make_table(spark, db, "deduplicate")
    with pytest.raises(AssertionError, match="Spark job"):
        with no_job_runs(spark):
            spark.sql(f"SELECT count(*) FROM {name}").collect()


def assert_rejected(spark, warehouse, db, sql, words):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo, no_job_runs(spark):
            spark.sql(sql)
        text = error_text(excinfo)
        for word in [f"{db}.t"] + words:
            assert word in text, f"{word!r} not in error: {text[:800]}"


CELLS = [(s, e) for s in STATEMENTS for e in ENGINES]


@pytest.mark.parametrize("statement, engine", CELLS, ids=[f"{s}-{e}" for s, e in CELLS])
def test_dml_cell(spark, warehouse, db, statement, engine):
    name = make_table(spark, db, engine)
    sql = STATEMENTS[statement].format(t=name)
    words = REJECTED.get((statement, engine))
    if words is not None:
        assert_rejected(spark, warehouse, db, sql, words)
    else:
        before = snapshot_ids(warehouse, db, "t")
        spark.sql(sql)
        assert sql_rows(spark, f"SELECT * FROM {name}") == HONOURED[statement]
        # One APPEND commit (first-row follows it with a COMPACT of the touched buckets).
        kinds = [r[0] for r in spark.sql(f"SELECT commit_kind FROM {CAT}.{db}.`t$snapshots` "
                                         f"WHERE snapshot_id > {max(before)} ORDER BY snapshot_id").collect()]
        assert kinds in (["APPEND"], ["APPEND", "COMPACT"]), kinds


def pk_update_reasons(engine):
    """What a rejected primary-key update must mention: the key column, or (where the engine rejects
    every UPDATE anyway) the engine."""
    key = ["id", "primary key"]
    engine_rejects_updates = engine in ("aggregation", "aggregation-remove", "first-row")
    return [key, [ENGINES[engine]["merge-engine"]]] if engine_rejects_updates else [key]


@pytest.mark.parametrize("engine", list(ENGINES))
def test_update_of_primary_key_column_is_rejected(spark, warehouse, db, engine):
    name = make_table(spark, db, engine)
    assert_rejected_for_one_of(spark, warehouse, db, f"UPDATE {name} SET id = 9 WHERE id = 1",
                               pk_update_reasons(engine))


@pytest.mark.parametrize("engine", list(ENGINES))
def test_merge_update_of_primary_key_column_is_rejected(spark, warehouse, db, engine):
    name = make_table(spark, db, engine)
    assert_rejected_for_one_of(spark, warehouse, db,
                               f"MERGE INTO {name} t USING (SELECT 'b' AS v, 7 AS id) s ON t.v = s.v "
                               "WHEN MATCHED THEN UPDATE SET id = s.id", pk_update_reasons(engine))


def assert_rejected_for_one_of(spark, warehouse, db, sql, reasons):
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo, no_job_runs(spark):
            spark.sql(sql)
        text = error_text(excinfo)
        assert f"{db}.t" in text, text[:800]
        assert any(all(w in text for w in words) for words in reasons), (reasons, text[:800])


# -- beyond single cells --------------------------------------------------------------------------

def test_delete_then_reinsert_and_read_old_versions(spark, db):
    name = make_table(spark, db, "deduplicate")
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 3)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, "b", 20)]
    spark.sql(f"INSERT INTO {name} VALUES (1, 'again', 11)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "again", 11), (2, "b", 20)]
    assert sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF 2") == SEED
    assert sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF 3") == [(2, "b", 20)]
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(2,)]


@pytest.mark.parametrize("engine", ["deduplicate", "partial-update-remove"])
def test_merge_with_every_clause(spark, db, engine):
    name = make_table(spark, db, engine)
    spark.sql(f"""MERGE INTO {name} t
                  USING (SELECT * FROM VALUES (1, 'A', 11), (2, 'gone', 0), (5, 'e', 50) AS s(id, v, n)) s
                  ON t.id = s.id
                  WHEN MATCHED AND s.v = 'gone' THEN DELETE
                  WHEN MATCHED THEN UPDATE SET v = s.v, n = s.n
                  WHEN NOT MATCHED THEN INSERT *
                  WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 'orphan'""")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "A", 11), (3, "orphan", 30), (5, "e", 50)]


@pytest.mark.parametrize("engine, clause", [
    ("deduplicate", "WHEN MATCHED AND s.n > 0 THEN UPDATE SET *"),
    ("partial-update", "WHEN MATCHED THEN UPDATE SET *"),
    ("partial-update", "WHEN MATCHED THEN UPDATE SET id = s.id, v = s.v"),
])
def test_merge_update_of_the_key_from_a_nullable_source(spark, db, engine, clause):
    # A DataFrame's columns are nullable, and Spark assigns the NOT NULL key `id = AssertNotNull(s.id)`:
    # still the value the ON condition equates the key with, so the row keeps its key.
    name = make_table(spark, db, engine)
    spark.createDataFrame([(2, "B", 22), (4, "d", 40)], "id int, v string, n int").createOrReplaceTempView("dml_src")
    spark.sql(f"MERGE INTO {name} t USING dml_src s ON t.id = s.id {clause} WHEN NOT MATCHED THEN INSERT *")
    n2 = 20 if "n = " not in clause and "*" not in clause else 22
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a", 10), (2, "B", n2), (3, "c", 30), (4, "d", 40)]


@pytest.mark.parametrize("sql", [
    "UPDATE {t} SET v = NULL WHERE id = 2",
    "MERGE INTO {t} t USING (SELECT 2 AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = NULL",
], ids=["update", "merge"])
def test_partial_update_assigning_null_is_rejected(spark, warehouse, db, sql):
    # Partial-update never lets a null overwrite a value, so assigning NULL cannot be honoured.
    name = make_table(spark, db, "partial-update")
    assert_rejected(spark, warehouse, db, sql.format(t=name), ["'v'", "NULL", "partial-update"])


@pytest.mark.parametrize("sql", [
    "UPDATE {t} SET v = 'B' WHERE id = 2",
    "MERGE INTO {t} t USING (SELECT 2 AS id, 'B' AS v) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v",
    "MERGE INTO {t} t USING (SELECT 2 AS id, CAST(NULL AS INT) AS n) s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET v = 'B', n = s.n",
], ids=["update", "merge", "merge-null-over-null"])
def test_partial_update_keeps_the_nulls_a_row_holds(spark, db, sql):
    # Spark hands the writer the whole new row: a column the row holds NULL in stays NULL, which a
    # partial-update table honours (nothing is overwritten), so the update must not be refused for it.
    name = make_table(spark, db, "partial-update")
    spark.sql(f"INSERT INTO {name} VALUES (2, 'b', NULL)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a", 10), (2, "b", 20), (3, "c", 30)]
    # n of key 2 is a value (20): the partial-update row merged its NULL away; a fresh key holds NULL
    spark.sql(f"INSERT INTO {name} VALUES (5, 'e', NULL)")
    spark.sql(sql.format(t=name).replace("id = 2", "id = 5").replace("2 AS id", "5 AS id"))
    assert sql_rows(spark, f"SELECT * FROM {name} WHERE id = 5") == [(5, "B", None)]


@pytest.mark.parametrize("sql", [
    "UPDATE {t} SET n = CASE WHEN id = 2 THEN NULL ELSE n END",
    "MERGE INTO {t} t USING (SELECT 2 AS id, CAST(NULL AS INT) AS n) s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET n = s.n",
], ids=["update", "merge"])
def test_partial_update_computed_null_over_a_value_is_refused(spark, warehouse, db, sql):
    # Not a NULL literal, so only the writer sees it: key 2 holds n = 20, which a NULL cannot overwrite.
    name = make_table(spark, db, "partial-update")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(sql.format(t=name))
    assert f"of table {db}.t (merge-engine partial-update) cannot set column 'n' to NULL" in error_text(excinfo)


def test_dml_on_partitioned_pk_table(spark, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"""CREATE TABLE {name} (p STRING, id INT, v STRING) PARTITIONED BY (p)
                  TBLPROPERTIES ('primary-key' = 'p,id', 'bucket' = '2')""")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'x1'), ('x', 2, 'x2'), ('y', 1, 'y1'), ('y', 2, 'y2')")
    spark.sql(f"DELETE FROM {name} WHERE p = 'x' AND id = 1")
    spark.sql(f"UPDATE {name} SET v = 'Y2' WHERE p = 'y' AND id = 2")
    spark.sql(f"""MERGE INTO {name} t USING (SELECT * FROM VALUES ('x', 2, 'X2'), ('z', 1, 'z1') AS s(p, id, v)) s
                  ON t.p = s.p AND t.id = s.id
                  WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *""")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [
        ("x", 2, "X2"), ("y", 1, "y1"), ("y", 2, "Y2"), ("z", 1, "z1")]


@pytest.mark.parametrize("sql, expected", [
    ("DELETE FROM {t} WHERE id = 1", [(2, "b")]),
    ("UPDATE {t} SET v = 'z' WHERE id = 1", [(1, "z"), (2, "b")]),
    ("MERGE INTO {t} t USING (SELECT 1 AS id, 'z' AS v) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v",
     [(1, "z"), (2, "b")]),
], ids=["delete", "update", "merge"])
def test_dml_on_append_table_rewrites_its_files(spark, db, sql, expected):
    """Append tables (no primary key) take DML copy-on-write: tests/test_append_dml.py."""
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(sql.format(t=name))
    assert sorted(sql_rows(spark, f"SELECT * FROM {name}")) == expected


@pytest.mark.parametrize("ts_type", ["BIGINT", "BIGINT NOT NULL"])
def test_delete_update_and_merge_with_sequence_field(spark, db, ts_type):
    # A delete record carries the deleted row's sequence value (a NOT NULL sequence field joins the
    # row id Spark hands to deletes; a nullable one comes as a metadata column that mirrors it), ties
    # the row and, written later, wins; a later write with a lower sequence value stays behind it.
    name = f"{CAT}.{db}.t"
    spark.sql(f"""CREATE TABLE {name} (id INT, v STRING, ts {ts_type})
                  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'sequence.field' = 'ts')""")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 20), (2, 'b', 20), (3, 'c', 5), (4, 'd', 7)")
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    spark.sql(f"MERGE INTO {name} t USING (SELECT 3 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, "b", 20), (4, "d", 7)]
    assert sql_rows(spark, f"SELECT rowkind, id, ts FROM {CAT}.{db}.`t$audit_log` WHERE rowkind = '-D'") == \
        [("-D", 1, 20), ("-D", 3, 5)]
    spark.sql(f"UPDATE {name} SET v = 'B' WHERE id = 2")
    spark.sql(f"UPDATE {name} SET v = 'older', ts = 1 WHERE id = 4")  # a lower sequence value loses
    spark.sql(f"INSERT INTO {name} VALUES (1, 'late', 10), (3, 'later', 6)")
    expected = [(2, "B", 20), (3, "later", 6), (4, "d", 7)]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected


def test_sequence_field_of_two_columns_through_writes_dml_and_compaction(spark, db):
    # (a, b) compared column by column, NULL first; b nullable, so deletes take both as metadata
    # columns. Each later write below carries a lower or higher pair than the row it meets. No
    # compaction runs before the CALL (write-only): one to the top level drops the delete records, as
    # Paimon's does, after which a late write with a lower pair is a row again.
    name = f"{CAT}.{db}.t"
    spark.sql(f"""CREATE TABLE {name} (id INT, v STRING, a BIGINT NOT NULL, b BIGINT)
                  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'sequence.field' = 'a,b',
                                 'write-only' = 'true')""")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x', 1, 5), (2, 'y', 1, 1), (3, 'n', 1, NULL), (4, 'p', 2, 0)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'older', 1, 3), (2, 'newer', 2, 0), (3, 'm', 1, 0), (4, 'q', 1, 9)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "x", 1, 5), (2, "newer", 2, 0), (3, "m", 1, 0), (4, "p", 2, 0)]
    spark.sql(f"DELETE FROM {name} WHERE id = 1")  # its record carries (1, 5)
    spark.sql(f"MERGE INTO {name} t USING (SELECT 2 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE")  # (2, 0)
    spark.sql(f"UPDATE {name} SET v = 'P' WHERE id = 4")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'late', 1, 4), (2, 'again', 2, 1)")
    expected = [(2, "again", 2, 1), (3, "m", 1, 0), (4, "P", 2, 0)]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    spark.sql(f"INSERT INTO {name} VALUES (3, 'stale', 0, 99), (4, 'fresh', 2, 1)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, "again", 2, 1), (3, "m", 1, 0), (4, "fresh", 2, 1)]


def test_delete_of_rows_whose_sequence_field_is_null(spark, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"""CREATE TABLE {name} (id INT, v STRING, ts BIGINT)
                  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'sequence.field' = 'ts')""")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', NULL), (2, 'b', NULL), (3, 'c', 3)")
    spark.sql(f"DELETE FROM {name} WHERE v IN ('a', 'c')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, "b", None)]
    # the hidden column is not part of the table's columns, and reads as the column it mirrors
    assert [f.name for f in spark.table(name).schema.fields] == ["id", "v", "ts"]
    assert sql_rows(spark, f"SELECT id, __lamina_deleted_ts FROM {name}") == [(2, None)]


def test_filters_do_not_bring_deleted_rows_back(spark, db):
    # A delete record need not hold the deleted row's values: a value filter applied before merging
    # could drop it and let the deleted row through.
    name = make_table(spark, db, "deduplicate")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")
    spark.sql(f"UPDATE {name} SET v = 'z' WHERE id = 3")
    assert sql_rows(spark, f"SELECT * FROM {name} WHERE v = 'b'") == []
    assert sql_rows(spark, f"SELECT * FROM {name} WHERE n = 20") == []
    assert sql_rows(spark, f"SELECT * FROM {name} WHERE v = 'c'") == []
    assert sql_rows(spark, f"SELECT id FROM {name} WHERE n > 5") == [(1,), (3,)]
    assert sql_rows(spark, f"SELECT count(*) FROM {name} WHERE v IS NOT NULL") == [(2,)]


@pytest.mark.parametrize("engine", list(ENGINES))
def test_delete_of_whole_partitions_and_of_everything_works_for_every_engine(spark, db, engine):
    # Dropping whole partitions (or everything) needs no merging, so every merge engine honours it.
    name = f"{CAT}.{db}.t"
    props = {"primary-key": "p,id", "bucket": "2", **ENGINES[engine]}
    spark.sql(f"CREATE TABLE {name} (p STRING, id INT, v STRING, n INT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ({', '.join(f'{k!r} = {v!r}' for k, v in props.items())})")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1), ('y', 2, 'b', 2), ('z', 3, 'c', 3)")
    spark.sql(f"DELETE FROM {name} WHERE p = 'x'")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("y", 2, "b", 2), ("z", 3, "c", 3)]
    spark.sql(f"DELETE FROM {name}")
    assert sql_rows(spark, f"SELECT * FROM {name}") == []
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'again', 5)")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 1, "again", 5)]


@pytest.mark.parametrize("clause", ["UPDATE SET *", "UPDATE SET id = s.id, v = s.v, n = s.n"])
def test_merge_may_assign_the_key_the_on_condition_equates_it_with(spark, db, clause):
    # SET * (or SET id = s.id) under ON t.id = s.id writes each row's own key back: not a key change
    name = make_table(spark, db, "deduplicate")
    spark.sql(f"MERGE INTO {name} t USING ({SOURCE}) s ON t.id = s.id WHEN MATCHED THEN {clause}")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a", 10), (2, "B", 22), (3, "c", 30)]


def test_merge_clause_the_engine_cannot_honour_is_refused_even_when_no_row_matches(spark, warehouse, db):
    # refused for what the statement says, not for what the data happens to hold
    name = make_table(spark, db, "first-row")
    assert_rejected(spark, warehouse, db,
                    f"MERGE INTO {name} t USING (SELECT 99 AS id, 'x' AS v, 1 AS n) s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET v = s.v", ["first-row"])


@pytest.mark.parametrize("statement", ["delete", "update", "merge_matched_update", "merge_matched_delete"])
def test_refusal_happens_during_analysis(spark, db, statement):
    # EXPLAIN analyses and plans a statement without running it: the refusal is already there
    name = make_table(spark, db, "first-row")
    text = "\n".join(r[0] for r in spark.sql("EXPLAIN " + STATEMENTS[statement].format(t=name)).collect())
    assert "first-row" in text and f"{db}.t" in text, text[:800]
