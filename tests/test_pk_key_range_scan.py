"""A filter on primary-key columns of a table with several sorted runs: every run is sorted by key,
so the scan reads only the pages of each run whose key range the filter can match (the merge reads
keys from the `_KEY_` columns, where the filter is pushed), and returns exactly the merged rows of
the range, for every merge engine, with deletes and updates spread over the runs."""

import random

import pytest

from _support import scan_output_rows, session_conf, sql_rows

CAT = "lamina"
ROWS = 120_000
# Parquet pages of 1,000 rows (the writer's default is 20,000): the table is small, the pages too
SMALL_PAGES = ("parquet.page.row.count.limit", "1000")


def _table(spark, db, props):
    name = f"{CAT}.{db}.t"
    extra = "".join(f", '{k}' = '{v}'" for k, v in props.items())
    spark.sql(f"CREATE TABLE {name} (id BIGINT, k2 INT, v STRING, n BIGINT) "
              f"TBLPROPERTIES ('primary-key' = 'id,k2', 'bucket' = '2', 'write-only' = 'true'{extra})")
    return name


def _write_runs(spark, name, model, merge, deletes=True):
    """A bulk load and three rounds of updates, new keys and (with `deletes`) deletes, each a sorted
    run, applied to `model` ({key: row}) by `merge(old, new)`."""
    with session_conf(spark, *SMALL_PAGES):
        _write_rounds(spark, name, model, merge, deletes)


def _write_rounds(spark, name, model, merge, deletes):
    rng = random.Random(7)
    spark.sql(f"INSERT INTO {name} SELECT id, CAST(id % 3 AS INT), concat('v', id), id FROM range({ROWS})")
    for i in range(ROWS):
        model[(i, i % 3)] = (i, i % 3, f"v{i}", i)
    for r in range(3):
        keys = sorted(set(rng.randrange(0, ROWS + 20_000) for _ in range(8_000)))
        rows = [(k, k % 3, f"r{r}-{k}" if k % 4 else None, k * 10 + r) for k in keys]
        spark.createDataFrame(rows, "id BIGINT, k2 INT, v STRING, n BIGINT").writeTo(name).append()
        for row in rows:
            key = (row[0], row[1])
            model[key] = merge(model.get(key), row)
        if not deletes:
            continue
        gone = keys[::37]
        spark.sql(f"DELETE FROM {name} WHERE id IN ({', '.join(map(str, gone))})")
        for k in gone:
            model.pop((k, k % 3), None)


def _latest(old, new):
    return new


def _partial(old, new):
    if old is None:
        return new
    return tuple(n if n is not None else o for o, n in zip(old, new))


def _first(old, new):
    return old if old is not None else new


ENGINES = [
    ({}, _latest),
    ({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}, _partial),
    ({"merge-engine": "first-row"}, _first),
]


@pytest.mark.parametrize("props, merge", ENGINES, ids=["deduplicate", "partial-update", "first-row"])
def test_key_range_reads_the_range_of_each_run(spark, db, props, merge):
    name = _table(spark, db, props)
    model = {}
    # a first-row table keeps a key's first row: it takes no deletes
    _write_runs(spark, name, model, merge, deletes=merge is not _first)
    lo, hi = 60_000, 60_120
    df = spark.sql(f"SELECT * FROM {name} WHERE id BETWEEN {lo} AND {hi}")
    got = sorted(tuple(r) for r in df.collect())
    assert got == sorted(v for k, v in model.items() if lo <= k[0] <= hi)
    # four runs of 60 k rows per bucket: the range's pages, not the runs, reach Spark
    assert scan_output_rows(df) < ROWS // 5
    for where, pred in [
        ("id < 500 OR id > 139500", lambda k: k[0] < 500 or k[0] > 139_500),
        ("id IN (5, 70000, 130001) AND k2 = 2", lambda k: k[0] in (5, 70_000, 130_001) and k[1] == 2),
        ("NOT (id >= 200)", lambda k: k[0] < 200),
        ("k2 = 1 AND id BETWEEN 1000 AND 1100", lambda k: k[1] == 1 and 1000 <= k[0] <= 1100),
    ]:
        assert sql_rows(spark, f"SELECT * FROM {name} WHERE {where}") == \
            sorted((v for k, v in model.items() if pred(k)), key=lambda r: repr(r)), where


def test_key_range_after_compaction_and_on_value_filters(spark, db):
    """A value filter must not reach below the merge (it could hide a key's newest version): a
    range on a value column returns the newest versions only."""
    name = _table(spark, db, {})
    model = {}
    _write_runs(spark, name, model, _latest)
    assert sql_rows(spark, f"SELECT id FROM {name} WHERE n < 1000") == \
        sorted(((k[0],) for k, v in model.items() if v[3] < 1000), key=lambda r: repr(r))
    with session_conf(spark, *SMALL_PAGES):
        spark.sql(f"CALL {CAT}.sys.compact(table => '{name.split('.', 1)[1]}', compact_strategy => 'full')")
    df = spark.sql(f"SELECT * FROM {name} WHERE id BETWEEN 90000 AND 90050")
    assert sorted(tuple(r) for r in df.collect()) == sorted(v for k, v in model.items() if 90_000 <= k[0] <= 90_050)
    assert scan_output_rows(df) < ROWS // 5
