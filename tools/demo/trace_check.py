#!/usr/bin/env python3
"""The swimlane's own rules, for tools/demo/confirm.py: every event well
formed, every lane's bars in order, each wait inside its bar (or the
staged interval right before it), and the scheduler's slices on their
lanes (Documentation/swimlane.rst)."""
import json


def validate_trace(path):
    """The swimlane is well formed: parses, required fields, every lane's
    bars in time order and never overlapping, dispatch <= receive <= start,
    each wait slice inside its own bar (a ring or barrier wait) or right
    before it (the staged interval, ending at its release). Returns a list
    of problems."""
    bad = []
    try:
        with open(path) as f:
            ev = json.load(f)['traceEvents']
    except (OSError, ValueError, KeyError) as e:
        return ['%s: %s' % (path, e)]
    need = {'X': ('pid', 'tid', 'name', 'ts', 'dur', 'args'),
            'i': ('pid', 'tid', 'name', 'ts', 's'),
            'b': ('pid', 'tid', 'name', 'ts', 'id', 'cat'),
            'e': ('pid', 'tid', 'name', 'ts', 'id', 'cat'),
            's': ('pid', 'tid', 'ts', 'id'), 'f': ('pid', 'tid', 'ts', 'id'),
            'M': ('pid', 'name', 'args'), 'C': ('pid', 'name', 'ts', 'args')}
    lanes, waits, sched = {}, [], {}
    names = {(e['pid'], e.get('tid')): e['args'].get('name') for e in ev
             if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
    for e in ev:
        ph = e.get('ph')
        if ph not in need:
            bad.append('unknown phase %r' % ph)
            continue
        missing = [k for k in need[ph] if k not in e]
        if missing:
            bad.append('%s event without %s' % (ph, ', '.join(missing)))
            continue
        if ph == 'X' and e.get('cat') == 'sched':
            sched.setdefault((e['pid'], e['tid']), []).append(e)
            continue
        if ph == 'X' and e.get('cat') == 'wait':
            for k in ('graph_index', 'unit', 'kind'):
                if k not in e['args']:
                    bad.append('wait without args.%s' % k)
            waits.append(e)
            continue
        if ph == 'X':
            a = e['args']
            if a.get('dispatch_us', 0) > a.get('receive_us', 0) + 1e-3 or \
                    a.get('receive_us', 0) > e['ts'] + 1e-3:
                bad.append('bar %s: not dispatch <= receive <= start' % e['name'])
            for k in ('task_id', 'block', 'status', 'dispatch_us', 'receive_us', 'finish_us'):
                if k not in e['args']:
                    bad.append('bar without args.%s' % k)
            if e['dur'] < 0 or e['args'].get('dispatch_us', 0) > e['ts'] + 1e-3:
                bad.append('bar %s: dispatch after start or negative duration' % e['name'])
            lanes.setdefault((e['pid'], e['tid']), []).append(e)
    for lane, bars in lanes.items():
        bars.sort(key=lambda b: b['ts'])
        for a, b in zip(bars, bars[1:]):
            if a['ts'] + a['dur'] > b['ts'] + 1e-3:
                bad.append('lane %s: bars %s and %s overlap' % (lane[1], a['name'], b['name']))
    bad += validate_sched(sched, names, lanes)
    for w in waits:
        a = w['args']
        own = [b for b in lanes.get((w['pid'], w['tid']), [])
               if b['args'].get('graph_index') == a.get('graph_index') and
               b['args'].get('unit') == a.get('unit')]
        if len(own) != 1:
            bad.append('wait %s: not on the lane of its bar' % w['name'])
            continue
        b = own[0]
        if a.get('kind') == 'STAGED':
            if not b['args'].get('staged') or \
                    abs(w['ts'] + w['dur'] - b['args'].get('release_us', -1)) > 2e-3 or \
                    w['ts'] + w['dur'] > b['ts'] + 1e-3:
                bad.append('staged interval of %s: not from placement to its release '
                           'before its bar' % b['name'])
        elif w['ts'] < b['ts'] - 1e-3 or w['ts'] + w['dur'] > b['ts'] + b['dur'] + 1e-3:
            bad.append('wait %s of %s: outside its bar' % (w['name'], b['name']))
    return bad


SCHED_ARGS = {'doorbell': ('task_id', 'graph_index'),
              'scheduler': ('loop', 'units'),
              'scheduler: resolve': ('task_id', 'graph_index', 'loop', 'consumers')}
SCHED_NAMES = {'doorbell': ('intake',), 'scheduler': ('complete', 'dispatch', 'early_dispatch'),
               'scheduler: resolve': ('resolve',)}


def validate_sched(sched, names, lanes):
    """The scheduler's slices (cat "sched", from its records): each on its
    lane (doorbell: intakes; scheduler: complete, dispatch,
    early_dispatch; scheduler: resolve), with its args, never overlapping
    another of its lane; one intake per task that ran, before its first
    bar."""
    bad = []
    intakes = {}
    for lane, sl in sched.items():
        name = names.get(lane)
        if name not in SCHED_ARGS:
            bad.append('sched slice on lane %r' % name)
            continue
        for e in sl:
            kind = e['name'].split(' ', 1)[0]
            if kind not in SCHED_NAMES[name]:
                bad.append('%r on the %s lane' % (e['name'], name))
            missing = [k for k in SCHED_ARGS[name] if k not in e['args']]
            if missing:
                bad.append('%s slice without args.%s' % (kind, ', '.join(missing)))
            if e['dur'] < 0:
                bad.append('%s slice with a negative duration' % kind)
            if name == 'doorbell':
                intakes.setdefault(e['args'].get('graph_index'), []).append(e)
        sl = sorted(sl, key=lambda x: (x['ts'], x['dur']))
        for a, b in zip(sl, sl[1:]):
            # Printed exactly (ns): adjacent slices may touch, not overlap.
            if round((a['ts'] + a['dur']) * 1000) > round(b['ts'] * 1000):
                bad.append('lane %s: %s and %s overlap' % (name, a['name'], b['name']))
    if sched:
        for bars in lanes.values():
            for b in bars:
                mine = intakes.get(b['args'].get('graph_index'), [])
                if len(mine) != 1:
                    bad.append('bar %s: %d intakes, want 1' % (b['name'], len(mine)))
                elif mine[0]['ts'] > b['args'].get('dispatch_us', 0) + 1e-3:
                    bad.append('bar %s: dispatched before its intake' % b['name'])
    return bad
