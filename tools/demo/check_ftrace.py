#!/usr/bin/env python3
"""The kernel's tracepoints and the swimlane agree, task by task (TAP).

usage: check_ftrace.py DIR

DIR holds what `ptoctl trace --ftrace -o DIR -- CMD` recorded in the VM:
ftrace.txt (the pto_npu tracepoints on the "mono" trace clock, i.e.
CLOCK_MONOTONIC) and each graph's <name>.trace.json. For every swimlane,
its otherData (t0_ns, device_index, context_id) places it on that clock
and names its events: every task of the swimlane has its pto_intake and,
as it ran, its pto_retire (or pto_skip) event of the same dev, ctx and
task id; every bar (unit that ran) a pto_start and a pto_end on the same
core, each after the clock read of its moment and before the next one's
(pto_start between the bar's start and end, pto_end between its end and
finish: an order, not a tolerance, so a slow host cannot break it); and
the text output names status and core type (__print_symbolic). Prints
TAP, exits 1 on a failure; a DIR without ftrace.txt is a SKIP.
"""
import glob
import json
import os
import re
import sys

LINE = re.compile(r'\s(\d+\.\d+):\s+(pto_[a-z_]+):\s+(.*)$')
FIELD = re.compile(r'(\w+)=(\S+)')


def parse_ftrace(path):
    ev = []
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('#'):
                continue
            m = LINE.search(line)
            if not m:
                continue
            fields = dict(FIELD.findall(m.group(3)))
            ev.append((float(m.group(1)) * 1e6, m.group(2), fields))
    return ev


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    tests = []

    def check(ok, name, why=''):
        tests.append((bool(ok), name, why))
        return bool(ok)

    ft = os.path.join(d, 'ftrace.txt')
    traces = sorted(glob.glob(os.path.join(d, '*.trace.json')))
    if not os.path.exists(ft) or not traces:
        print('1..1\nok 1 ftrace # SKIP no ftrace.txt or swimlane in %s' % d)
        return 0
    ev = parse_ftrace(ft)
    check(ev, 'ftrace.txt has pto_npu events (%d)' % len(ev))
    named = [e for e in ev if e[1] in ('pto_start', 'pto_end', 'pto_retire')]
    check(named and all(re.match(r'^[A-Z_]+$', e[2].get('status', '')) for e in named),
          'status printed by name (__print_symbolic)',
          [e[2].get('status') for e in named[:5]])
    units = [e for e in ev if e[1] in ('pto_start', 'pto_end')]
    check(units and all(re.match(r'^(AIC|AIV)_\d+$', e[2].get('core', '')) for e in units),
          'core printed as AIC_k / AIV_k', [e[2].get('core') for e in units[:5]])
    by = {}
    for ts, name, f in ev:
        key = (f.get('dev'), f.get('ctx'), f.get('task'))
        by.setdefault(key, []).append((ts, name, f))
    for path in traces:
        name = os.path.basename(path)[:-len('.trace.json')]
        with open(path) as f:
            tr = json.load(f)
        od = tr.get('otherData', {})
        t0 = od.get('t0_ns')
        dev, ctx = str(od.get('device_index')), str(od.get('context_id'))
        if not check(t0 is not None and od.get('clock') == 'CLOCK_MONOTONIC' and
                     ctx not in ('None', '0'),
                     '%s: otherData has t0_ns, clock, context_id' % name, od):
            continue
        t0_us = t0 / 1000.0
        with open(path[:-len('.trace.json')] + '.deps.json') as f:
            tasks = json.load(f)['tasks']
        missing, life, far = [], [], []
        for t in tasks:
            mine = by.get((dev, ctx, str(t['task_id'])), [])
            kinds = {n for _, n, _ in mine}
            if 'pto_intake' not in kinds:
                missing.append(t['id'])
            if t['status'] == 'SKIPPED':
                if 'pto_skip' not in kinds:
                    life.append('%d: no pto_skip' % t['id'])
            elif t['status'] != 'PENDING' and 'pto_retire' not in kinds:
                life.append('%d: no pto_retire' % t['id'])
        check(not missing, '%s: every task (%d) has its pto_intake (dev %s ctx %s)' %
              (name, len(tasks), dev, ctx), 'tasks without: %s' % missing[:10])
        check(not life, '%s: every task retired or skipped in the trace' % name, life[:10])
        bars = [e for e in tr['traceEvents'] if e.get('ph') == 'X' and e.get('cat') == 'block']
        worst = 0.0
        for b in bars:
            a = b['args']
            mine = by.get((dev, ctx, str(a['task_id'])), [])
            start, end = t0_us + b['ts'], t0_us + b['ts'] + b['dur']
            finish = t0_us + a['finish_us']
            # Each tracepoint fires after the clock read of its moment and
            # before the next moment's: pto_start in [start, end], pto_end
            # in [end, finish] (ftrace prints whole us: 1 us of slack).
            for kind, lo, hi in (('pto_start', start, end), ('pto_end', end, finish)):
                # The bar's unit index is its record's; match by core (a
                # core may run several units of one task) and window.
                hits = [ts for ts, n, f in mine if n == kind and f.get('core') == a['core']
                        and lo - 1.0 <= ts <= hi + 1.0]
                if not hits:
                    far.append('task %d record %d: no %s on %s within [%.1f, %.1f] us of t0' %
                               (a['graph_index'], a['unit'], kind, a['core'],
                                lo - t0_us, hi - t0_us))
                    continue
                worst = max(worst, min(abs(h - lo) for h in hits))
        check(bars and not far, '%s: every bar (%d) has its pto_start and pto_end on its '
              'core, each between its moment and the next (worst %.1f us after its moment)' %
              (name, len(bars), worst), far[:10])
    print('1..%d' % len(tests))
    for i, (ok, name, why) in enumerate(tests, 1):
        print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
        if not ok:
            for line in str(why).splitlines():
                print('# ' + line)
    return 0 if all(t[0] for t in tests) else 1


if __name__ == '__main__':
    sys.exit(main())
