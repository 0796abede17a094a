#!/usr/bin/env python3
"""Render a pto-npu swimlane (*.trace.json) as a PNG picture.

  render.py TRACE [-o OUT.png]
      one run: a row per lane (scheduler, AIC_k, AIV_k, in the trace's own
      order and names), a bar per block coloured by task.
  render.py --pair SLOW FAST [MORE...] -o OUT.png
      before/after: the runs stacked top to bottom on one time scale.
  render.py --demo DIR [--out-dir OUTDIR]
      every technique's before/after picture from the traces make demo
      wrote to DIR, as OUTDIR/<technique>.png (OUTDIR defaults to DIR);
      prints the paths written and skips a technique whose traces are
      missing.

What is drawn (Documentation/swimlane.rst describes the events):
  X bars          a block's run, ts to ts + dur (at least 2 pixels wide),
                  in its task's colour,
                  labelled "task" (or "task bN" for a block of a
                  multi-block task) where there is room; a pre-staged unit
                  ("staged": true) is hatched
  dispatch wait   a thin line from args.dispatch_us to the bar's start
  release         a small triangle at a staged unit's release_us, the
                  moment its producer released it (its doorbell)
  waits           a dotted white box over the part of a bar that waited
                  (a ring POP/PUSH, a barrier: slices of cat "wait")
  i markers       on the scheduler lane: an X for "skip NAME", a diamond
                  for "not run NAME", with the name
  sched slices    the scheduler's own work (cat "sched", on the doorbell,
                  scheduler and scheduler: resolve lanes): thin grey
                  boxes, an early_dispatch green
  s/f flows       dependency arrows, producer's bar end to consumer's start
  makespan        a dashed line at the run's end: latest bar end minus
                  earliest dispatch_us, as tools/demo/confirm.py computes

By default only lanes with something on them are rows (the scheduler lane
always is); --all-lanes draws every lane. The x axis is microseconds from
the run's t0. Output is deterministic for the same input: fixed width and
dpi, no timestamps or version strings in the file.

Needs matplotlib (Debian: python3-matplotlib); a python3 without it runs
the script again under /usr/bin/python3; exits 3 if that has none either.
"""
import argparse
import glob
import json
import math
import os
import sys
import textwrap

# Which traces each technique's picture compares, top (before) to bottom
# (after), and what the picture shows (a line under it). Each entry of the
# forms is a list of alternatives (glob patterns), the first one present
# wins. The pictures match make demo's rows (tools/demo/techniques.py):
# the judged sizes, and the guide's beside them (-guide).
TECHNIQUES = [
    ('mixed-kernel', [['matmul_bias.pipe_two_tasks-16'], ['matmul_bias.pipe_mixed-16']],
     '16 tiles: the cube task stores every product tile, then the vector task loads '
     'them back (top); one MIX task streams them through a ring of 4 slots, each '
     'tile\'s vector work beside the next tile\'s cube work'),
    ('mixed-kernel-guide', [['matmul_bias.two_tasks'],
                            ['matmul_bias._b__mixed_none'],
                            ['matmul_bias._c__mixed_up_down']],
     'the guide\'s size: two tasks, the vector task after the cube task, become one '
     'MIX task whose cube and vector units run side by side (the ring between them)'),
    ('spmd', [['spmd_add.per_block_tasks-48'], ['spmd_add.spmd_blocks-48']],
     '48 single-block tasks, dispatched one by one, become one task of 48 blocks, '
     'placed on the vector cores by one dispatch'),
    ('spmd-guide', [['elementwise_add.per-tile_tasks', 'spmd_add.per_block_tasks'],
                    ['elementwise_add.SPMD_task', 'spmd_add.spmd_blocks']],
     'the guide\'s size: 4 tasks become one task of 4 blocks'),
    ('predicate', [['moe.self-checking_experts-64'], ['moe.predicated_experts-64']],
     '64 experts, 8 with tokens: every self-checking expert is dispatched (top); the '
     '56 predicated experts without tokens are skipped, never dispatched (X markers)'),
    ('predicate-guide', [['moe.self-checking_experts'], ['moe.predicated_experts']],
     'the guide\'s size: 4 of 8 experts skipped'),
    ('predicate-gated', [['gated.gate_1'], ['gated.gate_0']],
     'gate 1 runs the predicated task; gate 0 skips it: no dispatch, a skip marker'),
    ('early-resolve', [['early_resolve.unflagged'], ['early_resolve.flagged']],
     'flagged, each consumer is staged on its core before its producer ends '
     '(hatched) and starts at the producer\'s release'),
    ('syncall', [['barrier.two_tasks'], ['barrier.HARD_syncall'],
                 ['barrier.SOFT_syncall']],
     'two tasks and a scheduler round trip become one SYNC_START task whose blocks '
     'wait at the barrier (dotted) and are all released after the last arrival'),
    ('graph-replay', [['decoder_layer.slow'], ['decoder_layer.replay']],
     'the replayed token (bottom) is missing the slow form\'s doorbell intake and '
     'scheduler ticks: one launch entry, its 32 nodes joined in one pass; the cores\' '
     'bars are the same work. What that saves per token is the graph replay row'),
]

WIDTH_IN = 12.0
# A caption line's characters (7.5 pt italic across the picture).
CAPTION_CHARS = 170
DPI = 100
MIN_BAR_PX = 2.0
# The scheduler's slices, by kind (greys; pre-staging green).
SCHED_COLOUR = {'intake': '#b0b0b0', 'complete': '#7a7a7a', 'dispatch': '#4d4d4d',
                'resolve': '#9a9a9a', 'early_dispatch': '#2ca02c'}
# 20 distinct colours (matplotlib's tab20, dark shades first).
PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
           '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf',
           '#aec7e8', '#ffbb78', '#98df8a', '#ff9896', '#c5b0d5',
           '#c49c94', '#f7b6d2', '#c7c7c7', '#dbdb8d', '#9edae5']


class Trace:
    """One swimlane file, reduced to what the picture needs."""

    def __init__(self, path):
        self.path = path
        base = os.path.basename(path)
        self.name = base[:-len('.trace.json')] if base.endswith('.trace.json') else base
        with open(path) as f:
            ev = json.load(f)['traceEvents']
        names, sort = {}, {}
        self.pids = []
        for e in ev:
            if e.get('ph') != 'M':
                continue
            if e.get('name') == 'process_name' and e['pid'] not in self.pids:
                self.pids.append(e['pid'])
            elif e.get('name') == 'thread_name':
                names[(e['pid'], e['tid'])] = e['args']['name']
            elif e.get('name') == 'thread_sort_index':
                sort[(e['pid'], e['tid'])] = e['args']['sort_index']
        # Block bars; their waits (cat "wait") are drawn over them.
        self.bars = [e for e in ev if e.get('ph') == 'X' and
                     str(e.get('cat', 'block')).startswith('block')]
        self.waits = [e for e in ev if e.get('ph') == 'X' and e.get('cat') == 'wait'
                      and e['args'].get('kind') != 'STAGED']
        self.marks = [e for e in ev if e.get('ph') == 'i']
        # The scheduler's own work: intakes, phases, completion walks.
        self.sched_sl = [e for e in ev if e.get('ph') == 'X' and e.get('cat') == 'sched']
        starts = {e['id']: e for e in ev if e.get('ph') == 's'}
        self.flows = [(starts[e['id']], e) for e in ev
                      if e.get('ph') == 'f' and e.get('id') in starts]
        for e in self.bars + self.marks + self.sched_sl:
            key = (e['pid'], e['tid'])
            names.setdefault(key, 'lane %d' % e['tid'])
        # Lane order: the trace's own (pid, sort index, tid).
        self.lanes = sorted(names, key=lambda k: (k[0], sort.get(k, k[1]), k[1]))
        many = len({k[0] for k in self.lanes}) > 1
        self.lane_name = {k: ('%d:%s' % (k[0] - 1, names[k]) if many else names[k])
                          for k in self.lanes}
        self.sched = {k for k in self.lanes if names[k] == 'scheduler'}
        self.used = {(e['pid'], e['tid'])
                     for e in self.bars + self.marks + self.sched_sl} | self.sched
        deps = path[:-len('.trace.json')] + '.deps.json'
        self.tasks = None
        try:
            with open(deps) as f:
                self.tasks = len(json.load(f)['tasks'])
        except (OSError, ValueError, KeyError):
            pass
        if self.tasks is None:
            self.tasks = len({e['args']['graph_index'] for e in self.bars + self.marks
                              if 'graph_index' in e.get('args', {})})
        self.dispatched = len({b['args']['graph_index'] for b in self.bars})
        if self.bars:
            start = min(b['args'].get('dispatch_us', b['ts']) for b in self.bars)
            self.end = max(b['ts'] + b['dur'] for b in self.bars)
            self.makespan = self.end - start
        else:
            self.end = self.makespan = 0.0
        self.t_max = max([self.end] + [m['ts'] for m in self.marks] +
                         [e['ts'] + e['dur'] for e in self.sched_sl])
        self.staged = sum(1 for b in self.bars if b['args'].get('staged'))
        blocks = {}
        for b in self.bars:
            blocks.setdefault(b['args']['graph_index'], set()).add(b['args']['block'])
        self.multi_block = {g for g, s in blocks.items() if len(s) > 1}

    def task_order(self):
        """Task names in graph order (bars and markers)."""
        seen = {}
        for e in self.bars:
            seen.setdefault(e['name'], e['args']['graph_index'])
        for e in self.marks:
            n = e['name']
            for prefix in ('skip ', 'not run '):
                if n.startswith(prefix):
                    n = n[len(prefix):]
            seen.setdefault(n, e.get('args', {}).get('graph_index', 1 << 30))
        return sorted(seen, key=lambda n: (seen[n], n))


def import_mpl():
    try:
        import matplotlib
    except ImportError:
        # A python3 of its own (pyenv, a venv) may lack the distribution's
        # matplotlib (tools/install-deps.sh installs python3-matplotlib):
        # run again under the system's python3.
        system = '/usr/bin/python3'
        if os.path.realpath(sys.executable) != os.path.realpath(system) and \
                os.access(system, os.X_OK) and not os.environ.get('PTO_RENDER_REEXEC'):
            sys.stdout.flush()
            os.environ['PTO_RENDER_REEXEC'] = '1'
            os.execv(system, [system, os.path.abspath(__file__)] + sys.argv[1:])
        sys.stderr.write('render.py: matplotlib is not installed '
                         '(Debian: apt-get install python3-matplotlib)\n')
        sys.exit(3)
    matplotlib.use('Agg')
    matplotlib.rcParams.update({
        'svg.hashsalt': 'pto-npu',
        'font.family': 'DejaVu Sans',
        'font.size': 8,
        'axes.titlesize': 9,
        'path.simplify': True,
    })
    import matplotlib.pyplot as plt
    return matplotlib, plt


def text_colour(hexc):
    r, g, b = (int(hexc[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 'black' if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else 'white'


def fmt_us(v):
    return '{:,.0f}'.format(v)


def rows_for(traces, all_lanes):
    """The lanes drawn, shared by every panel: a name, in trace order."""
    order, seen = [], set()
    for t in traces:
        for k in t.lanes:
            name = t.lane_name[k]
            if name in seen or not (all_lanes or k in t.used):
                continue
            seen.add(name)
            order.append((t.lanes.index(k), name))
    # Merge by position in the trace's lane order (traces of one device
    # configuration share it).
    order.sort(key=lambda p: p[0])
    return [n for _, n in order]


def total_lanes(traces):
    return max(len(t.lanes) for t in traces)


def render(paths, out, all_lanes=False, flows=True, title=None, caption=None):
    matplotlib, plt = import_mpl()
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    from matplotlib import patheffects

    traces = [Trace(p) for p in paths]
    rows = rows_for(traces, all_lanes)
    nrows = max(len(rows), 1)
    npanel = len(traces)
    # Height: a row is at most 0.25 in; all rows of a panel share at most
    # 3.2 in, and of all panels about 7 in.
    cap = min(3.2, 7.0 / npanel)
    row_in = min(0.25, cap / nrows)
    if nrows * row_in < 1.0:
        row_in = 1.0 / nrows
    title_in, gap_in = 0.3, 0.12
    panel_in = [title_in + nrows * row_in + gap_in for _ in traces]
    top_in = 0.3 if (npanel > 1 or title) else 0.05
    # The caption's lines under the legend, and room for them.
    cap_lines = textwrap.wrap(caption, CAPTION_CHARS) if caption else []
    cap_in = 0.13 * len(cap_lines) + 0.1 if cap_lines else 0.0
    bottom_in = 0.75 + cap_in
    height = top_in + sum(panel_in) + bottom_in
    fig = plt.figure(figsize=(WIDTH_IN, height), dpi=DPI)
    left, right = 0.9, 0.25
    axes_w_px = (WIDTH_IN - left - right) * DPI
    t_max = max(t.t_max for t in traces) or 1.0
    x_max = t_max * 1.03
    px_per_us = axes_w_px / x_max
    row_px = row_in * DPI

    colours = {}
    for t in traces:
        for n in t.task_order():
            colours.setdefault(n, PALETTE[len(colours) % len(PALETTE)])

    present = set()
    y = {n: i for i, n in enumerate(rows)}
    axes = []
    top = height - top_in
    for t, ph in zip(traces, panel_in):
        bottom = top - ph
        ax = fig.add_axes([left / WIDTH_IN, (bottom + gap_in) / height,
                           (WIDTH_IN - left - right) / WIDTH_IN,
                           (ph - title_in - gap_in) / height],
                          sharex=axes[0] if axes else None)
        axes.append(ax)
        top = bottom
        ax.set_xlim(0, x_max)
        ax.set_ylim(nrows - 0.5, -0.5)
        for i in range(nrows):
            if i % 2:
                ax.axhspan(i - 0.5, i + 0.5, color='#f3f3f3', lw=0, zorder=0)
        lane_row = {k: y.get(t.lane_name[k]) for k in t.lanes}
        bar_h = 0.72
        # Where the next bar on the same lane starts (room for a label).
        nxt, by_lane = {}, {}
        for b in t.bars:
            by_lane.setdefault((b['pid'], b['tid']), []).append(b)
        for bars in by_lane.values():
            bars.sort(key=lambda b: b['ts'])
            for a_, b_ in zip(bars, bars[1:] + [None]):
                nxt[id(a_)] = b_['args'].get('dispatch_us', b_['ts']) if b_ else x_max
        for b in t.bars:
            r = lane_row.get((b['pid'], b['tid']))
            if r is None:
                continue
            a = b['args']
            c = colours[b['name']]
            d = a.get('dispatch_us')
            if d is not None and d < b['ts']:
                ax.plot([d, b['ts']], [r, r], color=c, lw=0.9, alpha=0.55,
                        solid_capstyle='butt', zorder=2)
                present.add('wait')
            staged = bool(a.get('staged'))
            # At least MIN_BAR_PX wide, so that short blocks stay visible.
            ax.barh(r, max(b['dur'], MIN_BAR_PX / px_per_us), left=b['ts'], height=bar_h, color=c,
                    edgecolor='black' if staged else c, linewidth=0.4,
                    hatch='///' if staged else None, zorder=3)
            if staged:
                present.add('staged')
                rel = a.get('release_us', d)
                if rel is not None:
                    ax.plot([rel], [r - bar_h / 2], marker='v', ms=4, color='black',
                            lw=0, zorder=5)
                    present.add('release')
            labels = [b['name']]
            if a.get('graph_index') in t.multi_block:
                labels = ['%s b%d' % (b['name'], a['block']), 'b%d' % a['block']]
            w = b['dur'] * px_per_us
            fs = 7 if row_px >= 11 else 6
            def text_px(s):
                return len(s) * fs * DPI / 72 * 0.6 + 6
            fits = [s for s in labels if w >= text_px(s)]
            room = (nxt[id(b)] - b['ts'] - b['dur']) * px_per_us
            if row_px < 9:
                pass
            elif fits:
                tc = text_colour(c)
                ax.text(b['ts'] + b['dur'] / 2, r, fits[0], ha='center', va='center',
                        fontsize=fs, color=tc, zorder=6, clip_on=True,
                        path_effects=[patheffects.withStroke(linewidth=2, foreground=c)]
                        if staged else None)
            elif room >= text_px(labels[0]) and w >= 1:
                # Beside the bar, while the lane is free up to the next one.
                ax.text(b['ts'] + b['dur'] + 3 / px_per_us, r, labels[0], ha='left',
                        va='center', fontsize=fs, color='#333333', zorder=6,
                        clip_on=True)
        for w in t.waits:
            r = lane_row.get((w['pid'], w['tid']))
            if r is None or w['dur'] <= 0:
                continue
            # A wait inside a bar: not work (ring or barrier).
            ax.barh(r, max(w['dur'], 1.0 / px_per_us), left=w['ts'], height=bar_h * 0.6,
                    color='white', alpha=0.75, edgecolor='#555555', linewidth=0.3,
                    hatch='....', zorder=4)
            present.add('blockwait')
        for e in t.sched_sl:
            r = lane_row.get((e['pid'], e['tid']))
            if r is None:
                continue
            kind = e['name'].split(' ', 1)[0]
            present.add('early' if kind == 'early_dispatch' else 'sched')
            ax.barh(r, max(e['dur'], 1.0 / px_per_us), left=e['ts'], height=bar_h * 0.5,
                    color=SCHED_COLOUR.get(kind, '#969696'), lw=0, zorder=3)
        for m in t.marks:
            r = lane_row.get((m['pid'], m['tid']))
            if r is None:
                continue
            skip = m.get('cat') == 'skip'
            present.add('skip' if skip else 'notrun')
            ax.plot([m['ts']], [r], marker='X' if skip else 'D', ms=6 if skip else 5,
                    color='#d62728' if skip else '#555555', lw=0, zorder=7)
            if row_px >= 7:
                # Right of the marker, or left of it near the right edge.
                after = (x_max - m['ts']) * px_per_us >= len(m['name']) * 5 + 8
                ax.text(m['ts'] + (5 if after else -5) / px_per_us, r, m['name'],
                        ha='left' if after else 'right', va='center',
                        fontsize=6, color='#444444', zorder=7, clip_on=True)
        if flows:
            for s, f in t.flows:
                r0 = lane_row.get((s['pid'], s['tid']))
                r1 = lane_row.get((f['pid'], f['tid']))
                if r0 is None or r1 is None:
                    continue
                present.add('flow')
                same = r0 == r1
                ax.annotate('', xy=(f['ts'], r1 - (0.3 if same else 0)),
                            xytext=(s['ts'], r0 - (0.3 if same else 0)),
                            arrowprops=dict(arrowstyle='-|>', color='#333333', lw=0.6, alpha=0.8,
                                            mutation_scale=7, shrinkA=0, shrinkB=0,
                                            connectionstyle='arc3,rad=%s' %
                                            ('-0.4' if same else '0')),
                            zorder=8)
        if t.bars:
            ax.axvline(t.end, color='black', ls='--', lw=0.8, zorder=4)
        ax.set_title('%s: %d task%s, %d dispatched%s, makespan %s us' % (
            t.name, t.tasks, '' if t.tasks == 1 else 's', t.dispatched,
            ', %d staged' % t.staged if t.staged else '', fmt_us(t.makespan)),
            loc='left', pad=3)
        step = max(1, int(math.ceil(9.0 / row_px)))
        ticks = [i for i in range(nrows) if i % step == 0 or rows[i] == 'scheduler']
        ax.set_yticks(ticks)
        ax.set_yticklabels([rows[i] for i in ticks], fontsize=7 if row_px >= 11 else 6)
        ax.tick_params(axis='y', length=0)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=12))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt_us(v)))
        ax.grid(axis='x', color='#dddddd', lw=0.5, zorder=1)
        ax.set_axisbelow(True)
        for side in ('top', 'right'):
            ax.spines[side].set_visible(False)
    for ax in axes[:-1]:
        ax.tick_params(axis='x', labelbottom=False)
    axes[-1].set_xlabel('time since the run\'s first intake or dispatch (us)')
    hidden = total_lanes(traces) - nrows
    note = '%d idle lane%s not shown' % (hidden, '' if hidden == 1 else 's') if hidden > 0 else ''

    handles = [Patch(facecolor='#9ecae1', edgecolor='#9ecae1',
                     label='block run (colour = task)')]
    if 'wait' in present:
        handles.append(Line2D([], [], color='#4a90c2', lw=0.9, alpha=0.7,
                              label='dispatch to start'))
    if 'blockwait' in present:
        handles.append(Patch(facecolor='white', edgecolor='#555555', hatch='....', lw=0.3,
                             label='wait in a bar (ring, barrier)'))
    if 'staged' in present:
        handles.append(Patch(facecolor='#9ecae1', edgecolor='black', hatch='///',
                             lw=0.4, label='pre-staged unit'))
    if 'release' in present:
        handles.append(Line2D([], [], marker='v', color='black', lw=0, ms=4,
                              label='release (staged unit started)'))
    if 'skip' in present:
        handles.append(Line2D([], [], marker='X', color='#d62728', lw=0, ms=6,
                              label='skipped by predicate'))
    if 'notrun' in present:
        handles.append(Line2D([], [], marker='D', color='#555555', lw=0, ms=5,
                              label='not run'))
    if 'flow' in present:
        handles.append(Line2D([], [], color='#333333', lw=0.7, marker='>', ms=4,
                              label='dependency'))
    if 'sched' in present:
        handles.append(Patch(facecolor=SCHED_COLOUR['complete'], lw=0,
                             label='scheduler work'))
    if 'early' in present:
        handles.append(Patch(facecolor=SCHED_COLOUR['early_dispatch'], lw=0,
                             label='early dispatch'))
    handles.append(Line2D([], [], color='black', ls='--', lw=0.8, label='end of run'))
    fig.legend(handles=handles, loc='lower left', ncol=len(handles), frameon=False,
               fontsize=7, bbox_to_anchor=(left / WIDTH_IN - 0.01, cap_in / height))
    if cap_lines:
        # What the picture shows, under the legend.
        fig.text(left / WIDTH_IN, 0.06 / height, '\n'.join(cap_lines), ha='left',
                 va='bottom', fontsize=7.5, style='italic', color='#333333')
    if note:
        # Above the x axis's label, right: the legend's row is full.
        fig.text(1 - right / WIDTH_IN, (0.32 + cap_in) / height, note,
                 ha='right', va='bottom',
                 fontsize=7, color='#666666')
    if title is None and npanel > 1:
        title = ('before (top) and after (bottom), one time scale' if npanel == 2 else
                 'before (top) and after (below), one time scale')
    if title:
        fig.text(left / WIDTH_IN, 1 - 0.06 / height, title, ha='left', va='top',
                 fontsize=10, weight='bold')
    ext = os.path.splitext(out)[1].lower()
    meta = {'.png': {'Software': None}, '.svg': {'Date': None},
            '.pdf': {'CreationDate': None, 'ModDate': None}}.get(ext, None)
    fig.savefig(out, dpi=DPI, metadata=meta)
    plt.close(fig)
    return out


def demo(d, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for tech, forms, caption in TECHNIQUES:
        paths = []
        for alts in forms:
            for pat in alts:
                hits = sorted(glob.glob(os.path.join(d, pat + '.trace.json')))
                if hits:
                    paths.append(hits[0])
                    break
        if len(paths) < 2:
            print('render: %s: traces missing, no picture' % tech)
            continue
        out = os.path.join(out_dir, tech + '.png')
        try:
            render(paths, out, caption=caption)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print('render: %s: no picture (%s: %s)' % (tech, type(e).__name__, e))
            continue
        written.append(out)
        print('render: %s' % out)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace', nargs='?', help='one .trace.json')
    ap.add_argument('--pair', nargs='+', metavar='TRACE',
                    help='two or more .trace.json, slow form first')
    ap.add_argument('--demo', metavar='DIR',
                    help='render every technique from make demo\'s traces in DIR')
    ap.add_argument('--out-dir', help='with --demo: where to write (default DIR)')
    ap.add_argument('-o', '--output', help='output file (.png, .svg or .pdf)')
    ap.add_argument('--all-lanes', action='store_true',
                    help='draw every lane, idle ones too')
    ap.add_argument('--no-flows', action='store_true', help='no dependency arrows')
    ap.add_argument('--title', help='a title above the panels')
    ap.add_argument('--caption', help='a line under the picture')
    args = ap.parse_args()
    import_mpl()    # before any output: it may run the script again
    if args.demo:
        demo(args.demo, args.out_dir or args.demo)
        return 0
    paths = args.pair or ([args.trace] if args.trace else None)
    if not paths:
        ap.error('give a TRACE, --pair SLOW FAST or --demo DIR')
    if args.pair and len(args.pair) < 2:
        ap.error('--pair needs at least two traces')
    out = args.output
    if not out:
        p = paths[0]
        out = (p[:-len('.trace.json')] if p.endswith('.trace.json') else p) + '.png'
    render(paths, out, all_lanes=args.all_lanes, flows=not args.no_flows,
           title=args.title, caption=args.caption)
    print(out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
