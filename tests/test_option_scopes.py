"""Options set for one session (`spark.lamina.<key>`) or one query (read and write options).

Resolution order: the query's option, the session conf, the table's property, the default. Only the
options that say how a read or write runs may be set so; the ones that define the table (keys,
buckets, merge engine, format) are refused with a pointer to ALTER TABLE, unknown keys with the
closest valid key, bad values naming the option, and nothing is committed.
"""


import pytest

from _support import data_files, error_text, session_conf, sql_rows, unchanged

CAT = "lamina"


@pytest.fixture
def pk(spark, db):
    """A primary-key table that compacts as soon as it has two sorted runs."""
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id BIGINT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'num-sorted-run.compaction-trigger' = '2')")
    return f"{CAT}.{db}.t"


def snapshots_table(name):
    cat, db, t = name.split(".")
    return f"{cat}.{db}.`{t}"


def kinds(spark, name):
    return [r[0] for r in spark.sql(f"SELECT commit_kind FROM {snapshots_table(name)}$snapshots` "
                                    "ORDER BY snapshot_id").collect()]


def write(spark, name, rows, **options):
    df = spark.createDataFrame(rows, "id bigint, v string")
    w = df.writeTo(name)
    for k, v in options.items():
        w = w.option(k, v)
    w.append()


def test_write_only_as_a_session_conf(spark, pk):
    with session_conf(spark, "spark.lamina.write-only", "true"):
        write(spark, pk, [(1, "a")])
        write(spark, pk, [(2, "b")])
    assert kinds(spark, pk) == ["APPEND", "APPEND"]
    write(spark, pk, [(3, "c")])
    assert kinds(spark, pk) == ["APPEND", "APPEND", "APPEND", "COMPACT"]
    assert sql_rows(spark, f"SELECT * FROM {pk}") == [(1, "a"), (2, "b"), (3, "c")]


def test_write_only_as_a_write_option_before_the_session_conf(spark, pk):
    write(spark, pk, [(1, "a")], **{"write-only": "true"})
    write(spark, pk, [(2, "b")], **{"write-only": "true"})
    assert kinds(spark, pk) == ["APPEND", "APPEND"]
    with session_conf(spark, "spark.lamina.write-only", "true"):
        write(spark, pk, [(3, "c")], **{"write-only": "false"})
    assert kinds(spark, pk) == ["APPEND", "APPEND", "APPEND", "COMPACT"]


def test_target_file_size_as_a_write_option(spark, warehouse, db):
    name = f"{CAT}.{db}.a"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, v STRING)")
    spark.range(0, 20000).selectExpr("id", "uuid() AS v").coalesce(1).writeTo(name).append()
    assert len(data_files(warehouse, db, "a")) == 1
    spark.range(0, 20000).selectExpr("id", "uuid() AS v").coalesce(1).writeTo(name) \
        .option("target-file-size", "64 kb").append()
    assert len(data_files(warehouse, db, "a")) > 4
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(40000,)]


@pytest.mark.parametrize("key, value, words", [
    ("write-onyl", "true", ["Unknown option 'write-onyl' set by a write option for table", "did you mean 'write-only'?"]),
    ("bucket", "3", ["Option 'bucket' of table", "cannot be set by a write option", "ALTER TABLE"]),
    ("merge-engine", "first-row", ["Option 'merge-engine' of table", "ALTER TABLE"]),
    ("target-file-size", "big", ["Invalid value 'big' for option 'target-file-size'"]),
])
def test_bad_write_options_are_refused_and_nothing_is_committed(spark, warehouse, db, pk, key, value, words):
    write(spark, pk, [(1, "a")])
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as e:
            write(spark, pk, [(2, "b")], **{key: value})
    for w in words:
        assert w in error_text(e), error_text(e)


def test_bad_session_conf_is_refused_naming_the_conf(spark, warehouse, db, pk):
    write(spark, pk, [(1, "a")])
    with unchanged(spark, warehouse, db, "t"):
        with session_conf(spark, "spark.lamina.write-onli", "true"):
            with pytest.raises(Exception) as e:
                write(spark, pk, [(2, "b")])
    assert "Unknown option 'write-onli' set by the session conf 'spark.lamina.write-onli'" in error_text(e)
    assert "did you mean 'write-only'?" in error_text(e)


def test_unknown_read_option_is_refused(spark, pk):
    write(spark, pk, [(1, "a")])
    with pytest.raises(Exception) as e:
        spark.read.option("scan.snapshot", "1").table(pk).collect()
    assert "Unknown option 'scan.snapshot' set by a read option" in error_text(e)
    assert "did you mean 'scan.snapshot-id'?" in error_text(e)
    assert spark.read.option("scan.snapshot-id", "1").table(pk).count() == 1


def test_scan_snapshot_as_a_session_conf(spark, pk):
    write(spark, pk, [(1, "a")])
    write(spark, pk, [(2, "b")], **{"write-only": "true"})
    with session_conf(spark, "spark.lamina.scan.snapshot-id", "1"):
        assert sql_rows(spark, f"SELECT * FROM {pk}") == [(1, "a")]
    assert sql_rows(spark, f"SELECT * FROM {pk}") == [(1, "a"), (2, "b")]
