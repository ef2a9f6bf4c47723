"""The Python surface: lamina.configure, lamina.jar_path, the error mapping and the CLI."""

import subprocess
import sys

import pytest
from pyspark.sql import SparkSession

import lamina
import lamina._config
import lamina.errors
from lamina._cli import parser, split_partition, statement
from lamina._names import split_name

FAKE_JAR = "/opt/fake/lamina.jar"


@pytest.fixture
def fake_jar(monkeypatch):
    monkeypatch.setattr(lamina._config, "jar_path", lambda: FAKE_JAR)
    return FAKE_JAR


def test_exported_names_are_few():
    assert sorted(lamina.__all__) == sorted([
        "configure", "jar_path", "compact", "LaminaException", "BadInputException", "NotFoundException",
        "AlreadyExistsException", "CorruptFileException", "CommitConflictException",
        "CommitStateUnknownException", "PostCommitFailureException", "StorageException", "LaminaTable", "LaminaMergeBuilder", "LaminaTableBuilder",
        "COMMIT_METRICS",
    ])


def test_configure_sets_jar_catalog_and_warehouse(fake_jar, tmp_path):
    builder = SparkSession.Builder()
    returned = lamina.configure(builder, warehouse=str(tmp_path), catalog="lake")
    assert returned is builder
    assert builder._options["spark.jars"] == FAKE_JAR
    assert builder._options["spark.sql.catalog.lake"] == "lamina.spark.LaminaCatalog"
    assert builder._options["spark.sql.catalog.lake.warehouse"] == str(tmp_path)
    assert builder._options["spark.sql.extensions"] == "lamina.spark.LaminaSparkSessionExtensions"


def test_configure_keeps_existing_jars_and_does_not_repeat_its_own(fake_jar, tmp_path):
    builder = (SparkSession.Builder().config("spark.jars", "/a/x.jar,/b/y.jar")
               .config("spark.sql.extensions", "other.Extensions"))
    lamina.configure(builder, warehouse=str(tmp_path))
    lamina.configure(builder, warehouse=str(tmp_path))
    assert builder._options["spark.jars"] == f"/a/x.jar,/b/y.jar,{FAKE_JAR}"
    assert builder._options["spark.sql.extensions"] == "other.Extensions,lamina.spark.LaminaSparkSessionExtensions"
    assert builder._options["spark.sql.catalog.lamina"] == "lamina.spark.LaminaCatalog"


def test_configure_makes_local_paths_absolute_and_keeps_uris(fake_jar, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    builder = lamina.configure(SparkSession.Builder(), warehouse="wh")
    assert builder._options["spark.sql.catalog.lamina.warehouse"] == str(tmp_path / "wh")
    builder = lamina.configure(SparkSession.Builder(), warehouse=tmp_path / "p")
    assert builder._options["spark.sql.catalog.lamina.warehouse"] == str(tmp_path / "p")
    builder = lamina.configure(SparkSession.Builder(), warehouse="s3a://bucket/wh")
    assert builder._options["spark.sql.catalog.lamina.warehouse"] == "s3a://bucket/wh"


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        (dict(builder="not a builder", warehouse="/w"), "builder must be"),
        (dict(warehouse=""), "warehouse must not be empty"),
        (dict(warehouse=42), "warehouse must be a path"),
        (dict(warehouse=" /w"), "warehouse must not start or end with whitespace"),
        (dict(warehouse="/w", catalog="my-cat"), "catalog must be a name"),
        (dict(warehouse="/w", catalog="1cat"), "catalog must be a name"),
        (dict(warehouse="/w", catalog=None), "catalog must be a name"),
    ],
)
def test_configure_rejects_bad_arguments(fake_jar, kwargs, needle):
    kwargs.setdefault("builder", SparkSession.Builder())
    with pytest.raises(ValueError, match=needle):
        lamina.configure(**kwargs)


def test_jar_path_names_the_missing_jar(monkeypatch, tmp_path):
    monkeypatch.setattr(lamina._config, "__file__", str(tmp_path / "_config.py"))
    with pytest.raises(FileNotFoundError) as excinfo:
        lamina.jar_path()
    assert str(tmp_path / "jars" / "lamina.jar") in str(excinfo.value)
    assert "make jar" in str(excinfo.value)


def test_exception_hierarchy():
    assert issubclass(lamina.NotFoundException, lamina.BadInputException)
    assert issubclass(lamina.AlreadyExistsException, lamina.BadInputException)
    for cls in (lamina.BadInputException, lamina.CorruptFileException,
                lamina.CommitConflictException, lamina.CommitStateUnknownException,
                lamina.PostCommitFailureException):
        assert issubclass(cls, lamina.LaminaException)
    # a committed write is never reported as the retryable conflict
    assert not issubclass(lamina.PostCommitFailureException, lamina.CommitConflictException)
    e = lamina.BadInputException("unknown option 'x'")
    assert str(e) == "unknown option 'x'" and e.message == "unknown option 'x'" and e.java_class is None


@pytest.mark.parametrize("name", [
    "BadInputException", "NotFoundException", "AlreadyExistsException",
    "CommitConflictException", "CommitStateUnknownException",
])
def test_java_errors_map_to_python_classes(spark, name):
    jvm = spark._jvm
    java_error = getattr(jvm.lamina.errors, name)(f"table db.t: {name}", None)
    converted = lamina.errors.convert(java_error)
    assert type(converted) is getattr(lamina, name)
    assert converted.message == f"table db.t: {name}"
    assert converted.java_class == f"lamina.errors.{name}"

    # Raised through py4j, wrapped the way a failed task wraps it: still the Lamina class.
    wrapped = jvm.org.apache.spark.SparkException("Job aborted", java_error)
    failed = jvm.java.util.concurrent.CompletableFuture.failedFuture(wrapped)
    with pytest.raises(getattr(lamina, name)) as excinfo:
        failed.get()
    assert f"table db.t: {name}" in str(excinfo.value)


def test_corrupt_file_error_maps_with_its_details(spark):
    jvm = spark._jvm
    java_error = jvm.lamina.errors.CorruptFileException("/w/f.parquet", 12, "PAR1", "0000", "", None)
    failed = jvm.java.util.concurrent.CompletableFuture.failedFuture(java_error)
    with pytest.raises(lamina.CorruptFileException) as excinfo:
        failed.get()
    assert excinfo.value.message == "Corrupt file /w/f.parquet at offset 12: expected PAR1, found 0000"


def test_other_java_errors_are_left_to_pyspark(spark):
    jvm = spark._jvm
    assert lamina.errors.convert(jvm.java.lang.IllegalStateException("plain")) is None
    failed = jvm.java.util.concurrent.CompletableFuture.failedFuture(
        jvm.java.lang.IllegalStateException("plain"))
    with pytest.raises(Exception) as excinfo:
        failed.get()
    assert not isinstance(excinfo.value, lamina.LaminaException)
    assert "plain" in str(excinfo.value)


# -- CLI (end to end in test_cli.py) ------------------------------------------------------------

@pytest.mark.parametrize("text, parts", [
    ("t", ["t"]), ("db.t", ["db", "t"]), ("c.db.t", ["c", "db", "t"]), ("db.my-table", ["db", "my-table"]),
    ("`my.db`.`t``x`", ["my.db", "t`x"]),
])
def test_cli_splits_names_as_sql_does(text, parts):
    assert split_name(text) == parts


@pytest.mark.parametrize("text, spec", [
    ("dt=2024-01-01", {"dt": "2024-01-01"}),
    ("dt=2024-01-01,hr=3", {"dt": "2024-01-01", "hr": "3"}),
    ("region='eu,west',k=\"a=b\"", {"region": "eu,west", "k": "a=b"}),
    ("k=", {"k": ""}),
])
def test_cli_partitions_keep_commas_inside_quotes(text, spec):
    assert split_partition(text) == spec


def test_cli_calls_the_procedure_with_quoted_arguments():
    args = parser().parse_args(["create-tag", "--warehouse", "/w", "--table", "db.my-table", "--tag", "it's",
                                "--snapshot", "3"])
    assert statement(args, "lamina", "db", "my-table") == (
        "CALL `lamina`.sys.create_tag(table => 'db.my-table', tag => 'it\\'s', snapshot_id => 3)")
    args = parser().parse_args(["remove-orphan-files", "--warehouse", "/w", "--table", "db.t", "--dry-run"])
    assert statement(args, "c", "db", "t") == "CALL `c`.sys.remove_orphan_files(table => 'db.t', dry_run => true)"
    args = parser().parse_args(["expire-changelogs", "--warehouse", "/w", "--table", "db.t", "--retain-max", "5",
                                "--delete-all"])
    assert statement(args, "c", "db", "t") == \
        "CALL `c`.sys.expire_changelogs(table => 'db.t', retain_max => 5, delete_all => true)"


@pytest.mark.parametrize("args, needle", [
    (["compact", "--warehouse", "/w"], "the following arguments are required: --table"),
    (["compact", "--table", "db.t"], "the following arguments are required: --warehouse"),
    (["compact", "--warehouse", "/w", "--table", "a.b.c.d"], "one, two or three parts"),
    (["compact", "--warehouse", "/w", "--table", "db..t"], "empty name part"),
    (["compact", "--warehouse", "/w", "--table", "db.t", "--partition", "dt"], "a partition is key=value"),
    (["compact", "--warehouse", "/w", "--table", "db.t", "--partition", "a=1,a=2"], "partition key 'a' given twice"),
    (["compact", "--warehouse", "/w", "--table", "db.t", "--partition", "a='x"], "unclosed quote"),
    (["compact", "--warehouse", "/w", "--table", "db.t", "--partition", "a=1", "--where", "a = 1"],
     "give --partition or --where, not both"),
    (["compact", "--warehouse", "", "--table", "db.t"], "warehouse must not be empty"),
    (["vacuum"], "invalid choice: 'vacuum'"),
    (["compact", "--warehouse", "/w", "--table", "db.t", "--catalog-conf", "metastore"],
     "--catalog-conf: must be KEY=VALUE, got 'metastore'"),
    (["compact", "--warehouse", "/w", "--table", "db.t", "--order-strategy", "morton"],
     "argument --order-strategy: invalid choice: 'morton'"),
    (["expire-snapshots", "--warehouse", "/w", "--table", "db.t", "--retain-max", "0"],
     "must be a positive integer, got '0'"),
    (["rollback", "--warehouse", "/w", "--table", "db.t"], "one of the arguments --snapshot --tag is required"),
    (["create-tag", "--warehouse", "/w", "--table", "`a.b`.t", "--tag", "x"],
     "database and table names must not hold dots"),
])
def test_cli_rejects_bad_arguments(args, needle):
    result = subprocess.run([sys.executable, "-m", "lamina", *args], capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert needle in result.stderr


def test_cli_help_lists_every_command_with_examples():
    result = subprocess.run([sys.executable, "-m", "lamina", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    for command in ("compact", "expire-snapshots", "expire-changelogs", "remove-orphan-files", "expire-partitions", "create-tag",
                    "delete-tag", "rollback", "show-snapshots"):
        assert command in result.stdout
    assert "examples:" in result.stdout
    result = subprocess.run([sys.executable, "-m", "lamina", "rollback", "--help"], capture_output=True, text=True)
    assert "later snapshots are deleted" in result.stdout and "example:" in result.stdout


def test_compact_checks_its_arguments_before_calling_spark():
    import lamina
    for bad, needle in (("db.", "empty name part"), (".t", "empty name part"), ("a.b.c.d", "one, two or three parts"),
                        (3, "table must be a table name string"), ("`a.b`.t", "must not hold dots")):
        with pytest.raises(ValueError, match=needle):
            lamina.compact(None, bad)
    with pytest.raises(ValueError, match="each partition must be a non-empty mapping"):
        lamina.compact(None, "db.t", partitions=[{}])
    with pytest.raises(ValueError, match="full must be True or False"):
        lamina.compact(None, "db.t", full="yes")


def test_compact_merges_sorted_runs(spark, db):
    import lamina
    name = f"lamina.{db}.c"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '1', 'write-only' = 'true')")
    for i in range(3):
        spark.sql(f"INSERT INTO {name} VALUES (1, 'v{i}', 'x'), (2, 'w{i}', 'y')")
    snapshot = lamina.compact(spark, f"{db}.c", partitions={"p": "x"}, full=True)
    assert snapshot == 4
    levels = sorted((r.partition, r.level) for r in spark.sql(f"SELECT partition, level FROM lamina.{db}.`c$files`").collect())
    assert levels == [("{p=x}", 5), ("{p=y}", 0), ("{p=y}", 0), ("{p=y}", 0)]
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == [(1, "v2", "x"), (2, "w2", "y")]
    assert lamina.compact(spark, f"{db}.c", partitions={"p": "x"}, full=True) is None


def test_compact_takes_partition_values_holding_separators_and_names_a_bad_catalog(spark, db):
    """Partitions travel to the JVM as mappings, not as text: a value holding ',', ';' or '=' names
    its own partition."""
    import lamina
    name = f"lamina.{db}.s"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '1', 'write-only' = 'true')")
    for i in range(2):
        spark.sql(f"INSERT INTO {name} VALUES (1, 'v{i}', 'a=1,b;c'), (2, 'w{i}', 'a')")
    assert lamina.compact(spark, f"{db}.s", partitions={"p": "a=1,b;c"}, full=True) == 3
    levels = sorted((r.partition, r.level) for r in spark.sql(f"SELECT partition, level FROM lamina.{db}.`s$files`").collect())
    assert levels == [("{p=a=1,b;c}", 5), ("{p=a}", 0), ("{p=a}", 0)]
    with pytest.raises(lamina.NotFoundException, match="Catalog 'nope' is not configured"):
        lamina.compact(spark, f"{db}.s", catalog="nope")
    with pytest.raises(lamina.BadInputException, match="Catalog 'spark_catalog' is a .* not a Lamina catalog"):
        lamina.compact(spark, f"{db}.s", catalog="spark_catalog")
