"""The quickstart (`make demo`) runs to its end on a fresh warehouse and shows what it says it shows."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_quickstart_runs_and_shows_the_primary_key_table(tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "examples" / "quickstart.py"), str(tmp_path / "warehouse")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    out = done.stdout
    # the change set deleted id 1, updated id 3 and inserted id 4; UPDATE and DELETE then changed 4 and 2
    after = out.split("== after UPDATE and DELETE", 1)[1].split("==", 1)[0]
    rows = [line for line in after.splitlines() if line.startswith("|") and "id" not in line]
    assert [r.split("|")[1].strip() for r in rows] == ["3", "4"], after
    assert "35.00" in after and "41.00" in after, after
    assert "== full compaction committed snapshot" in out
    assert "accounts" in out.split("== tables", 1)[1]
