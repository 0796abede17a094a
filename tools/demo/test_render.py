#!/usr/bin/env python3
"""Host test of tools/demo/render.py on small synthetic swimlanes; TAP.

Writes two traces in the format of Documentation/swimlane.rst (a
scheduler lane, AIC_0, AIV_0..AIV_2; bars, a staged bar, a skip marker, a
flow; the second with the scheduler's slices on their lanes) and checks that render.py draws one, a pair and --demo from them,
that each output is a PNG of the fixed width, that the same input gives
the same bytes, and that a missing or malformed trace does not stop
--demo. Every test is skipped when no python3 here has matplotlib.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RENDER = os.path.join(HERE, 'render.py')
SYSTEM = '/usr/bin/python3'


def lanes(aic, aiv):
    ev = [{'ph': 'M', 'pid': 1, 'name': 'process_name',
           'args': {'name': 'pto_npu device 0'}}]
    names = ['scheduler'] + ['AIC_%d' % k for k in range(aic)] + \
        ['AIV_%d' % k for k in range(aiv)]
    for tid, n in enumerate(names):
        ev.append({'ph': 'M', 'pid': 1, 'tid': tid, 'name': 'thread_name',
                   'args': {'name': n}})
        ev.append({'ph': 'M', 'pid': 1, 'tid': tid, 'name': 'thread_sort_index',
                   'args': {'sort_index': tid}})
    return ev


def bar(name, idx, tid, block, disp, ts, dur, staged=False):
    core = 'AIC_0' if tid == 1 else 'AIV_%d' % (tid - 2)
    return {'ph': 'X', 'pid': 1, 'tid': tid, 'name': name,
            'cat': 'block,staged' if staged else 'block', 'ts': ts, 'dur': dur,
            'args': {'task_id': idx + 1, 'graph_index': idx, 'block': block,
                     'unit': block, 'core': core, 'shape': 'AIV', 'status': 'OK',
                     'staged': staged, 'dispatch_us': disp, 'receive_us': ts - 1,
                     'start_us': ts, 'end_us': ts + dur, 'finish_us': ts + dur + 2}}


def write(d, name, ev, tasks):
    with open(os.path.join(d, name + '.trace.json'), 'w') as f:
        json.dump({'displayTimeUnit': 'ns', 'traceEvents': ev}, f)
    with open(os.path.join(d, name + '.deps.json'), 'w') as f:
        json.dump({'tasks': [{'id': i, 'name': n} for i, n in enumerate(tasks)],
                   'tensors': [], 'edges': []}, f)


def make_traces(d):
    slow = lanes(1, 3) + [
        bar('tile_0', 0, 2, 0, 0.0, 10.0, 40.0),
        bar('tile_1', 1, 3, 0, 5.0, 60.0, 35.0),
        bar('consumer', 2, 4, 0, 100.0, 130.0, 20.0),
        {'ph': 's', 'pid': 1, 'tid': 3, 'cat': 'dependency', 'name': 'dependency',
         'id': 1, 'ts': 94.9995},
        {'ph': 'f', 'bp': 'e', 'pid': 1, 'tid': 4, 'cat': 'dependency',
         'name': 'dependency', 'id': 1, 'ts': 130.0},
        {'ph': 'i', 's': 't', 'pid': 1, 'tid': 0, 'name': 'skip extra', 'cat': 'skip',
         'ts': 152.0, 'args': {'task_id': 4, 'graph_index': 3, 'status': 'SKIPPED'}},
    ]
    # The scheduler's own slices (cat "sched") on their lanes, as libpto
    # writes them with the device's scheduler records.
    sched = [
        {'ph': 'M', 'pid': 1, 'tid': 6, 'name': 'thread_name', 'args': {'name': 'doorbell'}},
        {'ph': 'M', 'pid': 1, 'tid': 7, 'name': 'thread_name',
         'args': {'name': 'scheduler: resolve'}},
        {'ph': 'X', 'pid': 1, 'tid': 6, 'name': 'intake tiles', 'cat': 'sched',
         'ts': 0.0, 'dur': 0.4, 'args': {'task_id': 1, 'graph_index': 0}},
        {'ph': 'X', 'pid': 1, 'tid': 0, 'name': 'dispatch', 'cat': 'sched',
         'ts': 0.4, 'dur': 0.5, 'args': {'loop': 1, 'units': 2}},
        {'ph': 'X', 'pid': 1, 'tid': 0, 'name': 'early_dispatch', 'cat': 'sched',
         'ts': 1.0, 'dur': 0.3, 'args': {'loop': 2, 'units': 1}},
        {'ph': 'X', 'pid': 1, 'tid': 0, 'name': 'complete', 'cat': 'sched',
         'ts': 40.0, 'dur': 1.0, 'args': {'loop': 3, 'units': 1}},
        {'ph': 'X', 'pid': 1, 'tid': 7, 'name': 'resolve tiles', 'cat': 'sched',
         'ts': 40.5, 'dur': 0.5, 'args': {'task_id': 1, 'graph_index': 0,
                                           'loop': 3, 'consumers': 1}},
    ]
    fast = lanes(1, 3) + sched + [
        bar('tiles', 0, 2, 0, 0.0, 8.0, 30.0),
        bar('tiles', 0, 3, 1, 1.0, 9.0, 28.0),
        bar('consumer', 1, 4, 0, 38.0, 39.0, 20.0, staged=True),
        bar('mm', 2, 1, 0, 0.5, 2.0, 50.0),
    ]
    write(d, 'synth.slow', slow, ['tile_0', 'tile_1', 'consumer', 'extra'])
    write(d, 'synth.fast', fast, ['tiles', 'consumer', 'mm'])
    # What --demo looks for (spmd-guide: elementwise_add), plus a broken one.
    write(d, 'elementwise_add.per-tile_tasks', slow, ['a'])
    write(d, 'elementwise_add.SPMD_task', fast, ['b'])
    write(d, 'spmd_add.per_block_tasks-48', slow, ['a'])
    write(d, 'spmd_add.spmd_blocks-48', fast, ['b'])
    write(d, 'decoder_layer.slow', slow, ['a'])
    write(d, 'decoder_layer.replay', fast, ['b'])
    with open(os.path.join(d, 'gated.gate_1.trace.json'), 'w') as f:
        f.write('{"traceEvents": [{"ph": "X"}]}')
    write(d, 'gated.gate_0', fast, ['c'])


def pictures_match(render):
    """Every technique row of make demo (its Python rows aside) has a
    picture of the same name whose top panel is its slow form and whose
    later panels hold its fast form."""
    import techniques
    pics = {k: forms for k, forms, _ in render.TECHNIQUES}
    bad = []
    for row in techniques.ROWS:
        if row['key'].endswith('-python'):
            continue
        forms = pics.get(row['key'])
        if not forms or row['slow'] not in forms[0] or \
                not any(row['fast'] in alts for alts in forms[1:]):
            bad.append('%s: %r' % (row['key'], forms))
    return not bad, '\n'.join(bad)


def png_size(path):
    with open(path, 'rb') as f:
        head = f.read(24)
    if head[:8] != b'\x89PNG\r\n\x1a\n':
        return None
    return struct.unpack('>II', head[16:24])


def has_mpl(py):
    try:
        return subprocess.run([py, '-c', 'import matplotlib'],
                              capture_output=True).returncode == 0
    except OSError:
        return False


def main():
    tests = []

    def check(name, ok, why=''):
        tests.append((name, ok, why))

    def run(*args):
        return subprocess.run([sys.executable, RENDER] + list(args),
                              capture_output=True, text=True)

    names = ['one trace', 'pair', 'three traces, all lanes', 'deterministic',
             '--demo', '--demo survives a bad trace', 'bad arguments refused',
             'scheduler slices: their lanes are rows, in the trace\'s order',
             'the pictures match make demo\'s rows (tools/demo/techniques.py)',
             '--demo: the replay picture says what it shows, in a line under it']
    if not (has_mpl(sys.executable) or has_mpl(SYSTEM)):
        print('1..%d' % len(names))
        for i, n in enumerate(names, 1):
            print('ok %d %s # SKIP matplotlib not installed' % (i, n))
        return 0
    with tempfile.TemporaryDirectory() as d:
        make_traces(d)
        slow = os.path.join(d, 'synth.slow.trace.json')
        fast = os.path.join(d, 'synth.fast.trace.json')
        out1 = os.path.join(d, 'one.png')
        r = run(slow, '-o', out1)
        size = png_size(out1) if os.path.exists(out1) else None
        check(names[0], r.returncode == 0 and size and size[0] == 1200,
              '%s %s' % (size, r.stderr.strip()))
        out2 = os.path.join(d, 'pair.png')
        r = run('--pair', slow, fast, '-o', out2)
        size2 = png_size(out2) if os.path.exists(out2) else None
        check(names[1], r.returncode == 0 and size2 and size2[0] == 1200 and
              size2[1] > size[1], '%s %s' % (size2, r.stderr.strip()))
        out3 = os.path.join(d, 'three.png')
        r = run('--pair', slow, fast, slow, '--all-lanes', '--no-flows',
                '--title', 'synthetic', '-o', out3)
        check(names[2], r.returncode == 0 and png_size(out3) is not None, r.stderr.strip())
        out4 = os.path.join(d, 'pair2.png')
        run('--pair', slow, fast, '-o', out4)
        same = os.path.exists(out4) and open(out2, 'rb').read() == open(out4, 'rb').read()
        check(names[3], same, 'two renderings of the same traces differ')
        outd = os.path.join(d, 'pics')
        r = run('--demo', d, '--out-dir', outd)
        check(names[4], r.returncode == 0 and all(
            png_size(os.path.join(outd, t + '.png')) is not None
            for t in ('spmd', 'spmd-guide', 'graph-replay')), r.stdout + r.stderr)
        check(names[5], r.returncode == 0 and 'predicate-gated: no picture' in r.stdout
              and 'syncall: traces missing' in r.stdout, r.stdout + r.stderr)
        r = run('--pair', slow)
        r2 = run()
        check(names[6], r.returncode == 2 and r2.returncode == 2, r.stderr + r2.stderr)
        sys.path.insert(0, HERE)
        import render  # noqa: E402 (plain Python: the module reads no matplotlib)
        t = render.Trace(fast)
        rows = render.rows_for([t], False)
        check(names[7], len(t.sched_sl) == 5 and
              rows[:3] == ['scheduler', 'AIC_0', 'AIV_0'] and
              'doorbell' in rows and 'scheduler: resolve' in rows and
              t.t_max >= 41.0, '%r, %d slices' % (rows, len(t.sched_sl)))
        check(names[8], *pictures_match(render))
        # The caption's line makes the picture taller than the same pair.
        rep = png_size(os.path.join(outd, 'graph-replay.png'))
        cap = [c for k, _, c in render.TECHNIQUES if k == 'graph-replay']
        check(names[9], rep and size2 and rep[1] > size2[1] and cap and
              'doorbell' in cap[0] and 'scheduler ticks' in cap[0], '%s %s %s' %
              (rep, size2, cap))
    print('1..%d' % len(tests))
    for i, (name, ok, why) in enumerate(tests, 1):
        print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
        if not ok:
            for line in str(why).splitlines():
                print('# ' + line)
    return 0 if all(ok for _, ok, _ in tests) else 1


if __name__ == '__main__':
    sys.exit(main())
