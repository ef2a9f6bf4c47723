"""Decimals as Paimon's own readers expect them: a DECIMAL above 18 digits is a fixed-length byte
array that Lamina's writer keeps out of dictionaries (as Paimon's writer does), so that Paimon's
filters, which compare such values by their minimal bytes, find the rows of Lamina's files; and an
equality filter on every decimal width finds its row in both readers."""

from _support import sql_rows
from paimon_connector import require_paimon, run_sql

CAT = "lamina"
VALUES = [(1, "12.34", "1234567890123.4567", "12345678901234567890.1234567890"),
          (2, "-0.01", "-0.0001", "-99999999999999999999.9999999999"),
          (3, "99999999.99", "9999999999999999.9999", "0.0000000001")]


def test_paimon_filters_lamina_decimals_of_every_width(spark, warehouse, db):
    require_paimon()
    for kind, props in [("pk", "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')"), ("append", "")]:
        spark.sql(f"CREATE TABLE {CAT}.{db}.{kind} (id INT NOT NULL, d10 DECIMAL(10, 2), d20 DECIMAL(20, 4), "
                  f"d38 DECIMAL(38, 10), s STRUCT<w: DECIMAL(30, 3)>) {props}")
        rows = ", ".join(f"({i}, {a}BD, {b}BD, {c}BD, named_struct('w', {a}BD))" for i, a, b, c in VALUES)
        spark.sql(f"INSERT INTO {CAT}.{db}.{kind} VALUES {rows}")
    queries = []
    for kind in ("pk", "append"):
        for i, a, b, c in VALUES:
            queries += [f"SELECT id FROM paimon.{db}.{kind} WHERE d10 = {a}BD",
                        f"SELECT id FROM paimon.{db}.{kind} WHERE d20 = {b}BD",
                        f"SELECT id FROM paimon.{db}.{kind} WHERE d38 = {c}BD"]
    results = run_sql(warehouse, queries)
    expected = [[[i]] for _ in ("pk", "append") for i, *_ in VALUES for _ in range(3)]
    assert results == expected
    for kind in ("pk", "append"):
        for i, a, b, c in VALUES:
            assert sql_rows(spark, f"SELECT id FROM {CAT}.{db}.{kind} WHERE d38 = {c}BD AND d20 = {b}BD "
                                   f"AND s.w = {a}BD") == [(i,)]
