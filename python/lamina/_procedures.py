"""Python entry points to Lamina's procedures: thin, argument-checked wrappers over `CALL`."""

from typing import Mapping, Optional, Sequence, Union

PartitionSpec = Mapping[str, object]


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def compact(spark, table: str, partitions: Optional[Union[PartitionSpec, Sequence[PartitionSpec]]] = None,
            full: bool = False, catalog: str = "lamina") -> Optional[int]:
    """Compact a primary-key table; returns the COMPACT snapshot id, or None when nothing needed it.

    `table` is "db.table"; `partitions` is one mapping of partition column to value, or a list of
    them (all partitions when omitted); `full=True` merges every sorted run of each bucket into one.
    """
    if not isinstance(table, str) or table.count(".") != 1 or not all(table.split(".")):
        raise ValueError(f"table must be 'database.table', got {table!r}")
    if not isinstance(catalog, str) or not catalog:
        raise ValueError(f"catalog must be a non-empty string, got {catalog!r}")
    if not isinstance(full, bool):
        raise ValueError(f"full must be True or False, got {full!r}")
    specs = [] if partitions is None else ([partitions] if isinstance(partitions, Mapping) else list(partitions))
    for spec in specs:
        if not isinstance(spec, Mapping) or not spec:
            raise ValueError(f"each partition must be a non-empty mapping of column to value, got {spec!r}")
    text = ";".join(",".join(f"{k}={v}" for k, v in spec.items()) for spec in specs)
    rows = spark.sql(
        f"CALL {catalog}.sys.compact(table => {_quote(table)}, partitions => {_quote(text)}, "
        f"compact_strategy => {_quote('full' if full else 'minor')})").collect()
    return rows[0][0] if rows else None
