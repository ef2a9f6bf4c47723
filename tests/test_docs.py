"""Every code block of the documentation runs here, so the docs cannot rot.

Pages: README.md and docs/**/*.md, except docs/format/ (byte diagrams) and the generated
docs/options.md and docs/python.md. docs/README.md states the convention this file implements:

- ```python blocks of a page run in order, in one namespace per page; ```sql blocks run statement by
  statement through `spark.sql` (each result collected), interleaved with the page's python blocks in
  page order. ```sh / ```bash blocks run with bash in the repository's root, the venv's `bin` first on
  PATH. ```text blocks (output, diagrams, file contents) are never run. A fence with no language fails.
- A block whose first line is `# not run by the docs tests: <reason>` (`-- ...` in SQL) is not run; the
  reason must be given, and the reader sees it.
- Every page's namespace starts with `spark` (the suite's one session, catalog `lamina`) and
  `warehouse` (that catalog's warehouse path). A page may make its session itself as the getting-started
  page shows: `getOrCreate()` then returns the same session.
- An HTML comment `<!-- docs-test: ... -->` on the line before a fence gives the block fixtures
  (several may be named, separated by spaces):
  `warehouse` (the text `/tmp/lamina-warehouse` becomes the suite's warehouse), `postgres` (a private
  PostgreSQL server; `jdbc:postgresql://db.example.com:5432/lakehouse` becomes its URI), `s3` (an S3
  server on loopback; `http://127.0.0.1:9000` becomes its endpoint and `my-bucket` its bucket), `connect`
  (a Spark Connect server; `sc://localhost:15002` becomes its address, the block runs in a client
  process), or
  `raises <ExceptionName>` (the block must raise `lamina.<ExceptionName>`; a ```text block right after it
  is the example message, `...` standing for any text, and must match the message raised).
- After each page the namespaces and temporary views it created are dropped and the session settings
  it changed restored.

A failing block fails its page's test with the file and line of the block.
"""

import os
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXCLUDED = {"docs/options.md", "docs/python.md"}
RUNNABLE = {"python", "sql", "sh", "bash", "text"}
NOT_RUN = re.compile(r"^\s*(#|--)\s*not run by the docs tests:\s*(.*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
PLACEHOLDER_WAREHOUSE = "/tmp/lamina-warehouse"
PLACEHOLDER_PG = "jdbc:postgresql://db.example.com:5432/lakehouse"
PLACEHOLDER_S3_ENDPOINT = "http://127.0.0.1:9000"
PLACEHOLDER_S3_BUCKET = "my-bucket"
PLACEHOLDER_CONNECT = "sc://localhost:15002"


def pages():
    found = [REPO / "README.md"]
    for path in sorted((REPO / "docs").rglob("*.md")):
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith("docs/format/") or rel in EXCLUDED:
            continue
        found.append(path)
    return found


class Block:
    def __init__(self, page, line, lang, text, directive):
        self.page, self.line, self.lang, self.text, self.directive = page, line, lang, text, directive

    @property
    def where(self):
        return f"{self.page}:{self.line}"

    def skip_reason(self):
        first = self.text.lstrip("\n").split("\n", 1)[0]
        m = NOT_RUN.match(first)
        return None if m is None else m.group(2).strip()


def blocks(path: Path):
    rel = path.relative_to(REPO).as_posix()
    lines = path.read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)\s*([^\s`]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        start = i
        directive = None
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and DIRECTIVE.match(lines[j]):
            directive = DIRECTIVE.match(lines[j]).group(1)
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i >= len(lines):
            raise AssertionError(f"{rel}:{start + 1}: a code block is not closed")
        out.append(Block(rel, start + 1, lang, "\n".join(body) + "\n", directive))
        i += 1
    return out


def sql_statements(text: str):
    """Splits on `;` outside quotes and `--` comments; returns the non-empty statements."""
    out, cur, quote, i = [], [], None, 0
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
            cur.append(c)
        elif c == "-" and text.startswith("--", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif c == ";":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return [s.strip() for s in out if s.strip()]


def _wildcard(example: str) -> re.Pattern:
    parts = [re.escape(p) for p in example.strip().split("...")]
    return re.compile(".*".join(r"\s+".join(p.split(r"\ ")) for p in parts), re.S)


class Fixtures:
    """Servers started at most once, when a block first asks for them."""

    def __init__(self):
        self._pg = None
        self._s3 = None
        self._connect = None
        self._stack = []

    def postgres_uri(self):
        if self._pg is None:
            sys.path.insert(0, str(REPO / "tests"))
            from _postgres import postgres_server
            gen = postgres_server()
            self._pg = next(gen)
            self._stack.append(gen)
        return self._pg.uri

    def s3(self):
        if self._s3 is None:
            from _s3 import S3Server
            server = S3Server()
            server.__enter__()
            self._s3 = server
            self._stack.append(server)
        return self._s3

    def connect(self):
        if self._connect is None:
            from _connect import ConnectServer
            server = ConnectServer()
            server.__enter__()
            self._connect = server
            self._stack.append(server)
        return self._connect

    def close(self):
        for item in reversed(self._stack):
            if hasattr(item, "__exit__"):
                item.__exit__(None, None, None)
            else:
                for _ in item:
                    pass
        self._stack.clear()


@pytest.fixture(scope="module")
def fixtures():
    f = Fixtures()
    yield f
    f.close()


def _namespaces(spark):
    return {r[0] for r in spark.sql("SHOW NAMESPACES IN lamina").collect()}


def _temp_views(spark):
    return {r.viewName for r in spark.sql("SHOW VIEWS").collect() if r.isTemporary}


def run_block(block, ns, spark, warehouse, fixtures, rel):
    text = block.text
    words = (block.directive or "").split()
    if words[:1] == ["raises"]:
        words = []
    for kind in words:
        if kind == "warehouse":
            text = text.replace(PLACEHOLDER_WAREHOUSE, warehouse)
        elif kind == "postgres":
            text = text.replace(PLACEHOLDER_PG, fixtures.postgres_uri())
        elif kind == "s3":
            s3 = fixtures.s3()
            text = text.replace(PLACEHOLDER_S3_ENDPOINT, s3.endpoint).replace(PLACEHOLDER_S3_BUCKET, s3.bucket)
        elif kind == "connect":
            text = text.replace(PLACEHOLDER_CONNECT, fixtures.connect().url)
        else:
            raise AssertionError(f"{block.where}: unknown docs-test directive {block.directive!r}")

    if "connect" in words:
        # a Connect client switches PySpark's functions to Connect for its whole process: its own process
        assert block.lang == "python", f"{block.where}: a connect block is python"
        done = subprocess.run([sys.executable, "-c", text], cwd=REPO / "tests", capture_output=True, text=True,
                              timeout=600, env={k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"})
        if done.returncode != 0:
            raise AssertionError(f"exit status {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    elif block.lang == "python":
        exec(compile(text, block.where, "exec"), ns)
    elif block.lang == "sql":
        for statement in sql_statements(text):
            spark.sql(statement).collect()
    elif block.lang in ("sh", "bash"):
        env = dict(os.environ)
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        env["PYTHONPATH"] = str(REPO / "python") + os.pathsep + env.get("PYTHONPATH", "")
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise AssertionError(f"exit status {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_page(path, spark, warehouse, fixtures):
    import lamina

    rel = path.relative_to(REPO).as_posix()
    page_blocks = blocks(path)
    conf_before = dict(spark.conf.getAll)
    ns_before = _namespaces(spark)
    views_before = _temp_views(spark)
    ns = {"__name__": f"docs:{rel}", "spark": spark, "warehouse": warehouse}
    try:
        expected_error = None  # (block, exception) of the last `raises` block, for the text block after it
        for block in page_blocks:
            if block.lang not in RUNNABLE:
                raise AssertionError(f"{block.where}: a code block needs one of the languages {sorted(RUNNABLE)}, "
                                     f"got {block.lang!r}")
            if block.lang == "text":
                if expected_error is not None:
                    prev, error = expected_error
                    message = getattr(error, "message", None) or str(error)
                    if not _wildcard(block.text).search(message):
                        pytest.fail(f"{block.where}: the example message does not match the error that "
                                    f"the block at line {prev.line} raised:\n{message}", pytrace=False)
                expected_error = None
                continue
            expected_error = None
            reason = block.skip_reason()
            if reason is not None:
                assert reason, f"{block.where}: 'not run by the docs tests:' needs a reason"
                continue
            directive = (block.directive or "").split()
            started = time.monotonic()
            try:
                run_block(block, ns, spark, warehouse, fixtures, rel)
            except Exception as e:  # noqa: BLE001 - reported with the block's place
                if directive and directive[0] == "raises" and isinstance(e, getattr(lamina, directive[1])):
                    expected_error = (block, e)
                    if os.environ.get("LAMINA_DOCS_TIMES"):
                        print(f"{block.where}: raised {type(e).__name__}: {getattr(e, 'message', e)}")
                    continue
                failure = f"{block.where}: the {block.lang} block failed:\n" + \
                    "".join(traceback.format_exception_only(type(e), e))[-4000:]
            else:
                failure = None
            if failure is not None:
                pytest.fail(failure, pytrace=False)
            if os.environ.get("LAMINA_DOCS_TIMES"):
                print(f"{block.where}: {time.monotonic() - started:.1f} s")
            if directive and directive[0] == "raises":
                pytest.fail(f"{block.where}: the block should raise lamina.{directive[1]} and did not", pytrace=False)
    finally:
        for name in _namespaces(spark) - ns_before:
            try:
                spark.sql(f"DROP NAMESPACE IF EXISTS lamina.`{name}` CASCADE")
            except Exception:  # noqa: BLE001 - the page's own result matters more
                pass
        for name in _temp_views(spark) - views_before:
            spark.catalog.dropTempView(name)
        conf_after = dict(spark.conf.getAll)
        for key, value in conf_after.items():
            try:
                if key not in conf_before:
                    spark.conf.unset(key)
                elif conf_before[key] != value:
                    spark.conf.set(key, conf_before[key])
            except Exception:  # noqa: BLE001 - static settings cannot change anyway
                pass


def test_links_point_to_files():
    """Relative links between pages (and to files of the repository) resolve."""
    broken = []
    for path in pages() + [REPO / "docs" / "options.md", REPO / "docs" / "python.md"]:
        rel = path.relative_to(REPO).as_posix()
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1).split("#", 1)[0]
            if not target or re.match(r"^[a-z]+:", target):
                continue
            if not (path.parent / target).exists():
                broken.append(f"{rel}: {m.group(1)}")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_blocks_are_found_with_their_line_language_directive_and_reason(tmp_path, monkeypatch):
    """The parser this file relies on: a wrong line number or a missed block would hide a failure."""
    page = tmp_path / "page.md"
    page.write_text("# t\n\n<!-- docs-test: raises BadInputException -->\n```sql\nSELECT 1;\n```\n\n"
                    "```sh\n# not run by the docs tests: needs a cluster\nmake x\n```\n\n"
                    "  ```python\n  x = 1\n  ```\n```\nbare\n```\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    found = blocks(page)
    assert [(b.line, b.lang, b.directive) for b in found] == [
        (4, "sql", "raises BadInputException"), (8, "sh", None), (13, "python", None), (16, "", None)]
    assert [b.skip_reason() for b in found] == [None, "needs a cluster", None, None]
    assert found[2].text == "x = 1\n"


def test_sql_blocks_split_into_statements_outside_quotes_and_comments():
    text = "SELECT ';' AS a; -- a comment; still a comment\nSELECT `x;y` FROM t;\n\n  SELECT 3"
    assert sql_statements(text) == ["SELECT ';' AS a", "SELECT `x;y` FROM t", "SELECT 3"]


def test_example_messages_match_with_ellipses():
    assert _wildcard("Tag 'v1' of table ... already exists").search("Tag 'v1' of table err.t already exists")
    assert not _wildcard("Tag 'v2' ...").search("Tag 'v1' of table err.t already exists")
