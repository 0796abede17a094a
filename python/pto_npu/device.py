# SPDX-License-Identifier: MIT
"""A pto_npu device and its GM tensors, as Python objects over libpto."""

import ctypes

import numpy as np

from . import _libpto


class DeviceError(OSError):
    """A libpto call failed: errno and libpto's own description."""

    def __init__(self, call, err):
        super().__init__(-err, "%s: %s" % (call, _libpto.strerror(err)))


def _check(call, ret):
    if ret < 0:
        raise DeviceError(call, ret)
    return ret


class Tensor:
    """A row-major GM tensor; .numpy() is the host's view of its memory."""

    def __init__(self, device, shape, dtype):
        dtype = np.dtype(dtype)
        if dtype.name not in _libpto.DTYPES:
            raise TypeError("pto_npu has no %s tensors (dtypes: %s)"
                            % (dtype.name, ", ".join(_libpto.DTYPES)))
        self.device = device
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        dims = (ctypes.c_int64 * max(len(self.shape), 1))(*self.shape)
        handle = ctypes.c_void_p()
        _check("pto_tensor_alloc",
               _libpto.lib().pto_tensor_alloc(device.handle,
                                              _libpto.DTYPES[dtype.name],
                                              len(self.shape), dims,
                                              ctypes.byref(handle)))
        self.handle = handle

    def numpy(self):
        """The tensor's GM as a numpy array (shared, not a copy)."""
        lib = _libpto.lib()
        size = lib.pto_tensor_nbytes(self.handle)
        raw = (ctypes.c_char * size).from_address(lib.pto_tensor_data(self.handle))
        return np.frombuffer(raw, dtype=self.dtype).reshape(self.shape)

    def free(self):
        """Release the tensor's GM (views from numpy() must be dropped)."""
        if self.handle:
            _libpto.lib().pto_tensor_free(self.handle)
            self.handle = None


class Device:
    """An open pto_npu device: /dev/accel/accel<index>."""

    def __init__(self, index=0):
        handle = ctypes.c_void_p()
        _check("pto_device_open(%d)" % index,
               _libpto.lib().pto_device_open(index, ctypes.byref(handle)))
        self.handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Close the handle; the device frees everything it held."""
        if self.handle:
            _libpto.lib().pto_device_close(self.handle)
            self.handle = None

    def _query(self, call, struct):
        out = struct()
        _check(call, getattr(_libpto.lib(), call)(self.handle, ctypes.byref(out)))
        return out

    @property
    def path(self):
        """The device node."""
        return _libpto.lib().pto_device_path(self.handle).decode()

    def info(self):
        """struct pto_device_info: topology and local buffer budgets."""
        return self._query("pto_device_query_info", _libpto.DeviceInfo)

    def limits(self):
        """struct pto_limits: the caps on every count and size."""
        return self._query("pto_device_query_limits", _libpto.Limits)

    def memory(self):
        """struct pto_memory_info: GM accounting."""
        return self._query("pto_device_query_memory", _libpto.MemoryInfo)

    def available_cluster_count(self):
        """Grid size of a whole-device mixed or cube SPMD launch."""
        return _libpto.lib().pto_available_cluster_count(self.handle)

    def available_aiv_count(self):
        """Grid size of a whole-device vector SPMD launch."""
        return _libpto.lib().pto_available_aiv_count(self.handle)

    def tensor(self, shape, dtype=np.float32):
        """A new zero-filled GM tensor."""
        return Tensor(self, shape, dtype)


__all__ = ["Device", "DeviceError", "Tensor"]
