"""Branches: CALL sys.create_branch / delete_branch / fast_forward, reading and writing `t$branch_b`
(and the `branch` read/write option), the $branches table, expiration and orphan-file removal keeping
what a branch uses, and interop with Paimon's own connector both ways."""

import pytest

from _lifecycle import CAT, files_on_disk, make_history, systable
from _support import error_text, read_json, sql_rows, table_path
from paimon_connector import require_paimon, run_sql
from lamina import LaminaTable


def branch_name(name, branch):
    """`lamina.db.t` and `b` into lamina.db.`t$branch_b`."""
    return systable(name, f"branch_{branch}")


def test_branch_from_tag_reads_writes_and_lists_on_its_own(spark, warehouse, db):
    name = make_history(spark, db, commits=3)
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'one', snapshot => 1)")
    assert sql_rows(spark, f"CALL {CAT}.sys.create_branch('{db}.t', 'dev', 'one')") == [(True,)]
    main_rows = sql_rows(spark, f"SELECT * FROM {name}")
    dev = branch_name(name, "dev")
    assert sql_rows(spark, f"SELECT * FROM {dev}") == sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF 1")

    spark.sql(f"INSERT INTO {dev} VALUES (100, 'dev-only')")
    assert (100, "dev-only") in sql_rows(spark, f"SELECT * FROM {dev}")
    assert sql_rows(spark, f"SELECT * FROM {name}") == main_rows
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{db}.t WHERE id = 100") == []
    # the branch option reads and writes the branch too
    spark.createDataFrame([(101, "by-option")], "id INT, v STRING").writeTo(f"{name}").option("branch", "dev").append()
    got = spark.read.option("branch", "dev").table(name)
    assert sorted((r.id, r.v) for r in got.collect()) == sql_rows(spark, f"SELECT * FROM {dev}")
    assert (101, "by-option") in sql_rows(spark, f"SELECT * FROM {dev}")
    assert sql_rows(spark, f"SELECT * FROM {name}") == main_rows
    # the branch's own system tables
    assert [r[0] for r in sql_rows(spark, f"SELECT snapshot_id FROM {systable(name, 'branch_dev$snapshots')}")] == [1, 2, 3]
    assert sql_rows(spark, f"SELECT branch_name FROM {systable(name, 'branches')}") == [("dev",)]
    assert sql_rows(spark, f"SELECT count(*) FROM {systable(name, 'branches')} WHERE create_time IS NOT NULL") == [(1,)]

    # Paimon's layout: branch/branch-dev/{snapshot,schema,tag}, data shared in the table's directory
    branch_dir = table_path(warehouse, db, "t") / "branch" / "branch-dev"
    assert (branch_dir / "tag" / "tag-one").exists() and (branch_dir / "schema" / "schema-0").exists()
    assert read_json(branch_dir / "snapshot" / "snapshot-1")["id"] == 1
    assert not (branch_dir / "manifest").exists()

    assert sql_rows(spark, f"CALL {CAT}.sys.delete_branch(table => '{db}.t', branch => 'dev')") == [(True,)]
    assert sql_rows(spark, f"SELECT * FROM {systable(name, 'branches')}") == []
    assert not branch_dir.exists()
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {dev}").collect()
    assert "TABLE_OR_VIEW_NOT_FOUND" in error_text(excinfo)


def test_empty_branch_has_the_current_schema_and_fast_forward_moves_main(spark, warehouse, db):
    name = make_history(spark, db, commits=2)
    spark.sql(f"ALTER TABLE {name} ADD COLUMN extra INT")
    spark.sql(f"CALL {CAT}.sys.create_branch(table => '{db}.t', branch => 'empty')")
    empty = branch_name(name, "empty")
    assert sql_rows(spark, f"SELECT * FROM {empty}") == []
    assert [f.name for f in spark.table(empty).schema.fields] == ["id", "v", "extra"]
    spark.sql(f"INSERT INTO {empty} VALUES (7, 'seven', 70)")
    # a branch's schema evolves on its own
    spark.sql(f"ALTER TABLE {empty} ADD COLUMN more STRING")
    assert [f.name for f in spark.table(empty).schema.fields] == ["id", "v", "extra", "more"]
    assert [f.name for f in spark.table(name).schema.fields] == ["id", "v", "extra"]
    spark.sql(f"ALTER TABLE {empty} DROP COLUMN more")
    spark.sql(f"CALL {CAT}.sys.fast_forward(table => '{db}.t', branch => 'empty')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(7, "seven", 70)]


def test_expiration_and_orphan_removal_keep_what_a_branch_uses(spark, warehouse, db):
    name = make_history(spark, db)
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'early', snapshot => 2)")
    spark.sql(f"CALL {CAT}.sys.create_branch(table => '{db}.t', branch => 'old', tag => 'early')")
    old = branch_name(name, "old")
    before = sql_rows(spark, f"SELECT * FROM {old}")
    spark.sql(f"CALL {CAT}.sys.delete_tag(table => '{db}.t', tag => 'early')")
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')")
    assert sql_rows(spark, f"SELECT * FROM {old}") == before
    files_before = files_on_disk(warehouse, db)
    spark.sql(f"CALL {CAT}.sys.delete_branch(table => '{db}.t', branch => 'old')")
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')")
    assert files_on_disk(warehouse, db) < files_before


@pytest.mark.parametrize("call, message", [
    ("create_branch(table => '{t}', branch => 'exists')", "Branch 'exists' of table {t} already exists"),
    ("create_branch(table => '{t}', branch => 'main')", "Invalid branch name 'main': it names the main branch"),
    ("create_branch(table => '{t}', branch => '42')", "Invalid branch name '42': it must not be all digits"),
    ("create_branch(table => '{t}', branch => 'a/b')", "Invalid branch name 'a/b': it must not contain '/'"),
    ("create_branch(table => '{t}', branch => 'x', tag => 'nope')", "Tag 'nope' of table {t} does not exist"),
    ("create_branch(table => '{t}', branch => NULL)", "Argument 'branch' must be given"),
    ("delete_branch(table => '{t}', branch => 'nope')",
     "Branch 'nope' of table {t} does not exist; its branches are exists"),
    ("fast_forward(table => '{t}', branch => 'exists')",
     "Cannot fast-forward table {t} to branch 'exists': the branch has no snapshot"),
    ("fast_forward(table => '{t}', branch => 'main')", "branch must name a branch other than main"),
])
def test_bad_arguments_are_refused_naming_them(spark, db, call, message):
    make_history(spark, db, commits=1)
    t = f"{db}.t"
    spark.sql(f"CALL {CAT}.sys.create_branch(table => '{t}', branch => 'exists')")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CALL {CAT}.sys." + call.format(t=t)).collect()
    assert message.format(t=t) in error_text(excinfo)
    assert sql_rows(spark, f"SELECT branch_name FROM {systable(CAT + '.' + t, 'branches')}") == [("exists",)]


def test_table_api_branches(spark, db):
    make_history(spark, db, commits=2)
    t = LaminaTable.for_name(spark, f"{db}.t")
    t.create_tag("v1", snapshot_id=1)
    t.create_branch("dev", tag="v1")
    t.create_branch("blank")
    assert sorted(r.branch_name for r in t.branches().collect()) == ["blank", "dev"]
    assert sorted(tuple(r) for r in t.to_df(branch="dev").collect()) == sorted(tuple(r) for r in t.to_df(version=1).collect())
    assert t.to_df(branch="blank").count() == 0
    t.delete_branch("blank")
    assert [r.branch_name for r in t.branches().collect()] == ["dev"]
    with pytest.raises(Exception) as excinfo:
        t.to_df(branch="gone")
    assert f"Branch 'gone' of table {db}.t does not exist; its branches are dev" in error_text(excinfo)


def test_paimon_reads_a_lamina_branch_and_lamina_reads_a_paimon_branch(spark, warehouse, db):
    require_paimon()
    name = make_history(spark, db, commits=3)
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'two', snapshot => 2)")
    spark.sql(f"CALL {CAT}.sys.create_branch(table => '{db}.t', branch => 'b', tag => 'two')")
    spark.sql(f"INSERT INTO {branch_name(name, 'b')} VALUES (50, 'on-b')")
    lamina_b = sql_rows(spark, f"SELECT * FROM {branch_name(name, 'b')}")
    results = run_sql(warehouse, [
        f"SELECT id, v FROM paimon.{db}.`t$branch_b` ORDER BY id",
        f"SELECT branch_name FROM paimon.{db}.`t$branches`",
        f"CALL paimon.sys.create_branch(table => '{db}.t', branch => 'p', tag => 'two')",
        f"INSERT INTO paimon.{db}.`t$branch_p` VALUES (60, 'on-p')",
        f"CALL paimon.sys.create_branch(table => '{db}.t', branch => 'pe')",
    ])
    assert [tuple(r) for r in results[0]] == lamina_b
    assert results[1] == [["b"]]
    p_rows = sql_rows(spark, f"SELECT * FROM {branch_name(name, 'p')}")
    assert (60, "on-p") in p_rows
    assert sorted(r for r in p_rows if r != (60, "on-p")) == sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF 2")
    assert sql_rows(spark, f"SELECT * FROM {branch_name(name, 'pe')}") == []
    spark.sql(f"INSERT INTO {branch_name(name, 'pe')} VALUES (70, 'on-pe')")
    assert sql_rows(spark, f"SELECT * FROM {branch_name(name, 'pe')}") == [(70, "on-pe")]
    assert sorted(r[0] for r in sql_rows(spark, f"SELECT branch_name FROM {systable(name, 'branches')}")) == ["b", "p", "pe"]
