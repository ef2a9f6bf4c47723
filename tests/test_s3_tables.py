"""Tables on S3: a warehouse `s3a://<bucket>/...` on an S3-compatible server on loopback (moto, started
by this module), set up by Paimon's catalog options (`s3.endpoint`, `s3.access-key`, ...). Append and
primary-key tables, deletion vectors, compaction, expiration, orphan removal, tags, rollback and the
streaming sink, each checked by what a read returns and by the objects left in the bucket: commits
create their files by a conditional PUT, so no temporary object or rename is ever left behind."""

import itertools

import pytest

from _s3 import S3Server
from _support import error_text, sorted_tuples, sql_rows

_names = itertools.count()


@pytest.fixture(scope="module")
def s3():
    with S3Server() as server:
        yield server


def add_catalog(spark, s3, **options) -> str:
    """A new catalog on a new warehouse in the bucket, with `options` on top of the server's."""
    name = f"s3cat{next(_names)}"
    prefix = f"spark.sql.catalog.{name}"
    spark.conf.set(prefix, "lamina.spark.LaminaCatalog")
    spark.conf.set(f"{prefix}.warehouse", s3.warehouse())
    for key, value in s3.catalog_options(**options).items():
        spark.conf.set(f"{prefix}.{key}", value)
    spark.sql(f"CREATE NAMESPACE {name}.d")
    return name


@pytest.fixture
def cat(spark, s3):
    return add_catalog(spark, s3)


def warehouse_key(spark, cat) -> str:
    return spark.conf.get(f"spark.sql.catalog.{cat}.warehouse").split("/", 3)[3]


def table_keys(spark, s3, cat, table="t") -> list:
    return s3.keys(f"{warehouse_key(spark, cat)}/d.db/{table}/")


def no_leftovers(keys) -> None:
    assert [k for k in keys if k.endswith(".tmp") or "/_temporary" in k or "/." in k] == []


def test_append_table_writes_reads_and_leaves_only_named_objects(spark, s3, cat):
    spark.sql(f"CREATE TABLE {cat}.d.t (id INT, v STRING) PARTITIONED BY (p STRING)")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (3, 'c', 'x')")
    spark.sql(f"DELETE FROM {cat}.d.t WHERE id = 2")
    assert sql_rows(spark, f"SELECT id, v, p FROM {cat}.d.t ORDER BY id") == [(1, "a", "x"), (3, "c", "x")]
    keys = table_keys(spark, s3, cat)
    no_leftovers(keys)
    snapshots = sorted(k.rsplit("/", 1)[1] for k in keys if "/snapshot/snapshot-" in k)
    assert snapshots == ["snapshot-1", "snapshot-2", "snapshot-3"]
    assert s3.read(f"{warehouse_key(spark, cat)}/d.db/t/snapshot/LATEST") == b"3"


def test_primary_key_table_dml_and_merge_engines(spark, s3, cat):
    spark.sql(f"CREATE TABLE {cat}.d.t (k INT NOT NULL, v STRING, n INT) "
              "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (1, 'a2', 10)")
    spark.sql(f"UPDATE {cat}.d.t SET v = 'b2' WHERE k = 2")
    spark.sql(f"DELETE FROM {cat}.d.t WHERE k = 3")
    spark.sql(f"MERGE INTO {cat}.d.t USING (SELECT 4 AS k, 'd' AS v, 4 AS n) s ON t.k = s.k "
              "WHEN NOT MATCHED THEN INSERT *")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t ORDER BY k") == [(1, "a2", 10), (2, "b2", 2), (4, "d", 4)]
    spark.sql(f"CREATE TABLE {cat}.d.agg (k INT NOT NULL, n INT) TBLPROPERTIES ('primary-key' = 'k', "
              "'bucket' = '1', 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum')")
    spark.sql(f"INSERT INTO {cat}.d.agg VALUES (1, 1), (2, 2)")
    spark.sql(f"INSERT INTO {cat}.d.agg VALUES (1, 5)")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.agg ORDER BY k") == [(1, 6), (2, 2)]
    no_leftovers(table_keys(spark, s3, cat))


def test_deletion_vectors_and_compaction(spark, s3, cat):
    spark.sql(f"CREATE TABLE {cat}.d.t (k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', "
              "'bucket' = '1', 'deletion-vectors.enabled' = 'true')")
    for i in range(3):
        spark.sql(f"INSERT INTO {cat}.d.t VALUES ({i}, 'v{i}'), (100, 'last{i}')")
    spark.sql(f"CALL {cat}.sys.compact(table => 'd.t')")
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (0, 'new')")
    spark.sql(f"DELETE FROM {cat}.d.t WHERE k = 1")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t") == sorted_tuples([(0, "new"), (2, "v2"), (100, "last2")])
    kinds = [k for (k,) in sql_rows(spark, f"SELECT commit_kind FROM {cat}.d.`t$snapshots`")]
    assert "COMPACT" in kinds
    keys = table_keys(spark, s3, cat)
    assert any("/index/" in k for k in keys)  # the deletion vectors' index files
    no_leftovers(keys)
    spark.sql(f"CREATE TABLE {cat}.d.a (id INT, v STRING)")
    for i in range(4):
        spark.sql(f"INSERT INTO {cat}.d.a VALUES ({i}, 'x')")
    spark.sql(f"CALL {cat}.sys.compact(table => 'd.a')")
    assert sql_rows(spark, f"SELECT count(*) FROM {cat}.d.a") == [(4,)]


def test_expiration_orphans_tags_and_rollback(spark, s3, cat):
    spark.sql(f"CREATE TABLE {cat}.d.t (k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
    for i in range(4):
        spark.sql(f"INSERT INTO {cat}.d.t VALUES ({i}, 'v{i}')")
    spark.sql(f"CALL {cat}.sys.create_tag(table => 'd.t', tag => 'two', snapshot => 2)")
    tagged = sql_rows(spark, f"SELECT * FROM {cat}.d.t VERSION AS OF 'two' ORDER BY k")
    assert tagged == [(0, "v0"), (1, "v1")]
    assert sql_rows(spark, f"CALL {cat}.sys.expire_snapshots(table => 'd.t', retain_max => 1, retain_min => 1)") == [(3,)]
    keys = table_keys(spark, s3, cat)
    assert sorted(k.rsplit("/", 1)[1] for k in keys if "/snapshot/snapshot-" in k) == ["snapshot-4"]
    assert any(k.endswith("/tag/tag-two") for k in keys)
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t VERSION AS OF 'two' ORDER BY k") == tagged
    # an object no snapshot or tag names: removed once old enough; the table reads the same
    stray = f"{warehouse_key(spark, cat)}/d.db/t/bucket-0/data-failed-write.parquet"
    s3.client().put_object(Bucket=s3.bucket, Key=stray, Body=b"not referenced")
    before = sql_rows(spark, f"SELECT * FROM {cat}.d.t ORDER BY k")
    row = spark.sql(f"CALL {cat}.sys.remove_orphan_files(table => 'd.t', older_than => '2999-01-01 00:00:00')").collect()[0]
    assert row.deletedFileCount == 1
    assert stray not in table_keys(spark, s3, cat)
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t ORDER BY k") == before
    # rollback to the tag: snapshot 2 is written back from it
    spark.sql(f"CALL {cat}.sys.rollback(table => 'd.t', version => 'two')")
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t ORDER BY k") == tagged
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (9, 'after')")
    assert sql_rows(spark, f"SELECT count(*) FROM {cat}.d.t") == [(3,)]
    no_leftovers(table_keys(spark, s3, cat))


def test_streaming_sink_commits_each_batch_once(spark, s3, cat, tmp_path):
    spark.sql(f"CREATE TABLE {cat}.d.src (id INT, v STRING)")
    spark.sql(f"CREATE TABLE {cat}.d.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    checkpoint = str(tmp_path / "checkpoint")

    def run():
        q = (spark.readStream.table(f"{cat}.d.src").writeStream.option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).toTable(f"{cat}.d.t"))
        q.awaitTermination(180)
        assert q.exception() is None, str(q.exception())

    spark.sql(f"INSERT INTO {cat}.d.src VALUES (1, 'a'), (2, 'b')")
    run()
    spark.sql(f"INSERT INTO {cat}.d.src VALUES (3, 'c')")
    run()
    run()  # nothing new: no commit
    assert sql_rows(spark, f"SELECT * FROM {cat}.d.t ORDER BY id") == [(1, "a"), (2, "b"), (3, "c")]
    kinds = [k for (k,) in sql_rows(spark, f"SELECT commit_kind FROM {cat}.d.`t$snapshots`")]
    assert kinds == ["APPEND", "APPEND"]


def test_a_stale_latest_hint_is_only_a_hint(spark, s3, cat):
    spark.sql(f"CREATE TABLE {cat}.d.t (id INT, v STRING)")
    for i in range(3):
        spark.sql(f"INSERT INTO {cat}.d.t VALUES ({i}, 'x')")
    hint = f"{warehouse_key(spark, cat)}/d.db/t/snapshot/LATEST"
    s3.client().put_object(Bucket=s3.bucket, Key=hint, Body=b"1")
    assert sql_rows(spark, f"SELECT count(*) FROM {cat}.d.t") == [(3,)]
    spark.sql(f"INSERT INTO {cat}.d.t VALUES (9, 'y')")
    assert s3.read(hint) == b"4"
    assert sql_rows(spark, f"SELECT count(*) FROM {cat}.d.t") == [(4,)]


def test_without_conditional_writes_or_a_lock_writes_are_refused_up_front(spark, s3):
    cat = add_catalog(spark, s3, **{"s3.create.conditional.enabled": "false"})
    spark.sql(f"CREATE TABLE {cat}.d.t (id INT, v STRING)")
    with pytest.raises(Exception) as e:
        spark.sql(f"INSERT INTO {cat}.d.t VALUES (1, 'a')")
    text = error_text(e)
    assert "cannot be committed to safely" in text and "s3.create.conditional.enabled" in text
    assert "lock.enabled" in text
    # nothing was written: no data file, no snapshot; reads still work
    assert [k for k in table_keys(spark, s3, cat) if "/bucket-" in k or "/snapshot/" in k] == []
    assert sql_rows(spark, f"SELECT count(*) FROM {cat}.d.t") == [(0,)]


def test_conditional_create_is_put_if_absent(spark, s3, cat):
    """The primitive itself, through the JVM: one creator wins, the loser's bytes never land, and a PUT
    the store took whose answer was lost (a 500 after storing, an answer after the client gave up) is
    recognised as this creator's own."""
    jvm = spark.sparkContext._jvm
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    for key, value in s3.hadoop_conf().items():
        conf.set(key, value)
    empty = getattr(getattr(jvm.scala.collection.immutable, "Map$"), "MODULE$").empty()
    conf = jvm.lamina.io.StorageConf.apply(conf, empty)
    file_io = jvm.lamina.io.FileIO.apply(conf)
    base = f"s3a://{s3.bucket}/{warehouse_key(spark, cat)}/primitive"
    path = lambda name: jvm.lamina.io.PathNames.of(f"{base}/{name}")  # noqa: E731
    assert str(file_io.atomicCreate(path("a"))) == "ConditionalPut"
    assert file_io.tryAtomicCreate(path("a"), "first") is True
    assert file_io.tryAtomicCreate(path("a"), "second") is False
    assert s3.read(f"{warehouse_key(spark, cat)}/primitive/a") == b"first"
    for mode in ("stored-error", "stored-hang", "error"):
        s3.inject([{"method": "PUT", "match": f"/primitive/{mode}$", "mode": mode, "seconds": 5}])
        assert file_io.tryAtomicCreate(path(mode), mode) is True, mode
        assert s3.pending_faults() == [], mode
        assert s3.read(f"{warehouse_key(spark, cat)}/primitive/{mode}") == mode.encode()
        assert file_io.tryAtomicCreate(path(mode), "other") is False

