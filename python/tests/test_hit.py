# SPDX-License-Identifier: MIT
"""A @pl.jit call with the argument objects of an earlier call (the hit
path, _jit._Hit): the same results as the full path, whatever the caller
changed since (contents, shape, dtype, storage, device), and no record
kept for objects that died."""

import errno
import gc

import numpy as np
import pytest
import torch

import pto_npu.language as pl
from pto_npu.device import DeviceError

N, R, C = 4, 16, 64


@pl.jit
def axpy(x: pl.Tensor, y: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.spmd(N):
        tx = pl.load(x, [i * R, 0], [R, C])
        ty = pl.load(y, [i * R, 0], [R, C])
        pl.store(pl.add(pl.mul(tx, 2.0), ty), [i * R, 0], out)
    return out


@pl.jit
def both(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.spmd(N):
        pl.store(pl.add(pl.load(x, [i * R, 0], [R, C]), 1.0), [i * R, 0], out)
    return x, out


@pl.jit
def inc(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.load(x, [0, 0], list(x.shape)), 1)
    return out


def ints(seed, rows=N * R):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(-50, 50, (rows, C), generator=g).float()


def hit_of(fn, *args):
    return fn._hits.get(tuple(map(id, args)))


def test_device_hit_is_the_one_launch_and_sees_new_contents():
    x, y = ints(1), ints(2)
    dx, dy, dout = pl.to_device(x), pl.to_device(y), pl.to_device(x * 0)
    assert axpy(dx, dy, dout) is dout
    hit = hit_of(axpy, dx, dy, dout)
    assert hit is not None and hit.fast
    for k in range(3):
        dx += 1.0
        assert axpy(dx, dy, dout) is dout
        assert torch.equal(dout, (x + k + 1) * 2.0 + y)
    assert hit_of(axpy, dx, dy, dout) is hit and axpy.last() is hit.plan


def test_host_hit_copies_in_and_back_each_call():
    x, y = ints(3), ints(4)
    out = torch.zeros(N * R, C)
    traces = axpy.traces
    axpy(x, y, out)
    hit = hit_of(axpy, x, y, out)
    assert hit is not None and not hit.fast
    x += 3.0
    out.zero_()
    assert axpy(x, y, out) is out
    assert torch.equal(out, x * 2.0 + y)
    # numpy arrays the same way
    xn, yn, on = x.numpy().copy(), y.numpy().copy(), np.zeros((N * R, C), np.float32)
    axpy(xn, yn, on)
    xn -= 1.0
    axpy(xn, yn, on)
    assert np.array_equal(on, xn * 2.0 + yn)
    assert axpy.traces == traces


def test_numpy_shape_assigned_in_place_is_a_new_signature():
    x = np.arange(512, dtype=np.float32).reshape(8, 64)
    out = np.zeros_like(x)
    inc(x, out)
    traces = inc.traces
    # The same objects, another shape: traced again, as the full path does.
    for a in (x, out):
        a.shape = (16, 32)
    x += 1.0
    inc(x, out)
    assert inc.traces == traces + 1 and out.shape == (16, 32)
    assert np.array_equal(out, x + 1.0)
    for a in (x, out):
        a.shape = (8, 64)
    inc(x, out)
    assert inc.traces == traces + 1
    assert np.array_equal(out, x + 1.0)


def test_numpy_dtype_assigned_in_place_is_seen():
    x = np.arange(512, dtype=np.float32).reshape(8, 64)
    out = np.zeros_like(x)
    inc(x, out)
    traces = inc.traces
    x.dtype = np.int32                 # the same bytes, read as int32
    out.dtype = np.int32
    x[...] = np.arange(512, dtype=np.int32).reshape(8, 64)
    inc(x, out)
    assert inc.traces == traces + 1
    assert out.dtype == np.int32 and np.array_equal(out, x + 1)


def test_torch_storage_replaced_in_place_gets_the_result():
    x, y = ints(9), ints(10)
    out = torch.zeros(N * R, C)
    axpy(x, y, out)
    old = out.numpy()
    out.set_(torch.zeros(N * R, C))      # new storage, same object
    x += 1.0
    axpy(x, y, out)
    assert torch.equal(out, x * 2.0 + y)
    assert not old.any() or not np.array_equal(old, out.numpy())
    # Resized in place: another signature, as the full path sees it.
    t = torch.arange(512, dtype=torch.float32).reshape(8, 64)
    o = torch.zeros(8, 64)
    inc(t, o)
    t.resize_(2, 256)
    o.resize_(2, 256)
    inc(t, o)
    assert inc.last().args[0].shape == (2, 256) and torch.equal(o, t + 1.0)


def test_torch_moved_off_the_cpu_is_refused_on_a_hit():
    class Moving(torch.Tensor):
        # torch's own kind of tensor, as the front end takes them
        __module__ = "torch.test_hit"
    x, y = ints(11), ints(12)
    out = torch.zeros(N * R, C).as_subclass(Moving)
    axpy(x, y, out)
    assert torch.equal(out, x * 2.0 + y) and hit_of(axpy, x, y, out)
    # Its device changes with no new object (as .data = or .to_() would).
    Moving.device = property(lambda self: torch.device("meta"))
    with pytest.raises(TypeError, match="out: a CPU torch tensor, not one on meta"):
        axpy(x, y, out)


def test_dead_arguments_drop_their_record():
    x, y = ints(13), ints(14)
    dx, dy, dout = pl.to_device(x), pl.to_device(y), pl.to_device(x * 0)
    axpy(dx, dy, dout)
    key = tuple(map(id, (dx, dy, dout)))
    assert key in axpy._hits
    del dx
    gc.collect()
    assert key not in axpy._hits
    # New objects, perhaps at the same ids: the full path, right results.
    for seed in range(3):
        a, b = pl.to_device(ints(20 + seed)), pl.to_device(ints(30 + seed))
        o = pl.to_device(torch.zeros(N * R, C))
        axpy(a, b, o)
        assert torch.equal(o, a * 2.0 + b)
        del a, b, o


def test_device_tensor_given_other_storage_is_a_host_tensor():
    x, y = ints(23), ints(24)
    dx, dy = pl.to_device(x), pl.to_device(y)
    dout = pl.to_device(torch.zeros(N * R, C))
    axpy(dx, dy, dout)
    key = tuple(map(id, (dx, dy, dout)))
    assert key in axpy._hits
    # Its GM goes with its old storage: the record binding it goes first.
    dout.set_(torch.zeros(N * R, C))
    gc.collect()
    assert key not in axpy._hits and not pl.is_device(dout)
    axpy(dx, dy, dout)
    assert torch.equal(dout, x * 2.0 + y)


def test_records_are_bounded():
    x, y = ints(15), ints(16)
    keep = []
    for _ in range(40):
        out = torch.zeros(N * R, C)
        keep.append(out)
        axpy(x, y, out)
    assert len(axpy._hits) <= 16
    assert all(torch.equal(o, x * 2.0 + y) for o in keep)


def test_device_tensor_passed_twice_on_a_hit():
    x = ints(17)
    dx = pl.to_device(x)
    out = pl.device_empty(x.shape, pl.FP32)
    axpy(dx, dx, out)
    dx += 1.0
    axpy(dx, dx, out)
    assert np.array_equal(out, ((x + 1.0) * 3.0).numpy())


def test_tuple_return_and_trace_name_on_a_hit():
    x = ints(18)
    out = torch.zeros(N * R, C)
    dx = pl.to_device(x)
    for _ in range(2):
        got = both(dx, out)
        assert got[0] is dx and got[1] is out
        assert torch.equal(out, x + 1.0)
    plan = both.last()
    both.trace_name = "renamed"
    dout = pl.to_device(torch.zeros(N * R, C))
    both(dx, dout)
    both(dx, dout)
    assert plan._named == "renamed" and torch.equal(dout, x + 1.0)
    both.trace_name = "both"
    both(dx, dout)
    assert plan._named == "both"


def test_a_launch_failing_on_a_hit_raises():
    x, y = ints(19), ints(20)
    for args in ((pl.to_device(x), pl.to_device(y), pl.to_device(x * 0)),
                 (x, y, torch.zeros(N * R, C))):
        axpy(*args)
        hit = hit_of(axpy, *args)
        good = hit.replay
        hit.replay = lambda *a: -errno.EIO
        try:
            with pytest.raises(DeviceError) as e:
                axpy(*args)
            assert e.value.errno == errno.EIO and "axpy on pto_npu" in str(e.value)
        finally:
            hit.replay = good
        axpy(*args)
        assert torch.equal(args[2], x * 2.0 + y)


def test_clear_drops_the_records():
    x = ints(21)
    dx = pl.to_device(x)
    out = torch.zeros(N * R, C)
    both(dx, out)
    assert both._hits
    both.clear()
    assert not both._hits and not both.cache
    both(dx, out)
    assert torch.equal(out, x + 1.0)


def test_a_config_writing_no_profiles_hits_one_writing_them_does_not(tmp_path):
    from pto_npu.runtime import RunConfig
    x = ints(22)
    dx, dout = pl.to_device(x), pl.to_device(torch.zeros(N * R, C))
    cfg = RunConfig(platform="pto_npu")
    both(dx, dout, config=cfg)
    hit = hit_of(both, dx, dout)
    assert hit is not None and hit.fast
    dx += 1.0
    both(dx, dout, config=cfg)
    assert hit_of(both, dx, dout) is hit and torch.equal(dout, x + 2.0)
    with pytest.raises(ValueError, match="platform"):
        bad = RunConfig()
        bad.platform = "a2a3"
        both(dx, dout, config=bad)
    # Profiles: written by every call, the full path's.
    prof = RunConfig(enable_dep_gen=True, work_dir=str(tmp_path))
    deps = tmp_path / "dfx_outputs" / "both_deps.json"
    both(dx, dout, config=prof)
    assert deps.exists()
    deps.unlink()
    both(dx, dout, config=prof)
    assert deps.exists()
