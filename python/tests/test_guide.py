# SPDX-License-Identifier: MIT
"""The guide's code blocks (../shared/seed/runtime-overhead.txt), as the guide
prints them: only the import lines changed and __PLATFORM__ filled in. Its
module-level code is here at module level; its checking loops run as the
tests below. Fragments (the mixed kernel, the SPMD forms, the syncalls) are
wrapped in a @pl.jit function, nothing else changed."""

# --- the guide's preamble -------------------------------------------------
import pto_npu.language as pl
import torch
from pto_npu.runtime import RunConfig

BLOCKS, TILE_ROWS, COLS = 4, 64, 128
ROWS = BLOCKS * TILE_ROWS
CFG = RunConfig(platform="pto_npu")

torch.manual_seed(0)
A = torch.randn(ROWS, COLS, dtype=torch.float32)
B = torch.randn(ROWS, COLS, dtype=torch.float32)

def fresh(rows=ROWS):
    return torch.zeros(rows, COLS, dtype=torch.float32)


# --- "Use SPMD": both forms -------------------------------------------------
@pl.jit
def per_block_tasks(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    for i in pl.unroll(BLOCKS):                     # BLOCKS dispatches
        with pl.at(level=pl.Level.CORE_GROUP):
            ta = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            tb = pl.load(b, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.add(ta, tb), [i * TILE_ROWS, 0], c)
    return c

@pl.jit
def spmd_blocks(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    for i in pl.spmd(BLOCKS):                       # one dispatch, BLOCKS blocks
        ta = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
        tb = pl.load(b, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
        pl.store(pl.add(ta, tb), [i * TILE_ROWS, 0], c)
    return c


def test_spmd_vs_per_block_tasks():
    for kernel in (per_block_tasks, spmd_blocks):
        c = fresh()
        kernel(A, B, c, config=CFG)
        torch.testing.assert_close(c, A + B, rtol=1e-4, atol=1e-4)
    # f32 addition is exact per element: bit for bit with the CPU
    c = fresh()
    spmd_blocks(A, B, c, config=CFG)
    assert torch.equal(c, A + B)
    assert len(per_block_tasks.cache) == 1 and len(spmd_blocks.cache) == 1
    plan_tasks = next(iter(per_block_tasks.cache.values())).trace.tasks
    plan_spmd = next(iter(spmd_blocks.cache.values())).trace.tasks
    assert [t.blocks for t in plan_tasks] == [1] * BLOCKS
    assert [t.blocks for t in plan_spmd] == [BLOCKS]


# --- "Skip the task entirely" -------------------------------------------------
@pl.jit
def gated(a: pl.Tensor, gate: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.manual_scope():
        with pl.spmd(BLOCKS) as base_tid:                    # always dispatched
            i = pl.tile.get_block_idx()
            t = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.mul(t, 2.0), [i * TILE_ROWS, 0], out)
        # Dispatched only when the scheduler finds gate[0, 0] > 0.
        with pl.spmd(BLOCKS, deps=[base_tid], predicate=(gate[0, 0] > 0)) as _bump:
            i = pl.tile.get_block_idx()
            t = pl.load(out, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.add(t, 1.0), [i * TILE_ROWS, 0], out)
    return out


def test_gated_predicate():
    for gate_value, expected in ((0, A * 2.0), (1, A * 2.0 + 1.0)):
        gate = torch.full((1, 1), gate_value, dtype=torch.int32)
        out = fresh()
        gated(A, gate, out, config=CFG)
        torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
    assert gated.traces == 1      # the second gate value was a cache hit


# --- "Let consumers pre-stage" ------------------------------------------------
@pl.jit
def early_resolve(a: pl.Tensor, b: pl.Tensor, scratch: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True):
        s = pl.add(pl.load(a, [0, 0], [TILE_ROWS, COLS]), pl.load(b, [0, 0], [TILE_ROWS, COLS]))
        pl.store(s, [0, 0], scratch)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.exp(pl.load(scratch, [0, 0], [TILE_ROWS, COLS])), [0, 0], out)
    return scratch, out


def test_early_resolve():
    scratch, out = fresh(TILE_ROWS), fresh(TILE_ROWS)
    early_resolve(A[:TILE_ROWS], B[:TILE_ROWS], scratch, out, config=CFG)
    torch.testing.assert_close(out, torch.exp(A[:TILE_ROWS] + B[:TILE_ROWS]), rtol=1e-3, atol=1e-4)
    r = early_resolve(A[:TILE_ROWS], B[:TILE_ROWS], scratch, out, config=CFG)
    assert r[0] is scratch and r[1] is out
    assert torch.equal(scratch, A[:TILE_ROWS] + B[:TILE_ROWS])
    first, second = next(iter(early_resolve.cache.values())).trace.tasks
    assert first.early_resolve and not second.early_resolve


# --- "Build a mixed kernel": the fragment in three modes ----------------------
M, K, N = 64, 128, 64


@pl.jit
def mixed_up_down(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(
        level=pl.Level.CORE_GROUP,
        optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)],
    ):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)   # cube (AIC)
        out[:] = pl.add(acc, bias)                 # vector (AIV)
    return out


@pl.jit
def mixed_no_split(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(
        level=pl.Level.CORE_GROUP,
        optimizations=[pl.cross_core_slot(slot_num=2)],
    ):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)   # cube (AIC)
        out[:] = pl.add(acc, bias)                 # vector (AIV)
    return out


@pl.jit
def mixed_default_slots(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)   # cube (AIC)
        out[:] = pl.add(acc, bias)                 # vector (AIV)
    return out


def _mixed_case(m, k, n):
    g = torch.Generator().manual_seed(m * k + n)
    # small integers: every product and sum is exact in f32
    a = torch.randint(-4, 5, (m, k), generator=g).float()
    b = torch.randint(-4, 5, (k, n), generator=g).float()
    bias = torch.randint(-8, 9, (m, n), generator=g).float()
    return a, b, bias, torch.zeros(m, n)


def test_mixed_kernel_modes():
    for kernel, shape in ((mixed_up_down, (M, K, N)), (mixed_no_split, (M, K, N)),
                          (mixed_default_slots, (16, 32, 16))):
        a, b, bias, out = _mixed_case(*shape)
        kernel(a, b, bias, out, config=CFG)
        assert torch.equal(out, a @ b + bias), kernel.__name__
        (task,) = next(iter(kernel.cache.values())).trace.tasks
        c = next(iter(kernel.cache.values())).kernels[0]
        assert c.aic and c.aiv, "one mixed task: both kernels"


# --- "Use SPMD": the fragments ------------------------------------------------
num_blocks, TILE = BLOCKS, TILE_ROWS


@pl.jit
def spmd_forms(x: pl.Tensor, out: pl.Out[pl.Tensor], out2: pl.Out[pl.Tensor]):
    # Loop form — the index is bound for you, the body is outlined automatically
    for i in pl.spmd(num_blocks):
        tile = pl.load(x, [i * TILE, 0], [TILE, COLS])
        pl.store(pl.exp(tile), [i * TILE, 0], out)
    with pl.spmd(num_blocks) as prev_tid:
        i = pl.tile.get_block_idx()
        pl.store(pl.load(out, [i * TILE, 0], [TILE, COLS]), [i * TILE, 0], out2)

    # With a captured TaskId, so later tasks can depend on the whole grid
    with pl.spmd(num_blocks, deps=[prev_tid]) as tid:
        ...
    with pl.spmd(num_blocks, deps=[tid]):
        i = pl.tile.get_block_idx()
        t = pl.load(out2, [i * TILE, 0], [TILE, COLS])
        pl.store(pl.add(t, 1.0), [i * TILE, 0], out2)
    return out, out2


def test_spmd_fragments():
    out, out2 = fresh(), fresh()
    spmd_forms(A, out, out2, config=CFG)
    torch.testing.assert_close(out, torch.exp(A), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(out2, out + 1.0, rtol=0, atol=0)


# --- "Synchronize inside the kernel": HARD and SOFT ------------------------
@pl.jit
def hard_fragment(x: pl.Tensor):
    # Hard barrier (FFTS): no operands, but requires FULL occupancy
    with pl.spmd(pl.system.available_aiv_count()):
        ...
        pl.system.syncall(core_type=pl.KernelType.AIV)
        ...


@pl.jit
def hard_exchange(x: pl.Tensor, mid: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    n = pl.system.available_aiv_count()
    with pl.spmd(n):
        i = pl.tile.get_block_idx()
        pl.store(pl.mul(pl.load(x, [i, 0], [1, COLS]), 3.0), [i, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type=pl.KernelType.AIV)
        pl.system.cacheinvalid()
        pl.store(pl.load(mid, [(i + 1) % n, 0], [1, COLS]), [i, 0], out)
    return out


def _exchange_expected(x, n, k):
    return torch.roll(x[:n] * 3.0, -1, 0)


def test_hard_syncall():
    x = torch.zeros(1, COLS)
    hard_fragment(x, config=CFG)
    n = pl.system.available_aiv_count()
    x = torch.randint(-9, 10, (n, COLS)).float()
    mid, out = torch.zeros(n, COLS), torch.zeros(n, COLS)
    hard_exchange(x, mid, out, config=CFG)
    assert torch.equal(out, _exchange_expected(x, n, 1))


USED = 6


@pl.jit
def soft_exchange(x: pl.Tensor, ws: pl.Out[pl.Tensor], mid: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    n = USED
    with pl.spmd(n):
        i = pl.tile.get_block_idx()
        pl.store(pl.mul(pl.load(x, [i, 0], [1, COLS]), 3.0), [i, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        # Soft barrier: works at partial occupancy
        pl.system.syncall(mode=pl.SyncAllMode.SOFT,
                          core_type=pl.KernelType.MIX,
                          gm_workspace=ws,     # exclusive zero-init 16-element INT32 GM tensor
                          used_cores=n)
        pl.system.cacheinvalid()
        pl.store(pl.load(mid, [(i + 1) % n, 0], [1, COLS]), [i, 0], out)
    return out


def test_soft_syncall():
    x = torch.randint(-9, 10, (USED, COLS)).float()
    for _ in range(2):
        ws = torch.zeros(1, 16, dtype=torch.int32)
        mid, out = torch.zeros(USED, COLS), torch.zeros(USED, COLS)
        soft_exchange(x, ws, mid, out, config=CFG)
        assert torch.equal(out, _exchange_expected(x, USED, 1))
    assert soft_exchange.traces == 1
