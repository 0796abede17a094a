// SPDX-License-Identifier: MIT
/* pto_strerror(): library wording, fallback, and odd inputs. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <pto/pto.h>

#include "tap.h"

static void strerror_library_wording(void)
{
	TAP_CHECK(!strcmp(pto_strerror(-ENODEV), "not a pto_npu device"));
	TAP_CHECK(!strcmp(pto_strerror(0), "success"));
	TAP_CHECK(strstr(pto_strerror(-ENOSPC), "GM"));
	TAP_CHECK(strstr(pto_strerror(-ERANGE), "buffer"));
	TAP_CHECK(strstr(pto_strerror(-EOVERFLOW), "overflow"));
	TAP_CHECK(strstr(pto_strerror(-EPROTO), "pto_npu"));
}

static void strerror_positive_same_as_negative(void)
{
	TAP_CHECK(pto_strerror(ENODEV) == pto_strerror(-ENODEV));
	TAP_CHECK(!strcmp(pto_strerror(EINVAL), pto_strerror(-EINVAL)));
	TAP_CHECK(!strcmp(pto_strerror(EBUSY), pto_strerror(-EBUSY)));
}

static void strerror_every_errno_has_text(void)
{
	int e;

	for (e = 0; e < 200; e++) {
		const char *s = pto_strerror(-e);

		TAP_CHECK(s && *s);
	}
}

static void strerror_libc_fallback(void)
{
	/* Not given a library meaning: the C library's text. */
	TAP_CHECK(!strcmp(pto_strerror(-EBUSY), strerror(EBUSY)));
	TAP_CHECK(!strcmp(pto_strerror(-ETIMEDOUT), strerror(ETIMEDOUT)));
}

static void strerror_odd_values(void)
{
	TAP_CHECK(!strcmp(pto_strerror(INT_MIN), "unknown error"));
	TAP_CHECK(!strcmp(pto_strerror(INT_MAX), "unknown error"));
	TAP_CHECK(!strcmp(pto_strerror(-100000), "unknown error"));
}

TAP_MAIN(TAP_TEST(strerror_library_wording),
	 TAP_TEST(strerror_positive_same_as_negative),
	 TAP_TEST(strerror_every_errno_has_text),
	 TAP_TEST(strerror_libc_fallback), TAP_TEST(strerror_odd_values))
