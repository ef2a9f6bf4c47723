"""Lamina and Apache Paimon's connector in one Spark session: Paimon's SQL extension claims every
CALL statement, and Lamina's parser keeps `CALL lamina.sys.*` for Lamina when Lamina's extensions
are listed after Paimon's (as `lamina.configure` appends them)."""

import lamina
from _support import sql_rows
from paimon_connector import require_paimon, run_sql

CAT = "lamina"


def test_call_reaches_each_catalog_with_both_extensions(spark, warehouse, db):
    require_paimon()
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    for i in range(3):
        spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES ({i}, 'v{i}')")
    results = run_sql(warehouse, [
        f"CALL lamina.sys.compact(table => '{db}.t')",
        f"SELECT id, v FROM lamina.{db}.t ORDER BY id",
        f"CREATE TABLE paimon.{db}.p (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')",
        f"INSERT INTO paimon.{db}.p VALUES (1, 'a')",
        f"CALL paimon.sys.compact(table => '{db}.p')",
    ], lamina_jar=lamina.jar_path())
    assert len(results[0]) == 1 and results[0][0][0] is not None  # the COMPACT snapshot id
    assert results[1] == [[0, "v0"], [1, "v1"], [2, "v2"]]
    assert results[4] == [[True]]
    kinds = [r[0] for r in sql_rows(spark, f"SELECT commit_kind FROM {CAT}.{db}.`t$snapshots`")]
    assert "COMPACT" in kinds
