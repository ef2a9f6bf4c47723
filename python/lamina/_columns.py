"""Conditions and values given as SQL text or as PySpark `Column`s, turned into the SQL text of the
statement the table API builds (DELETE, UPDATE, MERGE INTO).

On a classic session the JVM resolves the Column against the plan the statement reads and prints
the resolved expression (`lamina.spark.TableApi.columnSql`). A Spark Connect session has no JVM in
the client: there the Column's expression tree is printed here, node by node; the server parses and
resolves the text as it would the SQL statement. A Column that SQL text cannot carry (a Python UDF,
a window, a lambda) is refused with the argument's name.
"""

import datetime
import decimal
import math
from typing import Optional

from lamina._names import quote, sql_string


def is_connect(spark) -> bool:
    """Whether `spark` is a Spark Connect session (no JVM gateway in this process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def is_column(value) -> bool:
    from pyspark.sql import Column

    return isinstance(value, Column)


def text(value, argument: str) -> str:
    """`value` when it is non-empty SQL text; raises ValueError naming `argument` otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{argument} must be a non-empty SQL expression string or a Column, got {value!r}")
    return value


def sql(spark, value, argument: str, table: str, alias: Optional[str] = None, source=None,
        source_alias: Optional[str] = None) -> str:
    """SQL text of `value` (SQL text, a Column, or for values a Python literal) in a statement on `table`
    (a quoted name) aliased `alias`, with a merge's `source` DataFrame aliased `source_alias`."""
    if not is_column(value):
        if isinstance(value, str):
            return text(value, argument)
        raise ValueError(f"{argument} must be a non-empty SQL expression string or a Column, got {value!r}")
    if is_connect(spark):
        return _ConnectSql(argument).of(value._expr)
    source_jdf = None if source is None else source._jdf
    return spark._jvm.lamina.spark.TableApi.columnSql(spark._jsparkSession, table, alias, source_jdf, source_alias,
                                                      value._jc, argument)


_BINARY = {"==": "=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "<=>": "<=>", "+": "+", "-": "-", "*": "*",
           "/": "/", "%": "%", "&": "&", "|": "|", "^": "^", "and": "AND", "or": "OR"}
_POSTFIX = {"isNull": "IS NULL", "isNotNull": "IS NOT NULL"}


class _ConnectSql:
    """SQL text of a Spark Connect client's expression tree (pyspark.sql.connect.expressions)."""

    def __init__(self, argument: str):
        self._argument = argument

    def _refuse(self, what: str) -> ValueError:
        return ValueError(f"{self._argument}: the Column uses {what}, which has no SQL text to give the statement; "
                          "write it with built-in functions or as SQL text")

    def of(self, e) -> str:
        from pyspark.sql.connect import expressions as x

        if isinstance(e, x.ColumnReference):
            if getattr(e, "_is_metadata_column", False):
                raise self._refuse("a metadata column")
            return e._unparsed_identifier
        if isinstance(e, x.SQLExpression):
            return f"({e._expr})"
        if isinstance(e, x.LiteralExpression):
            return self._literal(e._value, e._dataType)
        if isinstance(e, x.ColumnAlias):
            return self.of(e._child)
        if isinstance(e, x.CastExpression):
            data_type = e._data_type if isinstance(e._data_type, str) else e._data_type.simpleString()
            cast = "TRY_CAST" if getattr(e, "_eval_mode", None) == "try" else "CAST"
            return f"{cast}({self.of(e._expr)} AS {data_type})"
        if isinstance(e, x.CaseWhen):
            parts = [f"WHEN {self.of(c)} THEN {self.of(v)}" for c, v in e._branches]
            if e._else_value is not None:
                parts.append(f"ELSE {self.of(e._else_value)}")
            return f"CASE {' '.join(parts)} END"
        if isinstance(e, x.UnresolvedExtractValue):
            return f"{self.of(e._child)}[{self.of(e._extraction)}]"
        if isinstance(e, x.UnresolvedFunction):
            return self._function(e._name, [self.of(a) for a in e._args], e._is_distinct)
        if isinstance(e, x.CallFunction):
            return self._function(e._name, [self.of(a) for a in e._args], False)
        raise self._refuse(type(e).__name__)

    def _function(self, name: str, args, distinct: bool) -> str:
        if name in _BINARY and len(args) == 2:
            return f"({args[0]} {_BINARY[name]} {args[1]})"
        if name == "not" and len(args) == 1:
            return f"(NOT {args[0]})"
        if name == "negative" and len(args) == 1:
            return f"(- {args[0]})"
        if name in _POSTFIX and len(args) == 1:
            return f"({args[0]} {_POSTFIX[name]})"
        if name == "in" and len(args) >= 1:
            return f"({args[0]} IN ({', '.join(args[1:])}))"
        called = name if name.replace("_", "a").isalnum() else quote(name)
        return f"{called}({'DISTINCT ' if distinct else ''}{', '.join(args)})"

    def _literal(self, value, data_type) -> str:
        from pyspark.sql import types as t

        if value is None or isinstance(data_type, t.NullType):
            return "NULL" if isinstance(data_type, t.NullType) else f"CAST(NULL AS {data_type.simpleString()})"
        if isinstance(data_type, t.BooleanType):
            return "TRUE" if value else "FALSE"
        if isinstance(data_type, t.ByteType):
            return f"{int(value)}Y"
        if isinstance(data_type, t.ShortType):
            return f"{int(value)}S"
        if isinstance(data_type, t.IntegerType):
            return str(int(value))
        if isinstance(data_type, t.LongType):
            return f"{int(value)}L"
        if isinstance(data_type, (t.FloatType, t.DoubleType)):
            name = "FLOAT" if isinstance(data_type, t.FloatType) else "DOUBLE"
            number = float(value)
            if math.isnan(number) or math.isinf(number):
                return f"CAST('{'NaN' if math.isnan(number) else ('Infinity' if number > 0 else '-Infinity')}' AS {name})"
            return f"CAST({number!r} AS {name})"
        if isinstance(data_type, t.DecimalType):
            # the client sends the value's own digits (its type's precision is not applied): so here
            return f"{format(decimal.Decimal(value), 'f')}BD"
        if isinstance(data_type, t.StringType):
            return sql_string(str(value))
        if isinstance(data_type, t.BinaryType):
            return f"X'{bytes(value).hex()}'"
        if isinstance(data_type, t.DateType):
            day = value if isinstance(value, datetime.date) else datetime.date(1970, 1, 1) + datetime.timedelta(days=value)
            return f"DATE '{day.isoformat()}'"
        if isinstance(data_type, t.TimestampType):
            return f"TIMESTAMP_MICROS({int(value)}L)"
        if isinstance(data_type, t.TimestampNTZType):
            local = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=int(value))
            return f"TIMESTAMP_NTZ '{local.isoformat(sep=' ')}'"
        if isinstance(data_type, t.ArrayType):
            return f"array({', '.join(self._literal(v, data_type.elementType) for v in value)})"
        raise self._refuse(f"a literal of type {data_type.simpleString()}")
