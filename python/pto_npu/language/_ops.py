# SPDX-License-Identifier: MIT
"""The language's operations: tile ops and the scopes that make tasks."""

import enum

import numpy as np

from ._trace import (CompileError, DeviceCount, Expr, Predicate, TensorArg,
                     Tile, as_expr, current, current_task, user_line)


class Level(enum.Enum):
    """Where a pl.at scope runs; CORE_GROUP: one cluster (AIC + 2 AIV)."""

    CORE_GROUP = "core_group"
    CLUSTER = "cluster"
    HOST = "host"


class SplitMode(enum.Enum):
    """How a mixed kernel divides its vector half over the cluster's AIVs."""

    NONE = 0
    UP_DOWN = 1
    LEFT_RIGHT = 2


class _Split:
    def __init__(self, mode):
        if not isinstance(mode, SplitMode):
            raise CompileError("pl.split(mode): mode is a pl.SplitMode, not %r"
                               % (mode,))
        if mode is SplitMode.LEFT_RIGHT:
            raise CompileError("pl.split(pl.SplitMode.LEFT_RIGHT): the device's "
                               "cross-core ring splits rows only (UP_DOWN)")
        self.mode = mode


class _Slots:
    def __init__(self, slot_num):
        if isinstance(slot_num, bool) or not isinstance(slot_num, int) or \
                not 1 <= slot_num <= 64:
            raise CompileError("pl.cross_core_slot(slot_num=%r): 1..64 slots"
                               % (slot_num,))
        self.slot_num = slot_num


def split(mode):
    """pl.split(pl.SplitMode.UP_DOWN): an optimization for pl.at."""
    return _Split(mode)


def cross_core_slot(slot_num):
    """pl.cross_core_slot(slot_num=N): slots of the cross-core ring."""
    return _Slots(slot_num)


class TaskId:
    """A scope's task, for deps= of later scopes."""

    def __init__(self, task):
        self.task = task


def _deps(trace, deps, where):
    out = []
    for d in deps or ():
        if not isinstance(d, TaskId) or d.task.trace is not trace:
            raise CompileError("deps=: TaskIds of this function's scopes "
                               "(with pl.spmd(...) as tid), not %r" % (d,), where)
        out.append(d.task)
    return out


class _Scope:
    """A task scope: pl.at (one block) or pl.spmd (a grid)."""

    def __init__(self, kind, blocks, deps=None, predicate=None,
                 allow_early_resolve=False, optimizations=()):
        self.where = user_line()
        self.trace = current(kind)
        self.kind, self.blocks = kind, blocks
        self.deps = _deps(self.trace, deps, self.where)
        self.predicate = predicate
        self.early = bool(allow_early_resolve)
        self.optimizations = list(optimizations or ())
        self.task = None

    def _open(self):
        task = self.trace.open_task(self.kind, self.blocks, self.where)
        task.deps = self.deps
        task.early_resolve = self.early
        for o in self.optimizations:
            if isinstance(o, _Split):
                task.split = o.mode
            elif isinstance(o, _Slots):
                task.slot_num = o.slot_num
            else:
                raise CompileError("optimizations=: pl.split(...) and "
                                   "pl.cross_core_slot(...), not %r" % (o,),
                                   self.where)
        if self.predicate is not None:
            _check_predicate(self.trace, task, self.predicate, self.where)
        self.task = task
        return task

    def __enter__(self):
        return TaskId(self._open())

    def __exit__(self, et, ev, tb):
        self.trace.close_task(self.task)
        return False


def _check_predicate(trace, task, pred, where):
    if not isinstance(pred, Predicate):
        raise CompileError("predicate=: only tensor[indices] OP int-literal, "
                           "one comparison, not %r" % (pred,), where)
    t = pred.elem.tensor
    if t.dtype.kind != "i":
        raise CompileError("predicate=: the operand must be a signed "
                           "8/16/32/64-bit integer tensor; %s is %s (the "
                           "runtime sign-extends the bytes it reads, so an "
                           "unsigned operand is refused rather than quietly "
                           "compared as a negative number)"
                           % (t.name, t.dtype.name), where)
    for w in trace.writers(t):
        if w not in task.deps:
            raise CompileError("predicate=: the operand %s is produced by the "
                               "%s at line %d, which is not among this task's "
                               "deps=: the dispatch-point read can see stale "
                               "data" % (t.name, w.kind, w.where[1]), where)
    task.predicate = pred


def at(level=Level.CORE_GROUP, optimizations=(), allow_early_resolve=False,
       name=None):
    """with pl.at(level=pl.Level.CORE_GROUP, ...): one dispatch of one block."""
    if not isinstance(level, Level):
        raise CompileError("pl.at(level=%r): a pl.Level" % (level,))
    if level is not Level.CORE_GROUP:
        raise CompileError("pl.at(level=%s): the device runs CORE_GROUP "
                           "scopes (one cluster)" % level)
    s = _Scope("pl.at", 1, allow_early_resolve=allow_early_resolve,
               optimizations=optimizations)
    return s


class spmd(_Scope):
    """pl.spmd(n, deps=, predicate=, allow_early_resolve=): one dispatch of
    n blocks; `for i in pl.spmd(n)` binds the block index to i."""

    def __init__(self, num_blocks, deps=None, predicate=None,
                 allow_early_resolve=False, optimizations=()):
        if isinstance(num_blocks, (bool, np.bool_)) or \
                not isinstance(num_blocks, (int, np.integer)) or num_blocks < 1:
            raise CompileError("pl.spmd(%r): the block count is an int >= 1"
                               % (num_blocks,))
        super().__init__("pl.spmd", num_blocks, deps, predicate,
                         allow_early_resolve, optimizations)

    def __iter__(self):
        self._open()
        try:
            yield Expr("sreg", "block_idx")
        finally:
            self.trace.close_task(self.task)


def _submit(kind, blocks, kernel, args, deps, predicate, allow_early_resolve,
            sync_start):
    if not callable(kernel):
        raise CompileError("pl.%s(kernel, *args): kernel is a function whose "
                           "body is tile operations, not %r" % (kind, kernel))
    scope = spmd(blocks, deps=deps, predicate=predicate,
                 allow_early_resolve=allow_early_resolve) if kind == "spmd_submit" \
        else _Scope("pl.submit", 1, deps, predicate, allow_early_resolve)
    with scope as tid:
        tid.task.sync_start = bool(sync_start)
        out = kernel(*args)
    return out, tid


def submit(kernel, *args, deps=None, predicate=None, allow_early_resolve=False):
    """out, tid = pl.submit(kernel, *args, deps=, predicate=,
    allow_early_resolve=): kernel(*args) as one task of one block."""
    return _submit("submit", 1, kernel, args, deps, predicate,
                   allow_early_resolve, False)


def spmd_submit(kernel, *args, core_num=None, sync_start=False, deps=None,
                predicate=None, allow_early_resolve=False):
    """out, tid = pl.spmd_submit(kernel, *args, core_num=N, sync_start=,
    deps=, predicate=, allow_early_resolve=): kernel(*args) as one task of
    core_num blocks (pl.tile.get_block_idx() in its body)."""
    if core_num is None:
        raise CompileError("pl.spmd_submit(kernel, *args, core_num=N): "
                           "core_num= is required")
    return _submit("spmd_submit", core_num, kernel, args, deps, predicate,
                   allow_early_resolve, sync_start)


def unroll(n):
    """for i in pl.unroll(n): the body repeated n times at trace time."""
    return range(n)


class manual_scope:
    """with pl.manual_scope(): dependencies only from deps= (none inferred)."""

    def __enter__(self):
        self.trace = current("pl.manual_scope")
        self.trace.manual += 1
        return self

    def __exit__(self, *exc):
        self.trace.manual -= 1
        return False


# ---------------------------------------------------------------- tile ops

def _window(what, offsets, n=2):
    if not isinstance(offsets, (list, tuple)) or len(offsets) != n:
        raise CompileError("%s: offsets are [row, col], not %r" % (what, offsets))
    return [as_expr(o, "%s offset" % what) for o in offsets]


def _new(task, dtype, rows, cols, op):
    t = Tile(task, dtype, rows, cols, op)
    task.emit(op + (t,))
    return t


def load(tensor, offsets, shape):
    """pl.load(t, [row, col], [rows, cols]): a window of t as a tile."""
    task = current_task("pl.load")
    if not isinstance(tensor, TensorArg):
        raise CompileError("pl.load: a tensor parameter, not %r" % (tensor,))
    r, c = _window("pl.load", offsets)
    if not isinstance(shape, (list, tuple)) or len(shape) != 2 or \
            not all(isinstance(s, int) and s > 0 for s in shape):
        raise CompileError("pl.load: shape is [rows, cols] of ints, not %r"
                           % (shape,))
    task.reads.add(tensor)
    return _new(task, tensor.dtype, shape[0], shape[1],
                ("load", tensor, r, c, user_line()))


def _tile(v, what, task):
    """A tile operand; a tensor parameter stands for all of it."""
    if isinstance(v, TensorArg):
        task.reads.add(v)
        return _new(task, v.dtype, v.view[0], v.view[1],
                    ("load", v, Expr("const", 0), Expr("const", 0), user_line()))
    if not isinstance(v, Tile) or v.task is not task:
        raise CompileError("%s: a tile of this scope (pl.load, or a tensor "
                           "parameter), not %r" % (what, v))
    return v


def store(tile, offsets, tensor):
    """pl.store(tile, [row, col], t): the tile into a window of t."""
    task = current_task("pl.store")
    tile = _tile(tile, "pl.store", task)
    if not isinstance(tensor, TensorArg):
        raise CompileError("pl.store: into a tensor parameter, not %r" % (tensor,))
    if tile.dtype != tensor.dtype:
        raise CompileError("pl.store: a %s tile into %s, a %s tensor"
                           % (tile.dtype.name, tensor.name, tensor.dtype.name))
    r, c = _window("pl.store", offsets)
    task.writes.add(tensor)
    task.emit(("store", tile, tensor, r, c, user_line()))
    return tensor


def _binary(name, a, b):
    task = current_task("pl.%s" % name)
    if isinstance(a, (int, float)) and not isinstance(b, (int, float)) and \
            name in ("add", "mul", "max", "min"):
        a, b = b, a
    a = _tile(a, "pl.%s" % name, task)
    if isinstance(b, (int, float, np.number)) and not isinstance(b, bool):
        if a.dtype.kind != "f" and isinstance(b, float):
            raise CompileError("pl.%s: a float scalar with a %s tile"
                               % (name, a.dtype.name))
        return _new(task, a.dtype, a.rows, a.cols, ("bins", name, a, b))
    b = _tile(b, "pl.%s" % name, task)
    if a.shape != b.shape or a.dtype != b.dtype:
        raise CompileError("pl.%s: tiles of one shape and dtype, not %s %s and "
                           "%s %s" % (name, a.shape, a.dtype.name, b.shape,
                                      b.dtype.name))
    return _new(task, a.dtype, a.rows, a.cols, ("bin", name, a, b))


def add(a, b):
    """pl.add(tile, tile | scalar)."""
    return _binary("add", a, b)


def sub(a, b):
    """pl.sub(tile, tile | scalar)."""
    return _binary("sub", a, b)


def mul(a, b):
    """pl.mul(tile, tile | scalar)."""
    return _binary("mul", a, b)


def div(a, b):
    """pl.div(tile, tile | scalar)."""
    return _binary("div", a, b)


def maximum(a, b):
    """pl.maximum(tile, tile | scalar)."""
    return _binary("max", a, b)


def minimum(a, b):
    """pl.minimum(tile, tile | scalar)."""
    return _binary("min", a, b)


def _unary(name, a):
    task = current_task("pl.%s" % name)
    a = _tile(a, "pl.%s" % name, task)
    if a.dtype.kind != "f" and name in ("exp", "sqrt"):
        raise CompileError("pl.%s: an f32 tile, not %s" % (name, a.dtype.name))
    return _new(task, a.dtype, a.rows, a.cols, ("unary", name, a))


def exp(a):
    """pl.exp(tile)."""
    return _unary("exp", a)


def sqrt(a):
    """pl.sqrt(tile)."""
    return _unary("sqrt", a)


def relu(a):
    """pl.relu(tile)."""
    return _unary("relu", a)


def neg(a):
    """pl.neg(tile)."""
    return _unary("neg", a)


def abs(a):  # noqa: A001 - the language's name
    """pl.abs(tile)."""
    return _unary("abs", a)


def row_sum(a):
    """pl.row_sum(tile): rows x 1."""
    task = current_task("pl.row_sum")
    a = _tile(a, "pl.row_sum", task)
    return _new(task, a.dtype, a.rows, 1, ("rowred", "sum", a))


def row_max(a):
    """pl.row_max(tile): rows x 1."""
    task = current_task("pl.row_max")
    a = _tile(a, "pl.row_max", task)
    return _new(task, a.dtype, a.rows, 1, ("rowred", "max", a))


def cast(a, dtype):
    """pl.cast(tile, pl.INT32 | pl.FP32)."""
    task = current_task("pl.cast")
    a = _tile(a, "pl.cast", task)
    return _new(task, np.dtype(dtype), a.rows, a.cols, ("cast", a))


def matmul(a, b, out_dtype=np.float32):
    """pl.matmul(a, b, out_dtype=pl.FP32): a cube op (AIC), f32 in and out."""
    task = current_task("pl.matmul")
    if np.dtype(out_dtype) != np.float32:
        raise CompileError("pl.matmul(out_dtype=%s): the cube accumulates "
                           "FP32 only" % np.dtype(out_dtype).name)
    a = _tile(a, "pl.matmul", task)
    b = _tile(b, "pl.matmul", task)
    for x in (a, b):
        if x.dtype != np.float32:
            raise CompileError("pl.matmul: %s inputs: the device's cube takes "
                               "FP32 operands only (no FP16/BF16 in its ISA)"
                               % x.dtype.name)
        if x.op[0] != "load":
            raise CompileError("pl.matmul: operands come from GM (pl.load or "
                               "a tensor parameter): the ring carries cube "
                               "results to the vector side, not back")
    if a.cols != b.rows:
        raise CompileError("pl.matmul: %s x %s do not chain" % (a.shape, b.shape))
    return _new(task, np.float32, a.rows, b.cols, ("matmul", a, b))


class _TileNS:
    """pl.tile: per-block queries."""

    @staticmethod
    def get_block_idx():
        """The block's index in its SPMD grid."""
        current_task("pl.tile.get_block_idx()")
        return Expr("sreg", "block_idx")

    @staticmethod
    def get_block_num():
        """The grid's block count."""
        current_task("pl.tile.get_block_num()")
        return Expr("sreg", "block_num")


tile = _TileNS()


def as_count(v):
    return isinstance(v, DeviceCount)
