"""Random histories of writes, DML and compactions on a primary-key table of each merge engine, with
an in-memory model of the engine's rows: shared by the property tests."""

import os
import random

CAT = "lamina"

ENGINES = {
    "deduplicate": {},
    "partial-update": {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
    "aggregation": {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
                    "fields.v.aggregate-function": "last_non_null_value",
                    "aggregation.remove-record-on-delete": "true"},
    "first-row": {"merge-engine": "first-row"},
    # versions ordered by column ts, not by arrival: a write with a smaller ts than the row's is ignored
    "deduplicate-sequence-field": {"sequence.field": "ts"},
    # v changes only with, and in the order of, ts (NULL included); n follows the plain partial-update rule.
    # No deletes: partial-update refuses them without remove-record-on-delete.
    "partial-update-sequence-group": {"merge-engine": "partial-update", "fields.ts.sequence-group": "v"},
}


# first-row takes no deletion vectors (it never deletes an older row)
_ALL_PAIRS = [(e, dv) for e in ENGINES for dv in (False, True) if not (dv and e == "first-row")]


def engine_pairs():
    """The (engine, deletion vectors) pairs a property test of this module's histories runs: under
    `make stress` (LAMINA_STRESS=1) every engine with deletion vectors on and off; else each engine
    once, deletion vectors on for every other one (first-row without)."""
    if os.environ.get("LAMINA_STRESS") == "1":
        return _ALL_PAIRS
    return [(e, i % 2 == 0 and e != "first-row") for i, e in enumerate(ENGINES)]


class Model:
    def __init__(self, engine):
        self.engine = engine
        self.rows = {}
        # sequence.field: the ts of each deleted key's delete record, which orders after any write of a
        # smaller ts until a compaction to the top level drops it (the histories never write one)
        self.deleted_at = {}

    def upsert(self, k, v, n, ts=None):
        old = self.rows.get(k)
        if self.engine == "partial-update-sequence-group":
            old = old or (None, None, None)
            # the group moves when the record's ts is set and not older (a NULL stored ts is oldest)
            newer = ts is not None and (old[2] is None or ts >= old[2])
            self.rows[k] = (v if newer else old[0], n if n is not None else old[1], ts if newer else old[2])
        elif ts is not None:
            # ties go to the later write (its sequence number is higher)
            if old is None or ts >= old[2]:
                self.rows[k] = (v, n, ts)
        elif old is None:
            self.rows[k] = (v, n)
        elif self.engine == "deduplicate":
            self.rows[k] = (v, n)
        elif self.engine == "partial-update":
            self.rows[k] = (v if v is not None else old[0], n if n is not None else old[1])
        elif self.engine == "aggregation":
            total = None if old[1] is None and n is None else (old[1] or 0) + (n or 0)
            self.rows[k] = (v if v is not None else old[0], total)
        # first-row keeps the first

    def delete(self, keys):
        for k in keys:
            old = self.rows.pop(k, None)
            if old is not None and len(old) == 3:
                self.deleted_at[k] = old[2]

    def update_v(self, keys, v):
        """UPDATE ... SET v = v' WHERE k IN keys: the other columns are left as the row holds them (NULL
        included; ts too, so the update ties the row's version and wins as the later write)."""
        for k in keys:
            if k in self.rows:
                if self.engine == "partial-update-sequence-group":
                    self.upsert(k, v, *self.rows[k][1:])  # the update record carries the row's n and ts
                else:
                    self.rows[k] = (v,) + self.rows[k][1:]

    def expected(self):
        return sorted((k,) + row for k, row in self.rows.items())



def create_table(spark, name, engine, extra=None):
    """Creates `name` (k INT, v STRING, n INT[, ts INT]) with the engine's options and `extra`."""
    props = {"primary-key": "k", "bucket": "2", "num-sorted-run.compaction-trigger": "3", **ENGINES[engine],
             **(extra or {})}
    ordered = "sequence.field" in props or "fields.ts.sequence-group" in props
    spark.sql(f"CREATE TABLE {name} (k INT, v STRING, n INT{', ts INT' if ordered else ''}) "
              f"TBLPROPERTIES ({', '.join(f'{a!r} = {b!r}' for a, b in props.items())})")
    return ordered


def run_history(spark, db, name, engine, ordered, rnd: random.Random, steps, after_step):
    """Runs `steps` random statements on table `t` of `db` (named `name`), keeping a [[Model]] of its rows;
    `after_step(step, model)` after each."""
    model = Model(engine)
    # UPDATE assigns v only: aggregation refuses it (n's sum would add the row to itself), first-row too
    updates = engine in ("deduplicate", "partial-update", "deduplicate-sequence-field", "partial-update-sequence-group")
    deletes = engine not in ("first-row", "partial-update-sequence-group")
    merges = engine in ("deduplicate", "partial-update")
    for step in range(steps):
        roll = rnd.random()
        if step > 0 and deletes and roll < 0.25 and model.rows:
            victims = rnd.sample(sorted(model.rows), min(3, len(model.rows)))
            spark.sql(f"DELETE FROM {name} WHERE k IN ({', '.join(map(str, victims))})")
            model.delete(victims)
        elif step > 0 and updates and roll < 0.45 and model.rows:
            keys = rnd.sample(sorted(model.rows), min(4, len(model.rows)))
            spark.sql(f"UPDATE {name} SET v = 'u{step}' WHERE k IN ({', '.join(map(str, keys))})")
            model.update_v(keys, f"u{step}")
        elif step > 0 and merges and roll < 0.55 and model.rows:
            # MERGE: matched keys get v, new keys come in with v only
            matched = rnd.sample(sorted(model.rows), min(2, len(model.rows)))
            keys = matched + rnd.sample([k for k in range(21, 30) if k not in matched], 2)
            source = " UNION ALL ".join(f"SELECT {k} AS k, 'm{step}' AS v" for k in keys)
            spark.sql(f"MERGE INTO {name} t USING ({source}) s ON t.k = s.k "
                      "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (k, v, n) VALUES (s.k, s.v, NULL)")
            model.update_v([k for k in keys if k in model.rows], f"m{step}")
            for k in keys:
                if k not in model.rows:
                    model.upsert(k, f"m{step}", None)
        elif step > 0 and roll < 0.6:
            strategy = rnd.choice(["minor", "full"])
            spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => '{strategy}')")
        else:
            batch = {}
            for _ in range(rnd.randint(1, 12)):
                k = rnd.randint(0, 20)
                v = rnd.choice([None, f"v{step}_{k}"]) if not engine.startswith("deduplicate") else f"v{step}_{k}"
                n = rnd.choice([None, rnd.randint(-5, 5)])
                # a ts below the row's is a late write, ignored; never below a delete record still kept
                ts = (rnd.randint(model.deleted_at.get(k, 0), 30),) if ordered else ()
                if engine == "partial-update-sequence-group" and rnd.random() < 0.25:
                    ts = (None,)
                batch[k] = (v, n) + ts  # one version per key per statement: the order inside one write is not defined
            values = ", ".join(f"({k}, {'NULL' if row[0] is None else repr(row[0])}, "
                               f"{'NULL' if row[1] is None else row[1]}"
                               f"{''.join(', NULL' if t is None else f', {t}' for t in row[2:])})"
                               for k, row in batch.items())
            spark.sql(f"INSERT INTO {name} VALUES {values}")
            for k, row in batch.items():
                model.upsert(k, *row)
        after_step(step, model)
    return model
