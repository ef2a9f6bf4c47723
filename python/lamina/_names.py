"""Table names as SQL writes them: `t`, `db.t` or `catalog.db.t`, a part in backquotes when it holds a
dot or another character SQL would not take bare; one rule for the Python API and the command line."""

from typing import List, Tuple

DEFAULT_DATABASE = "default"


def split_name(text: str) -> List[str]:
    """The parts of a dotted SQL name; a part in backquotes may hold dots (a doubled backquote is one)."""
    parts, current, quoted, i, started = [], [], False, 0, False
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "`" and text[i + 1:i + 2] == "`":
                current.append("`")
                i += 1
            elif ch == "`":
                quoted = False
            else:
                current.append(ch)
        elif ch == "`" and not current and not started:
            quoted, started = True, True
        elif ch == ".":
            parts.append("".join(current))
            current, started = [], False
        else:
            if started and not current:
                raise ValueError(f"unexpected {ch!r} after a backquoted part in {text!r}")
            current.append(ch)
            started = True
        i += 1
    if quoted:
        raise ValueError(f"unclosed backquote in {text!r}")
    parts.append("".join(current))
    if any(not p.strip() for p in parts):
        raise ValueError(f"empty name part in {text!r}")
    return parts


def table_name(text, catalog: str, argument: str = "name") -> Tuple[str, str, str]:
    """(catalog, database, table) of `t` (in `default`), `db.t` or `catalog.db.t` (`catalog` is used
    unless the name gives its own). Lamina's procedures and table API take database and table names
    without dots."""
    if not isinstance(text, str):
        raise ValueError(f"{argument} must be a table name string, got {text!r}")
    try:
        parts = split_name(text)
    except ValueError as e:
        raise ValueError(f"{argument}: {e}") from None
    if len(parts) > 3:
        raise ValueError(f"{argument}: a table name has one, two or three parts (table, db.table, "
                         f"catalog.db.table), got {text!r}")
    parts = [catalog, DEFAULT_DATABASE][:3 - len(parts)] + parts
    if "." in parts[1] or "." in parts[2]:
        raise ValueError(f"{argument}: database and table names must not hold dots, got {text!r}")
    return parts[0], parts[1], parts[2]


def quote(part: str) -> str:
    """`part` as a backquoted SQL identifier."""
    return "`" + part.replace("`", "``") + "`"


def sql_string(value: str) -> str:
    """`value` as a SQL string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def call_sql(catalog: str, database: str, table: str, procedure: str, **arguments) -> str:
    """`CALL catalog.sys.procedure(table => 'db.t', key => value, ...)`: None and False arguments are
    left out (the procedure's default), ints and True written bare, the rest as string literals."""
    given = [f"table => {sql_string(f'{database}.{table}')}"]
    for key, value in arguments.items():
        if value is None or value is False:
            continue
        if value is True:
            given.append(f"{key} => true")
        elif isinstance(value, int):
            given.append(f"{key} => {value}")
        else:
            given.append(f"{key} => {sql_string(str(value))}")
    return f"CALL {quote(catalog)}.sys.{procedure}({', '.join(given)})"
