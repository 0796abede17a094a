# SPDX-License-Identifier: MIT
"""pto_npu.runtime.RunConfig: how a @pl.jit call runs and what it writes."""

import os

from . import _libpto

PLATFORM = "pto_npu"

# PyPTO's platform names: the chip and its simulators.
_PYPTO_PLATFORMS = ("a2a3", "a2a3sim", "a5", "a5sim", "ascend910b",
                    "ascend910c", "npu", "sim", "cpu")


class RunConfig:
    """config= of a @pl.jit call.

    platform: "pto_npu" (the default; the only one this runtime runs).
    rtol, atol: the tolerances a caller's checks use (kept, not applied).
    enable_l2_swimlane, enable_dep_gen: after each call, write PyPTO's
    profiling files (simpler's schemas: chip_swimlane_records.json,
    deps.json, name_map_<graph>.json) into <work_dir>/dfx_outputs/, and
    beside them the Perfetto swimlane <function>_swimlane.json
    (enable_l2_swimlane) and pto-npu's <function>_deps.json
    (enable_dep_gen).
    work_dir: defaults to the current directory.
    """

    def __init__(self, platform=PLATFORM, rtol=1e-5, atol=1e-8,
                 enable_l2_swimlane=False, enable_dep_gen=False,
                 work_dir=None, **unknown):
        if unknown:
            raise TypeError("RunConfig: no option %s" % ", ".join(sorted(unknown)))
        if platform != PLATFORM:
            known = " (a PyPTO platform)" if str(platform).lower() in \
                _PYPTO_PLATFORMS else ""
            raise ValueError("RunConfig(platform=%r)%s: this runtime runs "
                             "platform=%r, the pto_npu virtual NPU"
                             % (platform, known, PLATFORM))
        self.platform, self.rtol, self.atol = platform, rtol, atol
        self.enable_l2_swimlane = bool(enable_l2_swimlane)
        self.enable_dep_gen = bool(enable_dep_gen)
        self.work_dir = work_dir

    def check(self):
        if self.platform != PLATFORM:
            raise ValueError("RunConfig: platform %r" % self.platform)

    @property
    def dfx_dir(self):
        """Where the profiles go: <work_dir>/dfx_outputs."""
        return os.path.join(self.work_dir or os.getcwd(), "dfx_outputs")

    def write_outputs(self, plan):
        """The last call's swimlane, deps.json and simpler files."""
        if not (self.enable_l2_swimlane or self.enable_dep_gen):
            return
        lib = _libpto.lib()
        os.makedirs(self.dfx_dir, exist_ok=True)
        name = plan.fn.__name__
        done = []
        # PyPTO's own files (simpler's schemas): chip_swimlane_records.json,
        # deps.json and name_map_<graph>.json, where its tools look.
        _write(lib.pto_graph_write_simpler, plan.graph, self.dfx_dir)
        if self.enable_l2_swimlane:
            path = os.path.join(self.dfx_dir, "%s_swimlane.json" % name)
            _write(lib.pto_graph_write_swimlane, plan.graph, path)
            done.append(path)
        if self.enable_dep_gen:
            path = os.path.join(self.dfx_dir, "%s_deps.json" % name)
            _write(lib.pto_graph_write_deps, plan.graph, path)
            done.append(path)
        return done


def _write(fn, graph, path):
    from .device import DeviceError
    rc = fn(graph, path.encode())
    if rc < 0:
        raise DeviceError("writing %s" % path, rc)


__all__ = ["RunConfig", "PLATFORM"]
