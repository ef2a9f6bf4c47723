"""Names that become paths never reach outside their table.

Every procedure, option and suffix that takes a branch, tag or consumer name is tried with traversal,
absolute, encoded, control-character and over-long inputs: each is refused with an error naming what
is wrong, and nothing outside the table changes (the sibling table in the same database is compared
file by file before and after). Orphan removal never follows a symbolic link out of the table."""

import os
from pathlib import Path

import pytest

import lamina
from _support import error_text, sql_rows, table_path
from test_warehouse_paths import _tree

CAT = "lamina"

# name -> a fragment the error must hold
_BAD_NAMES = {
    "../../../../sib": "must not contain '/'",
    "../sib": "must not contain '/'",
    "/tmp/lamina-escape": "must not contain '/'",
    "..": "must not start with '.'",
    "a\\b": "must not contain '\\'",
    "c:sib": "must not contain ':'",
    "a\nb": "control characters",
    "a\x00b": "control characters",
    "x" * 300: "more than the 255",
}


@pytest.fixture
def tables(spark, warehouse, db):
    """db.t with a branch `dev` and a tag `t1`, and its sibling db.sib, each with rows."""
    for name in ("t", "sib"):
        spark.sql(f"CREATE TABLE {CAT}.{db}.{name} (k INT NOT NULL, v STRING) "
                  "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
        spark.sql(f"INSERT INTO {CAT}.{db}.{name} VALUES (1, '{name}')")
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 't1')")
    spark.sql(f"CALL {CAT}.sys.create_branch(table => '{db}.t', branch => 'dev')")
    return db


def _outside_table(warehouse, db):
    """Every path of the warehouse outside db.t (the database's other tables, other databases)."""
    root = Path(warehouse)
    inside = str(table_path(warehouse, db, "t").relative_to(root))
    return {p: v for p, v in _tree(root).items() if p != inside and not p.startswith(inside + os.sep)}


def _statements(db, name):
    q = f"{CAT}.{db}"
    lit = name.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\x00", "\\u0000")
    return [
        f"CALL {CAT}.sys.delete_branch(table => '{db}.t', branch => '{lit}')",
        f"CALL {CAT}.sys.fast_forward(table => '{db}.t', branch => '{lit}')",
        f"CALL {CAT}.sys.create_branch(table => '{db}.t', branch => '{lit}')",
        f"CALL {CAT}.sys.create_branch(table => '{db}.t', branch => 'ok', tag => '{lit}')",
        f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => '{lit}')",
        f"CALL {CAT}.sys.delete_tag(table => '{db}.t', tag => '{lit}')",
        f"CALL {CAT}.sys.rename_tag(table => '{db}.t', tag => 't1', target_tag => '{lit}')",
        f"CALL {CAT}.sys.rollback(table => '{db}.t', tag => '{lit}')",
        f"SELECT * FROM {q}.t VERSION AS OF '{lit}'",
        f"SELECT * FROM {q}.`t$branch_{name}`",
        f"ALTER TABLE {q}.`t$branch_{name}` ADD COLUMN c INT",
        f"INSERT INTO {q}.`t$branch_{name}` VALUES (9, 'x')",
        f"SELECT * FROM {q}.`t$branch_{name}$snapshots`",
    ]


@pytest.mark.parametrize("name", list(_BAD_NAMES), ids=lambda n: repr(n)[:24])
def test_bad_names_are_refused_and_change_nothing_outside_the_table(spark, warehouse, tables, name):
    db = tables
    before = _outside_table(warehouse, db)
    for statement in _statements(db, name):
        if "`" in statement and ("\n" in name or "\x00" in name or "`" in name):
            continue  # not an identifier Spark's parser takes; the CALL forms carry these names
        with pytest.raises(Exception) as excinfo:
            spark.sql(statement).collect()
        text = error_text(excinfo)
        assert "Invalid" in text or "does not exist" in text or "not found" in text.lower(), (statement, text)
    assert _outside_table(warehouse, db) == before
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.sib") == [(1, "sib")]
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == [(1, "t")]


@pytest.mark.parametrize("name", ["../../../../sib", "c:sib", "a\nb"], ids=repr)
def test_the_branch_option_and_session_setting_refuse_bad_names(spark, warehouse, tables, name):
    db = tables
    before = _outside_table(warehouse, db)
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.read.option("branch", name).table(f"{CAT}.{db}.t").collect()
    assert "Invalid branch name" in error_text(excinfo)
    with pytest.raises(lamina.BadInputException):
        spark.createDataFrame([(5, "w")], "k INT, v STRING").writeTo(f"{CAT}.{db}.t").option("branch", name).append()
    spark.conf.set("spark.lamina.branch", name)
    try:
        with pytest.raises(lamina.BadInputException):
            spark.sql(f"SELECT * FROM {CAT}.{db}.t").collect()
    finally:
        spark.conf.unset("spark.lamina.branch")
    assert _outside_table(warehouse, db) == before


def test_delete_branch_names_the_escape_exactly(spark, tables):
    db = tables
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CALL {CAT}.sys.delete_branch(table => '{db}.t', branch => '../../../../sib')")
    assert "Invalid branch name '../../../../sib': it must not contain '/'" in error_text(excinfo)


@pytest.mark.parametrize("consumer, why", [
    ("a:b", "Invalid consumer name 'a:b': it must not contain ':'"),
    ("a\nb", "Invalid consumer name 'a\\nb': it must not contain control characters"),
    ("../x", "Invalid consumer name '../x': it must not contain '/'"),
])
def test_consumer_ids_that_are_no_file_name_are_refused(spark, warehouse, tables, consumer, why):
    db = tables
    with pytest.raises(lamina.BadInputException) as excinfo:
        (spark.readStream.option("consumer-id", consumer).table(f"{CAT}.{db}.t")
         .writeStream.format("memory").queryName("q_consumer").start().awaitTermination(5))
    assert why in error_text(excinfo)
    consumers = table_path(warehouse, db, "t") / "consumer"
    assert not consumers.exists() or os.listdir(consumers) == []


def test_encoded_names_stay_literal(spark, warehouse, tables):
    """%2e%2e%2f is a plain name: a branch of that name lives under the table's branch directory."""
    db = tables
    spark.sql(f"CALL {CAT}.sys.create_branch(table => '{db}.t', branch => '%2e%2e%2fsib')")
    made = table_path(warehouse, db, "t") / "branch" / "branch-%2e%2e%2fsib"
    assert made.is_dir()
    spark.sql(f"CALL {CAT}.sys.delete_branch(table => '{db}.t', branch => '%2e%2e%2fsib')")
    assert not made.exists()
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.sib") == [(1, "sib")]


def test_remove_orphan_files_does_not_follow_symbolic_links(spark, warehouse, tables, tmp_path):
    db = tables
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "data-precious.parquet").write_bytes(b"not the table's")
    (elsewhere / "notes.txt").write_text("keep me")
    t = table_path(warehouse, db, "t")
    os.symlink(elsewhere, t / "bucket-9")
    os.symlink(elsewhere / "notes.txt", t / "bucket-0" / "data-link.parquet")
    old = os.path.getmtime(elsewhere / "notes.txt") - 10
    os.utime(elsewhere / "notes.txt", (old, old))
    os.utime(elsewhere / "data-precious.parquet", (old, old))
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')").collect()
    assert (elsewhere / "data-precious.parquet").read_bytes() == b"not the table's"
    assert (elsewhere / "notes.txt").read_text() == "keep me"
    assert os.path.islink(t / "bucket-9") and os.path.islink(t / "bucket-0" / "data-link.parquet")
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == [(1, "t")]
    # dropping the table removes its directory with the links, never what they point to
    spark.sql(f"DROP TABLE {CAT}.{db}.t")
    assert (elsewhere / "data-precious.parquet").exists() and (elsewhere / "notes.txt").exists()


def test_delete_branch_removes_a_linked_branch_directory_not_what_it_points_to(spark, warehouse, tables):
    db = tables
    sib = table_path(warehouse, db, "sib")
    branches = table_path(warehouse, db, "t") / "branch"
    os.symlink(sib, branches / "branch-linked")
    before = _tree(sib)
    try:
        spark.sql(f"CALL {CAT}.sys.delete_branch(table => '{db}.t', branch => 'linked')").collect()
    except Exception:  # refusing is as good as removing the link alone
        pass
    assert _tree(sib) == before
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.sib") == [(1, "sib")]
