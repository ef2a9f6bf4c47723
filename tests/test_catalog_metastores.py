"""The catalog over each metastore: the same DDL and DML through `filesystem`, `jdbc` on SQLite,
`jdbc` on a PostgreSQL server this module starts (initdb and pg_ctl in a temporary directory, on a
free loopback port), `hive` embedded in the session's JVM (Derby) and `hive` on a thrift metastore
server this module starts. Each metastore gets its own catalog on the shared session, set with
`spark.conf.set` before the catalog's first use (Spark creates catalogs lazily). A Hive metastore's
databases are global (and it always has `default`): each test drops the ones it made."""

import itertools
import shutil
import sqlite3
import subprocess

import pytest

import lamina
from _hive import MetastoreServer, embedded_options
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


@pytest.fixture(scope="module")
def hive_uri():
    """A thrift Hive metastore for this module; one that cannot start fails the tests that use it."""
    with MetastoreServer() as uri:
        yield uri


@pytest.fixture(scope="session")
def hive_embedded(tmp_path_factory):
    """The options of the embedded metastore (one Derby database for the whole session's JVM)."""
    return embedded_options(tmp_path_factory.mktemp("hive-embedded") / "metastore_db")


def _hive_client(spark, uri):
    """A Hive metastore client of the session's JVM, to look at what the catalog registered."""
    jvm = spark.sparkContext._jvm
    conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
    conf.set("hive.metastore.uris", uri)
    return jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)


def _namespaces(spark, cat):
    """The catalog's databases but a Hive metastore's `default`."""
    return [r for r in sql_rows(spark, f"SHOW NAMESPACES IN {cat}") if r != ("default",)]


def _new_catalog(spark, tmp_path, options) -> str:
    name = f"meta{next(_catalog_counter)}"
    spark.conf.set(f"spark.sql.catalog.{name}", "lamina.spark.LaminaCatalog")
    spark.conf.set(f"spark.sql.catalog.{name}.warehouse", str(tmp_path / "wh"))
    for key, value in options.items():
        spark.conf.set(f"spark.sql.catalog.{name}.{key}", value)
    return name


@pytest.fixture(params=["filesystem", "jdbc-sqlite", "jdbc-postgresql", "hive-embedded", "hive-thrift"])
def catalog(request, spark, tmp_path):
    """(catalog name, sqlite file or None) for one metastore."""
    sqlite_file = None
    if request.param == "filesystem":
        options = {"metastore": "filesystem"}
    elif request.param == "jdbc-sqlite":
        sqlite_file = tmp_path / "catalog.db"
        # with the commit lock (every commit and ALTER below takes and gives back its row) and the
        # table properties kept in paimon_table_properties
        options = {"metastore": "jdbc", "uri": f"jdbc:sqlite:{sqlite_file}", "lock.enabled": "true",
                   "sync-all-properties": "true"}
    elif request.param == "jdbc-postgresql":
        uri = request.getfixturevalue("postgres_uri")
        # each test its own catalog-key: the tables of one server are shared by the module
        options = {"metastore": "jdbc", "uri": uri, "jdbc.user": "lamina",
                   "catalog-key": f"k{next(_catalog_counter)}"}
    elif request.param == "hive-embedded":
        options = request.getfixturevalue("hive_embedded")
    else:
        # with the commit lock: the metastore's lock manager around every commit and ALTER
        options = {"metastore": "hive", "uri": request.getfixturevalue("hive_uri"), "lock.enabled": "true"}
    cat = _new_catalog(spark, tmp_path, options)
    yield cat, sqlite_file
    if request.param.startswith("hive"):
        for (ns,) in _namespaces(spark, cat):
            spark.sql(f"DROP NAMESPACE {cat}.{ns} CASCADE")


def _sqlite_rows(path, query):
    with sqlite3.connect(path) as c:
        return sorted(c.execute(query).fetchall())


def test_namespaces_are_created_listed_and_dropped(spark, catalog):
    cat, sqlite_file = catalog
    spark.sql(f"CREATE NAMESPACE {cat}.sales")
    spark.sql(f"CREATE NAMESPACE {cat}.empty")
    assert _namespaces(spark, cat) == [("empty",), ("sales",)]
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE NAMESPACE {cat}.sales")
    assert "already exists" in error_text(excinfo)
    if sqlite_file is not None:
        assert ("empty", "exists", "true") in _sqlite_rows(
            sqlite_file, "SELECT database_name, property_key, property_value FROM paimon_database_properties")
    spark.sql(f"DROP NAMESPACE {cat}.empty")
    assert _namespaces(spark, cat) == [("sales",)]


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
        assert _sqlite_rows(sqlite_file, "SELECT table_name, property_key, property_value FROM paimon_table_properties"
                            ) == [("t2", "bucket", "1"), ("t2", "bucket-key", "id"), ("t2", "primary-key", "id")]

    if sqlite_file is not None:
        assert _sqlite_rows(sqlite_file, "SELECT * FROM paimon_distributed_locks") == []
    spark.sql(f"DROP TABLE {cat}.d.t2")
    assert sql_rows(spark, f"SHOW TABLES IN {cat}.d") == []
    if sqlite_file is not None:
        assert _sqlite_rows(sqlite_file, "SELECT * FROM paimon_tables") == []
        assert _sqlite_rows(sqlite_file, "SELECT * FROM paimon_table_properties") == []
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


def test_concurrent_create_of_one_name_has_one_winner(spark, catalog):
    """Two sessions' threads create the same table at once: one succeeds, the other is told the table
    already exists, and the table is the winner's."""
    import threading

    cat, _ = catalog
    spark.sql(f"CREATE NAMESPACE {cat}.d")
    outcomes = []
    start = threading.Barrier(2)

    def create(column):
        start.wait()
        try:
            spark.sql(f"CREATE TABLE {cat}.d.t (id INT, {column} STRING)")
            outcomes.append(("created", column))
        except Exception as e:  # noqa: BLE001 - the loser's error is what is checked
            outcomes.append(("failed", str(e)))

    threads = [threading.Thread(target=create, args=(c,)) for c in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    created = [c for kind, c in outcomes if kind == "created"]
    failed = [m for kind, m in outcomes if kind == "failed"]
    assert len(created) == 1 and len(failed) == 1, outcomes
    assert "already exists" in failed[0]
    assert [r[0] for r in spark.sql(f"DESCRIBE TABLE {cat}.d.t").collect()] == ["id", created[0]]
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (1, 'x')")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1, "x")]


def test_database_properties_are_kept_by_metastores_that_hold_them(spark, catalog, request):
    cat, _ = catalog
    spark.sql(f"CREATE NAMESPACE {cat}.d COMMENT 'sales data' WITH DBPROPERTIES ('team' = 'north')")
    info = dict(sql_rows(spark, f"DESCRIBE NAMESPACE EXTENDED {cat}.d"))
    assert info["Location"].endswith("/wh/d.db") or info["Location"].endswith("/wh/d.db/")
    if request.node.callspec.params["catalog"] != "filesystem":  # the filesystem has nowhere to keep them
        assert info["Comment"] == "sales data"
        assert "team" in info["Properties"] and "north" in info["Properties"]


def test_hive_registration_is_paimons(spark, hive_uri, tmp_path):
    """What the Hive metastore holds for a Lamina table is what Paimon's Hive catalog registers: the
    PAIMON table type, Paimon's storage handler, formats and SerDe, the columns with Hive types, the
    location; ALTER TABLE updates the columns; DROP TABLE removes registration and files."""
    cat = _new_catalog(spark, tmp_path, {"metastore": "hive", "uri": hive_uri})
    spark.sql(f"CREATE NAMESPACE {cat}.reg")
    try:
        spark.sql(f"CREATE TABLE {cat}.reg.t (id BIGINT NOT NULL, name VARCHAR(20), price DECIMAL(10, 2), "
                  "tags ARRAY<STRING>, attrs MAP<STRING, INT>, at TIMESTAMP, "
                  "s STRUCT<a: INT, b: STRING> COMMENT 'two\nlines') "
                  "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'hive.owner-team' = 'x')")
        client = _hive_client(spark, hive_uri)
        try:
            t = client.getTable("reg", "t")
            params = dict(t.getParameters())
            assert params["table_type"] == "PAIMON"
            assert params["storage_handler"] == "org.apache.paimon.hive.PaimonStorageHandler"
            assert params["owner-team"] == "x"  # a hive.-prefixed option, prefix removed
            assert "bucket" not in params  # only hive.-prefixed options without sync-all-properties
            sd = t.getSd()
            assert sd.getInputFormat() == "org.apache.paimon.hive.mapred.PaimonInputFormat"
            assert sd.getOutputFormat() == "org.apache.paimon.hive.mapred.PaimonOutputFormat"
            assert sd.getSerdeInfo().getSerializationLib() == "org.apache.paimon.hive.PaimonSerDe"
            assert sd.getLocation().rstrip("/").endswith("/wh/reg.db/t")
            assert t.getTableType() == "MANAGED_TABLE"
            assert [(c.getName(), c.getType(), c.getComment()) for c in sd.getCols()] == [
                ("id", "bigint", None), ("name", "varchar(20)", None), ("price", "decimal(10,2)", None),
                ("tags", "array<string>", None), ("attrs", "map<string,int>", None), ("at", "timestamp", None),
                ("s", "struct<a:int,b:string>", "two lines")]
            spark.sql(f"ALTER TABLE {cat}.reg.t ADD COLUMN extra DOUBLE")
            assert [c.getName() for c in client.getTable("reg", "t").getSd().getCols()][-1] == "extra"
            # a table of the metastore that is not Paimon's is neither listed nor loaded
            hive_table = client.getTable("reg", "t").deepCopy()
            hive_table.setTableName("plain")
            hive_table.getSd().setInputFormat("org.apache.hadoop.mapred.TextInputFormat")
            hive_table.getSd().setLocation(str(tmp_path / "plain"))
            client.createTable(hive_table)
            assert sql_rows(spark, f"SHOW TABLES IN {cat}.reg") == [("reg", "t", False)]
            with pytest.raises(Exception) as excinfo:
                spark.sql(f"CREATE TABLE {cat}.reg.plain (id INT)")
            assert "Table reg.plain already exists in the Hive metastore" in error_text(excinfo)
            assert "and is not a Paimon table" in error_text(excinfo)
            spark.sql(f"DROP TABLE {cat}.reg.t")
            assert not client.tableExists("reg", "t")
            assert not (tmp_path / "wh" / "reg.db" / "t").exists()
        finally:
            client.close()
    finally:
        spark.sql(f"DROP NAMESPACE {cat}.reg CASCADE")


def test_hive_table_registered_without_schema_files_says_so_and_drops(spark, hive_uri, tmp_path):
    """A registration whose table directory is gone (a process killed between the two, or files
    deleted by hand) is reported when loaded, and DROP TABLE removes it."""
    cat = _new_catalog(spark, tmp_path, {"metastore": "hive", "uri": hive_uri})
    spark.sql(f"CREATE NAMESPACE {cat}.lost")
    try:
        spark.sql(f"CREATE TABLE {cat}.lost.t (id INT)")
        shutil.rmtree(tmp_path / "wh" / "lost.db" / "t")
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"SELECT * FROM {cat}.lost.t").collect()
        assert "is registered in the Hive metastore" in error_text(excinfo)
        assert "DROP TABLE lost.t removes the registration" in error_text(excinfo)
        spark.sql(f"DROP TABLE {cat}.lost.t")
        assert sql_rows(spark, f"SHOW TABLES IN {cat}.lost") == []
    finally:
        spark.sql(f"DROP NAMESPACE {cat}.lost CASCADE")


def test_hive_commit_lock_held_elsewhere_times_out_naming_the_table(spark, hive_uri, tmp_path):
    """While another client holds the table's lock, a commit waits lock-acquire-timeout, then fails
    naming the table and the holder, and commits nothing; once released, commits go through."""
    cat = _new_catalog(spark, tmp_path, {"metastore": "hive", "uri": hive_uri, "lock.enabled": "true",
                                         "lock-acquire-timeout": "2 s", "lock-check-max-sleep": "200 ms"})
    spark.sql(f"CREATE NAMESPACE {cat}.locked")
    try:
        spark.sql(f"CREATE TABLE {cat}.locked.t (id INT)")
        spark.sql(f"INSERT INTO {cat}.locked.t VALUES (1)")
        jvm = spark.sparkContext._jvm
        api = jvm.org.apache.hadoop.hive.metastore.api
        component = api.LockComponent(api.LockType.EXCLUSIVE, api.LockLevel.TABLE, "locked")
        component.setTablename("t")
        component.setOperationType(api.DataOperationType.NO_TXN)
        components = jvm.java.util.ArrayList()
        components.add(component)
        client = _hive_client(spark, hive_uri)
        try:
            held = client.lock(api.LockRequest(components, "other-writer", "other-host"))
            assert str(held.getState()) == "ACQUIRED"
            with pytest.raises(Exception) as excinfo:
                spark.sql(f"INSERT INTO {cat}.locked.t VALUES (2)")
            message = error_text(excinfo)
            assert "Could not acquire the commit lock of table locked.t" in message
            assert "other-writer@other-host" in message and "nothing was committed" in message
            client.unlock(held.getLockid())
        finally:
            client.close()
        assert sql_rows(spark, f"SELECT * FROM {cat}.locked.t") == [(1,)]
        spark.sql(f"INSERT INTO {cat}.locked.t VALUES (3)")
        assert sql_rows(spark, f"SELECT * FROM {cat}.locked.t") == [(1,), (3,)]
    finally:
        spark.sql(f"DROP NAMESPACE {cat}.locked CASCADE")


def test_hive_metastore_unreachable_mid_session_fails_clearly_and_recovers(spark, tmp_path):
    """The metastore stops between statements: CREATE, INSERT and DROP fail naming the metastore, and
    leave nothing half-made (no registration without a directory or the reverse); once it is back the
    same catalog works again, with what was committed before."""
    server = MetastoreServer()  # its own server: this test stops and starts it
    uri = server.__enter__()
    try:
        cat = _new_catalog(spark, tmp_path, {"metastore": "hive", "uri": uri,
                                             "hive.metastore.connect.retries": "1",
                                             "hive.metastore.client.connect.retry.delay": "1s"})
        spark.sql(f"CREATE NAMESPACE {cat}.d")
        spark.sql(f"CREATE TABLE {cat}.d.t (id INT)")
        spark.sql(f"INSERT INTO {cat}.d.t VALUES (1)")
        server.stop()
        for statement in [f"CREATE TABLE {cat}.d.t2 (id INT)", f"INSERT INTO {cat}.d.t VALUES (2)",
                          f"DROP TABLE {cat}.d.t"]:
            with pytest.raises(Exception) as excinfo:
                spark.sql(statement).collect()
            message = error_text(excinfo)
            assert "the Hive metastore failed" in message and uri in message, (statement, message)
        server.start()
        assert sql_rows(spark, f"SHOW TABLES IN {cat}.d") == [("d", "t", False)]
        assert not (tmp_path / "wh" / "d.db" / "t2").exists()
        assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1,)]
        spark.sql(f"INSERT INTO {cat}.d.t VALUES (3)")
        assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1,), (3,)]
    finally:
        server.__exit__(None, None, None)


def test_paimon_hive_catalog_reads_what_lamina_registered(spark, hive_uri, tmp_path):
    """Apache Paimon's connector, with metastore=hive on the same thrift metastore and warehouse, lists
    and reads Lamina's table, and creates one Lamina then reads."""
    require_paimon()
    cat = _new_catalog(spark, tmp_path, {"metastore": "hive", "uri": hive_uri})
    spark.sql(f"CREATE NAMESPACE {cat}.shared")
    try:
        spark.sql(f"CREATE TABLE {cat}.shared.t (id INT NOT NULL, v STRING) "
                  "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
        spark.sql(f"INSERT INTO {cat}.shared.t VALUES (1, 'a'), (2, 'b')")
        tables, rows = run_sql(str(tmp_path / "wh"), [
            "SHOW TABLES IN paimon.shared",
            "SELECT id, v FROM paimon.shared.t ORDER BY id",
            "CREATE TABLE paimon.shared.p (k INT, w STRING)",
            "INSERT INTO paimon.shared.p VALUES (7, 'z')",
            "INSERT INTO paimon.shared.t VALUES (3, 'c')",
        ], paimon_options={"metastore": "hive", "uri": hive_uri})[:2]
        assert [r[1] for r in tables] == ["t"]
        assert rows == [[1, "a"], [2, "b"]]
        assert sql_rows(spark, f"SHOW TABLES IN {cat}.shared") == [("shared", "p", False), ("shared", "t", False)]
        assert sql_rows(spark, f"SELECT * FROM {cat}.shared.p") == [(7, "z")]
        assert sql_rows(spark, f"SELECT * FROM {cat}.shared.t") == [(1, "a"), (2, "b"), (3, "c")]
    finally:
        spark.sql(f"DROP NAMESPACE {cat}.shared CASCADE")


@pytest.mark.parametrize("options, message", [
    ({"metastore": "jdbc"}, "metastore 'jdbc' needs the option 'uri'"),
    ({"metastore": "jdbc", "uri": "jdbc:sqlite::memory:"},
     "option 'uri' = 'jdbc:sqlite::memory:' is an in-memory SQLite database"),
    ({"metastore": "jdbc", "uri": "jdbc:sqlite:/tmp/x.db", "jdbc-user": "u"}, "option 'jdbc-user' is not supported"),
    ({"metastore": "jdbc", "uri": "jdbc:sqlite:/tmp/x.db", "lock.enabled": "yes"},
     "option 'lock.enabled' must be true or false, not 'yes'"),
    ({"metastore": "filesystem", "uri": "jdbc:sqlite:/tmp/x.db"}, "option 'uri' is not supported"),
    ({"metastore": "metastore-x"}, "metastore 'metastore-x' is not supported (unknown metastore)"),
    ({"metastore": "hive", "uri": "http://127.0.0.1:9083"},
     "option 'uri' of metastore 'hive' must be thrift://host:port"),
    ({"metastore": "hive", "hive-conf-dir": "/nonexistent-conf"}, "option 'hive-conf-dir' = '/nonexistent-conf' has no hive-site.xml"),
    ({"metastore": "hive", "jdbc.user": "u"}, "option 'jdbc.user' is not supported"),
    ({"metastore": "hive", "uri": "thrift://127.0.0.1:9", "hive.metastore.connect.retries": "1"},
     "cannot reach the Hive metastore (thrift://127.0.0.1:9, option 'uri')"),
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
    ({"metastore": "glue"}, "metastore must be one of 'filesystem', 'jdbc', 'hive', got 'glue'"),
    ({"metastore": "jdbc"}, "metastore='jdbc' needs uri, for example uri='jdbc:sqlite:/data/catalog.db'"),
    ({"uri": "jdbc:sqlite:/x.db"}, "uri is only read by metastore='jdbc' or 'hive'; the filesystem metastore has none"),
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
