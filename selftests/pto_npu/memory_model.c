// SPDX-License-Identifier: GPL-2.0-only
/*
 * Non-coherent GM and the hazard sanitizer (Documentation/memory-model.rst).
 *
 * One exchange kernel, in the variants the guide warns about: each of
 * BLOCKS blocks stores its value to vals[0, block], meets the others at a
 * SOFT syncall and reads every block's value, counting the ones that are
 * not what their block stored. With the documented pattern (FENCE before
 * the arrival, CACHEINVALID after the release) every read is right and
 * nothing is reported; without the FENCE, or without the CACHEINVALID, or
 * with the tensor form of CACHEINVALID (one 64-byte line), the device
 * gives the same wrong answer every run, as the chip may, and the
 * sanitizer names the load, the store and the element. On a coherent
 * queue the same programs are right: the difference is the memory model.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <stdio.h>
#include <string.h>

#include "pto_test.h"

#define RUN_TIMEOUT PTO_TEST_SEC(60)
/* 20 int32 values: two 64-byte lines, the second holding blocks 16..19. */
#define BLOCKS 20
#define LINE_INTS 16
#define WS_INTS 16
#define VAL(b) (1000 + (b))

enum variant {
	PATTERN,	/* FENCE, SYNCALL, CACHEINVALID */
	NO_FENCE,	/* SYNCALL, CACHEINVALID */
	NO_INVAL,	/* FENCE, SYNCALL */
	INVAL_TENSOR,	/* FENCE, SYNCALL, CACHEINVALID of vals (one line) */
};

struct exch {
	struct pto_kernel *k;
	uint32_t gst_pc;
	uint32_t gld_pc;
};

static int build_exchange(struct pto_device *dev, enum variant v,
			  struct exch *x, char *err, size_t len)
{
	struct pto_kb *kb;
	uint32_t pc = 0;
	int ret;

	ret = pto_kb_new(dev, PTO_CORE_AIV, &kb);
	if (ret)
		return ret;
	/* Six instructions, then the store: its pc is 6. */
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_sreg(kb, 1, PTO_SREG_BLOCK_NUM);
	pto_kb_ldi(kb, 2, 0);
	pto_kb_ldi(kb, 3, 0);
	pto_kb_arg(kb, 12, 0);
	pto_kb_alui(kb, PTO_ALU_ADD, 5, 0, VAL(0));
	pc = 6;
	x->gst_pc = pc++;
	pto_kb_gst(kb, 0, 3, 0, 5);
	if (v != NO_FENCE) {
		pto_kb_fence(kb);
		pc++;
	}
	pto_kb_syncall_soft(kb, 2, 12);
	pc++;
	if (v == PATTERN || v == NO_FENCE) {
		pto_kb_cacheinvalid(kb);
		pc++;
	} else if (v == INVAL_TENSOR) {
		pto_kb_cacheinvalid_tensor(kb, 0);
		pc++;
	}
	pto_kb_loop(kb, 8, 1);
	pc++;
	x->gld_pc = pc;
	pto_kb_gld(kb, 9, 0, 3, 8);
	pto_kb_alui(kb, PTO_ALU_ADD, 10, 8, VAL(0));
	pto_kb_cmp(kb, PTO_CMP_NE, 11, 9, 10);
	pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 11);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 1, 3, 0, 2);
	pto_kb_end(kb);
	ret = pto_kb_finish(kb, &x->k);
	if (ret)
		snprintf(err, len, "%s (%s)", pto_kb_error(kb),
			 pto_strerror(ret));
	pto_kb_free(kb);
	return ret;
}

FIXTURE(mm)
{
	struct pto_device *dev;
	struct pto_tensor *vals, *mism, *ws;
	struct exch x;
	char err[512];
};

FIXTURE_SETUP(mm)
{
	struct pto_device_info info;

	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	ASSERT_EQ(0, pto_device_query_info(self->dev, &info));
	ASSERT_NE(0, (int)!!(info.capabilities & PTO_CAP_MEMORY_MODEL));
	ASSERT_LT(BLOCKS, (int)pto_available_aiv_count(self->dev) + 1);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, BLOCKS,
				       &self->vals));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, BLOCKS,
				       &self->mism));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, WS_INTS,
				       &self->ws));
}

FIXTURE_TEARDOWN(mm)
{
	pto_kernel_free(self->x.k);
	pto_tensor_free(self->ws);
	pto_tensor_free(self->mism);
	pto_tensor_free(self->vals);
	pto_device_close(self->dev);
}

/* Run variant @v on a queue made with @qflags; the graph stays for checks. */
static void run_exchange(struct __test_metadata *_metadata,
			 FIXTURE_DATA(mm) *self, enum variant v,
			 uint32_t qflags, struct pto_graph **gp,
			 struct pto_queue **qp)
{
	struct pto_queue_params p = { .flags = qflags };
	struct pto_tensor *args[3] = { self->vals, self->mism, self->ws };
	int64_t used = BLOCKS;
	struct pto_task_desc d = {
		.kernel_aiv = NULL, .block_num = BLOCKS,
		.flags = PTO_TASK_SYNC_START, .tensors = args,
		.num_tensors = 3, .scalars = &used, .num_scalars = 1,
	};

	if (!self->x.k)
		ASSERT_EQ(0, build_exchange(self->dev, v, &self->x, self->err,
					    sizeof(self->err)))
			TH_LOG("%s", self->err);
	d.kernel_aiv = self->x.k;
	memset(pto_tensor_data(self->vals), 0, BLOCKS * 4);
	memset(pto_tensor_data(self->mism), 0xff, BLOCKS * 4);
	memset(pto_tensor_data(self->ws), 0, WS_INTS * 4);
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, qp));
	ASSERT_EQ(0, pto_graph_new(self->dev, gp));
	ASSERT_EQ(0, pto_graph_add_task(*gp, &d)) TH_LOG("%s",
							 pto_graph_error(*gp));
	ASSERT_EQ(0, pto_graph_run(*gp, *qp, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(*gp));
}

/* Stale values block @b reads under variant @v on non-coherent GM. */
static int32_t expect_stale(enum variant v, unsigned int b)
{
	switch (v) {
	case PATTERN:
		return 0;
	case INVAL_TENSOR:
		/* Only the first line was invalidated: the second is stale. */
		return BLOCKS - LINE_INTS - (b >= LINE_INTS);
	default:
		/* Every value but its own. */
		return BLOCKS - 1;
	}
}

static void check_values(struct __test_metadata *_metadata,
			 FIXTURE_DATA(mm) *self, enum variant v, bool coherent)
{
	const int32_t *pv = pto_tensor_data(self->vals);
	const int32_t *pm = pto_tensor_data(self->mism);
	unsigned int b;

	for (b = 0; b < BLOCKS; b++) {
		/* Every store reaches GM by the task's end. */
		EXPECT_EQ((int32_t)VAL(b), pv[b]) TH_LOG("vals[%u]", b);
		EXPECT_EQ(coherent ? 0 : expect_stale(v, b), pm[b])
			TH_LOG("block %u: stale reads", b);
	}
}

/* The first element block @b finds stale under variant @v. */
static unsigned int first_stale(enum variant v, unsigned int b)
{
	if (v == INVAL_TENSOR)
		return b == LINE_INTS ? LINE_INTS + 1 : LINE_INTS;
	return b ? 0 : 1;
}

static void check_hazards(struct __test_metadata *_metadata,
			  FIXTURE_DATA(mm) *self, const struct pto_graph *g,
			  enum variant v)
{
	unsigned int n = pto_graph_hazard_count(g), i, seen = 0;
	uint32_t kind = v == NO_FENCE ? PTO_HAZARD_UNFENCED :
					PTO_HAZARD_STALE_READ;
	char text[512];

	if (v == PATTERN) {
		EXPECT_EQ(0, (int)n);
		EXPECT_EQ(0, pto_test_blocks_with(g, 0, PTO_BLOCK_HAZARD));
		return;
	}
	EXPECT_EQ(BLOCKS, (int)n);
	EXPECT_EQ(BLOCKS, pto_test_blocks_with(g, 0, PTO_BLOCK_HAZARD));
	for (i = 0; i < n; i++) {
		struct pto_hazard h;
		struct pto_cqe c;
		unsigned int task, b;

		ASSERT_EQ(0, pto_graph_hazard(g, i, &task, &c, &h));
		b = c.info.block;
		seen |= 1U << b;
		EXPECT_EQ(0, (int)task);
		EXPECT_EQ(kind, h.kind) TH_LOG("block %u: %s", b,
					       pto_hazard_kind_name(h.kind));
		EXPECT_EQ((uint32_t)expect_stale(v, b), h.count)
			TH_LOG("block %u", b);
		EXPECT_EQ(self->x.gld_pc, h.pc);
		EXPECT_EQ(0, (int)h.tensor);
		EXPECT_EQ(first_stale(v, b), h.elem) TH_LOG("block %u", b);
		EXPECT_EQ(pto_graph_task_id(g, 0), h.other_task);
		EXPECT_EQ(first_stale(v, b), h.other_block);
		EXPECT_EQ(self->x.gst_pc, h.other_pc);
		EXPECT_EQ(PTO_CORE_AIV, (int)h.other_core_type);
		EXPECT_EQ(0, (int)h.other_tensor);
		ASSERT_LT(0, pto_graph_hazard_str(g, i, text, sizeof(text)));
		EXPECT_NE(NULL, strstr(text, pto_hazard_kind_name(kind)))
			TH_LOG("%s", text);
		if (i == 0)
			TH_LOG("%s", text);
	}
	EXPECT_EQ((1U << BLOCKS) - 1, seen);
}

/* The module parameter sanitize (make check turns it on for every queue). */
static bool module_sanitizes(void)
{
	FILE *f = fopen("/sys/module/pto_npu/parameters/sanitize", "r");
	int c = f ? fgetc(f) : 'N';

	if (f)
		fclose(f);
	return c == 'Y' || c == '1';
}

static void one(struct __test_metadata *_metadata, FIXTURE_DATA(mm) *self,
		enum variant v, uint32_t qflags)
{
	bool coherent = qflags & PTO_QUEUE_COHERENT;
	struct pto_graph *g;
	struct pto_queue *q;

	run_exchange(_metadata, self, v, qflags, &g, &q);
	EXPECT_EQ(!coherent, pto_queue_noncoherent(q));
	EXPECT_EQ(!!(qflags & PTO_QUEUE_SANITIZE) ||
		  (!coherent && module_sanitizes()), pto_queue_sanitizing(q));
	check_values(_metadata, self, v, coherent);
	if (pto_queue_sanitizing(q))
		check_hazards(_metadata, self, g, v);
	else
		EXPECT_EQ(0, (int)pto_graph_hazard_count(g));
	pto_graph_free(g);
	pto_queue_destroy(q);
}

TEST_F(mm, pattern_is_right_and_clean)
{
	one(_metadata, self, PATTERN, PTO_QUEUE_SANITIZE);
}

TEST_F(mm, missing_fence_reads_stale_and_is_reported_unfenced)
{
	one(_metadata, self, NO_FENCE, PTO_QUEUE_SANITIZE);
}

TEST_F(mm, missing_cacheinvalid_reads_stale_and_is_reported)
{
	one(_metadata, self, NO_INVAL, PTO_QUEUE_SANITIZE);
}

TEST_F(mm, tensor_cacheinvalid_refreshes_one_line_only)
{
	one(_metadata, self, INVAL_TENSOR, PTO_QUEUE_SANITIZE);
}

TEST_F(mm, noncoherent_without_sanitizer_gives_the_same_answer)
{
	one(_metadata, self, NO_INVAL, PTO_QUEUE_NONCOHERENT);
}

TEST_F(mm, coherent_queue_hides_the_missing_fence)
{
	one(_metadata, self, NO_FENCE, PTO_QUEUE_COHERENT);
}

TEST_F(mm, coherent_queue_hides_the_missing_cacheinvalid)
{
	one(_metadata, self, NO_INVAL, PTO_QUEUE_COHERENT);
}

/*
 * The queue API, without graphs: the hazard records come with the CQEs
 * (pto_queue_reap_hazards()), and pto_hazard_str() names the location.
 */
static void queue_api(struct __test_metadata *_metadata,
		      FIXTURE_DATA(mm) *self, enum variant v)
{
	struct pto_queue_params p = { .flags = PTO_QUEUE_SANITIZE };
	struct pto_tensor *args[3] = { self->vals, self->mism, self->ws };
	int64_t used = BLOCKS, deadline = pto_time_ns() + RUN_TIMEOUT;
	struct pto_task_desc d = {
		.block_num = BLOCKS, .flags = PTO_TASK_SYNC_START,
		.tensors = args, .num_tensors = 3, .scalars = &used,
		.num_scalars = 1,
	};
	struct pto_cqe c[BLOCKS];
	struct pto_hazard h[BLOCKS];
	unsigned int got = 0, flagged = 0, i;
	uint32_t consumed = 0;
	uint64_t first = 0;
	struct pto_queue *q;
	char text[512];

	ASSERT_EQ(0, build_exchange(self->dev, v, &self->x, self->err,
				    sizeof(self->err))) TH_LOG("%s", self->err);
	d.kernel_aiv = self->x.k;
	memset(pto_tensor_data(self->vals), 0, BLOCKS * 4);
	memset(pto_tensor_data(self->ws), 0, WS_INTS * 4);
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &q));
	ASSERT_EQ(0, pto_queue_push_task(q, &d));
	ASSERT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, &first));
	ASSERT_EQ(1, (int)consumed);
	while (got < BLOCKS) {
		int n = pto_queue_reap_hazards(q, c + got, NULL, h + got,
					       BLOCKS - got);

		ASSERT_LE(0, n);
		got += n;
		if (got < BLOCKS)
			ASSERT_EQ(0, pto_queue_wait(q, deadline));
	}
	for (i = 0; i < BLOCKS; i++) {
		EXPECT_EQ(first, c[i].task_id);
		if (!(c[i].info.flags & PTO_BLOCK_HAZARD)) {
			EXPECT_EQ(PTO_HAZARD_NONE, (int)h[i].kind);
			continue;
		}
		flagged++;
		EXPECT_EQ(self->x.gld_pc, h[i].pc);
		EXPECT_EQ(self->x.gst_pc, h[i].other_pc);
		EXPECT_EQ(first_stale(v, c[i].info.block), h[i].elem);
		ASSERT_LT(0, pto_hazard_str(&c[i], &h[i], text, sizeof(text)));
		EXPECT_NE(NULL, strstr(text, "pc ")) TH_LOG("%s", text);
	}
	EXPECT_EQ(v == PATTERN ? 0 : BLOCKS, (int)flagged);
	pto_queue_destroy(q);
}

TEST_F(mm, queue_api_reports_missing_fence)
{
	queue_api(_metadata, self, NO_FENCE);
}

TEST_F(mm, queue_api_pattern_is_clean)
{
	queue_api(_metadata, self, PATTERN);
}

/* The same wrong answer every run, whatever ran first. */
TEST_F(mm, wrong_answer_is_deterministic)
{
	int32_t first[BLOCKS];
	unsigned int r;

	for (r = 0; r < 4; r++) {
		struct pto_graph *g;
		struct pto_queue *q;

		run_exchange(_metadata, self, NO_FENCE, PTO_QUEUE_NONCOHERENT,
			     &g, &q);
		if (!r)
			memcpy(first, pto_tensor_data(self->mism), sizeof(first));
		else
			EXPECT_EQ(0, memcmp(first, pto_tensor_data(self->mism),
					    sizeof(first)))
				TH_LOG("run %u differs from run 0", r);
		pto_graph_free(g);
		pto_queue_destroy(q);
	}
}

/* QUEUE_CREATE: the memory model's flags and fields, good and bad. */
TEST_F(mm, queue_create_memory_model)
{
	struct drm_pto_npu_queue_create c;
	int fd = pto_test_open();

	ASSERT_LE(0, fd);
	memset(&c, 0, sizeof(c));
	c.flags = DRM_PTO_NPU_QUEUE_F_SANITIZE;
	ASSERT_EQ(0, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	EXPECT_EQ(sizeof(struct drm_pto_npu_hazard), (size_t)c.haz_size);
	EXPECT_LE(c.cq_offset + c.cq_entries * sizeof(struct drm_pto_npu_cqe),
		  c.haz_offset);
	EXPECT_LE(c.haz_offset + (uint64_t)c.cq_entries * c.haz_size, c.ring_size);
	EXPECT_EQ(1, (int)c.gm_model);

	memset(&c, 0, sizeof(c));
	c.flags = DRM_PTO_NPU_QUEUE_F_COHERENT;
	ASSERT_EQ(0, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	EXPECT_EQ(0, (int)c.gm_model);
	EXPECT_EQ(0, (int)c.haz_size);
	EXPECT_EQ(0, (int)c.haz_offset);

	memset(&c, 0, sizeof(c));
	c.flags = DRM_PTO_NPU_QUEUE_F_NONCOHERENT;
	ASSERT_EQ(0, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	EXPECT_EQ(1, (int)c.gm_model);

	/* Coherent GM cannot be sanitized, nor be non-coherent. */
	memset(&c, 0, sizeof(c));
	c.flags = DRM_PTO_NPU_QUEUE_F_COHERENT | DRM_PTO_NPU_QUEUE_F_SANITIZE;
	EXPECT_EQ(-EINVAL, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	c.flags = DRM_PTO_NPU_QUEUE_F_COHERENT | DRM_PTO_NPU_QUEUE_F_NONCOHERENT;
	EXPECT_EQ(-EINVAL, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	/* Unknown flags and output fields set on input are refused. */
	c.flags = DRM_PTO_NPU_QUEUE_F_ALL + 1;
	EXPECT_EQ(-EINVAL, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	c.flags = 0;
	c.haz_offset = 64;
	EXPECT_EQ(-EINVAL, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	c.haz_offset = 0;
	c.haz_size = 48;
	EXPECT_EQ(-EINVAL, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	c.haz_size = 0;
	c.gm_model = 1;
	EXPECT_EQ(-EINVAL, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	c.gm_model = 0;
	c.pad2 = 1;
	EXPECT_EQ(-EINVAL, pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c));
	close(fd);
}

/* libpto: flags that contradict each other are refused before the device. */
TEST_F(mm, libpto_queue_flags)
{
	struct pto_queue_params p = { 0 };
	struct pto_device *dev = self->dev;
	struct pto_queue *q;

	p.flags = PTO_QUEUE_COHERENT | PTO_QUEUE_SANITIZE;
	EXPECT_EQ(-EINVAL, pto_queue_create_params(dev, &p, &q));
	p.flags = PTO_QUEUE_COHERENT | PTO_QUEUE_NONCOHERENT;
	EXPECT_EQ(-EINVAL, pto_queue_create_params(dev, &p, &q));
	p.flags = 1U << 4;
	EXPECT_EQ(-EINVAL, pto_queue_create_params(dev, &p, &q));
}

TEST_HARNESS_MAIN
