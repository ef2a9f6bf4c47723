"""Seeded property test: random upserts, deletes, updates, MERGEs and compactions on primary-key tables of
each merge engine (and of deduplicate ordered by a `sequence.field`, and partial-update with a sequence
group), with deletion vectors (lookup compaction) and without, compared after every statement and after a
final full compaction with an in-memory model of the engine; pypaimon reads the same rows."""

import random

import pytest

from _pk_history import ENGINES, create_table, run_history
from _support import sql_rows

CAT = "lamina"


def _pypaimon_agrees(catalog, db, expected, engine):
    """pypaimon reads `expected`; it refuses some engines' options outright (partial-update with
    remove-record-on-delete, aggregation), for those the check is its refusal."""
    table = catalog.get_table(f"{db}.t")
    builder = table.new_read_builder()
    try:
        rows = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    except NotImplementedError:
        assert engine not in ("deduplicate", "deduplicate-sequence-field")
        return True
    return sorted(tuple(r.values()) for r in rows) == expected


# first-row takes no deletion vectors (it never deletes an older row)
CASES = [(e, False) for e in ENGINES] + [(e, True) for e in ENGINES if e != "first-row"]


@pytest.mark.parametrize("engine, dv", CASES, ids=[f"{e}{'-dv' if dv else ''}" for e, dv in CASES])
def test_random_histories_match_the_model(spark, db, paimon_catalog, engine, dv):
    rnd = random.Random(20261122 + len(engine) + (7 if dv else 0))
    name = f"{CAT}.{db}.t"
    ordered = create_table(spark, name, engine, {"deletion-vectors.enabled": "true"} if dv else None)

    def check(step, model):
        assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == model.expected(), step
        if dv and step % 5 == 4:
            assert _pypaimon_agrees(paimon_catalog, db, model.expected(), engine), step

    model = run_history(spark, db, name, engine, ordered, rnd, 14, check)
    if dv:
        # every write leaves its rows above level 0, each key live in one file (the vectors delete the rest)
        assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`t$files` WHERE level = 0") == [(0,)]
        assert _pypaimon_agrees(paimon_catalog, db, model.expected(), engine)
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == model.expected()
    assert sql_rows(spark, f"SELECT DISTINCT level FROM {CAT}.{db}.`t$files`") in ([(3,)], [])
