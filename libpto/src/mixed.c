// SPDX-License-Identifier: MIT
/*
 * Mixed tasks: the build-time rules of the cross-core ring between a
 * cluster's AIC and its AIVs. The device applies the same rules when it
 * takes the task (and refuses with PTO_REASON_RING or
 * PTO_REASON_SLOT_BUDGET); here they are checked where the task is built,
 * with a message in the program's terms that says what would fit.
 *
 * The ring of one block lives in each participating AIV's UB, after the
 * vector kernel's tiles (64-byte aligned): slot_num cube-to-vector slots
 * of one AIV's share of the AIC's PUSH tile, then slot_num vector-to-cube
 * slots of one AIV's PUSH tile.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

_Static_assert((int)PTO_SPLIT_NONE == DRM_PTO_NPU_SPLIT_NONE &&
		       (int)PTO_SPLIT_UP_DOWN == DRM_PTO_NPU_SPLIT_UP_DOWN,
	       "public split modes mirror the uapi");
_Static_assert(PTO_DEFAULT_SLOT_NUM == DRM_PTO_NPU_DEFAULT_SLOT_NUM &&
		       PTO_MAX_SLOT_NUM == DRM_PTO_NPU_MAX_SLOT_NUM,
	       "public slot counts mirror the uapi");

static __attribute__((format(printf, 4, 5))) int
pto_mixed_fail(char *msg, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && len) {
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Bytes of one part's share of a ring tile: rows / parts x cols. */
static uint64_t pto_ring_share(const struct pto_ring_use *u, uint32_t parts)
{
	if (!u->used)
		return 0;
	return (uint64_t)(u->rows / parts) * u->cols * pto_dtype_size(u->dtype);
}

/* "f32 64x64" */
static const char *pto_ring_str(char *buf, size_t len,
				const struct pto_ring_use *u)
{
	snprintf(buf, len, "%s %ux%u", pto_dtype_name(u->dtype), u->rows,
		 u->cols);
	return buf;
}

/*
 * One direction of the ring: the AIC's tile (@cube) against one AIV's
 * (@vec) under @parts. @dir is "AIC -> AIV" or "AIV -> AIC".
 */
static int pto_ring_dir(const struct pto_ring_use *cube,
			const struct pto_ring_use *vec, uint32_t parts,
			const char *dir, const char *cube_op,
			const char *vec_op, char *msg, size_t len)
{
	const char *split = parts == 2 ? "UP_DOWN" : "NONE";
	char s1[48], s2[48];

	if (cube->used && cube->rows % parts)
		return pto_mixed_fail(
			msg, len, -EINVAL,
			"cross-core ring %s: the AIC %s %s tiles, whose %u rows do not split between the 2 AIVs of UP_DOWN",
			dir, cube_op, pto_ring_str(s1, sizeof(s1), cube),
			cube->rows);
	if (!cube->used || !vec->used)
		return 0;
	if (cube->rows == vec->rows * parts && cube->cols == vec->cols &&
	    cube->dtype == vec->dtype)
		return 0;
	return pto_mixed_fail(
		msg, len, -EINVAL,
		"cross-core ring %s: the AIC %s %s tiles but the AIV %s %s; under %s each AIV takes %s of %s %ux%u",
		dir, cube_op, pto_ring_str(s1, sizeof(s1), cube), vec_op,
		pto_ring_str(s2, sizeof(s2), vec), split,
		parts == 2 ? "half the rows" : "the whole tile",
		pto_dtype_name(cube->dtype), cube->rows / parts, cube->cols);
}

int pto_mixed_verify(const struct pto_kernel *aic, const struct pto_kernel *aiv,
		     uint32_t split_mode, uint32_t slot_num, uint32_t ub_size,
		     char *msg, size_t len)
{
	uint32_t parts, slots;
	uint64_t c2v, v2c, per, base, fit;
	char s1[32], s2[32], s3[32];
	int ret;

	if (msg && len)
		msg[0] = '\0';
	if (!aic || !aiv)
		return pto_mixed_fail(msg, len, -EINVAL,
				      "a mixed task needs an AIC and an AIV kernel");
	if (aic->core_type != PTO_CORE_AIC || aiv->core_type != PTO_CORE_AIV)
		return pto_mixed_fail(
			msg, len, -EINVAL,
			"a mixed task pairs an AIC kernel with an AIV kernel, not %s with %s",
			aic->core_type == PTO_CORE_AIC ? "AIC" : "AIV",
			aiv->core_type == PTO_CORE_AIC ? "AIC" : "AIV");
	if (aic->dev != aiv->dev)
		return pto_mixed_fail(msg, len, -EINVAL,
				      "the AIC and AIV kernels are of different devices");
	if (split_mode > PTO_SPLIT_UP_DOWN)
		return pto_mixed_fail(
			msg, len, -EINVAL,
			"split_mode %u is neither PTO_SPLIT_NONE (0) nor PTO_SPLIT_UP_DOWN (1)",
			split_mode);
	if (slot_num > PTO_MAX_SLOT_NUM)
		return pto_mixed_fail(msg, len, -EINVAL,
				      "slot_num %u over the most, %u", slot_num,
				      PTO_MAX_SLOT_NUM);
	parts = split_mode == PTO_SPLIT_UP_DOWN ? 2 : 1;
	ret = pto_ring_dir(&aic->push, &aiv->pop, parts, "AIC -> AIV",
			   "pushes", "pops", msg, len);
	if (!ret)
		ret = pto_ring_dir(&aic->pop, &aiv->push, parts, "AIV -> AIC",
				   "pops", "pushes", msg, len);
	if (ret)
		return ret;

	/* A slot holds one AIV's share; a side that never moves the tile
	 * still has the other side's shape. */
	c2v = aic->push.used ? pto_ring_share(&aic->push, parts) :
			       pto_ring_share(&aiv->pop, 1);
	v2c = aic->pop.used ? pto_ring_share(&aic->pop, parts) :
			      pto_ring_share(&aiv->push, 1);
	per = c2v + v2c;
	slots = slot_num ? slot_num : PTO_DEFAULT_SLOT_NUM;
	base = ((uint64_t)aiv->ub_used + 63) & ~(uint64_t)63;
	if (!ub_size || base + slots * per <= ub_size)
		return 0;
	fit = base < ub_size && per ? (ub_size - base) / per : 0;
	if (fit > PTO_MAX_SLOT_NUM)
		fit = PTO_MAX_SLOT_NUM;
	pto_fmt_size(s1, sizeof(s1), per);
	pto_fmt_size(s2, sizeof(s2), base);
	pto_fmt_size(s3, sizeof(s3), ub_size);
	if (!fit)
		return pto_mixed_fail(
			msg, len, -ENOSPC,
			"cross-core ring: %u slots x %s + %s of tiles exceed the %s UB; no slot_num fits: shrink the vector kernel's tiles or the ring tile",
			slots, s1, s2, s3);
	return pto_mixed_fail(
		msg, len, -ENOSPC,
		"cross-core ring: %u slots x %s + %s of tiles exceed the %s UB; slot_num <= %llu fits",
		slots, s1, s2, s3, (unsigned long long)fit);
}

PTO_API int pto_mixed_check(const struct pto_kernel *aic,
			    const struct pto_kernel *aiv,
			    enum pto_split_mode split_mode,
			    unsigned int slot_num, char *msg, size_t len)
{
	const struct pto_device *dev = aiv ? aiv->dev : NULL;

	return pto_mixed_verify(aic, aiv, (uint32_t)split_mode, slot_num,
				dev ? dev->info.aiv_ub_size : 0, msg, len);
}
