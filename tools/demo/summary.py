#!/usr/bin/env python3
"""make demo's table: each technique's gain, measured, beside the bench's.

usage: summary.py OUT_DIR RAW_DIR [RAW_DIR...]

Each RAW_DIR is what one demo boot exported (tools/vm/demo.sh with
PTO_DEMO_REPS=N: "repK--<file>" for each repetition K) and its console log
(RAW_DIR/../../vm/<name>.log holds the pto-bench rows of the same boot).
(RAW_DIR.load.json: how busy the host was beside that boot,
tools/demo/hostload.py). For every row of tools/demo/techniques.py (a
technique's slow and fast form and what the row measures: a makespan or
a gap from each repetition's swimlane, or the example's own timed runs,
<example>.timing.json), this reads one figure per repetition of each
form, and writes:

  OUT_DIR/<file>           for each form, the files of the repetition
                           nearest its median makespan (the run the
                           before/after picture and confirm.py then look
                           at) and its PyPTO/simpler profile directory
                           OUT_DIR/<form>/ (simpler's tools read it), and
                           examples.txt (an example's worst exit status)
  OUT_DIR/runs/repK/       every repetition's files
  OUT_DIR/summary.json     per row: what it measured, each form's median
                           and spread (quartiles, min, max, n) in us, the
                           gain (the median over the repetitions of slow
                           / fast, both forms from the same run), its band
                           (gain_range: their quartiles), gain_p (a
                           one-sided exact signed-rank test that slow /
                           fast > 1), each repetition's ratio, the ratio
                           of the medians and an unpaired rank test, the
                           noise (effect and interquartile range), the
                           other measures of the same forms (beside), the
                           bench's ratio from the same boot, the confirm
                           verdict (tools/demo/confirm.py on the median
                           runs) and the row's verdict: PASS, FAIL,
                           EXCEPTION (a documented limit of this
                           emulator), GUIDE (the guide's size, measured
                           by another row) or LOADED (the host was busy
                           beside the VM: reported, not judged); and the
                           host's load

and prints the table. Exits 1 if a row has no figures or FAILs.
"""
import glob
import json
import math
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
import techniques  # noqa: E402

# A judged row's gain clears its noise only with a one-sided rank test
# over the repetitions below this.
P_MAX = 0.01

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


def collect(runs, reps):
    """Per form, one figure per repetition, with its repetition: {'makespan':
    {name: [(us, rep)]}, 'gap': {name: [(us, rep)]}, 'timed': {graph:
    {field: [(us, rep)]}}}."""
    figs = {'makespan': {}, 'gap': {}, 'timed': {}}
    for rep in sorted(reps):
        for tr in glob.glob(os.path.join(runs, rep, '*.trace.json')):
            name = os.path.basename(tr)[:-len('.trace.json')]
            try:
                run = confirm.Run(tr[:-len('.trace.json')])
            except (OSError, ValueError, KeyError):
                continue
            figs['makespan'].setdefault(name, []).append((run.makespan_us(), rep))
            cg = run.chain_gaps()
            if cg:
                figs['gap'].setdefault(name, []).append((statistics.median(cg), rep))
        for tf in glob.glob(os.path.join(runs, rep, '*.timing.json')):
            try:
                with open(tf) as f:
                    forms = json.load(f)['forms']
            except (OSError, ValueError, KeyError):
                continue
            for graph, t in forms.items():
                for field, vals in timed_fields(t).items():
                    figs['timed'].setdefault(graph, {}).setdefault(field, []).append(
                        (statistics.median(vals), rep))
    return figs


def timed_fields(t):
    """One example run's timed figures of a form: each field's values."""
    wall, span = t.get('wall_us') or [], t.get('makespan_us') or []
    out = {}
    if wall:
        out['wall'] = wall
    if span and any(span):
        out['makespan'] = span
        if len(span) == len(wall):
            out['host'] = [w - m for w, m in zip(wall, span)]
    return out


def values(figs, measure, name):
    """The per-repetition figures of form @name for @measure, [(us, rep)],
    or None."""
    if isinstance(measure, tuple):
        return figs['timed'].get(name, {}).get(measure[1])
    return figs['gap' if measure == 'gap' else 'makespan'].get(name)


def keep_median_runs(out, runs, reps, figs):
    """Every form's files from its median repetition into @out, and
    examples.txt: each example's worst exit status over the repetitions."""
    for name, ms in figs['makespan'].items():
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


def host_load(raws):
    """Each boot's load figures (RAW.load.json, tools/demo/hostload.py)."""
    boots = []
    for raw in raws:
        try:
            with open(raw + '.load.json') as f:
                ld = json.load(f)
        except (OSError, ValueError):
            continue
        ld['boot'] = os.path.basename(raw)
        boots.append(ld)
    return {'boots': boots, 'loaded': any(b.get('loaded') for b in boots)}


def signed_rank_p(diffs):
    """One-sided exact Wilcoxon signed-rank test that @diffs tend to be
    above 0: the chance of a positive rank sum at least this large when
    each sign is a coin toss (zeros dropped, tied magnitudes share their
    mean rank); 1.0 without samples. Nine repetitions all positive give
    1/512."""
    d = sorted((x for x in diffs if x != 0), key=abs)
    if not d:
        return 1.0
    ranks, i = [], 0
    while i < len(d):
        j = i
        while j + 1 < len(d) and abs(d[j + 1]) == abs(d[i]):
            j += 1
        ranks += [(i + j + 2) / 2.0] * (j - i + 1)
        i = j + 1
    # Ranks doubled: whole numbers even where ties make halves.
    w_plus = sum(round(2 * r) for r, x in zip(ranks, d) if x > 0)
    counts = {0: 1}
    for r in ranks:
        nxt = dict(counts)
        for tot, c in counts.items():
            nxt[tot + round(2 * r)] = nxt.get(tot + round(2 * r), 0) + c
        counts = nxt
    return sum(c for tot, c in counts.items() if tot >= w_plus) / 2.0 ** len(d)


def compare(slow, fast):
    """Two forms' per-repetition figures, [(us, rep)]: their stats and the
    gain. Both forms of a repetition come from one run of its example (the
    same boot, the host's load of the moment): the gain is the median over
    the repetitions of slow / fast, its band their quartiles, its p an
    exact signed-rank test on their logarithms that slow / fast > 1. The
    ratio of the forms' medians and an unpaired rank test over the
    repetitions (Mann-Whitney) are kept beside them."""
    sv, fv = [v for v, _ in slow], [v for v, _ in fast]
    s, f = stats(sv), stats(fv)
    ent = {'slow': s, 'fast': f,
           'gain_of_medians': round(s['median_us'] / f['median_us'], 3)
           if f['median_us'] else None,
           'gain_p_unpaired': float('%.3g' % confirm.rank_p_greater(sv, fv))}
    by_rep = {r: v for v, r in fast}
    ratios = [v / by_rep[r] for v, r in slow if by_rep.get(r, 0) > 0 and v > 0]
    ent['ratios'] = [round(x, 3) for x in ratios]
    if ratios:
        q1, q3 = quartiles(ratios)
        ent['gain'] = round(statistics.median(ratios), 3)
        ent['gain_range'] = [round(q1, 3), round(q3, 3)]
        ent['gain_p'] = float('%.3g' % signed_rank_p([math.log(x) for x in ratios]))
    else:
        ent['gain'], ent['gain_range'], ent['gain_p'] = None, [None, None], 1.0
    noise = max(s['q3_us'] - s['q1_us'], f['q3_us'] - f['q1_us'])
    effect = s['median_us'] - f['median_us']
    ent['noise'] = {'effect_us': round(effect, 1), 'iqr_us': round(noise, 1),
                    'effect_over_iqr': round(effect / noise, 2) if noise > 0 else None,
                    'gain_band_width': round(ent['gain_range'][1] - ent['gain_range'][0], 3)
                    if ratios else None}
    return ent


def clears_noise(ent):
    """The gain is real here: above 1, proven by the signed-rank test, and
    its band above 1 (three repetitions in four or more show it)."""
    lo = ent['gain_range'][0]
    return (ent['gain'] is not None and ent['gain'] > 1.0 and ent['gain_p'] < P_MAX and
            lo is not None and lo > 1.0)


def judge(ent, spec, loaded):
    """PASS, FAIL, EXCEPTION (a documented limit of this emulator), GUIDE
    (the guide's size, measured by another row) or LOADED (a timing row
    that did not clear its noise on a host under load: not judged)."""
    if spec['guide']:
        return 'GUIDE', ('the guide\'s size, reported; row "%s" measures the technique '
                         'where its effect shows' % techniques.by_key(spec['guide'])['title'])
    if clears_noise(ent):
        return 'PASS', None
    if spec['exception']:
        return 'EXCEPTION', spec['exception']
    if loaded:
        return 'LOADED', 'the host was under load: reported, not judged'
    return 'FAIL', ('the gain does not clear its noise (want > 1, p < %g, its band above '
                    '1)' % P_MAX)


def confirm_state(spec, verdicts):
    if not spec['confirm']:
        return {'ok': None, 'text': 'no confirm check'}
    vs = verdicts.get(spec['confirm'], [])
    return {'ok': bool(vs) and all(v['confirm_ok'] and v['result'] == 'PASS' for v in vs),
            'text': vs[0]['confirm'] if vs else 'no confirm rows'}


def summarize_row(spec, figs, verdicts, rows, loaded):
    ent = {'technique': spec['key'], 'title': spec['title'], 'slow_form': spec['slow'],
           'fast_form': spec['fast'], 'measure': techniques.measure_name(spec['measure'])}
    slow, fast = values(figs, spec['measure'], spec['slow']), \
        values(figs, spec['measure'], spec['fast'])
    if not slow or not fast:
        ent['problem'] = 'no %s of %s' % (ent['measure'].split(' (')[0],
                                           spec['slow'] if not slow else spec['fast'])
        ent['verdict'] = 'FAIL'
        return ent
    ent.update(compare(slow, fast))
    ent['verdict'], ent['verdict_text'] = judge(ent, spec, loaded)
    # Kept for readers of older summaries: the exception shown.
    ent['exception'] = spec['exception'] if ent['verdict'] == 'EXCEPTION' else None
    ent['beside'] = []
    for m in spec['beside']:
        s, f = values(figs, m, spec['slow']), values(figs, m, spec['fast'])
        if s and f:
            b = compare(s, f)
            b['measure'] = techniques.measure_name(m)
            ent['beside'].append(b)
    ent['bench'] = bench_gain(rows.get(spec['bench_row']), spec['direction'])
    ent['bench_row'] = spec['bench_row']
    ent['confirm'] = confirm_state(spec, verdicts)
    return ent


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
    figs = collect(runs, reps)
    keep_median_runs(out, runs, reps, figs)
    load = host_load(raws)
    verdicts = {}
    for r in confirm.run_checks(out, not load['loaded']):
        verdicts.setdefault(r['technique'], []).append(r)
    rows = bench_rows(raws)
    summary = {'repetitions': len(reps), 'p_max': P_MAX, 'host_load': load,
               'under_load': load['loaded'], 'techniques': []}
    for spec in techniques.ROWS:
        summary['techniques'].append(summarize_row(spec, figs, verdicts, rows,
                                                   load['loaded']))
    failed = [t['title'] for t in summary['techniques'] if t['verdict'] == 'FAIL']
    summary['failed'] = failed
    with open(os.path.join(out, 'summary.json'), 'w') as fh:
        json.dump(summary, fh, indent=1)
        fh.write('\n')
    print_table(summary)
    return 1 if failed else 0


def fmt_form(st):
    if st['median_us'] < 100:
        return '%.1f [%.1f..%.1f]' % (st['median_us'], st['q1_us'], st['q3_us'])
    return '%.0f [%.0f..%.0f]' % (st['median_us'], st['q1_us'], st['q3_us'])


def fmt_gain(t):
    lo, hi = t['gain_range']
    return '%.2f [%s..%s]' % (t['gain'], '%.2f' % lo if lo else '-', '%.2f' % hi if hi else '-')


def print_table(summary):
    print()
    print('Each technique: the row\'s measure in us, median [quartiles] of %d repetitions '
          '(the measures below the table); gain: median over the repetitions of slow / '
          'fast, both forms from the same run [its quartiles]; p: one-sided exact '
          'signed-rank test over the repetitions that slow / fast > 1; a row passes when '
          'gain > 1, p < %g and the band is above 1; bench: make bench\'s ratio for it, '
          'same direction, same boot' % (summary['repetitions'], summary['p_max']))
    fmt = '%-22s %-20s %-20s %-18s %-8s %-9s %-18s %-7s %s'
    hdr = fmt % ('technique', 'slow form', 'fast form', 'gain [band]', 'p', 'verdict',
                 'bench', 'confirm', 'note')
    print(hdr)
    print('-' * len(hdr))
    for t in summary['techniques']:
        if 'problem' in t:
            print('%-22s %s: FAIL' % (t['title'], t['problem']))
            continue
        b = t.get('bench')
        bs = '%.2f [%.2f..%.2f]' % (b['gain'], b['q1'], b['q3']) if b else '-'
        note = t['verdict_text'] or ''
        if t['beside']:
            note = '; '.join(['beside: %s %s -> %s, gain %.2f' % (
                x['measure'].split(' (')[0], fmt_form(x['slow']), fmt_form(x['fast']),
                x['gain'] or 0) for x in t['beside']] + ([note] if note else []))
        print(fmt % (t['title'], fmt_form(t['slow']), fmt_form(t['fast']), fmt_gain(t),
                     '%.2g' % t['gain_p'], t['verdict'], bs,
                     '-' if t['confirm']['ok'] is None else
                     'ok' if t['confirm']['ok'] else 'FAILED', note))
    print()
    for t in summary['techniques']:
        print('  %-22s %s' % (t['title'], t['measure']))
    load = summary['host_load']
    for b in load['boots']:
        print('host: beside boot %s other processes kept %.2f of %d CPUs busy%s' %
              (b['boot'], b['others_cpus'], b['host_cpus'],
               ' (under load)' if b.get('loaded') else ''))
    if load['loaded']:
        print('UNDER LOAD: the host was busy beside the VM (%s CPUs or more of other '
              'work): timing rows that do not clear their noise are reported, not judged '
              '(LOADED), and confirm.py\'s timing checks are reported only' %
              load['boots'][0].get('loaded_from_cpus'))
    if summary['failed']:
        print('FAIL: %s: no figures, or a gain that does not clear its noise' %
              ', '.join(summary['failed']))


if __name__ == '__main__':
    sys.exit(main())
