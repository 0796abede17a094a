// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cap on inferred dependencies (issue #29, finding 3): a writer after
 * more in-flight readers of its buffer than DRM_PTO_NPU_MAX_INFERRED_DEPS
 * would need that many edges, built under the device-wide scheduler lock.
 * It is refused, STATUS_INVALID with REASON_INFERRED_DEPS and the cap as
 * detail; every other task runs as before, and a writer after exactly the
 * cap's readers is taken.
 *
 * The readers stay in flight behind a gate task that writes a buffer they
 * all read (each reader's one inferred edge), so none has completed when
 * the writer is linked, however fast the host.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include "pto_test.h"

#define RUN_TIMEOUT PTO_TEST_SEC(120)
#define IN DRM_PTO_NPU_TENSOR_F_IN
#define OUT DRM_PTO_NPU_TENSOR_F_OUT
#define CAP DRM_PTO_NPU_MAX_INFERRED_DEPS
/*
 * Iterations of the gate (ARG0 x ARG1): for the refusal, so many that it
 * is still running when its test ends (the close cancels it); for the
 * boundary, some hundred times what the intake of a thousand entries
 * takes, in the same doorbell.
 */
#define GATE_OUTER 1000000
#define GATE_FOREVER 1000000
#define GATE_LONG 4
/* SQ slots for the whole graph at once (3 slots an entry). */
#define SQ_SLOTS 4096

FIXTURE(cap)
{
	struct pto_device *dev;
	struct pto_queue *q;
	/* ARG0 x ARG1 iterations of an add; uses no tensor. */
	struct pto_kernel *k;
	uint32_t gate, buf;
	struct pto_cqe *cqes;
	char err[256];
};

FIXTURE_SETUP(cap)
{
	struct pto_queue_params p = { .sq_slots = SQ_SLOTS };
	struct pto_limits lim;
	struct pto_kb *kb;
	int fd;

	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_device_query_limits(self->dev, &lim));
	/* The gate's spin is counted, not timed: the largest budget. */
	p.work_budget = lim.max_work_budget;
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &self->q));
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_arg(kb, 0, 0);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_arg(kb, 4, 1);
	pto_kb_loop(kb, 2, 0);
	pto_kb_loop(kb, 3, 4);
	pto_kb_alui(kb, PTO_ALU_ADD, 1, 1, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	self->k = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k) TH_LOG("%s", self->err);
	fd = pto_device_fd(self->dev);
	ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &self->gate, NULL));
	ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &self->buf, NULL));
	self->cqes = calloc(CAP + 16, sizeof(*self->cqes));
	ASSERT_NE(NULL, self->cqes);
}

FIXTURE_TEARDOWN(cap)
{
	free(self->cqes);
	pto_kernel_free(self->k);
	pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* A task of @spin iterations with the gate and the buffer as arguments. */
static void push(struct __test_metadata *_metadata, FIXTURE_DATA(cap) *self,
		 uint8_t gate_dir, uint8_t buf_dir, int64_t outer, int64_t inner)
{
	int64_t spin[2] = { outer, inner };
	struct drm_pto_npu_tensor_arg ta[2];
	struct pto_test_sqe e;
	size_t bytes;
	int ret;

	ta[0] = pto_test_targ(self->gate, PTO_ISA_I32, 0, 1, 16);
	ta[0].flags = gate_dir;
	ta[1] = pto_test_targ(self->buf, PTO_ISA_I32, 0, 1, 16);
	ta[1].flags = buf_dir;
	bytes = pto_test_sqe_init(&e, pto_kernel_handle(self->k), 0, 1, ta, 2,
				  spin, 2, NULL, 0);
	ret = pto_queue_push_raw(self->q, &e, bytes);
	ASSERT_EQ(0, ret);
}

/*
 * The gate (ARG1 @inner), @readers readers of the buffer behind it, a
 * writer of the buffer, in one doorbell: the readers are linked while the
 * gate runs. Returns the first completed task's id.
 */
static uint64_t submit(struct __test_metadata *_metadata,
		       FIXTURE_DATA(cap) *self, unsigned int readers,
		       int64_t inner)
{
	uint32_t consumed = 0;
	uint64_t first = 0;
	unsigned int i;

	push(_metadata, self, OUT, 0, GATE_OUTER, inner);
	for (i = 0; i < readers; i++)
		push(_metadata, self, IN, IN, 1, 1);
	push(_metadata, self, 0, OUT, 1, 1);
	EXPECT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	EXPECT_EQ(readers + 2, consumed);
	return first;
}

TEST_F_TIMEOUT(cap, writer_after_more_readers_than_the_cap_is_refused, 300)
{
	uint64_t first = submit(_metadata, self, CAP + 1, GATE_FOREVER);
	const struct pto_cqe *w;
	int got;

	/* Refused at intake: the only task that completes before the gate. */
	got = pto_test_reap_lasts(self->q, self->cqes, CAP + 16, 1, RUN_TIMEOUT);
	ASSERT_LE(1, got);
	w = pto_test_find_last(self->cqes, got, first + CAP + 2);
	ASSERT_NE(NULL, w) TH_LOG("the writer completed first");
	EXPECT_EQ(PTO_STATUS_INVALID, w->info.status);
	EXPECT_EQ(PTO_REASON_INFERRED_DEPS, w->info.reason);
	EXPECT_EQ((uint64_t)CAP, w->info.detail);
}

TEST_F_TIMEOUT(cap, writer_after_the_cap_of_readers_runs, 300)
{
	uint64_t first = submit(_metadata, self, CAP, GATE_LONG);
	unsigned int i, n = CAP + 2;
	int got;

	got = pto_test_reap_lasts(self->q, self->cqes, CAP + 16, n, RUN_TIMEOUT);
	ASSERT_LE((int)n, got);
	for (i = 0; i < n; i++) {
		const struct pto_cqe *c = pto_test_find_last(self->cqes, got,
							      first + i);

		ASSERT_NE(NULL, c);
		EXPECT_EQ(PTO_STATUS_OK, c->info.status)
			TH_LOG("task %u: reason %u", i, c->info.reason);
	}
}

/* kmod/pto_infer.h: PTO_INFER_IDLE_MAX, the empty trees a context keeps. */
#define IDLE_MAX 64
#define QUEUES_DEBUGFS "/sys/kernel/debug/accel/pto_npu.0/queues"
/* Refused writers, each naming fresh buffers before the crowded one. */
#define REFUSALS 12U
/* Tensor arguments of one task (&pto_limits.max_tensor_args). */
#define TARGS 16

/* The most idle trees any context keeps (debugfs), or -1 without it. */
static int max_idle_trees(void)
{
	FILE *f = fopen(QUEUES_DEBUGFS, "r");
	char line[512];
	int most = -1;

	while (f && fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, "idle_trees=");

		if (at && atoi(at + strlen("idle_trees=")) > most)
			most = atoi(at + strlen("idle_trees="));
	}
	if (f)
		fclose(f);
	return most;
}

/*
 * A writer of 15 buffers no task uses, then the crowded one: its trees
 * for the 15 are taken before the crowded one refuses it.
 */
static void push_wide_writer(struct __test_metadata *_metadata,
			     FIXTURE_DATA(cap) *self, const uint32_t *fresh)
{
	struct drm_pto_npu_tensor_arg ta[TARGS];
	const int64_t spin[2] = { 1, 1 };
	struct pto_test_sqe e;
	uint32_t i, last = TARGS - 1;
	size_t bytes;

	for (i = 0; i < last; i++) {
		ta[i] = pto_test_targ(fresh[i], PTO_ISA_I32, 0, 1, 16);
		ta[i].flags = OUT;
	}
	ta[last] = pto_test_targ(self->buf, PTO_ISA_I32, 0, 1, 16);
	ta[last].flags = OUT;
	bytes = pto_test_sqe_init(&e, pto_kernel_handle(self->k), 0, 1, ta,
				  last + 1, spin, 2, NULL, 0);
	ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, bytes));
}

/*
 * Issue #46, item 5: each refusal used to leave the trees it took on the
 * idle list, past its bound: REFUSALS x 15 of them here.
 */
TEST_F_TIMEOUT(cap, refused_writers_leave_the_idle_trees_bounded, 300)
{
	uint64_t first = submit(_metadata, self, CAP + 1, GATE_FOREVER), id = 0;
	uint32_t fresh[REFUSALS][TARGS - 1];
	int fd = pto_device_fd(self->dev), got;
	uint32_t i, j, consumed = 0;

	if (max_idle_trees() < 0)
		SKIP(return, "no %s (debugfs not mounted)", QUEUES_DEBUGFS);
	for (i = 0; i < REFUSALS; i++) {
		for (j = 0; j < TARGS - 1; j++)
			ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &fresh[i][j], NULL));
		push_wide_writer(_metadata, self, fresh[i]);
	}
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &id));
	EXPECT_EQ(REFUSALS, consumed);
	got = pto_test_reap_lasts(self->q, self->cqes, CAP + 16, REFUSALS + 1,
				  RUN_TIMEOUT);
	ASSERT_LE((int)REFUSALS + 1, got);
	for (i = 0; i <= REFUSALS; i++) {
		const struct pto_cqe *w = pto_test_find_last(self->cqes, got,
							      i ? id + i - 1 : first + CAP + 2);

		ASSERT_NE(NULL, w) TH_LOG("writer %u", i);
		EXPECT_EQ(PTO_REASON_INFERRED_DEPS, w->info.reason);
	}
	EXPECT_GE(IDLE_MAX, max_idle_trees());
}

TEST_HARNESS_MAIN
