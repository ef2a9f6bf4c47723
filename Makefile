# Lamina: every command a user or CI needs. Needs only Java 17, Maven, python3 (3.10+) and make;
# everything else is installed from the package registries.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SBT := project/sbt.sh
JAR_BUILT := target/scala-2.13/lamina.jar
JAR_PKG := python/lamina/jars/lamina.jar
VENV_STAMP := $(VENV)/.lamina-installed

# Pinned so that a fresh machine gets what the tests were written against.
PY_DEPS := "pyspark[connect]==4.0.4" grpcio==1.85.3 grpcio-status==1.85.3 googleapis-common-protos==1.76.0 pypaimon==2.1.0 pytest==9.2.0 pytest-timeout==2.4.0 pytest-xdist==3.8.0 pyarrow==19.0.1 pyroaring==1.2.0 pandas==2.3.3 "moto[server]==5.2.5" boto3==1.44.8

# A test that runs longer than this fails, with the stacks of its threads, instead of stalling the run.
TEST_TIMEOUT := 900
# The pytest suite runs in this many worker processes, each with its own Spark session, a test module
# per worker at a time (its module fixtures are built once). Much of a small query's time is spent
# waiting (py4j, the scheduler, spawned JVMs), so two workers finish sooner on two cores.
PYTEST_WORKERS := 2
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadfile
# Suites that only `make stress` runs (each takes minutes; `make test` covers their subject with shorter tests).
STRESS_ONLY := tests/test_concurrency_s3.py

.PHONY: help venv jar wheel test pytest stress demo bench bench-large bench-jars s3-jars docs clean distclean servers

help:
	@echo "make demo   install everything, build the jar, run examples/quickstart.py on a temp warehouse"
	@echo "make test   install everything, build the jar, check the layer rules and the Scala formatting, run the JVM tests and the pytest suite"
	@echo "make venv   create $(VENV) with PySpark, pypaimon, pytest and the lamina package"
	@echo "make jar    build the assembly jar and copy it into the Python package"
	@echo "make wheel  build dist/lamina-<version>-py3-none-any.whl, the Python package with the jar inside"
	@echo "make stress the long concurrency suite: more writer processes and operations against the model"
	@echo "make bench  run the benchmarks (results under bench/results)"
	@echo "make bench-large  100 M rows and five rounds of 10 M in a 4 GB JVM: time, peak heap and spill per phase"
	@echo "make clean  remove build outputs (distclean also removes $(VENV) and .cache)"

venv: $(VENV_STAMP)

$(VENV_STAMP): Makefile python/pyproject.toml
	@if [ ! -x "$(PY)" ]; then \
	  $(PYTHON) -m venv $(VENV) || { \
	    echo "python3 -m venv failed; trying virtualenv" >&2; \
	    $(PYTHON) -m pip install --user --quiet virtualenv && $(PYTHON) -m virtualenv $(VENV); }; \
	fi
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(PY_DEPS)
	$(PY) -m pip install --quiet -e python
	@touch $@

# The servers the tests start on loopback: PostgreSQL (the JDBC metastore's tests run initdb and pg_ctl
# from Debian's package), installed here where it is missing.
servers:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  echo "installing PostgreSQL for the metastore tests" >&2; \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql; \
	fi

# Hadoop's S3A connector for Spark 4.0's Hadoop 3.4.1 and the AWS SDK bundle it was built with: the jars a
# user adds for s3:// warehouses (docs/storage.md), fetched through Maven for the S3 tests.
HADOOP_AWS_VERSION := 3.4.1
AWS_SDK_VERSION := 2.24.6
S3_JARS := .cache/s3-jars
S3_JAR_FILES := $(S3_JARS)/hadoop-aws-$(HADOOP_AWS_VERSION).jar $(S3_JARS)/bundle-$(AWS_SDK_VERSION).jar

$(S3_JARS)/hadoop-aws-$(HADOOP_AWS_VERSION).jar:
	mvn -q -B dependency:copy -Dartifact=org.apache.hadoop:hadoop-aws:$(HADOOP_AWS_VERSION) -DoutputDirectory=$(S3_JARS)

$(S3_JARS)/bundle-$(AWS_SDK_VERSION).jar:
	mvn -q -B dependency:copy -Dartifact=software.amazon.awssdk:bundle:$(AWS_SDK_VERSION) -DoutputDirectory=$(S3_JARS)

s3-jars: $(S3_JAR_FILES)

jar:
	$(SBT) assembly
	@mkdir -p $(dir $(JAR_PKG))
	cp $(JAR_BUILT) $(JAR_PKG)

# The Python package with the jar inside: `pip install pyspark==4.0.* dist/lamina-*.whl` is all a user needs.
wheel: venv jar
	rm -rf dist
	$(PY) -m pip wheel --quiet --no-deps --wheel-dir dist ./python

test: venv servers s3-jars jar
	$(PYTHON) tools/check_layers.py
	$(SBT) scalafmtCheckAll scalafmtSbtCheck test
	$(PY) -m pytest tests -q --durations=25 --timeout=$(TEST_TIMEOUT) $(PYTEST_PARALLEL) $(addprefix --ignore=,$(STRESS_ONLY))

# The Python tests alone, against the jar already in the package (no sbt).
pytest: venv servers s3-jars
	$(PY) -m pytest tests -q --timeout=$(TEST_TIMEOUT) $(PYTEST_PARALLEL) $(addprefix --ignore=,$(STRESS_ONLY))

# The long suites, and the concurrency, corruption and property suites of `make test` longer: 4 writer
# processes of 60 operations each per table kind, 4 of 25 each against the catalogs with the commit lock
# and on an S3 server, every third byte of a data file flipped, longer random histories, the random
# histories of postponed buckets, rescales and cross-partition upserts for every merge engine with
# deletion vectors on and off.
stress: venv servers s3-jars jar
	LAMINA_STRESS=1 $(PY) -m pytest tests/test_concurrency_model.py tests/test_compaction_races.py tests/test_streaming_kill.py \
	  tests/test_concurrency_metastores.py tests/test_concurrency_s3.py tests/test_corrupt_data_files.py \
	  tests/test_metadata_fuzz.py tests/test_changelog_property.py tests/test_merge_key_filter.py \
	  tests/test_postpone_compact.py tests/test_rescale.py tests/test_cross_partition.py -q

demo: venv jar
	@wh="$$(mktemp -d)"; trap 'rm -rf "$$wh"' EXIT; \
	  echo "warehouse: $$wh/warehouse"; \
	  $(PY) examples/quickstart.py "$$wh/warehouse"

# Delta Lake, the primary-key benchmark's second baseline (bench only; fetched through Maven like sbt).
DELTA_VERSION := 4.0.0
BENCH_JARS := .cache/bench-jars
DELTA_JARS := $(BENCH_JARS)/delta-spark_2.13-$(DELTA_VERSION).jar $(BENCH_JARS)/delta-storage-$(DELTA_VERSION).jar

$(BENCH_JARS)/delta-spark_2.13-$(DELTA_VERSION).jar:
	mvn -q -B dependency:copy -Dartifact=io.delta:delta-spark_2.13:$(DELTA_VERSION) -DoutputDirectory=$(BENCH_JARS)

$(BENCH_JARS)/delta-storage-$(DELTA_VERSION).jar:
	mvn -q -B dependency:copy -Dartifact=io.delta:delta-storage:$(DELTA_VERSION) -DoutputDirectory=$(BENCH_JARS)

bench-jars: $(DELTA_JARS)

bench: venv servers s3-jars jar
	@$(MAKE) --no-print-directory bench-jars || echo "Delta's jars could not be fetched: the primary-key benchmark runs without its Delta baseline" >&2
	@mkdir -p bench/results
	@for f in bench/*.py; do \
	  [ -e "$$f" ] || continue; \
	  echo "== $$f"; $(PY) "$$f"; \
	done
	$(SBT) "bench/runMain lamina.bench.LookupBench --out bench/results"

# The primary-key table at scale in a bounded heap (long: about half an hour on two cores).
bench-large: venv jar
	@mkdir -p bench/results
	$(PY) bench/large/pk_large.py

# Regenerates docs/options.md from the option registry (a JVM test checks it is current). Run on the
# test classpath, which holds the libraries Spark provides (the registry's lookup codecs among them).
docs: venv
	$(SBT) "Test/runMain lamina.tools.OptionsDoc docs/options.md"
	$(PY) tools/python_doc.py docs/python.md

clean:
	rm -rf target project/target dist python/lamina/jars python/build python/*.egg-info \
	  .pytest_cache tests/__pycache__ python/lamina/__pycache__ spark-warehouse metastore_db derby.log bench/work

distclean: clean
	rm -rf $(VENV) .cache
