// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch queues: QUEUE_CREATE, QUEUE_DESTROY, QUEUE_SUBMIT (the doorbell)
 * and QUEUE_WAIT refusals one by one; the ring layout as mapped; held
 * completions; every kind of SQ entry the device refuses, each between two
 * valid tasks that must run as if it were not there; completion through
 * DRM syncobjs (binary and timeline) and poll().
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/sync_file.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* A queue id and a syncobj handle no context of the test has. */
#define UNKNOWN_QUEUE 0x7fffu
#define UNKNOWN_SYNCOBJ 0x7ffffu

/*
 * The slow tasks: SLOW_OUTER x SLOW_INNER loop iterations, a second or two
 * in the test VM, long enough that the test sees them running even when
 * its vCPU is starved for a while.
 */
#define SLOW_OUTER 3
#define SLOW_INNER 1000000
/* The mark kernel's spin argument counts thousands of iterations. */
#define SLOW_SPIN (SLOW_OUTER * SLOW_INNER / 1000)

/* How long a batch of these tests may take at most. */
#define BATCH_TIMEOUT_NS PTO_TEST_SEC(60)

/* ------------------------------------------------------------------ raw */

static int q_create(int fd, struct drm_pto_npu_queue_create *c)
{
	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, c));
}

static int q_destroy(int fd, uint32_t id, uint32_t pad)
{
	struct drm_pto_npu_queue_destroy d = { .queue_id = id, .pad = pad };

	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &d));
}

static int q_submit(int fd, struct drm_pto_npu_queue_submit *s)
{
	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, s));
}

static int q_wait(int fd, struct drm_pto_npu_queue_wait *w)
{
	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, w));
}

/* A queue created and mapped with raw ioctls. */
struct raw_queue {
	struct drm_pto_npu_queue_create c;
	uint8_t *map;
	struct drm_pto_npu_ring_header *hdr;
	uint8_t *sq;
	struct drm_pto_npu_cqe *cq;
};

static int raw_queue_open(int fd, uint32_t sq, uint32_t cq,
			  struct raw_queue *rq)
{
	int ret;

	memset(rq, 0, sizeof(*rq));
	rq->c.sq_slots = sq;
	rq->c.cq_entries = cq;
	/* k_slow runs past the default work budget. */
	rq->c.work_budget = PTO_TEST_LONG_BUDGET;
	ret = q_create(fd, &rq->c);
	if (ret)
		return ret;
	rq->map = mmap(NULL, rq->c.ring_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, (off_t)rq->c.mmap_offset);
	if (rq->map == MAP_FAILED)
		return -errno;
	rq->hdr = (struct drm_pto_npu_ring_header *)rq->map;
	rq->sq = rq->map + rq->c.sq_offset;
	rq->cq = (struct drm_pto_npu_cqe *)(rq->map + rq->c.cq_offset);
	return 0;
}

/* Writes a one-slot entry of @blocks blocks of @kernel (no arguments). */
static void raw_push_blocks(struct raw_queue *rq, uint32_t kernel,
			    uint64_t user_data, uint32_t blocks)
{
	uint32_t tail = rq->hdr->sq_tail;
	struct drm_pto_npu_sqe *e = (struct drm_pto_npu_sqe *)
		(rq->sq + (tail & (rq->c.sq_slots - 1)) * DRM_PTO_NPU_SQ_SLOT_SIZE);

	memset(e, 0, sizeof(*e));
	e->user_data = user_data;
	e->kernel_aiv = kernel;
	e->block_num = blocks;
	e->num_slots = 1;
	__atomic_store_n(&rq->hdr->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/* Writes a one-slot, one-block entry running @kernel (no arguments). */
static void raw_push_task(struct raw_queue *rq, uint32_t kernel,
			  uint64_t user_data)
{
	raw_push_blocks(rq, kernel, user_data, 1);
}

static int raw_doorbell(int fd, struct raw_queue *rq, uint32_t *consumed,
			uint64_t *first)
{
	struct drm_pto_npu_queue_submit s = { .queue_id = rq->c.queue_id };
	int ret = q_submit(fd, &s);

	if (consumed)
		*consumed = s.consumed;
	if (first)
		*first = s.first_task_id;
	return ret;
}

static uint32_t cq_tail(const struct raw_queue *rq)
{
	return __atomic_load_n(&rq->hdr->cq_tail, __ATOMIC_ACQUIRE);
}

/* Waits (QUEUE_WAIT, polling the header) until cq_tail reaches @n. */
static int raw_wait_cqes(int fd, struct raw_queue *rq, uint32_t n,
			 int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;

	while (cq_tail(rq) - rq->hdr->cq_head < n) {
		struct drm_pto_npu_queue_wait w = {
			.queue_id = rq->c.queue_id,
			.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(100),
		};
		int ret = q_wait(fd, &w);

		if (ret && ret != -ETIME)
			return ret;
		if (pto_test_now_ns() > deadline)
			return -ETIME;
	}
	return 0;
}

/* A program that loops @outer x @inner times, then ends (7 insns). */
static void spin_program(struct pto_insn p[7], int64_t outer, int64_t inner)
{
	memset(p, 0, 7 * sizeof(*p));
	p[0].op = PTO_OP_LDI;
	p[0].dst = 0;
	p[0].imm = outer;
	p[1].op = PTO_OP_LDI;
	p[1].dst = 2;
	p[1].imm = inner;
	p[2].op = PTO_OP_LOOP;
	p[2].dst = 1;
	p[2].b = 0;
	p[3].op = PTO_OP_LOOP;
	p[3].dst = 3;
	p[3].b = 2;
	p[4].op = PTO_OP_ENDLOOP;
	p[5].op = PTO_OP_ENDLOOP;
	p[6].op = PTO_OP_END;
}

static int raw_kernel(int fd, const struct pto_insn *p, uint32_t n,
		      uint32_t *handle)
{
	struct drm_pto_npu_kernel_create c = {
		.insns = (uintptr_t)p,
		.num_insns = n,
		.core_type = PTO_CORE_AIV,
	};
	int ret = pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &c));

	*handle = c.handle;
	return ret;
}

FIXTURE(queue)
{
	int fd;
	struct drm_pto_npu_limits lim;
	uint32_t k_end;		/* END only */
	uint32_t k_slow;	/* SLOW_OUTER x SLOW_INNER iterations */
};

FIXTURE_SETUP(queue)
{
	struct pto_insn end = { .op = PTO_OP_END }, spin[7];

	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", pto_test_device_path(),
				      strerror(errno));
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
	ASSERT_EQ(0, raw_kernel(self->fd, &end, 1, &self->k_end));
	spin_program(spin, SLOW_OUTER, SLOW_INNER);
	ASSERT_EQ(0, raw_kernel(self->fd, spin, 7, &self->k_slow));
}

FIXTURE_TEARDOWN(queue)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* ------------------------------------------------------------------ create */

TEST_F(queue, create_defaults_and_layout)
{
	struct drm_pto_npu_queue_create c = { 0 };
	uint64_t size, offset;

	ASSERT_EQ(0, q_create(self->fd, &c));
	EXPECT_EQ(1024u, c.sq_slots);
	EXPECT_EQ(4096u, c.cq_entries);
	EXPECT_LE(1u, c.queue_id);
	EXPECT_GE(self->lim.max_queues_per_context, c.queue_id);
	EXPECT_NE(0u, c.handle);
	EXPECT_EQ((uint32_t)sizeof(struct drm_pto_npu_ring_header), c.sq_offset);
	EXPECT_EQ(256u, c.sq_offset);
	EXPECT_EQ(c.sq_offset + c.sq_slots * DRM_PTO_NPU_SQ_SLOT_SIZE, c.cq_offset);
	EXPECT_LE((uint64_t)c.cq_offset +
		  (uint64_t)c.cq_entries * sizeof(struct drm_pto_npu_cqe),
		  c.ring_size);
	EXPECT_EQ(0ull, c.ring_size % pto_test_page_size());
	/* The handle names the ring buffer, at the same mmap offset. */
	ASSERT_EQ(0, pto_test_bo_info(self->fd, c.handle, &size, &offset));
	EXPECT_EQ(c.ring_size, size);
	EXPECT_EQ(c.mmap_offset, offset);
}

TEST_F(queue, create_cq_default_is_four_times_sq)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 64 };

	ASSERT_EQ(0, q_create(self->fd, &c));
	EXPECT_EQ(64u, c.sq_slots);
	EXPECT_EQ(256u, c.cq_entries);
	EXPECT_EQ(256u + 64u * 64u, c.cq_offset);
}

TEST_F(queue, create_largest_sq_clamps_default_cq)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = self->lim.max_sq_slots };

	ASSERT_EQ(0, q_create(self->fd, &c));
	EXPECT_EQ(self->lim.max_sq_slots, c.sq_slots);
	EXPECT_EQ(self->lim.max_cq_entries, c.cq_entries);
	EXPECT_EQ(0, q_destroy(self->fd, c.queue_id, 0));
}

TEST_F(queue, create_smallest_sizes_accepted)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 32, .cq_entries = 1 };

	ASSERT_EQ(0, q_create(self->fd, &c));
	EXPECT_EQ(32u, c.sq_slots);
	EXPECT_EQ(1u, c.cq_entries);
}

TEST_F(queue, create_unknown_flags_rejected)
{
	struct drm_pto_npu_queue_create c = {
		.flags = DRM_PTO_NPU_QUEUE_F_ALL + 1,
	};

	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	c.flags = DRM_PTO_NPU_QUEUE_F_PROFILE | 0x80000000u;
	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	c.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	EXPECT_EQ(0u, c.queue_id);
}

TEST_F(queue, create_profile_layout)
{
	struct drm_pto_npu_queue_create c = {
		.sq_slots = 64, .cq_entries = 128,
		.flags = DRM_PTO_NPU_QUEUE_F_PROFILE,
	};
	struct drm_pto_npu_device_info info;
	uint64_t cq_end;

	ASSERT_EQ(0, pto_test_device_info(self->fd, &info));
	EXPECT_TRUE(!!(info.capabilities & DRM_PTO_NPU_CAP_PROFILE));
	ASSERT_EQ(0, q_create(self->fd, &c));
	cq_end = c.cq_offset + (uint64_t)c.cq_entries * sizeof(struct drm_pto_npu_cqe);
	EXPECT_EQ((uint32_t)sizeof(struct drm_pto_npu_prof), c.prof_size);
	EXPECT_EQ(0u, c.prof_size % 8);
	EXPECT_LE(cq_end, c.prof_offset);
	EXPECT_EQ(0u, c.prof_offset % 8);
	EXPECT_LE((uint64_t)c.prof_offset + (uint64_t)c.cq_entries * c.prof_size,
		  c.ring_size);
}

TEST_F(queue, create_without_profile_reports_none)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 64 };

	ASSERT_EQ(0, q_create(self->fd, &c));
	EXPECT_EQ(0u, c.prof_offset);
	EXPECT_EQ(0u, c.prof_size);
}

TEST_F(queue, create_nonzero_prof_fields_rejected)
{
	struct drm_pto_npu_queue_create c = {
		.flags = DRM_PTO_NPU_QUEUE_F_PROFILE, .prof_offset = 4096,
	};

	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	c.prof_offset = 0;
	c.prof_size = (uint32_t)sizeof(struct drm_pto_npu_prof);
	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	EXPECT_EQ(0u, c.queue_id);
}

TEST_F(queue, create_nonzero_pad_rejected)
{
	struct drm_pto_npu_queue_create c = { .pad = 1 };

	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	EXPECT_EQ(0u, c.queue_id);
}

TEST_F(queue, create_nonzero_input_queue_id_rejected)
{
	struct drm_pto_npu_queue_create c = { .queue_id = 1 };

	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	/* Nothing was created. */
	EXPECT_EQ(-ENOENT, q_destroy(self->fd, 1, 0));
}

TEST_F(queue, create_nonzero_input_handle_rejected)
{
	struct drm_pto_npu_queue_create c = { .handle = 1 };

	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	EXPECT_EQ(-ENOENT, q_destroy(self->fd, 1, 0));
}

TEST_F(queue, create_sq_not_power_of_two_rejected)
{
	static const uint32_t bad[] = { 33, 48, 96, 1000, 65535 };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drm_pto_npu_queue_create c = { .sq_slots = bad[i] };

		EXPECT_EQ(-EINVAL, q_create(self->fd, &c)) TH_LOG("sq %u", bad[i]);
	}
}

TEST_F(queue, create_sq_below_min_rejected)
{
	static const uint32_t bad[] = { 1, 2, 8, 16 };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drm_pto_npu_queue_create c = { .sq_slots = bad[i] };

		EXPECT_EQ(-EINVAL, q_create(self->fd, &c)) TH_LOG("sq %u", bad[i]);
	}
}

TEST_F(queue, create_sq_above_max_rejected)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = self->lim.max_sq_slots * 2 };

	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	c.sq_slots = 0x80000000u;
	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
}

TEST_F(queue, create_cq_not_power_of_two_rejected)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 32, .cq_entries = 48 };

	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	c.cq_entries = 3;
	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
}

TEST_F(queue, create_cq_above_max_rejected)
{
	struct drm_pto_npu_queue_create c = {
		.sq_slots = 32,
		.cq_entries = self->lim.max_cq_entries * 2,
	};

	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	c.cq_entries = 0x80000000u;
	EXPECT_EQ(-EINVAL, q_create(self->fd, &c));
	/* At the cap it is fine. */
	c.cq_entries = self->lim.max_cq_entries;
	EXPECT_EQ(0, q_create(self->fd, &c));
	EXPECT_EQ(self->lim.max_cq_entries, c.cq_entries);
}

TEST_F(queue, queue_cap_enospc)
{
	uint32_t cap = self->lim.max_queues_per_context, i, j;
	uint32_t ids[64];
	struct drm_pto_npu_queue_create c;

	ASSERT_GE(64u, cap);
	for (i = 0; i < cap; i++) {
		c = (struct drm_pto_npu_queue_create){ .sq_slots = 32, .cq_entries = 32 };
		ASSERT_EQ(0, q_create(self->fd, &c)) TH_LOG("queue %u", i);
		ids[i] = c.queue_id;
		ASSERT_NE(0u, ids[i]);
		for (j = 0; j < i; j++) {
			ASSERT_NE(ids[j], ids[i]);
		}
	}
	c = (struct drm_pto_npu_queue_create){ .sq_slots = 32, .cq_entries = 32 };
	EXPECT_EQ(-ENOSPC, q_create(self->fd, &c));
	EXPECT_EQ(0u, c.queue_id);

	/* Room for one again after one is destroyed. */
	ASSERT_EQ(0, q_destroy(self->fd, ids[3], 0));
	c = (struct drm_pto_npu_queue_create){ .sq_slots = 32, .cq_entries = 32 };
	EXPECT_EQ(0, q_create(self->fd, &c));
	c = (struct drm_pto_npu_queue_create){ .sq_slots = 32, .cq_entries = 32 };
	EXPECT_EQ(-ENOSPC, q_create(self->fd, &c));
}

/*
 * QUEUE_CREATE past the queue cap fails after its ring is made. Another
 * thread of the file creating and closing buffers meanwhile must never see
 * the failing call's ring under a handle (which it could close, its number
 * then reused by the next buffer), and never lose a handle of its own.
 */
struct cap_race {
	int fd;
	uint32_t queue;			/* a live queue, for the lock hammer */
	volatile int stop;
	volatile unsigned long fails;	/* QUEUE_CREATE refused, -ENOSPC */
	volatile int bad;		/* any other result */
};

static void *cap_race_create(void *arg)
{
	struct cap_race *r = arg;

	while (!r->stop) {
		struct drm_pto_npu_queue_create c = { .sq_slots = 32, .cq_entries = 32 };
		int ret = q_create(r->fd, &c);

		if (ret != -ENOSPC)
			r->bad = ret ? ret : 1;
		__atomic_add_fetch(&r->fails, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/* Contend for submit_lock: a failing create waits in it longer. */
static void *cap_race_hammer(void *arg)
{
	struct cap_race *r = arg;

	while (!r->stop) {
		struct drm_pto_npu_queue_wait w = { .queue_id = r->queue };

		q_wait(r->fd, &w);
	}
	return NULL;
}

TEST_F_TIMEOUT(queue, failed_create_leaves_other_handles, 120)
{
	uint32_t cap = self->lim.max_queues_per_context, i, h, h2, free_h;
	struct cap_race r = { .fd = self->fd };
	unsigned long exposed = 0, lost = 0, rounds = 0, seen;
	struct drm_pto_npu_queue_create c;
	pthread_t tc, th;
	int64_t end;

	for (i = 0; i < cap; i++) {
		c = (struct drm_pto_npu_queue_create){ .sq_slots = 32, .cq_entries = 32 };
		ASSERT_EQ(0, q_create(self->fd, &c)) TH_LOG("queue %u", i);
		r.queue = c.queue_id;
	}
	/* The lowest free handle number, which each new handle takes. */
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &free_h, NULL));
	ASSERT_EQ(0, pto_test_gem_close(self->fd, free_h));

	ASSERT_EQ(0, pthread_create(&tc, NULL, cap_race_create, &r));
	ASSERT_EQ(0, pthread_create(&th, NULL, cap_race_hammer, &r));
	end = pto_test_now_ns() + PTO_TEST_SEC(5);
	while (pto_test_now_ns() < end && !r.bad) {
		ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &h, NULL));
		rounds++;
		/* The failing create's ring has a handle: take its number. */
		if (h != free_h)
			exposed++;
		if (h != free_h && !pto_test_gem_close(self->fd, free_h)) {
			ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &h2, NULL));
			seen = r.fails;
			while (r.fails < seen + 2 && !r.bad)
				sched_yield();
			if (pto_test_bo_info(self->fd, h2, NULL, NULL))
				lost++;
			else
				pto_test_gem_close(self->fd, h2);
		}
		EXPECT_EQ(0, pto_test_bo_info(self->fd, h, NULL, NULL));
		pto_test_gem_close(self->fd, h);
	}
	r.stop = 1;
	pthread_join(tc, NULL);
	pthread_join(th, NULL);
	TH_LOG("%lu failed creates, %lu rounds, %lu ring handles seen, %lu lost",
	       r.fails, rounds, exposed, lost);
	EXPECT_EQ(0, r.bad);
	EXPECT_LT(0ul, r.fails);
	EXPECT_EQ(0ul, lost);
	EXPECT_EQ(0ul, exposed);
}

TEST_F(queue, ring_mapping_matches_layout)
{
	struct raw_queue rq;
	struct drm_pto_npu_cqe *cqe;
	uint32_t consumed;
	uint64_t first;

	ASSERT_EQ(0, raw_queue_open(self->fd, 64, 128, &rq));
	ASSERT_EQ(64u, rq.c.sq_slots);
	ASSERT_EQ(128u, rq.c.cq_entries);
	/* A fresh ring: every index zero. */
	EXPECT_EQ(0u, rq.hdr->sq_head);
	EXPECT_EQ(0u, rq.hdr->sq_tail);
	EXPECT_EQ(0u, rq.hdr->cq_head);
	EXPECT_EQ(0u, rq.hdr->cq_tail);
	EXPECT_EQ(0u, rq.hdr->cq_held);

	/* The device reads the entry where the layout says slot 0 is... */
	raw_push_task(&rq, self->k_end, 0x1234abcd);
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, &first));
	EXPECT_EQ(1u, consumed);
	EXPECT_EQ(1ull, first);
	EXPECT_EQ(1u, rq.hdr->sq_head);

	/* ...and writes the completion where it says CQE 0 is. */
	ASSERT_EQ(0, raw_wait_cqes(self->fd, &rq, 1, BATCH_TIMEOUT_NS));
	EXPECT_EQ(1u, cq_tail(&rq));
	cqe = &rq.cq[0];
	EXPECT_EQ(0x1234abcdull, cqe->user_data);
	EXPECT_EQ(1ull, cqe->task_id);
	EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, cqe->status);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_CQE_F_LAST | DRM_PTO_NPU_CQE_F_RAN,
		  cqe->flags);
	EXPECT_EQ(PTO_CORE_AIV, cqe->core_type);
	/* CQE 1 is untouched. */
	EXPECT_TRUE(pto_test_all_bytes(&rq.cq[1], sizeof(rq.cq[1]), 0));
	munmap(rq.map, rq.c.ring_size);
}

TEST_F(queue, ring_handle_close_keeps_queue)
{
	struct raw_queue rq;
	uint32_t consumed;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 32, &rq));
	ASSERT_EQ(0, pto_test_gem_close(self->fd, rq.c.handle));
	/* The mapping and the queue live on. */
	raw_push_task(&rq, self->k_end, 7);
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, NULL));
	EXPECT_EQ(1u, consumed);
	ASSERT_EQ(0, raw_wait_cqes(self->fd, &rq, 1, BATCH_TIMEOUT_NS));
	EXPECT_EQ(7ull, rq.cq[0].user_data);
	EXPECT_EQ(0, q_destroy(self->fd, rq.c.queue_id, 0));
	munmap(rq.map, rq.c.ring_size);
}

/* ------------------------------------------------------------------ destroy */

TEST_F(queue, destroy_nonzero_pad_rejected)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 32 };

	ASSERT_EQ(0, q_create(self->fd, &c));
	EXPECT_EQ(-EINVAL, q_destroy(self->fd, c.queue_id, 1));
	EXPECT_EQ(0, q_destroy(self->fd, c.queue_id, 0));
}

TEST_F(queue, destroy_unknown_queue_enoent)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 32 };

	EXPECT_EQ(-ENOENT, q_destroy(self->fd, 0, 0));
	EXPECT_EQ(-ENOENT, q_destroy(self->fd, UNKNOWN_QUEUE, 0));
	ASSERT_EQ(0, q_create(self->fd, &c));
	EXPECT_EQ(0, q_destroy(self->fd, c.queue_id, 0));
	EXPECT_EQ(-ENOENT, q_destroy(self->fd, c.queue_id, 0));
}

/*
 * QUEUE_DESTROY while the queue's task is live: -EBUSY. A task is live at
 * least until its CQE is posted, and is freed some time after: a refusal
 * is required when no CQE was out even once the call had returned; after
 * that, the task may have been freed in between (the queue then goes,
 * which is right too), however the host schedules the two.
 */
static int destroy_while_live(int fd, struct raw_queue *rq, bool *gone)
{
	int ret = q_destroy(fd, rq->c.queue_id, 0);

	if (cq_tail(rq) == 0)
		return ret == -EBUSY ? 0 : ret ? ret : -EEXIST;
	if (!ret)
		*gone = true;
	return ret == -EBUSY || !ret ? 0 : ret;
}

TEST_F(queue, destroy_busy_while_tasks_in_flight)
{
	struct drm_pto_npu_queue_wait w;
	struct raw_queue rq;
	uint32_t consumed;
	int64_t deadline;
	bool gone = false;
	int ret;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 32, &rq));
	raw_push_task(&rq, self->k_slow, 1);
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, NULL));
	ASSERT_EQ(1u, consumed);
	EXPECT_EQ(0, destroy_while_live(self->fd, &rq, &gone))
		TH_LOG("QUEUE_DESTROY with the task live: not -EBUSY");

	/* Until the task is freed (inflight 0) the queue stays. */
	deadline = pto_test_now_ns() + BATCH_TIMEOUT_NS;
	while (!gone) {
		w = (struct drm_pto_npu_queue_wait){
			.queue_id = rq.c.queue_id,
			.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(50),
		};
		ret = q_wait(self->fd, &w);
		ASSERT_TRUE(ret == 0 || ret == -ETIME) TH_LOG("wait: %d", ret);
		if (!w.inflight)
			break;
		EXPECT_EQ(0, destroy_while_live(self->fd, &rq, &gone))
			TH_LOG("QUEUE_DESTROY with the task live: not -EBUSY");
		ASSERT_LT(pto_test_now_ns(), deadline);
	}
	EXPECT_EQ(1u, cq_tail(&rq));
	EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, rq.cq[0].status);
	/* An unread CQE does not keep the queue: only live tasks do. */
	if (!gone) {
		EXPECT_EQ(0, q_destroy(self->fd, rq.c.queue_id, 0));
	}
	munmap(rq.map, rq.c.ring_size);
}

TEST_F(queue, held_completions_are_kept_in_order)
{
	struct drm_pto_npu_cqe got[4];
	struct drm_pto_npu_queue_wait w;
	struct raw_queue rq;
	uint32_t consumed, i, seen = 0;
	uint64_t first;
	int64_t deadline;

	/* Four tasks, room for two CQEs: two are held. */
	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 2, &rq));
	for (i = 0; i < 4; i++)
		raw_push_task(&rq, self->k_end, 100 + i);
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, &first));
	ASSERT_EQ(4u, consumed);
	deadline = pto_test_now_ns() + BATCH_TIMEOUT_NS;
	while (__atomic_load_n(&rq.hdr->cq_held, __ATOMIC_ACQUIRE) != 2) {
		ASSERT_LT(pto_test_now_ns(), deadline)
			TH_LOG("cq_tail %u cq_held %u", cq_tail(&rq), rq.hdr->cq_held);
		usleep(1000);
	}
	EXPECT_EQ(2u, cq_tail(&rq));
	/* Held completions keep their tasks, and so the queue, alive. */
	EXPECT_EQ(-EBUSY, q_destroy(self->fd, rq.c.queue_id, 0));
	got[0] = rq.cq[0];
	got[1] = rq.cq[1];

	/* Free the CQ; QUEUE_WAIT moves the held ones in. */
	__atomic_store_n(&rq.hdr->cq_head, 2, __ATOMIC_RELEASE);
	w = (struct drm_pto_npu_queue_wait){ .queue_id = rq.c.queue_id };
	EXPECT_EQ(0, q_wait(self->fd, &w));
	EXPECT_EQ(2u, w.available);
	EXPECT_EQ(0u, w.inflight);
	EXPECT_EQ(4u, cq_tail(&rq));
	EXPECT_EQ(0u, rq.hdr->cq_held);
	got[2] = rq.cq[0];
	got[3] = rq.cq[1];

	/* Each task exactly once, in the order they completed. */
	for (i = 0; i < 4; i++) {
		uint64_t ud = got[i].user_data;

		ASSERT_LE(100ull, ud);
		ASSERT_GT(104ull, ud);
		seen |= 1u << (ud - 100);
		EXPECT_EQ(first + (ud - 100), got[i].task_id);
		EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, got[i].status);
		EXPECT_EQ((uint32_t)DRM_PTO_NPU_CQE_F_LAST | DRM_PTO_NPU_CQE_F_RAN,
			  got[i].flags);
		if (i) {
			EXPECT_LE(got[i - 1].ts_finish, got[i].ts_finish) TH_LOG("CQE %u", i);
		}
	}
	EXPECT_EQ(0xfu, seen);
	EXPECT_EQ(0, q_destroy(self->fd, rq.c.queue_id, 0));
	munmap(rq.map, rq.c.ring_size);
}

/*
 * A completion that does not fit in the CQ: what fits is posted, the rest
 * held. A thread asleep in QUEUE_WAIT (or poll()) must be woken by it, not
 * sleep on to its deadline while a CQE waits to be read.
 */
#define HELD_WAKE_DEADLINE PTO_TEST_SEC(20)

TEST_F_TIMEOUT(queue, wait_wakes_when_completion_is_held, 60)
{
	struct drm_pto_npu_queue_wait w;
	struct raw_queue rq;
	uint32_t consumed;
	int64_t start, elapsed;
	int ret;

	/* Two slow blocks, room for one CQE. */
	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 1, &rq));
	raw_push_blocks(&rq, self->k_slow, 7, 2);
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, NULL));
	ASSERT_EQ(1u, consumed);
	start = pto_test_now_ns();
	w = (struct drm_pto_npu_queue_wait){
		.queue_id = rq.c.queue_id,
		.timeout_ns = start + HELD_WAKE_DEADLINE,
	};
	ret = q_wait(self->fd, &w);
	elapsed = pto_test_now_ns() - start;
	TH_LOG("QUEUE_WAIT returned %d after %lld ms (deadline %lld ms)", ret,
	       (long long)elapsed / 1000000,
	       (long long)HELD_WAKE_DEADLINE / 1000000);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1u, w.available);
	/* The task takes a second or two: woken by it, not by the deadline. */
	EXPECT_GT(HELD_WAKE_DEADLINE / 2, elapsed);
	EXPECT_EQ(1u, cq_tail(&rq));
	EXPECT_EQ(7ull, rq.cq[0].user_data);
	munmap(rq.map, rq.c.ring_size);
}

TEST_F_TIMEOUT(queue, poll_wakes_when_completion_is_held, 60)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct raw_queue rq;
	uint32_t consumed;
	int64_t start, elapsed;
	int ret;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 1, &rq));
	raw_push_blocks(&rq, self->k_slow, 8, 2);
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, NULL));
	ASSERT_EQ(1u, consumed);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	start = pto_test_now_ns();
	ret = poll(&pfd, 1, (int)(HELD_WAKE_DEADLINE / 1000000));
	elapsed = pto_test_now_ns() - start;
	TH_LOG("poll returned %d after %lld ms", ret, (long long)elapsed / 1000000);
	EXPECT_EQ(1, ret);
	EXPECT_TRUE(pfd.revents & POLLIN);
	EXPECT_GT(HELD_WAKE_DEADLINE / 2, elapsed);
	munmap(rq.map, rq.c.ring_size);
}

/* ------------------------------------------------------------------ submit */

TEST_F(queue, submit_unknown_queue_enoent)
{
	struct drm_pto_npu_queue_submit s = { .queue_id = 0 };

	EXPECT_EQ(-ENOENT, q_submit(self->fd, &s));
	s.queue_id = UNKNOWN_QUEUE;
	EXPECT_EQ(-ENOENT, q_submit(self->fd, &s));
}

TEST_F(queue, submit_nonzero_flags_rejected)
{
	struct raw_queue rq;
	struct drm_pto_npu_queue_submit s;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 32, &rq));
	raw_push_task(&rq, self->k_end, 0);
	s = (struct drm_pto_npu_queue_submit){ .queue_id = rq.c.queue_id, .flags = 1 };
	EXPECT_EQ(-EINVAL, q_submit(self->fd, &s));
	s.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, q_submit(self->fd, &s));
	/* Nothing was taken. */
	EXPECT_EQ(0u, rq.hdr->sq_head);
	munmap(rq.map, rq.c.ring_size);
}

TEST_F(queue, submit_point_without_syncobj_rejected)
{
	struct raw_queue rq;
	struct drm_pto_npu_queue_submit s;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 32, &rq));
	raw_push_task(&rq, self->k_end, 0);
	s = (struct drm_pto_npu_queue_submit){ .queue_id = rq.c.queue_id,
					       .syncobj_point = 1 };
	EXPECT_EQ(-EINVAL, q_submit(self->fd, &s));
	EXPECT_EQ(0u, rq.hdr->sq_head);
	munmap(rq.map, rq.c.ring_size);
}

TEST_F(queue, submit_unknown_syncobj_enoent)
{
	struct raw_queue rq;
	struct drm_pto_npu_queue_submit s;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 32, &rq));
	raw_push_task(&rq, self->k_end, 0);
	s = (struct drm_pto_npu_queue_submit){ .queue_id = rq.c.queue_id,
					       .syncobj = UNKNOWN_SYNCOBJ };
	EXPECT_EQ(-ENOENT, q_submit(self->fd, &s));
	s.syncobj_point = 3;
	EXPECT_EQ(-ENOENT, q_submit(self->fd, &s));
	EXPECT_EQ(0u, rq.hdr->sq_head);
	munmap(rq.map, rq.c.ring_size);
}

TEST_F(queue, submit_empty_ring_takes_nothing)
{
	struct raw_queue rq;
	uint32_t consumed = 99;
	uint64_t first = 99;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 32, &rq));
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, &first));
	EXPECT_EQ(0u, consumed);
	/* The id the next entry will get. */
	EXPECT_EQ(1ull, first);
	munmap(rq.map, rq.c.ring_size);
}

TEST_F(queue, submit_tail_beyond_ring_rejected)
{
	struct raw_queue rq;
	uint32_t consumed = 99;
	uint64_t first;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 32, &rq));
	raw_push_task(&rq, self->k_end, 1);

	/* Published more than the ring holds: nothing is taken. */
	rq.hdr->sq_tail = rq.c.sq_slots + 1;
	EXPECT_EQ(-EINVAL, raw_doorbell(self->fd, &rq, &consumed, NULL));
	EXPECT_EQ(0u, consumed);
	EXPECT_EQ(0u, rq.hdr->sq_head);
	rq.hdr->sq_tail = UINT32_MAX;
	EXPECT_EQ(-EINVAL, raw_doorbell(self->fd, &rq, &consumed, NULL));
	EXPECT_EQ(0u, rq.hdr->sq_head);

	/* Back to the real tail: the entry is taken, and is task 1. */
	rq.hdr->sq_tail = 1;
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, &first));
	EXPECT_EQ(1u, consumed);
	EXPECT_EQ(1ull, first);
	ASSERT_EQ(0, raw_wait_cqes(self->fd, &rq, 1, BATCH_TIMEOUT_NS));
	EXPECT_EQ(1ull, rq.cq[0].task_id);
	EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, rq.cq[0].status);

	/* A tail behind the head is as bad. */
	rq.hdr->sq_tail = 0;
	EXPECT_EQ(-EINVAL, raw_doorbell(self->fd, &rq, &consumed, NULL));
	EXPECT_EQ(1u, rq.hdr->sq_head);
	munmap(rq.map, rq.c.ring_size);
}

TEST_F(queue, submit_full_ring_takes_every_slot)
{
	struct raw_queue rq;
	uint32_t consumed, i;
	uint64_t first;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 64, &rq));
	for (i = 0; i < 32; i++)
		raw_push_task(&rq, self->k_end, i);
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, &first));
	EXPECT_EQ(32u, consumed);
	EXPECT_EQ(32u, rq.hdr->sq_head);
	ASSERT_EQ(0, raw_wait_cqes(self->fd, &rq, 32, BATCH_TIMEOUT_NS));
	munmap(rq.map, rq.c.ring_size);
}

/*
 * The in-flight cap: a doorbell takes entries until the context has
 * max_inflight_tasks tasks in flight and leaves the rest in the ring.
 *
 * The first task is a gate: it spins, reading a flag in GM, until the test
 * sets the flag, then faults (a GLD one row past its 1 x 1 tensor). Every
 * other task depends on it, so nothing leaves the flight before the test
 * opens the gate, and then all of them at once (DEP_FAILED, not run). The
 * device's timeout is raised for the test so that only the gate decides.
 */
#define GATE_TIMEOUT_MS 300000

FIXTURE(cap)
{
	int fd;
	struct drm_pto_npu_limits lim;
	long old_timeout;
};

FIXTURE_SETUP(cap)
{
	self->old_timeout = pto_test_param_read("timeout_ms");
	ASSERT_LT(0, self->old_timeout);
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", GATE_TIMEOUT_MS));
	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
}

/* In the parent: restored even when the test dies. */
FIXTURE_TEARDOWN_PARENT(cap)
{
	if (self->old_timeout > 0)
		pto_test_param_write("timeout_ms", self->old_timeout);
}

TEST_F_TIMEOUT(cap, submit_stops_at_inflight_cap, 240)
{
	uint32_t cap = self->lim.max_inflight_tasks, extra = 100;
	uint32_t total = cap + extra, i, consumed, k_gate, k_end, n = 0;
	struct pto_insn gate[10], end = { .op = PTO_OP_END };
	struct drm_pto_npu_tensor_arg targ;
	struct drm_pto_npu_sqe *e0;
	struct raw_queue rq;
	uint32_t flag_handle;
	volatile int64_t *flag;
	uint64_t first;
	int64_t deadline;
	uint8_t *st;

	ASSERT_LT(0u, cap);
	ASSERT_LE(2 + 2 * (total - 1), self->lim.max_sq_slots);

	/* The gate: 1M x (read the flag, fault if set, spin 1000). */
	memset(gate, 0, sizeof(gate));
	gate[0] = (struct pto_insn){ .op = PTO_OP_LDI, .dst = 0, .imm = PTO_MAX_LOOP_COUNT };
	gate[1] = (struct pto_insn){ .op = PTO_OP_LDI, .dst = 2, .imm = 1000 };
	gate[2] = (struct pto_insn){ .op = PTO_OP_LDI, .dst = 4, .imm = 0 };
	gate[3] = (struct pto_insn){ .op = PTO_OP_LOOP, .dst = 1, .b = 0 };
	gate[4] = (struct pto_insn){ .op = PTO_OP_GLD, .dst = 5, .a = 4, .b = 4 };
	gate[5] = (struct pto_insn){ .op = PTO_OP_GLD, .dst = 6, .a = 5, .b = 4 };
	gate[6] = (struct pto_insn){ .op = PTO_OP_LOOP, .dst = 3, .b = 2 };
	gate[7] = (struct pto_insn){ .op = PTO_OP_ENDLOOP };
	gate[8] = (struct pto_insn){ .op = PTO_OP_ENDLOOP };
	gate[9] = (struct pto_insn){ .op = PTO_OP_END };
	ASSERT_EQ(0, raw_kernel(self->fd, gate, 10, &k_gate));
	ASSERT_EQ(0, raw_kernel(self->fd, &end, 1, &k_end));
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &flag_handle, NULL));
	flag = pto_test_bo_mmap(self->fd, flag_handle, NULL);
	ASSERT_NE(MAP_FAILED, (void *)flag);
	targ = pto_test_targ(flag_handle, PTO_ISA_I64, 0, 1, 1);
	ASSERT_EQ(0, raw_queue_open(self->fd, self->lim.max_sq_slots, 0, &rq));
	ASSERT_LE(total, rq.c.cq_entries);

	/* Task 1: the gate (2 slots); tasks 2..total: one dependency on 1. */
	e0 = (struct drm_pto_npu_sqe *)rq.sq;
	memset(e0, 0, 2 * DRM_PTO_NPU_SQ_SLOT_SIZE);
	e0->kernel_aiv = k_gate;
	e0->block_num = 1;
	e0->num_tensors = 1;
	e0->num_slots = 2;
	memcpy(e0 + 1, &targ, sizeof(targ));
	rq.hdr->sq_tail = 2;
	for (i = 1; i < total; i++) {
		uint32_t tail = rq.hdr->sq_tail;
		struct drm_pto_npu_sqe *e = (struct drm_pto_npu_sqe *)
			(rq.sq + (tail & (rq.c.sq_slots - 1)) * DRM_PTO_NPU_SQ_SLOT_SIZE);
		int64_t *dep = (int64_t *)(rq.sq + ((tail + 1) & (rq.c.sq_slots - 1)) *
					   DRM_PTO_NPU_SQ_SLOT_SIZE);

		memset(e, 0, sizeof(*e));
		memset(dep, 0, DRM_PTO_NPU_SQ_SLOT_SIZE);
		e->user_data = i;
		e->kernel_aiv = k_end;
		e->block_num = 1;
		e->num_deps = 1;
		e->num_slots = 2;
		*dep = 1;
		rq.hdr->sq_tail = tail + 2;
	}

	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, &first));
	EXPECT_EQ(1ull, first);
	EXPECT_EQ(cap, consumed);
	EXPECT_EQ(2 + 2 * (cap - 1), rq.hdr->sq_head);
	/* Still at the cap: the next doorbell takes nothing, and says so. */
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, &first));
	EXPECT_EQ(0u, consumed);
	EXPECT_EQ((uint64_t)cap + 1, first);
	EXPECT_EQ(0u, cq_tail(&rq));

	/* Open the gate: it faults, the others fail with it. */
	*flag = 1;
	st = calloc(total + 1, 1);
	ASSERT_NE(NULL, st);
	deadline = pto_test_now_ns() + PTO_TEST_SEC(120);
	while (n < cap) {
		uint32_t tail = cq_tail(&rq), head = rq.hdr->cq_head;

		for (; head != tail; head++) {
			const struct drm_pto_npu_cqe *c =
				&rq.cq[head & (rq.c.cq_entries - 1)];

			ASSERT_LE(1ull, c->task_id);
			ASSERT_GE((uint64_t)total, c->task_id);
			st[c->task_id] = (uint8_t)(c->status + 1);
			n++;
		}
		__atomic_store_n(&rq.hdr->cq_head, head, __ATOMIC_RELEASE);
		if (n < cap) {
			ASSERT_LT(pto_test_now_ns(), deadline) TH_LOG("%u CQEs", n);
			raw_wait_cqes(self->fd, &rq, 1, PTO_TEST_SEC(1));
		}
	}
	EXPECT_EQ(DRM_PTO_NPU_STATUS_GM_FAULT + 1, st[1]);
	for (i = 2; i <= cap; i++) {
		ASSERT_EQ(DRM_PTO_NPU_STATUS_DEP_FAILED + 1, st[i]) TH_LOG("task %u", i);
	}

	/* Room again: the rest is taken, and fails on the remembered task 1. */
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, &first));
	EXPECT_EQ(extra, consumed);
	EXPECT_EQ((uint64_t)cap + 1, first);
	EXPECT_EQ(rq.hdr->sq_tail, rq.hdr->sq_head);
	ASSERT_EQ(0, raw_wait_cqes(self->fd, &rq, extra, BATCH_TIMEOUT_NS));
	for (i = 0; i < extra; i++) {
		const struct drm_pto_npu_cqe *c =
			&rq.cq[(rq.hdr->cq_head + i) & (rq.c.cq_entries - 1)];

		EXPECT_EQ(DRM_PTO_NPU_STATUS_DEP_FAILED, c->status);
		EXPECT_LT((uint64_t)cap, c->task_id);
	}
	free(st);
	munmap(rq.map, rq.c.ring_size);
}

/* ------------------------------------------------------------------ wait */

TEST_F(queue, wait_nonzero_flags_rejected)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 32 };
	struct drm_pto_npu_queue_wait w;

	ASSERT_EQ(0, q_create(self->fd, &c));
	w = (struct drm_pto_npu_queue_wait){ .queue_id = c.queue_id, .flags = 1 };
	EXPECT_EQ(-EINVAL, q_wait(self->fd, &w));
}

TEST_F(queue, wait_unknown_queue_enoent)
{
	struct drm_pto_npu_queue_wait w = { .queue_id = 0 };

	EXPECT_EQ(-ENOENT, q_wait(self->fd, &w));
	w.queue_id = UNKNOWN_QUEUE;
	EXPECT_EQ(-ENOENT, q_wait(self->fd, &w));
}

TEST_F(queue, wait_timeout_zero_with_nothing_etime)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 32 };
	struct drm_pto_npu_queue_wait w;

	ASSERT_EQ(0, q_create(self->fd, &c));
	w = (struct drm_pto_npu_queue_wait){ .queue_id = c.queue_id,
					     .available = 99, .inflight = 99 };
	EXPECT_EQ(-ETIME, q_wait(self->fd, &w));
	EXPECT_EQ(0u, w.available);
	EXPECT_EQ(0u, w.inflight);
}

/*
 * QUEUE_WAIT from two threads against QUEUE_DESTROY of the same queue: a
 * destroy is refused (EBUSY) while a wait is inside, every call returns
 * what it may, and a wait never touches the queue once it has let go of
 * it. A stress, not a reproducer: the use after free this guards against
 * (a wait reading its counts after a destroy had freed the queue) was a
 * window of a few instructions, which the fuzzer's close/submit/wait race
 * hit once under KASAN in 5000 iterations.
 */
struct wait_race {
	int fd;
	uint32_t queue_id;	/* the queue to wait on; 0 to stop */
	unsigned long waits, bad;
	int bad_ret;
};

static void *wait_race_waiter(void *arg)
{
	struct wait_race *wr = arg;
	uint32_t id;

	while ((id = __atomic_load_n(&wr->queue_id, __ATOMIC_ACQUIRE))) {
		struct drm_pto_npu_queue_wait w = { .queue_id = id };
		int ret = q_wait(wr->fd, &w);

		wr->waits++;
		if (ret != -ETIME && ret != -ENOENT) {
			wr->bad++;
			wr->bad_ret = ret;
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(queue, wait_races_destroy, 120)
{
	struct wait_race wr = { .fd = self->fd };
	unsigned long destroyed = 0, busy = 0, other = 0;
	int64_t end = pto_test_now_ns() + PTO_TEST_SEC_WALL(3);
	struct wait_race wr2 = { .fd = self->fd };
	struct drm_pto_npu_queue_create c = { .sq_slots = 32 };
	pthread_t t, t2;

	ASSERT_EQ(0, q_create(self->fd, &c));
	ASSERT_EQ(0, pto_test_gem_close(self->fd, c.handle));
	__atomic_store_n(&wr.queue_id, c.queue_id, __ATOMIC_RELEASE);
	__atomic_store_n(&wr2.queue_id, c.queue_id, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_race_waiter, &wr));
	ASSERT_EQ(0, pthread_create(&t2, NULL, wait_race_waiter, &wr2));
	while (pto_test_now_ns() < end) {
		int ret = q_destroy(self->fd, c.queue_id, 0);

		if (ret == -EBUSY) {
			busy++;
			continue;
		}
		if (ret) {
			other++;
			break;
		}
		destroyed++;
		c = (struct drm_pto_npu_queue_create){ .sq_slots = 32 };
		if (q_create(self->fd, &c) || pto_test_gem_close(self->fd, c.handle)) {
			other++;
			break;
		}
		__atomic_store_n(&wr.queue_id, c.queue_id, __ATOMIC_RELEASE);
		__atomic_store_n(&wr2.queue_id, c.queue_id, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&wr.queue_id, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&wr2.queue_id, 0, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	pthread_join(t2, NULL);
	TH_LOG("%lu waits, %lu destroyed, %lu refused busy",
	       wr.waits + wr2.waits, destroyed, busy);
	EXPECT_EQ(0ul, other);
	EXPECT_EQ(0ul, wr.bad) TH_LOG("a wait returned %d", wr.bad_ret);
	EXPECT_EQ(0ul, wr2.bad) TH_LOG("a wait returned %d", wr2.bad_ret);
	EXPECT_LT(0ul, destroyed);
	EXPECT_LT(0ul, wr.waits + wr2.waits);
}

TEST_F(queue, wait_absolute_deadline_honoured)
{
	struct drm_pto_npu_queue_create c = { .sq_slots = 32 };
	struct drm_pto_npu_queue_wait w;
	int64_t start, elapsed;

	ASSERT_EQ(0, q_create(self->fd, &c));
	start = pto_test_now_ns();
	w = (struct drm_pto_npu_queue_wait){
		.queue_id = c.queue_id,
		.timeout_ns = start + PTO_TEST_MSEC(200),
	};
	EXPECT_EQ(-ETIME, q_wait(self->fd, &w));
	elapsed = pto_test_now_ns() - start;
	EXPECT_LE(PTO_TEST_MSEC(150), elapsed);
	EXPECT_GT(PTO_TEST_SEC(10), elapsed);
}

TEST_F(queue, wait_returns_when_a_cqe_arrives)
{
	struct drm_pto_npu_queue_wait w;
	struct raw_queue rq;
	uint32_t consumed;
	int64_t start;

	ASSERT_EQ(0, raw_queue_open(self->fd, 32, 32, &rq));
	raw_push_task(&rq, self->k_slow, 1);
	ASSERT_EQ(0, raw_doorbell(self->fd, &rq, &consumed, NULL));
	start = pto_test_now_ns();
	w = (struct drm_pto_npu_queue_wait){
		.queue_id = rq.c.queue_id,
		.timeout_ns = start + PTO_TEST_SEC(100),
	};
	EXPECT_EQ(0, q_wait(self->fd, &w));
	EXPECT_EQ(1u, w.available);
	/* Woken by the completion, long before the deadline. */
	EXPECT_GT(PTO_TEST_SEC(30), pto_test_now_ns() - start);
	EXPECT_EQ(1u, cq_tail(&rq));
	munmap(rq.map, rq.c.ring_size);
}

/* ------------------------------------------------------------------ libpto */

/*
 * out[0, arg0] = arg1 after a loop of arg2 x 1000 iterations; aux (f32,
 * tensor 1) is loaded and stored back, so the kernel uses tensor 1 as f32.
 */
static struct pto_kernel *mark_kernel(struct pto_device *dev, char *err,
				      size_t len)
{
	struct pto_kb *kb;
	int t;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	t = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 1, 16);
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_arg(kb, 3, 2);
	pto_kb_ldi(kb, 2, 0);
	pto_kb_ldi(kb, 5, 0);
	pto_kb_ldi(kb, 6, 1000);
	pto_kb_loop(kb, 4, 3);
	pto_kb_loop(kb, 7, 6);
	pto_kb_alui(kb, PTO_ALU_ADD, 5, 5, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_tload(kb, t, 1, 2, 2);
	pto_kb_tstore(kb, t, 1, 2, 2);
	pto_kb_gst(kb, 0, 2, 0, 1);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* Columns of the out tensor. */
#define OUT_COLS 256

struct dev_ctx {
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_tensor *out;	/* i64 [1, OUT_COLS] */
	struct pto_tensor *aux;	/* f32 [1, 16] */
	struct pto_tensor *args[2];
	struct pto_kernel *mark;
	struct pto_kernel *aic;	/* an AIC kernel: END */
	struct pto_device_info info;
	struct pto_limits lim;
};

/* A context with a queue of @sq SQ slots (CQ: 4 x @sq). */
static int dev_ctx_init(struct dev_ctx *c, uint32_t sq, char *err, size_t len)
{
	struct pto_kb *kb;
	int ret;

	ret = pto_test_dev_open(&c->dev);
	if (!ret)
		ret = pto_test_queue_long(c->dev, sq, 0, &c->q);
	if (!ret)
		ret = pto_test_tensor2d(c->dev, PTO_DTYPE_I64, 1, OUT_COLS, &c->out);
	if (!ret)
		ret = pto_test_tensor2d(c->dev, PTO_DTYPE_F32, 1, 16, &c->aux);
	if (ret) {
		snprintf(err, len, "setup: %s", pto_strerror(ret));
		return ret;
	}
	pto_device_query_info(c->dev, &c->info);
	pto_device_query_limits(c->dev, &c->lim);
	c->args[0] = c->out;
	c->args[1] = c->aux;
	c->mark = mark_kernel(c->dev, err, len);
	if (!c->mark)
		return -EINVAL;
	if (pto_kb_new(c->dev, PTO_CORE_AIC, &kb))
		return -ENOMEM;
	pto_kb_end(kb);
	c->aic = pto_test_kb_finish(kb, err, len);
	return c->aic ? 0 : -EINVAL;
}

/* Pushes a valid mark task: out[col] = value after @spin iterations. */
static int push_mark(struct dev_ctx *c, struct pto_queue *q, int64_t col,
		     int64_t value, int64_t spin, const int64_t *deps,
		     uint32_t num_deps)
{
	int64_t sc[3] = { col, value, spin };

	return pto_queue_push_task(q, &(struct pto_task_desc){
		.kernel_aiv = c->mark, .block_num = 1, .tensors = c->args,
		.num_tensors = 2, .scalars = sc, .num_scalars = 3,
		.deps = deps, .num_deps = num_deps,
		.user_data = (uint64_t)col });
}

static int64_t out_at(const struct dev_ctx *c, unsigned int col)
{
	return ((const int64_t *)pto_tensor_data(c->out))[col];
}

/* ------------------------------------------------------------------ bad entries */

/* Column an invalid entry would write if it ran. */
#define INVALID_COL 200

struct bad_entry {
	const char *name;
	/* Turns the valid base entry into the bad one; sets the detail. */
	void (*mutate)(struct pto_test_sqe *e, size_t *size,
		       const struct dev_ctx *c, uint64_t *detail);
	uint8_t reason;
	bool check_detail;
	/* Only right when the valid entry after it is the last one. */
	bool solo;
};

/* A mutator: turns the valid base entry @e (@size bytes) into a bad one. */
#define MUTATOR(n) \
	static void m_##n(struct pto_test_sqe *e __attribute__((unused)), \
			  size_t *size __attribute__((unused)), \
			  const struct dev_ctx *c __attribute__((unused)), \
			  uint64_t *detail __attribute__((unused)))

/* The valid base: mark(INVALID_COL, 999, 0) with out and aux. */
static size_t base_entry(struct pto_test_sqe *e, const struct dev_ctx *c,
			 struct drm_pto_npu_tensor_arg targs[2], int64_t sc[3])
{
	targs[0] = pto_test_targ_of(c->out);
	targs[1] = pto_test_targ_of(c->aux);
	sc[0] = INVALID_COL;
	sc[1] = 999;
	sc[2] = 0;
	return pto_test_sqe_init(e, pto_kernel_handle(c->mark), 0, 1, targs, 2,
				 sc, 3, NULL, 0);
}

static struct drm_pto_npu_tensor_arg *targs_of(struct pto_test_sqe *e)
{
	return (struct drm_pto_npu_tensor_arg *)e->body;
}

MUTATOR(unknown_flag)
{
	e->hdr.flags = 1u << 7;
	*detail = 1u << 7;
}

MUTATOR(next_unknown_flag)
{
	/* The first bit past DRM_PTO_NPU_TASK_F_ALL, with a known one. */
	e->hdr.flags = (DRM_PTO_NPU_TASK_F_ALL + 1) | DRM_PTO_NPU_TASK_F_SYNC_START;
	*detail = e->hdr.flags;
}

/* Appends a predicate after the base entry's arguments. */
static void add_predicate(struct pto_test_sqe *e, size_t *size,
			  const struct drm_pto_npu_predicate *p, bool count_it)
{
	size_t body = 2 * sizeof(struct drm_pto_npu_tensor_arg) + 3 * sizeof(int64_t);

	memcpy(e->body + body, p, sizeof(*p));
	e->hdr.flags = DRM_PTO_NPU_TASK_F_PREDICATE;
	if (count_it)
		e->hdr.num_slots = 1 + (body + sizeof(*p) + 63) / 64;
	*size = e->hdr.num_slots * 64u;
}

MUTATOR(predicate_not_counted_in_slots)
{
	/* A valid predicate, but num_slots without its 24 bytes. */
	struct drm_pto_npu_predicate p = { .tensor = 0, .op = PTO_CMP_EQ };

	add_predicate(e, size, &p, false);
	*detail = e->hdr.num_slots;
}

MUTATOR(predicate_on_float_tensor)
{
	struct drm_pto_npu_predicate p = { .tensor = 1, .op = PTO_CMP_EQ };

	add_predicate(e, size, &p, true);
	*detail = 1;
}

MUTATOR(predicate_tensor_index)
{
	struct drm_pto_npu_predicate p = { .tensor = 2, .op = PTO_CMP_EQ };

	add_predicate(e, size, &p, true);
	*detail = 0;
}

MUTATOR(predicate_bad_op)
{
	struct drm_pto_npu_predicate p = { .tensor = 0, .op = PTO_CMP_LE + 1 };

	add_predicate(e, size, &p, true);
	*detail = 0;
}

MUTATOR(predicate_element_outside)
{
	struct drm_pto_npu_predicate p = { .tensor = 0, .op = PTO_CMP_EQ,
					   .col = OUT_COLS };

	add_predicate(e, size, &p, true);
	*detail = 2;
}

MUTATOR(predicate_pad_nonzero)
{
	struct drm_pto_npu_predicate p = { .tensor = 0, .op = PTO_CMP_EQ,
					   .pad2 = 1 };

	add_predicate(e, size, &p, true);
	*detail = 0;
}

MUTATOR(reserved)
{
	e->hdr.reserved[3] = 1;
	*detail = 0;
}

MUTATOR(split_mode)
{
	e->hdr.split_mode = DRM_PTO_NPU_SPLIT_UP_DOWN;
	*detail = 3;
}

MUTATOR(slot_num)
{
	e->hdr.slot_num = 4;
	*detail = 3;
}

MUTATOR(unknown_kernel)
{
	e->hdr.kernel_aiv = 0xdead;
	*detail = 0;
}

MUTATOR(no_kernel)
{
	e->hdr.kernel_aiv = 0;
	*detail = 0;
}

MUTATOR(aic_kernel_as_aiv)
{
	e->hdr.kernel_aiv = pto_kernel_handle(c->aic);
	*detail = 0;
}

MUTATOR(aiv_kernel_as_aic)
{
	e->hdr.kernel_aic = e->hdr.kernel_aiv;
	e->hdr.kernel_aiv = 0;
	*detail = 1;
}

MUTATOR(block_num_zero)
{
	e->hdr.block_num = 0;
	*detail = 0;
}

MUTATOR(block_num_over_max)
{
	e->hdr.block_num = c->lim.max_block_num + 1;
	*detail = c->lim.max_block_num + 1;
}

MUTATOR(sync_start_too_wide)
{
	e->hdr.flags = DRM_PTO_NPU_TASK_F_SYNC_START;
	e->hdr.block_num = c->info.aiv_cores + 1;
	*detail = c->info.aiv_cores;
}

MUTATOR(too_many_tensors)
{
	struct drm_pto_npu_tensor_arg targs[17];
	int64_t sc[3] = { INVALID_COL, 999, 0 };
	int i;

	targs[0] = pto_test_targ_of(c->out);
	for (i = 1; i < 17; i++)
		targs[i] = pto_test_targ_of(c->aux);
	*size = pto_test_sqe_init(e, pto_kernel_handle(c->mark), 0, 1, targs,
				  17, sc, 3, NULL, 0);
	*detail = 0;
}

MUTATOR(too_many_scalars)
{
	struct drm_pto_npu_tensor_arg targs[2];
	int64_t sc[17] = { INVALID_COL, 999, 0 };

	targs[0] = pto_test_targ_of(c->out);
	targs[1] = pto_test_targ_of(c->aux);
	*size = pto_test_sqe_init(e, pto_kernel_handle(c->mark), 0, 1, targs,
				  2, sc, 17, NULL, 0);
	*detail = 0;
}

MUTATOR(too_many_deps)
{
	struct drm_pto_npu_tensor_arg targs[2];
	int64_t sc[3] = { INVALID_COL, 999, 0 }, deps[33];
	int i;

	for (i = 0; i < 33; i++)
		deps[i] = -1;
	targs[0] = pto_test_targ_of(c->out);
	targs[1] = pto_test_targ_of(c->aux);
	*size = pto_test_sqe_init(e, pto_kernel_handle(c->mark), 0, 1, targs,
				  2, sc, 3, deps, 33);
	*detail = 0;
}

MUTATOR(num_slots_mismatch)
{
	e->hdr.num_slots += 1;
	*size += DRM_PTO_NPU_SQ_SLOT_SIZE;
	*detail = e->hdr.num_slots;
}

static void bare_header(struct pto_test_sqe *e, size_t *size,
			const struct dev_ctx *c)
{
	*size = pto_test_sqe_init(e, pto_kernel_handle(c->mark), 0, 1, NULL, 0,
				  NULL, 0, NULL, 0);
}

MUTATOR(num_slots_zero)
{
	bare_header(e, size, c);
	e->hdr.num_slots = 0;
	*detail = 0;
}

MUTATOR(num_slots_past_published)
{
	/* One slot published for it, 3 for the entry after: 4 in all. */
	bare_header(e, size, c);
	e->hdr.num_slots = PTO_TEST_SQE_MAX_SLOTS - 1;
	*detail = PTO_TEST_SQE_MAX_SLOTS - 1;
}

MUTATOR(num_slots_over_largest)
{
	bare_header(e, size, c);
	e->hdr.num_slots = PTO_TEST_SQE_MAX_SLOTS + 1;
	*detail = PTO_TEST_SQE_MAX_SLOTS + 1;
}

MUTATOR(unknown_tensor_handle)
{
	targs_of(e)[1].handle = 0xdead;
	*detail = 1;
}

MUTATOR(tensor_past_buffer)
{
	size_t bytes = pto_buffer_size(pto_tensor_buffer(c->aux));

	/* One f32 column more than the buffer holds. */
	targs_of(e)[1].shape[1] = (uint32_t)(bytes / 4 + 1);
	*detail = 1;
}

MUTATOR(tensor_offset_past_buffer)
{
	size_t bytes = pto_buffer_size(pto_tensor_buffer(c->aux));

	/* 16 f32 from 60 bytes before the end: 4 bytes too far. */
	targs_of(e)[1].offset = bytes - 60;
	*detail = 1;
}

MUTATOR(misaligned_offset)
{
	targs_of(e)[1].offset = 2;
	*detail = 1;
}

MUTATOR(bad_ndim)
{
	targs_of(e)[1].ndim = 5;
	*detail = 1;
}

MUTATOR(zero_dim)
{
	targs_of(e)[1].shape[0] = 0;
	*detail = 1;
}

MUTATOR(dtype_mismatch)
{
	targs_of(e)[1].dtype = PTO_ISA_I32;
	*detail = 1;
}

MUTATOR(too_few_tensors)
{
	struct drm_pto_npu_tensor_arg targ = pto_test_targ_of(c->out);
	int64_t sc[3] = { INVALID_COL, 999, 0 };

	*size = pto_test_sqe_init(e, pto_kernel_handle(c->mark), 0, 1, &targ,
				  1, sc, 3, NULL, 0);
	*detail = 0;
}

MUTATOR(too_few_scalars)
{
	struct drm_pto_npu_tensor_arg targs[2];
	int64_t sc[2] = { INVALID_COL, 999 };

	targs[0] = pto_test_targ_of(c->out);
	targs[1] = pto_test_targ_of(c->aux);
	*size = pto_test_sqe_init(e, pto_kernel_handle(c->mark), 0, 1, targs,
				  2, sc, 2, NULL, 0);
	*detail = 0;
}

static void with_deps(struct pto_test_sqe *e, size_t *size,
		      const struct dev_ctx *c, const int64_t *deps, uint32_t nd)
{
	struct drm_pto_npu_tensor_arg targs[2];
	int64_t sc[3] = { INVALID_COL, 999, 0 };

	targs[0] = pto_test_targ_of(c->out);
	targs[1] = pto_test_targ_of(c->aux);
	*size = pto_test_sqe_init(e, pto_kernel_handle(c->mark), 0, 1, targs,
				  2, sc, 3, deps, nd);
}

MUTATOR(forward_dep)
{
	const int64_t deps[2] = { -1, INT64_C(1) << 40 };

	with_deps(e, size, c, deps, 2);
	*detail = 1;
}

MUTATOR(dep_zero)
{
	const int64_t deps[1] = { 0 };

	with_deps(e, size, c, deps, 1);
	*detail = 0;
}

MUTATOR(dep_before_first_task)
{
	const int64_t deps[3] = { -1, -1, -(INT64_C(1) << 40) };

	with_deps(e, size, c, deps, 3);
	*detail = 2;
}

#define BAD(n, r, chk, s) \
	static const struct bad_entry bad_##n = { \
		.name = #n, .mutate = m_##n, .reason = DRM_PTO_NPU_REASON_##r, \
		.check_detail = chk, .solo = s, \
	}

BAD(unknown_flag, FLAGS, true, false);
BAD(next_unknown_flag, FLAGS, true, false);
BAD(predicate_not_counted_in_slots, SLOTS, true, false);
BAD(predicate_on_float_tensor, PREDICATE, true, false);
BAD(predicate_tensor_index, PREDICATE, true, false);
BAD(predicate_bad_op, PREDICATE, true, false);
BAD(predicate_element_outside, PREDICATE, true, false);
BAD(predicate_pad_nonzero, RESERVED, true, false);
BAD(reserved, RESERVED, true, false);
BAD(split_mode, RING, true, false);
BAD(slot_num, RING, true, false);
BAD(unknown_kernel, KERNEL, true, false);
BAD(no_kernel, KERNEL, true, false);
BAD(aic_kernel_as_aiv, KERNEL_TYPE, true, false);
BAD(aiv_kernel_as_aic, KERNEL_TYPE, true, false);
BAD(block_num_zero, BLOCK_NUM, true, false);
BAD(block_num_over_max, BLOCK_NUM, true, false);
BAD(sync_start_too_wide, SYNC_START, true, false);
BAD(too_many_tensors, COUNTS, true, false);
BAD(too_many_scalars, COUNTS, true, false);
BAD(too_many_deps, COUNTS, true, false);
BAD(num_slots_mismatch, SLOTS, true, false);
/* An untrusted slot count: the header slot alone is taken. */
BAD(num_slots_zero, SLOTS, true, false);
BAD(num_slots_past_published, SLOTS, true, true);
BAD(num_slots_over_largest, SLOTS, true, false);
BAD(unknown_tensor_handle, TENSOR_HANDLE, true, false);
BAD(tensor_past_buffer, TENSOR_RANGE, true, false);
BAD(tensor_offset_past_buffer, TENSOR_RANGE, true, false);
BAD(misaligned_offset, TENSOR_LAYOUT, true, false);
BAD(bad_ndim, TENSOR_LAYOUT, true, false);
BAD(zero_dim, TENSOR_LAYOUT, true, false);
BAD(dtype_mismatch, TENSOR_DTYPE, true, false);
BAD(too_few_tensors, ARG_COUNT, true, false);
BAD(too_few_scalars, ARG_COUNT, true, false);
BAD(forward_dep, DEP, true, false);
BAD(dep_zero, DEP, true, false);
BAD(dep_before_first_task, DEP, true, false);

static const struct bad_entry *const all_bad[] = {
	&bad_unknown_flag, &bad_next_unknown_flag,
	&bad_predicate_not_counted_in_slots, &bad_predicate_on_float_tensor,
	&bad_predicate_tensor_index, &bad_predicate_bad_op,
	&bad_predicate_element_outside, &bad_predicate_pad_nonzero,
	&bad_reserved,
	&bad_split_mode, &bad_slot_num, &bad_unknown_kernel, &bad_no_kernel,
	&bad_aic_kernel_as_aiv, &bad_aiv_kernel_as_aic, &bad_block_num_zero,
	&bad_block_num_over_max, &bad_sync_start_too_wide,
	&bad_too_many_tensors, &bad_too_many_scalars, &bad_too_many_deps,
	&bad_num_slots_mismatch, &bad_num_slots_zero,
	&bad_num_slots_past_published, &bad_num_slots_over_largest,
	&bad_unknown_tensor_handle, &bad_tensor_past_buffer,
	&bad_tensor_offset_past_buffer, &bad_misaligned_offset, &bad_bad_ndim,
	&bad_zero_dim, &bad_dtype_mismatch, &bad_too_few_tensors,
	&bad_too_few_scalars, &bad_forward_dep, &bad_dep_zero,
	&bad_dep_before_first_task,
};

#define NUM_BAD (sizeof(all_bad) / sizeof(all_bad[0]))

/* Pushes the bad entry; returns the detail it should get. */
static int push_bad(struct dev_ctx *c, const struct bad_entry *b,
		    uint64_t *detail)
{
	struct drm_pto_npu_tensor_arg targs[2];
	struct pto_test_sqe e;
	int64_t sc[3];
	size_t size = base_entry(&e, c, targs, sc);

	*detail = 0;
	b->mutate(&e, &size, c, detail);
	return pto_queue_push_raw(c->q, &e, size);
}

/* Checks the CQE of a refused entry. */
#define EXPECT_REFUSED(cqe, b, want_detail) do { \
	EXPECT_EQ(PTO_STATUS_INVALID, (cqe)->info.status) TH_LOG("%s", (b)->name); \
	EXPECT_EQ((b)->reason, (cqe)->info.reason) \
		TH_LOG("%s: reason %s", (b)->name, \
		       pto_reason_name((cqe)->info.reason)); \
	if ((b)->check_detail) { \
		EXPECT_EQ((want_detail), (cqe)->info.detail) TH_LOG("%s", (b)->name); \
	} \
	/* It never reached a core. */ \
	EXPECT_EQ(0u, (uint32_t)(cqe)->info.core_type) TH_LOG("%s", (b)->name); \
	EXPECT_EQ((uint32_t)PTO_BLOCK_LAST, (cqe)->info.flags) TH_LOG("%s", (b)->name); \
	EXPECT_EQ(0u, (cqe)->info.block); \
	EXPECT_EQ(0ull, (cqe)->info.ts_dispatch); \
	EXPECT_EQ(0ull, (cqe)->info.ts_start); \
	EXPECT_EQ(0ull, (cqe)->info.ts_end); \
	/* ts_finish: when it retired. */ \
	EXPECT_NE(0ull, (cqe)->info.ts_finish); \
} while (0)

FIXTURE(entry)
{
	struct dev_ctx c;
};

FIXTURE_VARIANT(entry)
{
	const struct bad_entry *bad;
};

#define BAD_VARIANT(n) \
	FIXTURE_VARIANT_ADD(entry, n) { .bad = &bad_##n }

BAD_VARIANT(unknown_flag);
BAD_VARIANT(next_unknown_flag);
BAD_VARIANT(predicate_not_counted_in_slots);
BAD_VARIANT(predicate_on_float_tensor);
BAD_VARIANT(predicate_tensor_index);
BAD_VARIANT(predicate_bad_op);
BAD_VARIANT(predicate_element_outside);
BAD_VARIANT(predicate_pad_nonzero);
BAD_VARIANT(reserved);
BAD_VARIANT(split_mode);
BAD_VARIANT(slot_num);
BAD_VARIANT(unknown_kernel);
BAD_VARIANT(no_kernel);
BAD_VARIANT(aic_kernel_as_aiv);
BAD_VARIANT(aiv_kernel_as_aic);
BAD_VARIANT(block_num_zero);
BAD_VARIANT(block_num_over_max);
BAD_VARIANT(sync_start_too_wide);
BAD_VARIANT(too_many_tensors);
BAD_VARIANT(too_many_scalars);
BAD_VARIANT(too_many_deps);
BAD_VARIANT(num_slots_mismatch);
BAD_VARIANT(num_slots_zero);
BAD_VARIANT(num_slots_past_published);
BAD_VARIANT(num_slots_over_largest);
BAD_VARIANT(unknown_tensor_handle);
BAD_VARIANT(tensor_past_buffer);
BAD_VARIANT(tensor_offset_past_buffer);
BAD_VARIANT(misaligned_offset);
BAD_VARIANT(bad_ndim);
BAD_VARIANT(zero_dim);
BAD_VARIANT(dtype_mismatch);
BAD_VARIANT(too_few_tensors);
BAD_VARIANT(too_few_scalars);
BAD_VARIANT(forward_dep);
BAD_VARIANT(dep_zero);
BAD_VARIANT(dep_before_first_task);

FIXTURE_SETUP(entry)
{
	char err[256] = "";

	ASSERT_EQ(0, dev_ctx_init(&self->c, 64, err, sizeof(err))) TH_LOG("%s", err);
}

FIXTURE_TEARDOWN(entry)
{
	pto_device_close(self->c.dev);
}

TEST_F(entry, refused_between_valid_tasks)
{
	const struct bad_entry *b = variant->bad;
	const int64_t dep_on_first = -2;
	struct pto_cqe cqes[8];
	const struct pto_cqe *c;
	uint32_t consumed;
	uint64_t first, detail;
	int n;

	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 0, 101, 0, NULL, 0));
	ASSERT_EQ(0, push_bad(&self->c, b, &detail));
	/* The task after depends on the one before, across the bad entry. */
	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 2, 102, 0, &dep_on_first, 1));
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, 0, 0, &consumed, &first));
	ASSERT_EQ(3u, consumed);
	ASSERT_EQ(1ull, first);

	n = pto_test_reap_lasts(self->c.q, cqes, 8, 3, BATCH_TIMEOUT_NS);
	ASSERT_EQ(3, n);

	/* Consecutive ids; the bad one refused, the others ran. */
	c = pto_test_find_last(cqes, n, first);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	EXPECT_EQ(0ull, c->user_data);
	c = pto_test_find_last(cqes, n, first + 1);
	ASSERT_NE(NULL, c);
	EXPECT_REFUSED(c, b, detail);
	c = pto_test_find_last(cqes, n, first + 2);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	EXPECT_EQ(2ull, c->user_data);

	EXPECT_EQ(101, out_at(&self->c, 0));
	EXPECT_EQ(102, out_at(&self->c, 2));
	/* The refused entry never ran. */
	EXPECT_EQ(0, out_at(&self->c, INVALID_COL));

	/* The queue goes on: the next doorbell continues the ids. */
	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 3, 103, 0, NULL, 0));
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, 0, 0, &consumed, &first));
	EXPECT_EQ(1u, consumed);
	EXPECT_EQ(4ull, first);
	n = pto_test_reap_lasts(self->c.q, cqes, 8, 1, BATCH_TIMEOUT_NS);
	ASSERT_EQ(1, n);
	EXPECT_EQ(PTO_STATUS_OK, cqes[0].info.status);
	EXPECT_EQ(103, out_at(&self->c, 3));
}

/* A dependency on the refused entry fails the dependant. */
TEST_F(entry, dependant_of_refused_entry_dep_failed)
{
	const struct bad_entry *b = variant->bad;
	const int64_t dep_on_bad = -1;
	struct pto_cqe cqes[8];
	const struct pto_cqe *c;
	uint32_t consumed;
	uint64_t first, detail;
	int n;

	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 4, 104, 0, NULL, 0));
	ASSERT_EQ(0, push_bad(&self->c, b, &detail));
	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 5, 105, 0, &dep_on_bad, 1));
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, 0, 0, &consumed, &first));
	ASSERT_EQ(3u, consumed);
	n = pto_test_reap_lasts(self->c.q, cqes, 8, 3, BATCH_TIMEOUT_NS);
	ASSERT_EQ(3, n);
	c = pto_test_find_last(cqes, n, first + 1);
	ASSERT_NE(NULL, c);
	EXPECT_REFUSED(c, b, detail);
	c = pto_test_find_last(cqes, n, first + 2);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status);
	EXPECT_EQ(0u, (uint32_t)c->info.core_type);
	EXPECT_EQ(104, out_at(&self->c, 4));
	EXPECT_EQ(0, out_at(&self->c, 5));
}

FIXTURE(dev)
{
	struct dev_ctx c;
};

FIXTURE_SETUP(dev)
{
	char err[256] = "";

	ASSERT_EQ(0, dev_ctx_init(&self->c, 1024, err, sizeof(err))) TH_LOG("%s", err);
}

FIXTURE_TEARDOWN(dev)
{
	pto_device_close(self->c.dev);
}

/* Every kind of bad entry in one doorbell, a valid task between each two. */
TEST_F(dev, every_refusal_in_one_doorbell)
{
	struct pto_cqe *cqes;
	uint64_t first, details[NUM_BAD];
	uint32_t consumed, i, nbad = 0, ntasks;
	const struct bad_entry *used[NUM_BAD];
	int64_t dep = -2;
	int n;

	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 0, 1000, 0, NULL, 0));
	for (i = 0; i < NUM_BAD; i++) {
		if (all_bad[i]->solo)
			continue;
		ASSERT_EQ(0, push_bad(&self->c, all_bad[i], &details[nbad]));
		used[nbad++] = all_bad[i];
		ASSERT_EQ(0, push_mark(&self->c, self->c.q, nbad, 1000 + nbad,
				       0, &dep, 1));
	}
	ntasks = 2 * nbad + 1;
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, 0, 0, &consumed, &first));
	ASSERT_EQ(ntasks, consumed);

	cqes = calloc(ntasks, sizeof(*cqes));
	ASSERT_NE(NULL, cqes);
	n = pto_test_reap_lasts(self->c.q, cqes, ntasks, ntasks, BATCH_TIMEOUT_NS);
	ASSERT_EQ((int)ntasks, n);
	for (i = 0; i < ntasks; i++) {
		const struct pto_cqe *c = pto_test_find_last(cqes, n, first + i);

		ASSERT_NE(NULL, c) TH_LOG("task %llu", (unsigned long long)(first + i));
		if (i % 2) {
			EXPECT_REFUSED(c, used[i / 2], details[i / 2]);
		} else {
			EXPECT_EQ(PTO_STATUS_OK, c->info.status)
				TH_LOG("valid task %u after %s", i / 2,
				       i ? used[i / 2 - 1]->name : "-");
			EXPECT_EQ(1000 + i / 2, out_at(&self->c, i / 2));
		}
	}
	EXPECT_EQ(0, out_at(&self->c, INVALID_COL));
	free(cqes);
}

/* ------------------------------------------------------------------ syncobj */

/* Status of the fence in @syncobj: 1 signalled, 0 not yet, < 0 its error. */
static int fence_status(int fd, uint32_t syncobj)
{
	struct sync_file_info info;
	int sync_fd, ret;

	ret = drmSyncobjExportSyncFile(fd, syncobj, &sync_fd);
	if (ret)
		return -1000 + ret;
	memset(&info, 0, sizeof(info));
	ret = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info);
	close(sync_fd);
	return ret ? -2000 - errno : info.status;
}

TEST_F(dev, binary_syncobj_signals_when_batch_completes)
{
	int fd = pto_device_fd(self->c.dev);
	struct pto_cqe cqes[8];
	uint32_t h, consumed, i;
	int n;

	ASSERT_EQ(0, drmSyncobjCreate(fd, 0, &h));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, push_mark(&self->c, self->c.q, i, 10 + i,
				       i == 4 ? SLOW_SPIN : 1, NULL, 0));
	}
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, h, 0, &consumed, NULL));
	ASSERT_EQ(5u, consumed);
	/* The slow task is still running: not signalled yet. */
	EXPECT_EQ(-ETIME, drmSyncobjWait(fd, &h, 1, 0,
					 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));

	ASSERT_EQ(0, drmSyncobjWait(fd, &h, 1,
				    pto_test_now_ns() + BATCH_TIMEOUT_NS,
				    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	/* Every task's GM writes are done, before any CQE is read. */
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(10 + i, out_at(&self->c, i));
	}
	EXPECT_EQ(1, fence_status(fd, h));

	n = pto_test_reap_lasts(self->c.q, cqes, 8, 5, BATCH_TIMEOUT_NS);
	ASSERT_EQ(5, n);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(PTO_STATUS_OK, cqes[i].info.status);
	}
	EXPECT_EQ(0, drmSyncobjDestroy(fd, h));
}

TEST_F(dev, timeline_syncobj_points_signal_per_doorbell)
{
	int fd = pto_device_fd(self->c.dev);
	uint64_t point, value = 0;
	uint32_t h, consumed, i;

	ASSERT_EQ(0, drmSyncobjCreate(fd, 0, &h));
	/* Point 1: two quick tasks; point 2: two more, one slow. */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, push_mark(&self->c, self->c.q, i, 20 + i, 0, NULL, 0));
	}
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, h, 1, &consumed, NULL));
	ASSERT_EQ(2u, consumed);
	for (i = 2; i < 4; i++) {
		ASSERT_EQ(0, push_mark(&self->c, self->c.q, i, 20 + i,
				       i == 3 ? SLOW_SPIN : 0, NULL, 0));
	}
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, h, 2, &consumed, NULL));
	ASSERT_EQ(2u, consumed);

	point = 2;
	ASSERT_EQ(0, drmSyncobjTimelineWait(fd, &h, &point, 1,
					    pto_test_now_ns() + BATCH_TIMEOUT_NS,
					    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(20 + i, out_at(&self->c, i));
	}
	point = 1;
	EXPECT_EQ(0, drmSyncobjTimelineWait(fd, &h, &point, 1, 0,
					    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	ASSERT_EQ(0, drmSyncobjQuery(fd, &h, &value, 1));
	EXPECT_EQ(2ull, value);
	EXPECT_EQ(0, drmSyncobjDestroy(fd, h));
}

TEST_F(dev, syncobj_signals_with_failed_tasks_in_batch)
{
	int fd = pto_device_fd(self->c.dev);
	struct pto_cqe cqes[8];
	const struct pto_cqe *c;
	uint32_t h, consumed;
	uint64_t first, detail;
	int n, status;

	ASSERT_EQ(0, drmSyncobjCreate(fd, 0, &h));
	/* OK, a GM fault (column past out), refused, OK (slow). */
	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 0, 30, 0, NULL, 0));
	ASSERT_EQ(0, push_mark(&self->c, self->c.q, OUT_COLS, 31, 0, NULL, 0));
	ASSERT_EQ(0, push_bad(&self->c, &bad_unknown_kernel, &detail));
	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 3, 33, SLOW_SPIN, NULL, 0));
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, h, 0, &consumed, &first));
	ASSERT_EQ(4u, consumed);

	EXPECT_EQ(0, drmSyncobjWait(fd, &h, 1,
				    pto_test_now_ns() + BATCH_TIMEOUT_NS,
				    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	/* Signalled after the last (slow) task, with the batch's error. */
	EXPECT_EQ(33, out_at(&self->c, 3));
	status = fence_status(fd, h);
	EXPECT_EQ(-EIO, status);

	n = pto_test_reap_lasts(self->c.q, cqes, 8, 4, BATCH_TIMEOUT_NS);
	ASSERT_EQ(4, n);
	c = pto_test_find_last(cqes, n, first + 1);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_GM_FAULT, c->info.status);
	c = pto_test_find_last(cqes, n, first + 2);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_INVALID, c->info.status);
	c = pto_test_find_last(cqes, n, first + 3);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
}

TEST_F(dev, syncobj_of_empty_doorbell_signals_at_once)
{
	int fd = pto_device_fd(self->c.dev);
	uint32_t h, consumed = 99;

	ASSERT_EQ(0, drmSyncobjCreate(fd, 0, &h));
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, h, 0, &consumed, NULL));
	EXPECT_EQ(0u, consumed);
	EXPECT_EQ(0, drmSyncobjWait(fd, &h, 1, pto_test_now_ns() + PTO_TEST_SEC(5),
				    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	EXPECT_EQ(1, fence_status(fd, h));
}

/* ------------------------------------------------------------------ poll */

TEST_F(dev, poll_reports_pollin_only_with_a_cqe)
{
	struct pollfd pfd = { .fd = pto_device_fd(self->c.dev), .events = POLLIN };
	struct pto_cqe cqe;
	uint32_t consumed;
	int64_t start;

	/* Nothing submitted: nothing to read. */
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	ASSERT_EQ(0, push_mark(&self->c, self->c.q, 0, 40, SLOW_SPIN, NULL, 0));
	ASSERT_EQ(0, pto_queue_doorbell(self->c.q, 0, 0, &consumed, NULL));
	ASSERT_EQ(1u, consumed);
	/* Running, no CQE yet. */
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, pfd.revents & POLLIN);
	EXPECT_EQ(0, out_at(&self->c, 0));

	start = pto_test_now_ns();
	ASSERT_EQ(1, poll(&pfd, 1, 60000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	EXPECT_GT(PTO_TEST_SEC(50), pto_test_now_ns() - start);
	/* The CQE is there, and the task's work is done. */
	ASSERT_EQ(1, pto_queue_reap(self->c.q, &cqe, 1));
	EXPECT_TRUE((cqe.info.flags & PTO_BLOCK_LAST) != 0);
	EXPECT_EQ(PTO_STATUS_OK, cqe.info.status);
	EXPECT_EQ(40, out_at(&self->c, 0));

	/* Reaped: nothing to read again. */
	pfd.revents = 0;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, pfd.revents & POLLIN);
}

TEST_HARNESS_MAIN
