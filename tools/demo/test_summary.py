#!/usr/bin/env python3
"""Host test of tools/demo/summary.py's verdicts and tools/demo/hostload.py; TAP.

Writes synthetic repetitions (runs/repK/ with an example's timing.json,
as examples/example.h writes it, and swimlanes from test_confirm.py's
Graph) and checks that a row whose gain clears its noise passes, one at
the noise fails (or, with an exception, is an EXCEPTION; on a host under
load, LOADED, not failed), a guide-size row is reported, 'host' is the
wall time less the makespan, and summary.py's exit status and
summary.json say so end to end. test_confirm.py runs these checks too
(make check). Plain python3; exits non-zero on a failure.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import hostload  # noqa: E402
import summary  # noqa: E402
import techniques  # noqa: E402
import test_confirm  # noqa: E402

REPS = 9


def write_timing(d, example, forms):
    """forms: {graph: (wall_us list, makespan_us list)}."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, example + '.timing.json'), 'w') as f:
        json.dump({'example': example, 'forms': {
            g: {'wall_us': w, 'makespan_us': m} for g, (w, m) in forms.items()}}, f)


def timed_reps(runs, slow, fast, span=(500.0, 500.0), jitter=10.0, apart=False):
    """REPS repetitions of decoder_layer's forms: each form's wall time per
    token around @slow and @fast us (the repetitions +- @jitter, both forms
    alike, or with @apart the fast form the other way; the 5 tokens +- 1
    us), makespans @span."""
    for k in range(1, REPS + 1):
        off = jitter * ((k * 7) % REPS - REPS // 2) / (REPS // 2)
        wob = [off + (t % 3 - 1) for t in range(5)]
        write_timing(os.path.join(runs, 'rep%d' % k), 'decoder_layer', {
            'decoder_layer.slow': ([slow + w for w in wob], [span[0]] * 5),
            'decoder_layer.replay': ([fast + (w - 2 * off if apart else w) for w in wob],
                                     [span[1]] * 5)})


def row_of(runs, key, loaded=False):
    reps = {'rep%d' % k for k in range(1, REPS + 1)}
    figs = summary.collect(runs, reps)
    return summary.summarize_row(techniques.by_key(key), figs, {}, {}, loaded)


def verdict_checks(top, check):
    d = os.path.join(top, 'clear')
    timed_reps(d, 2500.0, 800.0)
    r = row_of(d, 'graph-replay')
    # host = wall - makespan: 2000 / 300 us.
    check('replay: host + intake is the wall time less the makespan',
          abs(r['slow']['median_us'] - 2000.0) < 1e-6 and
          abs(r['fast']['median_us'] - 300.0) < 1e-6, r.get('slow'))
    check('replay: a gain clear of its noise passes',
          r['verdict'] == 'PASS' and r['gain_p'] < summary.P_MAX and r['gain_range'][0] > 1,
          r)
    check('replay: the makespan and the wall time are reported beside it',
          [b['measure'] for b in r['beside']] ==
          [techniques.measure_name(('timed', 'wall')),
           techniques.measure_name(('timed', 'makespan'))] and
          abs(r['beside'][1]['gain'] - 1.0) < 1e-9, r['beside'])
    d = os.path.join(top, 'noise')
    timed_reps(d, 1000.0, 1000.0, jitter=200.0)
    r = row_of(d, 'graph-replay')
    check('replay: no gain beyond the noise fails', r['verdict'] == 'FAIL', r)
    r = row_of(d, 'graph-replay', loaded=True)
    check('replay: the same under load is LOADED (reported, not judged)',
          r['verdict'] == 'LOADED' and 'load' in r['verdict_text'], r)
    d = os.path.join(top, 'band')
    # Slower in most repetitions but not in a quarter of them: not clear.
    timed_reps(d, 1030.0, 1000.0, jitter=100.0, apart=True)
    r = row_of(d, 'graph-replay')
    check('replay: a gain whose band reaches below 1 fails',
          r['verdict'] == 'FAIL' and r['gain'] > 1 and r['gain_range'][0] <= 1, r)
    d = os.path.join(top, 'drift')
    # The host's load drifting between repetitions, both forms alike:
    # the forms' medians overlap, each repetition's ratio does not.
    timed_reps(d, 1300.0, 1000.0, jitter=400.0)
    r = row_of(d, 'graph-replay')
    check('replay: a gain in every repetition, under a drift larger than it, passes',
          r['verdict'] == 'PASS' and r['gain_p_unpaired'] > summary.P_MAX and
          abs(r['gain_p'] - 1 / 512.0) < 1e-5, r)
    # Sums of the ranks left positive at least W+: 2 and 5 of the 512.
    check('signed-rank test: exact p of 9 ratios with 1, 2 below 1',
          abs(summary.signed_rank_p([-1, 2, 3, 4, 5, 6, 7, 8, 9]) - 2 / 512.0) < 1e-12 and
          abs(summary.signed_rank_p([-1, -2, 3, 4, 5, 6, 7, 8, 9]) - 5 / 512.0) < 1e-12 and
          summary.signed_rank_p([]) == 1.0 and summary.signed_rank_p([-1, -1]) == 1.0,
          [summary.signed_rank_p([-1, 2, 3, 4, 5, 6, 7, 8, 9])])
    d = os.path.join(top, 'missing')
    timed_reps(d, 2500.0, 800.0, span=(0.0, 0.0))
    r = row_of(d, 'graph-replay')
    check('replay: without makespans (no profiling queue) no host figure: a problem',
          'problem' in r and r['verdict'] == 'FAIL', r)
    swim_checks(top, check)


def swim_reps(runs, name_make):
    for k in range(1, REPS + 1):
        rep = os.path.join(runs, 'rep%d' % k)
        os.makedirs(rep, exist_ok=True)
        for name, make in name_make.items():
            make(k).write(rep, name)


def swim_checks(top, check):
    """Rows from swimlanes: an exception row, a guide-size row."""
    d = os.path.join(top, 'syncall')
    # The same makespan both ways: no gain.
    same = {'barrier.two_tasks': lambda k: test_confirm.barrier_two_tasks(),
            'barrier.HARD_syncall': lambda k: test_confirm.barrier_two_tasks()}
    swim_reps(d, same)
    r = row_of(d, 'syncall')
    check('syncall: no gain, with its documented exception: EXCEPTION',
          r['verdict'] == 'EXCEPTION' and r['exception'], r)
    d = os.path.join(top, 'spmd-guide')
    swim_reps(d, {'spmd_add.per_block_tasks': lambda k: test_confirm.spmd_per_block(),
                  'spmd_add.spmd_blocks': lambda k: test_confirm.spmd_blocks()})
    r = row_of(d, 'spmd-guide')
    check('SPMD at the guide\'s size: reported (GUIDE), beside the 48-block row',
          r['verdict'] == 'GUIDE' and 'SPMD (48 blocks)' in r['verdict_text'], r)


def end_to_end(top, check):
    """summary.py on raw boots (every form's swimlanes, the replay's
    timed runs at the noise): exit status, summary.json, the load."""
    for loaded, want_rc in ((False, 1), (True, 0)):
        raw = os.path.join(top, 'e2e%d' % loaded, 'demo-raw', 'demo-1')
        os.makedirs(raw)
        tmp = os.path.join(top, 'tmp')
        os.makedirs(tmp, exist_ok=True)
        for name, make in test_confirm.GOOD.items():
            make().write(tmp, name)
        for k in range(1, REPS + 1):
            for f in os.listdir(tmp):
                subprocess.run(['cp', os.path.join(tmp, f),
                                os.path.join(raw, 'rep%d--%s' % (k, f))], check=True)
            write_timing(tmp, 'spmd_add', {
                'spmd_add.per_block_tasks-48': ([900.0 + k] * 3, [600.0] * 3),
                'spmd_add.spmd_blocks-48': ([400.0 + k] * 3, [300.0] * 3)})
            write_timing(tmp, 'moe', {
                'moe.self-checking_experts-64': ([3000.0 + k] * 3, [2000.0 + k] * 3),
                'moe.predicated_experts-64': ([1000.0 + k] * 3, [700.0 + k] * 3)})
            write_timing(tmp, 'matmul_bias', {
                'matmul_bias.pipe_two_tasks-16': ([60000.0 + k] * 3, [59000.0 + k] * 3),
                'matmul_bias.pipe_mixed-16': ([45000.0 + k] * 3, [44000.0] * 3)})
            write_timing(os.path.join(top, 'tmp'), 'decoder_layer', {
                'decoder_layer.slow': ([1000.0 + k] * 3, [500.0] * 3),
                'decoder_layer.replay': ([1000.0 + 10 - k] * 3, [500.0] * 3)})
            for ex in ('spmd_add', 'moe', 'matmul_bias', 'decoder_layer'):
                os.rename(os.path.join(tmp, ex + '.timing.json'),
                          os.path.join(raw, 'rep%d--%s.timing.json' % (k, ex)))
        subprocess.run(['rm', '-rf', tmp], check=True)
        with open(raw + '.load.json', 'w') as f:
            json.dump({'others_cpus': 1.2 if loaded else 0.1, 'host_cpus': 2,
                       'loaded': loaded, 'loaded_from_cpus': 0.5}, f)
        out = os.path.join(top, 'e2e%d' % loaded, 'demo')
        os.makedirs(out)
        p = subprocess.run([sys.executable, os.path.join(HERE, 'summary.py'), out, raw],
                           capture_output=True, text=True)
        with open(os.path.join(out, 'summary.json')) as f:
            sm = json.load(f)
        rep = next(t for t in sm['techniques'] if t['technique'] == 'graph-replay')
        spmd = next(t for t in sm['techniques'] if t['technique'] == 'spmd')
        check('summary.py %s: exit %d, replay %s, SPMD (48 blocks) PASS' %
              ('under load' if loaded else 'idle host', want_rc,
               'LOADED' if loaded else 'FAIL'),
              p.returncode == want_rc and sm['under_load'] == loaded and
              rep['verdict'] == ('LOADED' if loaded else 'FAIL') and
              spmd['verdict'] == 'PASS' and 'gain_p' in spmd and 'q1_us' in spmd['slow'] and
              ('UNDER LOAD' in p.stdout) == loaded,
              'rc %d\n%s%s' % (p.returncode, p.stdout[-1500:], p.stderr[-1500:]))


def load_checks(top, check):
    rc, ld = hostload.measure(['true'])
    check('hostload: the command\'s status and the load figures',
          rc == 0 and ld['others_cpus'] >= 0 and ld['host_cpus'] >= 1 and
          ld['loaded'] == (ld['others_cpus'] >= hostload.LOADED_CPUS), ld)
    rc, _ = hostload.measure(['false'])
    check('hostload: a failing command\'s status', rc == 1, rc)


def summary_checks(top, check):
    os.makedirs(top, exist_ok=True)
    verdict_checks(top, check)
    end_to_end(top, check)
    load_checks(top, check)


def main():
    tests = []

    def check(name, ok, why=''):
        tests.append((bool(ok), name, why))

    with tempfile.TemporaryDirectory() as top:
        summary_checks(top, check)
    print('1..%d' % len(tests))
    for i, (ok, name, why) in enumerate(tests, 1):
        print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
        if not ok:
            for line in str(why).splitlines():
                print('# ' + line)
    return 0 if all(t[0] for t in tests) else 1


if __name__ == '__main__':
    sys.exit(main())
