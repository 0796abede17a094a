/* SPDX-License-Identifier: MIT */
/*
 * A tiny TAP producer for libpto's host unit tests.
 *
 * A test is a function returning nothing; TAP_CHECK() records a failure
 * (with a "#" diagnostic) and lets the test go on. TAP_MAIN() runs a table
 * of tests: prints "1..N", one "ok"/"not ok" line per test, and exits
 * non-zero if any failed.
 */
#ifndef PTO_TESTS_TAP_H
#define PTO_TESTS_TAP_H

#include <stdio.h>
#include <stdlib.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
};

static int tap_failures;

#define TAP_CHECK(cond)                                                   \
	do {                                                              \
		if (!(cond)) {                                            \
			printf("#   %s:%d: check failed: %s\n", __FILE__, \
			       __LINE__, #cond);                          \
			tap_failures++;                                   \
		}                                                         \
	} while (0)

/* Compare two integers, printing both on a mismatch. */
#define TAP_CHECK_EQ(got, want)                                            \
	do {                                                               \
		long long tap_g_ = (long long)(got);                       \
		long long tap_w_ = (long long)(want);                      \
		if (tap_g_ != tap_w_) {                                    \
			printf("#   %s:%d: %s == %lld, want %s == %lld\n", \
			       __FILE__, __LINE__, #got, tap_g_, #want,    \
			       tap_w_);                                    \
			tap_failures++;                                    \
		}                                                          \
	} while (0)

/* clang-format off */
#define TAP_TEST(fn) { #fn, fn }
/* clang-format on */

static inline int tap_run(const struct tap_test *tests, size_t n)
{
	int failed = 0;
	size_t i;

	printf("1..%zu\n", n);
	for (i = 0; i < n; i++) {
		int before = tap_failures;

		tests[i].fn();
		if (tap_failures != before)
			failed++;
		printf("%s %zu - %s\n",
		       tap_failures != before ? "not ok" : "ok", i + 1,
		       tests[i].name);
		fflush(stdout);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#define TAP_MAIN(...)                                                        \
	int main(void)                                                       \
	{                                                                    \
		static const struct tap_test tap_tests_[] = { __VA_ARGS__ }; \
		return tap_run(tap_tests_,                                   \
			       sizeof(tap_tests_) / sizeof(tap_tests_[0]));  \
	}

#endif /* PTO_TESTS_TAP_H */
