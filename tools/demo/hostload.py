#!/usr/bin/env python3
"""Run a command and measure how busy the host was beside it.

usage: hostload.py OUT.json COMMAND [ARG...]

make demo's boots run under qemu's software emulation, every vCPU a host
thread: what else the host runs meanwhile takes their CPUs and stretches
the timings. This runs COMMAND (tools/vm/vm.sh), and writes to OUT.json
the host's busy CPU time over the run (/proc/stat: all but idle and
iowait), the CPU time of COMMAND and its descendants (getrusage of the
children: qemu, the module build), and the difference as the average
number of CPUs that other processes kept busy ("others_cpus"). Exits with
COMMAND's status. tools/demo/summary.py reads the files: a boot beside
LOADED_CPUS or more of other work is under load, and its timing rows are
then reported, not judged.
"""
import json
import os
import resource
import subprocess
import sys
import time

# Other processes' average CPUs beside a boot from which it is under load:
# half a CPU of a 2-CPU host is a vCPU's host thread descheduled a quarter
# of the time.
LOADED_CPUS = 0.5


def host_busy_s():
    """The host's busy CPU seconds since boot, all CPUs (/proc/stat)."""
    with open('/proc/stat') as f:
        vals = [int(v) for v in f.readline().split()[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    return (sum(vals[:8]) - idle) / os.sysconf('SC_CLK_TCK')


def children_s():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def measure(cmd):
    """Run @cmd; returns (its exit status, the load figures)."""
    w0, b0, c0 = time.monotonic(), host_busy_s(), children_s()
    rc = subprocess.call(cmd)
    wall = time.monotonic() - w0
    busy, ours = host_busy_s() - b0, children_s() - c0
    others = max(0.0, busy - ours) / wall if wall > 0 else 0.0
    return rc, {'command': os.path.basename(cmd[0]), 'wall_s': round(wall, 1),
                'host_cpus': os.cpu_count(),
                'host_busy_cpus': round(busy / wall, 3) if wall > 0 else 0.0,
                'ours_cpus': round(ours / wall, 3) if wall > 0 else 0.0,
                'others_cpus': round(others, 3), 'loaded_from_cpus': LOADED_CPUS,
                'loaded': others >= LOADED_CPUS}


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    rc, load = measure(sys.argv[2:])
    with open(sys.argv[1], 'w') as f:
        json.dump(load, f, indent=1)
        f.write('\n')
    print('demo: beside this boot other processes kept %.2f of the host\'s %d CPUs busy%s' %
          (load['others_cpus'], load['host_cpus'],
           ' (under load: a timing row that does not clear its noise is reported, not '
           'judged)' if load['loaded'] else ''))
    return rc


if __name__ == '__main__':
    sys.exit(main())
