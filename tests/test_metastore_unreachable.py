"""The JDBC metastore's PostgreSQL server going away (`pg_ctl stop -m immediate`, as a crash does)
between and during statements: each statement fails naming what it did, the catalog and the
metastore's `uri`; nothing is half-created (no `paimon_tables` row without its table directory, nor
the reverse) and nothing is committed; once the server is back the same catalog works again, its
first statement included."""

import itertools
import threading
import time

import pytest

import lamina
from _postgres import postgres_server
from _support import error_text, snapshot_ids, sql_rows

_names = itertools.count()


@pytest.fixture(scope="module")
def server():
    yield from postgres_server()


@pytest.fixture
def catalog(spark, server, tmp_path):
    """A fresh JDBC catalog with the commit lock on `server`, its catalog-key its name: (name,
    warehouse). The server runs again after the test, whatever the test did to it."""
    name = f"unreachable{next(_names)}"
    options = {"": "lamina.spark.LaminaCatalog", ".warehouse": str(tmp_path / "wh"), ".metastore": "jdbc",
               ".uri": server.uri, ".jdbc.user": "lamina", ".catalog-key": name, ".lock.enabled": "true",
               ".lock-check-max-sleep": "100 ms"}
    for key, value in options.items():
        spark.conf.set(f"spark.sql.catalog.{name}{key}", value)
    try:
        yield name, str(tmp_path / "wh")
    finally:
        if not server.running:
            server.start()


def _refused(server) -> str:
    return (f"Connection to 127.0.0.1:{server.port} refused. Check that the hostname and port are correct "
            "and that the postmaster is accepting TCP/IP connections.")


def _failure(spark, statement):
    with pytest.raises(lamina.StorageException) as excinfo:
        spark.sql(statement).collect()
    return excinfo.value.message


def _registered(server, cat):
    return sorted(server.psql(f"SELECT database_name, table_name FROM paimon_tables WHERE catalog_key = '{cat}'"))


def _directories(warehouse):
    from pathlib import Path

    return sorted((p.parent.name.removesuffix(".db"), p.name) for p in Path(warehouse).glob("*.db/*"))


def _table(spark, cat, name="t"):
    spark.sql(f"CREATE TABLE {cat}.d.{name} (id INT NOT NULL, v STRING) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")


def _one_row_table(spark, cat):
    """Table d.t holding (1, 'a'), in snapshot 1."""
    spark.sql(f"CREATE NAMESPACE {cat}.d")
    _table(spark, cat)
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (1, 'a')")


def test_statements_while_the_server_is_down_fail_naming_the_catalog_and_change_nothing(spark, server, catalog):
    cat, wh = catalog
    _one_row_table(spark, cat)
    server.stop("immediate")

    def failure(what):
        return f"Could not {what} in catalog '{cat}' through its JDBC metastore at {server.uri}: {_refused(server)}"

    assert _failure(spark, f"CREATE TABLE {cat}.d.u (id INT)") == failure("look up table d.u")
    assert _failure(spark, f"INSERT INTO {cat}.d.t VALUES (2, 'b')") == failure("load table d.t")
    assert _failure(spark, f"DROP TABLE {cat}.d.t") == failure("look up table d.t")
    assert _failure(spark, f"ALTER TABLE {cat}.d.t RENAME TO d.r") == failure("load table d.t")
    assert _failure(spark, f"SHOW TABLES IN {cat}.d") == failure("look up database d")

    server.start()
    assert _registered(server, cat) == [("d", "t")] and _directories(wh) == [("d", "t")]
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1, "a")]
    assert snapshot_ids(wh, "d", "t") == [1]
    # the same catalog works again
    _table(spark, cat, "u")
    spark.sql(f"INSERT INTO {cat}.d.u VALUES (2, 'b')")
    spark.sql(f"DROP TABLE {cat}.d.t")
    assert _registered(server, cat) == [("d", "u")] and _directories(wh) == [("d", "u")]
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.u") == [(2, "b")]


def test_the_first_statement_after_a_restart_succeeds(spark, server, catalog):
    """The pooled connections died with the server: they are replaced, not handed out broken."""
    cat, wh = catalog
    _one_row_table(spark, cat)
    server.stop("immediate")
    server.start()
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (2, 'b')")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1, "a"), (2, "b")]
    assert server.psql("SELECT lock_id FROM paimon_distributed_locks") == []


def test_an_insert_waiting_for_the_commit_lock_when_the_server_dies_commits_nothing(spark, server, catalog):
    cat, wh = catalog
    _one_row_table(spark, cat)
    # another writer holds the table's lock: the INSERT writes its files, then waits to commit
    server.psql(f"INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) VALUES ('{cat}.d.t', 3600)")
    errors = []

    def insert():
        try:
            spark.sql(f"INSERT INTO {cat}.d.t VALUES (2, 'b')").collect()
        except Exception as e:  # noqa: BLE001 - the test looks at it below
            errors.append(e)

    writer = threading.Thread(target=insert)
    writer.start()
    waiting = ("SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
               "AND query LIKE 'INSERT INTO paimon_distributed_locks%'")
    deadline = time.monotonic() + 120
    while server.psql(waiting) == [("0",)]:
        assert time.monotonic() < deadline, "the INSERT never asked for the lock"
        time.sleep(0.05)
    server.stop("immediate")
    writer.join(timeout=300)
    assert not writer.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], lamina.StorageException), errors
    # the writer asks again while the server goes down or after it is gone: each answer the driver
    # can give then (refused, shutting down, cut mid-handshake, terminated) is named in the error
    reasons = [_refused(server), "FATAL: the database system is shutting down",
               "FATAL: terminating connection due to administrator command", "The connection attempt failed."]
    assert errors[0].message in [
        f"Could not take the commit lock of table d.t in catalog '{cat}' through its JDBC metastore at {server.uri}: "
        f"{reason}; nothing was committed" for reason in reasons], errors[0].message

    server.start()
    server.psql(f"DELETE FROM paimon_distributed_locks WHERE lock_id = '{cat}.d.t'")
    assert snapshot_ids(wh, "d", "t") == [1]
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1, "a")]
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (3, 'c')")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == [(1, "a"), (3, "c")]
    assert server.psql("SELECT lock_id FROM paimon_distributed_locks") == []


def test_a_catalog_first_used_while_the_server_is_down_opens_once_it_is_back(spark, server, catalog):
    cat, _ = catalog
    server.stop("immediate")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SHOW NAMESPACES IN {cat}").collect()
    assert (f"Catalog '{cat}': cannot open the JDBC catalog at '{server.uri}' (option 'uri'): "
            f"{_refused(server)}") in error_text(excinfo)
    server.start()
    spark.sql(f"CREATE NAMESPACE {cat}.d")
    assert sql_rows(spark, f"SHOW NAMESPACES IN {cat}") == [("d",)]
