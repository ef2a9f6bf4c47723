"""Tables that use Paimon features Lamina does not implement (created by Paimon's own writers) are
refused, naming the feature and its option, for each operation the feature would make wrong, before
anything is read or written."""

import json

import pytest

import lamina
from _support import error_text, snapshot_ids, sql_rows, table_path

CAT = "lamina"


def _as_paimon_wrote_it(warehouse, db, table, set_options=(), remove_options=()):
    """Rewrites the table's schema file as a Paimon writer with these options would have."""
    path = table_path(warehouse, db, table) / "schema" / "schema-0"
    schema = json.loads(path.read_text())
    schema["options"].update(dict(set_options))
    for key in remove_options:
        schema["options"].pop(key, None)
    path.write_text(json.dumps(schema, indent=2))


@pytest.fixture
def pk_table(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'a'), (2, 'b')")
    return f"{CAT}.{db}.t"


WRITES = [
    "INSERT INTO {t} VALUES (3, 'c')",
    "DELETE FROM {t} WHERE id = 1",
    "UPDATE {t} SET v = 'z' WHERE id = 2",
    "MERGE INTO {t} t USING (SELECT 1 AS id, 'm' AS v) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *",
    "TRUNCATE TABLE {t}",
]


def _refused(spark, statement, feature, key, lacking="which Lamina does not implement"):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(statement).collect()
    text = error_text(excinfo)
    assert f"uses {feature} ('{key}' = " in text, (statement, text)
    assert lacking in text


def test_deletion_vector_tables_that_paimon_wrote_take_writes_and_compaction(spark, warehouse, db, pk_table):
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")  # readers of such tables skip level 0, as Paimon's do
    _as_paimon_wrote_it(warehouse, db, "t", {"deletion-vectors.enabled": "true"})
    # a snapshot without an index manifest deletes nothing; Paimon's own tables: test_interop_paimon_deletion_vectors.py
    for read in ("t", "`t$ro`", "`t$audit_log`"):
        assert sorted(sql_rows(spark, f"SELECT id, v FROM {CAT}.{db}.{read}")) == [(1, "a"), (2, "b")]
    spark.sql(f"INSERT INTO {pk_table} VALUES (2, 'B'), (3, 'c')")  # lookup compaction marks the old row of 2
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert sorted(sql_rows(spark, f"SELECT id, v FROM {pk_table}")) == [(1, "a"), (2, "B"), (3, "c")]


@pytest.mark.parametrize("ddl,words", [
    ("(id INT NOT NULL, p STRING NOT NULL) PARTITIONED BY (p) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')",
     ["Partition column 'p'", "primary key", "'bucket' = '-1'"]),
    ("(id INT NOT NULL, k INT NOT NULL) TBLPROPERTIES ('primary-key' = 'id,k', 'bucket-key' = 'id')",
     ["'bucket-key'", "'bucket' is -1"]),
    ("(id INT NOT NULL) TBLPROPERTIES ('primary-key' = 'id', 'dynamic-bucket.max-buckets' = '0')",
     ["dynamic-bucket.max-buckets", "'0'"]),
])
def test_dynamic_bucket_definitions_lamina_cannot_write_are_refused(spark, db, ddl, words):
    with pytest.raises(lamina.BadInputException) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.bad {ddl}")
    text = error_text(excinfo)
    assert all(w in text for w in words) and f"{db}.bad" in text, text


@pytest.mark.parametrize("producer", ["lookup", "full-compaction"])
def test_tables_with_a_changelog_producer_are_read_and_written(spark, warehouse, db, pk_table, producer):
    _as_paimon_wrote_it(warehouse, db, "t", {"changelog-producer": producer})
    assert sql_rows(spark, f"SELECT * FROM {pk_table}") == [(1, "a"), (2, "b")]
    spark.sql(f"INSERT INTO {pk_table} VALUES (3, 'c')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert sql_rows(spark, f"SELECT id, v FROM {pk_table}") == [(1, "a"), (2, "b"), (3, "c")]


@pytest.mark.parametrize("key, value, feature", [
    ("scan.fallback-branch", "fallback", "a fallback branch"),
])
def test_result_changing_options_refuse_reads(spark, warehouse, db, pk_table, key, value, feature):
    _as_paimon_wrote_it(warehouse, db, "t", {key: value})
    _refused(spark, f"SELECT * FROM {pk_table}", feature, key)
    _refused(spark, f"INSERT INTO {pk_table} VALUES (3, 'c')", feature, key)


def test_stored_options_are_implemented_harmless_or_refused_by_name(spark, warehouse, db, pk_table):
    # harmless: what Paimon's expiration and tagging would do changes no row Lamina reads or writes
    _as_paimon_wrote_it(warehouse, db, "t", {"snapshot.time-retained": "5 min", "tag.automatic-creation": "process-time",
                                             "sort-engine": "min-heap", "owner.team": "ads"})
    spark.sql(f"INSERT INTO {pk_table} VALUES (3, 'c')")
    assert sql_rows(spark, f"SELECT * FROM {pk_table}") == [(1, "a"), (2, "b"), (3, "c")]
    before = snapshot_ids(warehouse, db, "t")
    # a stored tag to read would change what a read returns: refused for reads, writes go on
    _as_paimon_wrote_it(warehouse, db, "t", {"scan.tag-name": "daily"})
    _refused(spark, f"SELECT * FROM {pk_table}", "a stored scan tag", "scan.tag-name")
    # a key of a newer Paimon, or a per-column setting Lamina lacks, refuses everything, naming it
    for key, value in (("scan.some-newer-option", "1"), ("fields.v.default-value", "id")):
        others = [k for k in ("scan.tag-name", "scan.some-newer-option") if k != key]
        _as_paimon_wrote_it(warehouse, db, "t", {key: value}, remove_options=others)
        for statement in (f"SELECT * FROM {pk_table}", f"INSERT INTO {pk_table} VALUES (4, 'd')"):
            with pytest.raises(lamina.BadInputException) as excinfo:
                spark.sql(statement).collect()
            assert f"stores option '{key}' = '{value}', which Lamina does not know" in error_text(excinfo)
    assert snapshot_ids(warehouse, db, "t") == before
