"""Apache Paimon's own connector on append tables whose deletion vectors Lamina wrote with a tiny
`deletion-vector.index-file.target-size`: it reads exactly Lamina's rows after Lamina's DELETE and
UPDATE, and its own DELETE afterwards loses no vector. A fixed-bucket table keeps one index file per
bucket (Paimon's commit keeps one deletion-vector entry per bucket of such a table: with two, its
next commit would drop one, and the rows its vectors delete would come back); a bucket-unaware
table's files roll, which Paimon's commit combines by file name."""

import pytest

from _append_rows import BATCHES, expected, rows, values
from _support import sql_rows
from paimon_connector import require_paimon, run_sql

CAT = "lamina"
DV = "'deletion-vectors.enabled' = 'true', 'deletion-vector.index-file.target-size' = '1 b'"
TABLES = {
    "bucketed": f"TBLPROPERTIES ('bucket' = '2', 'bucket-key' = 'id', {DV})",
    "unaware": f"PARTITIONED BY (p) TBLPROPERTIES ({DV})",
}


@pytest.fixture(scope="module")
def paimon_after_lamina(spark, warehouse):
    """Each table written and changed by Lamina, then read, changed (a DELETE of id 1) and read again by
    Paimon's connector: (db, Lamina's models, rows and index files per (partition, bucket), Paimon's
    results)."""
    require_paimon()
    db = "interop_dv_rolling"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CAT}.{db}")
    models, lamina_rows, index_files = {}, {}, {}
    for table, properties in TABLES.items():
        name = f"{CAT}.{db}.{table}"
        spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) {properties}")
        for batch in BATCHES:
            spark.sql(f"INSERT INTO {name} VALUES {values(batch)}")
        spark.sql(f"DELETE FROM {name} WHERE id % 2 = 0")
        spark.sql(f"UPDATE {name} SET v = 'u' WHERE id % 5 = 1")
        models[table] = {i: ("u" if i % 5 == 1 else v, p) for batch in BATCHES for i, v, p in batch if i % 2 != 0}
        lamina_rows[table] = rows(spark, name)
        index_files[table] = sorted(n for _, n in sql_rows(
            spark, f"SELECT concat(partition, bucket), count(*) FROM {CAT}.{db}.`{table}$table_indexes` GROUP BY 1"))
    statements = []
    for table in TABLES:
        statements += [f"SELECT id, v, p FROM paimon.{db}.{table}", f"DELETE FROM paimon.{db}.{table} WHERE id = 1",
                       f"SELECT id, v, p FROM paimon.{db}.{table}"]
    results = run_sql(warehouse, statements)
    yield db, models, lamina_rows, index_files, {t: results[3 * k:3 * k + 3] for k, t in enumerate(TABLES)}
    spark.sql(f"DROP NAMESPACE IF EXISTS {CAT}.{db} CASCADE")


@pytest.mark.parametrize("table", sorted(TABLES))
def test_paimon_reads_laminas_rows_and_its_delete_keeps_every_vector(spark, paimon_after_lamina, table):
    db, models, lamina_rows, _, results = paimon_after_lamina
    before, _, after = results[table]
    assert lamina_rows[table] == expected(models[table])
    assert sorted(tuple(r) for r in before) == lamina_rows[table]
    remaining = expected({i: r for i, r in models[table].items() if i != 1})
    assert sorted(tuple(r) for r in after) == remaining
    assert rows(spark, f"{CAT}.{db}.{table}") == remaining


def test_lamina_wrote_one_index_file_per_bucket_of_the_bucketed_table_and_several_of_the_other(paimon_after_lamina):
    index_files = paimon_after_lamina[3]
    assert index_files["bucketed"] == [1, 1]
    assert max(index_files["unaware"]) > 1
