# SPDX-License-Identifier: MIT
"""pl.system: in-kernel barriers, GM coherence and the device's grid sizes."""

import enum

from ._trace import (CompileError, DeviceCount, TensorArg, active, as_expr,
                     current_task, user_line)


class SyncAllMode(enum.Enum):
    """HARD: the FFTS barrier (full occupancy); SOFT: a GM counter."""

    HARD = 0
    SOFT = 1


class KernelType(enum.Enum):
    """The participant set of a syncall: AIV, AIC or MIX (both kernels)."""

    AIV = 1
    AIC = 2
    MIX = 3


_ENUMS = ("mode and core_type are enums (pl.SyncAllMode, pl.KernelType — MIX "
          "is the both-kernel participant set); the strings these keywords "
          "once took are no longer accepted")


def _device():
    from . import _jit
    trace = active()
    return trace.device if trace is not None else _jit.default_device()


def available_aiv_count():
    """Every AIV of the device: the grid of a full-occupancy vector launch."""
    return DeviceCount(_device().available_aiv_count(), "aiv")


def available_cluster_count():
    """Every cluster: the grid of a full-occupancy mixed or cube launch."""
    return DeviceCount(_device().available_cluster_count(), "cluster")


def syncall(mode=SyncAllMode.HARD, core_type=KernelType.AIV,
            gm_workspace=None, used_cores=None):
    """Barrier across the blocks of the launch (arrival only)."""
    task = current_task("pl.system.syncall")
    if not isinstance(mode, SyncAllMode) or not isinstance(core_type, KernelType):
        raise CompileError("pl.system.syncall(mode=%r, core_type=%r): %s"
                           % (mode, core_type, _ENUMS))
    if mode is SyncAllMode.HARD:
        if gm_workspace is not None or used_cores is not None:
            raise CompileError("pl.system.syncall: a HARD barrier takes no "
                               "gm_workspace= or used_cores=")
        want = "available_aiv_count()" if core_type is KernelType.AIV \
            else "available_cluster_count()"
        kind = "aiv" if core_type is KernelType.AIV else "cluster"
        if not (isinstance(task.blocks, DeviceCount) and task.blocks.kind == kind):
            raise CompileError(
                "HardSyncallOccupancy: a HARD syncall (core_type %s) needs "
                "full occupancy: size the %s grid with pl.system.%s, not %r "
                "(a hard syncall under a partial launch deadlocks on device); "
                "use mode=pl.SyncAllMode.SOFT for a partial one (the %s "
                "at line %d)" % (core_type.name, task.kind, want,
                                 int(task.blocks), task.kind, task.where[1]))
        task.syncall_hard = core_type
        task.emit(("syncall", mode, core_type, None, None, user_line()))
        return
    if not isinstance(gm_workspace, TensorArg) or \
            gm_workspace.dtype.name != "int32" or \
            int(gm_workspace.view[0] * gm_workspace.view[1]) < 16:
        raise CompileError("pl.system.syncall(mode=SOFT): gm_workspace= is an "
                           "exclusive zero-initialised 16-element INT32 GM "
                           "tensor parameter, not %r" % (gm_workspace,))
    if used_cores is None:
        raise CompileError("pl.system.syncall(mode=SOFT): used_cores= is the "
                           "number of participants")
    task.reads.add(gm_workspace)
    task.writes.add(gm_workspace)
    task.emit(("syncall", mode, core_type, gm_workspace,
               as_expr(used_cores, "used_cores"), user_line()))


def cacheinvalid(tensor=None):
    """Invalidate this core's GM cache: all of it, or (a tensor view) only
    the cache line holding the view's base address."""
    task = current_task("pl.system.cacheinvalid")
    if tensor is not None and not isinstance(tensor, TensorArg):
        raise CompileError("pl.system.cacheinvalid(t): a tensor parameter, "
                           "not %r" % (tensor,))
    if tensor is not None:
        task.reads.add(tensor)
    task.emit(("cinv", tensor))


def fence():
    """Publish this core's GM stores to the other cores."""
    current_task("pl.system.fence").emit(("fence",))


__all__ = ["SyncAllMode", "KernelType", "available_aiv_count",
           "available_cluster_count", "syncall", "cacheinvalid", "fence"]
