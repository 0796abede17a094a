# SPDX-License-Identifier: MIT
"""@pl.jit: trace once per argument signature, record, replay per call.

The first call with a signature (shapes, dtypes, which parameters are
pl.Out) traces the function into tasks, compiles each into kernels, adds
them to a libpto graph over device tensors of that signature (tensor
directions from the annotations, so libpto infers the dependencies) and
records it on the device (pto_graph_record). Every call, the first
included, copies the arguments into those device tensors, launches the
recording once (pto_graph_replay: one SQ entry) and copies the written
tensors back into the caller's arrays. An argument already in device GM
(pl.to_device, pl.device_empty) is bound to its parameter at the launch
instead, and is neither copied in nor back.

A call with the same argument objects as an earlier one (and no config
writing profiles) takes the hit path (_Hit): what the full path derived from them (the
signature's plan, the launch's bindings, which arguments are copied) is
kept, and the call only checks that each object is still the same live
object of the same shape and dtype, copies what it must and makes the one
pto_graph_replay() call.
"""

import ctypes
import functools
import inspect
import os
import threading
import weakref

import numpy as np

from .. import _libpto
from ..device import Device, DeviceError
from . import _codegen, _resident, _trace
from ._trace import CompileError, TensorArg


class Tensor:
    """Annotation of a tensor parameter the function reads (pl.Tensor)."""


class _OutMeta(type):
    def __getitem__(cls, item):
        if item is not Tensor:
            raise TypeError("pl.Out[...] takes pl.Tensor, not %r" % (item,))
        return _OutTensor


class Out(metaclass=_OutMeta):
    """pl.Out[pl.Tensor]: a tensor parameter the function writes."""


class _OutTensor:
    pass


_lock = threading.Lock()
_runtime = {}


def default_device():
    """The process's device (/dev/accel/accel0), opened on first use."""
    with _lock:
        if "device" not in _runtime:
            _runtime["device"] = Device(int(os.environ.get("PTO_DEVICE", "0")))
        return _runtime["device"]


def _queue(profile):
    """The process's queue (a profiling one when profile is set)."""
    key = "queue_p" if profile else "queue"
    q = _runtime.get(key)
    if q is None:
        dev = default_device()
        p = _libpto.QueueParams()
        p.flags = _libpto.QUEUE_PROFILE if profile else 0
        q = ctypes.c_void_p()
        rc = _libpto.lib().pto_queue_create_params(dev.handle, ctypes.byref(p),
                                                   ctypes.byref(q))
        if rc < 0:
            raise DeviceError("pto_queue_create_params", rc)
        with _lock:
            q = _runtime.setdefault(key, q)
    return q


def _host_array(a, name):
    """(the argument, its numpy view, its device Tensor or None)."""
    res = _resident.lookup(a)
    if res is not None:
        return a, res[0], res[1]
    if isinstance(a, np.ndarray):
        return a, a, None
    if type(a).__module__.split(".")[0] == "torch":
        if a.device.type != "cpu":
            raise TypeError("%s: a CPU torch tensor, not one on %s"
                            % (name, a.device))
        return a, a.detach().numpy(), None
    raise TypeError("%s: a torch tensor or a numpy array, not %r"
                    % (name, type(a).__name__))


class _Plan:
    """One signature's device tensors, graph and recording."""

    def __init__(self, fn, sig, params):
        self.fn, self.params = fn, params
        self.name = None
        dev = default_device()
        self.trace = _trace.Trace(fn.__name__, dev)
        self.args = [TensorArg(i, n, shape, dt, out)
                     for i, (n, (shape, dt, out)) in enumerate(zip(params, sig))]
        self.trace.params = self.args
        _trace.begin(self.trace)
        try:
            self.ret = fn(*self.args)
        finally:
            _trace.end()
            self.trace.task = None
        if not self.trace.tasks:
            raise CompileError("%s: no task scope ran (pl.at, pl.spmd)"
                               % fn.__name__,
                               (fn.__code__.co_filename,
                                fn.__code__.co_firstlineno))
        self.tensors = [dev.tensor(a.shape, a.dtype) for a in self.args]
        # The host's views of their GM (shared, made once) and the
        # parameters copied back after each call: the written and the Out.
        self.views = [t.numpy() for t in self.tensors]
        written = {a for t in self.trace.tasks for a in t.writes}
        self.copy_back = [a.index for a in self.args if a in written or a.is_out]
        self.kernels = []
        self.graph = None
        self.exec = None
        try:
            self._build(dev)
        except BaseException:
            self.free()
            raise

    def _task_args(self, task):
        used = set(task.reads) | set(task.writes)
        if task.predicate is not None:
            used.add(task.predicate.elem.tensor)
        return sorted(used, key=lambda a: a.index)

    def _build(self, dev):
        lib = _libpto.lib()
        g = ctypes.c_void_p()
        rc = lib.pto_graph_new(dev.handle, ctypes.byref(g))
        if rc < 0:
            raise DeviceError("pto_graph_new", rc)
        self.graph = g
        lib.pto_graph_set_name(g, self.fn.__name__.encode())
        for task in self.trace.tasks:
            self._add(lib, task)
        used = sorted({a for t in self.trace.tasks for a in self._task_args(t)},
                      key=lambda a: a.index)
        self.bound = used
        arr = (ctypes.c_void_p * len(used))(
            *[self.tensors[a.index].handle.value for a in used])
        self.bound_arr = arr
        n = len(self.args)
        # The last call's device arguments, and what it bound and copied.
        self._last_dev = (None,) * n
        self._last_io = (arr, list(range(n)), self.copy_back)
        self._named = None
        x = ctypes.c_void_p()
        rc = lib.pto_graph_record(g, arr, len(used), None, 0, ctypes.byref(x))
        if rc < 0:
            raise CompileError("%s: the device refused the recording: %s"
                               % (self.fn.__name__,
                                  lib.pto_graph_error(g).decode()
                                  or _libpto.strerror(rc)),
                               self.trace.tasks[0].where)
        self.exec = x

    def _add(self, lib, task):
        targs = self._task_args(task)
        index = {a: i for i, a in enumerate(targs)}
        comp = _codegen.compile_task(self.trace.device, task, index)
        self.kernels.append(comp)
        d = _libpto.TaskDesc()
        d.name = task.name.encode()
        keep = [d.name]
        d.kernel_aiv, d.kernel_aic = comp.aiv, comp.aic
        d.block_num, d.flags = comp.block_num, comp.flags
        tens = (ctypes.c_void_p * len(targs))(
            *[self.tensors[a.index].handle.value for a in targs])
        d.tensors, d.num_tensors = tens, len(targs)
        live = [dep.index for dep in task.deps if dep.index >= 0]
        deps = (ctypes.c_int64 * max(len(live), 1))(*live)
        d.deps, d.num_deps = deps, len(live)
        d.split_mode, d.slot_num = comp.split, comp.slot_num
        dirs = (ctypes.c_uint8 * len(targs))(
            *[(_libpto.ARG_IN if a in task.reads or
               (task.predicate is not None and
               a is task.predicate.elem.tensor) else 0) |
              (_libpto.ARG_OUT if a in task.writes else 0) for a in targs])
        if not task.manual:
            d.tensor_dirs = dirs
        if task.predicate is not None:
            p = task.predicate
            pred = _libpto.Predicate(index[p.elem.tensor], _libpto.CMP[p.op],
                                     p.elem.row, p.elem.col, p.literal)
            d.predicate = ctypes.pointer(pred)
            keep.append(pred)
        keep += [tens, deps, dirs]
        if lib.pto_graph_add_task(self.graph, ctypes.byref(d)) < 0:
            raise CompileError("%s: %s" % (task.kind,
                                           lib.pto_graph_error(self.graph).decode()),
                               task.where)

    def _io(self, hosts):
        """(bound tensors, indices copied in, indices copied back) for the
        call: a device argument is bound, unless it is passed twice."""
        dev = tuple(h[2] for h in hosts)
        if dev == self._last_dev:
            return self._last_io
        own = {i for i, t in enumerate(dev)
               if t is not None and dev.count(t) == 1}
        arr = (ctypes.c_void_p * len(self.bound))(
            *[(dev[a.index] if a.index in own else self.tensors[a.index])
              .handle.value for a in self.bound])
        io = (arr, [i for i in range(len(dev)) if i not in own],
              [i for i in self.copy_back if i not in own])
        self._last_dev, self._last_io = dev, io
        return io

    def run(self, hosts, config):
        lib = _libpto.lib()
        arr, copy_in, copy_back = self._io(hosts)
        views = self.views
        for i in copy_in:
            views[i][...] = hosts[i][1]
        profile = bool(config and (config.enable_l2_swimlane or
                                   config.enable_dep_gen))
        q = _queue(profile)
        name = self.name or self.fn.__name__
        if name != self._named:
            lib.pto_graph_set_name(self.graph, name.encode())
            self._named = name
        rc = lib.pto_graph_replay(self.graph, self.exec, q, arr, None, 0)
        if rc < 0:
            self.failed(rc)
        for i in copy_back:
            np.copyto(hosts[i][1], views[i])
        if config is not None:
            config.write_outputs(self)

    def failed(self, rc):
        """Raise the error of a launch that returned rc."""
        buf = ctypes.create_string_buffer(512)
        _libpto.lib().pto_graph_first_error(self.graph, buf, len(buf))
        raise DeviceError("%s on pto_npu: %s" % (self.fn.__name__,
                                                 buf.value.decode()
                                                 or "launch"), rc)

    def statuses(self):
        """Each task's status name after the last call."""
        lib = _libpto.lib()
        return [lib.pto_status_name(lib.pto_graph_task_status(self.graph, i,
                                                              None, None)).decode()
                for i in range(lib.pto_graph_task_count(self.graph))]

    def blocks(self):
        """Each task's block records of the last call (a profiling queue:
        PTO_PROFILE=1, PTO_TRACE_DIR or a RunConfig writing profiles)."""
        lib = _libpto.lib()
        out = []
        for i in range(lib.pto_graph_task_count(self.graph)):
            p = ctypes.POINTER(_libpto.BlockInfo)()
            n = ctypes.c_uint()
            if lib.pto_graph_task_blocks(self.graph, i, ctypes.byref(p),
                                         ctypes.byref(n)) < 0:
                n.value = 0
            out.append([p[j] for j in range(n.value)
                        if p[j].flags & _libpto.BLOCK_RAN])
        return out

    def free(self):
        lib = _libpto.lib()
        if self.exec:
            lib.pto_graph_exec_free(self.exec)
            self.exec = None
        if self.graph:
            lib.pto_graph_free(self.graph)
            self.graph = None
        for c in self.kernels:
            c.free()
        self.kernels = []
        self.views = []
        for t in getattr(self, "tensors", []):
            t.free()
        self.tensors = []


class _Hit:
    """What a call with these very argument objects derived from them.

    Kept under the arguments' id()s while every one of them lives: each is
    watched by a weak reference whose callback drops the record when the
    object dies, before its id can be another object's (and so is a device
    argument's registered view, whose death frees the GM bound). shapes: the
    (index, shape, dtype) the full path saw on arguments whose shape and
    dtype can be assigned in place (numpy arrays), checked each call; a
    device torch tensor's registered view cannot change. torch: the host
    torch tensors, whose numpy view is taken again each call (a tensor's
    storage can change in place: set_(), resize_()), with the shape and
    dtype seen. twice: device arguments passed twice, copied from their
    registered view. copy_in / copy_back: (index, device view) pairs.
    launch: pto_graph_replay()'s arguments. fast: nothing to check or copy.
    ret: the index of the parameter returned, else -1 (the full form).
    Nothing here refers to an argument strongly.
    """

    __slots__ = ("refs", "shapes", "torch", "twice", "copy_in", "copy_back",
                 "plan", "replay", "launch", "fast", "ret", "__weakref__")

    def __init__(self, plan, args, hosts, io, queue, hits, key):
        arr, copy_in, copy_back = io
        me = weakref.ref(self)

        def gone(_r, hits=hits, key=key, me=me):
            if hits.get(key) is me() is not None:
                del hits[key]
        # A device argument's registered view too: its GM is freed with it
        # (a torch tensor given other storage in place, set_()), and the
        # record, which binds that GM, goes first.
        self.refs = tuple(weakref.ref(a, gone) for a in args) + \
            tuple(weakref.ref(h[1], gone) for h in hosts
                  if h[2] is not None and h[1] is not h[0])
        self.torch = tuple((i, h[1].shape, h[1].dtype)
                           for i, h in enumerate(hosts)
                           if h[2] is None and h[1] is not h[0])
        self.shapes = tuple((i, h[1].shape, h[1].dtype)
                            for i, h in enumerate(hosts) if h[1] is h[0])
        self.twice = tuple(i for i, h in enumerate(hosts)
                           if h[2] is not None and h[1] is not h[0] and
                           (i in copy_in or i in copy_back))
        self.copy_in = tuple((i, plan.views[i]) for i in copy_in)
        self.copy_back = tuple((i, plan.views[i]) for i in copy_back)
        self.plan = plan
        self.replay = _libpto.lib().pto_graph_replay
        self.launch = (plan.graph, plan.exec, queue, arr, None, 0)
        self.fast = not (self.shapes or self.copy_in or self.copy_back)
        self.ret = plan.ret.index if isinstance(plan.ret, TensorArg) else -1

    def sources(self, args, params):
        """Each argument's host view for the copies, None if one of them
        is not what it was (its shape, its dtype)."""
        for i, shape, dtype in self.shapes:
            a = args[i]
            if a.shape != shape or a.dtype != dtype:
                return None
        src = list(args)
        for i, shape, dtype in self.torch:
            a = args[i]
            if a.device.type != "cpu":
                raise TypeError("%s: a CPU torch tensor, not one on %s"
                                % (params[i], a.device))
            h = a.detach().numpy()
            if h.shape != shape or h.dtype != dtype:
                return None
            src[i] = h
        for i in self.twice:
            src[i] = _resident.lookup(args[i])[0]
        return src


# Hit records kept per function: argument sets used in turn (a model's
# layers calling one function with their own tensors) each keep theirs.
_HITS_MAX = 16
_MISS = object()


class JitFunction:
    """A @pl.jit function: call it with torch tensors or numpy arrays."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        sig = inspect.signature(fn)
        self.params, self.outs = [], []
        for p in sig.parameters.values():
            ann = p.annotation
            if ann not in (Tensor, _OutTensor):
                raise CompileError(
                    "@pl.jit %s(%s): annotate tensor parameters pl.Tensor or "
                    "pl.Out[pl.Tensor]" % (fn.__name__, p.name),
                    (fn.__code__.co_filename, fn.__code__.co_firstlineno))
            self.params.append(p.name)
            self.outs.append(ann is _OutTensor)
        self.cache = {}
        self.traces = 0
        self._last = None
        # id()s of a call's arguments -> _Hit (calls without a config).
        self._hits = {}
        # The graph's name in traces (<name>.trace.json under PTO_TRACE_DIR).
        self.trace_name = fn.__name__

    def signature(self, hosts):
        """The cache key: each argument's shape and dtype (which are
        pl.Out is the function's own)."""
        return tuple((h[1].shape, h[1].dtype) for h in hosts)

    def plan(self, *args):
        """The compiled form for these arguments (traced on a miss)."""
        hosts = self._hosts(args)
        return self._plan(hosts), hosts

    def _hosts(self, args):
        if len(args) != len(self.params):
            raise TypeError("%s() takes %d tensors, %d given"
                            % (self.fn.__name__, len(self.params), len(args)))
        return [_host_array(a, n) for a, n in zip(args, self.params)]

    def _plan(self, hosts):
        key = self.signature(hosts)
        plan = self.cache.get(key)
        if plan is None:
            for h, n in zip(hosts, self.params):
                if h[1].dtype.name not in _libpto.DTYPES:
                    raise TypeError("%s: pto_npu has no %s tensors"
                                    % (n, h[1].dtype))
            sig = [(h[1].shape, h[1].dtype, out)
                   for h, out in zip(hosts, self.outs)]
            plan = _Plan(self.fn, sig, self.params)
            self.cache[key] = plan
            self.traces += 1
        return plan

    def __call__(self, *args, config=None):
        # A config writing no profiles (the guide's config=CFG) runs as none.
        if config is not None:
            config.check()
            if not (config.enable_l2_swimlane or config.enable_dep_gen):
                config = None
        if config is None:
            hit = self._hits.get(tuple(map(id, args)))
            if hit is not None:
                plan = hit.plan
                if hit.fast and plan._named is self.trace_name:
                    # Device arguments only: the one launch.
                    rc = hit.replay(*hit.launch)
                    if rc < 0:
                        plan.failed(rc)
                    self._last = plan
                    return args[hit.ret] if hit.ret >= 0 else \
                        self._returned(plan, args)
                ret = self._run_hit(hit, args)
                if ret is not _MISS:
                    return ret
        hosts = self._hosts(args)
        plan = self._plan(hosts)
        plan.name = self.trace_name
        plan.run(hosts, config)
        self._last = plan
        if config is None:
            self._keep_hit(plan, args, hosts)
        return self._returned(plan, args)

    def _keep_hit(self, plan, args, hosts):
        hits = self._hits
        if len(hits) >= _HITS_MAX:
            hits.clear()
        key = tuple(map(id, args))
        hits[key] = _Hit(plan, args, hosts, plan._last_io, _queue(False),
                         hits, key)

    def _run_hit(self, hit, args):
        """A call on a hit: the copies in, one replay, the copies back."""
        plan = hit.plan
        src = hit.sources(args, self.params)
        if src is None:
            del self._hits[tuple(map(id, args))]
            return _MISS
        for i, v in hit.copy_in:
            v[...] = src[i]
        name = self.trace_name
        if plan._named != name:
            _libpto.lib().pto_graph_set_name(plan.graph, name.encode())
            plan._named = name
        plan.name = name
        rc = hit.replay(*hit.launch)
        if rc < 0:
            plan.failed(rc)
        for i, v in hit.copy_back:
            np.copyto(src[i], v)
        self._last = plan
        return args[hit.ret] if hit.ret >= 0 else self._returned(plan, args)

    def _returned(self, plan, args):
        def one(v):
            if isinstance(v, TensorArg):
                return args[v.index]
            return v
        if isinstance(plan.ret, tuple):
            return tuple(one(v) for v in plan.ret)
        return one(plan.ret)

    def last(self):
        """The compiled signature the last call ran."""
        if self._last is None:
            raise RuntimeError("%s has not run" % self.fn.__name__)
        return self._last

    def statuses(self):
        """Each task's status name (OK, SKIPPED, ...) after the last call."""
        return self.last().statuses()

    def blocks(self):
        """Each task's blocks that ran in the last call."""
        return self.last().blocks()

    def staged(self):
        """Blocks of the last call that were pre-staged (early resolve)."""
        return sum(1 for bs in self.blocks() for b in bs
                   if b.flags & _libpto.BLOCK_STAGED)

    def clear(self):
        """Drop every compiled signature and its device objects."""
        self._hits.clear()
        for p in self.cache.values():
            p.free()
        self.cache.clear()


def jit(fn):
    """@pl.jit: compile per argument signature, replay per call."""
    return JitFunction(fn)
