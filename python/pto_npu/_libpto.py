# SPDX-License-Identifier: MIT
"""ctypes declarations of libpto's C API (libpto/include/pto/pto.h).

libpto.so is found through $PTO_LIBPTO (a path), else the loader's search
path (make install puts it in LIBDIR).
"""

import ctypes
import os

c_u32 = ctypes.c_uint32
c_u64 = ctypes.c_uint64
c_void_p = ctypes.c_void_p


class DeviceInfo(ctypes.Structure):
    """struct pto_device_info."""

    _fields_ = [("uapi_version", c_u32), ("device_index", c_u32),
                ("clusters", c_u32), ("aic_cores", c_u32),
                ("aiv_cores", c_u32), ("aiv_ub_size", c_u32),
                ("aic_l1_size", c_u32), ("aic_l0a_size", c_u32),
                ("aic_l0b_size", c_u32), ("aic_l0c_size", c_u32),
                ("capabilities", c_u64), ("reserved", c_u64 * 8)]


class Limits(ctypes.Structure):
    """struct pto_limits."""

    _fields_ = [("max_buffer_size", c_u64), ("max_gm_per_context", c_u64),
                ("max_buffers_per_context", c_u32),
                ("max_kernels_per_context", c_u32), ("max_insns", c_u32),
                ("max_queues_per_context", c_u32), ("max_sq_slots", c_u32),
                ("max_cq_entries", c_u32), ("max_inflight_tasks", c_u32),
                ("max_tensor_args", c_u32), ("max_scalar_args", c_u32),
                ("max_deps", c_u32), ("max_block_num", c_u32),
                ("timeout_ms", c_u32), ("work_budget", c_u64),
                ("min_work_budget", c_u64), ("max_work_budget", c_u64),
                ("max_inflight_units", c_u32), ("pad", c_u32),
                ("reserved", c_u64 * 7)]


class MemoryInfo(ctypes.Structure):
    """struct pto_memory_info."""

    _fields_ = [("device_buffers", c_u64), ("device_bytes", c_u64),
                ("context_buffers", c_u64), ("context_bytes", c_u64),
                ("reserved", c_u64 * 4)]


# enum pto_dtype
DTYPES = {"float32": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5,
          "uint8": 6, "uint16": 7, "uint32": 8, "uint64": 9}

class Predicate(ctypes.Structure):
    """struct pto_predicate."""

    _fields_ = [("tensor", c_u32), ("op", ctypes.c_int), ("row", c_u32),
                ("col", c_u32), ("literal", ctypes.c_int64)]


class TaskDesc(ctypes.Structure):
    """struct pto_task_desc (queue.h)."""

    _fields_ = [("name", ctypes.c_char_p), ("kernel_aiv", c_void_p),
                ("kernel_aic", c_void_p), ("block_num", c_u32),
                ("flags", c_u32), ("tensors", ctypes.POINTER(c_void_p)),
                ("num_tensors", c_u32), ("num_scalars", c_u32),
                ("scalars", ctypes.POINTER(ctypes.c_int64)),
                ("deps", ctypes.POINTER(ctypes.c_int64)), ("num_deps", c_u32),
                ("split_mode", ctypes.c_int),
                ("predicate", ctypes.POINTER(Predicate)),
                ("user_data", c_u64), ("slot_num", c_u32),
                ("reserved32", c_u32),
                ("tensor_dirs", ctypes.POINTER(ctypes.c_uint8)),
                ("reserved", c_u64 * 2)]


class BlockInfo(ctypes.Structure):
    """struct pto_block_info."""

    _fields_ = [("block", c_u32), ("status", ctypes.c_int32),
                ("core", ctypes.c_uint16), ("core_type", ctypes.c_uint8),
                ("reason", ctypes.c_uint8), ("flags", c_u32),
                ("detail", c_u64), ("ts_dispatch", c_u64),
                ("ts_receive", c_u64), ("ts_start", c_u64),
                ("ts_end", c_u64), ("ts_finish", c_u64)]


class QueueParams(ctypes.Structure):
    """struct pto_queue_params."""

    _fields_ = [("sq_slots", c_u32), ("cq_entries", c_u32),
                ("work_budget", c_u64), ("flags", c_u32),
                ("reserved32", c_u32), ("reserved", c_u64 * 3)]


# queue.h and pto_npu_isa.h constants the front end uses
TASK_SYNC_START = 1 << 0
TASK_EARLY_RESOLVE = 1 << 1
GRID_ALL_AIV = 0xffffffff
GRID_ALL_CLUSTERS = 0xfffffffe
ARG_IN, ARG_OUT = 1, 2
QUEUE_PROFILE = 1 << 0
CORE_AIV, CORE_AIC = 1, 2
BUF_UB, BUF_L1, BUF_L0A, BUF_L0B, BUF_L0C = 1, 2, 3, 4, 5
SREG_BLOCK_IDX, SREG_BLOCK_NUM, SREG_SUB_BLOCK_ID = 0, 1, 2
SYNC_AIV, SYNC_AIC, SYNC_MIX = 1, 2, 3
ALU = {"+": 0, "-": 1, "*": 2, "//": 3, "%": 4, "min": 10, "max": 11}
CMP = {"==": 0, "!=": 1, ">": 2, "<": 3, ">=": 4, "<=": 5}
TBIN = {"add": 0, "sub": 1, "mul": 2, "div": 3, "max": 4, "min": 5}
TUNARY = {"exp": 0, "sqrt": 1, "relu": 2, "neg": 3, "abs": 4}
ROWRED = {"sum": 0, "max": 1}
SPLIT_NONE, SPLIT_UP_DOWN = 0, 1
STATUS_SKIPPED = 8
BLOCK_RAN, BLOCK_STAGED = 1 << 1, 1 << 2

_P = c_void_p
_I = ctypes.c_int
_U = ctypes.c_uint
_PP = ctypes.POINTER(c_void_p)
_I64 = ctypes.c_int64
_F = ctypes.c_float

_KB_SIGS = {
    "pto_kb_new": [_P, _I, _PP], "pto_kb_tile": [_P, _I, _I, c_u32, c_u32],
    "pto_kb_end": [_P], "pto_kb_ldi": [_P, _U, _I64], "pto_kb_mov": [_P, _U, _U],
    "pto_kb_sreg": [_P, _U, _I], "pto_kb_arg": [_P, _U, _U],
    "pto_kb_alu": [_P, _I, _U, _U, _U], "pto_kb_alui": [_P, _I, _U, _U, _I64],
    "pto_kb_fence": [_P], "pto_kb_cacheinvalid": [_P],
    "pto_kb_cacheinvalid_tensor": [_P, c_u32],
    "pto_kb_syncall_hard": [_P, _I], "pto_kb_syncall_soft": [_P, _U, _U],
    "pto_kb_tload": [_P, _U, _U, _U, _U], "pto_kb_tstore": [_P, _U, _U, _U, _U],
    "pto_kb_tmov": [_P, _U, _U], "pto_kb_tfillf": [_P, _U, _F],
    "pto_kb_tfilli": [_P, _U, _I64], "pto_kb_tbin": [_P, _I, _U, _U, _U],
    "pto_kb_tbinsf": [_P, _I, _U, _U, _F], "pto_kb_tbinsi": [_P, _I, _U, _U, _I64],
    "pto_kb_tunary": [_P, _I, _U, _U], "pto_kb_trowred": [_P, _I, _U, _U],
    "pto_kb_tcast": [_P, _U, _U], "pto_kb_matmul": [_P, _U, _U, _U, ctypes.c_bool],
    "pto_kb_push": [_P, _U], "pto_kb_pop": [_P, _U], "pto_kb_finish": [_P, _PP],
}

_SIGS = {
    "pto_kb_free": (None, [_P]),
    "pto_kb_error": (ctypes.c_char_p, [_P]),
    "pto_kernel_free": (None, [_P]),
    "pto_mixed_check": (_I, [_P, _P, _I, _U, ctypes.c_char_p, ctypes.c_size_t]),
    "pto_queue_create_params": (_I, [_P, ctypes.POINTER(QueueParams), _PP]),
    "pto_queue_destroy": (_I, [_P]),
    "pto_graph_new": (_I, [_P, _PP]),
    "pto_graph_free": (None, [_P]),
    "pto_graph_add_task": (_I, [_P, ctypes.POINTER(TaskDesc)]),
    "pto_graph_error": (ctypes.c_char_p, [_P]),
    "pto_graph_set_name": (_I, [_P, ctypes.c_char_p]),
    "pto_graph_run": (_I, [_P, _P, _I64]),
    "pto_graph_record": (_I, [_P, _PP, _U, _P, _U, _PP]),
    "pto_graph_replay": (_I, [_P, _P, _P, _PP, ctypes.POINTER(_I64), _I64]),
    "pto_graph_exec_free": (None, [_P]),
    "pto_graph_task_count": (_U, [_P]),
    "pto_graph_task_status": (_I, [_P, _U, _P, _P]),
    "pto_graph_task_blocks": (_I, [_P, _U, ctypes.POINTER(ctypes.POINTER(BlockInfo)),
                                   ctypes.POINTER(_U)]),
    "pto_graph_first_error": (_I, [_P, ctypes.c_char_p, ctypes.c_size_t]),
    "pto_graph_write_swimlane": (_I, [_P, ctypes.c_char_p]),
    "pto_graph_write_deps": (_I, [_P, ctypes.c_char_p]),
    "pto_graph_write_simpler": (_I, [_P, ctypes.c_char_p]),
    "pto_status_name": (ctypes.c_char_p, [_I]),
    "pto_strerror": (ctypes.c_char_p, [ctypes.c_int]),
    "pto_device_open": (ctypes.c_int, [ctypes.c_uint, ctypes.POINTER(c_void_p)]),
    "pto_device_close": (None, [c_void_p]),
    "pto_device_path": (ctypes.c_char_p, [c_void_p]),
    "pto_device_query_info": (ctypes.c_int, [c_void_p, ctypes.POINTER(DeviceInfo)]),
    "pto_device_query_limits": (ctypes.c_int, [c_void_p, ctypes.POINTER(Limits)]),
    "pto_device_query_memory": (ctypes.c_int, [c_void_p, ctypes.POINTER(MemoryInfo)]),
    "pto_available_cluster_count": (ctypes.c_uint, [c_void_p]),
    "pto_available_aic_count": (ctypes.c_uint, [c_void_p]),
    "pto_available_aiv_count": (ctypes.c_uint, [c_void_p]),
    "pto_tensor_alloc": (ctypes.c_int, [c_void_p, ctypes.c_int, ctypes.c_uint,
                                        ctypes.POINTER(ctypes.c_int64),
                                        ctypes.POINTER(c_void_p)]),
    "pto_tensor_free": (None, [c_void_p]),
    "pto_tensor_data": (c_void_p, [c_void_p]),
    "pto_tensor_nbytes": (ctypes.c_size_t, [c_void_p]),
}

_lib = None


def lib():
    """The loaded libpto, its functions typed (loaded once)."""
    global _lib
    if _lib is None:
        loaded = ctypes.CDLL(os.environ.get("PTO_LIBPTO", "libpto.so"),
                             use_errno=True)
        sigs = dict(_SIGS)
        sigs.update((k, (_I, v)) for k, v in _KB_SIGS.items())
        for name, (res, args) in sigs.items():
            fn = getattr(loaded, name)
            fn.restype = res
            fn.argtypes = args
        _lib = loaded
    return _lib


def strerror(err):
    """pto_strerror() of a negative errno libpto returned."""
    return lib().pto_strerror(err).decode()
