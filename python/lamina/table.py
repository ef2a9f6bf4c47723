"""`LaminaTable`: a Lamina table from Python, in the manner of delta-spark's `DeltaTable`.

Each method checks its arguments, naming the one that is wrong, then makes one call into the JVM
facade (`lamina.spark.TableApi`); Lamina's Java errors arrive as the Python classes of
`lamina.errors`. Every timestamp argument (`to_df(timestamp=)`, `older_than`, `rollback_to(timestamp=)`)
follows one rule: text and naive datetimes are times of the session's time zone
(`spark.sql.session.timeZone`, as `TIMESTAMP AS OF` reads them), aware datetimes are converted to it.
Conditions and values are SQL expression strings; a merge names the table by its
alias (`alias()`, else `t`) and the source by the name `DataFrame.alias` gave it (else `s`)::

    from lamina import LaminaTable

    t = LaminaTable.for_name(spark, "db.orders")
    t.update("status = 'new'", {"status": "'open'"})
    (t.alias("t").merge(updates_df.alias("s"), "t.id = s.id")
      .when_matched_update_all()
      .when_not_matched_insert_all()
      .execute())
    t.history(5).show()
"""

import copy
import datetime
import os
import re
from typing import Dict, List, Mapping, Optional, Sequence, Union

from pyspark.sql import DataFrame, SparkSession

from lamina._config import _CATALOG_CLASS
from lamina._names import quote, sql_string, table_name
from lamina._procedures import PartitionSpec, compact as _compact

__all__ = ["LaminaTable", "LaminaMergeBuilder", "LaminaTableBuilder"]


def _check_catalog(catalog) -> str:
    if not isinstance(catalog, str) or not catalog:
        raise ValueError(f"catalog must be a non-empty string, got {catalog!r}")
    return catalog


def _resolve(name, catalog) -> tuple:
    """(catalog, 'db.table') of a name in one, two or three parts (lamina._names)."""
    cat, database, table = table_name(name, _check_catalog(catalog))
    return _check_catalog(cat), f"{database}.{table}"


def _sql_text(value, argument: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{argument} must be a non-empty SQL expression string, got {value!r}")
    return value


def _dataframe_alias(df: DataFrame) -> Optional[str]:
    """The name `df.alias(name)` gave the DataFrame, or None."""
    try:
        plan = df._jdf.queryExecution().logical()
        if plan.nodeName() == "SubqueryAlias":
            return plan.alias()
    except Exception:  # noqa: BLE001 - no alias to find
        pass
    return None


def _session_zone(spark) -> datetime.tzinfo:
    """The session's time zone (`spark.sql.session.timeZone`): a region ID or an offset."""
    name = spark.conf.get("spark.sql.session.timeZone")
    offset = re.fullmatch(r"(?:GMT|UTC)?([+-])(\d{1,2})(?::?(\d{2}))?", name.strip())
    if offset:
        sign = -1 if offset.group(1) == "-" else 1
        return datetime.timezone(sign * datetime.timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3) or 0)))
    if name.upper() in ("UTC", "Z", "GMT"):
        return datetime.timezone.utc
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


def _time_text(spark, value, argument: str) -> Optional[str]:
    """A timestamp argument as the JVM reads it: 'yyyy-MM-dd HH:mm:ss.SSS' in the session's time zone.
    Text and naive datetimes are times of the session's zone; an aware datetime is converted to it."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_session_zone(spark)).replace(tzinfo=None)
        value = value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return None if value is None else _sql_text(value, argument)


def _snapshot_id(value, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{argument} must be a snapshot id (an int >= 1), got {value!r}")
    return value


def _tag_name(value, argument: str = "tag") -> str:
    if not isinstance(value, str) or not value or value.isdigit():
        raise ValueError(f"{argument} must be a tag name (not a number), got {value!r}")
    return value


def _branch_name(value, argument: str = "branch") -> str:
    if not isinstance(value, str) or not value.strip() or value.isdigit() or "$" in value:
        raise ValueError(f"{argument} must be a branch name (not a number), got {value!r}")
    return value


def _assignments(values, argument: str) -> Dict[str, str]:
    if not isinstance(values, Mapping) or not values:
        raise ValueError(f"{argument} must be a non-empty mapping of column name to expression, got {values!r}")
    out = {}
    for name, value in values.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"{argument} has a column name that is not a non-empty string: {name!r}")
        out[name] = _sql_text(value, f"{argument}[{name!r}]")
    return out


def _local_path(location: str) -> str:
    """A warehouse or table location without a `file:` scheme, normalised, for comparison."""
    if location.startswith("file://"):
        location = location[len("file://"):]
    elif location.startswith("file:"):
        location = location[len("file:"):]
    return location.rstrip("/") if "://" in location else os.path.normpath(os.path.abspath(location))


def _schema_columns(schema, argument: str) -> List[tuple]:
    """(name, SQL type, nullable, comment) of each field of a StructType or a DDL string
    ('id BIGINT NOT NULL, note STRING')."""
    from pyspark.sql.types import StructType

    if isinstance(schema, str):
        if not schema.strip():
            raise ValueError(f"{argument} must be a StructType or a non-empty DDL string, got {schema!r}")
        try:
            schema = StructType.fromDDL(schema)
        except Exception as e:  # noqa: BLE001 - named below
            raise ValueError(f"{argument}: {schema!r} is not a list of columns: {e}") from None
    if not isinstance(schema, StructType) or not schema.fields:
        raise ValueError(f"{argument} must be a StructType with fields or a DDL string, got {schema!r}")
    return [(f.name, f.dataType.simpleString(), f.nullable, f.metadata.get("comment")) for f in schema.fields]


class LaminaTable:
    """A table of a Lamina catalog (default `lamina`), named `table`, `database.table` or
    `catalog.database.table` (the catalog a three-part name gives is used instead of `catalog`)."""

    def __init__(self, spark: SparkSession, name: str, catalog: str = "lamina"):
        if not isinstance(spark, SparkSession):
            raise ValueError(f"spark must be a SparkSession, got {type(spark).__name__}")
        self._spark = spark
        self._catalog, self._name = _resolve(name, catalog)
        self._alias: Optional[str] = None
        self._api = spark._jvm.lamina.spark.TableApi

    # --- finding tables -------------------------------------------------------------------------

    @classmethod
    def for_name(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> "LaminaTable":
        """The table `name`: "t" (database `default`), "db.t" or "catalog.db.t", parts in backquotes as
        SQL takes them ("db.`my-table`" or "db.my-table"); raises NotFoundException when it does not exist.

        >>> orders = LaminaTable.for_name(spark, "shop.orders")
        """
        table = cls(spark, name, catalog)
        table._api.require(spark._jsparkSession, table._catalog, table._name)
        return table

    @classmethod
    def for_path(cls, spark: SparkSession, path: str) -> "LaminaTable":
        """The table stored at `path`, `<warehouse>/<database>.db/<table>` of a Lamina catalog configured
        on the session (the catalog whose warehouse holds the path); raises ValueError naming the
        warehouses when none does, NotFoundException when no table is there.

        >>> LaminaTable.for_path(spark, "/data/warehouse/shop.db/orders").name
        'lamina.shop.orders'
        """
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path).strip():
            raise ValueError(f"path must be a table directory path or URI, got {path!r}")
        wanted = _local_path(os.fspath(path))
        conf = spark.conf.getAll
        catalogs = {key[len("spark.sql.catalog."):]: conf.get(key + ".warehouse")
                    for key, value in conf.items()
                    if key.startswith("spark.sql.catalog.") and key.count(".") == 3 and value == _CATALOG_CLASS}
        for catalog, warehouse in sorted(catalogs.items()):
            if not warehouse:
                continue
            base = _local_path(warehouse) + "/"
            parts = wanted[len(base):].split("/") if wanted.startswith(base) else []
            if len(parts) == 2 and parts[0].endswith(".db") and parts[0] != ".db" and parts[1]:
                return cls.for_name(spark, f"{quote(catalog)}.{quote(parts[0][:-3])}.{quote(parts[1])}")
        raise ValueError(f"path {os.fspath(path)!r} is not <warehouse>/<database>.db/<table> of a Lamina catalog "
                         f"of this session (warehouses: {', '.join(f'{c}: {w}' for c, w in sorted(catalogs.items()))})")

    @classmethod
    def is_lamina_table(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> bool:
        """Whether `name` ("db.t", named as `for_name` takes it) is a table of the Lamina catalog `catalog`.

        >>> LaminaTable.is_lamina_table(spark, "shop.orders")
        True
        """
        table = cls(spark, name, catalog)
        return bool(table._api.exists(spark._jsparkSession, table._catalog, table._name))

    @classmethod
    def create(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> "LaminaTableBuilder":
        """A builder of CREATE TABLE `name` ("db.t"); `execute()` fails when the table exists.

        >>> (LaminaTable.create(spark, "shop.orders")
        ...    .add_column("id", "BIGINT", nullable=False)
        ...    .add_column("status", "STRING", comment="open, shipped, ...")
        ...    .add_column("day", "DATE", nullable=False)
        ...    .primary_key("id", "day").partitioned_by("day")
        ...    .property("bucket", 4)
        ...    .execute())
        """
        if not isinstance(spark, SparkSession):
            raise ValueError(f"spark must be a SparkSession, got {type(spark).__name__}")
        return LaminaTableBuilder(spark, *reversed(_resolve(name, catalog)), mode="create")

    @classmethod
    def create_if_not_exists(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> "LaminaTableBuilder":
        """A builder of CREATE TABLE IF NOT EXISTS `name`: `execute()` leaves an existing table as it is.

        >>> LaminaTable.create_if_not_exists(spark, "shop.orders").add_column("id", "BIGINT").execute()
        """
        if not isinstance(spark, SparkSession):
            raise ValueError(f"spark must be a SparkSession, got {type(spark).__name__}")
        return LaminaTableBuilder(spark, *reversed(_resolve(name, catalog)), mode="if_not_exists")

    @classmethod
    def create_or_replace(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> "LaminaTableBuilder":
        """A builder of CREATE OR REPLACE TABLE `name`: `execute()` drops an existing table, with its
        snapshots, tags and branches, and creates it anew from the builder's definition.

        >>> (LaminaTable.create_or_replace(spark, "shop.staging")
        ...    .add_column("id", "BIGINT", nullable=False).primary_key("id").execute())
        """
        if not isinstance(spark, SparkSession):
            raise ValueError(f"spark must be a SparkSession, got {type(spark).__name__}")
        return LaminaTableBuilder(spark, *reversed(_resolve(name, catalog)), mode="replace")

    @property
    def name(self) -> str:
        """The table's `catalog.database.table` name, as SQL and `for_name` take it (parts that SQL
        would not take bare in backquotes)."""
        return ".".join(p if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p) else quote(p)
                        for p in [self._catalog, *self._name.split(".")])

    def _call(self, method: str, *args):
        return getattr(self._api, method)(self._spark._jsparkSession, self._catalog, self._name, *args)

    # --- reading --------------------------------------------------------------------------------

    def to_df(self, version: Optional[int] = None, timestamp: Union[None, str, datetime.datetime] = None,
              tag: Optional[str] = None, branch: Optional[str] = None) -> DataFrame:
        """The table's rows: the latest snapshot, or the snapshot `version`, the latest one committed at
        or before `timestamp` (a datetime, or text such as '2024-05-01 12:00:00'), or the tag `tag`;
        of the branch `branch` when given (the main branch otherwise).

        >>> LaminaTable.for_name(spark, "shop.orders").to_df(version=3).count()
        >>> LaminaTable.for_name(spark, "shop.orders").to_df(branch="dev").count()
        """
        chosen = [n for n, v in (("version", version), ("timestamp", timestamp), ("tag", tag)) if v is not None]
        if len(chosen) > 1:
            raise ValueError(f"give at most one of version, timestamp and tag, got {', '.join(chosen)}")
        if version is not None:
            _snapshot_id(version, "version")
        if tag is not None:
            _tag_name(tag)
        if branch is not None:
            _branch_name(branch)
        if timestamp is not None:
            timestamp = _time_text(self._spark, timestamp, "timestamp")
        version_text = str(version) if version is not None else tag
        return DataFrame(self._call("read", version_text, timestamp, branch), self._spark)

    def read_changes(self, start: Union[int, str], end: Union[int, str], scan_mode: Optional[str] = None) -> DataFrame:
        """The changes after snapshot (or tag) `start` up to and including `end`, each row with its
        `rowkind` (+I, -U, +U, -D), as the `incremental-between` read of `$audit_log`. `scan_mode`: 'auto'
        (the changelog where the table has one, else each commit's delta), 'delta', 'changelog' or 'diff'
        (the difference between the two snapshots).

        >>> LaminaTable.for_name(spark, "shop.orders").read_changes(3, 5).groupBy("rowkind").count().show()
        """
        bounds = []
        for value, argument in ((start, "start"), (end, "end")):
            if isinstance(value, str):
                bounds.append(_tag_name(value, argument))
            else:
                bounds.append(str(_snapshot_id(value, argument)))
        if scan_mode is not None and scan_mode not in ("auto", "delta", "changelog", "diff"):
            raise ValueError(f"scan_mode must be one of 'auto', 'delta', 'changelog', 'diff', got {scan_mode!r}")
        return DataFrame(self._call("readChanges", bounds[0], bounds[1], scan_mode), self._spark)

    def history(self, limit: Optional[int] = None) -> DataFrame:
        """The table's snapshots (the `$snapshots` system table), newest first; at most `limit`.

        >>> LaminaTable.for_name(spark, "shop.orders").history(5).select("snapshot_id", "commit_kind").show()
        """
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValueError(f"limit must be a positive int, got {limit!r}")
        return DataFrame(self._call("history", limit or 0), self._spark)

    def schema_history(self) -> DataFrame:
        """The table's schemas (the `$schemas` system table), oldest first.

        >>> LaminaTable.for_name(spark, "shop.orders").schema_history().show()
        """
        return DataFrame(self._call("schemaHistory"), self._spark)

    def detail(self) -> DataFrame:
        """One row describing the table: name, location, keys, bucket, merge engine, file format,
        schema id, latest snapshot and its kind, record count, number and size of data files.

        >>> LaminaTable.for_name(spark, "shop.orders").detail().show(vertical=True)
        """
        return DataFrame(self._call("detail"), self._spark)

    def options(self) -> Dict[str, str]:
        """The options the table stores (its TBLPROPERTIES in Paimon's keys).

        >>> LaminaTable.for_name(spark, "shop.orders").options()["bucket"]
        '4'
        """
        return dict(self._call("options"))

    def add_columns(self, schema) -> None:
        """Adds the columns of `schema` (a StructType such as `df.schema`, or a DDL string
        'note STRING, score DOUBLE') at the end, as ALTER TABLE ... ADD COLUMNS does.

        >>> LaminaTable.for_name(spark, "shop.orders").add_columns("note STRING COMMENT 'free text'")
        """
        columns = []
        for name, data_type, nullable, comment in _schema_columns(schema, "schema"):
            column = f"{quote(name)} {data_type}" + ("" if nullable else " NOT NULL")
            if comment is not None:
                column += f" COMMENT {sql_string(str(comment))}"
            columns.append(column)
        self._spark.sql(f"ALTER TABLE {self.name} ADD COLUMNS ({', '.join(columns)})")

    def set_options(self, options: Mapping[str, object]) -> None:
        """Sets table options, checked as ALTER TABLE ... SET TBLPROPERTIES checks them.

        >>> LaminaTable.for_name(spark, "shop.orders").set_options({"write-only": "true"})
        """
        if not isinstance(options, Mapping) or not options:
            raise ValueError(f"options must be a non-empty mapping of option key to value, got {options!r}")
        java = self._spark._jvm.java.util.HashMap()
        for key, value in options.items():
            if not isinstance(key, str) or not key:
                raise ValueError(f"options has a key that is not a non-empty string: {key!r}")
            java.put(key, str(value).lower() if isinstance(value, bool) else str(value))
        self._call("setOptions", java)

    def unset_options(self, keys: Sequence[str]) -> None:
        """Removes table options (ALTER TABLE ... UNSET TBLPROPERTIES).

        >>> LaminaTable.for_name(spark, "shop.orders").unset_options(["write-only"])
        """
        if isinstance(keys, str) or not isinstance(keys, Sequence) or not keys:
            raise ValueError(f"keys must be a non-empty list of option keys, got {keys!r}")
        java = self._spark._jvm.java.util.ArrayList()
        for key in keys:
            if not isinstance(key, str) or not key:
                raise ValueError(f"keys has an entry that is not a non-empty string: {key!r}")
            java.add(key)
        self._call("unsetOptions", java)

    # --- changing rows --------------------------------------------------------------------------

    def delete(self, condition: Optional[str] = None) -> None:
        """Deletes the rows matching `condition` (a SQL expression), every row when it is None: the
        same plan as DELETE FROM.

        >>> LaminaTable.for_name(spark, "shop.orders").delete("status = 'cancelled'")
        """
        if condition is not None:
            condition = _sql_text(condition, "condition")
        self._call("delete", condition)

    def update(self, condition: Optional[str] = None, set: Optional[Mapping[str, str]] = None) -> None:
        """Sets columns (`set`: column -> SQL expression) of the rows matching `condition` (every row
        when None): the same plan as UPDATE.

        >>> LaminaTable.for_name(spark, "shop.orders").update("id = 7", {"status": "'shipped'"})
        """
        if condition is not None:
            condition = _sql_text(condition, "condition")
        if not isinstance(set, Mapping) or not set:
            raise ValueError(f"set must be a non-empty mapping of column name to SQL expression, got {set!r}")
        java = self._spark._jvm.java.util.HashMap()
        for column, expression in set.items():
            if not isinstance(column, str) or not column:
                raise ValueError(f"set has a column name that is not a non-empty string: {column!r}")
            java.put(column, _sql_text(expression, f"set[{column!r}]"))
        self._call("update", condition, java)

    def alias(self, name: str) -> "LaminaTable":
        """This table under the name `name` in a merge's condition and clauses, as delta-spark's
        `DeltaTable.alias`; the source's name is the one `DataFrame.alias` gave it.

        >>> (LaminaTable.for_name(spark, "shop.orders").alias("o")
        ...    .merge(changes.alias("c"), "o.id = c.id").when_matched_update_all().execute())
        """
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"name must be a plain identifier, got {name!r}")
        aliased = copy.copy(self)
        aliased._alias = name
        return aliased

    def merge(self, source: DataFrame, condition: str, target_alias: Optional[str] = None,
              source_alias: Optional[str] = None) -> "LaminaMergeBuilder":
        """Starts a MERGE INTO this table from `source` on `condition` (SQL text); add WHEN
        clauses, then `execute()`. The condition and the clauses' expressions name the table by
        `target_alias` (else the name `alias()` gave it, else `t`) and the source by `source_alias` (else
        the name `source.alias(...)` gave it, else `s`).

        >>> (LaminaTable.for_name(spark, "shop.orders")
        ...    .merge(changes, "t.id = s.id")
        ...    .when_matched_delete("s.op = 'D'")
        ...    .when_matched_update_all()
        ...    .when_not_matched_insert_all("s.op != 'D'")
        ...    .execute())
        """
        if not isinstance(source, DataFrame):
            raise ValueError(f"source must be a DataFrame, got {type(source).__name__}")
        if target_alias is None:
            target_alias = self._alias or "t"
        if source_alias is None:
            source_alias = _dataframe_alias(source) or "s"
        for argument, alias in (("target_alias", target_alias), ("source_alias", source_alias)):
            if not isinstance(alias, str) or not alias.isidentifier():
                raise ValueError(f"{argument} must be a plain identifier, got {alias!r}")
        if target_alias == source_alias:
            raise ValueError(f"target_alias and source_alias must differ, both are {target_alias!r}")
        return LaminaMergeBuilder(self, source, _sql_text(condition, "condition"), target_alias, source_alias)

    # --- maintenance ----------------------------------------------------------------------------

    def compact(self, partitions: Optional[Union[PartitionSpec, Sequence[PartitionSpec]]] = None,
                full: bool = False, order_strategy: Optional[str] = None,
                order_by: Optional[Union[str, Sequence[str]]] = None, where: Optional[str] = None) -> Optional[int]:
        """Compacts the table as `CALL sys.compact` does: a primary-key table's buckets (`full=True`:
        each into one sorted run), an append table's small files packed into `target-file-size` files,
        or, with `order_strategy` ("order", "zorder", "hilbert") and `order_by` columns, an append
        table's partitions rewritten sorted by them, so that filters on those columns skip files.
        `partitions` (mappings of partition column to value) or `where` (a SQL condition on partition
        columns) pick the partitions. The snapshot id committed, or None when nothing needed compacting.

        >>> LaminaTable.for_name(spark, "shop.events").compact(order_strategy="zorder", order_by=["user", "amount"])
        """
        return _compact(self._spark, self._name, partitions=partitions, full=full, catalog=self._catalog,
                        order_strategy=order_strategy, order_by=order_by, where=where)

    def expire_snapshots(self, retain_max: Optional[int] = None, retain_min: Optional[int] = None,
                         older_than: Union[None, str, datetime.datetime] = None,
                         max_deletes: Optional[int] = None) -> int:
        """Expires snapshots as `CALL sys.expire_snapshots` does (the table's `snapshot.*` options,
        each given argument replacing its option); files a kept snapshot or a tag uses stay. Returns
        how many snapshots expired.

        >>> LaminaTable.for_name(spark, "shop.orders").expire_snapshots(retain_max=10)
        """
        for argument, value in (("retain_max", retain_max), ("retain_min", retain_min), ("max_deletes", max_deletes)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"{argument} must be a positive int, got {value!r}")
        older_than = _time_text(self._spark, older_than, "older_than")
        return int(self._call("expireSnapshots", retain_max, retain_min, older_than, max_deletes))

    def remove_orphan_files(self, older_than: Union[None, str, datetime.datetime] = None,
                            dry_run: bool = False) -> Dict[str, int]:
        """Removes the files that no snapshot or tag refers to and that were last modified before
        `older_than` (default: a day ago, so that a running write's files are never touched), as
        `CALL sys.remove_orphan_files` does; with `dry_run` only counts them. Returns
        {"deleted_file_count": n, "deleted_file_total_bytes": b}.

        >>> LaminaTable.for_name(spark, "shop.orders").remove_orphan_files(dry_run=True)
        """
        older_than = _time_text(self._spark, older_than, "older_than")
        if not isinstance(dry_run, bool):
            raise ValueError(f"dry_run must be True or False, got {dry_run!r}")
        count, size = self._call("removeOrphanFiles", older_than, dry_run)
        return {"deleted_file_count": int(count), "deleted_file_total_bytes": int(size)}

    def expire_partitions(self, expiration_time: Optional[str] = None, timestamp_formatter: Optional[str] = None,
                          timestamp_pattern: Optional[str] = None, expire_strategy: Optional[str] = None,
                          max_expires: Optional[int] = None) -> List[str]:
        """Drops the partitions older than `expiration_time` ('7 d'), as `CALL sys.expire_partitions`
        does; each argument left None takes the table's `partition.*` option. A partition is dated by
        its values (`timestamp_pattern` such as '$dt' or '$year-$month-$day', read with
        `timestamp_formatter` such as 'yyyyMMdd'), or with `expire_strategy='update-time'` by its newest
        file. Returns the partitions dropped, as 'dt=2024-01-01'.

        >>> LaminaTable.for_name(spark, "shop.orders").expire_partitions("90 d", timestamp_formatter="yyyyMMdd")
        """
        for argument, value in (("expiration_time", expiration_time), ("timestamp_formatter", timestamp_formatter),
                                ("timestamp_pattern", timestamp_pattern)):
            if value is not None:
                _sql_text(value, argument)
        if expire_strategy is not None and expire_strategy not in ("values-time", "update-time"):
            raise ValueError(f"expire_strategy must be 'values-time' or 'update-time', got {expire_strategy!r}")
        if max_expires is not None and (isinstance(max_expires, bool) or not isinstance(max_expires, int)
                                        or max_expires < 1):
            raise ValueError(f"max_expires must be a positive int, got {max_expires!r}")
        return [str(p) for p in self._call("expirePartitions", expiration_time, timestamp_formatter,
                                           timestamp_pattern, expire_strategy, max_expires)]

    def create_tag(self, tag: str, snapshot_id: Optional[int] = None, time_retained: Optional[str] = None) -> int:
        """Tags the snapshot `snapshot_id` (the latest when None), kept for `time_retained` ('7 d';
        None: until deleted); returns the tagged snapshot's id. Read it with `to_df(tag=...)`.

        >>> LaminaTable.for_name(spark, "shop.orders").create_tag("2024-05-01", time_retained="30 d")
        """
        _tag_name(tag)
        if snapshot_id is not None:
            _snapshot_id(snapshot_id, "snapshot_id")
        if time_retained is not None:
            _sql_text(time_retained, "time_retained")
        return int(self._call("createTag", tag, snapshot_id, time_retained))

    def delete_tag(self, tag: str) -> None:
        """Deletes the tag (and the files only its snapshot used, if that snapshot expired).

        >>> LaminaTable.for_name(spark, "shop.orders").delete_tag("2024-05-01")
        """
        if not isinstance(tag, str) or not tag:
            raise ValueError(f"tag must be a tag name, got {tag!r}")
        self._call("deleteTag", tag)

    def expire_tags(self, older_than: Union[None, str, datetime.datetime] = None) -> List[str]:
        """Deletes the tags whose `time_retained` has run out and, given `older_than`, the tags created
        before it, as `CALL sys.expire_tags` does; returns the names deleted.

        >>> LaminaTable.for_name(spark, "shop.orders").expire_tags(older_than="2024-01-01 00:00:00")
        """
        older_than = _time_text(self._spark, older_than, "older_than")
        return [str(n) for n in self._call("expireTags", older_than)]

    def tags(self) -> DataFrame:
        """The table's tags (the `$tags` system table).

        >>> LaminaTable.for_name(spark, "shop.orders").tags().show()
        """
        return DataFrame(self._call("tags"), self._spark)

    def create_branch(self, branch: str, tag: Optional[str] = None) -> None:
        """Creates the branch `branch` from the tag `tag`, or, without a tag, an empty branch with the
        table's current schema, as `CALL sys.create_branch` does. Read it with `to_df(branch=...)` or
        as `db.t$branch_<name>` in SQL, where INSERT writes it.

        >>> t = LaminaTable.for_name(spark, "shop.orders")
        >>> t.create_tag("v1")
        >>> t.create_branch("dev", tag="v1")
        """
        _branch_name(branch)
        if branch == "main":
            raise ValueError("branch must not be 'main': that is the table itself")
        if tag is not None:
            _tag_name(tag)
        self._call("createBranch", branch, tag)

    def delete_branch(self, branch: str) -> None:
        """Deletes the branch (its snapshots, schemas and tags; data files only it wrote go with
        `remove_orphan_files`).

        >>> LaminaTable.for_name(spark, "shop.orders").delete_branch("dev")
        """
        _branch_name(branch)
        self._call("deleteBranch", branch)

    def fast_forward(self, branch: str) -> None:
        """Makes the main branch the branch `branch`, as `CALL sys.fast_forward` does: main's snapshots
        from the branch's first one on are replaced by the branch's. Run it while no one writes to main.

        >>> LaminaTable.for_name(spark, "shop.orders").fast_forward("dev")
        """
        _branch_name(branch)
        self._call("fastForward", branch)

    def branches(self) -> DataFrame:
        """The table's branches (the `$branches` system table: branch_name, create_time).

        >>> LaminaTable.for_name(spark, "shop.orders").branches().show()
        """
        return DataFrame(self._call("branches"), self._spark)

    def rollback_to(self, version: Optional[int] = None, tag: Optional[str] = None,
                    timestamp: Union[None, datetime.datetime, int] = None) -> int:
        """Rolls the table back to the snapshot `version`, the tag `tag`, or the latest snapshot committed
        at or before `timestamp` (a datetime, or epoch milliseconds). As Paimon's rollback, and unlike
        Delta's RESTORE, this deletes every later snapshot (and the files only they use): the history
        after the target is gone and time travel to it fails. Returns the snapshot id now latest. Run it
        while no one writes to the table.

        >>> LaminaTable.for_name(spark, "shop.orders").rollback_to(version=12)
        """
        chosen = [n for n, v in (("version", version), ("tag", tag), ("timestamp", timestamp)) if v is not None]
        if len(chosen) != 1:
            raise ValueError(f"give exactly one of version, tag and timestamp, got {', '.join(chosen) or 'none'}")
        if version is not None:
            return int(self._call("rollback", str(_snapshot_id(version, "version"))))
        if tag is not None:
            return int(self._call("rollback", _tag_name(tag)))
        if isinstance(timestamp, datetime.datetime):
            if timestamp.tzinfo is None:
                timestamp = timestamp.replace(tzinfo=_session_zone(self._spark))
            timestamp = int(timestamp.timestamp() * 1000)
        if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
            raise ValueError(f"timestamp must be a datetime or epoch milliseconds, got {timestamp!r}")
        return int(self._call("rollbackToTimestamp", timestamp))

    def __repr__(self) -> str:
        return f"LaminaTable({self.name})"


class LaminaMergeBuilder:
    """The WHEN clauses of a merge, applied in the order given, as in SQL MERGE INTO."""

    def __init__(self, table: LaminaTable, source: DataFrame, condition: str, target_alias: str,
                 source_alias: str):
        self._table = table
        self._source = source
        self._condition = condition
        self._target_alias = target_alias
        self._source_alias = source_alias
        self._clauses: List[tuple] = []

    def _add(self, kind: str, condition, assignments=None, argument: str = "set") -> "LaminaMergeBuilder":
        cond = None if condition is None else _sql_text(condition, "condition")
        values = {} if assignments is None else _assignments(assignments, argument)
        self._clauses.append((kind, cond, values))
        return self

    def when_matched_update(self, condition: Optional[str] = None,
                            set: Optional[Mapping[str, str]] = None) -> "LaminaMergeBuilder":
        """WHEN MATCHED [AND condition] THEN UPDATE SET column = value, ..."""
        return self._add("matched_update", condition, set if set is not None else {}, "set")

    def when_matched_update_all(self, condition: Optional[str] = None) -> "LaminaMergeBuilder":
        """WHEN MATCHED [AND condition] THEN UPDATE SET *"""
        return self._add("matched_update_all", condition)

    def when_matched_delete(self, condition: Optional[str] = None) -> "LaminaMergeBuilder":
        """WHEN MATCHED [AND condition] THEN DELETE"""
        return self._add("matched_delete", condition)

    def when_not_matched_insert(self, condition: Optional[str] = None,
                                values: Optional[Mapping[str, str]] = None) -> "LaminaMergeBuilder":
        """WHEN NOT MATCHED [AND condition] THEN INSERT (column, ...) VALUES (value, ...)"""
        return self._add("not_matched_insert", condition, values if values is not None else {}, "values")

    def when_not_matched_insert_all(self, condition: Optional[str] = None) -> "LaminaMergeBuilder":
        """WHEN NOT MATCHED [AND condition] THEN INSERT *"""
        return self._add("not_matched_insert_all", condition)

    def when_not_matched_by_source_update(self, condition: Optional[str] = None,
                                          set: Optional[Mapping[str, str]] = None) -> "LaminaMergeBuilder":
        """WHEN NOT MATCHED BY SOURCE [AND condition] THEN UPDATE SET column = value, ..."""
        return self._add("not_matched_by_source_update", condition, set if set is not None else {}, "set")

    def when_not_matched_by_source_delete(self, condition: Optional[str] = None) -> "LaminaMergeBuilder":
        """WHEN NOT MATCHED BY SOURCE [AND condition] THEN DELETE"""
        return self._add("not_matched_by_source_delete", condition)

    def execute(self) -> None:
        """Runs the merge: the plan SQL MERGE INTO makes (Lamina's write-only upsert where it applies)."""
        if not self._clauses:
            raise ValueError("a merge needs at least one when_... clause before execute()")
        jvm = self._table._spark._jvm
        api = self._table._api
        clauses = jvm.java.util.ArrayList()
        for kind, cond, values in self._clauses:
            java_values = jvm.java.util.HashMap()
            for column, value in values.items():
                java_values.put(column, value)
            clauses.add(api.mergeClause(kind, cond, java_values))
        self._table._call("merge", self._source._jdf, self._target_alias, self._source_alias, self._condition, clauses)


class LaminaTableBuilder:
    """Columns, keys, partitioning and options of a table to create; `execute()` creates it."""

    def __init__(self, spark: SparkSession, name: str, catalog: str, mode: str):
        self._spark = spark
        self._name = name
        self._catalog = catalog
        self._mode = mode
        self._columns: List[tuple] = []
        self._primary_key: List[str] = []
        self._partitioned_by: List[str] = []
        self._properties: Dict[str, str] = {}
        self._comment: Optional[str] = None

    def add_column(self, name: str, data_type, nullable: bool = True, comment: Optional[str] = None) -> "LaminaTableBuilder":
        """Adds a column: `data_type` is a SQL type ('BIGINT', 'DECIMAL(10, 2)', 'ARRAY<STRING>') or a
        PySpark DataType."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty column name, got {name!r}")
        if any(c[0] == name for c in self._columns):
            raise ValueError(f"name: column {name!r} is added twice")
        if hasattr(data_type, "simpleString"):
            data_type = data_type.simpleString()
        _sql_text(data_type, "data_type")
        if not isinstance(nullable, bool):
            raise ValueError(f"nullable must be True or False, got {nullable!r}")
        if comment is not None and not isinstance(comment, str):
            raise ValueError(f"comment must be a string, got {comment!r}")
        self._columns.append((name, data_type, nullable, comment))
        return self

    def add_columns(self, schema) -> "LaminaTableBuilder":
        """Adds every column of `schema` (a StructType such as `df.schema`, or a DDL string
        'id BIGINT NOT NULL, status STRING'), with its nullability and comment.

        >>> LaminaTable.create(spark, "shop.orders").add_columns(orders_df.schema).primary_key("id").execute()
        """
        for name, data_type, nullable, comment in _schema_columns(schema, "schema"):
            self.add_column(name, data_type, nullable, comment)
        return self

    def primary_key(self, *columns: str) -> "LaminaTableBuilder":
        """The primary-key columns (a primary-key table: an LSM merge tree per bucket)."""
        self._primary_key = self._names(columns, "primary_key")
        return self

    def partitioned_by(self, *columns: str) -> "LaminaTableBuilder":
        """The partition columns."""
        self._partitioned_by = self._names(columns, "partitioned_by")
        return self

    def property(self, key: str, value) -> "LaminaTableBuilder":
        """A table option (Paimon's keys: 'bucket', 'merge-engine', 'file.format', ...)."""
        if not isinstance(key, str) or not key:
            raise ValueError(f"key must be a non-empty option key, got {key!r}")
        self._properties[key] = str(value).lower() if isinstance(value, bool) else str(value)
        return self

    def comment(self, text: str) -> "LaminaTableBuilder":
        """The table's comment."""
        if not isinstance(text, str):
            raise ValueError(f"text must be a string, got {text!r}")
        self._comment = text
        return self

    @staticmethod
    def _names(columns, argument) -> List[str]:
        if not columns or not all(isinstance(c, str) and c for c in columns):
            raise ValueError(f"{argument} needs one or more column names, got {columns!r}")
        return list(columns)

    def execute(self) -> LaminaTable:
        """Creates the table (one call into the JVM, checked as CREATE TABLE is) and returns it."""
        if not self._columns:
            raise ValueError("a table needs at least one add_column(...) before execute()")
        jvm = self._spark._jvm
        columns = jvm.java.util.ArrayList()
        for name, data_type, nullable, comment in self._columns:
            column = jvm.java.util.ArrayList()
            for value in (name, data_type, nullable, comment):
                column.add(value)
            columns.add(column)

        def java_list(items):
            out = jvm.java.util.ArrayList()
            for item in items:
                out.add(item)
            return out

        properties = jvm.java.util.HashMap()
        for key, value in self._properties.items():
            properties.put(key, value)
        jvm.lamina.spark.TableApi.create(self._spark._jsparkSession, self._catalog, self._name, columns,
                                         java_list(self._primary_key), java_list(self._partitioned_by), properties,
                                         self._comment, self._mode)
        return LaminaTable(self._spark, self._name, self._catalog)
