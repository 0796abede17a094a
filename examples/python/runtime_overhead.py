#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The guide's "Runtime Overhead" page, run on pto_npu from Python.

    python3 examples/python/runtime_overhead.py --mode MODE [--trace-dir DIR]

MODE is mixed, spmd, predicate, early_resolve, hard_barrier, soft_barrier
or all. Each mode runs the guide's code (only the imports changed), checks
the result with the guide's assertions and prints what it confirmed from
the device's own records. With --trace-dir (or PTO_TRACE_DIR) each graph
leaves its swimlane and deps.json there, named py_<mode>.<form>, for
tools/demo/confirm.py. --reps N runs the modes N times in one interpreter
(make demo: one import of torch for its repetitions), repetition K's
files in the directory's repK/; a call after the first of a function is
its @pl.jit cache's replay launch, as in any program that calls it again.
"""

import argparse
import os
import sys

# The example reads the device's block records: a profiling queue.
os.environ.setdefault("PTO_PROFILE", "1")

import pto_npu.language as pl  # noqa: E402
import torch  # noqa: E402
from pto_npu.runtime import RunConfig  # noqa: E402

BLOCKS, TILE_ROWS, COLS = 4, 64, 128
ROWS = BLOCKS * TILE_ROWS
CFG = RunConfig(platform="pto_npu")

torch.manual_seed(0)
A = torch.randn(ROWS, COLS, dtype=torch.float32)
B = torch.randn(ROWS, COLS, dtype=torch.float32)


def fresh(rows=ROWS):
    return torch.zeros(rows, COLS, dtype=torch.float32)


def tasks_of(fn):
    """The traced tasks of fn's one compiled signature."""
    (plan,) = fn.cache.values()
    return plan.trace.tasks


def statuses(fn):
    """Each task's status name after the last call."""
    return fn.statuses()


# ------------------------------------------------------------------ mixed
@pl.jit
def mixed(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(
        level=pl.Level.CORE_GROUP,
        optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)],
    ):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)   # cube (AIC)
        out[:] = pl.add(acc, bias)                 # vector (AIV)
    return out


@pl.jit
def mixed_two_tasks(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, acc_gm: pl.Out[pl.Tensor],
                    out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc_gm[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(acc_gm, bias)
    return out


def run_mixed():
    a = torch.randint(-4, 5, (64, 128)).float()
    b = torch.randint(-4, 5, (128, 64)).float()
    bias = torch.randint(-8, 9, (64, 64)).float()
    want = a @ b + bias
    out, out2, acc = torch.zeros(64, 64), torch.zeros(64, 64), torch.zeros(64, 64)
    mixed_two_tasks.trace_name = "py_mixed.two_tasks"
    mixed_two_tasks(a, b, bias, acc, out2, config=CFG)
    mixed.trace_name = "py_mixed.mixed_up_down"
    mixed(a, b, bias, out, config=CFG)
    torch.testing.assert_close(out, want, rtol=0, atol=0)
    torch.testing.assert_close(out2, want, rtol=0, atol=0)
    (t,) = tasks_of(mixed)
    (k,) = next(iter(mixed.cache.values())).kernels
    print("mixed: matmul -> add is one task (%s), cube and vector kernels in one dispatch "
          "over a %d-slot ring, split UP_DOWN; two tasks before; result exact"
          % (t.kind, t.slot_num) if k.aic and k.aiv else "mixed: NOT one mixed task")
    return bool(k.aic and k.aiv) and len(tasks_of(mixed_two_tasks)) == 2


# ------------------------------------------------------------------- spmd
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


def run_spmd():
    per_block_tasks.trace_name = "py_spmd_add.per_block_tasks"
    spmd_blocks.trace_name = "py_spmd_add.spmd_blocks"
    for kernel in (per_block_tasks, spmd_blocks):
        c = fresh()
        kernel(A, B, c, config=CFG)
        torch.testing.assert_close(c, A + B, rtol=1e-4, atol=1e-4)
    n_per, n_spmd = len(tasks_of(per_block_tasks)), len(tasks_of(spmd_blocks))
    blocks = [len(b) for b in spmd_blocks.blocks()]
    print("spmd: %d tasks of 1 block -> %d task of %s blocks (blocks run: %s)"
          % (n_per, n_spmd, tasks_of(spmd_blocks)[0].blocks, blocks))
    return n_per == BLOCKS and n_spmd == 1 and blocks == [BLOCKS]


# -------------------------------------------------------------- predicate
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


def run_predicate():
    ok = True
    for gate_value, expected in ((0, A * 2.0), (1, A * 2.0 + 1.0)):
        gate = torch.full((1, 1), gate_value, dtype=torch.int32)
        out = fresh()
        gated.trace_name = "py_gated.gate_%d" % gate_value
        gated(A, gate, out, config=CFG)
        torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
        st = statuses(gated)
        blocks = [len(b) for b in gated.blocks()]
        print("predicate: gate %d: tasks %s, blocks run %s" % (gate_value, st, blocks))
        want = ["OK", "SKIPPED" if gate_value == 0 else "OK"]
        ok = ok and st == want and (blocks[1] == 0) == (gate_value == 0)
    print("predicate: the gated task retired SKIPPED without a block on a core when "
          "gate[0, 0] = 0; one trace for both gate values (%d)" % gated.traces)
    return ok and gated.traces == 1


# ---------------------------------------------------------- early resolve
@pl.jit
def early_resolve(a: pl.Tensor, b: pl.Tensor, scratch: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True):
        s = pl.add(pl.load(a, [0, 0], [TILE_ROWS, COLS]), pl.load(b, [0, 0], [TILE_ROWS, COLS]))
        pl.store(s, [0, 0], scratch)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.exp(pl.load(scratch, [0, 0], [TILE_ROWS, COLS])), [0, 0], out)
    return scratch, out


@pl.jit
def unflagged(a: pl.Tensor, b: pl.Tensor, scratch: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.add(pl.load(a, [0, 0], [TILE_ROWS, COLS]), pl.load(b, [0, 0], [TILE_ROWS, COLS]))
        pl.store(s, [0, 0], scratch)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.exp(pl.load(scratch, [0, 0], [TILE_ROWS, COLS])), [0, 0], out)
    return scratch, out


def run_early_resolve():
    unflagged.trace_name = "py_early_resolve.unflagged"
    early_resolve.trace_name = "py_early_resolve.flagged"
    staged = {}
    for fn in (unflagged, early_resolve):
        scratch, out = fresh(TILE_ROWS), fresh(TILE_ROWS)
        fn(A[:TILE_ROWS], B[:TILE_ROWS], scratch, out, config=CFG)
        torch.testing.assert_close(out, torch.exp(A[:TILE_ROWS] + B[:TILE_ROWS]), rtol=1e-3, atol=1e-4)
        staged[fn.__name__] = fn.staged()
    print("early_resolve: consumer blocks pre-staged before their producer ended: "
          "unflagged %d, flagged %d (same two tasks, same result)"
          % (staged["unflagged"], staged["early_resolve"]))
    return staged["unflagged"] == 0 and staged["early_resolve"] > 0


# --------------------------------------------------------------- barriers
@pl.jit
def hard_barrier(x: pl.Tensor, mid: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    n = pl.system.available_aiv_count()
    # Hard barrier (FFTS): no operands, but requires FULL occupancy
    with pl.spmd(pl.system.available_aiv_count()):
        i = pl.tile.get_block_idx()
        pl.store(pl.mul(pl.load(x, [i, 0], [1, COLS]), 3.0), [i, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type=pl.KernelType.AIV)
        pl.system.cacheinvalid()
        pl.store(pl.load(mid, [(i + 1) % n, 0], [1, COLS]), [i, 0], out)
    return out


SOFT_USED = 20


@pl.jit
def soft_barrier(x: pl.Tensor, ws: pl.Out[pl.Tensor], mid: pl.Out[pl.Tensor],
                 out: pl.Out[pl.Tensor]):
    n = SOFT_USED
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


def _barrier(fn, n, extra):
    x = torch.randint(-9, 10, (n, COLS)).float()
    mid, out = torch.zeros(n, COLS), torch.zeros(n, COLS)
    fn.trace_name = "py_barrier.%s" % fn.__name__
    fn(x, *extra, mid, out, config=CFG)
    torch.testing.assert_close(out, torch.roll(x * 3.0, -1, 0), rtol=0, atol=0)
    print("%s: one task of %d blocks; every block read its neighbour's row written "
          "before the barrier (exact)" % (fn.__name__, n))
    return len(tasks_of(fn)) == 1


def run_hard_barrier():
    return _barrier(hard_barrier, pl.system.available_aiv_count(), ())


def run_soft_barrier():
    return _barrier(soft_barrier, SOFT_USED, (torch.zeros(1, 16, dtype=torch.int32),))


MODES = {"mixed": run_mixed, "spmd": run_spmd, "predicate": run_predicate,
         "early_resolve": run_early_resolve, "hard_barrier": run_hard_barrier,
         "soft_barrier": run_soft_barrier}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", default="all",
                    help="%s, all, or several separated by ','" % ", ".join(sorted(MODES)))
    ap.add_argument("--trace-dir", help="write swimlanes and deps.json here")
    ap.add_argument("--reps", type=int, default=1,
                    help="run the modes this many times in this interpreter; "
                    "with a trace directory, repetition K writes into its repK/")
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps %d: want 1 or more" % args.reps)
    base = args.trace_dir or os.environ.get("PTO_TRACE_DIR")
    fails = 0
    names = sorted(MODES) if args.mode == "all" else args.mode.split(",")
    bad = [n for n in names if n not in MODES]
    if bad:
        ap.error("--mode %s: one of %s" % (",".join(bad), ", ".join(sorted(MODES))))
    for rep in range(1, args.reps + 1):
        if base:
            # Read by libpto as each graph's traces are written.
            os.environ["PTO_TRACE_DIR"] = (os.path.join(base, "rep%d" % rep)
                                           if args.reps > 1 else base)
            os.makedirs(os.environ["PTO_TRACE_DIR"], exist_ok=True)
        if args.reps > 1:
            print("== repetition %d of %d" % (rep, args.reps))
        for name in names:
            ok = MODES[name]()
            print("%s %s" % ("PASS" if ok else "FAIL", name))
            fails += not ok
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
