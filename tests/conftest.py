"""Shared fixtures: one SparkSession for the whole run, configured through `lamina.configure` on a
temporary warehouse, and a fresh namespace for each test."""

import itertools
import os
import shutil
import sys
from pathlib import Path

import pytest

# Python turns JVM timestamps into naive local datetimes: pin the zone so expected values are UTC.
os.environ["TZ"] = "UTC"
if hasattr(__import__("time"), "tzset"):
    __import__("time").tzset()

# Every Spark JVM of the tests (this session's, the writer processes', spark-submit jobs', the Connect
# server's) inherits this. Queries of a few rows each make the JVM spend most of its CPU compiling:
# Spark generates new classes per query, and the optimising compiler's work (and its code cache
# filling up over a long run) outweighs what it saves; the quick compiler alone runs the suite faster.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=512m")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

CATALOG = "lamina"
_namespace_counter = itertools.count()


def _ensure_jar() -> str:
    """The package's jar; copied from sbt's output when that is newer (or the package has none)."""
    import lamina

    packaged = REPO / "python" / "lamina" / "jars" / "lamina.jar"
    built = REPO / "target" / "scala-2.13" / "lamina.jar"
    if built.is_file() and (not packaged.is_file() or built.stat().st_mtime > packaged.stat().st_mtime):
        packaged.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, packaged)
    return lamina.jar_path()


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("warehouse"))


@pytest.fixture(scope="session")
def spark(warehouse, tmp_path_factory):
    _ensure_jar()
    import lamina
    from pyspark.sql import SparkSession

    spark_dir = tmp_path_factory.mktemp("spark")
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("lamina-tests")
        .config("spark.ui.enabled", "false")
        # one driver JVM runs the whole suite: Spark's default heap (1 GB) leaves its later large
        # writes collecting garbage most of the time
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.sql.warehouse.dir", str(spark_dir / "spark-warehouse"))
        .config("spark.local.dir", str(spark_dir / "local"))
    )
    # Hadoop's S3A connector, for the tests on an S3 server (`make s3-jars` fetches it); without it
    # those tests fail at their set-up, saying so, and the others run
    try:
        from _s3 import class_path
        builder = builder.config("spark.driver.extraClassPath", class_path())
    except Exception:  # noqa: BLE001 - reported by the S3 fixtures
        pass
    session = lamina.configure(builder, warehouse=warehouse, catalog=CATALOG).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    _session_jvm_pid.append(session._jvm.ProcessHandle.current().pid())
    yield session
    session.stop()


# The session JVM's process id, once the session exists (for the stalled-test report below).
_session_jvm_pid: list = []

# A test still running this long is reported while it runs (the per-test timeout fails it later): the
# test's name, the Python threads' stacks and the session JVM's busy threads go to the run's output.
_STALL_REPORT_SECONDS = int(os.environ.get("LAMINA_STALL_REPORT_SECONDS", "600"))


def _report_stall(config, nodeid: str, seconds: int) -> None:
    """Writes what a stalled test is doing to the run's own stderr, past pytest's capture: a hang
    inside the session JVM would otherwise show nothing until the run's time is up."""
    import faulthandler
    import subprocess
    import tempfile

    lines = [f"=== lamina: {nodeid} still running after {seconds} s ==="]
    with tempfile.TemporaryFile(mode="w+") as stacks:
        faulthandler.dump_traceback(stacks, all_threads=True)
        stacks.seek(0)
        lines += ["--- Python threads:", stacks.read()]
    jcmd = shutil.which("jcmd") or (os.path.join(os.environ["JAVA_HOME"], "bin", "jcmd")
                                    if os.environ.get("JAVA_HOME") else None)
    if _session_jvm_pid and jcmd:
        try:
            dump = subprocess.run([jcmd, str(_session_jvm_pid[0]), "Thread.print"], capture_output=True,
                                  text=True, timeout=60).stdout
            # the busy threads of Lamina's code, Spark's tasks and py4j's commands, a few frames each (the
            # whole dump is thousands of lines): not idle pool threads nor sockets waiting for a command
            def idle(thread):
                top = "\n".join(thread.splitlines()[:4])
                return "ThreadPoolExecutor.getTask" in thread or "SocketDispatcher.read0" in top or "Net.accept" in top
            kept = [t.strip().splitlines()[:16] for t in dump.split("\n\n")
                    if ("lamina." in t or "Executor task launch" in t or '"Thread-' in t) and not idle(t)]
            lines += ["--- busy session JVM threads (Lamina, tasks, py4j commands):"] + ["\n".join(t) for t in kept[:30]]
        except Exception as e:  # noqa: BLE001 - a report must not fail the run
            lines.append(f"--- jcmd failed: {e!r}")
    capman = config.pluginmanager.getplugin("capturemanager")
    if capman:
        capman.suspend_global_capture(in_=True)
    try:
        sys.stderr.write("\n".join(lines) + "\n")
        sys.stderr.flush()
    finally:
        if capman:
            capman.resume_global_capture()


@pytest.fixture(autouse=True)
def _stalled_test_report(request):
    """Reports a test that runs past _STALL_REPORT_SECONDS while it runs, its fixtures' teardown
    included: a teardown blocked on a hung session JVM outlives the per-test timeout, and the test's
    failure is printed only once its teardown ends."""
    import threading

    # once while it runs, and once more should its teardown outlive the per-test timeout
    limit = request.config.getoption("timeout", None) or 0
    times = [_STALL_REPORT_SECONDS] + ([int(limit) + 180] if limit else [])
    timers = [threading.Timer(t, _report_stall, args=(request.config, request.node.nodeid, t)) for t in times]
    for timer in timers:
        timer.daemon = True
        timer.start()
    yield
    for timer in timers:
        timer.cancel()


@pytest.fixture
def db(spark, request) -> str:
    """A new, empty namespace for one test; dropped with everything in it afterwards."""
    module = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    name = f"{module}_{next(_namespace_counter)}"
    spark.sql(f"CREATE NAMESPACE {CATALOG}.{name}")
    yield name
    try:
        spark.sql(f"DROP NAMESPACE IF EXISTS {CATALOG}.{name} CASCADE")
    except Exception:  # a failing drop must not hide the test's own result
        pass


@pytest.fixture
def paimon_catalog(warehouse):
    """pypaimon's filesystem catalog on the same warehouse, the interop oracle."""
    from pypaimon import CatalogFactory

    return CatalogFactory.create({"warehouse": warehouse})
