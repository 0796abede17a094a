"""make demo's rows: for each technique, its slow and fast form, what the
row measures, the bench row beside it, and whether its gain is judged.

A row's figures, one per repetition of the demo (a fresh run of the
example, make demo's DEMO_REPS), come from one of:

  makespan   the form's swimlane: latest bar end minus earliest dispatch
  gap        its swimlane: the median producer end -> consumer start
  timed      the example's <example>.timing.json (examples/example.h,
             ex_timed_*): the median over its timed runs of 'wall' (from
             the host's first call for a run to its last completion),
             'makespan', or 'host' (wall less makespan: the host's and the
             intake's time outside the cores' span)

A judged row passes when its gain clears its noise (tools/demo/summary.py:
gain > 1, one-sided rank test p < P_MAX, the slow form's lower quartile
above the fast one's upper quartile); one that does not is a failure of
the demo unless it carries an exception (a documented limit of this
emulator) or the host was under load. A row of the guide's own size that
a judged row beside it measures at a size where the effect shows is
reported, not judged ('guide').
"""

# What each kind of figure is, as the summary states it.
MEASURES = {
    'makespan': 'makespan (first dispatch to last finish, from the swimlane)',
    'gap': 'median producer end -> consumer start (from the swimlane)',
    'wall': 'push to last CQE (the example\'s timed runs, median per repetition)',
    'timed-makespan': 'makespan (the example\'s timed runs, median per repetition)',
    'host': 'host + intake per token: build or launch to last CQE, less the makespan '
            '(median over the tokens per repetition)',
}


def row(key, title, slow, fast, bench, direction, measure, exception=None, guide=None,
        beside=(), confirm=None):
    """@measure: 'makespan', 'gap', or ('timed', 'wall'|'makespan'|'host');
    @guide: the key of the judged row that measures this guide-size row's
    technique where it shows (this one is then reported); @beside: other
    measures of the same forms, reported with it; @confirm: confirm.py's
    name for the technique's check."""
    return {'key': key, 'title': title, 'slow': slow, 'fast': fast, 'bench_row': bench,
            'direction': direction, 'measure': measure, 'exception': exception,
            'guide': guide, 'beside': list(beside), 'confirm': confirm}


ROWS = [
    row('mixed-kernel', 'mixed kernel (16 tiles)', 'matmul_bias.pipe_two_tasks-16',
        'matmul_bias.pipe_mixed-16', '4', 'ab', ('timed', 'makespan'),
        beside=[('timed', 'wall')], confirm='mixed kernel (16 tiles)'),
    row('mixed-kernel-guide', 'mixed kernel (guide)', 'matmul_bias.two_tasks',
        'matmul_bias._c__mixed_up_down', '4c', 'ab', 'makespan', guide='mixed-kernel',
        confirm='mixed kernel'),
    row('spmd-guide', 'SPMD (guide, 4)', 'spmd_add.per_block_tasks', 'spmd_add.spmd_blocks',
        '3.4', 'ab', 'makespan', guide='spmd', confirm='SPMD'),
    row('spmd', 'SPMD (48 blocks)', 'spmd_add.per_block_tasks-48', 'spmd_add.spmd_blocks-48',
        '3.48', 'ab', ('timed', 'makespan'), beside=[('timed', 'wall')],
        confirm='SPMD (48 blocks)'),
    row('predicate-guide', 'predicate (MoE, 8)', 'moe.self-checking_experts',
        'moe.predicated_experts', '5', 'ba', 'makespan', guide='predicate',
        confirm='predicate'),
    row('predicate', 'predicate (MoE, 64)', 'moe.self-checking_experts-64',
        'moe.predicated_experts-64', '5', 'ba', ('timed', 'makespan'),
        beside=[('timed', 'wall')], confirm='predicate (64 experts)'),
    row('predicate-gated', 'predicate (gate)', 'gated.gate_1', 'gated.gate_0', '5', 'ba',
        'makespan', confirm='predicate'),
    row('early-resolve', 'early resolve', 'early_resolve.unflagged', 'early_resolve.flagged',
        '6', 'ab', 'gap', confirm='early resolve'),
    row('syncall', 'syncall (HARD)', 'barrier.two_tasks', 'barrier.HARD_syncall', '7a', 'ab',
        'makespan', exception=(
            'on one vCPU every block that arrives early parks (its state kept, its '
            'thread moves on) and is resumed later: about 12 us a block more in the '
            'first half than the two-task form, 48 times, which is what the saved '
            'scheduler round trip (about 230 us) and the second dispatch save; the '
            'bench row, with empty kernels, shows the round trip it removes; the '
            'picture shows one task, no round trip, every block released after the '
            'last arrival'), confirm='syncall'),
    # Row 16a's ratio is replayed / plain: fast / slow.
    row('graph-replay', 'graph replay', 'decoder_layer.slow', 'decoder_layer.replay', '16a',
        'ba', ('timed', 'host'), beside=[('timed', 'wall'), ('timed', 'makespan')],
        confirm='graph replay'),
    # The guide's own Python blocks (examples/python/runtime_overhead.py),
    # each call one replay launch of its recorded graph.
    row('spmd-python', 'SPMD (Python)', 'py_spmd_add.per_block_tasks',
        'py_spmd_add.spmd_blocks', '3.4', 'ab', 'makespan', guide='spmd',
        confirm='SPMD (Python)'),
    row('predicate-python', 'predicate (Python)', 'py_gated.gate_1', 'py_gated.gate_0', '5',
        'ba', 'makespan', confirm='predicate (Python)'),
    row('early-resolve-python', 'early resolve (Python)', 'py_early_resolve.unflagged',
        'py_early_resolve.flagged', '6', 'ab', 'gap', guide='early-resolve',
        confirm='early resolve (Python)'),
]


def measure_name(measure):
    if isinstance(measure, tuple):
        return MEASURES['timed-makespan' if measure[1] == 'makespan' else measure[1]]
    return MEASURES[measure]


def by_key(key):
    return next(r for r in ROWS if r['key'] == key)
