#!/usr/bin/env python3
"""One graph run as make demo exported it (its swimlane and deps.json,
Documentation/swimlane.rst), for tools/demo/confirm.py and summary.py:
the run's tasks, edges and bars, and where a demo directory keeps each
form's runs."""
import glob
import json
import os


class Run:
    """One graph run: its swimlane and deps.json."""

    def __init__(self, base):
        self.base = base
        with open(base + '.trace.json') as f:
            self.trace = json.load(f)
        with open(base + '.deps.json') as f:
            self.deps = json.load(f)
        ev = self.trace['traceEvents']
        # A block's bar (cat "block" or "block,staged"); its waits are
        # slices of their own (cat "wait": rings, barriers, staged).
        self.bars = [e for e in ev if e.get('ph') == 'X' and
                     str(e.get('cat', 'block')).startswith('block')]
        self.waits = [e for e in ev if e.get('ph') == 'X' and e.get('cat') == 'wait']
        self.profiled = any('waits' in b['args'] for b in self.bars)
        self.marks = [e for e in ev if e.get('ph') == 'i']
        self.slices = [e for e in ev if e.get('ph') == 'b']
        self.lane_name = {e['tid']: e['args']['name'] for e in ev
                          if e.get('ph') == 'M' and e.get('name') == 'thread_name'}

    def tasks(self):
        return len(self.deps['tasks'])

    def task(self, idx):
        return self.deps['tasks'][idx]

    def edges(self):
        return len(self.deps['edges'])

    def preds(self, idx):
        return [e['pred'] for e in self.deps['edges'] if e['succ'] == idx]

    def dispatched(self):
        return len({b['args']['graph_index'] for b in self.bars})

    def makespan_us(self):
        if not self.bars:
            return 0.0
        start = min(b['args']['dispatch_us'] for b in self.bars)
        end = max(end_of(b) for b in self.bars)
        return end - start

    def bars_of(self, idx):
        return [b for b in self.bars if b['args']['graph_index'] == idx]

    def lane(self, b):
        return self.lane_name.get(b['tid'], '?')

    def lanes_of_type(self, kind):
        return sum(1 for n in self.lane_name.values() if n.startswith(kind + '_'))

    def first_start(self, idx):
        return min(b['ts'] for b in self.bars_of(idx))

    def last_end(self, idx):
        return max(end_of(b) for b in self.bars_of(idx))

    def lanes_at_once(self, idx, since='start'):
        """Most DISTINCT lanes holding one task's bars at the same instant:
        since='start' counts a bar from its start (running), 'dispatch'
        from its dispatch_us (the core is the block's from its placement).
        Blocks queued on one lane count once."""
        pts = []
        for b in self.bars_of(idx):
            t0 = b['args']['dispatch_us'] if since == 'dispatch' else b['ts']
            pts.append((t0, 1, b['tid']))
            pts.append((end_of(b), -1, b['tid']))
        # An end and a start at the same instant are not "at once".
        pts.sort(key=lambda p: (p[0], p[1]))
        held = {}
        best = 0
        for _, d, tid in pts:
            held[tid] = held.get(tid, 0) + d
            best = max(best, sum(1 for n in held.values() if n > 0))
        return best

    def dispatch_slices_of(self, idx):
        """The 'dispatch to start' slices of a task (id "d<I>_<unit>")."""
        pre = 'd%d_' % idx
        return [s for s in self.slices if str(s.get('id', '')).startswith(pre)]

    def chain_gaps(self):
        """[producer end -> consumer start] per edge, in microseconds."""
        gaps = []
        for e in self.deps['edges']:
            if self.bars_of(e['pred']) and self.bars_of(e['succ']):
                gaps.append(self.first_start(e['succ']) - self.last_end(e['pred']))
        return gaps

    def waits_of(self, b, kinds=None):
        """The wait slices of bar @b (same task and unit), in time order;
        @kinds: only those (STAGED, RING_POP, RING_PUSH, BARRIER_HARD...)."""
        a = b['args']
        ws = [w for w in self.waits
              if w['args'].get('graph_index') == a['graph_index'] and
              w['args'].get('unit') == a['unit'] and
              (kinds is None or w['args'].get('kind') in kinds)]
        return sorted(ws, key=lambda w: w['ts'])

    def work_of(self, b):
        """Bar @b minus its ring and barrier waits: [(from, to)] of work."""
        out, at = [], b['ts']
        for w in self.waits_of(b):
            if w['args'].get('kind') == 'STAGED':
                continue
            if w['ts'] > at:
                out.append((at, w['ts']))
            at = max(at, end_of(w))
        if end_of(b) > at:
            out.append((at, end_of(b)))
        return out

    def staged_bars(self):
        return [b for b in self.bars if b['args'].get('staged')]

    def staged(self):
        return len(self.staged_bars())


def end_of(b):
    return b['ts'] + b['dur']


def repetitions(d, name):
    """The runs of @name in every repetition of d (make demo keeps them
    in d/runs/repK/), in repetition order; [] when d has none."""
    out = []
    for rep in sorted(glob.glob(os.path.join(d, 'runs', 'rep*'))):
        r = load(rep, name)
        if r:
            out.append(r)
    return out


def load(d, name):
    base = os.path.join(d, name)
    if not os.path.exists(base + '.trace.json'):
        return None
    return Run(base)


def find(d, pattern):
    hits = sorted(glob.glob(os.path.join(d, pattern + '.trace.json')))
    return Run(hits[0][:-len('.trace.json')]) if hits else None
