"""Names never reach outside the warehouse, and the file system's refusals are reported.

A database or table name becomes one directory name under the warehouse. Every statement that
turns a name into a path (load, list, create, alter, drop, rename, CALL, Python) refuses a name that
is not one plain path segment, naming it, and touches nothing outside the warehouse."""

import os
import subprocess
import uuid
from pathlib import Path

import pytest

import lamina
from _support import error_text, sql_rows

CAT = "lamina"


def _tree(root: Path):
    """Every path under root with its size and mtime: any read-free change shows. A table's `lease/`
    directory is left out: its files are the leases of running readers (the tests' own reads of the
    victim table), which come and go by design."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "lease"]
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture(scope="module")
def victim(spark, warehouse, tmp_path_factory):
    """A Lamina table outside the warehouse, at <outside>/victim.db/t, made through a second catalog."""
    outside = tmp_path_factory.mktemp("outside")
    spark.conf.set("spark.sql.catalog.outside", "lamina.spark.LaminaCatalog")
    spark.conf.set("spark.sql.catalog.outside.warehouse", str(outside))
    spark.sql("CREATE NAMESPACE outside.victim")
    spark.sql("CREATE TABLE outside.victim.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql("INSERT INTO outside.victim.t VALUES (1, 'a'), (2, 'b')")
    return outside


def _relative_to_warehouse(warehouse: str, target: Path) -> str:
    return os.path.relpath(target, warehouse)


def _bad_database_names(warehouse, outside):
    rel = _relative_to_warehouse(warehouse, outside / "victim")  # ../outside0/victim: + ".db" is the victim
    return {
        "dot-dot path": rel,
        "absolute path": str(outside / "victim"),
        "dot-dot": "..",
        "separator": "a/b",
        "backslash": "a\\b",
        "colon": "c:victim",
        "newline": "a\nb",
        "NUL": "a\x00b",
        "too long": "d" * 300,
    }


def _statements(db):
    q = f"{CAT}.`{db}`"
    return [
        f"SELECT * FROM {q}.t",
        f"SHOW TABLES IN {q}",
        f"INSERT INTO {q}.t VALUES (3, 'c')",
        f"ALTER TABLE {q}.t ADD COLUMN w STRING",
        f"ALTER TABLE {q}.t SET TBLPROPERTIES ('x.y' = 'z')",
        f"DROP TABLE {q}.t",
        f"DROP TABLE IF EXISTS {q}.t",
        f"DESCRIBE TABLE {q}.t",
        f"DROP NAMESPACE {q} CASCADE",
        f"DROP NAMESPACE IF EXISTS {q} CASCADE",
        f"CREATE NAMESPACE {q}",
        f"CREATE TABLE {q}.t2 (id INT)",
        f"SELECT * FROM {q}.`t$snapshots`",
        f"CALL {CAT}.sys.compact(table => '{db}.t')",
    ]


def test_bad_database_names_touch_nothing_outside(spark, warehouse, victim):
    before = _tree(victim)
    parent_before = sorted(os.listdir(Path(warehouse).parent))
    for label, name in _bad_database_names(warehouse, victim).items():
        for statement in _statements(name):
            with pytest.raises(Exception) as excinfo:
                spark.sql(statement).collect()
            text = error_text(excinfo)
            assert "database name" in text or "must be given as database.table" in text, (label, statement, text)
    assert _tree(victim) == before
    assert sorted(os.listdir(Path(warehouse).parent)) == parent_before
    assert sql_rows(spark, "SELECT * FROM outside.victim.t") == [(1, "a"), (2, "b")]


def test_bad_table_names_are_refused_naming_them(spark, db, warehouse, victim):
    spark.sql(f"CREATE TABLE {CAT}.{db}.good (id INT)")
    before = _tree(victim)
    bad = {"dot-dot": "..", "colon": "a:b", "newline": "a\nb", "NUL": "a\x00b", "too long": "t" * 300,
           "leading dot": ".hidden"}
    for label, name in bad.items():
        q = f"{CAT}.{db}.`{name}`"
        for statement in (f"CREATE TABLE {q} (id INT)", f"SELECT * FROM {q}", f"INSERT INTO {q} VALUES (1)",
                          f"DROP TABLE {q}", f"ALTER TABLE {CAT}.{db}.good RENAME TO {q}"):
            with pytest.raises(Exception) as excinfo:
                spark.sql(statement).collect()
            assert "table name" in error_text(excinfo), (label, statement, error_text(excinfo))
    assert _tree(victim) == before
    assert sql_rows(spark, f"SHOW TABLES IN {CAT}.{db}") == [(db, "good", False)]


def test_colon_in_table_name_is_a_lamina_error(spark, db):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.`a:b` (id INT)")
    assert error_text(excinfo).startswith("Invalid table name 'a:b': it must not contain ':'")


def test_empty_table_name_is_a_lamina_error(spark, db):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.`` (id INT)")
    assert "The table name must not be empty" in error_text(excinfo)


def test_long_name_names_its_length(spark):
    name = "n" * 253
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE NAMESPACE {CAT}.{name}")
    assert "256 bytes in UTF-8, more than the 255" in error_text(excinfo)
    spark.sql(f"CREATE NAMESPACE {CAT}.{'n' * 252}")  # 252 + ".db" = 255 bytes: allowed
    assert "n" * 252 in [r[0] for r in sql_rows(spark, f"SHOW NAMESPACES IN {CAT}")]
    spark.sql(f"DROP NAMESPACE {CAT}.{'n' * 252}")


def test_python_compact_refuses_escaping_names(spark, warehouse, victim):
    before = _tree(victim)
    rel = _relative_to_warehouse(warehouse, victim / "victim")
    for table in (f"{rel}.t", "/etc.t"):
        with pytest.raises(Exception) as excinfo:
            lamina.compact(spark, table)
        # refused by the name's own rule in Python (dots make empty parts) or by the catalog's
        assert any(n in error_text(excinfo) for n in ("database name", "database.table", "empty name part")), \
            error_text(excinfo)
    assert _tree(victim) == before


# ---- the file system's refusals ----


@pytest.fixture
def read_only_warehouse(spark, tmp_path):
    """A catalog `ro` over a warehouse with one namespace and table, bind-mounted read-only."""
    source = tmp_path / "rw"
    mount = tmp_path / "ro"
    source.mkdir()
    mount.mkdir()
    spark.conf.set("spark.sql.catalog.rw", "lamina.spark.LaminaCatalog")
    spark.conf.set("spark.sql.catalog.rw.warehouse", str(source))
    spark.sql("CREATE NAMESPACE rw.db")
    spark.sql("CREATE TABLE rw.db.t (id INT)")
    spark.sql("INSERT INTO rw.db.t VALUES (1)")
    spark.sql("INSERT INTO rw.db.t VALUES (3)")  # two files: a full compaction has one to write
    done = subprocess.run(["mount", "--bind", "-o", "ro", str(source), str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"a read-only bind mount needs root: {done.stderr.decode().strip()}")
    try:
        check = mount / "probe"
        try:
            check.touch()
            pytest.skip("the bind mount is writable here")
        except OSError:
            pass
        catalog = f"ro_{uuid.uuid4().hex[:8]}"
        spark.conf.set(f"spark.sql.catalog.{catalog}", "lamina.spark.LaminaCatalog")
        spark.conf.set(f"spark.sql.catalog.{catalog}.warehouse", str(mount))
        yield catalog, source
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_ddl_on_a_read_only_warehouse_fails_naming_path_and_cause(spark, read_only_warehouse):
    catalog, source = read_only_warehouse
    before = _tree(source)
    cases = [
        (f"CREATE NAMESPACE {catalog}.other", "Could not create directory"),
        (f"DROP TABLE {catalog}.db.t", "Could not delete"),
        (f"DROP NAMESPACE {catalog}.db CASCADE", "Could not delete"),
        (f"CREATE TABLE {catalog}.db.t2 (id INT)", "t2"),
        (f"INSERT INTO {catalog}.db.t VALUES (2)", "Could not write"),
        (f"CALL {catalog}.sys.compact(table => 'db.t', compact_strategy => 'full')", "Could not write"),
    ]
    for statement, expected in cases:
        with pytest.raises(Exception) as excinfo:
            spark.sql(statement).collect()
        text = error_text(excinfo)
        assert expected in text, (statement, text)
        if statement.startswith(("CREATE NAMESPACE", "DROP", "INSERT", "CALL")):
            assert isinstance(excinfo.value, lamina.StorageException), (statement, type(excinfo.value))
            assert "read-only file system" in text, (statement, text)
    assert _tree(source) == before
    assert sql_rows(spark, f"SELECT * FROM {catalog}.db.t") == [(1,), (3,)]


def test_show_namespaces_on_a_warehouse_that_is_a_file(spark, tmp_path):
    path = tmp_path / "not-a-dir"
    path.write_text("x")
    spark.conf.set("spark.sql.catalog.filewh", "lamina.spark.LaminaCatalog")
    spark.conf.set("spark.sql.catalog.filewh.warehouse", str(path))
    with pytest.raises(lamina.StorageException) as excinfo:
        spark.sql("SHOW NAMESPACES IN filewh").collect()
    assert error_text(excinfo).startswith(f"Could not list {path}: it is a file, not a directory")
    with pytest.raises(lamina.StorageException) as excinfo:
        spark.sql("CREATE NAMESPACE filewh.db")
    assert f"{path} is a file, not a directory" in error_text(excinfo)
