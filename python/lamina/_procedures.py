"""Python entry points to Lamina's procedures: argument checks, then the JVM's session facade
(`lamina.spark.SessionApi`, over `lamina.api`) through py4j, or on a Spark Connect session (no JVM in
the client) the `CALL` statement of the procedure."""

from typing import Mapping, Optional, Sequence, Union

from lamina._columns import is_connect
from lamina._names import call_sql, quote, sql_string, table_name

PartitionSpec = Mapping[str, object]


ORDER_STRATEGIES = ("none", "order", "zorder", "hilbert")


def compact(spark, table: str, partitions: Optional[Union[PartitionSpec, Sequence[PartitionSpec]]] = None,
            full: bool = False, catalog: str = "lamina", order_strategy: Optional[str] = None,
            order_by: Optional[Union[str, Sequence[str]]] = None, where: Optional[str] = None,
            progress: bool = False) -> Optional[int]:
    """Compact a table; returns the snapshot id committed, or None when nothing needed it.

    `table` is "db.table"; `partitions` is one mapping of partition column to value, or a list of
    them (all partitions when omitted), or `where` a SQL condition on the partition columns;
    `full=True` merges every sorted run of each bucket into one (append tables: packs any two small
    files, not only `compaction.min.file-num` of them). `order_strategy` ("order", "zorder" or
    "hilbert") rewrites an append table's selected partitions sorted by the `order_by` columns (a
    list, or one comma-separated string), so that filters on them skip files. `progress=True` prints a
    line to the driver's stderr as each batch of buckets finishes ("lamina: compact db.t: 8/12 buckets
    done"), or, in a sorted rewrite, as each range of keys is written ("lamina: compact db.t, sorted:
    3/8 key ranges written"); on a Spark Connect session the driver is the server, so the lines go to
    its log, and the client follows the compaction's job (described "lamina: compact db.t ...") in
    Spark's UI instead.
    """
    if not isinstance(catalog, str) or not catalog:
        raise ValueError(f"catalog must be a non-empty string, got {catalog!r}")
    catalog, database, name = table_name(table, catalog, "table")
    table = f"{database}.{name}"
    if not isinstance(full, bool):
        raise ValueError(f"full must be True or False, got {full!r}")
    if not isinstance(progress, bool):
        raise ValueError(f"progress must be True or False, got {progress!r}")
    if order_strategy is not None and (not isinstance(order_strategy, str)
                                       or order_strategy.strip().lower() not in ORDER_STRATEGIES):
        raise ValueError(f"order_strategy must be one of {', '.join(ORDER_STRATEGIES)}, got {order_strategy!r}")
    if isinstance(order_by, str):
        order_by = [c.strip() for c in order_by.split(",") if c.strip()]
    elif order_by is not None:
        order_by = list(order_by)
        if not all(isinstance(c, str) and c.strip() for c in order_by):
            raise ValueError(f"order_by must be column names, got {order_by!r}")
    if where is not None and (not isinstance(where, str) or not where.strip()):
        raise ValueError(f"where must be a non-empty SQL condition, got {where!r}")
    if where is not None and partitions is not None:
        raise ValueError("give partitions or where, not both")
    specs = [] if partitions is None else ([partitions] if isinstance(partitions, Mapping) else list(partitions))
    for spec in specs:
        if not isinstance(spec, Mapping) or not spec:
            raise ValueError(f"each partition must be a non-empty mapping of column to value, got {spec!r}")
    if is_connect(spark):
        return _compact_by_call(spark, catalog, database, name, specs, full, order_strategy, order_by, where)
    jvm = spark._jvm
    java_specs = jvm.java.util.ArrayList()
    for spec in specs:
        java_spec = jvm.java.util.HashMap()
        for column, value in spec.items():
            java_spec.put(str(column), str(value))
        java_specs.add(java_spec)
    snapshot = jvm.lamina.spark.SessionApi.compact(spark._jsparkSession, catalog, table, java_specs, full,
                                                   order_strategy, ",".join(order_by or []), where, progress)
    return None if snapshot is None else int(snapshot)


def _compact_by_call(spark, catalog, database, name, specs, full, order_strategy, order_by, where) -> Optional[int]:
    """`CALL sys.compact` with the same choices: the partitions become a condition on their columns."""
    if specs:
        where = " OR ".join("(" + " AND ".join(f"{quote(str(c))} = {sql_string(str(v))}" for c, v in spec.items()) + ")"
                            for spec in specs)
    rows = spark.sql(call_sql(catalog, database, name, "compact", compact_strategy="full" if full else "minor",
                              order_strategy=order_strategy, order_by=",".join(order_by or []) or None,
                              where=where)).collect()
    return None if rows[0][0] is None else int(rows[0][0])
