# SPDX-License-Identifier: MIT
"""Code generation: one traced Task into the device's kernels (pto_kb_*).

A task's vector ops become an AIV kernel, its matmuls an AIC kernel; a
vector use of a matmul result makes the task mixed: the AIC PUSHes the
L0C tile into the cross-core ring and the AIV POPs it. Under
pl.split(UP_DOWN) the AIV side works on half the rows of every tile, at
row offset + sub_block_id * half, as the ring hands each AIV its half.
Index expressions become scalar-register code (s0 is 0); tile registers
are reused once their tile is dead.
"""

import ctypes

from . import _ops
from .. import _libpto
from ._trace import CompileError, Expr
from .system import KernelType, SyncAllMode

_DTYPE = {"float32": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5}
_SREG = {"block_idx": _libpto.SREG_BLOCK_IDX,
         "block_num": _libpto.SREG_BLOCK_NUM,
         "sub_block_id": _libpto.SREG_SUB_BLOCK_ID}


class _Kernel:
    """A kernel under construction: the builder, registers, tile slots."""

    def __init__(self, device, core, task, args):
        self.core, self.task, self.args = core, task, args
        self.lib = _libpto.lib()
        kb = ctypes.c_void_p()
        rc = self.lib.pto_kb_new(device.handle, core, ctypes.byref(kb))
        if rc < 0:
            raise CompileError("kernel builder: %s" % _libpto.strerror(rc),
                               task.where)
        self.kb = kb
        self.regs = {}
        self.next_reg = 0
        self.slots = []       # [(dtype, buf, rows, cols, tile or None)]
        self.tile_reg = {}
        self.reg(Expr("const", 0))

    def call(self, name, *a):
        return getattr(self.lib, "pto_kb_" + name)(self.kb, *a)

    def reg(self, e):
        """The scalar register holding index expression e."""
        key = e.key()
        if key in self.regs:
            return self.regs[key]
        if e.kind == "bin":
            a = self.reg(e.args[1])
            b = e.args[2]
        d = self._new_reg()
        if e.kind == "const":
            self.call("ldi", d, e.args[0])
        elif e.kind == "sreg":
            self.call("sreg", d, _SREG[e.args[0]])
        elif b.kind == "const":
            self.call("alui", _libpto.ALU[e.args[0]], d, a, b.args[0])
        else:
            self.call("alu", _libpto.ALU[e.args[0]], d, a, self.reg(b))
        self.regs[key] = d
        return d

    def _new_reg(self):
        if self.next_reg >= 32:
            raise CompileError("more than 32 distinct index expressions in "
                               "one scope", self.task.where)
        self.next_reg += 1
        return self.next_reg - 1

    def tile(self, t, buf, rows, cols, dtype=None):
        """A tile register for Tile t (rows x cols in buf), reusing a dead one."""
        dt = _DTYPE[(dtype or t.dtype).name]
        for i, (sdt, sbuf, sr, sc, owner) in enumerate(self.slots):
            if owner is None and (sdt, sbuf, sr, sc) == (dt, buf, rows, cols):
                self.slots[i] = (sdt, sbuf, sr, sc, t)
                self.tile_reg[id(t)] = i
                return i
        r = self.call("tile", dt, buf, rows, cols)
        if r < 0:
            self.fail("tile %dx%d %s" % (rows, cols, (dtype or t.dtype).name))
        self.slots.append((dt, buf, rows, cols, t))
        self.tile_reg[id(t)] = r
        return r

    def of(self, t):
        return self.tile_reg[id(t)]

    def release(self, t):
        i = self.tile_reg.get(id(t))
        if i is not None and self.slots[i][4] is t:
            self.slots[i] = self.slots[i][:4] + (None,)

    def fail(self, what):
        msg = self.lib.pto_kb_error(self.kb).decode()
        raise CompileError("%s: %s" % (what, msg or "refused"), self.task.where)

    def finish(self):
        self.call("end")
        k = ctypes.c_void_p()
        if self.lib.pto_kb_finish(self.kb, ctypes.byref(k)) < 0:
            side = "vector (AIV)" if self.core == _libpto.CORE_AIV else "cube (AIC)"
            try:
                self.fail("the %s kernel of this %s" % (side, self.task.kind))
            finally:
                self.lib.pto_kb_free(self.kb)
        self.lib.pto_kb_free(self.kb)
        return k


def _is_cube_load(op, task):
    """A load whose tile only feeds matmuls (it goes to L0A/L0B)."""
    t = op[-1]
    users = [o for o in task.ops if t in o[1:-1] or (o[0] == "store" and o[1] is t)]
    return bool(users) and all(o[0] == "matmul" for o in users)


def _split(task):
    ops = task.ops
    cube, vec, ring = [], [], []
    mm = [o for o in ops if o[0] == "matmul"]
    if len(mm) > 1:
        raise CompileError("one pl.matmul per scope: the cross-core ring "
                           "carries one tile shape", task.where)
    for op in ops:
        if op[0] == "load" and _is_cube_load(op, task):
            cube.append(op)
        elif op[0] == "matmul":
            cube.append(op)
        elif op[0] == "store" and op[1].cube:
            cube.append(op)
        elif op[0] in ("syncall", "cinv", "fence"):
            continue
        else:
            vec.append(op)
    if mm:
        for t in mm[0][1:3]:
            if not any(o[-1] is t for o in cube):
                raise CompileError("pl.matmul: an operand that vector ops "
                                   "also use: load it twice", task.where)
        acc = mm[0][-1]
        if any(acc in op[1:] for op in vec):
            ring.append(acc)
    return cube, vec, ring


def _half(task, rows):
    if rows % 2:
        raise CompileError("pl.split(UP_DOWN): %d rows do not halve over the "
                           "cluster's two AIVs" % rows, task.where)
    return rows // 2


def _last_use(ops):
    last = {}
    for i, op in enumerate(ops):
        for x in op[1:]:
            if hasattr(x, "task") and hasattr(x, "rows"):
                last[id(x)] = i
    return last


def _window(k, task, r, c, rows, up_down):
    if up_down:
        r = r + Expr("sreg", "sub_block_id") * rows
    return k.reg(r), k.reg(c)


def _emit_vec(k, task, ops, ring, up_down):
    """The AIV kernel's body."""
    last = _last_use(ops)
    for i, op in enumerate(ops):
        kind = op[0]
        if kind == "store":
            src = op[1]
            rows = _half(task, src.rows) if up_down else src.rows
            rr, cr = _window(k, task, op[3], op[4], rows, up_down)
            k.call("tstore", k.of(src), k.args[op[2]], rr, cr)
        elif kind == "ctrl":
            _emit_ctrl(k, task, op[1])
        else:
            out = op[-1]
            rows = _half(task, out.rows) if up_down else out.rows
            d = k.tile(out, _libpto.BUF_UB, rows, out.cols)
            if kind == "pop":
                k.call("pop", d)
            elif kind == "load":
                rr, cr = _window(k, task, op[2], op[3], rows, up_down)
                k.call("tload", d, k.args[op[1]], rr, cr)
            elif kind == "bin":
                k.call("tbin", _libpto.TBIN[op[1]], d, k.of(op[2]), k.of(op[3]))
            elif kind == "bins":
                if op[2].dtype.kind == "f":
                    k.call("tbinsf", _libpto.TBIN[op[1]], d, k.of(op[2]),
                           float(op[3]))
                else:
                    k.call("tbinsi", _libpto.TBIN[op[1]], d, k.of(op[2]),
                           int(op[3]))
            elif kind == "unary":
                k.call("tunary", _libpto.TUNARY[op[1]], d, k.of(op[2]))
            elif kind == "rowred":
                k.call("trowred", _libpto.ROWRED[op[1]], d, k.of(op[2]))
            elif kind == "cast":
                k.call("tcast", d, k.of(op[1]))
        for x in op[1:]:
            if last.get(id(x)) == i:
                k.release(x)


def _emit_cube(k, task, ops, ring):
    """The AIC kernel's body: loads into L0A/L0B, MATMUL, store or PUSH."""
    for op in ops:
        if op[0] == "load":
            t = op[-1]
            mm = next(o for o in task.ops if o[0] == "matmul" and t in o[1:3])
            buf = _libpto.BUF_L0A if mm[1] is t else _libpto.BUF_L0B
            d = k.tile(t, buf, t.rows, t.cols)
            k.call("tload", d, k.args[op[1]], k.reg(op[2]), k.reg(op[3]))
        elif op[0] == "matmul":
            out = op[-1]
            d = k.tile(out, _libpto.BUF_L0C, out.rows, out.cols)
            k.call("matmul", d, k.of(op[1]), k.of(op[2]), False)
            if out in ring:
                k.call("push", d)
        elif op[0] == "store":
            k.call("tstore", k.of(op[1]), k.args[op[2]], k.reg(op[3]),
                   k.reg(op[4]))
        elif op[0] == "ctrl":
            _emit_ctrl(k, task, op[1])


def _emit_ctrl(k, task, op):
    if op[0] == "fence":
        k.call("fence")
    elif op[0] == "cinv":
        if op[1] is None:
            k.call("cacheinvalid")
        else:
            k.call("cacheinvalid_tensor", k.args[op[1]])
    elif op[1] is SyncAllMode.HARD:
        k.call("syncall_hard", {KernelType.AIV: _libpto.SYNC_AIV,
                                KernelType.AIC: _libpto.SYNC_AIC,
                                KernelType.MIX: _libpto.SYNC_MIX}[op[2]])
    else:
        k.call("syncall_soft", k.args[op[3]], k.reg(op[4]))


def _ctrl_targets(op, has_vec, has_cube):
    """Which kernels a syncall / cacheinvalid / fence goes into."""
    if op[0] == "syncall" and op[2] is KernelType.AIC:
        return ("aic",)
    if op[0] == "syncall" and op[2] is KernelType.MIX and has_vec and has_cube:
        return ("aiv", "aic")
    return ("aiv",) if has_vec or not has_cube else ("aic",)


class Compiled:
    """A task's kernels and what its descriptor needs."""

    def __init__(self, aiv, aic, split, slot_num, flags, block_num):
        self.aiv, self.aic = aiv, aic
        self.split, self.slot_num = split, slot_num
        self.flags, self.block_num = flags, block_num

    def free(self):
        for k in (self.aiv, self.aic):
            if k:
                _libpto.lib().pto_kernel_free(k)
        self.aiv = self.aic = None


def _grid(task):
    flags = _libpto.TASK_EARLY_RESOLVE if task.early_resolve else 0
    blocks = int(task.blocks)
    if task.sync_start or any(op[0] == "syncall" for op in task.ops):
        flags |= _libpto.TASK_SYNC_START
    if task.syncall_hard is not None:
        blocks = _libpto.GRID_ALL_AIV if task.blocks.kind == "aiv" \
            else _libpto.GRID_ALL_CLUSTERS
    return flags, blocks


def _order(task, cube, vec, ring):
    """Per-kernel op lists in trace order, the controls placed by target."""
    has_vec, has_cube = bool(vec or ring), bool(cube)
    cset, vset = set(map(id, cube)), set(map(id, vec))
    cops, vops = [], []
    if ring:
        vops.append(("pop", ring[0]))
    for op in task.ops:
        if id(op) in cset:
            cops.append(op)
        elif id(op) in vset:
            vops.append(op)
        elif op[0] in ("syncall", "cinv", "fence"):
            for tgt in _ctrl_targets(op, has_vec, has_cube):
                (vops if tgt == "aiv" else cops).append(("ctrl", op))
    return cops, vops


def compile_task(device, task, args):
    """Kernels for task; args maps each TensorArg to its argument index."""
    cube, vec, ring = _split(task)
    cops, vops = _order(task, cube, vec, ring)
    mixed = bool(cops) and bool(vops)
    up_down = mixed and task.split is _ops.SplitMode.UP_DOWN
    aiv = aic = None
    try:
        if vops:
            k = _Kernel(device, _libpto.CORE_AIV, task, args)
            _emit_vec(k, task, vops, ring, up_down)
            aiv = k.finish()
        if cops:
            k = _Kernel(device, _libpto.CORE_AIC, task, args)
            _emit_cube(k, task, cops, ring)
            aic = k.finish()
    except CompileError:
        for x in (aiv, aic):
            if x:
                _libpto.lib().pto_kernel_free(x)
        raise
    flags, blocks = _grid(task)
    split = _libpto.SPLIT_UP_DOWN if up_down else _libpto.SPLIT_NONE
    slots = (task.slot_num or 0) if mixed else 0
    c = Compiled(aiv, aic, split, slots, flags, blocks)
    if mixed:
        _check_ring(task, c)
    return c


def _check_ring(task, c):
    msg = ctypes.create_string_buffer(256)
    rc = _libpto.lib().pto_mixed_check(c.aic, c.aiv, c.split, c.slot_num,
                                       msg, len(msg))
    if rc < 0:
        c.free()
        if task.slot_num is None:
            raise CompileError(
                "the cross-core ring's default 8 slots do not fit the vector "
                "budget (%s): slot_num= is usually not optional — give "
                "optimizations=[..., pl.cross_core_slot(slot_num=N)]"
                % msg.value.decode(), task.where)
        raise CompileError("pl.cross_core_slot(slot_num=%d): %s"
                           % (task.slot_num, msg.value.decode()), task.where)
