# SPDX-License-Identifier: MIT
"""The guide's compile-time rules: each is a CompileError at trace time, in
the guide's words, naming the user's file and line (marked "# <- here")."""

import inspect

import numpy as np
import pytest

import pto_npu.language as pl
from pto_npu.runtime import RunConfig

R, C = 64, 128


def _line(fn):
    src, first = inspect.getsourcelines(fn.fn)
    marks = [first + i for i, s in enumerate(src) if "# <- here" in s]
    assert len(marks) == 1
    return marks[0]


def _refused(fn, args, words):
    with pytest.raises(pl.CompileError) as ei:
        fn(*args)
    e = ei.value
    assert e.filename == __file__
    assert e.lineno == _line(fn), str(e)
    for w in words:
        assert w in e.msg, e.msg
    assert fn.cache == {}          # nothing half-built is kept
    return e


def f32(r=R, c=C):
    return np.zeros((r, c), np.float32)


def test_slot_num_default_does_not_fit():
    @pl.jit
    def big_mixed(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP,  # <- here
                   optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            out[:] = pl.add(acc, bias)
        return out

    _refused(big_mixed, (f32(128, 32), f32(32, 128), f32(128, 128), f32(128, 128)),
             ["default 8 slots", "slot_num= is usually not optional"])

    @pl.jit
    def fits(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP,
                   optimizations=[pl.split(pl.SplitMode.UP_DOWN),
                                  pl.cross_core_slot(slot_num=2)]):
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            out[:] = pl.add(acc, bias)
        return out

    a, b = np.ones((128, 32), np.float32), np.ones((32, 128), np.float32)
    bias, out = np.full((128, 128), 2.0, np.float32), f32(128, 128)
    fits(a, b, bias, out)
    assert (out == 34.0).all()


def _gated(pred_of, gate_dtype=np.int32):
    return pred_of, (f32(), np.zeros((1, 2), gate_dtype), f32())


def test_predicate_literal_only():
    @pl.jit
    def g(a: pl.Tensor, gate: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(2, predicate=(gate[0, 0] > 0.5)):  # <- here
            pl.store(pl.load(a, [0, 0], [R, C]), [0, 0], out)

    _refused(g, (f32(), np.zeros((1, 2), np.int32), f32()),
             ["tensor[indices] OP int-literal", "int literal"])


def test_predicate_no_arithmetic():
    @pl.jit
    def g(a: pl.Tensor, gate: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(2, predicate=(gate[0, 0] + 1 > 0)):  # <- here
            pl.store(pl.load(a, [0, 0], [R, C]), [0, 0], out)

    _refused(g, (f32(), np.zeros((1, 2), np.int32), f32()), ["no arithmetic"])


def test_predicate_no_and_or():
    @pl.jit
    def g(a: pl.Tensor, gate: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(2, predicate=(gate[0, 0] > 0) and (gate[0, 1] > 0)):  # <- here
            pl.store(pl.load(a, [0, 0], [R, C]), [0, 0], out)

    _refused(g, (f32(), np.zeros((1, 2), np.int32), f32()), ["no and/or"])

    @pl.jit
    def h(a: pl.Tensor, gate: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(2, predicate=(gate[0, 0] > 0) | (gate[0, 1] > 0)):  # <- here
            pl.store(pl.load(a, [0, 0], [R, C]), [0, 0], out)

    _refused(h, (f32(), np.zeros((1, 2), np.int32), f32()), ["no and/or"])


def test_predicate_unsigned_operand():
    @pl.jit
    def g(a: pl.Tensor, gate: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(2, predicate=(gate[0, 0] > 0)):  # <- here
            pl.store(pl.load(a, [0, 0], [R, C]), [0, 0], out)

    _refused(g, (f32(), np.zeros((1, 2), np.uint32), f32()),
             ["signed 8/16/32/64-bit integer tensor", "uint32"])


def test_predicate_producer_not_in_deps():
    @pl.jit
    def g(a: pl.Tensor, gate: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
        with pl.spmd(1) as producer:
            pl.store(pl.load(gate, [0, 0], [1, 2]), [0, 0], gate)
        with pl.spmd(2, predicate=(gate[0, 0] > 0)):  # <- here
            pl.store(pl.load(a, [0, 0], [R, C]), [0, 0], out)
        return producer

    e = _refused(g, (f32(), np.zeros((1, 2), np.int32), f32()),
                 ["not among this task's deps=", "stale"])
    assert "line %d" % (_line(g) - 2) in e.msg


def test_hard_syncall_occupancy():
    @pl.jit
    def g(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(48):
            pl.store(pl.load(a, [0, 0], [1, C]), [0, 0], out)
            pl.system.syncall(core_type=pl.KernelType.AIV)  # <- here

    _refused(g, (f32(), f32()), ["HardSyncallOccupancy",
                                 "available_aiv_count()", "SOFT"])

    @pl.jit
    def mixed(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(pl.system.available_aiv_count()):
            pl.store(pl.load(a, [0, 0], [1, C]), [0, 0], out)
            pl.system.syncall(core_type=pl.KernelType.MIX)  # <- here

    _refused(mixed, (f32(), f32()), ["available_cluster_count()"])


@pytest.mark.parametrize("kw", [{"mode": "hard"}, {"core_type": "aiv"}])
def test_syncall_enums_only(kw):
    @pl.jit
    def g(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(pl.system.available_aiv_count()):
            pl.store(pl.load(a, [0, 0], [1, C]), [0, 0], out)
            pl.system.syncall(**kw)  # <- here

    _refused(g, (f32(), f32()), ["are enums", "no longer accepted"])


def test_refused_by_name():
    @pl.jit
    def lr(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):  # <- here
            out[:] = pl.matmul(a, b)

    _refused(lr, (f32(16, 16), f32(16, 16), f32(16, 16)), ["LEFT_RIGHT"])

    @pl.jit
    def fp16(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at():
            out[:] = pl.matmul(a, b)  # <- here

    with pytest.raises(TypeError, match="float16"):
        fp16(np.zeros((16, 16), np.float16), np.zeros((16, 16), np.float16),
             f32(16, 16))

    @pl.jit
    def mm16(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at():
            out[:] = pl.matmul(a, b, out_dtype=np.float16)  # <- here

    _refused(mm16, (f32(16, 16), f32(16, 16), f32(16, 16)), ["FP32 only"])


def test_runconfig_platforms():
    assert RunConfig().platform == "pto_npu"
    for p in ("a2a3sim", "a2a3", "a5sim"):
        with pytest.raises(ValueError, match="platform='pto_npu'"):
            RunConfig(platform=p)


def test_cache_per_signature():
    @pl.jit
    def twice(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at():
            out[:] = pl.mul(a, 2.0)
        return out

    for shape in ((8, 16), (8, 16), (16, 16), (8, 16)):
        a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        out = np.zeros(shape, np.float32)
        assert twice(a, out) is out
        assert (out == a * 2).all()
    assert twice.traces == 2 and len(twice.cache) == 2
    twice.clear()
