#!/usr/bin/env python3
"""Run PyPTO/simpler's own profiling tools, unchanged, on the PyPTO-compatible
profiles libpto writes (Documentation/profiling-simpler.rst); TAP.

usage: test_simpler_tools.py [--simpler DIR] TRACES_DIR

TRACES_DIR holds what the examples wrote with PTO_TRACE_DIR and
PTO_TRACE_FORMAT=simpler: <name>.trace.json and <name>.deps.json (our own
files) and, per graph, a directory with chip_swimlane_records.json,
deps.json and name_map_<name>.json. Each such directory (found at any
depth) is copied to a scratch directory and given to simpler's four tools:

  swimlane_converter       exits 0; a Worker View bar per unit of our
                           swimlane, named NAME(tI) (NAME_spmd(tI) for an
                           SPMD task) with our kernel durations; a
                           predicated_skip marker per skipped task; the
                           dependency arrows its rules give for our edges;
                           no happens-before violation in either view
  deps_viewer              exits 0; our task and edge counts, each task
                           under its name with its fan-in and fan-out
  critical_path            exits 0; the makespan of our bars, every task
                           that ran, every edge between them kept as a
                           happens-before edge, an exact tiling
  sched_overhead_analysis  exits 0; the makespan of our bars

and the tools' results are compared with our own trace.json and deps.json.

The simpler checkout is --simpler, else $SIMPLER_DIR (a clone of
https://github.com/hw-native-sys/simpler); the tools run from it with
PYTHONPATH=DIR/python:DIR (no build, no install). Without one, or without
any profile in TRACES_DIR, every test is a TAP SKIP saying why.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOLS = ('swimlane_converter', 'deps_viewer', 'critical_path',
         'sched_overhead_analysis')
# Our trace prints microseconds with 3 decimals; simpler computes from ns.
TOL_US = 0.0021


def find_simpler(arg):
    d = arg or os.environ.get('SIMPLER_DIR', '')
    if d and os.path.isfile(os.path.join(d, 'simpler_setup', 'tools',
                                         'swimlane_converter.py')):
        return os.path.abspath(d)
    return None


def find_profiles(root):
    out = []
    for d, _dirs, files in os.walk(root):
        if 'chip_swimlane_records.json' in files:
            out.append(d)
    return sorted(out)


def run_tool(simpler, tool, args, cwd):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(
        [os.path.join(simpler, 'python'), simpler] +
        ([env['PYTHONPATH']] if env.get('PYTHONPATH') else []))
    p = subprocess.run([sys.executable, '-m', 'simpler_setup.tools.' + tool] + args,
                       cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    return p.returncode, p.stdout


def ours(traces, name):
    """Our own files of graph NAME: tasks, edges, bars per graph index."""
    with open(os.path.join(traces, name + '.deps.json')) as f:
        deps = json.load(f)
    with open(os.path.join(traces, name + '.trace.json')) as f:
        trace = json.load(f)
    bars = {}
    for e in trace['traceEvents']:
        # Bars only: a wait slice (cat "wait") is part of its bar or, the
        # staged interval, before it; a scheduler slice (cat "sched") is
        # the device's own work.
        if e.get('ph') == 'X' and str(e.get('cat')).startswith('block') and \
                'graph_index' in e.get('args', {}):
            bars.setdefault(e['args']['graph_index'], []).append(e)
    return deps, bars


def label(task):
    """simpler's label of a task (swimlane_converter._task_display_name)."""
    text = '%s(t%d)' % (task['name'], task['id'])
    if task['block_num'] > 1:
        base, rest = text.split('(', 1)
        if 'spmd' not in base.lower():
            text = '%s_spmd(%s' % (base, rest)
    return text


def check_converter(simpler, d, deps, bars):
    problems = []
    rc, out = run_tool(simpler, 'swimlane_converter',
                       [os.path.join(d, 'chip_swimlane_records.json'), '-o',
                        os.path.join(d, 'merged_swimlane.json'), '-v'], d)
    if rc:
        return ['exit %d: %s' % (rc, out.strip().splitlines()[-1:])]
    with open(os.path.join(d, 'merged_swimlane.json')) as f:
        ev = json.load(f)['traceEvents']
    tasks = deps['tasks']
    # Worker View (pid 4): a bar per unit, named after its task.
    got = {}
    for e in ev:
        if e.get('ph') == 'X' and e.get('pid') == 4 and 'taskId' in e.get('args', {}):
            got.setdefault(int(e['args']['taskId']), []).append(e)
    for t in tasks:
        mine, theirs = bars.get(t['id'], []), got.get(t['id'], [])
        if len(mine) != len(theirs):
            problems.append('%s: %d bars, ours %d' % (label(t), len(theirs), len(mine)))
            continue
        names = {e['name'] for e in theirs}
        if theirs and names != {label(t)}:
            problems.append('task %d named %s, expected %s' % (t['id'], sorted(names), label(t)))
        dm = sorted(e['dur'] for e in mine)
        dt = sorted(e['args']['kernel-duration-us'] for e in theirs)
        if any(abs(a - b) > TOL_US and b > 0.0011 for a, b in zip(dt, dm)):
            problems.append('%s: kernel durations %s, ours %s' % (label(t), dt, dm))
    extra = set(got) - {t['id'] for t in tasks}
    if extra:
        problems.append('bars of unknown tasks %s' % sorted(extra))
    # predicated_skip markers (AICPU lanes of the Worker View).
    skips = {int(e['args']['task_id']) for e in ev
             if e.get('ph') == 'X' and e.get('pid') == 4 and
             e.get('args', {}).get('predicated_pass') is False}
    want = {t['id'] for t in tasks if t['status'] == 'SKIPPED'}
    if skips != want:
        problems.append('predicated_skip markers for %s, skipped tasks %s' %
                        (sorted(skips), sorted(want)))
    # Arrows: Worker View anchors: a skip marker, one bar of an SPMD task,
    # every bar of another.
    by_id = {t['id']: t for t in tasks}

    def anchors(i):
        if i in want:
            return 1
        if not bars.get(i):
            return 0
        return 1 if by_id[i]['block_num'] > 1 else len(bars[i])
    pairs = {(e['pred'], e['succ']) for e in deps['edges']}
    expect = sum(anchors(p) * anchors(s) for p, s in pairs)
    flows = [e for e in ev if e.get('ph') == 's' and e.get('pid') == 4]
    dep = [e for e in flows if e.get('name') == 'dependency']
    if len(dep) != expect:
        problems.append('%d dependency arrows, expected %d' % (len(dep), expect))
    hb = [e for e in ev if e.get('ph') == 's' and e.get('name') == 'hb_violation']
    if hb:
        problems.append('%d happens-before violations, first %s' % (len(hb), hb[0]))
    if 'Happens-before violations' in out:
        problems.append(re.search(r'Happens-before violations.*', out).group(0))
    return problems


def check_deps_viewer(simpler, d, deps):
    problems = []
    rc, out = run_tool(simpler, 'deps_viewer', [os.path.join(d, 'deps.json')], d)
    if rc:
        return ['exit %d: %s' % (rc, out.strip().splitlines()[-1:])]
    with open(os.path.join(d, 'deps_viewer.txt')) as f:
        text = f.read()
    tasks = deps['tasks']
    pairs = {(e['pred'], e['succ']) for e in deps['edges']}
    for key, want in (('tasks', len(tasks)), ('unique_task_edges', len(pairs))):
        m = re.search(r'\b%s\b\s*[:=]\s*(\d+)' % key, text)
        if not m or int(m.group(1)) != want:
            problems.append('%s %s, ours %d' % (key, m.group(1) if m else 'missing', want))
    fanin = {t['id']: 0 for t in tasks}
    fanout = {t['id']: 0 for t in tasks}
    for p, s in pairs:
        fanout[p] += 1
        fanin[s] += 1
    if not re.search(r'func_name_map:\s*yes', text):
        problems.append('func_name_map is not yes: the name map was not used')
    index = text.split('TASK INDEX', 1)[-1].split('===', 1)[0]
    for t in tasks:
        line = next((l for l in index.splitlines()
                     if re.match(r'TASK %d ' % t['id'], l)), None)
        if line is None:
            problems.append('task %d not in TASK INDEX' % t['id'])
            continue
        for k, v in (('fanin', fanin[t['id']]), ('fanout', fanout[t['id']])):
            m = re.search(r'\b%s=(\d+)' % k, line)
            if not m or int(m.group(1)) != v:
                problems.append('task %d: %s %s, ours %d' % (t['id'], k, m.group(1) if m else '?', v))
        if t['block_num'] > 1 and 'SPMD block num = %d' % t['block_num'] not in line:
            problems.append('task %d: no SPMD block num %d in: %s' % (t['id'], t['block_num'], line))
    return problems


def makespan(bars):
    starts = [e['ts'] for b in bars.values() for e in b]
    ends = [e['ts'] + e['dur'] for b in bars.values() for e in b]
    return max(ends) - min(starts)


def check_critical_path(simpler, d, deps, bars):
    rc, out = run_tool(simpler, 'critical_path', [d], d)
    if rc:
        return ['exit %d: %s' % (rc, out.strip().splitlines()[-1:])]
    path = os.path.join(d, 'critical_path_report.md')
    if not os.path.exists(path):
        return ['no critical_path_report.md: %s' % out.strip().splitlines()[-1:]]
    with open(path) as f:
        text = f.read()
    problems = []
    m = re.search(r'\*\*makespan\*\*:\s*([0-9.]+)\s*(ms|us|µs|s)\b', text)
    got = float(m.group(1)) * {'ms': 1e3, 'us': 1.0, 'µs': 1.0, 's': 1e6}[m.group(2)] if m else None
    # The report prints 3 digits of its unit.
    if got is None or abs(got - makespan(bars)) > 0.0006 * {'ms': 1e3, 's': 1e6}.get(m.group(2), 1) + 0.0021:
        problems.append('makespan %s, ours %.3f us' % (m.group(0) if m else 'missing', makespan(bars)))
    ran = len(bars)
    m = re.search(r'^- tasks:\s*(\d+)', text, re.M)
    if not m or int(m.group(1)) != ran:
        problems.append('%s tasks, ours %d ran' % (m.group(1) if m else 'no count of', ran))
    # Every edge between tasks that ran is a happens-before edge.
    want = len({(e['pred'], e['succ']) for e in deps['edges']
                if e['pred'] in bars and e['succ'] in bars})
    m = re.search(r'happens-before edges:\s*(\d+)', text)
    if not m or int(m.group(1)) != want:
        problems.append('%s happens-before edges, ours %d' % (m.group(1) if m else 'no count of', want))
    if 'tiling check' in text and '(exact)' not in text:
        problems.append('compute + stall do not tile the makespan')
    names = {t['name'] for t in deps['tasks'] if t['id'] in bars}
    if not any(n in text for n in names):
        problems.append('no task name of ours in the report')
    return problems


OUTER = ('complete', 'dispatch', 'early_dispatch')
KINDS = OUTER + ('resolve', 'predicated_skip')


def check_schema(d, deps, bars):
    """chip_swimlane_records.json against the documented format
    (Documentation/profiling-simpler.rst and simpler's
    docs/dfx/chip-swimlane-profiling.md): no simpler checkout needed."""
    with open(os.path.join(d, 'chip_swimlane_records.json')) as f:
        rec = json.load(f)
    problems = []
    level = rec.get('chip_swimlane_level')
    if level not in (2, 4):
        return ['chip_swimlane_level %r, not 2 or 4' % level]
    md = rec.get('metadata', {})
    types = md.get('core_types', [])
    if md.get('clock_freq_hz') != 1000000000:
        problems.append('clock_freq_hz %r' % md.get('clock_freq_hz'))
    if md.get('num_cores') != len(types) or \
            set(types) - {'aic', 'aiv'} or \
            len(md.get('core_to_thread', [])) != len(types):
        problems.append('cores: num_cores %r, core_types %r, core_to_thread %r'
                        % (md.get('num_cores'), types, md.get('core_to_thread')))
    core = rec.get('aicore_tasks', [])
    cpu = rec.get('aicpu_tasks', [])
    for r in core:
        if len(r) != 6 or not 0 <= r[0] < len(types) or r[3] > r[4] or \
                r[5] < 0:
            problems.append('aicore_tasks row %r' % r)
    for r in cpu:
        if len(r) != 4 or not 0 <= r[0] < len(types):
            problems.append('aicpu_tasks row %r' % r)
    if sorted(r[2] for r in core) != sorted(r[1] for r in cpu):
        problems.append('aicore_tasks and aicpu_tasks: other reg_task_ids')
    nbars = sum(len(v) for v in bars.values())
    if len(core) != nbars:
        problems.append('%d aicore_tasks rows, %d bars in our swimlane'
                        % (len(core), nbars))
    if level == 2:
        if 'aicpu_scheduler_phases' in rec:
            problems.append('level 2 with scheduler phases')
        return problems
    sched = rec.get('aicpu_scheduler_phases')
    orch = rec.get('aicpu_orchestrator_phases')
    if not isinstance(sched, list) or len(sched) != 1 or \
            not isinstance(orch, list) or len(orch) != 1:
        return problems + ['level 4 without one scheduler and one '
                           'orchestrator thread of phases']
    last_iter, fins, outer = 0, 0, []
    for p in sched[0]:
        k = p.get('kind')
        if k not in KINDS or p['start_cycles'] > p['end_cycles'] or \
                p['tasks_processed'] < 0 or \
                not last_iter <= p['loop_iter'] <= last_iter + 1:
            problems.append('phase %r' % p)
        last_iter = max(last_iter, p['loop_iter'])
        if k == 'predicated_skip' and 'task_id' not in p:
            problems.append('predicated_skip without task_id: %r' % p)
        if k == 'complete':
            fins += p['tasks_processed']
        if k in OUTER and p['end_cycles'] > p['start_cycles']:
            outer.append((p['start_cycles'], p['end_cycles'], k))
    outer.sort()
    for a, b in zip(outer, outer[1:]):
        if b[0] < a[1]:
            problems.append('outer phases overlap: %r and %r' % (a, b))
    # Each unit that ran ended once; a unit cancelled on its core also ends.
    if fins < len(core):
        problems.append('complete: %d ends, %d units ran' % (fins, len(core)))
    ntasks = len(deps.get('tasks', []))
    seen = set()
    for i, p in enumerate(orch[0]):
        if p.get('submit_idx') != i or p['start_cycles'] > p['end_cycles'] or \
                not 0 <= p.get('task_id', -1) < ntasks or p['task_id'] in seen:
            problems.append('orchestrator phase %r' % p)
        seen.add(p.get('task_id'))
    if len(seen) != ntasks:
        problems.append('%d intakes, %d tasks' % (len(seen), ntasks))
    return problems


def check_sched_overhead(simpler, d, bars):
    rc, out = run_tool(simpler, 'sched_overhead_analysis',
                       ['--chip-swimlane-records-json',
                        os.path.join(d, 'chip_swimlane_records.json'),
                        '--deps-json', os.path.join(d, 'deps.json')], d)
    if rc:
        return ['exit %d: %s' % (rc, out.strip().splitlines()[-1:])]
    problems = []
    if 'Part 1' not in out:
        problems.append('no Part 1 in its report')
    m = re.search(r'[Mm]akespan[^0-9\n]*([0-9.]+)\s*us', out)
    if m and abs(float(m.group(1)) - makespan(bars)) > 0.01 + 0.001 * makespan(bars):
        problems.append('makespan %s, ours %.3f us' % (m.group(1), makespan(bars)))
    # Part 5, the scheduler loop: the ends our complete phases counted, and
    # time in the complete and dispatch phases (the module times them).
    with open(os.path.join(d, 'chip_swimlane_records.json')) as f:
        rec = json.load(f)
    if rec['chip_swimlane_level'] >= 3:
        fins = sum(p['tasks_processed'] for p in rec['aicpu_scheduler_phases'][0]
                   if p['kind'] == 'complete')
        m = re.search(r'FINs observed \(Complete phase\): (\d+)', out)
        if not m or int(m.group(1)) != fins:
            problems.append('Part 5: FINs %s, our complete phases %d'
                            % (m.group(1) if m else 'missing', fins))
        for phase in ('Complete', 'Dispatch'):
            m = re.search(r'^\s*%s \(.*?\)\s+([0-9.]+)' % phase, out, re.M)
            if not m or float(m.group(1)) <= 0:
                problems.append('Part 5: no %s time' % phase)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--simpler')
    ap.add_argument('--keep', help='keep the tools\' outputs in this directory')
    ap.add_argument('traces')
    args = ap.parse_args()
    simpler = find_simpler(args.simpler)
    profiles = find_profiles(args.traces) if os.path.isdir(args.traces) else []
    if not profiles:
        print('1..1')
        print('ok 1 simpler profiles # SKIP no PyPTO/simpler profile under %s '
              '(written with PTO_TRACE_FORMAT=simpler)' % args.traces)
        return 0
    # The schema of each profile always; simpler's tools with a checkout.
    tools = TOOLS if simpler else ()
    print('1..%d' % (len(profiles) * (1 + len(tools)) + (0 if simpler else 1)))
    if simpler:
        print('# simpler: %s (%s)' % (simpler, subprocess.run(
            ['git', '-C', simpler, 'log', '-1', '--format=%h %cs'],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()))
    scratch = args.keep or tempfile.mkdtemp(prefix='pto-simpler-')
    n = failed = 0
    for src in profiles:
        # Each profile against the trace beside it (make demo keeps every
        # repetition's in runs/repK/, the median one's at the top).
        graph = os.path.basename(src)
        name = os.path.relpath(src, args.traces)
        d = os.path.join(scratch, name.replace(os.sep, '__'))
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(src, d)
        try:
            deps, bars = ours(os.path.dirname(src), graph)
        except (OSError, ValueError) as e:
            deps, bars = None, None
            why = 'our own %s.trace.json/.deps.json: %s' % (name, e)
        for tool in ('schema',) + tools:
            n += 1
            try:
                if deps is None:
                    problems = [why]
                elif tool == 'schema':
                    problems = check_schema(d, deps, bars)
                elif tool == 'swimlane_converter':
                    problems = check_converter(simpler, d, deps, bars)
                elif tool == 'deps_viewer':
                    problems = check_deps_viewer(simpler, d, deps)
                elif not bars:
                    problems = []
                    print('ok %d %s: %s # SKIP no task ran' % (n, name, tool))
                    continue
                elif tool == 'critical_path':
                    problems = check_critical_path(simpler, d, deps, bars)
                else:
                    problems = check_sched_overhead(simpler, d, bars)
            except (OSError, ValueError, KeyError, TypeError,
                    subprocess.TimeoutExpired) as e:
                problems = ['%s: %s' % (type(e).__name__, e)]
            if problems:
                failed += 1
                print('not ok %d %s: %s' % (n, name, tool))
                for p in problems:
                    print('# %s' % p)
            else:
                print('ok %d %s: %s' % (n, name, tool))
    if not simpler:
        n += 1
        print('ok %d simpler tools # SKIP no simpler checkout (set SIMPLER_DIR '
              'to a clone of https://github.com/hw-native-sys/simpler)' % n)
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
