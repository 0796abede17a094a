#!/usr/bin/env python3
"""Summarise pto-npu test logs.

Each log holds suites framed as
    === PTO-SUITE <kind> <name>
    # uptime <seconds>
    ...KTAP / TAP...
    === PTO-END <name> rc=<rc> [uptime=<seconds>]
and ends with "=== PTO-DONE". A log given as LABEL=PATH has its suites
named LABEL/<kind>/<name> (the kernel a VM log ran on). Leaf results of every
suite are counted (KUnit KTAP nests suites; kselftest TAP is flat); each
suite gets one line with its counts and time. A failing test is named and
its output printed. Any kernel splat in a VM log fails the run. Every VM log
must have run each expected kselftest. The last line is always
"N passed, N failed"; the exit status is non-zero on any failure.
"""
import argparse
import re
import sys

RESULT = re.compile(r'^(\s*)(not ok|ok)\s+\d+\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
SPLAT = re.compile(
    r'(BUG:|WARNING:|Oops|general protection fault|Kernel panic|KASAN:|UBSAN:|'
    r'possible circular locking|possible recursive locking|inconsistent lock state|'
    r'suspicious RCU usage|INFO: task .* blocked for more than|'
    r'soft lockup|hard LOCKUP|kmemleak: .*new suspected memory leaks|'
    r'unreferenced object 0x|list_add corruption|list_del corruption|'
    r'sleeping function called from invalid context|Call Trace:)')

# Suites of kind "vm" that a name in --expect-kselftests may ask for: the
# pto-bench smoke run, the python tests and the examples (tools/vm/init.sh,
# bench_suite, python_suite, examples_suite).
VM_SUITES = ('bench', 'python', 'examples')


def strip_console(line):
    # "[   12.345678] text" -> "text"
    return re.sub(r'^\[\s*\d+\.\d+\]\s?', '', line.rstrip('\r\n'))


class Summary:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []  # (suite, test, output lines)
        self.suites = []  # (label, passed, failed, skipped, seconds or None)

    def fail(self, suite, test, output):
        self.failed += 1
        self.failures.append((suite, test, output))


def leaf_results(lines):
    """Yield (status, name, directive, output-since-previous-result) for leaves."""
    results = []
    for idx, line in enumerate(lines):
        m = RESULT.match(line.expandtabs(4))
        if m:
            results.append((idx, len(m.group(1)), m.group(2), m.group(3), m.group(4) or ''))
    children = {}
    prev_idx = -1
    for idx, depth, status, name, directive in results:
        is_parent = children.get(depth, False)
        for d in list(children):
            if d >= depth:
                children[d] = False
        for d in range(depth):
            children[d] = True
        output = lines[prev_idx + 1:idx]
        prev_idx = idx
        if not is_parent:
            yield status, name, directive, output


def parse_log(label, path, summary, seen_suites):
    prefix = label + '/' if label else ''
    try:
        with open(path, errors='replace') as f:
            raw = f.readlines()
    except OSError as e:
        summary.fail(path, 'log', ['cannot read %s: %s' % (path, e)])
        return
    lines = [strip_console(l) for l in raw]
    done = any(l.startswith('=== PTO-DONE') for l in lines)
    is_vm = any(l.startswith('=== PTO-VM') for l in lines)

    splats = []
    for i, l in enumerate(lines):
        if is_vm and SPLAT.search(l):
            splats.append(i)
    if splats:
        first = splats[0]
        summary.fail(prefix + 'kernel', 'splat-free run (%d report lines)' % len(splats),
                     lines[max(0, first - 5):first + 60])

    suite = None
    body = []
    for l in lines:
        m = re.match(r'^=== PTO-SUITE (\S+) (\S+)', l)
        if m:
            if suite:
                close_suite(prefix, suite, body, None, None, summary)
            suite = (m.group(1), m.group(2))
            seen_suites.add((label,) + suite)
            body = []
            continue
        m = re.match(r'^=== PTO-END (\S+) rc=(-?\d+)(?: uptime=([\d.]+))?', l)
        if m and suite:
            close_suite(prefix, suite, body, int(m.group(2)), m.group(3), summary)
            suite = None
            continue
        if suite:
            body.append(l)
    if suite:
        close_suite(prefix, suite, body, None, None, summary)
    if not done:
        if any('PTO-VM-SETUP-FAILED' in l for l in lines):
            why = 'the kernel or the module did not build'
        elif any('PTO-VM-TIMEOUT' in l for l in lines):
            why = 'VM timed out'
        else:
            why = 'run ended early'
        summary.fail(prefix + 'vm', 'run completed (%s)' % why, lines[-60:])
    return is_vm


def suite_seconds(body, end_uptime):
    if end_uptime is None:
        return None
    for l in body[:3]:
        m = re.match(r'^# uptime ([\d.]+)', l)
        if m:
            return float(end_uptime) - float(m.group(1))
    return None


def close_suite(prefix, suite, body, rc, end_uptime, summary):
    kind, name = suite
    label = '%s%s/%s' % (prefix, kind, name)
    before = (summary.passed, summary.failed, summary.skipped)
    n = 0
    failed_here = 0
    for status, test, directive, output in leaf_results(body):
        n += 1
        if status == 'ok':
            if directive.upper().startswith('SKIP'):
                summary.skipped += 1
            else:
                summary.passed += 1
        elif directive.upper().startswith(('TODO', 'XFAIL')):
            summary.passed += 1
        else:
            failed_here += 1
            summary.fail(label, test, output[-80:])
    if rc is None:
        summary.fail(label, 'suite finished', ['suite output ended without its end marker'] + body[-60:])
    elif n == 0:
        summary.fail(label, 'suite reported results', ['no TAP results'] + body[-60:])
    elif rc != 0 and failed_here == 0 and kind != 'kunit':
        summary.fail(label, 'exit status', ['exited with %d but reported no failure' % rc] + body[-40:])
    summary.suites.append((label, summary.passed - before[0], summary.failed - before[1],
                           summary.skipped - before[2], suite_seconds(body, end_uptime)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--expect-kselftests', default='')
    ap.add_argument('--expect-kunit', action='append', default=[],
                    help='a log label whose kernel has KUnit: its suites must have run')
    ap.add_argument('logs', nargs='+')
    args = ap.parse_args()
    summary = Summary()
    seen = set()
    vm_labels = []
    for spec in args.logs:
        label, sep, path = spec.partition('=')
        if not sep:
            label, path = '', spec
        if parse_log(label, path, summary, seen) and label not in vm_labels:
            vm_labels.append(label)
    for label in vm_labels:
        prefix = label + '/' if label else ''
        expect = args.expect_kselftests.split()
        if label in args.expect_kunit:
            expect.append('kunit')
        for name in expect:
            if name in ('kunit', 'vm'):
                if not any(l == label and kind == name for l, kind, _ in seen):
                    summary.fail(prefix + name, 'suites ran', ['no %s suite started in the VM' % name])
            elif name in VM_SUITES:
                if (label, 'vm', name) not in seen:
                    summary.fail(prefix + 'vm/' + name, 'suite ran', ['never started in the VM'])
            elif (label, 'kselftest', name) not in seen:
                summary.fail(prefix + 'kselftest/' + name, 'suite ran', ['never started in the VM'])

    for label, passed, failed, skipped, secs in summary.suites:
        print('suite %s: %d passed, %d failed%s%s' % (
            label, passed, failed, ', %d skipped' % skipped if skipped else '',
            ', %.1f s' % secs if secs is not None else ''))
    for suite, test, output in summary.failures:
        print('FAIL %s: %s' % (suite, test))
        for l in output:
            print('    | ' + l)
    suites = len(seen)
    print('%d suites, %d skipped' % (suites, summary.skipped))
    print('%d passed, %d failed' % (summary.passed, summary.failed))
    return 1 if summary.failed else 0


if __name__ == '__main__':
    sys.exit(main())
