// SPDX-License-Identifier: MIT
/*
 * The dtype table: one row per enum pto_dtype, so a new type is one line.
 */
#include "internal.h"

struct pto_dtype_desc {
	const char *name;
	size_t size;
	bool signed_int;
};

static const struct pto_dtype_desc pto_dtypes[] = {
	[PTO_DTYPE_F32] = { "f32", 4, false },
	[PTO_DTYPE_I8] = { "i8", 1, true },
	[PTO_DTYPE_I16] = { "i16", 2, true },
	[PTO_DTYPE_I32] = { "i32", 4, true },
	[PTO_DTYPE_I64] = { "i64", 8, true },
	[PTO_DTYPE_U8] = { "u8", 1, false },
	[PTO_DTYPE_U16] = { "u16", 2, false },
	[PTO_DTYPE_U32] = { "u32", 4, false },
	[PTO_DTYPE_U64] = { "u64", 8, false },
};

static const struct pto_dtype_desc *pto_dtype_desc(enum pto_dtype dtype)
{
	/* Through unsigned: an enum holding a negative value is refused too. */
	unsigned int i = (unsigned int)dtype;

	if (i >= PTO_ARRAY_SIZE(pto_dtypes) || !pto_dtypes[i].name)
		return NULL;
	return &pto_dtypes[i];
}

PTO_API size_t pto_dtype_size(enum pto_dtype dtype)
{
	const struct pto_dtype_desc *d = pto_dtype_desc(dtype);

	return d ? d->size : 0;
}

PTO_API const char *pto_dtype_name(enum pto_dtype dtype)
{
	const struct pto_dtype_desc *d = pto_dtype_desc(dtype);

	return d ? d->name : "invalid";
}

PTO_API bool pto_dtype_is_signed_int(enum pto_dtype dtype)
{
	const struct pto_dtype_desc *d = pto_dtype_desc(dtype);

	return d && d->signed_int;
}
