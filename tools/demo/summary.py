#!/usr/bin/env python3
"""make demo's table: each technique's gain, measured, beside the bench's.

usage: summary.py OUT_DIR RAW_DIR [RAW_DIR...]

Each RAW_DIR is what one demo boot exported (tools/vm/demo.sh with
PTO_DEMO_REPS=N: "repK--<file>" for each repetition K) and its console log
(RAW_DIR/../../vm/<name>.log holds the pto-bench rows of the same boot).
For every technique (TECHNIQUES below: its slow and fast form), this
reads each repetition's makespan of each form (latest bar end minus
earliest dispatch, as confirm.py and render.py compute it), and writes:

  OUT_DIR/<file>           for each form, the files of the repetition
                           nearest its median (the run the before/after
                           picture and confirm.py then look at) and its
                           PyPTO/simpler profile directory OUT_DIR/<form>/
                           (simpler's tools read it), and
                           examples.txt (an example's worst exit status)
  OUT_DIR/runs/repK/       every repetition's files
  OUT_DIR/summary.json     per technique: each form's median and spread
                           (quartiles, min, max, n) in us, the gain
                           (slow median / fast median) and gain_p (a
                           one-sided rank test over the repetitions that
                           the slow form is slower), the bench's ratio
                           for it from the same boot, the confirm verdict
                           (tools/demo/confirm.py on the median runs), and an exception
                           text where the gain cannot show here

and prints the table. Exits 1 if a form has no repetition.
"""
import glob
import json
import os
import shutil
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'bench'))
import confirm  # noqa: E402
import report  # noqa: E402

# technique: (guide name, slow form, fast form, bench row, bench ratio
# direction: 'ab' when the row's ratio a/b is slow/fast, 'ba' when it is
# fast/slow), and the exception: why the gain may not show in this VM.
TECHNIQUES = [
    ('mixed-kernel', 'mixed kernel', 'matmul_bias.two_tasks',
     'matmul_bias._c__mixed_up_down', '4', 'ab', 'makespan',
     'the cube and vector halves overlap only on cores running at once: this form '
     'runs on min(2, host CPUs) vCPUs, each a host thread under qemu TCG, so what '
     'the overlap saves (see the picture: the engines\' work side by side) is within '
     'the noise of a makespan of about 8 ms here'),
    ('spmd', 'SPMD', 'spmd_add.per_block_tasks', 'spmd_add.spmd_blocks', '3.4', 'ab',
     'makespan', None),
    ('predicate', 'predicate (MoE)', 'moe.self-checking_experts',
     'moe.predicated_experts', '5', 'ba', 'makespan', None),
    ('predicate-gated', 'predicate (gate)', 'gated.gate_1', 'gated.gate_0', '5', 'ba',
     'makespan', None),
    ('early-resolve', 'early resolve', 'early_resolve.unflagged',
     'early_resolve.flagged', '6', 'ab', 'gap',
     'the guide\'s observable is the gap on the critical path (producer end to '
     'consumer start), measured here as in the bench row; the chain\'s makespan '
     'moves by that gap times 31 edges, under 2% of it'),
    ('syncall', 'syncall (HARD)', 'barrier.two_tasks', 'barrier.HARD_syncall', '7a',
     'ab', 'makespan',
     'on one vCPU every block that arrives early parks (its state kept, its thread '
     'moves on) and is resumed later: about 12 us a block more in the first half '
     'than the two-task form, 48 times, which is what the saved scheduler round trip '
     '(about 230 us) and the second dispatch save; the bench row, with empty '
     'kernels, shows the round trip it removes; the picture shows one task, no round '
     'trip, every block released after the last arrival'),
    # The guide's own Python blocks (examples/python/runtime_overhead.py),
    # each call one replay launch of its recorded graph.
    ('spmd-python', 'SPMD (Python)', 'py_spmd_add.per_block_tasks',
     'py_spmd_add.spmd_blocks', '3.4', 'ab', 'makespan',
     'a @pl.jit call is one replay launch in both forms, so the per-block form '
     'no longer pays an entry\'s intake per task, which is most of what the C '
     'form\'s gain is; the N - 1 scheduler dispatches that remain are within the '
     'noise of 4 blocks\' work on one vCPU (confirm: one task of 4 blocks on 4 '
     'lanes, dispatches 4 -> 1)'),
    ('predicate-python', 'predicate (Python)', 'py_gated.gate_1', 'py_gated.gate_0',
     '5', 'ba', 'makespan', None),
    ('early-resolve-python', 'early resolve (Python)', 'py_early_resolve.unflagged',
     'py_early_resolve.flagged', '6', 'ab', 'gap',
     'one edge: the guide\'s two-task chain; the gap is the observable'),
    # Row 16a's ratio is replayed / plain: fast / slow.
    ('graph-replay', 'graph replay', 'decoder_layer.slow', 'decoder_layer.replay',
     '16a', 'ba', 'makespan',
     'a launch saves the host and intake work of each task (its entry pushed, '
     'parsed and validated, its dependencies resolved), which decoder_layer\'s '
     'wall time per token shows (its "slow / replay" line); the makespan, first '
     'dispatch to last finish on the device, holds only what of that work delays '
     'a dispatch, beside the cores\' time of the 32 tasks, which replay does not '
     'change'),
]

# What each technique's gain compares: the run's makespan (latest bar end
# minus earliest dispatch), or the median producer end -> consumer start
# gap over its edges (the guide's "How to confirm" for early resolve, and
# what the bench row measures).
MEASURES = {'makespan': 'makespan', 'gap': 'median producer end -> consumer start'}


# The technique's name in confirm.py's rows.
CONFIRM_NAME = {'mixed-kernel': 'mixed kernel', 'spmd': 'SPMD', 'predicate': 'predicate',
                'predicate-gated': 'predicate', 'early-resolve': 'early resolve',
                'syncall': 'syncall', 'graph-replay': 'graph replay',
                'spmd-python': 'SPMD (Python)', 'predicate-python': 'predicate (Python)',
                'early-resolve-python': 'early resolve (Python)'}


def quartiles(vals):
    v = sorted(vals)
    if len(v) < 2:
        return v[0], v[0]
    q = statistics.quantiles(v, n=4, method='inclusive')
    return q[0], q[2]


def stats(vals):
    q1, q3 = quartiles(vals)
    return {'median_us': round(statistics.median(vals), 1), 'q1_us': round(q1, 1),
            'q3_us': round(q3, 1), 'min_us': round(min(vals), 1),
            'max_us': round(max(vals), 1), 'n': len(vals)}


def split_reps(raw, runs):
    """RAW's "repK--name" files into runs/repK/name; returns the reps."""
    reps = set()
    for path in glob.glob(os.path.join(raw, '*')):
        base = os.path.basename(path)
        rep, sep, name = base.partition('--')
        if not sep or not rep.startswith('rep'):
            continue
        d = os.path.join(runs, rep)
        os.makedirs(d, exist_ok=True)
        if os.path.isdir(path):
            # A graph's PyPTO/simpler profile directory.
            shutil.copytree(path, os.path.join(d, name), dirs_exist_ok=True)
        elif name == 'examples.txt':
            with open(path) as src, open(os.path.join(d, name), 'a') as dst:
                dst.write(src.read())
        else:
            shutil.copy(path, os.path.join(d, name))
        reps.add(rep)
    return reps


def bench_rows(raws):
    rows = {}
    for raw in raws:
        log = os.path.join(os.path.dirname(os.path.dirname(raw)), 'vm',
                           os.path.basename(raw) + '.log')
        if not os.path.exists(log):
            continue
        for r in report.parse_log(log)['rows']:
            rows[r['row']] = r
    return rows


def bench_gain(row, direction):
    """The bench's gain for a technique (slow / fast) and its spread."""
    if not row or not row.get('ratio') or row['ratio'].get('median') is None:
        return None
    r = row['ratio']
    if direction == 'ab':
        return {'gain': r['median'], 'q1': r['q1'], 'q3': r['q3'], 'n': r.get('n'),
                'row': row['row'], 'label': r.get('label')}
    inv = lambda x: 1.0 / x if x else None  # noqa: E731
    return {'gain': inv(r['median']), 'q1': inv(r['q3']), 'q3': inv(r['q1']),
            'n': r.get('n'), 'row': row['row'], 'label': 'inverse of ' + str(r.get('label'))}


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, raws = sys.argv[1], sys.argv[2:]
    runs = os.path.join(out, 'runs')
    shutil.rmtree(runs, ignore_errors=True)
    os.makedirs(runs)
    reps = set()
    for raw in raws:
        reps |= split_reps(raw, runs)
    # Per form: the makespan of each repetition.
    forms = {}
    gaps = {}
    for rep in sorted(reps):
        for tr in glob.glob(os.path.join(runs, rep, '*.trace.json')):
            name = os.path.basename(tr)[:-len('.trace.json')]
            try:
                run = confirm.Run(tr[:-len('.trace.json')])
            except (OSError, ValueError, KeyError):
                continue
            forms.setdefault(name, []).append((run.makespan_us(), rep))
            cg = run.chain_gaps()
            if cg:
                gaps.setdefault(name, []).append(statistics.median(cg))
    # Every form's files from its median repetition; examples.txt: the
    # worst exit status of each example over the repetitions.
    for name, ms in forms.items():
        med = statistics.median(m for m, _ in ms)
        rep = min(ms, key=lambda x: (abs(x[0] - med), x[1]))[1]
        for ext in ('.trace.json', '.deps.json'):
            src = os.path.join(runs, rep, name + ext)
            if os.path.exists(src):
                shutil.copy(src, os.path.join(out, name + ext))
        # Its PyPTO/simpler profile, beside its swimlane.
        prof = os.path.join(runs, rep, name)
        if os.path.isdir(prof):
            shutil.copytree(prof, os.path.join(out, name), dirs_exist_ok=True)
    worst = {}
    for rep in reps:
        try:
            with open(os.path.join(runs, rep, 'examples.txt')) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2:
                        rc = int(parts[1])
                        worst[parts[0]] = rc if rc else worst.get(parts[0], 0)
        except (OSError, ValueError):
            pass
    with open(os.path.join(out, 'examples.txt'), 'w') as f:
        for ex in sorted(worst):
            f.write('%s %d\n' % (ex, worst[ex]))

    verdicts = {}
    for r in confirm.run_checks(out, True):
        verdicts.setdefault(r['technique'], []).append(r)
    rows = bench_rows(raws)
    summary = {'repetitions': len(reps), 'techniques': []}
    missing = False
    for key, title, slow, fast, row, direction, measure, exc in TECHNIQUES:
        ent = {'technique': key, 'title': title, 'slow_form': slow, 'fast_form': fast,
               'measure': MEASURES[measure]}
        src = gaps if measure == 'gap' else {k: [m for m, _ in v] for k, v in forms.items()}
        if slow not in forms or fast not in forms:
            ent['problem'] = 'no run of %s' % (slow if slow not in forms else fast)
            missing = True
            summary['techniques'].append(ent)
            continue
        if slow not in src or fast not in src:
            ent['problem'] = 'no %s in the runs of %s' % (ent['measure'], slow)
            missing = True
            summary['techniques'].append(ent)
            continue
        s = stats(src[slow])
        f = stats(src[fast])
        ent['slow'], ent['fast'] = s, f
        ent['gain'] = round(s['median_us'] / f['median_us'], 3) if f['median_us'] else None
        # The gain's spread: worst and best quartile pairings.
        ent['gain_range'] = [round(s['q1_us'] / f['q3_us'], 3) if f['q3_us'] else None,
                             round(s['q3_us'] / f['q1_us'], 3) if f['q1_us'] else None]
        # How sure the gain is: a one-sided rank test over the
        # repetitions that the slow form's figures exceed the fast one's.
        ent['gain_p'] = float('%.3g' % confirm.rank_p_greater(src[slow], src[fast]))
        ent['bench'] = bench_gain(rows.get(row), direction)
        ent['bench_row'] = row
        if CONFIRM_NAME.get(key) is None:
            # confirm.py has no check of this technique: ok is None.
            ent['confirm'] = {'ok': None, 'text': 'no confirm check'}
        else:
            vs = verdicts.get(CONFIRM_NAME[key], [])
            ent['confirm'] = {'ok': bool(vs) and all(v['confirm_ok'] and
                                                     v['result'] == 'PASS' for v in vs),
                              'text': vs[0]['confirm'] if vs else 'no confirm rows'}
        ent['note'] = exc
        ent['exception'] = exc if ent['gain'] is None or ent['gain'] <= 1.0 else None
        if ent['gain'] is not None and ent['gain'] <= 1.0 and not exc:
            ent['exception'] = ('no gain measured here: see the before/after picture '
                                'and the bench row')
        summary['techniques'].append(ent)
    with open(os.path.join(out, 'summary.json'), 'w') as fh:
        json.dump(summary, fh, indent=1)
        fh.write('\n')
    print_table(summary)
    return 1 if missing else 0


def fmt_form(st):
    if st['median_us'] < 100:
        return '%.1f [%.1f..%.1f]' % (st['median_us'], st['q1_us'], st['q3_us'])
    return '%.0f [%.0f..%.0f]' % (st['median_us'], st['q1_us'], st['q3_us'])


def print_table(summary):
    print()
    print('Each technique: makespan in us (early resolve: the median producer end -> '
          'consumer start gap), median [quartiles] of %d repetitions; gain = slow / fast; '
          'p: one-sided rank test over the repetitions that the slow form is slower; '
          'bench: make bench\'s ratio for it, same direction, same boot' %
          summary['repetitions'])
    hdr = '%-18s %-24s %-24s %-7s %-8s %-18s %-8s %s' % (
        'technique', 'slow form', 'fast form', 'gain', 'p', 'bench', 'confirm', 'note')
    print(hdr)
    print('-' * len(hdr))
    for t in summary['techniques']:
        if 'problem' in t:
            print('%-18s %s' % (t['title'], t['problem']))
            continue
        b = t.get('bench')
        bs = '%.2f [%.2f..%.2f]' % (b['gain'], b['q1'], b['q3']) if b else '-'
        print('%-18s %-24s %-24s %-7s %-8s %-18s %-8s %s' % (
            t['title'], fmt_form(t['slow']), fmt_form(t['fast']),
            '%.2f' % t['gain'] if t['gain'] else '-', '%.2g' % t['gain_p'], bs,
            '-' if t['confirm']['ok'] is None else
            'ok' if t['confirm']['ok'] else 'FAILED',
            ('EXCEPTION: ' + t['exception']) if t.get('exception') else ''))


if __name__ == '__main__':
    sys.exit(main())
