"""The aggregate functions of the aggregation merge engine over values with a structure of their own:
unions of serialized sets and sketches in BYTES columns (rbm32, rbm64, hll_sketch, theta_sketch),
nested tables (nested_update) and maps of timed rows (merge_map_with_keytime), with Apache Paimon's
semantics and value layouts, so that Paimon's own connector and Lamina share such tables."""

import pytest
from pyroaring import BitMap

from _support import error_text, sql_rows, table_path
from paimon_connector import require_paimon, run_sql

CAT = "lamina"
BIG = 1 << 40  # beyond 32 bits


def create(spark, db, columns, props, table="t"):
    name = f"{CAT}.{db}.{table}"
    options = ", ".join(f"'{k}' = '{v}'" for k, v in {"bucket": "1", "primary-key": "id",
                                                       "merge-engine": "aggregation", **props}.items())
    spark.sql(f"CREATE TABLE {name} ({columns}) TBLPROPERTIES ({options})")
    return name


def compact_full(spark, name):
    table = name.split(".", 1)[1]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{table}', compact_strategy => 'full')")


def binary(b):
    return "NULL" if b is None else f"X'{bytes(b).hex()}'"


# Serialized values built and read with the libraries Paimon uses: pyroaring writes RoaringBitmap's
# portable layout; the 64-bit bitmaps (Roaring64Bitmap's own layout) and theta sketches are built in
# the session's JVM, which has the jars Spark ships.

def rbm32(values):
    return BitMap(values).serialize()


def rbm32_values(b):
    return sorted(BitMap.deserialize(bytes(b)))


def rbm64(spark, *ranges):
    jvm = spark._jvm
    bitmap = jvm.org.roaringbitmap.longlong.Roaring64Bitmap()
    for start, end in ranges:
        bitmap.addRange(start, end)
    bitmap.runOptimize()
    out = jvm.java.io.ByteArrayOutputStream()
    bitmap.serialize(jvm.java.io.DataOutputStream(out))
    return bytes(out.toByteArray())


def rbm64_values(spark, b):
    jvm = spark._jvm
    bitmap = jvm.org.roaringbitmap.longlong.Roaring64Bitmap()
    bitmap.deserialize(jvm.java.io.DataInputStream(jvm.java.io.ByteArrayInputStream(bytearray(b))))
    return list(bitmap.toArray())


def theta(spark, values):
    sketch = spark._jvm.org.apache.datasketches.theta.UpdateSketch.builder().build()
    for v in values:
        sketch.update(str(v))
    return bytes(sketch.compact().toByteArray())


def theta_estimate(spark, b):
    jvm = spark._jvm
    return jvm.org.apache.datasketches.theta.Sketches.getEstimate(jvm.org.apache.datasketches.memory.Memory.wrap(bytearray(b)))


def hll(start, end):
    """A DataSketches HLL sketch of the numbers in [start, end), built by Spark's own function."""
    return f"(SELECT hll_sketch_agg(id) FROM range({start}, {end}))"


def near(estimate, exact, rel=0.03):
    return abs(estimate - exact) <= exact * rel


UNION_COLUMNS = "id INT NOT NULL, r32 BINARY, r64 BINARY, h BINARY, th BINARY"
UNION_FUNCTIONS = {"r32": "rbm32", "r64": "rbm64", "h": "hll_sketch", "th": "theta_sketch"}


def union_row(id_, r32, r64, h, th, *more):
    return ", ".join([str(id_), binary(r32), binary(r64), h or "CAST(NULL AS BINARY)", binary(th), *more])


def test_unions_of_bitmaps_and_sketches(spark, db):
    props = {f"fields.{c}.aggregate-function": f for c, f in UNION_FUNCTIONS.items()}
    name = create(spark, db, UNION_COLUMNS + ", op STRING", {**props, "rowkind.field": "op"})
    only = rbm32([7, 70000])
    batches = [
        [union_row(1, rbm32([1, 2, 3]), rbm64(spark, (0, 100)), hll(0, 1000), theta(spark, range(0, 200)), "'+I'"),
         union_row(2, only, None, None, None, "'+I'")],
        [union_row(1, rbm32([3, 4]), rbm64(spark, (BIG, BIG + 10)), hll(500, 1500), theta(spark, range(100, 300)), "'+I'"),
         union_row(2, None, rbm64(spark, (5, 6)), hll(0, 10), None, "'+I'")],
    ]
    for rows in batches:
        spark.sql(f"INSERT INTO {name} " + " UNION ALL ".join(f"SELECT {r}" for r in rows))

    def check(r32_1, r64_1, distinct_1):
        rows = spark.sql(f"SELECT id, r32, r64, hll_sketch_estimate(h) AS h, th FROM {name} ORDER BY id").collect()
        one, two = rows
        assert rbm32_values(one.r32) == r32_1
        assert rbm64_values(spark, one.r64) == r64_1
        assert near(one.h, distinct_1), one.h
        assert theta_estimate(spark, one.th) == 300.0  # exact below 4096 distinct values
        # a value fed once is kept byte for byte; NULLs are skipped
        assert bytes(two.r32) == only and rbm64_values(spark, two.r64) == [5]
        assert two.h == 10 and two.th is None

    check([1, 2, 3, 4], list(range(100)) + list(range(BIG, BIG + 10)), 1500)
    compact_full(spark, name)
    check([1, 2, 3, 4], list(range(100)) + list(range(BIG, BIG + 10)), 1500)
    # a write after compaction folds into the compacted value
    spark.sql(f"INSERT INTO {name} SELECT " + union_row(1, rbm32([100]), rbm64(spark, (99, 101)), hll(1000, 2000), None,
                                                       "'+I'"))
    check([1, 2, 3, 4, 100], list(range(101)) + list(range(BIG, BIG + 10)), 2000)

    # the unions cannot retract: a -U is refused when written, naming the column and the option to set
    retract = f"INSERT INTO {name} SELECT " + union_row(1, rbm32([1]), None, None, None, "'-U'")
    with pytest.raises(Exception) as excinfo:
        spark.sql(retract)
    text = error_text(excinfo)
    assert "aggregate function 'rbm32' of column 'r32' cannot retract" in text, text[:800]
    assert "fields.r32.ignore-retract" in text
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES (" +
              ", ".join(f"'fields.{c}.ignore-retract' = 'true'" for c in UNION_FUNCTIONS) + ")")
    spark.sql(retract)
    check([1, 2, 3, 4, 100], list(range(101)) + list(range(BIG, BIG + 10)), 2000)


NESTED = "ARRAY<STRUCT<k: INT, v: STRING>>"


def nested(*pairs):
    if not pairs:
        return f"CAST(NULL AS {NESTED})"
    return "array(" + ", ".join(f"named_struct('k', {k}, 'v', '{v}')" for k, v in pairs) + ")"


PARTIAL = "ARRAY<STRUCT<k: INT, v: STRING, w: INT>>"


def partial_rows(*triples):
    def value(v):
        return "CAST(NULL AS STRING)" if v is None else f"'{v}'"

    def number(w):
        return "CAST(NULL AS INT)" if w is None else str(w)
    return "array(" + ", ".join(f"named_struct('k', {k}, 'v', {value(v)}, 'w', {number(w)})" for k, v, w in triples) + ")"


def test_nested_partial_update_fills_the_fields_of_a_key(spark, db):
    name = create(spark, db, f"id INT NOT NULL, pu {PARTIAL}",
                  {"fields.pu.aggregate-function": "nested_partial_update", "fields.pu.nested-key": "k"})
    for triples in ([(1, "a", None), (2, None, 2)], [(1, None, 10), (3, "c", None)], [(2, "b", None), (1, "A", None)]):
        spark.sql(f"INSERT INTO {name} VALUES (1, {partial_rows(*triples)})")
    expected = [(1, "A", 10), (2, "b", 2), (3, "c", None)]
    assert sorted(tuple(e) for e in spark.sql(f"SELECT pu FROM {name}").collect()[0].pu) == expected
    compact_full(spark, name)
    assert sorted(tuple(e) for e in spark.sql(f"SELECT pu FROM {name}").collect()[0].pu) == expected


def test_nested_update_by_key_with_count_limit_and_retraction(spark, db):
    name = create(spark, db, f"id INT NOT NULL, keyed {NESTED}, plain {NESTED}, op STRING", {
        "rowkind.field": "op",
        "fields.keyed.aggregate-function": "nested_update", "fields.keyed.nested-key": "k",
        "fields.plain.aggregate-function": "nested_update", "fields.plain.count-limit": "3"})

    def write(id_, keyed, plain, op="+I"):
        spark.sql(f"INSERT INTO {name} VALUES ({id_}, {keyed}, {plain}, '{op}')")

    def read():
        rows = spark.sql(f"SELECT keyed, plain FROM {name} WHERE id = 1").collect()[0]
        return (sorted((e.k, e.v) for e in rows.keyed), sorted((e.k, e.v) for e in rows.plain))

    write(1, nested((1, "a"), (2, "b")), nested((1, "a")))
    write(1, nested((2, "B"), (3, "c")), nested((1, "a"), (2, "b"), (3, "c")))
    write(2, nested(), nested((5, "e")))
    expected = ([(1, "a"), (2, "B"), (3, "c")], [(1, "a"), (1, "a"), (2, "b")])  # the plain rows stop at 3
    assert read() == expected
    compact_full(spark, name)
    assert read() == expected
    # a retraction removes the keyed rows of its keys, and the plain rows equal to its rows
    write(1, nested((1, "whatever")), nested((1, "a")), op="-U")
    write(1, nested((4, "d")), nested((9, "z")))
    assert read() == ([(2, "B"), (3, "c"), (4, "d")], [(2, "b"), (9, "z")])
    assert sql_rows(spark, f"SELECT id, keyed, size(plain) FROM {name} WHERE id = 2") == [(2, None, 1)]


def test_merge_map_with_keytime_keeps_the_latest_row_per_key(spark, db):
    name = create(spark, db, "id INT NOT NULL, m MAP<STRING, STRUCT<v: STRING, ts: STRING>>",
                  {"fields.m.aggregate-function": "merge_map_with_keytime"})

    def entry(key, v, ts):
        return f"'{key}', " + ("CAST(NULL AS STRUCT<v: STRING, ts: STRING>)" if v is None
                               else f"named_struct('v', '{v}', 'ts', {'CAST(NULL AS STRING)' if ts is None else repr(ts)})")

    spark.sql(f"INSERT INTO {name} VALUES (1, map({entry('a', '1', '2024-01-02')}, {entry('b', '2', '2024-01-01')}))")
    spark.sql(f"INSERT INTO {name} VALUES (1, map({entry('a', 'old', '2024-01-01')}, {entry('b', 'new', '2024-01-05')}, "
              f"{entry('c', 'no time', None)}))")
    spark.sql(f"INSERT INTO {name} VALUES (1, map({entry('a', None, None)}, {entry('d', '4', '2024-02-01')}))")
    expected = {"b": ("new", "2024-01-05"), "d": ("4", "2024-02-01")}

    def read():
        m = spark.sql(f"SELECT m FROM {name}").collect()[0].m
        return {k: (v.v, v.ts) for k, v in m.items()}

    assert read() == expected
    compact_full(spark, name)
    assert read() == expected


@pytest.mark.parametrize("columns, props, words", [
    ("id INT NOT NULL, r INT", {"fields.r.aggregate-function": "rbm32"}, ["rbm32", "'r'", "BYTES"]),
    (f"id INT NOT NULL, n {NESTED}", {"fields.n.aggregate-function": "nested_update", "fields.n.nested-key": "id"},
     ["fields.n.nested-key", "names field 'id'", "they have k, v"]),
], ids=["type", "nested-key"])
def test_bad_definitions_are_refused(spark, warehouse, db, columns, props, words):
    with pytest.raises(Exception) as excinfo:
        create(spark, db, columns, props)
    text = error_text(excinfo)
    for word in [f"{db}.t"] + words:
        assert word in text, text[:800]
    assert not table_path(warehouse, db, "t").exists()


def test_paimon_writes_lamina_appends_and_paimon_reads_back(spark, warehouse, db):
    """One process with Paimon's catalog `paimon` and Lamina's `lamina` on one warehouse: Paimon creates
    the table and writes two commits, Lamina reads, appends and compacts, Paimon appends, compacts and
    reads back."""
    require_paimon()
    from conftest import _ensure_jar

    props = {"primary-key": "id", "bucket": "1", "merge-engine": "aggregation",
             **{f"fields.{c}.aggregate-function": f for c, f in UNION_FUNCTIONS.items()},
             "fields.n.aggregate-function": "nested_update", "fields.n.nested-key": "k",
             "fields.m.aggregate-function": "merge_map_with_keytime",
             "fields.pu.aggregate-function": "nested_partial_update", "fields.pu.nested-key": "k"}
    options = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    columns = f"{UNION_COLUMNS}, n {NESTED}, m MAP<STRING, STRUCT<v: STRING, ts: STRING>>, pu {PARTIAL}"

    def row(id_, r32, r64, h, th, items, key, v, ts, partial):
        return "SELECT " + union_row(id_, r32, r64, h, th, nested(*items),
                                     f"map('{key}', named_struct('v', '{v}', 'ts', '{ts}'))", partial_rows(*partial))

    read = ("SELECT id, hex(r32), hex(r64), hll_sketch_estimate(h), hex(th), "
            "transform(array_sort(n), e -> concat(e.k, '=', e.v)), m['a'].v, m['b'].v, "
            "transform(array_sort(pu), e -> concat_ws('/', e.k, coalesce(e.v, '-'), coalesce(cast(e.w AS STRING), '-'))) "
            "FROM {} ORDER BY id")
    results = run_sql(warehouse, [
        f"CREATE TABLE paimon.{db}.t ({columns}) TBLPROPERTIES ({options})",
        f"INSERT INTO paimon.{db}.t " + row(1, rbm32([1, 2]), rbm64(spark, (0, 10)), hll(0, 1000),
                                           theta(spark, range(0, 100)), [(1, "a"), (2, "b")], "a", "p1", "2024-01-01",
                                           [(1, "a", None)]),
        f"INSERT INTO paimon.{db}.t " + row(1, rbm32([2, 3]), rbm64(spark, (BIG, BIG + 2)), hll(500, 1500),
                                           theta(spark, range(50, 150)), [(2, "B")], "a", "p2", "2024-01-02",
                                           [(1, None, 10), (2, "b", None)]),
        read.format(f"lamina.{db}.t"),
        f"INSERT INTO lamina.{db}.t " + row(1, rbm32([4]), rbm64(spark, (10, 12)), hll(1500, 2000),
                                           theta(spark, range(150, 200)), [(3, "c")], "b", "l1", "2024-01-03",
                                           [(2, None, 20)]),
        f"CALL lamina.sys.compact(table => '{db}.t', compact_strategy => 'full')",
        read.format(f"paimon.{db}.t"),
        f"INSERT INTO paimon.{db}.t " + row(1, rbm32([5]), rbm64(spark, (12, 13)), hll(2000, 2500),
                                           theta(spark, range(200, 250)), [(1, "A")], "a", "p0", "2023-12-31",
                                           [(1, "A", None)]),
        f"CALL paimon.sys.compact(table => '{db}.t')",
        read.format(f"paimon.{db}.t"),
    ], lamina_jar=_ensure_jar())
    by_lamina, by_paimon_after_lamina, by_paimon_at_end = results[3][0], results[6][0], results[9][0]

    def check(values, r32, r64, distinct, items, a, b, partial):
        id_, h32, h64, h, hth, n, ma, mb, pu = values
        assert id_ == 1
        assert rbm32_values(bytes.fromhex(h32)) == r32
        assert rbm64_values(spark, bytes.fromhex(h64)) == r64
        assert near(h, distinct), h
        assert theta_estimate(spark, bytes.fromhex(hth)) == float(distinct // 10)
        assert (sorted(n), ma, mb, pu) == (items, a, b, partial)

    check(by_lamina, [1, 2, 3], list(range(10)) + [BIG, BIG + 1], 1500, ["1=a", "2=B"], "p2", None, ["1/a/10", "2/b/-"])
    check(by_paimon_after_lamina, [1, 2, 3, 4], list(range(12)) + [BIG, BIG + 1], 2000, ["1=a", "2=B", "3=c"], "p2", "l1",
          ["1/a/10", "2/b/20"])
    check(by_paimon_at_end, [1, 2, 3, 4, 5], list(range(13)) + [BIG, BIG + 1], 2500, ["1=A", "2=B", "3=c"], "p2", "l1",
          ["1/A/10", "2/b/20"])
    # and Lamina reads what Paimon's compaction wrote
    assert rbm32_values(spark.sql(f"SELECT r32 FROM {CAT}.{db}.t").collect()[0].r32) == [1, 2, 3, 4, 5]
