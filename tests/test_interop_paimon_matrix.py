"""Lamina and Apache Paimon's own Spark connector on one warehouse, both ways, for every table kind
Lamina supports: append tables of every data type in Parquet and ORC, partitioned by every partition
type, fixed and dynamic buckets, each merge engine, a sequence field in either order, schema evolution, each side's compaction and
time travel. For each table, its creator writes (and compacts primary-key tables), the other side
reads it (latest and first snapshot) and writes into it (and compacts), and the creator reads the
result; every read is checked against a result computed here. Two runs of Paimon's connector in all.
Skipped, saying so, where the connector's jar is absent."""

import pytest

from paimon_connector import require_paimon, run_sql

NS = "interop_matrix"

# Every column of the types tables, rendered as text the same way by both engines' SQL.
TYPE_COLUMNS = ("id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, d DOUBLE, "
                "dec1 DECIMAL(10, 2), dec2 DECIMAL(30, 5), s STRING, c CHAR(4), vc VARCHAR(8), bin BINARY, "
                "dt DATE, ts TIMESTAMP, tn TIMESTAMP_NTZ, arr ARRAY<INT>, m MAP<STRING, INT>, "
                "st STRUCT<x: INT, y: STRING>")
TYPE_RENDER = ("id, CAST(b AS STRING), CAST(ti AS STRING), CAST(si AS STRING), CAST(bi AS STRING), "
               "CAST(f AS STRING), CAST(d AS STRING), CAST(dec1 AS STRING), CAST(dec2 AS STRING), s, c, vc, "
               "hex(bin), CAST(dt AS STRING), CAST(ts AS STRING), CAST(tn AS STRING), to_json(arr), to_json(m), "
               "to_json(st)")
# (SQL literal row, expected rendering)
TYPE_ROWS = [
    ("(1, true, 1, 2, 3, 1.5, 2.25, 12.34BD, 12345678901234567890.12345BD, 'x', 'ab', 'hello', X'CAFE', "
     "DATE'2024-01-01', TIMESTAMP'2024-01-01 12:30:00.123456', TIMESTAMP_NTZ'2024-01-01 12:30:00.123456', "
     "array(1, 2), map('a', 1), named_struct('x', 1, 'y', 's'))",
     [1, "true", "1", "2", "3", "1.5", "2.25", "12.34", "12345678901234567890.12345", "x", "ab  ", "hello", "CAFE",
      "2024-01-01", "2024-01-01 12:30:00.123456", "2024-01-01 12:30:00.123456", "[1,2]", '{"a":1}', '{"x":1,"y":"s"}']),
    ("(2, false, -128, -32768, -9223372036854775808, -0.5, -1.0E300, -0.01BD, -0.00001BD, '', 'abcd', '', X'', "
     "DATE'1969-12-31', TIMESTAMP'1969-12-31 23:59:59.5', TIMESTAMP_NTZ'2262-04-11 23:47:16', "
     "array(), map(), named_struct('x', -1, 'y', ''))",
     [2, "false", "-128", "-32768", "-9223372036854775808", "-0.5", "-1.0E300", "-0.01", "-0.00001", "", "abcd", "",
      "", "1969-12-31", "1969-12-31 23:59:59.5", "2262-04-11 23:47:16", "[]", "{}", '{"x":-1,"y":""}']),
    ("(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
     [3] + [None] * 18),
]
TYPE_ROWS_2 = [
    ("(4, true, 4, 4, 4, 4.0, 4.0, 4.00BD, 4.00000BD, 'four', 'd', 'four', X'04', DATE'2030-06-30', "
     "TIMESTAMP'2030-06-30 00:00:00', TIMESTAMP_NTZ'2030-06-30 00:00:00', array(4, NULL), map('d', NULL), "
     "named_struct('x', NULL, 'y', 'n'))",
     [4, "true", "4", "4", "4", "4.0", "4.0", "4.00", "4.00000", "four", "d   ", "four", "04", "2030-06-30",
      "2030-06-30 00:00:00", "2030-06-30 00:00:00", "[4,null]", '{"d":null}', '{"y":"n"}']),
]


class Kind:
    """A table kind: its definition, the writes of its creator (first) and of the other side
    (second), and the rows a read returns after each, computed here."""

    def __init__(self, name, columns, props, render, order, first, second, expected_first_snapshot, expected_after_first,
                 expected_after_second, pk=False, partitioned_by="", render_first=None):
        self.name, self.columns, self.props, self.render, self.order = name, columns, props, render, order
        self.render_first = render_first or render
        self.first, self.second, self.pk, self.partitioned_by = first, second, pk, partitioned_by
        self.expected = (expected_first_snapshot, expected_after_first, expected_after_second)

    def create(self, table):
        part = f" PARTITIONED BY ({self.partitioned_by})" if self.partitioned_by else ""
        props = ", ".join(f"'{k}' = '{v}'" for k, v in self.props.items())
        return f"CREATE TABLE {table} ({self.columns}){part}" + (f" TBLPROPERTIES ({props})" if props else "")

    def select(self, table, version=None):
        at = f" VERSION AS OF {version}" if version else ""
        return f"SELECT {self.render_first if version else self.render} FROM {table}{at} ORDER BY {self.order}"


def _inserts(table, rows):
    return [f"INSERT INTO {table} VALUES " + ", ".join(r for r, _ in rows)]


# ORC's Java library (Paimon's writer and reader as well as Lamina's) stores a timestamp between -1 s and
# 0 s with its sign lost: 1969-12-31 23:59:59.5 reads back as 1970-01-01 00:00:00.5 in both engines,
# whichever wrote it (a defect of ORC's timestamp encoding, listed in the README)
ORC_SIGN_LOST = {"1969-12-31 23:59:59.5": "1970-01-01 00:00:00.5"}


def _types_kind(fmt):
    expected_first = [e for _, e in TYPE_ROWS]
    if fmt == "orc":
        expected_first = [[ORC_SIGN_LOST.get(v, v) for v in row] for row in expected_first]
    return Kind(f"types_{fmt}", TYPE_COLUMNS, {"file.format": fmt}, TYPE_RENDER, "id",
                first=lambda t: _inserts(t, TYPE_ROWS), second=lambda t: _inserts(t, TYPE_ROWS_2),
                expected_first_snapshot=expected_first, expected_after_first=expected_first,
                expected_after_second=expected_first + [e for _, e in TYPE_ROWS_2])


def _merge_model(engine, batches, key, seq=None, descending=False):
    """The rows of a primary-key table after `batches` (lists of dict rows; a row with `__delete__`
    deletes its key), merged by `engine`; with `seq`, the row with the higher value (the lower when
    `descending`) wins, a tie goes to the later row."""
    state = {}
    for batch in batches:
        for row in batch:
            k = tuple(row[c] for c in key)
            if row.get("__delete__"):
                state.pop(k, None)
                continue
            old = state.get(k)
            if old is None:
                state[k] = dict(row)
            elif engine == "deduplicate":
                if seq is None or (row[seq] <= old[seq] if descending else row[seq] >= old[seq]):
                    state[k] = dict(row)
            elif engine == "partial-update":
                state[k] = {c: (v if v is not None else old[c]) for c, v in row.items()}
            elif engine == "aggregation":
                merged = dict(old)
                for c, v in row.items():
                    if c in key or v is None:
                        continue
                    if c == "total":
                        merged[c] = v if old[c] is None else old[c] + v
                    elif c == "mx":
                        merged[c] = v if old[c] is None else max(old[c], v)
                    else:
                        merged[c] = v
                state[k] = merged
            elif engine == "first-row":
                pass
    return [state[k] for k in sorted(state)]


def _values(rows, columns):
    def lit(v):
        if v is None:
            return "NULL"
        return f"'{v}'" if isinstance(v, str) else str(v)
    return ", ".join("(" + ", ".join(lit(r[c]) for c in columns) + ")" for r in rows)


def _pk_kind(name, engine, props=None, seq=None, partitioned=False):
    descending = (props or {}).get("sequence.field.sort-order") == "descending"
    cols = ["p", "id", "v", "total", "mx", "ver"] if partitioned else ["id", "v", "total", "mx", "ver"]
    key = ["p", "id"] if partitioned else ["id"]
    ddl = ("p STRING NOT NULL, " if partitioned else "") + "id INT NOT NULL, v STRING, total BIGINT, mx INT, ver INT"
    options = {"primary-key": ",".join(key), "bucket": "2", "merge-engine": engine}
    if engine == "aggregation":
        options.update({"fields.total.aggregate-function": "sum", "fields.mx.aggregate-function": "max"})
    if seq:
        options["sequence.field"] = seq
    options.update(props or {})

    def row(i, v, total, mx, ver, p="a"):
        r = {"id": i, "v": v, "total": total, "mx": mx, "ver": ver}
        if partitioned:
            r["p"] = p
        return r

    b1 = [row(i, f"v{i}", i, i, 1, "a" if i % 2 else "b") for i in range(1, 11)]
    # updates of half the keys, some fields null (partial-update keeps the old ones), lower versions
    # for some keys (a sequence field keeps the higher)
    b2 = [row(i, None if i % 4 == 0 else f"w{i}", 10, 20 - i, 0 if i % 3 == 0 else 2, "a" if i % 2 else "b")
          for i in range(1, 11, 2)] + [row(i, f"n{i}", 1, 1, 1, "b") for i in (12, 14)]
    b3 = [row(i, f"z{i}", 100, 5, 3, "a" if i % 2 else "b") for i in (1, 2, 12, 20)]
    deletes = engine == "deduplicate" and not seq
    del_keys = [(("a" if 3 % 2 else "b"), 3)] if partitioned else [(3,)]

    def render(rows):
        return [[r[c] if c in ("id",) else (None if r[c] is None else str(r[c])) for c in cols] for r in rows]

    def statements(batches):
        def go(t):
            out = []
            for b in batches:
                out.append(f"INSERT INTO {t} VALUES {_values(b, cols)}")
            return out
        return go

    first_batches = [b1, b2]
    after_first = _merge_model(engine, first_batches, key, seq, descending)
    second = [b3]
    if deletes:
        cond = " AND ".join(f"{c} = {repr(v) if isinstance(v, str) else v}" for c, v in zip(key, del_keys[0]))
        second_batches = first_batches + [b3, [{**dict(zip(key, del_keys[0])), "__delete__": True}]]

        def second_statements(t):
            return statements(second)(t) + [f"DELETE FROM {t} WHERE {cond}"]
    else:
        second_batches = first_batches + second
        second_statements = statements(second)
    render_sql = ", ".join(c if c == "id" else f"CAST({c} AS STRING)" for c in cols)
    # readers of first-row and deletion-vector tables skip level 0 (Paimon's rule, and Lamina's): the
    # first snapshot, a write before its compaction, reads empty in both
    skips_level0 = engine == "first-row" or (props or {}).get("deletion-vectors.enabled") == "true"
    first_snapshot = [] if skips_level0 else render(_merge_model(engine, [b1], key, seq, descending))
    return Kind(name, ddl, options, render_sql, ", ".join(key), first=statements(first_batches), second=second_statements,
                expected_first_snapshot=first_snapshot,
                expected_after_first=render(after_first),
                expected_after_second=render(_merge_model(engine, second_batches, key, seq, descending)),
                pk=True, partitioned_by="p" if partitioned else "")


def _partition_kind():
    cols = "id INT, p_s STRING, p_i INT, p_bi BIGINT, p_d DATE, p_bool BOOLEAN, p_ti TINYINT, p_ts TIMESTAMP, " \
           "p_tn TIMESTAMP_NTZ, p_dec DECIMAL(10, 2), p_si SMALLINT"
    parts = "p_s, p_i, p_bi, p_d, p_bool, p_ti, p_ts, p_tn, p_dec, p_si"
    rows = [
        ("(1, 'a', 1, 10, DATE'2024-01-01', true, 1, TIMESTAMP'2024-01-01 12:30:00', TIMESTAMP_NTZ'2024-01-01 12:30:05.5', "
         "1.50BD, 7)", [1, "a", "1", "10", "2024-01-01", "true", "1", "2024-01-01 12:30:00", "2024-01-01 12:30:05.5", "1.50", "7"]),
        ("(2, NULL, -1, -10, DATE'1969-12-31', false, -1, TIMESTAMP'1969-12-31 23:59:59', TIMESTAMP_NTZ'1970-01-01 00:00:00', "
         "-0.01BD, -7)", [2, None, "-1", "-10", "1969-12-31", "false", "-1", "1969-12-31 23:59:59", "1970-01-01 00:00:00",
                          "-0.01", "-7"]),
        ("(3, 'a b/c=d%e', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)", [3, "a b/c=d%e"] + [None] * 9),
    ]
    more = [("(4, 'a', 1, 10, DATE'2024-01-01', true, 1, TIMESTAMP'2024-01-01 12:30:00', TIMESTAMP_NTZ'2024-01-01 12:30:05.5', "
             "1.50BD, 7)", [4, "a", "1", "10", "2024-01-01", "true", "1", "2024-01-01 12:30:00", "2024-01-01 12:30:05.5",
                            "1.50", "7"])]
    render = ("id, p_s, CAST(p_i AS STRING), CAST(p_bi AS STRING), CAST(p_d AS STRING), CAST(p_bool AS STRING), "
              "CAST(p_ti AS STRING), CAST(p_ts AS STRING), CAST(p_tn AS STRING), CAST(p_dec AS STRING), CAST(p_si AS STRING)")
    first = [e for _, e in rows]
    return Kind("partitioned", cols, {}, render, "id", first=lambda t: _inserts(t, rows), second=lambda t: _inserts(t, more),
                expected_first_snapshot=first, expected_after_first=first,
                expected_after_second=first + [e for _, e in more], partitioned_by=parts)


def _bucketed_kind():
    rows = [(f"({i}, 'r{i}')", [i, f"r{i}"]) for i in range(1, 9)]
    more = [(f"({i}, 's{i}')", [i, f"s{i}"]) for i in (1, 20)]
    first = [e for _, e in rows]
    return Kind("bucketed", "id INT, v STRING", {"bucket": "2", "bucket-key": "id"}, "id, v", "id, v",
                first=lambda t: _inserts(t, rows[:4]) + _inserts(t, rows[4:]), second=lambda t: _inserts(t, more),
                expected_first_snapshot=first[:4], expected_after_first=first,
                expected_after_second=sorted(first + [e for _, e in more]))


def _evolved_kind():
    """The creator adds a column between its two writes; the other side writes the new layout."""
    def first(t):
        return [f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')", f"ALTER TABLE {t} ADD COLUMN extra STRING",
                f"INSERT INTO {t} VALUES (2, 'bb', 'x'), (3, 'c', NULL)"]
    return Kind("evolved", "id INT NOT NULL, v STRING", {"primary-key": "id", "bucket": "1"}, "id, v, extra", "id",
                first=first, second=lambda t: [f"INSERT INTO {t} VALUES (1, 'aa', 'y'), (4, 'd', 'z')"],
                expected_first_snapshot=[[1, "a"], [2, "b"]],
                expected_after_first=[[1, "a", None], [2, "bb", "x"], [3, "c", None]],
                expected_after_second=[[1, "aa", "y"], [2, "bb", "x"], [3, "c", None], [4, "d", "z"]], pk=True,
                render_first="id, v")


KINDS = [
    _types_kind("parquet"), _types_kind("orc"), _types_kind("avro"), _partition_kind(), _bucketed_kind(),
    _pk_kind("dedup", "deduplicate", partitioned=True), _pk_kind("dedup_orc", "deduplicate", {"file.format": "orc"}),
    _pk_kind("dedup_avro", "deduplicate", {"file.format": "avro"}),
    _pk_kind("partial", "partial-update"), _pk_kind("agg", "aggregation"), _pk_kind("first", "first-row"),
    _pk_kind("seq", "deduplicate", seq="ver"),
    _pk_kind("seq_desc", "deduplicate", {"sequence.field.sort-order": "descending"}, seq="ver"), _evolved_kind(),
    _pk_kind("dynamic", "deduplicate", {"bucket": "-1"}, partitioned=True),
    _pk_kind("dynamic_small", "partial-update", {"bucket": "-1", "dynamic-bucket.target-row-num": "3"}),
    _pk_kind("dynamic_dv", "deduplicate", {"bucket": "-1", "dynamic-bucket.target-row-num": "2",
                                           "deletion-vectors.enabled": "true"}),
]


# Tables that Paimon creates with a feature Lamina lacks: (table, properties, whether Lamina refuses
# reads, whether it refuses writes and compaction, the option its refusals name). Each is written by
# Paimon; Lamina refuses what the feature would make wrong and does the rest.
FEATURE_TABLES = [
    ("f_thin", {"primary-key": "id", "bucket": "1", "data-file.thin-mode": "true"}, True, True, "data-file.thin-mode"),
    ("f_stored_scan", {"primary-key": "id", "bucket": "1", "scan.mode": "compacted-full"}, True, False, "scan.mode"),
]


def _feature_statements():
    out = []
    for name, props, _, _, _ in FEATURE_TABLES:
        p = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
        out += [f"CREATE TABLE paimon.{NS}.{name} (id INT NOT NULL, v INT) TBLPROPERTIES ({p})",
                f"INSERT INTO paimon.{NS}.{name} VALUES (1, 1), (2, 2)"]
    return out


def _compact(catalog, kind, table):
    return [f"CALL {catalog}.sys.compact(table => '{NS}.{table}')"] if kind.pk else []


@pytest.fixture(scope="module")
def exchange(spark, warehouse):
    """Runs the whole exchange once; returns {(creator, kind): [reads...]} with each read's rows."""
    require_paimon()
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS lamina.{NS}")

    def lamina_rows(query):
        return [list(r) for r in spark.sql(query).collect()]

    reads = {}
    # 1. Lamina creates, writes and compacts its tables
    for k in KINDS:
        t = f"lamina.{NS}.l_{k.name}"
        for s in [k.create(t)] + k.first(t) + _compact("lamina", k, f"l_{k.name}"):
            spark.sql(s)
    # 2. Paimon reads them (first snapshot and latest), writes into them and compacts; creates,
    #    writes and compacts its own
    statements, slots = [], []
    for k in KINDS:
        t = f"paimon.{NS}.l_{k.name}"
        statements += [k.select(t, version=1), k.select(t)]
        slots += [("lamina", k.name, "paimon reads v1"), ("lamina", k.name, "paimon reads")]
        for s in k.second(t) + _compact("paimon", k, f"l_{k.name}"):
            statements.append(s)
            slots.append(None)
    for k in KINDS:
        t = f"paimon.{NS}.p_{k.name}"
        for s in [k.create(t)] + k.first(t) + _compact("paimon", k, f"p_{k.name}"):
            statements.append(s)
            slots.append(None)
    for s in _feature_statements():
        statements.append(s)
        slots.append(None)
    results = run_sql(warehouse, statements)
    for slot, rows in zip(slots, results):
        if slot:
            reads[slot] = rows
    # 3. Lamina reads what Paimon wrote into its tables, reads Paimon's tables, writes into them and compacts
    for k in KINDS:
        reads[("lamina", k.name, "lamina reads after paimon")] = lamina_rows(k.select(f"lamina.{NS}.l_{k.name}"))
        t = f"lamina.{NS}.p_{k.name}"
        reads[("paimon", k.name, "lamina reads v1")] = lamina_rows(k.select(t, version=1))
        reads[("paimon", k.name, "lamina reads")] = lamina_rows(k.select(t))
        for s in k.second(t) + _compact("lamina", k, f"p_{k.name}"):
            spark.sql(s)
    # 4. Paimon reads what Lamina wrote into its tables
    statements = [k.select(f"paimon.{NS}.p_{k.name}") for k in KINDS]
    for k, rows in zip(KINDS, run_sql(warehouse, statements)):
        reads[("paimon", k.name, "paimon reads after lamina")] = rows
    return reads


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_lamina_writes_paimon_reads_and_writes_lamina_reads(exchange, kind):
    first_snapshot, after_first, after_second = kind.expected
    assert exchange[("lamina", kind.name, "paimon reads v1")] == first_snapshot
    assert exchange[("lamina", kind.name, "paimon reads")] == after_first
    assert exchange[("lamina", kind.name, "lamina reads after paimon")] == after_second


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_paimon_writes_lamina_reads_and_writes_paimon_reads(exchange, kind):
    first_snapshot, after_first, after_second = kind.expected
    assert exchange[("paimon", kind.name, "lamina reads v1")] == first_snapshot
    assert exchange[("paimon", kind.name, "lamina reads")] == after_first
    assert exchange[("paimon", kind.name, "paimon reads after lamina")] == after_second


@pytest.mark.parametrize("name,props,refuses_reads,refuses_writes,key", FEATURE_TABLES, ids=[f[0] for f in FEATURE_TABLES])
def test_paimon_features_lamina_lacks_are_refused_by_name(spark, exchange, name, props, refuses_reads, refuses_writes, key):
    import lamina
    from _support import error_text

    table = f"lamina.{NS}.{name}"

    def refused(statement):
        with pytest.raises(lamina.BadInputException) as excinfo:
            spark.sql(statement).collect()
        assert f"'{key}'" in error_text(excinfo), statement

    def rows():
        return sorted(tuple(r) for r in spark.sql(f"SELECT id, v FROM {table}").collect())

    writes = [f"INSERT INTO {table} VALUES (3, 3)", f"CALL lamina.sys.compact(table => '{NS}.{name}')"]
    if refuses_reads:
        refused(f"SELECT * FROM {table}")
    else:
        assert rows() == [(1, 1), (2, 2)]
    for statement in writes:
        if refuses_writes:
            refused(statement)
        else:
            spark.sql(statement).collect()
    if not refuses_reads:
        assert rows() == [(1, 1), (2, 2)] + ([] if refuses_writes else [(3, 3)])
