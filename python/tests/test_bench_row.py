# SPDX-License-Identifier: MIT
"""make bench's row 20 (tools/bench/py_call.py) once, as a smoke run (-s:
a few calls a form): it runs and emits a well-formed row (make check runs
every bench row once)."""

import contextlib
import importlib.util
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "tools", "bench", "py_call.py")


def test_row20_quick(monkeypatch):
    # In this interpreter: torch imported once for the suite (a second
    # interpreter's import is most of this test's time in the VM).
    spec = importlib.util.spec_from_file_location("py_call", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(sys, "argv", [SCRIPT, "-s", "-r", "1"])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = mod.main()
    assert rc == 0, err.getvalue()
    rows = [json.loads(ln.split(" ", 2)[2]) for ln in out.getvalue().splitlines()
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
