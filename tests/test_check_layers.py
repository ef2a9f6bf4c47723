"""Self-test of tools/check_layers.py: each rule fails on a tree that breaks it, so the check run by
`make test` cannot pass silently; and the project's own tree passes."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "check_layers.py"

_spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
check_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_layers)

CLEAN = {
    "spark/LaminaCatalog.scala": "package lamina.spark\n\nimport org.apache.spark.sql.SparkSession\n"
                                 "import org.apache.spark.sql.connector.catalog.TableCatalog\n",
    "mergetree/Levels.scala": "package lamina.mergetree\n\nimport lamina.table.manifest.DataFileMeta\n\n"
                              "/** See [[lamina.mergetree.SortedRun]]; a session is not a SparkSession here. */\n"
                              "final class Levels(files: Seq[DataFileMeta])\n",
    "table/options/MergeEngine.scala": 'package lamina.table.options\n\nobject MergeEngine { val Key = "merge-engine" }\n',
    "lookup/Block.scala": "package lamina.lookup\n\n// org.apache.spark is named in a comment only\nfinal class Block\n",
}


def tree(tmp_path: Path, extra: dict) -> Path:
    root = tmp_path / "lamina"
    for rel, text in {**CLEAN, **extra}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def run(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root)], capture_output=True, text=True)


def test_a_clean_tree_passes(tmp_path):
    result = run(tree(tmp_path, {}))
    assert result.returncode == 0, result.stdout + result.stderr
    assert check_layers.check(str(tree(tmp_path, {})), known={}) == []


@pytest.mark.parametrize("rel, text, expected", [
    ("table/Warehouse.scala", "package lamina.table\n\nimport org.apache.spark.sql.SparkSession\n",
     "connector: table/Warehouse.scala: uses SparkSession outside spark/, jobs/, tools/"),
    ("mergetree/Rule.scala", "package lamina.mergetree\n\nimport org.apache.spark.sql.catalyst.rules.Rule\n",
     "connector: mergetree/Rule.scala: uses catalyst.rules outside spark/, jobs/, tools/"),
    ("table/scan/Scan.scala", "package lamina.table.scan\n\nimport lamina.spark.LaminaTable\n",
     "adapter: table/scan/Scan.scala: references lamina.spark outside spark/, jobs/, tools/"),
    ("dv/Bitmap.scala", "package lamina.dv\n\nimport org.apache.spark.sql.catalyst.InternalRow\n",
     "adapter: dv/Bitmap.scala: lookup/ and dv/ never reference org.apache.spark"),
    ("table/sink/Rows.scala", 'package lamina.table.sink\n\nobject Rows { val e = "first-row" }\n',
     'merge-engine: table/sink/Rows.scala: holds the literal(s) "first-row"'),
    ("mergetree/Writer.scala", "package lamina.mergetree\n\nobject Writer { def f = new lamina.errors.BadInputException(\"x\") }\n",
     "qualified: mergetree/Writer.scala: inline qualified name lamina.errors.BadInputException"),
    ("mergetree/Writer.scala", "package lamina.mergetree\n\nimport lamina.table.manifest.{DataFileMeta, ManifestEntry}\n"
     "import lamina.table.options.CoreOptions\nimport lamina.table.commit.FileStoreCommit\n",
     "seam: mergetree/Writer.scala: imports from table/ beyond the option registry and the file-metadata types: "
     "lamina.table.commit.FileStoreCommit, lamina.table.manifest.ManifestEntry"),
    ("table/tag/Tags.scala", "package lamina.table.tag\n\nobject Tags { def p(d: Path, n: String) = new Path(d, n) }\n",
     "path: table/tag/Tags.scala: builds a Hadoop Path with new Path(...): use io/PathNames (child, descendant, of)"),
])
def test_each_rule_fails_a_tree_that_breaks_it(tmp_path, rel, text, expected):
    root = tree(tmp_path, {rel: text})
    result = run(root)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [expected]


def test_at_most_two_files_use_spark_execution_internals(tmp_path):
    files = {f"spark/F{i}.scala": "package lamina.spark\n\nimport org.apache.spark.sql.execution.SparkPlan\n"
             for i in range(3)}
    assert run(tree(tmp_path, dict(list(files.items())[:2]))).returncode == 0
    result = run(tree(tmp_path, files))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "execution: 3 files use org.apache.spark.sql.execution, at most 2 may: "
        "spark/F0.scala, spark/F1.scala, spark/F2.scala"]


def test_known_debt_that_is_paid_must_leave_the_list(tmp_path):
    root = tree(tmp_path, {})
    assert check_layers.check(str(root), known={"mergetree/Levels.scala": {"qualified"}}) == [
        "qualified: mergetree/Levels.scala: listed as known debt but keeps the rule now; remove it from KNOWN"]


def test_the_project_keeps_the_layer_rules():
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
