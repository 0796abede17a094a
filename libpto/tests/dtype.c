// SPDX-License-Identifier: MIT
/* The dtype table: sizes, names, signedness, and invalid values. */
#include <string.h>

#include <pto/pto.h>

#include "tap.h"

static const struct {
	enum pto_dtype dtype;
	size_t size;
	const char *name;
	bool signed_int;
} expect[] = {
	{ PTO_DTYPE_F32, 4, "f32", false }, { PTO_DTYPE_I8, 1, "i8", true },
	{ PTO_DTYPE_I16, 2, "i16", true },  { PTO_DTYPE_I32, 4, "i32", true },
	{ PTO_DTYPE_I64, 8, "i64", true },  { PTO_DTYPE_U8, 1, "u8", false },
	{ PTO_DTYPE_U16, 2, "u16", false }, { PTO_DTYPE_U32, 4, "u32", false },
	{ PTO_DTYPE_U64, 8, "u64", false },
};

#define NEXPECT (sizeof(expect) / sizeof(expect[0]))

static void dtype_values_start_at_one(void)
{
	size_t i;

	for (i = 0; i < NEXPECT; i++)
		TAP_CHECK_EQ(expect[i].dtype, i + 1);
}

static void dtype_sizes(void)
{
	size_t i;

	for (i = 0; i < NEXPECT; i++)
		TAP_CHECK_EQ(pto_dtype_size(expect[i].dtype), expect[i].size);
}

static void dtype_names(void)
{
	size_t i;

	for (i = 0; i < NEXPECT; i++)
		TAP_CHECK(!strcmp(pto_dtype_name(expect[i].dtype),
				  expect[i].name));
}

static void dtype_signed_int(void)
{
	size_t i;

	for (i = 0; i < NEXPECT; i++)
		TAP_CHECK_EQ(pto_dtype_is_signed_int(expect[i].dtype),
			     expect[i].signed_int);
}

static void dtype_invalid_refused(void)
{
	const int bad[] = { 0, (int)NEXPECT + 1, 64, -1, 0x7fffffff };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum pto_dtype d = (enum pto_dtype)bad[i];

		TAP_CHECK_EQ(pto_dtype_size(d), 0);
		TAP_CHECK(!strcmp(pto_dtype_name(d), "invalid"));
		TAP_CHECK(!pto_dtype_is_signed_int(d));
	}
}

TAP_MAIN(TAP_TEST(dtype_values_start_at_one), TAP_TEST(dtype_sizes),
	 TAP_TEST(dtype_names), TAP_TEST(dtype_signed_int),
	 TAP_TEST(dtype_invalid_refused))
