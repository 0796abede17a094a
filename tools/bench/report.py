#!/usr/bin/env python3
"""The runtime-overhead report of `make bench`, from the bench VM's console log.

pto-bench (tools/bench/bench-core.c, its rows in tools/bench/rows-*.c) prints,
inside the VM,
    === PTO-BENCH-INFO {json}          the run's setup
    === PTO-BENCH-ROW {json}           one per row
    === PTO-BENCH-TRACE {json}         tracepoint summary (pto-bench -t)
    === PTO-BENCH-END errors=<n>       pto-bench ran to its end
and the VM's /init adds "=== PTO-BENCH-RC rc=<rc>". This script extracts
them, prints the table, and writes OUT/report.json and OUT/ratios.png.

`make bench` boots the VM twice (pto-bench -P 1 and -P 2: the rows measured
on one vCPU, then the rows that need cores running in parallel); each log
given is one pass, and every row records the vCPUs it ran on.

Exit status: 0 when the benchmark ran (a missed target is not a failure);
1 when it broke: no rows, a row with status "error", pto-bench not reaching
its end, a VM timeout, or a malformed row.
"""
import argparse
import json
import math
import os
import re
import sys

TAG = re.compile(r'=== (PTO-BENCH-[A-Z]+)(?: (.*))?$')


def strip_console(line):
    # "[   12.345678] text" -> "text"; serial consoles add \r.
    line = line.replace('\r', '').rstrip('\n')
    return re.sub(r'^\[\s*\d+\.\d+\]\s?', '', line)


def parse_log(path):
    out = {'info': None, 'rows': [], 'trace': None, 'end': None, 'rc': None,
           'timeout': False, 'begun': False, 'problems': []}
    with open(path, errors='replace') as f:
        for raw in f:
            line = strip_console(raw)
            if line.startswith('=== PTO-VM-TIMEOUT'):
                out['timeout'] = True
            idx = line.find('=== PTO-BENCH-')
            if idx < 0:
                continue
            m = TAG.match(line[idx:])
            if not m:
                continue
            tag, rest = m.group(1), (m.group(2) or '').strip()
            if tag == 'PTO-BENCH-BEGIN':
                out['begun'] = True
            elif tag in ('PTO-BENCH-ROW', 'PTO-BENCH-INFO', 'PTO-BENCH-TRACE'):
                try:
                    obj = json.loads(rest)
                except ValueError as e:
                    out['problems'].append('malformed %s line (%s): %.120s' % (tag, e, rest))
                    continue
                if tag == 'PTO-BENCH-ROW':
                    out['rows'].append(obj)
                elif tag == 'PTO-BENCH-INFO':
                    out['info'] = obj
                else:
                    out['trace'] = obj
            elif tag == 'PTO-BENCH-END':
                m2 = re.match(r'errors=(\d+)', rest)
                out['end'] = int(m2.group(1)) if m2 else -1
            elif tag == 'PTO-BENCH-RC':
                m2 = re.match(r'rc=(\S+)', rest)
                out['rc'] = m2.group(1) if m2 else '?'
    return out


def fmt(v, unit=None):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return '-'
    if isinstance(v, bool):
        return str(v).lower()
    if float(v).is_integer() and abs(v) < 1e7:
        return '%d' % v + (' ' + unit if unit else '')
    a = abs(v)
    if a >= 1e5 or (a and a < 1e-3):
        s = '%.3g' % v
    elif a >= 100:
        s = '%.0f' % v
    elif a >= 10:
        s = '%.1f' % v
    else:
        s = '%.3g' % v
    return s + (' ' + unit if unit else '')


def figure(f):
    if not f or f.get('median') is None:
        return '-'
    return '%s [%s..%s]' % (fmt(f['median'], f.get('unit')), fmt(f['q1']), fmt(f['q3']))


def target_str(t):
    if not t or not t.get('op'):
        return '-'
    what = 'a' if t.get('applies_to') == 'a' else 'ratio'
    return '%s %s %s' % (what, t['op'], fmt(t['value']))


def met_str(row):
    if row.get('status') != 'ok':
        return row.get('status', '?').upper()
    met = row.get('met')
    return 'n/a' if met is None else 'MET' if met else 'MISSED'


def print_table(rows, infos):
    for info in infos:
        print('bench: %s, %s vCPUs, %s clusters (%s AIC, %s AIV), %s repetitions%s%s' % (
            info.get('kernel'), fmt(info.get('cpus')), fmt(info.get('clusters')),
            fmt(info.get('aic')), fmt(info.get('aiv')), fmt(info.get('reps')),
            ', quick' if info.get('quick') else '',
            ': rows %s' % ' '.join(info['rows_run']) if info.get('rows_run') else ''))
    if infos:
        print('figures: median [interquartile range] over the repetitions; ratio a/b: '
              'median [IQR] of the per-repetition ratios (min and max in report.json)')
    head = ('row', 'vCPUs', 'what', 'a', 'b', 'ratio a/b', 'target', 'result')
    table = [head]
    for r in rows:
        a, b, ra = r.get('a', {}), r.get('b', {}), r.get('ratio', {})
        table.append((
            r.get('row', '?'),
            fmt(r.get('vcpus')),
            r.get('title', ''),
            '%s: %s' % (a.get('label', 'a'), figure(a)),
            '%s: %s' % (b.get('label', 'b'), figure(b)),
            '%s [%s..%s]' % (fmt(ra.get('median')), fmt(ra.get('q1')), fmt(ra.get('q3'))),
            target_str(r.get('target')),
            met_str(r),
        ))
    widths = [max(len(str(row[i])) for row in table) for i in range(len(head))]
    for n, row in enumerate(table):
        print('  '.join(str(c).ljust(widths[i]) for i, c in enumerate(row)).rstrip())
        if n == 0:
            print('  '.join('-' * w for w in widths))
    notes = [(r.get('row'), r.get('note')) for r in rows if r.get('note')]
    if notes:
        print('notes:')
        for rid, note in notes:
            print('  row %s: %s' % (rid, note))


def chart_point(r):
    """(value, target, op, label) of a row for the chart, or None."""
    t = r.get('target') or {}
    if r.get('status') != 'ok':
        return None
    if t.get('applies_to') == 'a':
        a = r.get('a', {}).get('median')
        if a is None or not t.get('value'):
            return None
        lo = r['a'].get('q1', a) / t['value']
        hi = r['a'].get('q3', a) / t['value']
        return a / t['value'], lo, hi, 1.0, t.get('op'), '%s / %s' % (
            r['a'].get('unit', ''), fmt(t['value']))
    ra = r.get('ratio', {})
    if ra.get('median') is None:
        return None
    return (ra['median'], ra.get('q1', ra['median']), ra.get('q3', ra['median']),
            t.get('value'), t.get('op'), (ra.get('label') or ''))


def write_chart(rows, path):
    try:
        try:
            import matplotlib
        except ImportError:
            # Debian's python3-matplotlib, from another python3 in PATH.
            sys.path.append('/usr/lib/python3/dist-packages')
            import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('bench: no matplotlib (apt install python3-matplotlib): %s not written' % path,
              file=sys.stderr)
        return False
    pts = []
    for r in rows:
        p = chart_point(r)
        if p and p[0] > 0:
            pts.append((r, p))
    if not pts:
        return False
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(pts) + 1.8))
    ys = list(range(len(pts)))[::-1]
    for y, (r, (v, lo, hi, tv, op, label)) in zip(ys, pts):
        met = r.get('met')
        color = '#9e9e9e' if met is None else '#2e7d32' if met else '#c62828'
        ax.barh(y, v, color=color, height=0.6, left=0)
        lo, hi = max(lo, 1e-9), max(hi, 1e-9)
        ax.errorbar(v, y, xerr=[[max(v - lo, 0)], [max(hi - v, 0)]], fmt='none',
                    ecolor='black', elinewidth=1, capsize=3)
        if tv:
            ax.plot([tv, tv], [y - 0.4, y + 0.4], color='black', linewidth=2.5)
            ax.annotate(('>=' if op == '>=' else '<=') + fmt(tv), (tv, y + 0.32),
                        fontsize=7, ha='left', va='bottom')
        ax.annotate('  ' + fmt(v), (max(v, hi), y), fontsize=8, va='center', ha='left')
    ax.set_yticks(ys)
    ax.set_yticklabels(['%s  %s\n(%s)' % (r.get('row'), r.get('title', ''), p[5])
                        for r, p in pts], fontsize=7)
    ax.set_xscale('log')
    ax.set_xlabel('ratio a/b (row 10: bytes per task / 1 KiB); black bar = target; '
                  'whiskers = interquartile range over repetitions', fontsize=8)
    ax.set_title('pto-npu runtime overhead: green = target met, red = missed, grey = no target')
    ax.grid(axis='x', which='both', alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def row_order(r):
    """'3.48' -> (3, 48, ''), '4b' -> (4, 0, 'b'): the table's order."""
    m = re.match(r'(\d+)(?:\.(\d+))?(.*)$', str(r.get('row', '')))
    if not m:
        return (1 << 30, 0, str(r.get('row')))
    return (int(m.group(1)), int(m.group(2) or 0), m.group(3))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('logs', nargs='+', metavar='log',
                    help='console log of a bench VM pass (build/vm/bench.log, bench-par.log)')
    ap.add_argument('--out', default='build/bench', help='directory for report.json and ratios.png')
    ap.add_argument('-v', '--verbose', action='store_true', help='print every row\'s breakdown')
    args = ap.parse_args()

    rows, infos, broken, trace = [], [], [], None
    for log in args.logs:
        try:
            res = parse_log(log)
        except OSError as e:
            print('bench: cannot read %s: %s' % (log, e), file=sys.stderr)
            return 1
        broken += ['%s: %s' % (log, p) for p in res['problems']]
        if not res['begun']:
            broken.append('the VM never started the benchmark (see %s)' % log)
        if res['timeout']:
            broken.append('the VM timed out (%s)' % log)
        if res['rc'] is None and res['begun']:
            broken.append('pto-bench did not finish (crash or timeout; see %s)' % log)
        elif res['rc'] not in (None, '0'):
            broken.append('pto-bench exited with rc=%s (%s)' % (res['rc'], log))
        if res['begun'] and res['end'] is None:
            broken.append('pto-bench did not reach its end (%s)' % log)
        info = res['info'] or {}
        for r in res['rows']:
            r['vcpus'] = info.get('cpus')
        if res['info']:
            info['rows_run'] = [str(r.get('row')) for r in res['rows']]
            infos.append(info)
        rows += res['rows']
        trace = trace or res['trace']
    rows.sort(key=row_order)
    errs = [r.get('row') for r in rows if r.get('status') == 'error']
    if errs:
        broken.append('rows with errors: %s' % ', '.join(map(str, errs)))
    if not rows:
        broken.append('no rows in the log')

    print_table(rows, infos)
    if args.verbose:
        for r in rows:
            print('row %s breakdown:' % r.get('row'))
            for k, v in (r.get('breakdown') or {}).items():
                print('    %-45s %s' % (k, fmt(v)))
    if trace:
        print('tracepoints (median us between events of one empty task):')
        for k, v in trace.items():
            if k != 'what':
                print('    %-35s %s' % (k, fmt(v)))

    os.makedirs(args.out, exist_ok=True)
    report = {
        'info': infos[0] if infos else None,
        'passes': infos,
        'rows': rows,
        'trace': trace,
        'complete': not broken,
        'problems': broken,
        'summary': {
            'met': sum(1 for r in rows if r.get('met') is True),
            'missed': sum(1 for r in rows if r.get('met') is False),
            'no_target_or_not_measured': sum(1 for r in rows if r.get('met') is None),
        },
    }
    jpath = os.path.join(args.out, 'report.json')
    with open(jpath, 'w') as f:
        json.dump(report, f, indent=2)
        f.write('\n')
    ppath = os.path.join(args.out, 'ratios.png')
    wrote = write_chart(rows, ppath)
    s = report['summary']
    print('bench: %d met, %d missed, %d without a target or not measured; %s%s' % (
        s['met'], s['missed'], s['no_target_or_not_measured'], jpath,
        (', ' + ppath) if wrote else ''))
    if broken:
        for b in broken:
            print('bench: BROKEN: %s' % b, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
