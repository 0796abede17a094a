# SPDX-License-Identifier: MIT
"""make bench's row 20 (tools/bench/py_call.py) once, quick: it runs and
emits a well-formed row (make check runs every bench row once)."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "tools", "bench", "py_call.py")


def test_row20_quick():
    r = subprocess.run([sys.executable, SCRIPT, "-q", "-r", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(ln.split(" ", 2)[2]) for ln in r.stdout.splitlines()
            if ln.startswith("=== PTO-BENCH-ROW ")]
    assert len(rows) == 1
    row = rows[0]
    assert row["row"] == "20" and row["status"] == "ok"
    assert row["a"]["median"] > 0 and row["b"]["median"] > 0
    assert row["ratio"]["median"] > 0 and row["target"]["value"] == 1.5
    bd = row["breakdown"]
    assert bd["first_call_ms"] >= bd["trace_compile_ms"] > 0
    assert bd["host_c_us"] > 0 and bd["host_same_work_ratio"] > 0
    assert bd["full_path_us"] > 0 and bd["full_path_ratio"] > 0
    assert bd["front_end_us"] > bd["null_launch_call_us"] > 0
    assert row["breakdown"]["host_call_us"] > row["breakdown"]["copies_alone_us"] > 0
