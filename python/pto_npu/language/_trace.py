# SPDX-License-Identifier: MIT
"""What tracing a @pl.jit function records: tasks, tiles and index expressions.

The function runs once per argument signature with a TensorArg in place of
each tensor. Scopes (pl.at, pl.spmd) open a Task; tile operations append to
the open task's ops; _codegen turns each task into kernels. Errors of the
guide's compile-time rules are CompileError, naming the user's file:line.
"""

import os
import sys
import threading

import numpy as np

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_line():
    """(file, line) of the innermost frame outside the pto_npu package."""
    f = sys._getframe(1)
    while f is not None and \
            os.path.abspath(f.f_code.co_filename).startswith(_PKG_DIR + os.sep):
        f = f.f_back
    if f is None:
        return ("<unknown>", 0)
    return (f.f_code.co_filename, f.f_lineno)


class CompileError(Exception):
    """A rule the trace broke, at the user's line (.filename, .lineno)."""

    def __init__(self, msg, where=None):
        self.filename, self.lineno = where or user_line()
        self.msg = msg
        super().__init__("%s:%d: %s" % (self.filename, self.lineno, msg))


_state = threading.local()


def active():
    """The trace being recorded, or None."""
    return getattr(_state, "trace", None)


def current(what):
    """The trace being recorded; `what` names the caller for the error."""
    trace = getattr(_state, "trace", None)
    if trace is None:
        raise CompileError("%s is only valid inside a @pl.jit function" % what)
    return trace


def current_task(what):
    """The open task scope of the current trace."""
    task = current(what).task
    if task is None:
        raise CompileError("%s needs a task scope: pl.at(...) or pl.spmd(...)"
                           % what)
    return task


class DeviceCount(int):
    """available_aiv_count() / available_cluster_count(): a grid sized from
    the device (kind "aiv" or "cluster"), which the HARD syncall requires."""

    def __new__(cls, value, kind):
        obj = super().__new__(cls, value)
        obj.kind = kind
        return obj


# ---------------------------------------------------------- index expressions

class Expr:
    """A scalar index: a constant, a special register, or op(a, b)."""

    def __init__(self, kind, *args):
        self.kind = kind
        self.args = args

    def key(self):
        if self.kind == "bin":
            return ("bin", self.args[0], self.args[1].key(), self.args[2].key())
        return (self.kind,) + self.args

    def _bin(self, op, other, swap=False):
        other = as_expr(other, "an index expression")
        a, b = (other, self) if swap else (self, other)
        if a.kind == "const" and b.kind == "const":
            x, y = a.args[0], b.args[0]
            return Expr("const", {"+": x + y, "-": x - y, "*": x * y,
                                  "//": x // y if y else 0,
                                  "%": x % y if y else 0}[op])
        return Expr("bin", op, a, b)

    def __add__(self, o):
        return self._bin("+", o)

    def __radd__(self, o):
        return self._bin("+", o, True)

    def __sub__(self, o):
        return self._bin("-", o)

    def __rsub__(self, o):
        return self._bin("-", o, True)

    def __mul__(self, o):
        return self._bin("*", o)

    def __rmul__(self, o):
        return self._bin("*", o, True)

    def __floordiv__(self, o):
        return self._bin("//", o)

    def __mod__(self, o):
        return self._bin("%", o)

    def __bool__(self):
        raise CompileError("a block index is only known on the device: it "
                           "cannot steer Python control flow at trace time")

    def __repr__(self):
        return "Expr%r" % (self.key(),)


def as_expr(v, what):
    if isinstance(v, Expr):
        return v
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise CompileError("%s must be an int or an index expression, not %r"
                           % (what, v))
    return Expr("const", int(v))


# ------------------------------------------------------------------ tensors

_PRED_FORM = ("a predicate is only tensor[indices] OP int-literal, one "
              "comparison")


class Element:
    """tensor[r, c] of a TensorArg: only comparable, for predicate=."""

    def __init__(self, tensor, row, col):
        self.tensor, self.row, self.col = tensor, row, col

    def _cmp(self, op, lit):
        if isinstance(lit, (bool, np.bool_)) or \
                not isinstance(lit, (int, np.integer)):
            raise CompileError("%s: the right-hand side must be an int "
                               "literal, not %r" % (_PRED_FORM, lit))
        return Predicate(self, op, int(lit), user_line())

    def __gt__(self, lit):
        return self._cmp(">", lit)

    def __lt__(self, lit):
        return self._cmp("<", lit)

    def __ge__(self, lit):
        return self._cmp(">=", lit)

    def __le__(self, lit):
        return self._cmp("<=", lit)

    def __eq__(self, lit):
        return self._cmp("==", lit)

    def __ne__(self, lit):
        return self._cmp("!=", lit)

    __hash__ = None

    def _arith(self, *_):
        raise CompileError("%s: no arithmetic (reduce anything richer to a "
                           "single gate value in a prior kernel)" % _PRED_FORM)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __floordiv__ = __mod__ = __neg__ = __and__ = __or__ = _arith

    def __bool__(self):
        raise CompileError("%s: a tensor element has no value at trace time"
                           % _PRED_FORM)


class Predicate:
    """tensor[r, c] OP literal, evaluated by the scheduler at dispatch."""

    def __init__(self, elem, op, literal, where):
        self.elem, self.op, self.literal, self.where = elem, op, literal, where

    def _logic(self, *_):
        raise CompileError("%s: no and/or (reduce anything richer to a single "
                           "gate value in a prior kernel)" % _PRED_FORM)

    __and__ = __rand__ = __or__ = __ror__ = __invert__ = _logic
    __bool__ = _logic


class TensorArg:
    """A tensor parameter of the traced function (its 2-D view: rows are
    the product of the leading dimensions, cols the last)."""

    def __init__(self, index, name, shape, dtype, is_out):
        self.index, self.name = index, name
        self.shape, self.dtype, self.is_out = tuple(shape), np.dtype(dtype), is_out
        cols = self.shape[-1] if self.shape else 1
        rows = int(np.prod(self.shape[:-1])) if len(self.shape) > 1 else 1
        self.view = (rows, cols)

    def __getitem__(self, idx):
        idx = idx if isinstance(idx, tuple) else (idx,)
        for i in idx:
            if isinstance(i, (bool, np.bool_)) or \
                    not isinstance(i, (int, np.integer)):
                raise CompileError("%s: indices must be int literals, not %r"
                                   % (_PRED_FORM, i))
        if len(idx) != len(self.shape):
            raise CompileError("%s[%s]: %d indices for a %d-D tensor"
                               % (self.name, idx, len(idx), len(self.shape)))
        flat = int(np.ravel_multi_index(idx, self.shape)) if idx else 0
        return Element(self, flat // self.view[1], flat % self.view[1])

    def __setitem__(self, idx, value):
        whole = (slice(None),) * len(self.shape)
        if idx not in (slice(None), whole, Ellipsis):
            raise CompileError("%s[...] = tile: only the whole tensor "
                               "(%s[:] = ...); use pl.store(tile, offsets, %s) "
                               "for a window" % (self.name, self.name, self.name))
        from . import _ops
        _ops.store(value, [0, 0], self)

    def __repr__(self):
        return "TensorArg(%s, %s, %s)" % (self.name, self.shape, self.dtype)


# -------------------------------------------------------------------- tiles

class Tile:
    """A value in a core's local buffer, produced by one op of a task."""

    def __init__(self, task, dtype, rows, cols, op):
        self.task, self.dtype, self.rows, self.cols = task, np.dtype(dtype), rows, cols
        self.op = op
        self.cube = op[0] == "matmul" if op else False

    @property
    def shape(self):
        return (self.rows, self.cols)

    def __add__(self, o):
        from . import _ops
        return _ops.add(self, o)

    __radd__ = __add__

    def __sub__(self, o):
        from . import _ops
        return _ops.sub(self, o)

    def __mul__(self, o):
        from . import _ops
        return _ops.mul(self, o)

    __rmul__ = __mul__

    def __truediv__(self, o):
        from . import _ops
        return _ops.div(self, o)


# -------------------------------------------------------------------- tasks

class Task:
    """One dispatch: a scope's ops, its grid, flags, deps and predicate."""

    def __init__(self, trace, kind, blocks, where):
        self.trace, self.kind, self.blocks, self.where = trace, kind, blocks, where
        self.index = len(trace.tasks)
        self.name = "%s_%d" % (trace.name, self.index)
        self.ops = []
        self.deps = []
        self.predicate = None
        self.early_resolve = False
        self.split = None
        self.slot_num = None
        self.reads, self.writes = set(), set()
        self.syncall_hard = None
        self.sync_start = False

    def emit(self, op):
        self.ops.append(op)

    def has_cube(self):
        return any(op[0] == "matmul" for op in self.ops)


class Trace:
    """One tracing of a @pl.jit function."""

    def __init__(self, name, device):
        self.name, self.device = name, device
        self.params = []
        self.tasks = []
        self.task = None
        self.manual = 0

    def open_task(self, kind, blocks, where):
        if self.task is not None:
            raise CompileError("task scopes do not nest: %s inside the %s at "
                               "line %d" % (kind, self.task.kind,
                                            self.task.where[1]), where)
        self.task = Task(self, kind, blocks, where)
        self.task.manual = self.manual > 0
        return self.task

    def close_task(self, task):
        self.task = None
        if task.ops:
            self.tasks.append(task)
        task.index = self.tasks.index(task) if task in self.tasks else -1

    def writers(self, tensor):
        return [t for t in self.tasks if tensor in t.writes]


def begin(trace):
    _state.trace = trace


def end():
    _state.trace = None
