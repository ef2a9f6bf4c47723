"""Generates docs/python.md from the docstrings and signatures of the `lamina` package's public API.

usage: python tools/python_doc.py [OUTPUT]   (default docs/python.md)
"""

import inspect
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

import lamina  # noqa: E402
from lamina import LaminaMergeBuilder, LaminaTable, LaminaTableBuilder  # noqa: E402

INTRO = """# Python API

Generated from the `lamina` package's docstrings by `tools/python_doc.py` (`make docs`); do not edit by hand.

Install: `pip install pyspark==4.0.* dist/lamina-*.whl` (`make wheel` builds the wheel, with Lamina's jar
inside). Every method checks its arguments and raises `ValueError` naming the one that is wrong; errors
from the JVM arrive as `lamina.BadInputException`, `lamina.NotFoundException`, ... (see `lamina.errors`).
"""


def _doc(obj) -> str:
    return inspect.cleandoc(obj.__doc__ or "").strip()


def _annotation(annotation) -> str:
    """A type as a reader writes it: `SparkSession`, not `pyspark.sql.session.SparkSession`; forward
    references and `NoneType` spelled out."""
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    text = re.sub(r"ForwardRef\('?([^')]*)'?\)", r"\1", text)
    text = re.sub(r"\b(?:[a-z_]+\.)+([A-Z]\w*)", r"\1", text)  # drop module paths
    return text.replace("NoneType", "None")


def _signature(fn, drop_first: bool) -> str:
    params = list(inspect.signature(fn).parameters.values())[1 if drop_first else 0:]
    parts = []
    for p in params:
        text = p.name if p.kind is not p.VAR_POSITIONAL else f"*{p.name}"
        if p.annotation is not p.empty:
            text += f": {_annotation(p.annotation)}"
        if p.default is not p.empty:
            text += f" = {p.default!r}"
        parts.append(text)
    result = inspect.signature(fn).return_annotation
    arrow = "" if result is inspect.Signature.empty else f" -> {_annotation(result)}"
    return f"({', '.join(parts)}){arrow}"


def _function(name, fn, level="###", drop_first=False) -> str:
    return f"{level} `{name}{_signature(fn, drop_first)}`\n\n{_doc(fn)}\n"


def _class(cls) -> str:
    out = [f"## `{cls.__name__}`\n\n{_doc(cls)}\n"]
    for name, member in cls.__dict__.items():
        if name.startswith("_"):
            continue
        fn = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
        if isinstance(member, property):
            out.append(f"### `{name}` (property)\n\n{_doc(member)}\n")
        elif callable(fn):
            # `self` and `cls` are not arguments a caller gives
            out.append(_function(f"{cls.__name__}.{name}", fn, drop_first=not isinstance(member, staticmethod)))
    return "\n".join(out)


def render() -> str:
    parts = [INTRO, "## Module functions\n", _function("lamina.configure", lamina.configure),
             _function("lamina.jar_path", lamina.jar_path), _function("lamina.compact", lamina.compact),
             _class(LaminaTable), _class(LaminaMergeBuilder), _class(LaminaTableBuilder)]
    return "\n".join(parts).rstrip() + "\n"


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else REPO / "docs" / "python.md")
    out.write_text(render())
