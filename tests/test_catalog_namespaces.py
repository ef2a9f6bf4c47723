"""Namespaces are `<db>.db` directories under the warehouse."""

import os

import pytest

from _support import error_text, sql_rows

CAT = "lamina"


def namespaces(spark):
    return [r[0] for r in sql_rows(spark, f"SHOW NAMESPACES IN {CAT}")]


def test_create_show_and_drop_namespace(spark, warehouse):
    spark.sql(f"CREATE NAMESPACE {CAT}.ns_life")
    assert os.path.isdir(os.path.join(warehouse, "ns_life.db"))
    assert "ns_life" in namespaces(spark)
    spark.sql(f"DROP NAMESPACE {CAT}.ns_life")
    assert not os.path.exists(os.path.join(warehouse, "ns_life.db"))
    assert "ns_life" not in namespaces(spark)


def test_show_namespaces_lists_every_db_directory(spark, warehouse):
    for name in ("ns_list_a", "ns_list_b"):
        spark.sql(f"CREATE NAMESPACE {CAT}.{name}")
    try:
        listed = namespaces(spark)
        assert "ns_list_a" in listed and "ns_list_b" in listed
        on_disk = sorted(d[: -len(".db")] for d in os.listdir(warehouse) if d.endswith(".db"))
        assert sorted(listed) == on_disk
    finally:
        for name in ("ns_list_a", "ns_list_b"):
            spark.sql(f"DROP NAMESPACE {CAT}.{name}")


def test_create_existing_namespace_is_an_error_naming_it(spark, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE NAMESPACE {CAT}.{db}")
    assert db in error_text(excinfo)
    assert "already exists" in error_text(excinfo).lower()
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CAT}.{db}")  # no error
    assert namespaces(spark).count(db) == 1


def test_drop_missing_namespace_is_an_error_naming_it(spark):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"DROP NAMESPACE {CAT}.ns_never_created")
    assert "ns_never_created" in error_text(excinfo)
    spark.sql(f"DROP NAMESPACE IF EXISTS {CAT}.ns_never_created")  # no error


def test_drop_non_empty_namespace_needs_cascade(spark, warehouse):
    spark.sql(f"CREATE NAMESPACE {CAT}.ns_full")
    spark.sql(f"CREATE TABLE {CAT}.ns_full.t (id INT)")
    spark.sql(f"INSERT INTO {CAT}.ns_full.t VALUES (1), (2)")
    for statement in (f"DROP NAMESPACE {CAT}.ns_full", f"DROP NAMESPACE {CAT}.ns_full RESTRICT"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(statement)
        assert "ns_full" in error_text(excinfo)
        assert sql_rows(spark, f"SELECT * FROM {CAT}.ns_full.t") == [(1,), (2,)]
    spark.sql(f"DROP NAMESPACE {CAT}.ns_full CASCADE")
    assert "ns_full" not in namespaces(spark)
    assert not os.path.exists(os.path.join(warehouse, "ns_full.db"))


def test_drop_empty_namespace_with_restrict(spark, warehouse):
    spark.sql(f"CREATE NAMESPACE {CAT}.ns_empty")
    spark.sql(f"DROP NAMESPACE {CAT}.ns_empty RESTRICT")
    assert not os.path.exists(os.path.join(warehouse, "ns_empty.db"))


def test_tables_of_a_missing_namespace(spark):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SHOW TABLES IN {CAT}.ns_missing_for_tables").collect()
    assert "ns_missing_for_tables" in error_text(excinfo)
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.ns_missing_for_create.t (id INT)")
    assert "ns_missing_for_create" in error_text(excinfo)
