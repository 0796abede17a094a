# SPDX-License-Identifier: MIT
"""Tensors that live in device GM: pl.to_device() and pl.device_empty().

A @pl.jit call copies a host argument into the device tensor of its
signature and copies written ones back. An argument made here already is
device memory: the call binds it to the recorded graph's parameter at
launch (pto_graph_replay) and copies nothing, as a torch tensor on an NPU
is used in place. The object returned is the one recognised; a slice or
a view of it is a host array like any other and is copied.

The GM stays allocated while anything still refers to its memory (the
array, a torch tensor over it, a view of either).
"""

import ctypes
import weakref

import numpy as np

from .. import _libpto
from ..device import Tensor

# id(object returned) -> (weakref to it, weakref to its numpy view, its
# device Tensor). Weak both: the registry keeps nothing alive (a torch
# tensor keeps its numpy view).
_by_id = {}


def _forget(key, ref):
    ent = _by_id.get(key)
    if ent is not None and ent[0] is ref:
        del _by_id[key]


def _register(obj, view, tensor):
    key = id(obj)
    ref = weakref.ref(obj, lambda r, key=key: _forget(key, r))
    _by_id[key] = (ref, ref if view is obj else weakref.ref(view), tensor)
    return obj


def _view(tensor):
    """The tensor's GM as numpy; the GM is freed with the last reference."""
    lib = _libpto.lib()
    size = lib.pto_tensor_nbytes(tensor.handle)
    raw = (ctypes.c_char * size).from_address(lib.pto_tensor_data(tensor.handle))
    fin = weakref.finalize(raw, tensor.free)
    # At exit the device goes with the process: nothing to free then.
    fin.atexit = False
    return np.frombuffer(raw, dtype=tensor.dtype).reshape(tensor.shape)


def device_empty(shape, dtype=np.float32):
    """A numpy array of `shape` and `dtype` in device GM (contents zero)."""
    from ._jit import default_device
    if isinstance(shape, int):
        shape = (shape,)
    t = Tensor(default_device(), shape, dtype)
    view = _view(t)
    view[...] = 0
    return _register(view, view, t)


def to_device(x):
    """A copy of `x` (a CPU torch tensor or a numpy array) in device GM, of
    the same kind: pass it to @pl.jit functions to skip their copies."""
    if isinstance(x, np.ndarray):
        out = device_empty(x.shape, x.dtype)
        out[...] = x
        return out
    if type(x).__module__.split(".")[0] == "torch":
        import torch
        if x.device.type != "cpu":
            raise TypeError("to_device: a CPU torch tensor, not one on %s"
                            % x.device)
        src = x.detach().numpy()
        view = device_empty(src.shape, src.dtype)
        view[...] = src
        ent = _by_id[id(view)]
        return _register(torch.from_numpy(view), view, ent[2])
    raise TypeError("to_device: a torch tensor or a numpy array, not %r"
                    % type(x).__name__)


def lookup(obj):
    """(numpy view, device Tensor) of an object made here, else None (also
    when its GM is gone: a torch tensor given other storage in place,
    set_(), is a host tensor from then on)."""
    ent = _by_id.get(id(obj))
    if ent is None or ent[0]() is not obj:
        return None
    view = ent[1]()
    if view is None:
        return None
    return view, ent[2]


def is_device(obj):
    """Whether `obj` is device memory a @pl.jit call binds in place."""
    return lookup(obj) is not None
