// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the kernel verifier, pto_verify(). One case per refusal path of
 * pto_verify() and its helpers (return code, failing index, log text), and
 * programs it must accept (with what it fills into struct pto_kernel).
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../pto_kernel.h"

static const struct pto_topology pto_vtopo = {
	.clusters = 24,
	.aiv_ub = 192 * SZ_1K,
	.aic_l1 = 512 * SZ_1K,
	.aic_l0a = 64 * SZ_1K,
	.aic_l0b = 64 * SZ_1K,
	.aic_l0c = 128 * SZ_1K,
};

/*
 * AIV tiles used by most vector cases:
 * t0..t2 f32 8x16, t3 f32 8x1, t4 i32 8x16, t5 f32 16x8, t6 i32 8x1,
 * t7 f32 16x1.
 */
static const struct pto_tile_decl pto_aiv_tiles[] = {
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 8, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 8, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 8, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 8, .cols = 1 },
	{ .dtype = PTO_ISA_I32, .buf = PTO_BUF_UB, .rows = 8, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 16, .cols = 8 },
	{ .dtype = PTO_ISA_I32, .buf = PTO_BUF_UB, .rows = 8, .cols = 1 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 16, .cols = 1 },
};

/*
 * AIC tiles: t0 L0A f32 16x32, t1 L0B f32 32x16, t2 L0C f32 16x16 (a good
 * matmul), t3 L1 f32 16x32, t4 L1 f32 32x16, t5..t7 the i32 twins of
 * t0..t2, t8 L0B f32 16x16 (K mismatch), t9 L0C f32 8x16 (M mismatch),
 * t10 L0C f32 16x8 (N mismatch), t11 L1 f32 16x16.
 */
static const struct pto_tile_decl pto_aic_tiles[] = {
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0A, .rows = 16, .cols = 32 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0B, .rows = 32, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0C, .rows = 16, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L1, .rows = 16, .cols = 32 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L1, .rows = 32, .cols = 16 },
	{ .dtype = PTO_ISA_I32, .buf = PTO_BUF_L0A, .rows = 16, .cols = 32 },
	{ .dtype = PTO_ISA_I32, .buf = PTO_BUF_L0B, .rows = 32, .cols = 16 },
	{ .dtype = PTO_ISA_I32, .buf = PTO_BUF_L0C, .rows = 16, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0B, .rows = 16, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0C, .rows = 8, .cols = 16 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0C, .rows = 16, .cols = 8 },
	{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L1, .rows = 16, .cols = 16 },
};

/* What one pto_verify() call returned. */
struct pto_vres {
	struct pto_kernel *k;
	int ret;
	u32 err;
	char log[PTO_VERIFIER_LOG_MAX];
};

static struct pto_vres *pto_vrun(struct kunit *test, u32 core,
				 const struct pto_insn *insns, u32 n,
				 const struct pto_tile_decl *tiles, u32 nt)
{
	struct pto_vres *r;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->k = kunit_kzalloc(test, sizeof(*r->k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->k);
	r->k->match = kunit_kcalloc(test, max(n, 1U), sizeof(*r->k->match),
				    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->k->match);
	r->k->num_insns = n;
	/* Garbage the verifier must overwrite. */
	memset(r->log, 'x', sizeof(r->log) - 1);
	r->err = 0x5a5a5a5a;
	r->ret = pto_verify(&pto_vtopo, core, insns, n, tiles, nt, r->k,
			    &r->err, r->log, sizeof(r->log));
	return r;
}

/* Verify the program { @in, END }. */
static struct pto_vres *pto_vrun1(struct kunit *test, u32 core,
				  const struct pto_insn *in,
				  const struct pto_tile_decl *tiles, u32 nt)
{
	struct pto_insn *prog;

	prog = kunit_kcalloc(test, 2, sizeof(*prog), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, prog);
	prog[0] = *in;
	prog[1].op = PTO_OP_END;
	return pto_vrun(test, core, prog, 2, tiles, nt);
}

static void pto_vexpect_ok(struct kunit *test, const struct pto_vres *r)
{
	KUNIT_EXPECT_EQ_MSG(test, r->ret, DRM_PTO_NPU_VERIFY_OK, "log: %s",
			    r->log);
	KUNIT_EXPECT_EQ(test, r->err, U32_MAX);
	KUNIT_EXPECT_STREQ(test, r->log, "");
}

/* Refused with @code at @idx, and the log is "<what> <idx>: ...@msg...". */
static void pto_vexpect_at(struct kunit *test, const struct pto_vres *r,
			   int code, const char *what, u32 idx, const char *msg)
{
	char prefix[24];

	snprintf(prefix, sizeof(prefix), "%s %u: ", what, idx);
	KUNIT_EXPECT_EQ_MSG(test, r->ret, code, "want \"%s\", log: %s", msg,
			    r->log);
	KUNIT_EXPECT_EQ_MSG(test, r->err, idx, "want \"%s\", log: %s", msg,
			    r->log);
	KUNIT_EXPECT_EQ_MSG(test, strncmp(r->log, prefix, strlen(prefix)), 0,
			    "want prefix \"%s\", log: %s", prefix, r->log);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(r->log, msg),
				  "want \"%s\", log: %s", msg, r->log);
}

/* Refused at instruction @idx. */
static void pto_vexpect(struct kunit *test, const struct pto_vres *r,
			int code, u32 idx, const char *msg)
{
	pto_vexpect_at(test, r, code, "insn", idx, msg);
}

/* Refused at tile declaration @idx. */
static void pto_vexpect_tile(struct kunit *test, const struct pto_vres *r,
			     int code, u32 idx, const char *msg)
{
	pto_vexpect_at(test, r, code, "tile", idx, msg);
}

/* A table entry: one instruction (followed by END) and its refusal. */
struct pto_vcase {
	struct pto_insn in;
	int code;
	const char *msg;
};

static void pto_vcases(struct kunit *test, u32 core,
		       const struct pto_tile_decl *tiles, u32 nt,
		       const struct pto_vcase *c, size_t num)
{
	size_t i;

	for (i = 0; i < num; i++) {
		struct pto_vres *r = pto_vrun1(test, core, &c[i].in, tiles, nt);

		if (c[i].code)
			pto_vexpect(test, r, c[i].code, 0, c[i].msg);
		else
			pto_vexpect_ok(test, r);
	}
}

/* ------------------------------------------------------------ whole program */

static void pto_verify_empty(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	struct pto_vres *r = pto_vrun(test, PTO_CORE_AIV, prog, 0, NULL, 0);

	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_EMPTY, 0, "empty program");
}

static void pto_verify_too_long(struct kunit *test)
{
	struct pto_insn *prog;
	struct pto_vres *r;

	/* All zero: PTO_MAX_INSNS + 1 END instructions. */
	prog = kunit_kcalloc(test, PTO_MAX_INSNS + 1, sizeof(*prog), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, prog);

	r = pto_vrun(test, PTO_CORE_AIV, prog, PTO_MAX_INSNS + 1, NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_TOO_LONG, PTO_MAX_INSNS,
		    "4097 instructions, at most 4096");

	r = pto_vrun(test, PTO_CORE_AIV, prog, PTO_MAX_INSNS, NULL, 0);
	pto_vexpect_ok(test, r);
}

static void pto_verify_bad_core_type(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	static const u32 bad[] = { 0, 3, 255, U32_MAX };
	struct pto_vres *r;
	char msg[48];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		r = pto_vrun(test, bad[i], prog, 1, NULL, 0);
		snprintf(msg, sizeof(msg), "core type %u is neither AIV nor AIC",
			 bad[i]);
		pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_CORE_TYPE, 0, msg);
	}
	/* Checked before anything else, even an empty program. */
	r = pto_vrun(test, 0, prog, 0, NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_CORE_TYPE, 0, "neither AIV");
}

static void pto_verify_no_end(struct kunit *test)
{
	static const struct pto_insn prog1[] = {
		{ .op = PTO_OP_LDI, .dst = 1, .imm = 7 },
	};
	static const struct pto_insn prog2[] = {
		{ .op = PTO_OP_END },
		{ .op = PTO_OP_LDI, .dst = 1, .imm = 7 },
	};
	/* An END in the middle does not count. */
	static const struct pto_insn prog3[] = {
		{ .op = PTO_OP_LDI, .dst = 1, .imm = 7 },
		{ .op = PTO_OP_END },
		{ .op = PTO_OP_FENCE },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, prog1, ARRAY_SIZE(prog1), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_NO_END, 0,
		    "the last instruction must be END");
	r = pto_vrun(test, PTO_CORE_AIV, prog2, ARRAY_SIZE(prog2), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_NO_END, 1,
		    "the last instruction must be END");
	r = pto_vrun(test, PTO_CORE_AIC, prog3, ARRAY_SIZE(prog3), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_NO_END, 2,
		    "the last instruction must be END");
}

static void pto_verify_log_buffer(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = 0xff } };
	struct pto_kernel *k;
	char small[8];
	u32 err = 0;

	k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	k->match = kunit_kcalloc(test, 1, sizeof(*k->match), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k->match);

	/* No log at all. */
	KUNIT_EXPECT_EQ(test, pto_verify(&pto_vtopo, PTO_CORE_AIV, prog, 1,
					 NULL, 0, k, &err, NULL, 0),
			DRM_PTO_NPU_VERIFY_BAD_OPCODE);
	KUNIT_EXPECT_EQ(test, err, 0U);

	/* A short log is truncated and stays NUL terminated. */
	memset(small, 'x', sizeof(small));
	err = 7;
	KUNIT_EXPECT_EQ(test, pto_verify(&pto_vtopo, PTO_CORE_AIV, prog, 1,
					 NULL, 0, k, &err, small,
					 sizeof(small)),
			DRM_PTO_NPU_VERIFY_BAD_OPCODE);
	KUNIT_EXPECT_EQ(test, err, 0U);
	KUNIT_EXPECT_STREQ(test, small, "insn 0:");
}

/* ------------------------------------------------------- tile declarations */

static void pto_verify_tile_dtype_unsigned(struct kunit *test)
{
	static const u8 bad[] = {
		0, PTO_ISA_U8, PTO_ISA_U16, PTO_ISA_U32, PTO_ISA_U64, 10, 255,
	};
	static const u8 good[] = {
		PTO_ISA_F32, PTO_ISA_I8, PTO_ISA_I16, PTO_ISA_I32, PTO_ISA_I64,
	};
	static const u8 esize[] = { 4, 1, 2, 4, 8 };
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	struct pto_tile_decl d[2] = {
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 1, .cols = 16 },
		{ .buf = PTO_BUF_UB, .rows = 4, .cols = 4 },
	};
	struct pto_vres *r;
	char msg[48];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		d[1].dtype = bad[i];
		r = pto_vrun(test, PTO_CORE_AIV, prog, 1, d, 2);
		snprintf(msg, sizeof(msg), "dtype %u is not a tile type",
			 bad[i]);
		pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL, 1, msg);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		d[1].dtype = good[i];
		r = pto_vrun(test, PTO_CORE_AIV, prog, 1, d, 2);
		pto_vexpect_ok(test, r);
		KUNIT_EXPECT_EQ(test, r->k->tiles[1].dtype, good[i]);
		KUNIT_EXPECT_EQ(test, r->k->tiles[1].esize, esize[i]);
	}
}

static void pto_verify_tile_zero_dim(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	struct pto_tile_decl d = {
		.dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 0, .cols = 16,
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, &d, 1);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL, 0,
			 "shape 0x16 outside 1..4096");
	d.rows = 4;
	d.cols = 0;
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, &d, 1);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL, 0,
			 "shape 4x0 outside 1..4096");
}

static void pto_verify_tile_dim_too_big(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	struct pto_tile_decl d = {
		.dtype = PTO_ISA_I8, .buf = PTO_BUF_UB,
		.rows = PTO_MAX_TILE_DIM + 1, .cols = 1,
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, &d, 1);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL, 0,
			 "shape 4097x1 outside 1..4096");
	d.rows = 1;
	d.cols = PTO_MAX_TILE_DIM + 1;
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, &d, 1);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL, 0,
			 "shape 1x4097 outside 1..4096");
	/* rows * cols would wrap a u32. */
	d.rows = U32_MAX;
	d.cols = U32_MAX;
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, &d, 1);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL, 0,
			 "shape 4294967295x4294967295 outside");

	/* The limit itself is a tile shape. */
	d.rows = PTO_MAX_TILE_DIM;
	d.cols = 1;
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, &d, 1);
	pto_vexpect_ok(test, r);
	d.rows = 1;
	d.cols = PTO_MAX_TILE_DIM;
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, &d, 1);
	pto_vexpect_ok(test, r);
}

static void pto_verify_too_many_tiles(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	struct pto_tile_decl *d;
	struct pto_vres *r;
	u32 i;

	d = kunit_kcalloc(test, PTO_NUM_TREGS + 1, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	for (i = 0; i <= PTO_NUM_TREGS; i++) {
		d[i].dtype = PTO_ISA_I8;
		d[i].buf = PTO_BUF_UB;
		d[i].rows = 1;
		d[i].cols = 1;
	}
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, d, PTO_NUM_TREGS + 1);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL, PTO_NUM_TREGS + 1,
			 "17 tiles declared, at most 16");

	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, d, PTO_NUM_TREGS);
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->num_tiles, PTO_NUM_TREGS);
}

static void pto_verify_tile_reserved(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	struct pto_tile_decl d[2] = {
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 1, .cols = 16 },
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 1, .cols = 16 },
	};
	struct pto_vres *r;

	d[1].pad = 1;
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, d, 2);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_RESERVED_FIELD, 1,
			 "reserved field not zero");
	d[1].pad = 0;
	d[1].reserved = 0x80000000;
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, d, 2);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_RESERVED_FIELD, 1,
			 "reserved field not zero");
}

static void pto_verify_tile_buf_decl(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	static const u8 not_aiv[] = {
		0, PTO_BUF_L1, PTO_BUF_L0A, PTO_BUF_L0B, PTO_BUF_L0C, 6, 255,
	};
	static const u8 not_aic[] = { 0, PTO_BUF_UB, 6, 255 };
	struct pto_tile_decl d = {
		.dtype = PTO_ISA_F32, .rows = 4, .cols = 16,
	};
	struct pto_vres *r;
	char msg[80];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(not_aiv); i++) {
		d.buf = not_aiv[i];
		r = pto_vrun(test, PTO_CORE_AIV, prog, 1, &d, 1);
		snprintf(msg, sizeof(msg),
			 "buffer %u is not a local buffer of this core type",
			 not_aiv[i]);
		pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_TILE_BUF, 0, msg);
	}
	for (i = 0; i < ARRAY_SIZE(not_aic); i++) {
		d.buf = not_aic[i];
		r = pto_vrun(test, PTO_CORE_AIC, prog, 1, &d, 1);
		snprintf(msg, sizeof(msg),
			 "buffer %u is not a local buffer of this core type",
			 not_aic[i]);
		pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_TILE_BUF, 0, msg);
	}
	for (i = PTO_BUF_L1; i <= PTO_BUF_L0C; i++) {
		d.buf = i;
		r = pto_vrun(test, PTO_CORE_AIC, prog, 1, &d, 1);
		pto_vexpect_ok(test, r);
	}
}

/* ------------------------------------------------------------------- budget */

static void pto_verify_budget_exact_fit(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	/* 12 x 4096 x 4 = 192 KiB: the whole UB. */
	static const struct pto_tile_decl ub[] = {
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 12, .cols = 4096 },
	};
	static const struct pto_tile_decl ub2[] = {
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 6, .cols = 4096 },
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 6, .cols = 4096 },
	};
	/* Every AIC buffer full at once: budgets are per buffer. */
	static const struct pto_tile_decl aic[] = {
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L1, .rows = 128, .cols = 1024 },
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0A, .rows = 128, .cols = 128 },
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0B, .rows = 128, .cols = 128 },
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0C, .rows = 128, .cols = 256 },
	};
	struct pto_vres *r;
	u32 i;

	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, ub, ARRAY_SIZE(ub));
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->tiles[0].offset, 0U);
	KUNIT_EXPECT_EQ(test, r->k->ub_used, 192U * SZ_1K);
	/* What a scrub after it must clear: the whole UB. */
	KUNIT_EXPECT_EQ(test, r->k->local_end, 192U * SZ_1K);

	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, ub2, ARRAY_SIZE(ub2));
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->tiles[0].offset, 0U);
	KUNIT_EXPECT_EQ(test, r->k->tiles[1].offset, 96U * SZ_1K);

	r = pto_vrun(test, PTO_CORE_AIC, prog, 1, aic, ARRAY_SIZE(aic));
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->ub_used, 0U);
	/* L1 | L0A | L0B | L0C back to back, the last one full. */
	KUNIT_EXPECT_EQ(test, r->k->local_end, (512U + 64 + 64 + 128) * SZ_1K);
	for (i = 0; i < ARRAY_SIZE(aic); i++) {
		KUNIT_EXPECT_EQ(test, r->k->tiles[i].offset, 0U);
		KUNIT_EXPECT_EQ(test, r->k->tiles[i].buf, aic[i].buf);
	}
}

static void pto_verify_budget_one_more(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	static const struct pto_tile_decl ub[] = {
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 12, .cols = 4096 },
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 1, .cols = 16 },
	};
	static const struct pto_tile_decl l0c[] = {
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_L0C, .rows = 128, .cols = 256 },
		{ .dtype = PTO_ISA_I8, .buf = PTO_BUF_L0C, .rows = 1, .cols = 1 },
	};
	/* One tile over the budget on its own. */
	static const struct pto_tile_decl big[] = {
		{ .dtype = PTO_ISA_I64, .buf = PTO_BUF_UB, .rows = 4096, .cols = 4096 },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, ub, ARRAY_SIZE(ub));
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BUDGET, 1,
			 "t1 (64 bytes) does not fit in UB: budget 196608, 196608 used");
	r = pto_vrun(test, PTO_CORE_AIC, prog, 1, l0c, ARRAY_SIZE(l0c));
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BUDGET, 1,
			 "t1 (1 bytes) does not fit in L0C: budget 131072, 131072 used");
	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, big, ARRAY_SIZE(big));
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BUDGET, 0,
			 "t0 (134217728 bytes) does not fit in UB: budget 196608, 0 used");
}

static void pto_verify_budget_alignment(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	/*
	 * 1 byte, padded to 64, then 32 x 2046 = 65472 bytes: 65536 exactly.
	 * With 32 x 2047 = 65504 bytes it would fit unpadded (65505) but not
	 * after the padding (65568).
	 */
	struct pto_tile_decl d[2] = {
		{ .dtype = PTO_ISA_I8, .buf = PTO_BUF_L0A, .rows = 1, .cols = 1 },
		{ .dtype = PTO_ISA_I8, .buf = PTO_BUF_L0A, .rows = 32, .cols = 2046 },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIC, prog, 1, d, 2);
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->tiles[0].offset, 0U);
	KUNIT_EXPECT_EQ(test, r->k->tiles[1].offset, 64U);

	d[1].cols = 2047;
	r = pto_vrun(test, PTO_CORE_AIC, prog, 1, d, 2);
	pto_vexpect_tile(test, r, DRM_PTO_NPU_VERIFY_BUDGET, 1,
			 "t1 (65504 bytes) does not fit in L0A: budget 65536, 64 used");
}

static void pto_verify_tile_offsets_aligned(struct kunit *test)
{
	static const struct pto_insn prog[] = { { .op = PTO_OP_END } };
	static const struct pto_tile_decl d[] = {
		{ .dtype = PTO_ISA_I8, .buf = PTO_BUF_UB, .rows = 1, .cols = 3 },
		{ .dtype = PTO_ISA_I16, .buf = PTO_BUF_UB, .rows = 1, .cols = 5 },
		{ .dtype = PTO_ISA_F32, .buf = PTO_BUF_UB, .rows = 3, .cols = 3 },
		{ .dtype = PTO_ISA_I64, .buf = PTO_BUF_UB, .rows = 2, .cols = 9 },
		{ .dtype = PTO_ISA_I8, .buf = PTO_BUF_UB, .rows = 1, .cols = 64 },
		{ .dtype = PTO_ISA_I8, .buf = PTO_BUF_UB, .rows = 1, .cols = 1 },
	};
	/* 3, 10, 36, 144, 64 and 1 bytes, each start rounded up to 64. */
	static const u32 want[] = { 0, 64, 128, 192, 384, 448 };
	struct pto_vres *r;
	u32 i;

	r = pto_vrun(test, PTO_CORE_AIV, prog, 1, d, ARRAY_SIZE(d));
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->num_tiles, (u32)ARRAY_SIZE(d));
	/* UB taken: up to the end of the last tile, no trailing padding. */
	KUNIT_EXPECT_EQ(test, r->k->ub_used, 449U);
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		KUNIT_EXPECT_EQ(test, r->k->tiles[i].offset % PTO_TILE_ALIGN, 0U);
		KUNIT_EXPECT_EQ(test, r->k->tiles[i].offset, want[i]);
		KUNIT_EXPECT_EQ(test, r->k->tiles[i].rows, d[i].rows);
		KUNIT_EXPECT_EQ(test, r->k->tiles[i].cols, d[i].cols);
	}
}

/* ------------------------------------------------- opcodes, flags and modes */

static void pto_verify_bad_opcode(struct kunit *test)
{
	static const u8 bad[] = {
		0x0c, 0x0f, 0x15, 0x1f, 0x2a, 0x2f, 0x33, 0x40, 0x80, 0xff,
	};
	struct pto_insn in = {};
	struct pto_vres *r;
	char msg[32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		in.op = bad[i];
		r = pto_vrun1(test, PTO_CORE_AIV, &in, NULL, 0);
		snprintf(msg, sizeof(msg), "unknown opcode 0x%02x", bad[i]);
		pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_OPCODE, 0, msg);
	}
}

static void pto_verify_bad_opcode_last(struct kunit *test)
{
	/* Opcodes are checked before the program's end. */
	static const struct pto_insn prog[] = {
		{ .op = PTO_OP_END },
		{ .op = 0x2a },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_OPCODE, 1,
		    "unknown opcode 0x2a");
}

/* SYNCALL only: PUSH and POP (0x31, 0x32) are implemented (mixed tasks). */
static void pto_verify_syncall_rules(struct kunit *test)
{
	static const struct pto_insn aic_on_aiv = {
		.op = PTO_OP_SYNCALL, .mode = PTO_SYNC_HARD, .imm = PTO_SYNC_AIC };
	static const struct pto_insn aiv_on_aic = {
		.op = PTO_OP_SYNCALL, .mode = PTO_SYNC_HARD, .imm = PTO_SYNC_AIV };
	static const struct pto_insn bad_mode = {
		.op = PTO_OP_SYNCALL, .mode = 2, .imm = PTO_SYNC_AIV };
	static const struct pto_insn soft_arg = {
		.op = PTO_OP_SYNCALL, .mode = PTO_SYNC_SOFT, .a = 40, .imm = 0 };
	struct pto_vres *r;

	r = pto_vrun1(test, PTO_CORE_AIV, &aic_on_aiv, pto_aiv_tiles,
		      ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_CORE_TYPE, 0,
		    "HARD syncall of type 2 on an AIV kernel");
	r = pto_vrun1(test, PTO_CORE_AIC, &aiv_on_aic, pto_aic_tiles,
		      ARRAY_SIZE(pto_aic_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_CORE_TYPE, 0,
		    "HARD syncall of type 1 on an AIC kernel");
	r = pto_vrun1(test, PTO_CORE_AIV, &bad_mode, pto_aiv_tiles,
		      ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_MODE, 0, "mode 2 not valid");
	r = pto_vrun1(test, PTO_CORE_AIV, &soft_arg, pto_aiv_tiles,
		      ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_REG, 0, "scalar register s40");
}

static void pto_verify_bad_flags(struct kunit *test)
{
	static const struct pto_vcase aiv[] = {
		{ { .op = PTO_OP_END, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x1 not allowed" },
		{ { .op = PTO_OP_LDI, .dst = 1, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x1 not allowed" },
		{ { .op = PTO_OP_ALU, .dst = 1, .a = 1, .b = 2,
		    .flags = PTO_INSN_F_ACC },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x2 not allowed" },
		{ { .op = PTO_OP_CMP, .dst = 1, .a = 1,
		    .flags = PTO_INSN_F_IMM | 0x8000 },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x8001 not allowed" },
		{ { .op = PTO_OP_TLOAD, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x1 not allowed" },
		{ { .op = PTO_OP_TBIN, .dst = 2, .a = 0, .b = 1,
		    .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x1 not allowed" },
		{ { .op = PTO_OP_TBINS, .dst = 2, .a = 0,
		    .flags = PTO_INSN_F_IMM | 0x4 },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x5 not allowed" },
		{ { .op = PTO_OP_FENCE, .flags = 0x100 },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x100 not allowed" },
		/* The flags an opcode does take. */
		{ { .op = PTO_OP_ALU, .dst = 1, .a = 1, .flags = PTO_INSN_F_IMM,
		    .imm = 3 }, 0, NULL },
		{ { .op = PTO_OP_TFILL, .dst = 0, .flags = PTO_INSN_F_IMM,
		    .imm = 1 }, 0, NULL },
		{ { .op = PTO_OP_TBINS, .dst = 2, .a = 0,
		    .flags = PTO_INSN_F_IMM }, 0, NULL },
	};
	static const struct pto_vcase aic[] = {
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1,
		    .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x1 not allowed" },
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1,
		    .flags = PTO_INSN_F_ACC | 0x4 },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x6 not allowed" },
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1,
		    .flags = PTO_INSN_F_ACC }, 0, NULL },
	};
	static const struct pto_insn loop[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_ACC, .imm = 2 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   aiv, ARRAY_SIZE(aiv));
	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   aic, ARRAY_SIZE(aic));
	r = pto_vrun(test, PTO_CORE_AIV, loop, ARRAY_SIZE(loop), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_FLAGS, 0,
		    "flags 0x2 not allowed");
}

static void pto_verify_bad_mode(struct kunit *test)
{
	static const struct pto_vcase aiv[] = {
		{ { .op = PTO_OP_SREG, .dst = 1, .mode = PTO_SREG_NUM_ARGS + 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 6 not valid" },
		{ { .op = PTO_OP_ALU, .dst = 1, .a = 1, .b = 1,
		    .mode = PTO_ALU_MAX + 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 12 not valid" },
		{ { .op = PTO_OP_CMP, .dst = 1, .a = 1, .b = 1,
		    .mode = PTO_CMP_LE + 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 6 not valid" },
		{ { .op = PTO_OP_CMP, .dst = 1, .a = 1, .b = 1, .mode = 255 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 255 not valid" },
		{ { .op = PTO_OP_TBIN, .dst = 4, .a = 4, .b = 4,
		    .mode = PTO_TBIN_XOR + 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 9 not valid" },
		{ { .op = PTO_OP_TBINS, .dst = 4, .a = 4, .b = 1,
		    .mode = PTO_TBIN_XOR + 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 9 not valid" },
		{ { .op = PTO_OP_TUNARY, .dst = 0, .a = 1,
		    .mode = PTO_TUNARY_ABS + 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 5 not valid" },
		{ { .op = PTO_OP_TROWRED, .dst = 3, .a = 0,
		    .mode = PTO_ROWRED_MAX + 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 2 not valid" },
		/* Opcodes without modes take mode 0 only. */
		{ { .op = PTO_OP_END, .mode = 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 1 not valid" },
		{ { .op = PTO_OP_LDI, .dst = 1, .mode = 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 1 not valid" },
		{ { .op = PTO_OP_JMP, .mode = 2, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 2 not valid" },
		{ { .op = PTO_OP_TLOAD, .dst = 0, .mode = 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 1 not valid" },
		{ { .op = PTO_OP_TCAST, .dst = 4, .a = 0, .mode = 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 1 not valid" },
		/* The last mode of each opcode is fine. */
		{ { .op = PTO_OP_SREG, .dst = 1, .mode = PTO_SREG_NUM_ARGS },
		  0, NULL },
		{ { .op = PTO_OP_ALU, .dst = 1, .a = 1, .b = 1,
		    .mode = PTO_ALU_MAX }, 0, NULL },
		{ { .op = PTO_OP_CMP, .dst = 1, .a = 1, .b = 1,
		    .mode = PTO_CMP_LE }, 0, NULL },
		{ { .op = PTO_OP_TBIN, .dst = 4, .a = 4, .b = 4,
		    .mode = PTO_TBIN_XOR }, 0, NULL },
		{ { .op = PTO_OP_TUNARY, .dst = 0, .a = 1,
		    .mode = PTO_TUNARY_ABS }, 0, NULL },
		{ { .op = PTO_OP_TROWRED, .dst = 3, .a = 0,
		    .mode = PTO_ROWRED_MAX }, 0, NULL },
	};
	static const struct pto_vcase aic[] = {
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1, .mode = 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 1 not valid" },
	};

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   aiv, ARRAY_SIZE(aiv));
	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   aic, ARRAY_SIZE(aic));
}

/* ---------------------------------------------------------------- registers */

static void pto_verify_bad_scalar_reg(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		{ { .op = PTO_OP_LDI, .dst = PTO_NUM_SREGS },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s32 outside s0..s31" },
		{ { .op = PTO_OP_MOV, .dst = 1, .a = 32 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s32 outside s0..s31" },
		{ { .op = PTO_OP_ALU, .dst = 1, .a = 1, .b = 255 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s255 outside s0..s31" },
		{ { .op = PTO_OP_GST, .a = 1, .b = 2, .c = 32 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s32 outside s0..s31" },
		{ { .op = PTO_OP_ATOMIC_ADD, .dst = 40, .a = 1, .b = 2, .c = 3 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s40 outside s0..s31" },
		{ { .op = PTO_OP_JZ, .a = 32, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s32 outside s0..s31" },
		{ { .op = PTO_OP_TLOAD, .dst = 0, .a = 1, .b = 32 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s32 outside s0..s31" },
		{ { .op = PTO_OP_TFILL, .dst = 0, .b = 32 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s32 outside s0..s31" },
		{ { .op = PTO_OP_TBINS, .dst = 0, .a = 1, .b = 32 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "scalar register s32 outside s0..s31" },
		/* s31 is the last register. */
		{ { .op = PTO_OP_ALU, .dst = 31, .a = 31, .b = 31 }, 0, NULL },
	};
	static const struct pto_insn loop[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .b = 32 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   c, ARRAY_SIZE(c));
	r = pto_vrun(test, PTO_CORE_AIV, loop, ARRAY_SIZE(loop), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_REG, 0,
		    "scalar register s32 outside s0..s31");
}

static void pto_verify_undeclared_tile(struct kunit *test)
{
	static const struct pto_vcase aiv3[] = {
		{ { .op = PTO_OP_TFILL, .dst = 3, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "tile register t3 not declared (3 tiles)" },
		{ { .op = PTO_OP_TBIN, .dst = 0, .a = 1, .b = 16 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "tile register t16 not declared (3 tiles)" },
		{ { .op = PTO_OP_TMOV, .dst = 0, .a = 255 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "tile register t255 not declared (3 tiles)" },
		{ { .op = PTO_OP_TBIN, .dst = 2, .a = 1, .b = 0 }, 0, NULL },
	};
	static const struct pto_vcase aic[] = {
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 12 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "tile register t12 not declared (12 tiles)" },
	};
	static const struct pto_insn tload = { .op = PTO_OP_TLOAD };
	struct pto_vres *r;

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, 3, aiv3, ARRAY_SIZE(aiv3));
	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   aic, ARRAY_SIZE(aic));
	r = pto_vrun1(test, PTO_CORE_AIV, &tload, NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_REG, 0,
		    "tile register t0 not declared (0 tiles)");
}

static void pto_verify_unused_reg_field(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		{ { .op = PTO_OP_END, .dst = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 0 not zero" },
		{ { .op = PTO_OP_LDI, .dst = 1, .a = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 1 not zero" },
		{ { .op = PTO_OP_JMP, .a = 1, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 1 not zero" },
		{ { .op = PTO_OP_FENCE, .b = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 2 not zero" },
		{ { .op = PTO_OP_GLD, .dst = 1, .a = 2, .b = 3, .c = 4 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 3 not zero" },
		{ { .op = PTO_OP_TLOAD, .dst = 0, .a = 1, .b = 2, .c = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 3 not zero" },
		{ { .op = PTO_OP_TBIN, .dst = 2, .a = 0, .b = 1, .c = 2 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 3 not zero" },
		/* With PTO_INSN_F_IMM, b is no register. */
		{ { .op = PTO_OP_ALU, .dst = 1, .a = 1, .b = 5,
		    .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 2 not zero" },
		{ { .op = PTO_OP_TBINS, .dst = 0, .a = 1, .b = 1,
		    .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 2 not zero" },
		{ { .op = PTO_OP_TFILL, .dst = 0, .b = 1, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 2 not zero" },
	};

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   c, ARRAY_SIZE(c));
}

static void pto_verify_unused_imm(struct kunit *test)
{
	static const char msg[] = "immediate not used by this instruction must be zero";
	static const struct pto_vcase aiv[] = {
		{ { .op = PTO_OP_END, .imm = 1 }, DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_MOV, .dst = 1, .a = 2, .imm = -1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_SREG, .dst = 1, .imm = 5 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_ENDLOOP, .imm = 1 }, DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_FENCE, .imm = S64_MIN },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_CACHEINVALID, .imm = 1LL << 32 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		/* Without PTO_INSN_F_IMM the immediate is unused. */
		{ { .op = PTO_OP_ALU, .dst = 1, .a = 1, .b = 2, .imm = 3 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_CMP, .dst = 1, .a = 1, .b = 2, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_TFILL, .dst = 0, .b = 1, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_TBINS, .dst = 0, .a = 1, .b = 1, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		/* Tile ops without an immediate. */
		{ { .op = PTO_OP_TBIN, .dst = 2, .a = 0, .b = 1, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_TMOV, .dst = 1, .a = 0, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_TUNARY, .dst = 1, .a = 0, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_TROWRED, .dst = 3, .a = 0, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_TCAST, .dst = 4, .a = 0, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_PUSH, .a = 0, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		{ { .op = PTO_OP_POP, .dst = 0, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
		/* Immediates that are used may hold anything. */
		{ { .op = PTO_OP_LDI, .dst = 1, .imm = S64_MIN }, 0, NULL },
		{ { .op = PTO_OP_ALU, .dst = 1, .a = 1, .flags = PTO_INSN_F_IMM,
		    .imm = -1 }, 0, NULL },
		{ { .op = PTO_OP_CMP, .dst = 1, .a = 1, .flags = PTO_INSN_F_IMM,
		    .imm = S64_MAX }, 0, NULL },
		{ { .op = PTO_OP_TFILL, .dst = 0, .flags = PTO_INSN_F_IMM,
		    .imm = 0x3f800000 }, 0, NULL },
		{ { .op = PTO_OP_TBINS, .dst = 0, .a = 1, .flags = PTO_INSN_F_IMM,
		    .imm = 0xbf800000 }, 0, NULL },
	};
	static const struct pto_vcase aic[] = {
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1, .imm = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, msg },
	};
	/* LOOP counting s[b] has no immediate; with F_IMM 0 is a count. */
	struct pto_insn loop[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .b = 2, .imm = 4 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   aiv, ARRAY_SIZE(aiv));
	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   aic, ARRAY_SIZE(aic));

	r = pto_vrun(test, PTO_CORE_AIV, loop, ARRAY_SIZE(loop), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_RESERVED_FIELD, 0, msg);
	loop[0].imm = 0;
	r = pto_vrun(test, PTO_CORE_AIV, loop, ARRAY_SIZE(loop), NULL, 0);
	pto_vexpect_ok(test, r);
	loop[0].b = 0;
	loop[0].flags = PTO_INSN_F_IMM;
	r = pto_vrun(test, PTO_CORE_AIV, loop, ARRAY_SIZE(loop), NULL, 0);
	pto_vexpect_ok(test, r);
}

/* -------------------------------------------------------- core type of ops */

static void pto_verify_matmul_on_aiv(struct kunit *test)
{
	static const struct pto_insn in = {
		.op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1,
	};
	struct pto_vres *r;

	r = pto_vrun1(test, PTO_CORE_AIV, &in, pto_aiv_tiles,
		      ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_CORE_TYPE, 0,
		    "MATMUL runs on AIC only");
}

static void pto_verify_vector_op_on_aic(struct kunit *test)
{
	/* t3 is an L1 f32 16x32 tile, t11 an L1 f32 16x16 one. */
	static const struct pto_vcase c[] = {
		{ { .op = PTO_OP_TBIN, .dst = 3, .a = 3, .b = 3 },
		  DRM_PTO_NPU_VERIFY_CORE_TYPE, "vector tile op 0x24 runs on AIV only" },
		{ { .op = PTO_OP_TBINS, .dst = 3, .a = 3, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_CORE_TYPE, "vector tile op 0x25 runs on AIV only" },
		{ { .op = PTO_OP_TUNARY, .dst = 3, .a = 3, .mode = PTO_TUNARY_EXP },
		  DRM_PTO_NPU_VERIFY_CORE_TYPE, "vector tile op 0x26 runs on AIV only" },
		{ { .op = PTO_OP_TROWRED, .dst = 11, .a = 3 },
		  DRM_PTO_NPU_VERIFY_CORE_TYPE, "vector tile op 0x27 runs on AIV only" },
		{ { .op = PTO_OP_TCAST, .dst = 3, .a = 3 },
		  DRM_PTO_NPU_VERIFY_CORE_TYPE, "vector tile op 0x28 runs on AIV only" },
		/* Moves and fills are for both. */
		{ { .op = PTO_OP_TMOV, .dst = 0, .a = 3 }, 0, NULL },
		{ { .op = PTO_OP_TFILL, .dst = 2, .flags = PTO_INSN_F_IMM }, 0, NULL },
	};

	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   c, ARRAY_SIZE(c));
}

/* ------------------------------------------------------ tile buffers of ops */

static void pto_verify_tload_into_l0c(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		{ { .op = PTO_OP_TLOAD, .dst = 2 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "TLOAD into L0C" },
		{ { .op = PTO_OP_TLOAD, .dst = 10, .imm = 3 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "TLOAD into L0C" },
		{ { .op = PTO_OP_TLOAD, .dst = 0 }, 0, NULL },
		{ { .op = PTO_OP_TLOAD, .dst = 1 }, 0, NULL },
		{ { .op = PTO_OP_TLOAD, .dst = 3 }, 0, NULL },
	};

	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   c, ARRAY_SIZE(c));
}

static void pto_verify_tstore_from_l0ab(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		{ { .op = PTO_OP_TSTORE, .dst = 0 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "TSTORE from L0A: store from L0C or L1" },
		{ { .op = PTO_OP_TSTORE, .dst = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "TSTORE from L0B: store from L0C or L1" },
		{ { .op = PTO_OP_TSTORE, .dst = 2 }, 0, NULL },
		{ { .op = PTO_OP_TSTORE, .dst = 3 }, 0, NULL },
	};

	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   c, ARRAY_SIZE(c));
}

static void pto_verify_matmul_buffers(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		/* a in L1 */
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 3, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "MATMUL takes L0A x L0B into L0C" },
		/* b in L1 */
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 4 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "MATMUL takes L0A x L0B into L0C" },
		/* dst in L1 */
		{ { .op = PTO_OP_MATMUL, .dst = 11, .a = 0, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "MATMUL takes L0A x L0B into L0C" },
		/* a and b swapped */
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 1, .b = 0 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "MATMUL takes L0A x L0B into L0C" },
		/* dst in L0A */
		{ { .op = PTO_OP_MATMUL, .dst = 0, .a = 0, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_BUF, "MATMUL takes L0A x L0B into L0C" },
	};

	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   c, ARRAY_SIZE(c));
}

/* ------------------------------------------------------ tile shapes, dtypes */

static void pto_verify_tile_shape(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		/* TBIN/TBINS: t5 is 16x8, t4 is i32 */
		{ { .op = PTO_OP_TBIN, .dst = 0, .a = 1, .b = 5 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "elementwise operands need one shape and dtype" },
		{ { .op = PTO_OP_TBIN, .dst = 5, .a = 0, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "elementwise operands need one shape and dtype" },
		{ { .op = PTO_OP_TBIN, .dst = 0, .a = 4, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "elementwise operands need one shape and dtype" },
		{ { .op = PTO_OP_TBIN, .dst = 0, .a = 1, .b = 4 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "elementwise operands need one shape and dtype" },
		{ { .op = PTO_OP_TBINS, .dst = 0, .a = 5, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "elementwise operands need one shape and dtype" },
		{ { .op = PTO_OP_TBINS, .dst = 4, .a = 0, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "elementwise operands need one shape and dtype" },
		/* TROWRED: the result must be rows x 1 */
		{ { .op = PTO_OP_TROWRED, .dst = 1, .a = 0 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "row reduction of 8x16 needs a 8x1 result" },
		{ { .op = PTO_OP_TROWRED, .dst = 7, .a = 0 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "row reduction of 8x16 needs a 8x1 result" },
		{ { .op = PTO_OP_TROWRED, .dst = 3, .a = 5 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "row reduction of 16x8 needs a 16x1 result" },
		/* TMOV: shape and dtype */
		{ { .op = PTO_OP_TMOV, .dst = 0, .a = 4 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE, "TMOV needs the same shape and dtype" },
		{ { .op = PTO_OP_TMOV, .dst = 0, .a = 5 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE, "TMOV needs the same shape and dtype" },
		/* TUNARY, TCAST */
		{ { .op = PTO_OP_TUNARY, .dst = 0, .a = 5, .mode = PTO_TUNARY_NEG },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE, "unary operands need one shape and dtype" },
		{ { .op = PTO_OP_TUNARY, .dst = 0, .a = 4, .mode = PTO_TUNARY_NEG },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE, "unary operands need one shape and dtype" },
		{ { .op = PTO_OP_TCAST, .dst = 0, .a = 5 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE, "TCAST needs the same shape" },
		/* Matching shapes are fine; TCAST changes the dtype. */
		{ { .op = PTO_OP_TBIN, .dst = 2, .a = 1, .b = 0 }, 0, NULL },
		{ { .op = PTO_OP_TROWRED, .dst = 3, .a = 0,
		    .mode = PTO_ROWRED_SUM }, 0, NULL },
		{ { .op = PTO_OP_TROWRED, .dst = 7, .a = 5 }, 0, NULL },
		{ { .op = PTO_OP_TMOV, .dst = 1, .a = 0 }, 0, NULL },
		{ { .op = PTO_OP_TCAST, .dst = 4, .a = 0 }, 0, NULL },
		{ { .op = PTO_OP_TCAST, .dst = 6, .a = 3 }, 0, NULL },
	};

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   c, ARRAY_SIZE(c));
}

static void pto_verify_matmul_shape(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		/* K: a 16x32, b 16x16 */
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 8 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "MATMUL shapes 16x32 x 16x16 -> 16x16 do not agree" },
		/* M: dst 8x16 */
		{ { .op = PTO_OP_MATMUL, .dst = 9, .a = 0, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "MATMUL shapes 16x32 x 32x16 -> 8x16 do not agree" },
		/* N: dst 16x8 */
		{ { .op = PTO_OP_MATMUL, .dst = 10, .a = 0, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_SHAPE,
		  "MATMUL shapes 16x32 x 32x16 -> 16x8 do not agree" },
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1 }, 0, NULL },
	};

	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   c, ARRAY_SIZE(c));
}

static void pto_verify_tile_dtype(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		{ { .op = PTO_OP_TBIN, .dst = 4, .a = 4, .b = 4, .mode = PTO_TBIN_DIV },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "DIV is for f32 tiles" },
		{ { .op = PTO_OP_TBINS, .dst = 4, .a = 4, .mode = PTO_TBIN_DIV,
		    .flags = PTO_INSN_F_IMM, .imm = 2 },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "DIV is for f32 tiles" },
		{ { .op = PTO_OP_TBIN, .dst = 2, .a = 0, .b = 1, .mode = PTO_TBIN_AND },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "bitwise ops are for integer tiles" },
		{ { .op = PTO_OP_TBIN, .dst = 2, .a = 0, .b = 1, .mode = PTO_TBIN_OR },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "bitwise ops are for integer tiles" },
		{ { .op = PTO_OP_TBINS, .dst = 2, .a = 0, .mode = PTO_TBIN_XOR,
		    .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "bitwise ops are for integer tiles" },
		{ { .op = PTO_OP_TUNARY, .dst = 4, .a = 4, .mode = PTO_TUNARY_EXP },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "EXP and SQRT are for f32 tiles" },
		{ { .op = PTO_OP_TUNARY, .dst = 4, .a = 4, .mode = PTO_TUNARY_SQRT },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "EXP and SQRT are for f32 tiles" },
		/* int source, f32 result; f32 source, int result */
		{ { .op = PTO_OP_TROWRED, .dst = 3, .a = 4 },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "row reductions are for f32 tiles" },
		{ { .op = PTO_OP_TROWRED, .dst = 6, .a = 0, .mode = PTO_ROWRED_MAX },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "row reductions are for f32 tiles" },
		/* What each dtype may do. */
		{ { .op = PTO_OP_TBIN, .dst = 2, .a = 0, .b = 1, .mode = PTO_TBIN_DIV },
		  0, NULL },
		{ { .op = PTO_OP_TBIN, .dst = 4, .a = 4, .b = 4, .mode = PTO_TBIN_AND },
		  0, NULL },
		{ { .op = PTO_OP_TBIN, .dst = 4, .a = 4, .b = 4, .mode = PTO_TBIN_MAX },
		  0, NULL },
		{ { .op = PTO_OP_TUNARY, .dst = 1, .a = 0, .mode = PTO_TUNARY_SQRT },
		  0, NULL },
	};

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   c, ARRAY_SIZE(c));
}

static void pto_verify_matmul_dtype(struct kunit *test)
{
	/* t5..t7: i32 tiles of the right shapes in the right buffers. */
	static const struct pto_vcase c[] = {
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 5, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "MATMUL is f32" },
		{ { .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 6 },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "MATMUL is f32" },
		{ { .op = PTO_OP_MATMUL, .dst = 7, .a = 0, .b = 1 },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "MATMUL is f32" },
		{ { .op = PTO_OP_MATMUL, .dst = 7, .a = 5, .b = 6 },
		  DRM_PTO_NPU_VERIFY_TILE_DTYPE, "MATMUL is f32" },
	};

	pto_vcases(test, PTO_CORE_AIC, pto_aic_tiles, ARRAY_SIZE(pto_aic_tiles),
		   c, ARRAY_SIZE(c));
}

/* ------------------------------------------------------ cross-core ring */

static void pto_verify_push_pop(struct kunit *test)
{
	/* Every PUSH one shape, every POP one shape; the two may differ. */
	static const struct pto_insn ok[] = {
		{ .op = PTO_OP_POP, .dst = 5 },
		{ .op = PTO_OP_PUSH, .a = 0 },
		{ .op = PTO_OP_PUSH, .a = 1 },
		{ .op = PTO_OP_POP, .dst = 5 },
		{ .op = PTO_OP_END },
	};
	static const struct pto_vcase regs[] = {
		{ { .op = PTO_OP_PUSH, .dst = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 0 not zero" },
		{ { .op = PTO_OP_POP, .a = 1 },
		  DRM_PTO_NPU_VERIFY_RESERVED_FIELD, "unused register field 1 not zero" },
		{ { .op = PTO_OP_PUSH, .a = 8 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "tile register t8 not declared (8 tiles)" },
		{ { .op = PTO_OP_POP, .dst = 8 },
		  DRM_PTO_NPU_VERIFY_BAD_REG, "tile register t8 not declared (8 tiles)" },
		{ { .op = PTO_OP_PUSH, .a = 0, .flags = PTO_INSN_F_IMM },
		  DRM_PTO_NPU_VERIFY_BAD_FLAGS, "flags 0x1 not allowed" },
		{ { .op = PTO_OP_POP, .dst = 0, .mode = 1 },
		  DRM_PTO_NPU_VERIFY_BAD_MODE, "mode 1 not valid" },
	};
	/* t0 8x16 f32, then t5 16x8 f32 or t4 8x16 i32 */
	struct pto_insn push2[] = {
		{ .op = PTO_OP_PUSH, .a = 0 },
		{ .op = PTO_OP_PUSH, .a = 5 },
		{ .op = PTO_OP_END },
	};
	struct pto_insn pop2[] = {
		{ .op = PTO_OP_POP, .dst = 0 },
		{ .op = PTO_OP_POP, .dst = 4 },
		{ .op = PTO_OP_END },
	};
	/* AIC: push the L0C result, pop into L1 */
	struct pto_insn aic[] = {
		{ .op = PTO_OP_PUSH, .a = 2 },
		{ .op = PTO_OP_POP, .dst = 11 },
		{ .op = PTO_OP_PUSH, .a = 9 },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, ok, ARRAY_SIZE(ok), pto_aiv_tiles,
		     ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_TRUE(test, r->k->push.used);
	KUNIT_EXPECT_EQ(test, r->k->push.rows, 8U);
	KUNIT_EXPECT_EQ(test, r->k->push.cols, 16U);
	KUNIT_EXPECT_EQ(test, r->k->push.dtype, PTO_ISA_F32);
	KUNIT_EXPECT_EQ(test, r->k->push.esize, 4);
	KUNIT_EXPECT_TRUE(test, r->k->pop.used);
	KUNIT_EXPECT_EQ(test, r->k->pop.rows, 16U);
	KUNIT_EXPECT_EQ(test, r->k->pop.cols, 8U);
	KUNIT_EXPECT_EQ(test, r->k->num_tensor_args, 0U);

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   regs, ARRAY_SIZE(regs));

	r = pto_vrun(test, PTO_CORE_AIV, push2, ARRAY_SIZE(push2), pto_aiv_tiles,
		     ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_TILE_SHAPE, 1,
		    "every PUSH of a kernel must move one tile shape");
	push2[1].a = 4;
	r = pto_vrun(test, PTO_CORE_AIV, push2, ARRAY_SIZE(push2), pto_aiv_tiles,
		     ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_TILE_SHAPE, 1,
		    "every PUSH of a kernel must move one tile shape");

	r = pto_vrun(test, PTO_CORE_AIV, pop2, ARRAY_SIZE(pop2), pto_aiv_tiles,
		     ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_TILE_SHAPE, 1,
		    "every POP of a kernel must move one tile shape");
	pop2[1].dst = 5;
	r = pto_vrun(test, PTO_CORE_AIV, pop2, ARRAY_SIZE(pop2), pto_aiv_tiles,
		     ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_TILE_SHAPE, 1,
		    "every POP of a kernel must move one tile shape");

	/* t2 16x16 then t9 8x16: the AIC refuses the second PUSH too. */
	r = pto_vrun(test, PTO_CORE_AIC, aic, ARRAY_SIZE(aic), pto_aic_tiles,
		     ARRAY_SIZE(pto_aic_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_TILE_SHAPE, 2,
		    "every PUSH of a kernel must move one tile shape");
	aic[2].a = 2;
	r = pto_vrun(test, PTO_CORE_AIC, aic, ARRAY_SIZE(aic), pto_aic_tiles,
		     ARRAY_SIZE(pto_aic_tiles));
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->push.rows, 16U);
	KUNIT_EXPECT_EQ(test, r->k->pop.cols, 16U);
}

/* ---------------------------------------------------------------- arguments */

static void pto_verify_arg_index(struct kunit *test)
{
	static const struct pto_vcase c[] = {
		{ { .op = PTO_OP_TLOAD, .dst = 0, .imm = PTO_MAX_TENSOR_ARGS },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX, "tensor argument 16 outside 0..15" },
		{ { .op = PTO_OP_TLOAD, .dst = 0, .imm = -1 },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX, "tensor argument -1 outside 0..15" },
		{ { .op = PTO_OP_TSTORE, .dst = 0, .imm = S64_MIN },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX,
		  "tensor argument -9223372036854775808 outside 0..15" },
		/* Would be argument 0 if truncated to 32 bits. */
		{ { .op = PTO_OP_TSTORE, .dst = 0, .imm = 1LL << 32 },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX, "tensor argument 4294967296 outside" },
		{ { .op = PTO_OP_GLD, .dst = 1, .imm = 16 },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX, "tensor argument 16 outside 0..15" },
		{ { .op = PTO_OP_GST, .imm = -1 },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX, "tensor argument -1 outside 0..15" },
		{ { .op = PTO_OP_ATOMIC_ADD, .dst = 1, .imm = 16 },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX, "tensor argument 16 outside 0..15" },
		{ { .op = PTO_OP_ARG, .dst = 1, .imm = -1 },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX, "scalar argument -1 outside 0..15" },
		{ { .op = PTO_OP_ARG, .dst = 1, .imm = PTO_MAX_SCALAR_ARGS },
		  DRM_PTO_NPU_VERIFY_ARG_INDEX, "scalar argument 16 outside 0..15" },
	};
	static const struct pto_insn last_tensor = {
		.op = PTO_OP_TLOAD, .dst = 0, .imm = PTO_MAX_TENSOR_ARGS - 1,
	};
	static const struct pto_insn last_scalar = {
		.op = PTO_OP_ARG, .dst = 1, .imm = PTO_MAX_SCALAR_ARGS - 1,
	};
	struct pto_vres *r;

	pto_vcases(test, PTO_CORE_AIV, pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles),
		   c, ARRAY_SIZE(c));

	r = pto_vrun1(test, PTO_CORE_AIV, &last_tensor, pto_aiv_tiles,
		      ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->num_tensor_args, PTO_MAX_TENSOR_ARGS);
	KUNIT_EXPECT_EQ(test, r->k->arg_dtype[PTO_MAX_TENSOR_ARGS - 1], PTO_ISA_F32);
	KUNIT_EXPECT_EQ(test, r->k->num_scalar_args, 0U);

	r = pto_vrun1(test, PTO_CORE_AIV, &last_scalar, NULL, 0);
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->num_scalar_args, PTO_MAX_SCALAR_ARGS);
	KUNIT_EXPECT_EQ(test, r->k->num_tensor_args, 0U);
}

static void pto_verify_arg_dtype(struct kunit *test)
{
	/* g0 loaded into the f32 t0, then into the i32 t4. */
	static const struct pto_insn two_loads[] = {
		{ .op = PTO_OP_TLOAD, .dst = 0, .imm = 0 },
		{ .op = PTO_OP_TLOAD, .dst = 4, .imm = 0 },
		{ .op = PTO_OP_END },
	};
	/* g1 stored from f32, then used by ATOMIC_ADD (i32). */
	static const struct pto_insn store_atomic[] = {
		{ .op = PTO_OP_TSTORE, .dst = 1, .imm = 1 },
		{ .op = PTO_OP_ATOMIC_ADD, .dst = 1, .imm = 1 },
		{ .op = PTO_OP_END },
	};
	/* GLD/GST take any dtype: no conflict with the f32 TLOAD. */
	static const struct pto_insn gld_ok[] = {
		{ .op = PTO_OP_GLD, .dst = 1, .imm = 0 },
		{ .op = PTO_OP_TLOAD, .dst = 0, .imm = 0 },
		{ .op = PTO_OP_GST, .c = 1, .imm = 0 },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, two_loads, ARRAY_SIZE(two_loads),
		     pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_ARG_DTYPE, 1,
		    "tensor argument 0 used as dtype 1 and 4");

	r = pto_vrun(test, PTO_CORE_AIV, store_atomic, ARRAY_SIZE(store_atomic),
		     pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_ARG_DTYPE, 1,
		    "tensor argument 1 used as dtype 1 and 4");

	r = pto_vrun(test, PTO_CORE_AIV, gld_ok, ARRAY_SIZE(gld_ok),
		     pto_aiv_tiles, ARRAY_SIZE(pto_aiv_tiles));
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->arg_dtype[0], PTO_ISA_F32);
	KUNIT_EXPECT_EQ(test, r->k->num_tensor_args, 1U);
}

/*
 * mode 1 is the tensor form of CACHEINVALID only: ALU SUB and CMP NE take
 * any immediate and use no tensor argument.
 */
static void pto_verify_mode1_not_tensor(struct kunit *test)
{
	static const struct pto_insn ok[] = {
		{ .op = PTO_OP_ALU, .mode = PTO_ALU_SUB, .dst = 1, .a = 1,
		  .flags = PTO_INSN_F_IMM, .imm = 100 },
		{ .op = PTO_OP_ALU, .mode = PTO_ALU_SUB, .dst = 1, .a = 1,
		  .flags = PTO_INSN_F_IMM, .imm = -1 },
		{ .op = PTO_OP_CMP, .mode = PTO_CMP_NE, .dst = 2, .a = 1,
		  .flags = PTO_INSN_F_IMM, .imm = 1LL << 40 },
		{ .op = PTO_OP_CMP, .mode = PTO_CMP_NE, .dst = 2, .a = 1,
		  .flags = PTO_INSN_F_IMM, .imm = 3 },
	};
	static const struct pto_insn cinv = {
		.op = PTO_OP_CACHEINVALID, .mode = PTO_CINV_TENSOR, .imm = 3,
	};
	struct pto_vres *r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		r = pto_vrun1(test, PTO_CORE_AIV, &ok[i], NULL, 0);
		pto_vexpect_ok(test, r);
		KUNIT_EXPECT_EQ_MSG(test, r->k->num_tensor_args, 0U,
				    "instruction %zu", i);
	}
	r = pto_vrun1(test, PTO_CORE_AIV, &cinv, NULL, 0);
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->num_tensor_args, 4U);
}

/* ------------------------------------------------------------------- loops */

static void pto_verify_endloop_without_loop(struct kunit *test)
{
	static const struct pto_insn prog1[] = {
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	static const struct pto_insn prog2[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, prog1, ARRAY_SIZE(prog1), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_LOOP_NESTING, 0,
		    "ENDLOOP without LOOP");
	r = pto_vrun(test, PTO_CORE_AIV, prog2, ARRAY_SIZE(prog2), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_LOOP_NESTING, 2,
		    "ENDLOOP without LOOP");
}

static void pto_verify_loop_without_endloop(struct kunit *test)
{
	static const struct pto_insn prog1[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_END },
	};
	/* The innermost open LOOP is named. */
	static const struct pto_insn prog2[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 2, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_LOOP, .dst = 3, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, prog1, ARRAY_SIZE(prog1), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_LOOP_NESTING, 0,
		    "LOOP without ENDLOOP");
	r = pto_vrun(test, PTO_CORE_AIV, prog2, ARRAY_SIZE(prog2), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_LOOP_NESTING, 3,
		    "LOOP without ENDLOOP");
}

static void pto_verify_loop_depth(struct kunit *test)
{
	static const struct pto_insn depth4[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 2, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 3, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 4, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	static const struct pto_insn depth5[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 2, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 3, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 4, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 5, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, depth4, ARRAY_SIZE(depth4), NULL, 0);
	pto_vexpect_ok(test, r);
	r = pto_vrun(test, PTO_CORE_AIV, depth5, ARRAY_SIZE(depth5), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_LOOP_NESTING, 4,
		    "loops nested deeper than 4");
}

static void pto_verify_loop_count(struct kunit *test)
{
	struct pto_insn prog[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	prog[0].imm = PTO_MAX_LOOP_COUNT + 1;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_LOOP_COUNT, 0,
		    "loop count 1048577 outside 0..1048576");
	prog[0].imm = -1;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_LOOP_COUNT, 0,
		    "loop count -1 outside 0..1048576");
	prog[0].imm = S64_MAX;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_LOOP_COUNT, 0,
		    "loop count 9223372036854775807 outside");

	prog[0].imm = PTO_MAX_LOOP_COUNT;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect_ok(test, r);
	prog[0].imm = 0;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect_ok(test, r);
}

/* ------------------------------------------------------------------- jumps */

static void pto_verify_jump_backward(struct kunit *test)
{
	static const u8 ops[] = { PTO_OP_JMP, PTO_OP_JZ, PTO_OP_JNZ };
	struct pto_insn prog[] = {
		{ .op = PTO_OP_LDI, .dst = 1, .imm = 1 },
		{ .imm = 0 },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		prog[1].op = ops[i];
		prog[1].a = ops[i] == PTO_OP_JMP ? 0 : 1;
		r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
		pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_JUMP, 1,
			    "jump target 0 is not a later instruction");
	}
}

static void pto_verify_jump_to_self(struct kunit *test)
{
	static const u8 ops[] = { PTO_OP_JMP, PTO_OP_JZ, PTO_OP_JNZ };
	struct pto_insn prog[] = {
		{ .op = PTO_OP_LDI, .dst = 1, .imm = 1 },
		{ .imm = 1 },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		prog[1].op = ops[i];
		prog[1].a = ops[i] == PTO_OP_JMP ? 0 : 1;
		r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
		pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_JUMP, 1,
			    "jump target 1 is not a later instruction");
	}
}

static void pto_verify_jump_past_end(struct kunit *test)
{
	static const struct {
		s64 imm;
		const char *msg;
	} c[] = {
		{ 3, "jump target 3 is not a later instruction" },
		{ 4, "jump target 4 is not a later instruction" },
		{ -1, "jump target -1 is not a later instruction" },
		{ S64_MIN, "jump target -9223372036854775808 is not" },
		{ S64_MAX, "jump target 9223372036854775807 is not" },
		/* 2 (the END) if truncated to 32 bits */
		{ (1LL << 32) + 2, "jump target 4294967298 is not" },
	};
	struct pto_insn prog[] = {
		{ .op = PTO_OP_LDI, .dst = 1, .imm = 1 },
		{ .op = PTO_OP_JNZ, .a = 1 },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		prog[1].imm = c[i].imm;
		r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
		pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_JUMP, 1, c[i].msg);
	}
	/* The END itself is a fine target. */
	prog[1].imm = 2;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect_ok(test, r);
}

static void pto_verify_jump_into_loop(struct kunit *test)
{
	struct pto_insn prog[] = {
		{ .op = PTO_OP_JMP },
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_ALU, .dst = 2, .a = 2, .flags = PTO_INSN_F_IMM,
		  .imm = 1 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	/* Into the body, and onto its ENDLOOP. */
	prog[0].imm = 2;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_JUMP, 0,
		    "jump to 2 leaves or enters a loop body");
	prog[0].imm = 3;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_JUMP, 0,
		    "jump to 3 leaves or enters a loop body");

	/* Onto the LOOP itself, or over the whole loop: fine. */
	prog[0].imm = 1;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect_ok(test, r);
	prog[0].imm = 4;
	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect_ok(test, r);
}

static void pto_verify_jump_out_of_loop(struct kunit *test)
{
	/* break: from the body past the ENDLOOP */
	static const struct pto_insn brk[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_JZ, .a = 1, .imm = 3 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	/* from an inner body onto the outer loop's ENDLOOP */
	static const struct pto_insn inner[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_LOOP, .dst = 2, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_JNZ, .a = 2, .imm = 4 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	/* from one loop's body into a sibling loop's body */
	static const struct pto_insn sibling[] = {
		{ .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_JMP, .imm = 4 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_LOOP, .dst = 2, .flags = PTO_INSN_F_IMM, .imm = 2 },
		{ .op = PTO_OP_FENCE },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, brk, ARRAY_SIZE(brk), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_JUMP, 1,
		    "jump to 3 leaves or enters a loop body");
	r = pto_vrun(test, PTO_CORE_AIV, inner, ARRAY_SIZE(inner), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_JUMP, 2,
		    "jump to 4 leaves or enters a loop body");
	r = pto_vrun(test, PTO_CORE_AIV, sibling, ARRAY_SIZE(sibling), NULL, 0);
	pto_vexpect(test, r, DRM_PTO_NPU_VERIFY_BAD_JUMP, 1,
		    "jump to 4 leaves or enters a loop body");
}

static void pto_verify_jump_continue_ok(struct kunit *test)
{
	/*
	 * for (i = 0; i < 4; i++) {
	 *	if (i == 2) continue;
	 *	for (j = 0; j < 3; j++) { if (j) continue; s0++; }
	 * }
	 */
	static const struct pto_insn prog[] = {
		/* 0 */ { .op = PTO_OP_LDI, .dst = 0, .imm = 0 },
		/* 1 */ { .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM,
			  .imm = 4 },
		/* 2 */ { .op = PTO_OP_CMP, .dst = 2, .a = 1, .mode = PTO_CMP_EQ,
			  .flags = PTO_INSN_F_IMM, .imm = 2 },
		/* 3 */ { .op = PTO_OP_JNZ, .a = 2, .imm = 8 },
		/* 4 */ { .op = PTO_OP_LOOP, .dst = 3, .flags = PTO_INSN_F_IMM,
			  .imm = 3 },
		/* 5 */ { .op = PTO_OP_JNZ, .a = 3, .imm = 7 },
		/* 6 */ { .op = PTO_OP_ALU, .dst = 0, .a = 0, .mode = PTO_ALU_ADD,
			  .flags = PTO_INSN_F_IMM, .imm = 1 },
		/* 7 */ { .op = PTO_OP_ENDLOOP },
		/* 8 */ { .op = PTO_OP_ENDLOOP },
		/* 9 */ { .op = PTO_OP_JMP, .imm = 10 },
		/* 10 */ { .op = PTO_OP_END },
	};
	struct pto_vres *r;

	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect_ok(test, r);
	KUNIT_EXPECT_EQ(test, r->k->match[1], 8);
	KUNIT_EXPECT_EQ(test, r->k->match[8], 1);
	KUNIT_EXPECT_EQ(test, r->k->match[4], 7);
	KUNIT_EXPECT_EQ(test, r->k->match[7], 4);
}

/* -------------------------------------------------------------- acceptance */

static void pto_verify_aiv_add_ok(struct kunit *test)
{
	/* c[8i .. 8i+7, :] = a[..] + b[..] for block i: f32 8x16 tiles. */
	static const struct pto_insn prog[] = {
		{ .op = PTO_OP_SREG, .dst = 0, .mode = PTO_SREG_BLOCK_IDX },
		{ .op = PTO_OP_ALU, .dst = 0, .a = 0, .mode = PTO_ALU_MUL,
		  .flags = PTO_INSN_F_IMM, .imm = 8 },
		{ .op = PTO_OP_LDI, .dst = 1, .imm = 0 },
		{ .op = PTO_OP_TLOAD, .dst = 0, .a = 0, .b = 1, .imm = 0 },
		{ .op = PTO_OP_TLOAD, .dst = 1, .a = 0, .b = 1, .imm = 1 },
		{ .op = PTO_OP_TBIN, .dst = 2, .a = 0, .b = 1, .mode = PTO_TBIN_ADD },
		{ .op = PTO_OP_TSTORE, .dst = 2, .a = 0, .b = 1, .imm = 2 },
		{ .op = PTO_OP_END },
	};
	struct pto_kernel *k;
	struct pto_vres *r;
	u32 i;

	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), pto_aiv_tiles, 3);
	pto_vexpect_ok(test, r);
	k = r->k;
	KUNIT_EXPECT_EQ(test, k->core_type, (u32)PTO_CORE_AIV);
	KUNIT_EXPECT_EQ(test, k->num_tensor_args, 3U);
	KUNIT_EXPECT_EQ(test, k->num_scalar_args, 0U);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, k->arg_dtype[i], PTO_ISA_F32);
	for (i = 3; i < PTO_MAX_TENSOR_ARGS; i++)
		KUNIT_EXPECT_EQ(test, k->arg_dtype[i], 0);
	KUNIT_EXPECT_EQ(test, k->num_tiles, 3U);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, k->tiles[i].dtype, PTO_ISA_F32);
		KUNIT_EXPECT_EQ(test, k->tiles[i].buf, PTO_BUF_UB);
		KUNIT_EXPECT_EQ(test, k->tiles[i].esize, 4);
		KUNIT_EXPECT_EQ(test, k->tiles[i].rows, 8U);
		KUNIT_EXPECT_EQ(test, k->tiles[i].cols, 16U);
		KUNIT_EXPECT_EQ(test, k->tiles[i].offset, i * 512);
	}
}

static void pto_verify_aic_matmul_ok(struct kunit *test)
{
	/*
	 * GM -> L1 -> L0A/L0B, C = 0, C += A x B, C -> GM; then A straight
	 * into L0A and L1 back to GM.
	 */
	static const struct pto_insn prog[] = {
		{ .op = PTO_OP_LDI, .dst = 0, .imm = 0 },
		{ .op = PTO_OP_ARG, .dst = 1, .imm = 1 },
		{ .op = PTO_OP_TLOAD, .dst = 3, .a = 0, .b = 0, .imm = 0 },
		{ .op = PTO_OP_TLOAD, .dst = 4, .a = 0, .b = 0, .imm = 1 },
		{ .op = PTO_OP_TMOV, .dst = 0, .a = 3 },
		{ .op = PTO_OP_TMOV, .dst = 1, .a = 4 },
		{ .op = PTO_OP_TFILL, .dst = 2, .flags = PTO_INSN_F_IMM },
		{ .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1,
		  .flags = PTO_INSN_F_ACC },
		{ .op = PTO_OP_TSTORE, .dst = 2, .a = 0, .b = 0, .imm = 2 },
		{ .op = PTO_OP_TLOAD, .dst = 0, .a = 0, .b = 1, .imm = 0 },
		{ .op = PTO_OP_MATMUL, .dst = 2, .a = 0, .b = 1 },
		{ .op = PTO_OP_TSTORE, .dst = 3, .a = 0, .b = 0, .imm = 3 },
		{ .op = PTO_OP_END },
	};
	static const u32 offset[] = { 0, 0, 0, 0, 2048 };
	struct pto_kernel *k;
	struct pto_vres *r;
	u32 i;

	r = pto_vrun(test, PTO_CORE_AIC, prog, ARRAY_SIZE(prog), pto_aic_tiles, 5);
	pto_vexpect_ok(test, r);
	k = r->k;
	KUNIT_EXPECT_EQ(test, k->core_type, (u32)PTO_CORE_AIC);
	KUNIT_EXPECT_EQ(test, k->num_tensor_args, 4U);
	KUNIT_EXPECT_EQ(test, k->num_scalar_args, 2U);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, k->arg_dtype[i], PTO_ISA_F32);
	KUNIT_EXPECT_EQ(test, k->num_tiles, 5U);
	for (i = 0; i < ARRAY_SIZE(offset); i++) {
		KUNIT_EXPECT_EQ(test, k->tiles[i].buf, pto_aic_tiles[i].buf);
		KUNIT_EXPECT_EQ(test, k->tiles[i].offset, offset[i]);
	}
}

static void pto_verify_nested_loop_match(struct kunit *test)
{
	static const struct pto_insn prog[] = {
		/* 0 */ { .op = PTO_OP_LDI, .dst = 0, .imm = 0 },
		/* 1 */ { .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM,
			  .imm = 4 },
		/* 2 */ { .op = PTO_OP_LOOP, .dst = 2, .flags = PTO_INSN_F_IMM,
			  .imm = 3 },
		/* 3 */ { .op = PTO_OP_ALU, .dst = 0, .a = 0,
			  .flags = PTO_INSN_F_IMM, .imm = 1 },
		/* 4 */ { .op = PTO_OP_ENDLOOP },
		/* 5 */ { .op = PTO_OP_LDI, .dst = 4, .imm = 2 },
		/* 6 */ { .op = PTO_OP_LOOP, .dst = 3, .b = 4 },
		/* 7 */ { .op = PTO_OP_LOOP, .dst = 5, .flags = PTO_INSN_F_IMM,
			  .imm = 0 },
		/* 8 */ { .op = PTO_OP_ENDLOOP },
		/* 9 */ { .op = PTO_OP_ENDLOOP },
		/* 10 */ { .op = PTO_OP_ENDLOOP },
		/* 11 */ { .op = PTO_OP_LOOP, .dst = 1, .flags = PTO_INSN_F_IMM,
			   .imm = 1 },
		/* 12 */ { .op = PTO_OP_ENDLOOP },
		/* 13 */ { .op = PTO_OP_END },
	};
	static const u16 want[][2] = {
		{ 1, 10 }, { 2, 4 }, { 6, 9 }, { 7, 8 }, { 11, 12 },
	};
	struct pto_vres *r;
	size_t i;

	r = pto_vrun(test, PTO_CORE_AIV, prog, ARRAY_SIZE(prog), NULL, 0);
	pto_vexpect_ok(test, r);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_EXPECT_EQ(test, r->k->match[want[i][0]], want[i][1]);
		KUNIT_EXPECT_EQ(test, r->k->match[want[i][1]], want[i][0]);
	}
}

static struct kunit_case pto_verifier_cases[] = {
	KUNIT_CASE(pto_verify_empty),
	KUNIT_CASE(pto_verify_too_long),
	KUNIT_CASE(pto_verify_bad_core_type),
	KUNIT_CASE(pto_verify_no_end),
	KUNIT_CASE(pto_verify_log_buffer),
	KUNIT_CASE(pto_verify_tile_dtype_unsigned),
	KUNIT_CASE(pto_verify_tile_zero_dim),
	KUNIT_CASE(pto_verify_tile_dim_too_big),
	KUNIT_CASE(pto_verify_too_many_tiles),
	KUNIT_CASE(pto_verify_tile_reserved),
	KUNIT_CASE(pto_verify_tile_buf_decl),
	KUNIT_CASE(pto_verify_budget_exact_fit),
	KUNIT_CASE(pto_verify_budget_one_more),
	KUNIT_CASE(pto_verify_budget_alignment),
	KUNIT_CASE(pto_verify_tile_offsets_aligned),
	KUNIT_CASE(pto_verify_bad_opcode),
	KUNIT_CASE(pto_verify_bad_opcode_last),
	KUNIT_CASE(pto_verify_syncall_rules),
	KUNIT_CASE(pto_verify_bad_flags),
	KUNIT_CASE(pto_verify_bad_mode),
	KUNIT_CASE(pto_verify_bad_scalar_reg),
	KUNIT_CASE(pto_verify_undeclared_tile),
	KUNIT_CASE(pto_verify_unused_reg_field),
	KUNIT_CASE(pto_verify_unused_imm),
	KUNIT_CASE(pto_verify_matmul_on_aiv),
	KUNIT_CASE(pto_verify_vector_op_on_aic),
	KUNIT_CASE(pto_verify_tload_into_l0c),
	KUNIT_CASE(pto_verify_tstore_from_l0ab),
	KUNIT_CASE(pto_verify_matmul_buffers),
	KUNIT_CASE(pto_verify_tile_shape),
	KUNIT_CASE(pto_verify_matmul_shape),
	KUNIT_CASE(pto_verify_tile_dtype),
	KUNIT_CASE(pto_verify_matmul_dtype),
	KUNIT_CASE(pto_verify_push_pop),
	KUNIT_CASE(pto_verify_arg_index),
	KUNIT_CASE(pto_verify_arg_dtype),
	KUNIT_CASE(pto_verify_mode1_not_tensor),
	KUNIT_CASE(pto_verify_endloop_without_loop),
	KUNIT_CASE(pto_verify_loop_without_endloop),
	KUNIT_CASE(pto_verify_loop_depth),
	KUNIT_CASE(pto_verify_loop_count),
	KUNIT_CASE(pto_verify_jump_backward),
	KUNIT_CASE(pto_verify_jump_to_self),
	KUNIT_CASE(pto_verify_jump_past_end),
	KUNIT_CASE(pto_verify_jump_into_loop),
	KUNIT_CASE(pto_verify_jump_out_of_loop),
	KUNIT_CASE(pto_verify_jump_continue_ok),
	KUNIT_CASE(pto_verify_aiv_add_ok),
	KUNIT_CASE(pto_verify_aic_matmul_ok),
	KUNIT_CASE(pto_verify_nested_loop_match),
	{}
};

static struct kunit_suite pto_verifier_suite = {
	.name = "pto_verifier",
	.test_cases = pto_verifier_cases,
};

kunit_test_suites(&pto_verifier_suite);
