# SPDX-License-Identifier: MIT
"""RunConfig's profiles: <work_dir>/dfx_outputs/ gets the swimlane, the
simpler-format profile directory and deps.json of the last call."""

import json
import os

import numpy as np

import pto_npu.language as pl
from pto_npu.runtime import RunConfig

R, C, N = 16, 64, 3


@pl.jit
def profiled(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    for i in pl.spmd(N):
        pl.store(pl.exp(pl.load(x, [i * R, 0], [R, C])), [i * R, 0], y)
    return y


def test_profiles(tmp_path):
    cfg = RunConfig(enable_l2_swimlane=True, enable_dep_gen=True, work_dir=str(tmp_path))
    x = np.zeros((N * R, C), np.float32)
    y = np.zeros_like(x)
    profiled(x, y, config=cfg)
    assert (y == 1.0).all()
    out = tmp_path / "dfx_outputs"
    lane = json.load(open(out / "profiled_swimlane.json"))
    bars = [e for e in lane["traceEvents"] if e.get("cat") == "block"]
    assert sorted(b["args"]["block"] for b in bars) == list(range(N))
    deps = json.load(open(out / "profiled_deps.json"))
    assert len(deps["tasks"]) == 1 and deps["tasks"][0]["block_num"] == N
    for f in ("chip_swimlane_records.json", "deps.json", "name_map_profiled.json"):
        assert (out / f).is_file(), f
    assert profiled.traces == 1
    # Without the options nothing new is written.
    os.remove(out / "profiled_deps.json")
    profiled(x, y, config=RunConfig(work_dir=str(tmp_path)))
    assert not (out / "profiled_deps.json").exists()
