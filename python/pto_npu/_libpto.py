# SPDX-License-Identifier: GPL-2.0-only
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
                ("reserved", c_u64 * 8)]


class MemoryInfo(ctypes.Structure):
    """struct pto_memory_info."""

    _fields_ = [("device_buffers", c_u64), ("device_bytes", c_u64),
                ("context_buffers", c_u64), ("context_bytes", c_u64),
                ("reserved", c_u64 * 4)]


# enum pto_dtype
DTYPES = {"float32": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5,
          "uint8": 6, "uint16": 7, "uint32": 8, "uint64": 9}

_SIGS = {
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
        for name, (res, args) in _SIGS.items():
            fn = getattr(loaded, name)
            fn.restype = res
            fn.argtypes = args
        _lib = loaded
    return _lib


def strerror(err):
    """pto_strerror() of a negative errno libpto returned."""
    return lib().pto_strerror(err).decode()
