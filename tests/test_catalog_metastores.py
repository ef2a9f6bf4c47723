"""The catalog over each metastore: the same DDL and DML through `filesystem`, `jdbc` on SQLite and
`jdbc` on a PostgreSQL server this module starts (initdb and pg_ctl in a temporary directory, on a
free loopback port). Each metastore gets its own catalog on the shared session, set with
`spark.conf.set` before the catalog's first use (Spark creates catalogs lazily)."""

import itertools
import sqlite3
import subprocess

import pytest

import lamina
from _postgres import postgres_server
from _support import error_text, sql_rows
from conftest import _ensure_jar
from paimon_connector import require_paimon, run_sql

_catalog_counter = itertools.count()


@pytest.fixture(scope="module")
def postgres_uri():
    """A PostgreSQL server for this module (`_postgres.py`); one that cannot start fails the tests using it."""
    for server in postgres_server():
        yield server.uri


def _new_catalog(spark, tmp_path, options) -> str:
    name = f"meta{next(_catalog_counter)}"
    spark.conf.set(f"spark.sql.catalog.{name}", "lamina.spark.LaminaCatalog")
    spark.conf.set(f"spark.sql.catalog.{name}.warehouse", str(tmp_path / "wh"))
    for key, value in options.items():
        spark.conf.set(f"spark.sql.catalog.{name}.{key}", value)
    return name


@pytest.fixture(params=["filesystem", "jdbc-sqlite", "jdbc-postgresql"])
def catalog(request, spark, tmp_path):
    """(catalog name, sqlite file or None) for one metastore."""
    sqlite_file = None
    if request.param == "filesystem":
        options = {"metastore": "filesystem"}
    elif request.param == "jdbc-sqlite":
        sqlite_file = tmp_path / "catalog.db"
        # with the commit lock: every commit and ALTER below takes and gives back its row
        options = {"metastore": "jdbc", "uri": f"jdbc:sqlite:{sqlite_file}", "lock.enabled": "true"}
    else:
        uri = request.getfixturevalue("postgres_uri")
        # each test its own catalog-key: the tables of one server are shared by the module
        options = {"metastore": "jdbc", "uri": uri, "jdbc.user": "lamina",
                   "catalog-key": f"k{next(_catalog_counter)}"}
    return _new_catalog(spark, tmp_path, options), sqlite_file


def _sqlite_rows(path, query):
    with sqlite3.connect(path) as c:
        return sorted(c.execute(query).fetchall())


def test_namespaces_are_created_listed_and_dropped(spark, catalog):
    cat, sqlite_file = catalog
    spark.sql(f"CREATE NAMESPACE {cat}.sales")
    spark.sql(f"CREATE NAMESPACE {cat}.empty")
    assert sql_rows(spark, f"SHOW NAMESPACES IN {cat}") == [("empty",), ("sales",)]
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE NAMESPACE {cat}.sales")
    assert "already exists" in error_text(excinfo)
    if sqlite_file is not None:
        assert ("empty", "exists", "true") in _sqlite_rows(
            sqlite_file, "SELECT database_name, property_key, property_value FROM paimon_database_properties")
    spark.sql(f"DROP NAMESPACE {cat}.empty")
    assert sql_rows(spark, f"SHOW NAMESPACES IN {cat}") == [("sales",)]


def test_tables_live_through_create_insert_alter_rename_and_drop(spark, catalog):
    cat, sqlite_file = catalog
    spark.sql(f"CREATE NAMESPACE {cat}.d")
    spark.sql(f"CREATE TABLE {cat}.d.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (2, 'c')")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1, "a"), (2, "c")]
    assert sql_rows(spark, f"SHOW TABLES IN {cat}.d") == [("d", "t", False)]
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {cat}.d.t (id INT)")
    assert "already exists" in error_text(excinfo)

    spark.sql(f"ALTER TABLE {cat}.d.t ADD COLUMN n BIGINT")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (3, 'x', 30)")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1, "a", None), (2, "c", None), (3, "x", 30)]

    spark.sql(f"ALTER TABLE {cat}.d.t RENAME TO d.t2")
    assert sql_rows(spark, f"SHOW TABLES IN {cat}.d") == [("d", "t2", False)]
    assert sql_rows(spark, f"SELECT id FROM {cat}.d.t2") == [(1,), (2,), (3,)]
    if sqlite_file is not None:
        assert _sqlite_rows(sqlite_file, "SELECT catalog_key, database_name, table_name FROM paimon_tables") == [
            ("jdbc", "d", "t2")]

    if sqlite_file is not None:
        assert _sqlite_rows(sqlite_file, "SELECT * FROM paimon_distributed_locks") == []
    spark.sql(f"DROP TABLE {cat}.d.t2")
    assert sql_rows(spark, f"SHOW TABLES IN {cat}.d") == []
    if sqlite_file is not None:
        assert _sqlite_rows(sqlite_file, "SELECT * FROM paimon_tables") == []
    spark.sql(f"DROP NAMESPACE {cat}.d")


def test_drop_namespace_cascade_drops_its_tables(spark, catalog):
    cat, _ = catalog
    spark.sql(f"CREATE NAMESPACE {cat}.d")
    spark.sql(f"CREATE TABLE {cat}.d.t (id INT)")
    with pytest.raises(Exception):
        spark.sql(f"DROP NAMESPACE {cat}.d")
    spark.sql(f"DROP NAMESPACE {cat}.d CASCADE")
    spark.sql(f"CREATE NAMESPACE {cat}.d")
    assert sql_rows(spark, f"SHOW TABLES IN {cat}.d") == []


@pytest.mark.parametrize("options, message", [
    ({"metastore": "jdbc"}, "metastore 'jdbc' needs the option 'uri'"),
    ({"metastore": "jdbc", "uri": "jdbc:sqlite::memory:"},
     "option 'uri' = 'jdbc:sqlite::memory:' is an in-memory SQLite database"),
    ({"metastore": "jdbc", "uri": "jdbc:sqlite:/tmp/x.db", "jdbc-user": "u"}, "option 'jdbc-user' is not supported"),
    ({"metastore": "jdbc", "uri": "jdbc:sqlite:/tmp/x.db", "lock.enabled": "yes"},
     "option 'lock.enabled' must be true or false, not 'yes'"),
    ({"metastore": "filesystem", "uri": "jdbc:sqlite:/tmp/x.db"}, "option 'uri' is not supported"),
    ({"metastore": "hive"}, "metastore 'hive' is not supported (the Hive metastore is not supported yet)"),
])
def test_bad_catalog_options_are_refused_naming_the_option(spark, tmp_path, options, message):
    cat = _new_catalog(spark, tmp_path, options)
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SHOW NAMESPACES IN {cat}").collect()
    assert f"Catalog '{cat}': " in error_text(excinfo)
    assert message in error_text(excinfo)


def test_configure_passes_the_metastore_options():
    from pyspark.sql import SparkSession

    b = lamina.configure(SparkSession.Builder(), "/w", catalog="c", metastore="jdbc", uri="jdbc:sqlite:/w/c.db",
                         catalog_options={"jdbc.user": "u", "catalog-key": "k"})
    conf = b._options
    assert conf["spark.sql.catalog.c.metastore"] == "jdbc"
    assert conf["spark.sql.catalog.c.uri"] == "jdbc:sqlite:/w/c.db"
    assert conf["spark.sql.catalog.c.jdbc.user"] == "u"
    assert conf["spark.sql.catalog.c.catalog-key"] == "k"


@pytest.mark.parametrize("kwargs, message", [
    ({"metastore": "hive"}, "metastore must be one of 'filesystem', 'jdbc', got 'hive'"),
    ({"metastore": "jdbc"}, "metastore='jdbc' needs uri, for example uri='jdbc:sqlite:/data/catalog.db'"),
    ({"uri": "jdbc:sqlite:/x.db"}, "uri is only read by metastore='jdbc'; the filesystem metastore has none"),
    ({"metastore": "jdbc", "uri": ""}, "uri must be a non-empty string or None, got ''"),
    ({"catalog_options": [("a", "b")]}, "catalog_options must be a mapping of strings, got list"),
    ({"catalog_options": {"a": 1}}, "catalog_options must map option names to strings, got 'a': 1"),
    ({"catalog_options": {"uri": "x"}}, "catalog_options must not set 'uri': pass it as the argument of that name"),
])
def test_configure_checks_its_arguments(kwargs, message):
    from pyspark.sql import SparkSession

    with pytest.raises(ValueError) as excinfo:
        lamina.configure(SparkSession.Builder(), "/w", **kwargs)
    assert str(excinfo.value) == message


def test_paimon_jdbc_catalog_lists_and_reads_what_lamina_created(spark, tmp_path):
    """Apache Paimon's own Spark connector, configured with metastore=jdbc on the same SQLite file and
    warehouse, sees the database and table Lamina registered and reads its rows; and Lamina sees a table
    Paimon's catalog registered."""
    require_paimon()
    sqlite_file = tmp_path / "catalog.db"
    uri = f"jdbc:sqlite:{sqlite_file}"
    cat = _new_catalog(spark, tmp_path, {"metastore": "jdbc", "uri": uri})
    spark.sql(f"CREATE NAMESPACE {cat}.shared")
    spark.sql(f"CREATE TABLE {cat}.shared.t (id INT NOT NULL, v STRING) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {cat}.shared.t VALUES (1, 'a'), (2, 'b')")
    # Paimon's connector has no SQLite driver of its own: Lamina's jar, on the same process, brings it
    databases, tables, rows = run_sql(str(tmp_path / "wh"), [
        "SHOW NAMESPACES IN paimon",
        "SHOW TABLES IN paimon.shared",
        "SELECT id, v FROM paimon.shared.t ORDER BY id",
        "CREATE TABLE paimon.shared.p (k INT, w STRING)",
        "INSERT INTO paimon.shared.p VALUES (7, 'z')",
    ], lamina_jar=_ensure_jar(), paimon_options={"metastore": "jdbc", "uri": uri})[:3]
    assert ["shared"] in databases
    assert [r[1] for r in tables] == ["t"]
    assert rows == [[1, "a"], [2, "b"]]
    assert sql_rows(spark, f"SHOW TABLES IN {cat}.shared") == [("shared", "p", False), ("shared", "t", False)]
    assert sql_rows(spark, f"SELECT * FROM {cat}.shared.p") == [(7, "z")]


def test_python_cli_compacts_a_table_of_a_jdbc_catalog(spark, tmp_path):
    """`python -m lamina compact --catalog-conf ...` finds the table through the JDBC metastore (its
    commit taking the lock), and a table the metastore does not hold is not found, though its files
    are there."""
    import sys

    sqlite_file = tmp_path / "catalog.db"
    uri = f"jdbc:sqlite:{sqlite_file}"
    cat = _new_catalog(spark, tmp_path, {"metastore": "jdbc", "uri": uri, "lock.enabled": "true"})
    spark.sql(f"CREATE NAMESPACE {cat}.d")
    spark.sql(f"CREATE TABLE {cat}.d.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (2, 'c')")

    def compact(table, *catalog_conf):
        conf = [a for c in catalog_conf for a in ("--catalog-conf", c)]
        return subprocess.run([sys.executable, "-m", "lamina", "compact", "--warehouse", str(tmp_path / "wh"),
                               "--table", table, *conf, "--full", "--master", "local[1]",
                               "--conf", "spark.ui.enabled=false"], capture_output=True, text=True, timeout=600)

    result = compact("d.t", "metastore=jdbc", f"uri={uri}", "lock.enabled=true")
    assert result.returncode == 0, result.stderr[-4000:]
    assert "compacted d.t: snapshot 3" in result.stdout
    assert sql_rows(spark, f"SELECT commit_kind FROM {cat}.d.`t$snapshots` ORDER BY snapshot_id") == [
        ("APPEND",), ("APPEND",), ("COMPACT",)]
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1, "a"), (2, "c")]
    assert _sqlite_rows(sqlite_file, "SELECT * FROM paimon_distributed_locks") == []

    # the table's row gone, its directory left: the JDBC catalog does not know it
    with sqlite3.connect(sqlite_file) as c:
        c.execute("DELETE FROM paimon_tables WHERE table_name = 't'")
    result = compact("d.t", "metastore=jdbc", f"uri={uri}")
    assert result.returncode != 0
    assert "d.t" in result.stderr and "does not exist" in result.stderr, result.stderr[-3000:]
