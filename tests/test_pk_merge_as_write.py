"""MERGE INTO that upserts its source, deletes its keys or applies a change set, planned as a write of the source alone.

A MERGE on a deduplicate primary-key table whose ON condition equates exactly the primary key with the
source, with one unconditional WHEN MATCHED UPDATE and one unconditional WHEN NOT MATCHED INSERT that
write the same row (UPDATE SET * ... INSERT *), is an upsert; with a single unconditional WHEN MATCHED
DELETE it is a delete by keys; with WHEN MATCHED AND c THEN DELETE, WHEN MATCHED THEN UPDATE SET * and WHEN
NOT MATCHED AND NOT c THEN INSERT * (c never NULL) it applies a change set. The session extensions plan
them as a write of the source, without a scan of the table or a join. These tests check that the rows are those of Spark's row-level MERGE, that such
MERGEs are planned so (and other MERGEs are not), that a key an upsert's source holds twice is refused
with nothing committed, and that a NULL key is refused by an upsert and matches nothing in a delete.
"""

import random

import pytest

from _support import error_text, sorted_tuples, sql_rows, unchanged

CAT = "lamina"
UPSERT = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
# The same clauses with a condition that is always true: Spark's row-level plan, the reference.
ROW_LEVEL = "WHEN MATCHED AND s.n IS NULL OR s.n IS NOT NULL THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"


def make_table(spark, db, table, props=None, partitioned=False):
    name = f"{CAT}.{db}.{table}"
    props = {"primary-key": "p,id" if partitioned else "id", "bucket": "2", **(props or {})}
    options = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    part = "PARTITIONED BY (p)" if partitioned else ""
    spark.sql(f"CREATE TABLE {name} (p STRING NOT NULL, id BIGINT NOT NULL, v STRING, n INT) {part} "
              f"TBLPROPERTIES ({options})")
    return name


def plan_of(spark, statement):
    return "\n".join(r[0] for r in spark.sql(f"EXPLAIN EXTENDED {statement}").collect())


def values(rows):
    def lit(x):
        return "NULL" if x is None else (f"'{x}'" if isinstance(x, str) else str(x))
    return ", ".join("(" + ", ".join(lit(x) for x in r) + ")" for r in rows)


def source(rows, columns="p, id, v, n"):
    return f"(SELECT * FROM VALUES {values(rows)} AS s({columns}))"


def merge_rounds(spark, db, partitioned, seed, changes_of, clauses, reference_clauses, columns="p, id, v, n"):
    """Four rounds of MERGE INTO of a random batch: `clauses` into one table, `reference_clauses` (Spark's
    row-level plan) into another, both compared with a model of the rows after each round.
    `changes_of(rnd, model, new_key, round_)` returns the batch's rows (columns `columns`, each key once) and
    the model after it; `new_key()` gives a key the table never held."""
    rnd = random.Random(seed)
    on = "t.p = s.p AND t.id = s.id" if partitioned else "t.id = s.id"
    fast = make_table(spark, db, "fast", partitioned=partitioned)
    ref = make_table(spark, db, "ref", partitioned=partitioned)
    model = {}
    counter = iter(range(10 ** 6))

    def new_key():
        return (rnd.choice(["a", "b"]) if partitioned else "x", next(counter))

    for round_ in range(4):
        rows, model = changes_of(rnd, model, new_key, round_)
        rnd.shuffle(rows)
        statement = "MERGE INTO {t} t USING " + source(rows, columns) + f" s ON {on} "
        if round_ == 0:
            assert "AppendData" in plan_of(spark, statement.format(t=fast) + clauses)
            assert "WriteDelta" in plan_of(spark, statement.format(t=ref) + reference_clauses)
        spark.sql(statement.format(t=fast) + clauses)
        spark.sql(statement.format(t=ref) + reference_clauses)
        expected = sorted_tuples((p, i, v, n) for (p, i), (v, n) in model.items())
        assert sql_rows(spark, f"SELECT * FROM {ref}") == expected
        assert sql_rows(spark, f"SELECT * FROM {fast}") == expected


@pytest.mark.parametrize("partitioned", [False, True])
def test_upsert_merge_gives_the_rows_of_the_row_level_merge(spark, db, partitioned):
    def upserts(rnd, model, new_key, round_):
        batch = {}
        # updates of existing keys and new keys, each key once, some values NULL
        for key in rnd.sample(sorted(model), min(len(model), 15)):
            batch[key] = (f"u{round_}" if rnd.random() < 0.8 else None, rnd.randint(-5, 5))
        for _ in range(20):
            batch[new_key()] = (f"i{round_}", None if rnd.random() < 0.2 else rnd.randint(0, 9))
        return [(p, i, v, n) for (p, i), (v, n) in batch.items()], {**model, **batch}

    merge_rounds(spark, db, partitioned, 20261124, upserts, UPSERT, ROW_LEVEL)


def test_upsert_merge_is_planned_as_an_append_of_the_source(spark, db):
    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1), ('x', 2, 'b', 2)")
    statement = f"MERGE INTO {name} t USING {source([('x', 2, 'B', 20), ('x', 3, 'c', 3)])} s ON t.id = s.id "
    plan = plan_of(spark, statement + UPSERT)
    assert "AppendData" in plan and "WriteDelta" not in plan, plan
    assert "WriteDelta" in plan_of(spark, statement + ROW_LEVEL)
    spark.sql(statement + UPSERT)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 1, "a", 1), ("x", 2, "B", 20), ("x", 3, "c", 3)]
    # written as inserts, as an INSERT INTO of the same rows
    latest = sql_rows(spark, f"SELECT rowkind, id FROM {CAT}.{db}.`t$audit_log` WHERE id >= 2")
    assert latest == [("+I", 2), ("+I", 3)]


def test_dataframe_merge_into_is_an_upsert_too(spark, db):
    from pyspark.sql import functions as F

    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1)")
    src = spark.sql(f"SELECT * FROM {source([('x', 1, 'A', 10), ('x', 5, 'e', 5)])}").alias("s")
    src.mergeInto(name, F.expr("t.id = s.id")).whenMatched().updateAll().whenNotMatched().insertAll().merge()
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 1, "A", 10), ("x", 5, "e", 5)]
    assert sql_rows(spark, f"SELECT rowkind, id FROM {CAT}.{db}.`t$audit_log` WHERE id IN (1, 5) AND v != 'a'") == [
        ("+I", 1), ("+I", 5)]


@pytest.mark.parametrize("props, statement", [
    ({"merge-engine": "partial-update"}, "ON t.id = s.id " + UPSERT),
    ({}, "ON t.id = s.id AND t.v = s.v " + UPSERT),
    ({}, "ON t.id = s.id WHEN MATCHED THEN UPDATE SET n = t.n + s.n WHEN NOT MATCHED THEN INSERT *"),
    ({}, "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT (p, id, v, n) "
         "VALUES (s.p, s.id, 'other', s.n)"),
    ({}, "ON t.id = s.id " + UPSERT + " WHEN NOT MATCHED BY SOURCE THEN DELETE"),
    ({}, "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED AND s.n > 0 THEN INSERT *"),
    ({}, "ON t.id = s.id + 0 " + UPSERT.replace("UPDATE SET *", "UPDATE SET id = s.id + 0, v = s.v")),
], ids=["partial-update", "on-more-than-the-key", "update-reads-target", "insert-differs", "by-source",
        "conditional-insert", "key-expression-differs"])
def test_other_merges_keep_the_row_level_plan(spark, db, props, statement):
    name = make_table(spark, db, "t", props)
    plan = plan_of(spark, f"MERGE INTO {name} t USING {source([('x', 2, 'B', 20)])} s " + statement)
    assert "WriteDelta" in plan and "AppendData" not in plan, plan


def test_a_key_twice_in_the_source_is_refused_and_nothing_is_committed(spark, db, warehouse):
    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1), ('x', 2, 'b', 2)")
    rows = [("x", i, "n", i) for i in range(3, 40)] + [("x", 7, "again", 0)]
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(f"MERGE INTO {name} t USING {source(rows)} s ON t.id = s.id " + UPSERT)
    assert f"Table {db}.t: more than one written row has primary key (id=7)" in error_text(e)


def test_a_null_key_in_the_source_is_refused(spark, db, warehouse):
    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1)")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(f"MERGE INTO {name} t USING (SELECT 'x' AS p, CAST(NULL AS BIGINT) AS id, 'v' AS v, 1 AS n) s "
                      "ON t.id = s.id " + UPSERT)
    assert "NULL" in error_text(e) and "id" in error_text(e)


def test_a_nullable_source_is_upserted_and_its_null_key_refused(spark, db, warehouse):
    # a DataFrame's columns are nullable: Spark checks the key assignment for NULL (AssertNotNull)
    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1)")
    spark.createDataFrame([("x", 1, "A", 10), ("x", 2, "b", 2)], "p string, id bigint, v string, n int") \
        .createOrReplaceTempView("nullable_src")
    statement = f"MERGE INTO {name} t USING nullable_src s ON t.id = s.id " + UPSERT
    assert "AppendData" in plan_of(spark, statement)
    spark.sql(statement)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 1, "A", 10), ("x", 2, "b", 2)]
    spark.createDataFrame([("x", None, "z", 0)], "p string, id bigint, v string, n int") \
        .createOrReplaceTempView("nullable_src")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(statement)
    assert "NULL" in error_text(e) and "id" in error_text(e)


DELETE_KEYS = "WHEN MATCHED THEN DELETE"
DELETE_ROW_LEVEL = "WHEN MATCHED AND s.id IS NOT NULL THEN DELETE"


@pytest.mark.parametrize("partitioned", [False, True])
def test_delete_by_keys_gives_the_rows_of_the_row_level_merge(spark, db, partitioned):
    on = "t.p = s.p AND t.id = s.id" if partitioned else "t.id = s.id"
    seed = [("a" if i % 2 else "b", i, f"v{i}", i) for i in range(20)]
    fast = make_table(spark, db, "fast", partitioned=partitioned)
    ref = make_table(spark, db, "ref", partitioned=partitioned)
    for name in (fast, ref):
        spark.sql(f"INSERT INTO {name} VALUES {values(seed)}")
    # present keys, absent keys, a key twice, a NULL key, and (partitioned) a key under the wrong partition
    doomed = [("a", 1, None, None), ("b", 2, None, None), ("a", 3, None, None), ("a", 3, None, None),
              ("a", 99, None, None), ("b", 5, None, None)]
    src = spark.createDataFrame(doomed + [("a", None, None, None)], "p string, id bigint, v string, n int")
    src.createOrReplaceTempView("doomed")
    statement = f"MERGE INTO {{t}} t USING doomed s ON {on} "
    assert "AppendData" in plan_of(spark, statement.format(t=fast) + DELETE_KEYS)
    spark.sql(statement.format(t=fast) + DELETE_KEYS)
    # (a conditional delete makes Spark check that each row is matched once: the reference gets each key once)
    spark.sql(f"MERGE INTO {ref} t USING (SELECT DISTINCT * FROM doomed) s ON {on} " + DELETE_ROW_LEVEL)
    gone = {1, 2, 3} | (set() if partitioned else {5})
    expected = sorted_tuples(r for r in seed if r[1] not in gone)
    assert sql_rows(spark, f"SELECT * FROM {ref}") == expected
    assert sql_rows(spark, f"SELECT * FROM {fast}") == expected
    deletes = {r[0] for r in sql_rows(spark, f"SELECT id FROM {CAT}.{db}.`fast$audit_log` WHERE rowkind = '-D'")}
    assert gone <= deletes, deletes


def test_delete_by_keys_of_a_table_with_not_null_values(spark, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT NOT NULL, v STRING NOT NULL, d DATE NOT NULL) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', DATE'2024-01-01'), (2, 'b', DATE'2024-01-02')")
    statement = f"MERGE INTO {name} t USING (SELECT 2L AS id) s ON t.id = s.id " + DELETE_KEYS
    assert "AppendData" in plan_of(spark, statement)
    spark.sql(statement)
    assert sql_rows(spark, f"SELECT id, v FROM {name}") == [(1, "a")]


@pytest.mark.parametrize("props, clause", [
    ({"sequence.field": "n"}, DELETE_KEYS),
    ({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}, DELETE_KEYS),
    ({}, DELETE_KEYS + " WHEN NOT MATCHED THEN INSERT *"),
    ({}, DELETE_ROW_LEVEL),
    # the changelog of an input producer is the records written: a delete carries the row, read from the table
    ({"changelog-producer": "input"}, DELETE_KEYS),
], ids=["sequence-field", "partial-update", "with-insert", "conditional", "input-changelog"])
def test_other_deleting_merges_keep_the_row_level_plan(spark, db, props, clause):
    name = make_table(spark, db, "t", props)
    plan = plan_of(spark, f"MERGE INTO {name} t USING {source([('x', 2, 'B', 20)])} s ON t.id = s.id " + clause)
    assert "WriteDelta" in plan and "AppendData" not in plan, plan


INSERT_ABSENT = "WHEN NOT MATCHED THEN INSERT *"


def test_insert_of_absent_keys_into_a_first_row_table(spark, db):
    fast = make_table(spark, db, "fast", {"merge-engine": "first-row"})
    ref = make_table(spark, db, "ref", {"merge-engine": "first-row"})
    for name in (fast, ref):
        spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1), ('x', 2, 'b', 2)")
    rows = [("x", 2, "B", 20), ("x", 3, "c", 3), ("x", 4, "d", 4)]
    statement = "MERGE INTO {t} t USING " + source(rows) + " s ON t.id = s.id "
    # (Spark itself plans an insert-only MERGE as an append of the source anti-joined with the table)
    plan = plan_of(spark, statement.format(t=fast) + INSERT_ABSENT)
    assert "AppendData" in plan and "Join" not in plan, plan
    spark.sql(statement.format(t=fast) + INSERT_ABSENT)
    spark.sql(statement.format(t=ref) + "WHEN NOT MATCHED AND s.n IS NOT NULL THEN INSERT *")
    expected = [("x", 1, "a", 1), ("x", 2, "b", 2), ("x", 3, "c", 3), ("x", 4, "d", 4)]
    assert sql_rows(spark, f"SELECT * FROM {ref}") == expected
    assert sql_rows(spark, f"SELECT * FROM {fast}") == expected


@pytest.mark.parametrize("props, clause", [
    ({}, INSERT_ABSENT),
    ({"merge-engine": "first-row"}, "WHEN NOT MATCHED AND s.n > 0 THEN INSERT *"),
], ids=["deduplicate", "conditional"])
def test_other_inserting_merges_keep_the_join(spark, db, props, clause):
    name = make_table(spark, db, "t", props)
    plan = plan_of(spark, f"MERGE INTO {name} t USING {source([('x', 2, 'B', 20)])} s ON t.id = s.id " + clause)
    assert "Join LeftAnti" in plan, plan


CHANGES = ("WHEN MATCHED AND s.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET * "
           "WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT *")
# The same clauses with a delete condition that is not the insert's negation as written: the row-level plan.
CHANGES_ROW_LEVEL = ("WHEN MATCHED AND s.op = 'D' AND s.id IS NOT NULL THEN DELETE WHEN MATCHED THEN UPDATE SET * "
                     "WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT *")


CHANGE_COLUMNS = "op, p, id, v, n"


def change_source(rows):
    return source(rows, CHANGE_COLUMNS)


@pytest.mark.parametrize("partitioned", [False, True])
def test_change_set_merge_gives_the_rows_of_the_row_level_merge(spark, db, partitioned):
    def changes(rnd, model, new_key, round_):
        batch = {}
        # deletes and updates of present keys, inserts and deletes of absent keys, each key once
        for key in rnd.sample(sorted(model), min(len(model), 16)):
            batch[key] = ("D", None, None) if rnd.random() < 0.4 else \
                ("U", f"u{round_}" if rnd.random() < 0.8 else None, rnd.randint(-5, 5))
        for _ in range(16):
            batch[new_key()] = ("D", "gone", 0) if rnd.random() < 0.25 else ("I", f"i{round_}", rnd.randint(0, 9))
        after = dict(model)
        for key, (op, v, n) in batch.items():
            if op == "D":
                after.pop(key, None)
            else:
                after[key] = (v, n)
        return [(op, p, i, v, n) for (p, i), (op, v, n) in batch.items()], after

    merge_rounds(spark, db, partitioned, 20261125, changes, CHANGES, CHANGES_ROW_LEVEL, CHANGE_COLUMNS)


def test_change_set_merge_writes_deletes_and_upserts_without_a_join(spark, db, paimon_catalog):
    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1), ('x', 2, 'b', 2), ('x', 3, 'c', 3)")
    rows = [("D", "x", 1, "ignored", 0), ("U", "x", 2, "B", 20), ("I", "x", 4, "d", 4), ("D", "x", 9, "absent", 0)]
    statement = f"MERGE INTO {name} t USING {change_source(rows)} s ON t.id = s.id " + CHANGES
    plan = plan_of(spark, statement)
    assert "AppendData" in plan and "WriteDelta" not in plan and "Join" not in plan, plan
    spark.sql(statement)
    expected = [("x", 2, "B", 20), ("x", 3, "c", 3), ("x", 4, "d", 4)]
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    latest = sql_rows(spark, f"SELECT rowkind, id FROM {CAT}.{db}.`t$audit_log` WHERE id != 3")
    assert latest == [("+I", 2), ("+I", 4), ("-D", 1), ("-D", 9)]
    table = paimon_catalog.get_table(f"{db}.t")
    read = table.new_read_builder()
    got = read.new_read().to_arrow(read.new_scan().plan().splits()).to_pylist()
    assert sorted((r["p"], r["id"], r["v"], r["n"]) for r in got) == expected


def test_change_set_merge_with_a_boolean_flag_and_a_dataframe_source(spark, db):
    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1), ('x', 2, 'b', 2)")
    # a DataFrame's columns are nullable: coalesce makes the flag a condition that is never NULL
    spark.createDataFrame([(True, "x", 1, None, None), (False, "x", 2, "B", 20), (False, "x", 5, "e", 5)],
                          "deleted boolean, p string, id bigint, v string, n int") \
        .selectExpr("coalesce(deleted, false) AS deleted", "p", "id", "v", "n").createOrReplaceTempView("flagged")
    statement = (f"MERGE INTO {name} t USING flagged s ON t.id = s.id "
                 "WHEN MATCHED AND s.deleted = true THEN DELETE WHEN MATCHED THEN UPDATE SET * "
                 "WHEN NOT MATCHED AND s.deleted = false THEN INSERT *")
    assert "AppendData" in plan_of(spark, statement)
    spark.sql(statement)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 2, "B", 20), ("x", 5, "e", 5)]


def test_change_set_deletes_of_null_keys_match_nothing_and_repeated_keys_are_refused(spark, db, warehouse):
    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1), ('x', 2, 'b', 2)")
    spark.createDataFrame([("D", "x", None, None, None), ("D", "x", 1, None, None)],
                          "op string, p string, id bigint, v string, n int") \
        .selectExpr("coalesce(op, 'I') AS op", "p", "id", "v", "n").createOrReplaceTempView("changes")
    statement = f"MERGE INTO {name} t USING changes s ON t.id = s.id " + CHANGES
    assert "AppendData" in plan_of(spark, statement)
    spark.sql(statement)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 2, "b", 2)]
    rows = [("U", "x", 2, "B", 20), ("D", "x", 2, None, 0)]
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(f"MERGE INTO {name} t USING {change_source(rows)} s ON t.id = s.id " + CHANGES)
    assert f"Table {db}.t: more than one written row has primary key (id=2)" in error_text(e)


@pytest.mark.parametrize("props, src, clauses", [
    ({}, "(SELECT * FROM VALUES ('D', 'x', 2, 'B', 20), (NULL, 'x', 3, 'c', 3) AS s(op, p, id, v, n))", CHANGES),
    ({}, None, CHANGES.replace("WHEN NOT MATCHED AND s.op <> 'D'", "WHEN NOT MATCHED")),
    ({}, None, CHANGES.replace("WHEN MATCHED THEN UPDATE SET *", "WHEN MATCHED THEN UPDATE SET v = s.v")),
    ({"sequence.field": "n"}, None, CHANGES),
    ({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}, None, CHANGES),
], ids=["nullable-condition", "insert-not-the-negation", "update-not-the-insert", "sequence-field", "partial-update"])
def test_other_change_set_merges_keep_the_row_level_plan(spark, db, props, src, clauses):
    name = make_table(spark, db, "t", props)
    src = src or change_source([("D", "x", 2, "B", 20), ("I", "x", 3, "c", 3)])
    plan = plan_of(spark, f"MERGE INTO {name} t USING {src} s ON t.id = s.id " + clauses)
    assert "WriteDelta" in plan and "AppendData" not in plan, plan


def test_change_set_of_a_table_with_not_null_values(spark, db):
    # a deleted row's values are never written: NULLs there do not reach the NOT NULL checks
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT NOT NULL, v STRING NOT NULL, d DATE NOT NULL) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', DATE'2024-01-01'), (2, 'b', DATE'2024-01-02')")
    spark.createDataFrame([("D", 1, None, None), ("U", 2, "B", None), ("I", 3, "c", None)],
                          "op string, id bigint, v string, d string") \
        .selectExpr("coalesce(op, '') AS op", "id", "v", "CAST(coalesce(d, '2024-02-0' || id) AS DATE) AS d") \
        .createOrReplaceTempView("changes")
    statement = f"MERGE INTO {name} t USING changes s ON t.id = s.id " + CHANGES
    assert "AppendData" in plan_of(spark, statement)
    spark.sql(statement)
    assert sql_rows(spark, f"SELECT id, v, CAST(d AS STRING) FROM {name}") == [(2, "B", "2024-02-02"), (3, "c", "2024-02-03")]
    # an update or insert with a NULL in a NOT NULL column is refused, as by Spark's row-level MERGE
    spark.createDataFrame([("U", 2, None)], "op string, id bigint, v string") \
        .selectExpr("coalesce(op, '') AS op", "id", "v", "DATE'2024-03-01' AS d").createOrReplaceTempView("changes")
    with pytest.raises(Exception) as e:
        spark.sql(statement)
    assert "v" in error_text(e) and "NULL" in error_text(e).upper()
    assert sql_rows(spark, f"SELECT id, v FROM {name}") == [(2, "B"), (3, "c")]


def test_dataframe_merge_into_applies_a_change_set_too(spark, db):
    from pyspark.sql import functions as F

    name = make_table(spark, db, "t")
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1), ('x', 2, 'b', 2)")
    src = spark.sql(f"SELECT * FROM {change_source([('D', 'x', 1, None, 0), ('U', 'x', 2, 'B', 20), ('I', 'x', 5, 'e', 5)])}")
    (src.alias("s").mergeInto(name, F.expr("t.id = s.id"))
     .whenMatched(F.expr("s.op = 'D'")).delete()
     .whenMatched().updateAll()
     .whenNotMatched(F.expr("s.op <> 'D'")).insertAll()
     .merge())
    assert sql_rows(spark, f"SELECT * FROM {name}") == [("x", 2, "B", 20), ("x", 5, "e", 5)]
    assert sql_rows(spark, f"SELECT rowkind, id FROM {CAT}.{db}.`t$audit_log` WHERE id = 1") == [("-D", 1)]


def test_change_set_into_a_table_with_a_column_named_like_the_kind_column_keeps_the_row_level_plan(spark, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT NOT NULL, __lamina_row_kind TINYINT) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 7), (2, 8)")
    statement = (f"MERGE INTO {name} t USING (SELECT * FROM VALUES ('D', 1L, 0Y), ('U', 2L, 9Y) "
                 "AS s(op, id, __lamina_row_kind)) s ON t.id = s.id " + CHANGES)
    assert "WriteDelta" in plan_of(spark, statement)
    spark.sql(statement)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(2, 9)]


def test_change_set_into_a_table_that_ignores_deletes_is_refused(spark, db, warehouse):
    # as a row-level MERGE ... DELETE is: the deletes would be dropped, so the statement fails unexecuted
    name = make_table(spark, db, "t", {"ignore-delete": "true"})
    spark.sql(f"INSERT INTO {name} VALUES ('x', 1, 'a', 1)")
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            spark.sql(f"MERGE INTO {name} t USING {change_source([('D', 'x', 1, None, 0)])} s ON t.id = s.id "
                      + CHANGES)
    assert "DELETE" in error_text(e) and "ignore-delete" in error_text(e)
