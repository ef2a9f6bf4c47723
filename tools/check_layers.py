#!/usr/bin/env python3
"""Checks the layer rules of docs/design.md on the Scala sources under jvm/src/main/scala/lamina.

Rules (paths relative to the lamina package directory):
  1. connector: Spark's connector, analysis, plan and rule APIs and SparkSession appear only in
     spark/, jobs/ and tools/;
  2. execution: org.apache.spark.sql.execution appears in at most two files;
  3. merge-engine: the literals "merge-engine", "deduplicate", "first-row", "partial-update" appear
     only in the option registry and the merge-engine type;
  4. adapter: nothing outside spark/, jobs/ and tools/ references lamina.spark; lookup/ and dv/
     never reference org.apache.spark;
  5. qualified: no inline fully-qualified lamina.<package>.<Type> in code (imports and package
     lines aside);
  6. path: a Hadoop Path is built from a string only in io/PathNames.scala (`new Path(...)` nowhere
     else), which checks that every name placed under a directory is one path segment, so that no
     branch, tag, consumer or file name can reach outside its directory;
  7. seam: mergetree/, lookup/, dv/ and format/ import from lamina.table only the option registry
     (lamina.table.options) and the file-metadata types of SEAM_TYPES: the merge tree gets what it
     needs from what it is given, and table/ commits.
Comments are not code: rules 1, 2, 4, 5, 6 and 7 look at code with comments blanked, rule 3 at string
literals only.

KNOWN lists the files that break a rule today, as debt to pay: the check fails on any other file,
and also when a listed file no longer breaks its rule (remove it from the list), so the list only
shrinks. Exit status 0 when every rule holds, 1 otherwise; each violation is printed as
`rule: file: what`.
"""
import argparse
import os
import re
import sys

ADAPTER_DIRS = ("spark/", "jobs/", "tools/")
CONNECTOR = re.compile(r"org\.apache\.spark\.sql\.connector|catalyst\.analysis|catalyst\.plans|catalyst\.rules|\bSparkSession\b")
EXECUTION = re.compile(r"org\.apache\.spark\.sql\.execution\b")
MAX_EXECUTION_FILES = 2
ENGINE_LITERALS = ("merge-engine", "deduplicate", "first-row", "partial-update")
MERGE_ENGINE_FILES = ("table/options/CoreOptions.scala", "table/options/MergeEngine.scala")  # registry, type
LAMINA_SPARK = re.compile(r"\blamina\.spark\b")
APACHE_SPARK = re.compile(r"org\.apache\.spark\b")
NEW_PATH = re.compile(r"\bnew\s+(?:org\.apache\.hadoop\.fs\.)?Path\s*\(")
PATH_FILES = ("io/PathNames.scala",)
BELOW_TABLE = ("mergetree/", "lookup/", "dv/", "format/")
SEAM_TYPES = {
    "lamina.table.manifest": {"DataFileMeta", "SimpleStats", "IndexFileMeta"},
    "lamina.table": {"KeyValueLayout", "FileStorePaths"},
}
TABLE_IMPORT = re.compile(r"^\s*import\s+(lamina\.table(?:\.[a-z]\w*)*)\.(\{[^}]*\}|\w+|_)", re.M)
QUALIFIED = re.compile(r"(?<![\w.])lamina\.[a-z][\w]*(?:\.[a-z][\w]*)*\.[A-Z]\w*")

# Debt: file -> rules it breaks today (see the module doc). Only Spark's execution package is left: the
# two files below use what Spark offers nowhere else; the seam (rule 7) has no debt.
KNOWN = {
    # DataSourceV2Relation, the plan node of a V2 table, which the extensions' rules must match: Spark
    # keeps it in an execution package and offers no public alternative
    "spark/V2Relations.scala": {"execution"},
    # SQLExecution's registry of running executions: the only synchronous way to know that the query
    # holding a snapshot lease ended (listener events arrive later than an expiration that follows it)
    "spark/read/QueryLifetime.scala": {"execution"},
}


def split_code(text):
    """Returns (code with comments and string contents blanked, list of string literals)."""
    code, strings = [], []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            code.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            code.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            strings.append(text[i + 3:j - 3])
            code.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j - 2]) + '""')
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            strings.append(text[i + 1:j - 1])
            code.append('"' + " " * (j - i - 2) + '"')
            i = j
        elif text[i] == "'" and i + 2 < n and (text[i + 2] == "'" or text[i + 1] == "\\"):
            j = text.find("'", i + 2) + 1
            code.append(" " * (j - i))
            i = j
        else:
            code.append(text[i])
            i += 1
    return "".join(code), strings


def violations_of(rel, text):
    """(rule, message) pairs for one file, `rel` relative to the lamina package directory."""
    code, strings = split_code(text)
    out = []
    adapter = rel.startswith(ADAPTER_DIRS)
    if not adapter:
        m = CONNECTOR.search(code)
        if m:
            out.append(("connector", f"uses {m.group(0)} outside spark/, jobs/, tools/"))
        m = LAMINA_SPARK.search(code)
        if m:
            out.append(("adapter", "references lamina.spark outside spark/, jobs/, tools/"))
    if rel.startswith(("lookup/", "dv/")) and APACHE_SPARK.search(code):
        out.append(("adapter", "lookup/ and dv/ never reference org.apache.spark"))
    if EXECUTION.search(code):
        out.append(("execution", "uses org.apache.spark.sql.execution"))
    if rel not in MERGE_ENGINE_FILES:
        found = sorted({s for s in strings if s in ENGINE_LITERALS})
        if found:
            out.append(("merge-engine", "holds the literal(s) " + ", ".join(f'"{s}"' for s in found)))
    if rel.startswith(BELOW_TABLE):
        beyond = sorted(n for n in seam_imports(code) if not n.startswith("lamina.table.options."))
        if beyond:
            out.append(("seam", "imports from table/ beyond the option registry and the file-metadata types: "
                        + ", ".join(beyond)))
    if rel not in PATH_FILES and NEW_PATH.search(code):
        out.append(("path", "builds a Hadoop Path with new Path(...): use io/PathNames (child, descendant, of)"))
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith(("import ", "package ")):
            continue
        m = QUALIFIED.search(line)
        if m:
            out.append(("qualified", f"inline qualified name {m.group(0)}"))
            break
    return out


def seam_imports(code):
    """Each lamina.table name `code` imports, as package.Name, that SEAM_TYPES does not allow."""
    out = []
    for m in TABLE_IMPORT.finditer(code):
        package, names = m.group(1), m.group(2)
        if package.startswith("lamina.table.options") or package == "lamina.table.options":
            continue
        listed = [n.strip().split("=>")[0].strip() for n in names.strip("{}").split(",")]
        out.extend(f"{package}.{n}" for n in listed if n and n not in SEAM_TYPES.get(package, set()))
    return out


def check(root, known=None):
    """Violations under `root` (a lamina package directory) as printable lines, beyond `known`."""
    known = KNOWN if known is None else known
    found = {}
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".scala"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, encoding="utf-8") as f:
                found[rel] = violations_of(rel, f.read())
    problems = []
    execution_files = sorted(rel for rel, vs in found.items() if any(r == "execution" for r, _ in vs))
    for rel, vs in sorted(found.items()):
        for rule, msg in vs:
            if rule == "execution":
                continue
            if rule not in known.get(rel, set()):
                problems.append(f"{rule}: {rel}: {msg}")
    unexplained = [rel for rel in execution_files if "execution" not in known.get(rel, set())]
    if len(unexplained) > MAX_EXECUTION_FILES:
        problems.append(f"execution: {len(unexplained)} files use org.apache.spark.sql.execution, at most "
                        f"{MAX_EXECUTION_FILES} may: {', '.join(unexplained)}")
    for rel, rules in sorted(known.items()):
        for rule in sorted(rules):
            if rel in found and not any(r == rule for r, _ in found[rel]):
                problems.append(f"{rule}: {rel}: listed as known debt but keeps the rule now; remove it from KNOWN")
    return problems


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "jvm", "src", "main", "scala", "lamina")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=default, help="the lamina package directory to check")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.root):
        print(f"check_layers: no directory {args.root}", file=sys.stderr)
        return 1
    problems = check(args.root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} violation(s) of the layer rules (docs/design.md)", file=sys.stderr)
        return 1
    print("check_layers: the layer rules hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
