# SPDX-License-Identifier: MIT
"""pl.submit and pl.spmd_submit (PyPTO's surface: out, tid = ...), with
deps=, predicate=, allow_early_resolve= and sync_start=, on the device."""

import numpy as np

import pto_npu.language as pl

R, C, N = 16, 64, 4


def scale(x, y, k):
    """A kernel: y = x * k for this block's rows."""
    i = pl.tile.get_block_idx()
    pl.store(pl.mul(pl.load(x, [i * R, 0], [R, C]), k), [i * R, 0], y)
    return y


def bump(y):
    i = pl.tile.get_block_idx()
    pl.store(pl.add(pl.load(y, [i * R, 0], [R, C]), 1.0), [i * R, 0], y)
    return y


@pl.jit
def chain(x: pl.Tensor, gate: pl.Tensor, y: pl.Out[pl.Tensor], z: pl.Out[pl.Tensor]):
    with pl.manual_scope():
        y1, t1 = pl.spmd_submit(scale, x, y, 3.0, core_num=N, allow_early_resolve=True)
        _, t2 = pl.spmd_submit(bump, y1, core_num=N, deps=[t1],
                               predicate=(gate[0, 0] != 0))
        z1, _ = pl.submit(lambda a, b: pl.store(pl.load(a, [0, 0], [R, C]), [0, 0], b),
                          y1, z, deps=[t2])
    return y, z


def test_submit_forms():
    x = np.arange(N * R * C, dtype=np.float32).reshape(N * R, C) % 17
    for g in (0, 5):
        gate = np.full((1, 1), g, np.int32)
        y, z = np.zeros_like(x), np.zeros((R, C), np.float32)
        ry, rz = chain(x, gate, y, z)
        assert ry is y and rz is z
        want = x * 3.0 + (1.0 if g else 0.0)
        assert np.array_equal(y, want)
        assert np.array_equal(z, want[:R])
        # Off a profiling queue a launch reports only its own completion:
        # a skipped node then reads OK (pto_graph_replay()); y shows the skip.
        st = chain.statuses()
        assert st[0] == st[2] == "OK" and st[1] in (("OK",) if g else ("OK", "SKIPPED"))
    tasks = next(iter(chain.cache.values())).trace.tasks
    assert [t.blocks for t in tasks] == [N, N, 1]
    assert tasks[0].early_resolve and not tasks[1].early_resolve
    assert [d.index for d in tasks[2].deps] == [1]
    assert chain.traces == 1


@pl.jit
def together(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    out, _ = pl.spmd_submit(scale, x, y, 2.0, core_num=N, sync_start=True)
    return out


def test_spmd_submit_sync_start():
    x = np.ones((N * R, C), np.float32)
    y = np.zeros_like(x)
    assert together(x, y) is y
    assert (y == 2.0).all()
    (plan,) = together.cache.values()
    assert plan.kernels[0].flags & 1          # PTO_TASK_SYNC_START


def test_spmd_submit_needs_core_num():
    @pl.jit
    def f(x: pl.Tensor, y: pl.Out[pl.Tensor]):
        pl.spmd_submit(scale, x, y, 2.0)  # <- here

    try:
        f(np.ones((N * R, C), np.float32), np.zeros((N * R, C), np.float32))
    except pl.CompileError as e:
        assert "core_num= is required" in e.msg
        assert e.filename == __file__
    else:
        raise AssertionError("no CompileError")
