# SPDX-License-Identifier: MIT
"""Arguments in device GM (pl.to_device, pl.device_empty): a @pl.jit call
binds them at the launch and copies nothing; anything else is copied."""

import gc

import numpy as np
import pytest
import torch

import pto_npu.language as pl

N, R, C = 4, 16, 64


@pl.jit
def axpy(x: pl.Tensor, y: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.spmd(N):
        tx = pl.load(x, [i * R, 0], [R, C])
        ty = pl.load(y, [i * R, 0], [R, C])
        pl.store(pl.add(pl.mul(tx, 2.0), ty), [i * R, 0], out)
    return out


def inputs():
    torch.manual_seed(1)
    x = torch.randint(-50, 50, (N * R, C)).float()
    y = torch.randint(-50, 50, (N * R, C)).float()
    return x, y, x * 2.0 + y


def test_device_arguments_are_bound_not_copied():
    x, y, want = inputs()
    dx, dy = pl.to_device(x), pl.to_device(y)
    dout = pl.to_device(torch.zeros(N * R, C))
    assert isinstance(dx, torch.Tensor) and pl.is_device(dx)
    assert not pl.is_device(x) and not pl.is_device(dx[1:])
    axpy(x, y, torch.zeros(N * R, C))
    plan = axpy.last()
    for v in plan.views:
        v[...] = 0
    got = axpy(dx, dy, dout)
    assert got is dout and torch.equal(dout, want)
    # The signature's own device tensors were not used: the launch bound
    # the caller's, so they still hold zeros.
    assert axpy.last() is plan
    assert not any(v.any() for v in plan.views)
    # Changed in place, seen by the next call.
    dy += 1.0
    axpy(dx, dy, dout)
    assert torch.equal(dout, want + 1.0)
    assert axpy.traces == 1


def test_host_and_device_arguments_mix():
    x, y, want = inputs()
    dy = pl.to_device(y)
    out = torch.zeros(N * R, C)
    axpy(x, dy, out)
    assert torch.equal(out, want)
    # A host output is copied back from the signature's own tensor.
    assert np.array_equal(axpy.last().views[2], want.numpy())


def test_numpy_device_arrays():
    x, y, want = (t.numpy() for t in inputs())
    dx = pl.to_device(x)
    dout = pl.device_empty(x.shape, pl.FP32)
    assert isinstance(dout, np.ndarray) and not dout.any()
    axpy(dx, y, dout)
    assert np.array_equal(dout, want)


def test_one_device_tensor_passed_twice_is_copied():
    x, _, _ = inputs()
    dx = pl.to_device(x)
    out = pl.device_empty(x.shape, pl.FP32)
    axpy(dx, dx, out)
    assert np.array_equal(out, (x * 3.0).numpy())
    # Then bound again on its own.
    axpy(dx, pl.to_device(torch.zeros_like(x)), out)
    assert np.array_equal(out, (x * 2.0).numpy())


def test_a_view_of_device_memory_is_a_host_array():
    x, y, want = inputs()
    big = pl.to_device(torch.cat([x, x]))
    view = big[: N * R]
    assert not pl.is_device(view)
    out = torch.zeros(N * R, C)
    axpy(view, y, out)
    assert torch.equal(out, want)


def test_gm_freed_with_the_last_reference():
    d = pl.device_empty((R, C), pl.FP32)
    tensor = pl._resident.lookup(d)[1]
    view = d[2:]
    del d
    gc.collect()
    assert tensor.handle          # the view still refers to the GM
    view[...] = 7                 # and it is still mapped
    del view
    gc.collect()
    assert tensor.handle is None


def test_to_device_refuses_other_objects():
    with pytest.raises(TypeError, match="torch tensor or a numpy array"):
        pl.to_device([1.0, 2.0])
