# SPDX-License-Identifier: MIT
"""python/tests under pytest, reported as TAP (tools/vm/init.sh python_suite).

Run from the checkout: PYTHONPATH=python PTO_LIBPTO=<build>/lib/libpto.so
/usr/bin/python3 python/tests/run.py [pytest args].
"""

import os
import sys

import pytest


class Tap:
    """A pytest plugin: one TAP line per test, the plan at the end."""

    def __init__(self):
        self.n = 0

    def pytest_runtest_logreport(self, report):
        if report.when == "setup":
            self.setup_s = report.duration
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.n += 1
            name = report.nodeid
            # Where make check's time goes (setup: fixtures, imports).
            print("# %s: %.1f s (setup %.1f s)" % (name, report.duration,
                                                   getattr(self, "setup_s", 0.0)))
            if report.passed:
                print("ok %d %s" % (self.n, name))
            elif report.skipped:
                print("ok %d %s # SKIP" % (self.n, name))
            else:
                print("not ok %d %s" % (self.n, name))
                for line in str(report.longrepr).splitlines():
                    print("# " + line)
            sys.stdout.flush()

    def pytest_sessionfinish(self):
        print("1..%d" % self.n)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    tap = Tap()
    rc = pytest.main(["-p", "no:terminal", "-p", "no:cacheprovider", "-s", here] + sys.argv[1:],
                     plugins=[tap])
    return 0 if rc == 0 and tap.n > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
