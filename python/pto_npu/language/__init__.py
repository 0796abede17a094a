# SPDX-License-Identifier: MIT
"""pto_npu.language, imported as pl: the guide's Python on the device.

    import pto_npu.language as pl
    from pto_npu.runtime import RunConfig

@pl.jit functions trace into tasks (pl.at, pl.spmd scopes) of tile
operations; each argument signature is compiled once into device kernels
and a recorded task graph, and every call is one replay launch.
Arguments made by pl.to_device() / pl.device_empty() are device memory,
bound at the launch with no copy.
Documentation/python.rst.
"""

import numpy as np

from . import system  # noqa: F401
from ._jit import Out, Tensor, jit  # noqa: F401
from ._ops import (Level, SplitMode, TaskId, abs, add, at, cast,  # noqa: F401
                   cross_core_slot, div, exp, load, manual_scope, matmul,
                   maximum, minimum, mul, neg, relu, row_max, row_sum, spmd,
                   spmd_submit, split, sqrt, store, sub, submit, tile,
                   unroll)
from ._resident import device_empty, is_device, to_device  # noqa: F401
from ._trace import CompileError  # noqa: F401
from .system import KernelType, SyncAllMode  # noqa: F401

FP32 = np.float32
INT8 = np.int8
INT16 = np.int16
INT32 = np.int32
INT64 = np.int64
