"""Deletion-vector index files roll at `deletion-vector.index-file.target-size` where Paimon rolls them:
a bucket-unaware append table's DELETE and UPDATE write a partition's vectors to as many index files
as the target makes, each listed in `$table_indexes`, read back through Lamina and pypaimon, and those
no snapshot uses any more removed by expiration (and none in use by orphan removal). Every other table keeps one index file per bucket
(Paimon's commits keep one deletion-vector entry per bucket of such a table)."""

import pytest

from _append_rows import BATCHES, expected, pypaimon_rows, rows, values
from _support import sql_rows, table_path

CAT = "lamina"
DV = "'deletion-vectors.enabled' = 'true'"


def _indexes(spark, name):
    """[(partition, bucket, file name, vector count, [data file names])] of `$table_indexes`."""
    prefix, table = name.rsplit(".", 1)
    found = sql_rows(spark, f"SELECT partition, bucket, file_name, row_count, dv_ranges FROM {prefix}.`{table}$table_indexes`")
    return [(p, b, f, n, [r[0] for r in ranges]) for p, b, f, n, ranges in found]


def _index_dir_files(warehouse, db):
    return {p.name for p in (table_path(warehouse, db, "t") / "index").iterdir() if p.name.startswith("index-")}


def _vector_files(spark, name):
    """The live data files that have a deletion vector."""
    prefix, table = name.rsplit(".", 1)
    found = sql_rows(spark, f"SELECT file_path FROM {prefix}.`{table}$files` WHERE deletion_vector_cardinality IS NOT NULL")
    return {p.rsplit("/", 1)[-1] for (p,) in found}


def _seed(spark, name, properties):
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) {properties}")
    model = {}
    for batch in BATCHES:
        spark.sql(f"INSERT INTO {name} VALUES {values(batch)}")
        model.update({i: (v, p) for i, v, p in batch})
    return model


@pytest.mark.parametrize("target", ["1 b", "40 b"])
def test_a_bucket_unaware_tables_vectors_roll_and_expiration_removes_the_old_files(
        spark, warehouse, paimon_catalog, db, target):
    name = f"{CAT}.{db}.t"
    model = _seed(spark, name, f"PARTITIONED BY (p) TBLPROPERTIES ({DV}, "
                               f"'deletion-vector.index-file.target-size' = '{target}')")
    spark.sql(f"DELETE FROM {name} WHERE id % 2 = 0")
    model = {i: r for i, r in model.items() if i % 2 != 0}
    spark.sql(f"UPDATE {name} SET v = 'u' WHERE id % 5 = 1")
    model = {i: ("u" if i % 5 == 1 else v, p) for i, (v, p) in model.items()}
    assert rows(spark, name) == expected(model) == pypaimon_rows(paimon_catalog, name)

    indexes = _indexes(spark, name)
    per_partition = {}
    for p, b, _, n, files in indexes:
        assert b == 0 and n == len(files) >= 1
        per_partition.setdefault(p, []).append(n)
    assert sorted(per_partition) == ["{p=a}", "{p=b}", "{p=c}"]
    assert max(len(counts) for counts in per_partition.values()) > 1, indexes
    if target == "1 b":
        assert all(n == 1 for *_, n, _ in indexes)  # every vector alone in its file
    else:
        assert max(n for *_, n, _ in indexes) == 2  # two small vectors (about 30 bytes each) pass 40 bytes
    # each data file with a vector is in exactly one index file, and the index directory holds just them
    listed = [f for *_, files in indexes for f in files]
    assert sorted(listed) == sorted(_vector_files(spark, name))
    before = _index_dir_files(warehouse, db)
    assert {f for _, _, f, _, _ in indexes} < before  # the DELETE's files that the UPDATE replaced remain

    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    assert _index_dir_files(warehouse, db) == {f for _, _, f, _, _ in indexes}
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')")
    assert _index_dir_files(warehouse, db) == {f for _, _, f, _, _ in indexes}
    assert rows(spark, name) == expected(model) == pypaimon_rows(paimon_catalog, name)


@pytest.mark.parametrize("kind", ["bucketed append", "primary key"])
def test_other_tables_keep_one_index_file_per_bucket_whatever_the_target(spark, warehouse, paimon_catalog, db, kind):
    name = f"{CAT}.{db}.t"
    tiny = "'deletion-vector.index-file.target-size' = '1 b'"
    if kind == "primary key":
        key = "'primary-key' = 'id'"
    else:
        key = "'bucket-key' = 'id', 'write-only' = 'true'"  # the seeded files are not compacted away
    model = _seed(spark, name, f"TBLPROPERTIES ('bucket' = '2', {key}, {DV}, {tiny})")
    if kind == "primary key":  # upserts: lookup compaction marks the older rows
        spark.sql(f"INSERT INTO {name} SELECT id, 'w', p FROM {name} WHERE id % 3 = 0")
        model = {i: ("w" if i % 3 == 0 else v, p) for i, (v, p) in model.items()}
    spark.sql(f"DELETE FROM {name} WHERE id % 2 = 0")
    model = {i: r for i, r in model.items() if i % 2 != 0}
    indexes = _indexes(spark, name)
    assert sorted(b for _, b, *_ in indexes) == [0, 1]
    assert all(n == len(files) for *_, n, files in indexes)
    if kind == "bucketed append":  # several files of each bucket have vectors, all in its one index file
        assert all(n > 1 for *_, n, files in indexes), indexes
    assert rows(spark, name) == expected(model) == pypaimon_rows(paimon_catalog, name)
