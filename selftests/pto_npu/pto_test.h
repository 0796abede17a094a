/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every pto_npu kselftest includes: the kselftest harness, set up for
 * the project's warnings and the run's time factor, and the shared helpers
 * (lib/pto_test_lib.h; define PTO_TEST_LIBPTO first for the ones that use
 * libpto). The helpers are compiled once, in lib/, and linked into every
 * kselftest.
 *
 * The harness defines its fixture list and a global object in the file
 * that includes it, so it is included by a test's one source file (with
 * TEST_HARNESS_MAIN), never by a helper file.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#ifndef PTO_TEST_H
#define PTO_TEST_H

#include "lib/pto_test_lib.h"

/*
 * The harness is written for -Wall; the project builds with -Wextra too.
 * Its timeout handler has an unused parameter, and its TEST_F() wrapper
 * reads a local ("child") after longjmp() that it set after setjmp(), which
 * -Wclobbered reports in every test. The effect (checked with GCC 12 -O2):
 * after a failed ASSERT_*() the test process may skip FIXTURE_TEARDOWN()
 * before it aborts; the failure is still reported. So the teardowns here
 * only release what process exit releases anyway (fds, mappings).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

/*
 * The harness's per-test timeouts times the time factor (see
 * pto_time_factor()). Here, not in lib/: the fixture list is the
 * harness's static variable of this file.
 */
static inline void pto_test_scale_timeouts(void)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout = (int)(t->timeout * pto_time_factor() + 0.5);
}

#undef TEST_HARNESS_MAIN
#define TEST_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		pto_test_scale_timeouts(); \
		return test_harness_run(argc, argv); \
	}

#endif /* PTO_TEST_H */
