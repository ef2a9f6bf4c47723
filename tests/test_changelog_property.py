"""Seeded property test of the changelog producers: for each merge engine and producer, a random history
of writes, DML and compactions, and after each statement the changelog of the snapshots it committed,
applied to the rows before it, gives the rows after it (the table is read against the engine's model
too). lookup and full-compaction changelogs are checked strictly: a -U or -D carries exactly the row it
retracts, a +I is for a key that has no row. The input producer's changelog is the written records
(for deduplicate only do they amount to the rows; a DELETE's -D carries the whole deleted row, as
Paimon's does, and is checked strictly too)."""

import os
import random

import pytest

from _pk_history import create_table, run_history

CAT = "lamina"
# statements per history: `make stress` (LAMINA_STRESS=1) runs longer ones
STEPS = 30 if os.environ.get("LAMINA_STRESS") == "1" else 8

LOOKUP = {"changelog-producer": "lookup"}
LOOKUP_DV = {"changelog-producer": "lookup", "deletion-vectors.enabled": "true"}
FULL = {"changelog-producer": "full-compaction", "full-compaction.delta-commits": "1"}
INPUT = {"changelog-producer": "input"}

CASES = (
    [(e, "lookup", LOOKUP) for e in ("deduplicate", "partial-update", "aggregation", "first-row",
                                     "deduplicate-sequence-field", "partial-update-sequence-group")]
    + [(e, "lookup-dv", LOOKUP_DV) for e in ("deduplicate", "partial-update", "aggregation")]
    + [(e, "full-compaction", FULL) for e in ("deduplicate", "partial-update", "aggregation", "first-row")]
    + [("deduplicate", "input", INPUT)]
)


def _latest(spark, db):
    got = spark.sql(f"SELECT max(snapshot_id) FROM {CAT}.{db}.`t$snapshots`").collect()[0][0]
    return got or 0


def _changes(spark, db, start, end):
    reader = (spark.read.option("incremental-between", f"{start},{end}")
              .option("incremental-between-scan-mode", "changelog"))
    return [tuple(r) for r in reader.table(f"{CAT}.{db}.`t$audit_log`").collect()]


def _apply(rows, changes, strict):
    """The rows after `changes` (rowkind, k, values...), a key's retraction before its addition.
    `strict`: every record checked against the rows; each -D is, always."""
    out = dict(rows)
    order = {"-U": 0, "-D": 0, "+I": 1, "+U": 1}
    for kind, k, *values in sorted(changes, key=lambda c: (c[1], order[c[0]])):
        if kind in ("-U", "-D"):
            assert k in out, f"{kind} of key {k}, which has no row"
            if strict or kind == "-D":
                assert out[k] == tuple(values), f"{kind} of key {k} carries {values}, the row is {out[k]}"
            del out[k]
        else:
            if strict and kind == "+I":
                assert k not in out, f"+I of key {k}, which has a row {out[k]}"
            out[k] = tuple(values)
    return out


@pytest.mark.parametrize("engine, producer, props", CASES, ids=[f"{e}-{p}" for e, p, _ in CASES])
def test_changelog_between_statements_turns_one_state_into_the_next(spark, db, engine, producer, props):
    rnd = random.Random(20261126 + len(engine) * 3 + len(producer))
    name = f"{CAT}.{db}.t"
    ordered = create_table(spark, name, engine, props)
    state = {"rows": {}, "snapshot": 0}
    strict = producer != "input"

    def check(step, model):
        rows = {r[0]: tuple(r[1:]) for r in model.expected()}
        assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()) == model.expected(), step
        latest = _latest(spark, db)
        if latest > state["snapshot"]:
            applied = _apply(state["rows"], _changes(spark, db, state["snapshot"], latest), strict)
            assert applied == rows, (step, state["snapshot"], latest)
        state["rows"], state["snapshot"] = rows, latest

    run_history(spark, db, name, engine, ordered, rnd, STEPS, check)
