// SPDX-License-Identifier: GPL-2.0-only
/*
 * A seeded, bounded fuzzer of the whole uapi: every ioctl of the driver
 * (QUERY, BO_CREATE, BO_INFO, GEM close, KERNEL_CREATE/DESTROY,
 * QUEUE_CREATE/DESTROY/SUBMIT/WAIT), the syncobj and PRIME ioctls on this
 * device, mmap offsets, SQ entries (valid ones with one field corrupted,
 * random bytes, bit flips, huge counts, wrong, foreign and closed handles),
 * the ring header, random and mutated kernel programs that are run when the
 * verifier accepts them, hostile kernels, and threads racing close()
 * against the doorbell and the wait.
 *
 * Every call must succeed or fail with one of its documented errnos; every
 * completion must carry a documented status; a valid entry among garbage
 * must still run; no kernel may write outside its tensors' views; every
 * task must end (complete, fault or time out). After each test the device
 * must still run a known task correctly and every byte of GM must be
 * accounted back.
 *
 * Environment: PTO_FUZZ_SEED (default FZ_DEFAULT_SEED, printed) and
 * PTO_FUZZ_ITERS (default FZ_DEFAULT_ITERS; each test scales it). Figures
 * are printed as TAP comments: "# fuzz: QUEUE_SUBMIT 123 calls, 0 unexpected".
 *
 * This file holds the tests and their fixture; the helpers are in fuzz/
 * (fuzz/fuzz.h says which file has what), linked into the same binary.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

#include "fuzz/fuzz.h"

/*
 * The device still works: a fresh context runs the good task and gets the
 * right numbers, and its GM accounting is back to zero once it let go.
 */
static void fz_sanity(struct __test_metadata *_metadata)
{
	struct fz_cqe_seen seen = { 0 };
	uint32_t kernel, in, out, consumed = 0, n;
	struct drm_pto_npu_memory_info mem;
	int32_t *pin, *pout;
	struct pto_test_sqe e;
	struct fz_q q;
	int fd, j;

	fd = pto_test_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fz_good_kernel(fd, &kernel));
	ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &in, NULL));
	ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &out, NULL));
	pin = pto_test_bo_mmap(fd, in, NULL);
	pout = pto_test_bo_mmap(fd, out, NULL);
	ASSERT_NE(MAP_FAILED, (void *)pin);
	ASSERT_NE(MAP_FAILED, (void *)pout);
	for (j = 0; j < FZ_GOOD_COLS; j++)
		pin[j] = j * 5 - 40;
	ASSERT_EQ(0, fz_q_open(fd, 32, 0, &q));
	n = fz_good_entry(&e, kernel, in, out, FZ_PRISTINE);
	fz_q_push(&q, &e, n);
	ASSERT_EQ(0, fz_q_doorbell(fd, &q, 0, 0, &consumed, NULL));
	ASSERT_EQ(1u, consumed);
	ASSERT_EQ(0, fz_q_drain(fd, &q, &seen, PTO_TEST_SEC(60)))
		TH_LOG("sanity task never completed");
	EXPECT_EQ(1u, seen.lasts);
	EXPECT_EQ(1u, seen.status[DRM_PTO_NPU_STATUS_OK]);
	for (j = 0; j < FZ_GOOD_COLS; j++)
		ASSERT_EQ((j * 5 - 40) * 3 + FZ_GOOD_ARG, pout[j])
			TH_LOG("sanity task: out[%d] wrong", j);
	munmap(pin, 4096);
	munmap(pout, 4096);
	EXPECT_EQ(0, fz_q_close(fd, &q));
	EXPECT_EQ(0, pto_test_gem_close(fd, in));
	EXPECT_EQ(0, pto_test_gem_close(fd, out));
	EXPECT_EQ(0, fz_kernel_destroy(fd, kernel));
	ASSERT_EQ(0, pto_test_memory(fd, &mem));
	EXPECT_EQ(0u, mem.context_bos);
	EXPECT_EQ(0u, mem.context_bytes);
	close(fd);
}

/* ------------------------------------------------------------------ fixture */

FIXTURE(fz)
{
	int fd;
	int fd2;
	struct fz_mem mem;
	struct fz_rng r;
	unsigned long iters;
	uint64_t base_bos;
	uint64_t base_bytes;
	struct drm_pto_npu_counters cnt0;
	struct drm_pto_npu_limits lim;
	struct drm_pto_npu_device_info info;
	long saved_timeout;
};

FIXTURE_SETUP(fz)
{
	struct drm_pto_npu_memory_info mem;

	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", pto_test_device_path(),
				      strerror(errno));
	self->fd2 = pto_test_open();
	ASSERT_LE(0, self->fd2);
	ASSERT_EQ(0, fz_mem_init(&self->mem));
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
	ASSERT_EQ(0, pto_test_device_info(self->fd, &self->info));
	ASSERT_EQ(0, pto_test_memory(self->fd, &mem));
	self->base_bos = mem.device_bos;
	self->base_bytes = mem.device_bytes;
	ASSERT_EQ(0, pto_test_counters(self->fd, &self->cnt0));
	self->saved_timeout = pto_test_param_read("timeout_ms");
	ASSERT_LT(0, self->saved_timeout);
	fz_rng_init(&self->r, _metadata->name);
	self->iters = fz_iters();
	fz_t0 = pto_test_now_ns();
	printf("# fuzz: %s seed=0x%llx iters=%lu (PTO_FUZZ_SEED, PTO_FUZZ_ITERS)\n",
	       _metadata->name, (unsigned long long)fz_seed(), self->iters);
	fflush(stdout);
}

/* In the parent, so it runs even after a failed ASSERT: the timeout goes back. */
FIXTURE_TEARDOWN_PARENT(fz)
{
	if (self->saved_timeout > 0)
		pto_test_param_write("timeout_ms", self->saved_timeout);
}

/*
 * End of a test: the figures, then every context closed, the device must
 * run the good task, GM back to where it was, every task taken retired.
 */
static void fz_finish(struct __test_metadata *_metadata, int *fd, int *fd2,
		      uint64_t base_bos, uint64_t base_bytes,
		      const struct drm_pto_npu_counters *c0)
{
	struct drm_pto_npu_memory_info mem = { 0 };
	struct drm_pto_npu_counters c1;
	unsigned long bad = fz_report();
	int64_t deadline;
	int probe;

	printf("# fuzz: %s ran %lld ms\n", _metadata->name,
	       (long long)((pto_test_now_ns() - fz_t0) / 1000000));
	if (*fd >= 0)
		close(*fd);
	if (*fd2 >= 0)
		close(*fd2);
	*fd = *fd2 = -1;
	fz_sanity(_metadata);

	probe = pto_test_open();
	ASSERT_LE(0, probe);
	deadline = pto_test_now_ns() + PTO_TEST_SEC(10);
	do {
		ASSERT_EQ(0, pto_test_memory(probe, &mem));
		if (mem.device_bos == base_bos && mem.device_bytes == base_bytes)
			break;
		usleep(10000);
	} while (pto_test_now_ns() < deadline);
	EXPECT_EQ(base_bos, mem.device_bos) TH_LOG("GM buffers leaked");
	EXPECT_EQ(base_bytes, mem.device_bytes) TH_LOG("GM bytes leaked");
	ASSERT_EQ(0, pto_test_counters(probe, &c1));
	close(probe);
	printf("# fuzz: device counters: +%llu tasks (+%llu invalid), +%llu retired, +%llu faults, +%llu timeouts, +%llu blocks\n",
	       (unsigned long long)(c1.tasks - c0->tasks),
	       (unsigned long long)(c1.invalid - c0->invalid),
	       (unsigned long long)(c1.retired - c0->retired),
	       (unsigned long long)(c1.faults - c0->faults),
	       (unsigned long long)(c1.timeouts - c0->timeouts),
	       (unsigned long long)(c1.blocks - c0->blocks));
	EXPECT_EQ(c1.tasks - c0->tasks, c1.retired - c0->retired)
		TH_LOG("every task taken must retire");
	EXPECT_LE(c1.invalid - c0->invalid, c1.tasks - c0->tasks);
	EXPECT_EQ(0ul, bad) TH_LOG("%lu unexpected results (see above)", bad);
}

#define FZ_FINISH()                                                       \
	fz_finish(_metadata, &self->fd, &self->fd2, self->base_bos,       \
		  self->base_bytes, &self->cnt0)

/* ---------------------------------------------------------- buffers, ioctls */

TEST_F_TIMEOUT(fz, query_buffers_mmap_prime, 600)
{
	struct fz_pool p = { 0 }, p2 = { 0 };
	struct drm_pto_npu_memory_info mem;
	unsigned long i, n = self->iters * 4;
	uint64_t bytes = 0, size;
	int ret;

	for (i = 0; i < n; i++) {
		bool two = fz_pct(&self->r, 15);
		int fd = two ? self->fd2 : self->fd;
		struct fz_pool *pp = two ? &p2 : &p;

		switch (fz_below(&self->r, 10)) {
		case 0:
			fz_one_query(&self->r, &self->mem, fd);
			break;
		case 1:
		case 2:
			fz_one_bo_create(&self->r, fd, pp, &self->lim);
			break;
		case 3:
			fz_one_bo_info(&self->r, fd, pp, false);
			break;
		case 4:
			/* Another file's handle numbers. */
			fz_one_bo_info(&self->r, fd, two ? &p : &p2, true);
			break;
		case 5:
			fz_one_gem_close(&self->r, fd, pp);
			break;
		case 6:
		case 7:
			fz_one_mmap(&self->r, fd, two ? self->fd : self->fd2, pp);
			break;
		case 8:
			fz_one_prime(&self->r, fd, two ? self->fd : self->fd2, pp);
			break;
		default:
			fz_one_raw(&self->r, &self->mem, fd);
			break;
		}
	}

	/* The accounting is exactly what the pool holds. */
	for (i = 0; i < p.nlive; i++) {
		ASSERT_EQ(0, pto_test_bo_info(self->fd, p.live[i], &size, NULL));
		bytes += size;
	}
	ASSERT_EQ(0, pto_test_memory(self->fd, &mem));
	EXPECT_EQ(p.nlive, mem.context_bos);
	EXPECT_EQ(bytes, mem.context_bytes);
	while (p.nlive) {
		ret = pto_test_gem_close(self->fd, fz_pool_take(&p, 0));
		EXPECT_EQ(0, ret);
	}
	ASSERT_EQ(0, pto_test_memory(self->fd, &mem));
	EXPECT_EQ(0u, mem.context_bos);
	EXPECT_EQ(0u, mem.context_bytes);
	FZ_FINISH();
}

/* ---------------------------------------------------------- kernel programs */

TEST_F_TIMEOUT(fz, kernel_create_destroy, 600)
{
	struct fz_pool k = { 0 };
	unsigned long i, n = self->iters * 3, accepted = 0;
	struct fz_prog prog;
	char log[256];

	for (i = 0; i < n; i++) {
		struct drm_pto_npu_kernel_create c = { 0 };
		bool bad_insns = false, bad_tiles = false, bad_log = false;
		bool sane, live, on2;
		uint32_t kind = fz_below(&self->r, 100);
		int ret;

		if (kind < 10) {
			struct drm_pto_npu_kernel_destroy d = { 0 };
			unsigned int j;

			d.handle = fz_pool_pick(&self->r, &k, &live);
			if (fz_pct(&self->r, 5))
				d.pad = (uint32_t)fz_int(&self->r);
			on2 = fz_pct(&self->r, 10);
			ret = fz_ioctl(on2 ? self->fd2 : self->fd,
				       DRM_IOCTL_PTO_NPU_KERNEL_DESTROY, &d);
			fz_note(FZ_KERNEL_DESTROY, ret, E_KDESTROY, "kernel_destroy");
			if (on2)
				continue;
			if (live && !d.pad)
				fz_must_pass(FZ_KERNEL_DESTROY, ret, "destroy of a live kernel");
			/*
			 * Handles are reused: a pick from the destroyed ones
			 * may name a kernel created since, which is gone now.
			 */
			for (j = 0; !ret && j < k.nlive; j++)
				if (k.live[j] == d.handle) {
					fz_pool_take(&k, j);
					break;
				}
			continue;
		}
		if (kind < 40)
			fz_random_prog(&self->r, &prog);
		else {
			fz_gen_prog(&self->r, &prog);
			if (kind < 75)
				fz_mutate_prog(&self->r, &prog);
		}
		c.core_type = prog.core;
		c.num_insns = prog.n;
		c.num_tiles = prog.ntiles;
		if (fz_pct(&self->r, 3))
			c.num_insns = (uint32_t)fz_int(&self->r);
		if (fz_pct(&self->r, 3))
			c.num_tiles = (uint32_t)fz_int(&self->r);
		if (c.num_insns > FZ_PROG_MAX && c.num_insns <= self->lim.max_insns)
			c.num_insns = FZ_PROG_MAX; /* our buffer */
		if (c.num_tiles > PTO_NUM_TREGS && c.num_tiles <= PTO_NUM_TREGS + 1)
			c.num_tiles = PTO_NUM_TREGS + 1;
		c.insns = fz_uptr(&self->r, &self->mem, prog.insns,
				  (size_t)(c.num_insns <= FZ_PROG_MAX ? c.num_insns : 0) *
					  sizeof(struct pto_insn),
				  false, &bad_insns);
		c.tiles = fz_uptr(&self->r, &self->mem, prog.tiles,
				  (size_t)(c.num_tiles <= PTO_NUM_TREGS ? c.num_tiles : 0) *
					  sizeof(struct pto_tile_decl),
				  false, &bad_tiles);
		if (fz_pct(&self->r, 60)) {
			c.log_size = fz_pct(&self->r, 80) ? sizeof(log) :
				     1 + fz_below(&self->r, sizeof(log));
			c.log = fz_uptr(&self->r, &self->mem, log, c.log_size, true,
					&bad_log);
			/* The message may fit in the part that is mapped. */
			if (fz_partial)
				bad_log = false;
			memset(log, PTO_TEST_SENTINEL, sizeof(log));
		}
		if (fz_pct(&self->r, 3))
			c.log_size = (uint32_t)fz_int(&self->r);
		/* A size of 0 asks for no log: no pointer is broken then. */
		if (!c.log_size)
			bad_log = false;
		if (fz_pct(&self->r, 3))
			c.flags = (uint32_t)fz_int(&self->r);
		if (fz_pct(&self->r, 3))
			c.handle = (uint32_t)fz_int(&self->r);
		sane = !c.flags && !c.handle && !c.log == !c.log_size &&
		       c.num_insns <= self->lim.max_insns &&
		       c.num_tiles <= PTO_NUM_TREGS;
		on2 = fz_pct(&self->r, 5);
		ret = fz_ioctl(on2 ? self->fd2 : self->fd,
			       DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &c);
		fz_note(FZ_KERNEL_CREATE, ret, E_KCREATE, "kernel_create");
		if (!sane) {
			fz_must_fail(FZ_KERNEL_CREATE, ret, 0, "kernel_create with bad fields");
			continue;
		}
		if (((bad_insns && c.num_insns) || (bad_tiles && c.num_tiles)) && !ret)
			fz_unexpected(FZ_KERNEL_CREATE, "accepted from a broken pointer");
		if (bad_log && ret == -EINVAL && c.error_code)
			fz_unexpected(FZ_KERNEL_CREATE, "refusal reported into a broken log pointer");
		if (ret == -EINVAL) {
			if (!c.error_code || c.error_code > DRM_PTO_NPU_VERIFY_LOOP_COUNT)
				fz_unexpected(FZ_KERNEL_CREATE,
					      "refused with error_code %u", c.error_code);
			if (c.log == (uintptr_t)log &&
			    !memchr(log, '\0', c.log_size))
				fz_unexpected(FZ_KERNEL_CREATE, "log not NUL-terminated");
			if (c.log == (uintptr_t)log && c.log_size < sizeof(log) &&
			    !pto_test_all_bytes(log + c.log_size,
						sizeof(log) - c.log_size,
						PTO_TEST_SENTINEL))
				fz_unexpected(FZ_KERNEL_CREATE, "log written past log_size");
		}
		if (ret)
			continue;
		accepted++;
		if (!c.handle || c.error_code || c.error_insn != UINT32_MAX ||
		    c.num_tensor_args > self->lim.max_tensor_args ||
		    c.num_scalar_args > self->lim.max_scalar_args)
			fz_unexpected(FZ_KERNEL_CREATE,
				      "accepted: handle %u code %u insn %u args %u/%u",
				      c.handle, c.error_code, c.error_insn,
				      c.num_tensor_args, c.num_scalar_args);
		/* Kernels of fd2 are not tracked: its close frees them. */
		if (on2)
			continue;
		if (k.nlive == FZ_POOL) {
			ret = fz_kernel_destroy(self->fd, fz_pool_take(&k, fz_below(&self->r, FZ_POOL)));
			fz_note(FZ_KERNEL_DESTROY, ret, E_KDESTROY, "destroy to make room");
			fz_must_pass(FZ_KERNEL_DESTROY, ret, "destroy of a live kernel");
		}
		fz_pool_add(&k, c.handle);
	}
	printf("# fuzz: %lu of %lu programs accepted by the verifier\n", accepted, n);
	FZ_FINISH();
}

/* --------------------------------------------------- queue ioctls, syncobjs */

TEST_F_TIMEOUT(fz, queue_ioctls_and_syncobjs, 600)
{
	struct fz_q qs[PTO_TEST_SQE_MAX_SLOTS] = { 0 };
	struct fz_pool sync = { 0 };
	unsigned long i, n = self->iters * 3;
	uint32_t kernel, in, out, nq = 0, j;
	struct fz_cqe_seen seen = { 0 };
	struct pto_test_sqe e;
	int ret;

	ASSERT_LE(self->lim.max_queues_per_context, FZ_N(qs));
	ASSERT_EQ(0, fz_good_kernel(self->fd, &kernel));
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &in, NULL));
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &out, NULL));

	for (i = 0; i < n; i++) {
		struct fz_q *q = nq ? &qs[fz_below(&self->r, nq)] : NULL;
		uint32_t qid = q ? q->c.queue_id : 0;
		bool live_sync;

		if (fz_pct(&self->r, 10))
			qid = (uint32_t)fz_int(&self->r);
		switch (fz_below(&self->r, 12)) {
		case 0:
		case 1: {
			struct fz_q nqe;
			uint32_t sq = fz_pow2_or_not(&self->r, self->lim.max_sq_slots);
			uint32_t cq = fz_pow2_or_not(&self->r, self->lim.max_cq_entries);
			bool valid;

			/* Big rings are pinned memory: rarely. */
			if ((sq > 4096 || cq > 16384) && fz_pct(&self->r, 90))
				sq = cq = 0;
			memset(&nqe, 0, sizeof(nqe));
			nqe.c.sq_slots = sq;
			nqe.c.cq_entries = cq;
			if (fz_pct(&self->r, 3))
				nqe.c.flags = (uint32_t)fz_int(&self->r);
			if (fz_pct(&self->r, 3))
				nqe.c.pad = (uint32_t)fz_int(&self->r);
			if (fz_pct(&self->r, 3))
				nqe.c.queue_id = (uint32_t)fz_int(&self->r);
			if (fz_pct(&self->r, 10))
				nqe.c.work_budget = fz_pct(&self->r, 50) ?
					(uint64_t)fz_int(&self->r) :
					self->lim.min_work_budget +
					(uint64_t)fz_below(&self->r, 1u << 20);
			valid = !nqe.c.flags && !nqe.c.pad && !nqe.c.queue_id &&
				(!nqe.c.work_budget ||
				 (nqe.c.work_budget >= self->lim.min_work_budget &&
				  nqe.c.work_budget <= self->lim.max_work_budget)) &&
				(!sq || (!(sq & (sq - 1)) && sq >= 32 &&
					 sq <= self->lim.max_sq_slots)) &&
				(!cq || (!(cq & (cq - 1)) && cq <= self->lim.max_cq_entries));
			ret = fz_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &nqe.c);
			fz_note(FZ_QUEUE_CREATE, ret, E_QCREATE, "queue_create");
			if (!valid)
				fz_must_fail(FZ_QUEUE_CREATE, ret, EINVAL, "queue_create with bad fields");
			else if (nq == self->lim.max_queues_per_context)
				fz_must_fail(FZ_QUEUE_CREATE, ret, ENOSPC, "queue over the cap");
			if (ret)
				break;
			if (nq == self->lim.max_queues_per_context) {
				fz_unexpected(FZ_QUEUE_CREATE, "queue %u over the cap", nq + 1);
				break;
			}
			nqe.map = mmap(NULL, nqe.c.ring_size, PROT_READ | PROT_WRITE,
				       MAP_SHARED, self->fd, (off_t)nqe.c.mmap_offset);
			fz_note(FZ_MMAP, nqe.map == MAP_FAILED ? -errno : 0, E_MMAP, "ring mmap");
			if (nqe.map == MAP_FAILED) {
				fz_unexpected(FZ_MMAP, "ring mapping refused");
				nqe.map = NULL;
				fz_q_close(self->fd, &nqe);
				break;
			}
			nqe.hdr = (void *)nqe.map;
			nqe.sq = nqe.map + nqe.c.sq_offset;
			nqe.cq = (void *)(nqe.map + nqe.c.cq_offset);
			qs[nq++] = nqe;
			break;
		}
		case 2: {
			struct drm_pto_npu_queue_destroy d = { .queue_id = qid };

			if (!q)
				break;
			if (fz_pct(&self->r, 5))
				d.pad = (uint32_t)fz_int(&self->r);
			ret = fz_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &d);
			fz_note(FZ_QUEUE_DESTROY, ret, E_QDESTROY, "queue_destroy");
			for (j = 0; !ret && j < nq; j++) {
				if (qs[j].c.queue_id != qid)
					continue;
				munmap(qs[j].map, qs[j].c.ring_size);
				pto_test_gem_close(self->fd, qs[j].c.handle);
				qs[j] = qs[--nq];
				break;
			}
			break;
		}
		case 3:
		case 4: {
			struct drm_pto_npu_queue_submit s = { .queue_id = qid };

			/* Sometimes something to take: a valid entry. */
			if (q && fz_pct(&self->r, 50)) {
				uint32_t ns = fz_good_entry(&e, kernel, in, out,
							    FZ_PRISTINE | i);

				if (fz_q_room(q, ns))
					fz_q_push(q, &e, ns);
			}
			if (fz_pct(&self->r, 30)) {
				s.syncobj = fz_pool_pick(&self->r, &sync, &live_sync);
				if (fz_pct(&self->r, 50))
					s.syncobj_point = fz_pct(&self->r, 70) ?
						1 + fz_below(&self->r, 64) : fz_int(&self->r);
			} else if (fz_pct(&self->r, 3)) {
				s.syncobj_point = fz_int(&self->r);
			}
			if (fz_pct(&self->r, 3))
				s.flags = (uint32_t)fz_int(&self->r);
			ret = fz_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s);
			fz_note(FZ_QUEUE_SUBMIT, ret, E_SUBMIT, "queue_submit");
			if (s.flags || (!s.syncobj && s.syncobj_point))
				fz_must_fail(FZ_QUEUE_SUBMIT, ret, EINVAL, "submit with bad fields");
			break;
		}
		case 5:
		case 6: {
			struct drm_pto_npu_queue_wait w = { .queue_id = qid };

			switch (fz_below(&self->r, 4)) {
			case 0:
				w.timeout_ns = 0;
				break;
			case 1:
				w.timeout_ns = -(int64_t)fz_below(&self->r, 1000);
				break;
			case 2:
				w.timeout_ns = (int64_t)(fz_int(&self->r) &
							 0x7fffffffffff);
				break;
			default:
				w.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(2);
				break;
			}
			if (w.timeout_ns > pto_test_now_ns() + PTO_TEST_MSEC(5))
				w.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(5);
			if (fz_pct(&self->r, 3))
				w.flags = (uint32_t)fz_int(&self->r);
			ret = fz_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
			fz_note(FZ_QUEUE_WAIT, ret, E_WAIT, "queue_wait");
			if (w.flags)
				fz_must_fail(FZ_QUEUE_WAIT, ret, EINVAL, "wait with flags");
			if (q && qid == q->c.queue_id)
				fz_q_reap(q, &seen);
			break;
		}
		case 7:
			/* Scribble on the header, then put it back. */
			if (!q)
				break;
			q->hdr->cq_head = (uint32_t)fz_int(&self->r);
			/*
			 * Not the tail over a valid entry still in the SQ (its
			 * submit failed): cut short, it would rightly be
			 * refused (REASON_SLOTS) and no longer be valid.
			 */
			if (fz_pct(&self->r, 50) && q->tail == fz_q_sq_head(q)) {
				fz_q_unmark(q);
				q->hdr->sq_tail = (uint32_t)fz_int(&self->r);
			}
			q->hdr->sq_head = (uint32_t)fz_int(&self->r);
			q->scribbled = true;
			ret = fz_q_doorbell(self->fd, q, 0, 0, NULL, NULL);
			fz_note(FZ_QUEUE_SUBMIT, ret, E_SUBMIT, "submit with a scribbled header");
			fz_q_resync(q);
			break;
		default:
			fz_one_syncobj(&self->r, self->fd, &sync);
			break;
		}
	}

	/* Everything drains, every queue goes. */
	for (j = 0; j < nq; j++) {
		EXPECT_EQ(0, fz_q_drain(self->fd, &qs[j], &seen, FZ_DRAIN_NS));
		EXPECT_EQ(0, fz_q_close(self->fd, &qs[j]));
	}
	printf("# fuzz: %lu valid tasks completed amid the fuzzing\n", seen.pristine);
	while (sync.nlive)
		EXPECT_EQ(0, drmSyncobjDestroy(self->fd, fz_pool_take(&sync, 0)));
	EXPECT_EQ(0, pto_test_gem_close(self->fd, in));
	EXPECT_EQ(0, pto_test_gem_close(self->fd, out));
	EXPECT_EQ(0, fz_kernel_destroy(self->fd, kernel));
	FZ_FINISH();
}

/* --------------------------------------------------------------- SQ entries */

TEST_F_TIMEOUT(fz, sq_entries, 900)
{
	struct fz_cqe_seen seen = { 0 };
	unsigned long i, n = self->iters, entries = 0, pushed_pristine = 0;
	struct fz_q qs[2];
	struct fz_res res;
	struct fz_pool sync = { 0 };
	uint32_t j, h;
	int ret;

	ASSERT_EQ(0, fz_res_init(&res, self->fd, self->fd2, &self->info));
	res.long_run = self->iters >= FZ_LONG_ITERS;
	ASSERT_EQ(0, fz_q_open(self->fd, 256, 1024, &qs[0]));
	ASSERT_EQ(0, fz_q_open(self->fd, 32, 32, &qs[1]));
	res.ring = qs[1].c.handle;
	for (j = 0; j < 8; j++) {
		ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096 << fz_below(&self->r, 5),
						&h, NULL));
		fz_pool_add(&res.bos, h);
	}
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &h));
	fz_pool_add(&sync, h);

	for (i = 0; i < n; i++) {
		struct fz_q *q = &qs[fz_pct(&self->r, 80) ? 0 : 1];
		uint32_t batch = 1 + fz_below(&self->r, 6), b, consumed = 0;
		struct drm_pto_npu_queue_submit s = { .queue_id = q->c.queue_id };

		for (b = 0; b < batch; b++) {
			struct pto_test_sqe e;
			uint32_t slots, k = fz_below(&self->r, 100);

			memset(&e, 0, sizeof(e));
			if (k < 25) {
				slots = fz_good_entry(&e, res.kgood, res.in, res.out,
						      FZ_PRISTINE | entries);
				pushed_pristine++;
			} else {
				slots = fz_valid_variant(&self->r, &e, &res);
				if (k >= 35) {
					/* The header may claim anything; we push what we wrote. */
					if (k >= 95)
						slots = 1 + fz_below(&self->r, PTO_TEST_SQE_MAX_SLOTS);
					fz_mutate_entry(&self->r, &e, slots, &res);
				}
			}
			if (!fz_q_room(q, slots))
				break;
			fz_q_push(q, &e, slots);
			fz_count(FZ_SQE);
			entries++;
		}

		/* Now and then: the world changes under the entries. */
		switch (fz_below(&self->r, 40)) {
		case 0:
			if (res.bos.nlive > 1) {
				ret = pto_test_gem_close(self->fd,
							 fz_pool_take(&res.bos, fz_below(&self->r, res.bos.nlive)));
				fz_note(FZ_GEM_CLOSE, ret, E_GEM_CLOSE, "close under entries");
			}
			break;
		case 1:
			if (!pto_test_bo_create(self->fd, 4096, &h, NULL))
				fz_pool_add(&res.bos, h);
			break;
		case 2:
			ret = fz_kernel_destroy(self->fd, res.kend_aiv);
			fz_note(FZ_KERNEL_DESTROY, ret, E_KDESTROY, "destroy under entries");
			res.kdead = res.kend_aiv;
			ret = fz_end_kernel(self->fd, PTO_CORE_AIV, &res.kend_aiv);
			ASSERT_EQ(0, ret);
			break;
		case 3:
			/* A tail beyond the ring: refused, nothing taken. */
			q->hdr->sq_tail = q->tail + q->c.sq_slots + 1 +
					  fz_below(&self->r, 1000);
			ret = fz_q_doorbell(self->fd, q, 0, 0, &consumed, NULL);
			fz_note(FZ_QUEUE_SUBMIT, ret, E_SUBMIT, "tail beyond the ring");
			fz_must_fail(FZ_QUEUE_SUBMIT, ret, EINVAL, "tail beyond the ring");
			__atomic_store_n(&q->hdr->sq_tail, q->tail, __ATOMIC_RELEASE);
			break;
		case 4:
			/* A head we never consumed: completions are held. */
			q->hdr->cq_head = q->head - 1 - fz_below(&self->r, 1000);
			q->scribbled = true;
			break;
		default:
			break;
		}

		if (fz_pct(&self->r, 20)) {
			s.syncobj = sync.live[0];
			s.syncobj_point = fz_pct(&self->r, 50) ? i + 1 : 0;
		}
		ret = fz_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s);
		fz_note(FZ_QUEUE_SUBMIT, ret, E_SUBMIT, "doorbell");
		fz_q_resync(q);
		fz_q_reap(q, &seen);
		if (fz_pct(&self->r, 15) || !fz_q_room(q, PTO_TEST_SQE_MAX_SLOTS)) {
			ASSERT_EQ(0, fz_q_drain(self->fd, q, &seen, FZ_DRAIN_NS))
				TH_LOG("queue never drained");
		}
	}
	for (j = 0; j < 2; j++) {
		ASSERT_EQ(0, fz_q_drain(self->fd, &qs[j], &seen, FZ_DRAIN_NS))
			TH_LOG("queue never drained");
		EXPECT_EQ(0, fz_q_close(self->fd, &qs[j]));
	}
	printf("# fuzz: %lu entries, %lu tasks retired: %lu ok, %lu refused, %lu skipped, %lu dep-failed; %lu of %lu untouched entries seen, all ok\n",
	       entries, seen.lasts, seen.status[DRM_PTO_NPU_STATUS_OK],
	       seen.status[DRM_PTO_NPU_STATUS_INVALID],
	       seen.status[DRM_PTO_NPU_STATUS_SKIPPED],
	       seen.status[DRM_PTO_NPU_STATUS_DEP_FAILED], seen.pristine,
	       pushed_pristine);
	EXPECT_LT(0ul, seen.pristine);
	drmSyncobjDestroy(self->fd, sync.live[0]);
	FZ_FINISH();
}

/* ---------------------------------------------------- verified programs run */

/* Lowers the device timeout for kernels that never end (teardown restores it). */
static void fz_lower_timeout(struct __test_metadata *_metadata, long ms)
{
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", ms));
}

TEST_F_TIMEOUT(fz, verifier_programs_run, 900)
{
	unsigned long i, n = self->iters, accepted = 0, status[16] = { 0 };
	size_t view = FZ_VIEW_ROWS * FZ_VIEW_COLS * 8, page = pto_test_page_size();
	struct fz_slot slots[FZ_TENSORS];
	struct fz_q q;
	uint32_t j;

	fz_lower_timeout(_metadata, FZ_TIMEOUT_MS);
	ASSERT_EQ(0, fz_q_open(self->fd, 64, 0, &q));
	for (j = 0; j < FZ_TENSORS; j++)
		ASSERT_EQ(0, fz_slot_init(self->fd, &slots[j]));

	for (i = 0; i < n; i++) {
		struct drm_pto_npu_tensor_arg targs[FZ_TENSORS];
		struct drm_pto_npu_kernel_create c = { 0 };
		struct fz_run_last last = { 0 };
		struct fz_cqe_seen seen = { .last = fz_run_last_cb, .arg = &last };
		uint8_t need[FZ_TENSORS];
		int64_t scalars[FZ_TENSORS];
		uint32_t nt, ns, blocks = 1, flags = 0, consumed = 0, nslots;
		struct pto_test_sqe e;
		struct fz_prog p;
		int64_t t0;
		int ret;

		fz_gen_prog(&self->r, &p);
		if (fz_pct(&self->r, 30))
			fz_mutate_prog(&self->r, &p);
		c.insns = (uintptr_t)p.insns;
		c.num_insns = p.n;
		c.tiles = (uintptr_t)p.tiles;
		c.num_tiles = p.ntiles;
		c.core_type = p.core;
		ret = fz_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &c);
		fz_note(FZ_KERNEL_CREATE, ret, E_KCREATE, "kernel_create");
		if (ret)
			continue;
		accepted++;

		fz_arg_dtypes(&p, need);
		nt = c.num_tensor_args;
		ns = c.num_scalar_args;
		for (j = 0; j < nt; j++) {
			uint8_t dt = need[j] ? need[j] : fz_dtype(&self->r);

			targs[j] = pto_test_targ(slots[j].handle, dt, page,
						 FZ_VIEW_ROWS, FZ_VIEW_COLS);
			fz_bytes(&self->r, slots[j].map + page, view);
		}
		for (j = 0; j < ns; j++)
			scalars[j] = fz_pct(&self->r, 85) ? (int64_t)fz_below(&self->r, 20) :
				     (int64_t)fz_int(&self->r);
		if (fz_has_hard_sync(&p)) {
			flags = DRM_PTO_NPU_TASK_F_SYNC_START;
			blocks = p.core == PTO_CORE_AIV ? self->info.aiv_cores :
							  self->info.aic_cores;
		} else if (fz_pct(&self->r, 20)) {
			blocks = 2 + fz_below(&self->r, 7);
		}
		nslots = pto_test_sqe_slots(nt, ns, 0);
		pto_test_sqe_init(&e,
				  p.core == PTO_CORE_AIV ? c.handle : 0,
				  p.core == PTO_CORE_AIC ? c.handle : 0, blocks,
				  targs, nt, scalars, ns, NULL, 0);
		e.hdr.flags = flags;
		fz_q_push(&q, &e, nslots);
		t0 = pto_test_now_ns();
		ret = fz_q_doorbell(self->fd, &q, 0, 0, &consumed, NULL);
		fz_note(FZ_QUEUE_SUBMIT, ret, E_SUBMIT, "doorbell");
		ASSERT_EQ(0, fz_q_drain(self->fd, &q, &seen, FZ_DRAIN_NS))
			TH_LOG("program %lu never ended", i);
		fz_count(FZ_TASK_RUN);
		if (last.seen != 1)
			fz_unexpected(FZ_TASK_RUN, "program %lu: %u LAST CQEs", i, last.seen);
		else if (!fz_run_status_ok(last.status))
			fz_unexpected(FZ_TASK_RUN, "program %lu: status %u reason %u",
				      i, last.status, last.reason);
		else
			status[last.status]++;
		if (last.status == DRM_PTO_NPU_STATUS_INVALID &&
		    last.reason != DRM_PTO_NPU_REASON_RING &&
		    last.reason != DRM_PTO_NPU_REASON_SYNCALL)
			fz_unexpected(FZ_TASK_RUN, "program %lu refused at submit: reason %u",
				      i, last.reason);
		/* A timeout is the device's own bound, plus scheduling slack. */
		if (pto_test_now_ns() - t0 > PTO_TEST_SEC(60))
			fz_unexpected(FZ_TASK_RUN, "program %lu took %lld ms", i,
				      (long long)((pto_test_now_ns() - t0) / 1000000));
		for (j = 0; j < nt; j++)
			if (!fz_slot_guards_ok(&slots[j], view))
				fz_unexpected(FZ_GM_GUARD,
					      "program %lu wrote outside tensor %u's view", i, j);
		ret = fz_kernel_destroy(self->fd, c.handle);
		fz_must_pass(FZ_KERNEL_DESTROY, ret, "destroy of a run kernel");
	}
	printf("# fuzz: %lu of %lu programs accepted and run: %lu ok, %lu gm-fault, %lu timeout, %lu work-budget, %lu arith-fault, %lu loop-fault, %lu barrier-fault, %lu workspace, %lu refused at submit\n",
	       accepted, n, status[DRM_PTO_NPU_STATUS_OK],
	       status[DRM_PTO_NPU_STATUS_GM_FAULT], status[DRM_PTO_NPU_STATUS_TIMEOUT],
	       status[DRM_PTO_NPU_STATUS_WORK_BUDGET],
	       status[DRM_PTO_NPU_STATUS_ARITH_FAULT],
	       status[DRM_PTO_NPU_STATUS_LOOP_FAULT],
	       status[DRM_PTO_NPU_STATUS_BARRIER_FAULT],
	       status[DRM_PTO_NPU_STATUS_WORKSPACE],
	       status[DRM_PTO_NPU_STATUS_INVALID]);
	EXPECT_LT(0ul, accepted);
	for (j = 0; j < FZ_TENSORS; j++)
		munmap(slots[j].map, slots[j].size);
	fz_q_close(self->fd, &q);
	FZ_FINISH();
}

/* ---------------------------------------------------------- hostile kernels */

/* g0[ARG0, ARG1] = an 8x8 tile of 0x7777 (int32). */
static const struct pto_insn fz_oob_tstore[] = {
	INSN(PTO_OP_ARG, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_ARG, 1, 0, 0, 0, 0, 0, 1),
	INSN(PTO_OP_TFILL, 0, 0, 0, 0, 0, PTO_INSN_F_IMM, 0x7777),
	INSN(PTO_OP_TSTORE, 0, 0, 1, 0, 0, 0, 0),
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

/* g0[ARG0, ARG1] = 0x5555. */
static const struct pto_insn fz_oob_gst[] = {
	INSN(PTO_OP_ARG, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_ARG, 1, 0, 0, 0, 0, 0, 1),
	INSN(PTO_OP_LDI, 2, 0, 0, 0, 0, 0, 0x5555),
	INSN(PTO_OP_GST, 0, 0, 1, 2, 0, 0, 0),
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

/* g1[0, 0] = g0[ARG0, ARG1]; a tile load of g0 at the same place first. */
static const struct pto_insn fz_oob_load[] = {
	INSN(PTO_OP_ARG, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_ARG, 1, 0, 0, 0, 0, 0, 1),
	INSN(PTO_OP_LDI, 3, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_GLD, 2, 0, 1, 0, 0, 0, 0),
	INSN(PTO_OP_GST, 0, 3, 3, 2, 0, 0, 1),
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

/*
 * Regression: tile ops read the tile table at their @a field even where it
 * names a scalar register (TLOAD, TSTORE, TFILL), past the 16 tiles for
 * s16..s31 (KASAN slab-out-of-bounds, found by verifier_programs_run).
 * g1[0, 0..7] = 0x1234, through s31 and s30, then loaded back the same way.
 */
static const struct pto_insn fz_high_regs[] = {
	INSN(PTO_OP_LDI, 31, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_LDI, 30, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_TFILL, 0, 0, 31, 0, 0, 0, 0),
	INSN(PTO_OP_TLOAD, 0, 31, 30, 0, 0, 0, 1),
	INSN(PTO_OP_LDI, 29, 0, 0, 0, 0, 0, 0x1234),
	INSN(PTO_OP_TFILL, 0, 0, 29, 0, 0, 0, 0),
	INSN(PTO_OP_TSTORE, 0, 31, 30, 0, 0, 0, 1),
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

static const struct pto_tile_decl fz_tile_1x8 = {
	.dtype = PTO_ISA_I32, .buf = PTO_BUF_UB, .rows = 1, .cols = 8,
};

static const struct pto_tile_decl fz_tile_8x8 = {
	.dtype = PTO_ISA_I32, .buf = PTO_BUF_UB, .rows = 8, .cols = 8,
};

/* Four nested loops at the largest count: 2^80 iterations. */
static const struct pto_insn fz_endless[] = {
	INSN(PTO_OP_LOOP, 0, 0, 0, 0, 0, PTO_INSN_F_IMM, PTO_MAX_LOOP_COUNT),
	INSN(PTO_OP_LOOP, 1, 0, 0, 0, 0, PTO_INSN_F_IMM, PTO_MAX_LOOP_COUNT),
	INSN(PTO_OP_LOOP, 2, 0, 0, 0, 0, PTO_INSN_F_IMM, PTO_MAX_LOOP_COUNT),
	INSN(PTO_OP_LOOP, 3, 0, 0, 0, 0, PTO_INSN_F_IMM, PTO_MAX_LOOP_COUNT),
	INSN(PTO_OP_ALU, 4, 4, 0, 0, PTO_ALU_ADD, PTO_INSN_F_IMM, 1),
	INSN(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

#define FZ_OOB_ROWS 8
#define FZ_OOB_COLS 16
#define FZ_OOB_RSTRIDE 32

/* Runs one task (single kernel) to its end; its LAST CQE in *@last. */
static void fz_run_one(struct __test_metadata *_metadata, int fd, struct fz_q *q,
		       uint32_t kaiv, uint32_t kaic, uint32_t blocks, uint32_t flags,
		       const struct drm_pto_npu_tensor_arg *t, uint32_t nt,
		       const int64_t *sc, uint32_t ns, struct drm_pto_npu_cqe *last)
{
	struct fz_run_last l = { 0 };
	struct fz_cqe_seen seen = { .last = fz_run_last_cb, .arg = &l };
	uint32_t consumed = 0;
	struct pto_test_sqe e;
	uint32_t n;

	n = (uint32_t)(pto_test_sqe_init(&e, kaiv, kaic,
					 blocks, t, nt, sc, ns, NULL, 0) /
		       DRM_PTO_NPU_SQ_SLOT_SIZE);
	e.hdr.flags = flags;
	fz_q_push(q, &e, n);
	ASSERT_EQ(0, fz_q_doorbell(fd, q, 0, 0, &consumed, NULL));
	ASSERT_EQ(1u, consumed);
	ASSERT_EQ(0, fz_q_drain(fd, q, &seen, FZ_DRAIN_NS)) TH_LOG("task never ended");
	ASSERT_EQ(1u, l.seen);
	memset(last, 0, sizeof(*last));
	last->status = (int32_t)l.status;
	last->reason = (uint8_t)l.reason;
	last->detail = l.detail;
	fz_count(FZ_TASK_RUN);
}

TEST_F_TIMEOUT(fz, hostile_kernels, 900)
{
	static const struct { int64_t row, col; bool ok; } tile_at[] = {
		{ 0, 0, true }, { 0, 8, true }, { 1, 0, false }, { 0, 9, false },
		{ -1, 0, false }, { 0, -1, false }, { INT64_MAX, 0, false },
		{ INT64_MIN, 0, false }, { 0, 1ll << 62, false }, { 7, 8, false },
		{ -8, -8, false }, { 0, INT64_MAX - 4, false },
	}, elem_at[] = {
		{ 7, 15, true }, { 0, 0, true }, { 8, 0, false }, { 0, 16, false },
		{ -1, -1, false }, { INT64_MIN, INT64_MIN, false },
		{ 1ll << 40, 0, false }, { 0, 1ll << 33, false }, { 1, 32, false },
		{ 0, FZ_OOB_RSTRIDE - 1, false },
	};
	size_t page = pto_test_page_size(), size;
	uint32_t kst, kgst, kld, kend, kloop, consumed, j;
	struct drm_pto_npu_tensor_arg t[2];
	struct drm_pto_npu_cqe last;
	struct fz_slot g0, g1;
	uint8_t *shadow, *shadow1;
	struct fz_q q;
	int64_t sc[2], t0;

	ASSERT_EQ(0, fz_q_open(self->fd, 64, 16384, &q));
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_oob_tstore,
				      FZ_N(fz_oob_tstore), &fz_tile_8x8, 1, &kst));
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_oob_gst,
				      FZ_N(fz_oob_gst), NULL, 0, &kgst));
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_oob_load,
				      FZ_N(fz_oob_load), NULL, 0, &kld));
	ASSERT_EQ(0, fz_end_kernel(self->fd, PTO_CORE_AIV, &kend));
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_endless,
				      FZ_N(fz_endless), NULL, 0, &kloop));

	/*
	 * Out of bounds: g0 is an [8, 16] int32 view with a row stride of 32
	 * in the middle page of its buffer, so there are gaps between its rows
	 * and guard pages around it; g1 is another buffer. Only the elements
	 * of the view a task may write change, whatever it tries.
	 */
	ASSERT_EQ(0, fz_slot_init(self->fd, &g0));
	ASSERT_EQ(0, fz_slot_init(self->fd, &g1));
	size = g0.size;
	shadow = malloc(size);
	shadow1 = malloc(size);
	ASSERT_NE(NULL, shadow);
	ASSERT_NE(NULL, shadow1);
	memcpy(shadow, g0.map, size);
	memcpy(shadow1, g1.map, size);
	t[0] = pto_test_targ(g0.handle, PTO_ISA_I32, page, FZ_OOB_ROWS, FZ_OOB_COLS);
	t[0].strides[0] = FZ_OOB_RSTRIDE;
	t[0].strides[1] = 1;
	t[1] = pto_test_targ(g1.handle, PTO_ISA_I32, page, 1, FZ_OOB_COLS);
	for (j = 0; j < FZ_N(tile_at) + 2 * FZ_N(elem_at); j++) {
		bool tile = j < FZ_N(tile_at), load = j >= FZ_N(tile_at) + FZ_N(elem_at);
		uint32_t k = tile ? kst : load ? kld : kgst, r, c;
		int64_t row, col;
		bool ok;

		if (tile) {
			row = tile_at[j].row;
			col = tile_at[j].col;
			ok = tile_at[j].ok;
		} else {
			uint32_t x = (j - FZ_N(tile_at)) % FZ_N(elem_at);

			row = elem_at[x].row;
			col = elem_at[x].col;
			ok = elem_at[x].ok;
		}
		sc[0] = row;
		sc[1] = col;
		fz_run_one(_metadata, self->fd, &q, k, 0, 1, 0, t, 2, sc, 2, &last);
		if (ok) {
			EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, last.status)
				TH_LOG("access %d at [%lld, %lld]", k, (long long)row,
				       (long long)col);
			for (r = 0; r < (tile ? 8u : 1u); r++)
				for (c = 0; c < (tile ? 8u : 1u); c++) {
					int32_t v = tile ? 0x7777 : 0x5555;
					size_t off = page + (((size_t)row + r) * FZ_OOB_RSTRIDE +
							     (size_t)col + c) * 4;

					if (load)
						continue;
					memcpy(shadow + off, &v, 4);
				}
			if (load)
				memcpy(shadow1 + page, g0.map + page +
				       ((size_t)row * FZ_OOB_RSTRIDE + (size_t)col) * 4, 4);
		} else {
			EXPECT_EQ(DRM_PTO_NPU_STATUS_GM_FAULT, last.status)
				TH_LOG("access %d at [%lld, %lld]", k, (long long)row,
				       (long long)col);
		}
		fz_count(FZ_GM_GUARD);
		ASSERT_EQ(0, memcmp(shadow, g0.map, size))
			TH_LOG("access at [%lld, %lld] changed bytes it may not",
			       (long long)row, (long long)col);
		ASSERT_EQ(0, memcmp(shadow1, g1.map, size))
			TH_LOG("access at [%lld, %lld] changed the other buffer",
			       (long long)row, (long long)col);
	}

	/* Scalar registers past the tile table in tile instructions. */
	{
		uint32_t khigh;
		int32_t *v = (int32_t *)(g1.map + page);

		ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_high_regs,
					      FZ_N(fz_high_regs), &fz_tile_1x8, 1, &khigh));
		fz_run_one(_metadata, self->fd, &q, khigh, 0, 1, 0, t, 2, NULL, 0, &last);
		EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, last.status);
		for (j = 0; j < 8; j++)
			EXPECT_EQ(0x1234, v[j]);
		EXPECT_EQ(0, fz_kernel_destroy(self->fd, khigh));
	}

	/*
	 * Endless: 2^80 iterations on every AIV core at once. The first block
	 * past its work budget ends the task, after the same count whatever
	 * the host, and the device goes on.
	 */
	t0 = pto_test_now_ns();
	fz_run_one(_metadata, self->fd, &q, kloop, 0, self->info.aiv_cores,
		   DRM_PTO_NPU_TASK_F_SYNC_START, NULL, 0, NULL, 0, &last);
	EXPECT_EQ(DRM_PTO_NPU_STATUS_WORK_BUDGET, last.status);
	EXPECT_LT((uint64_t)FZ_WORK_BUDGET, last.detail);
	EXPECT_GT((uint64_t)FZ_WORK_BUDGET + 1024, last.detail);
	printf("# fuzz: %u endless blocks ended after %llu instructions (budget %llu) in %lld ms\n",
	       self->info.aiv_cores, (unsigned long long)last.detail,
	       (unsigned long long)FZ_WORK_BUDGET,
	       (long long)((pto_test_now_ns() - t0) / 1000000));
	EXPECT_GT(PTO_TEST_SEC(60), pto_test_now_ns() - t0);

	/* The largest SPMD launch (make fuzz; 20+ s under TCG): every block runs. */
	t0 = pto_test_now_ns();
	j = self->iters >= FZ_LONG_ITERS ? self->lim.max_block_num :
					   self->lim.max_block_num / 8;
	fz_run_one(_metadata, self->fd, &q, kend, 0, j, 0, NULL, 0, NULL, 0, &last);
	EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, last.status);
	printf("# fuzz: a launch of %u blocks ran in %lld ms\n", j,
	       (long long)((pto_test_now_ns() - t0) / 1000000));

	/*
	 * Every tile register declared, the UB full to the last byte: runs
	 * and stores the right values; one element more per tile is refused.
	 */
	{
		uint32_t per = self->info.aiv_ub_size / PTO_NUM_TREGS;
		uint32_t cols = 64, rows = per / 4 / cols, pc = 0, i, r, c;
		struct pto_tile_decl tiles[PTO_NUM_TREGS];
		struct pto_insn prog[3 * PTO_NUM_TREGS + 2];
		struct drm_pto_npu_tensor_arg ta;
		uint32_t kfull, bo, ecode;
		int32_t *map;

		ASSERT_EQ(0u, per % (4 * cols));
		for (i = 0; i < PTO_NUM_TREGS; i++) {
			tiles[i] = (struct pto_tile_decl){ .dtype = PTO_ISA_I32,
							   .buf = PTO_BUF_UB,
							   .rows = rows, .cols = cols };
			prog[pc++] = INSN(PTO_OP_TFILL, i, 0, 0, 0, 0, PTO_INSN_F_IMM, i + 1);
		}
		prog[pc++] = INSN(PTO_OP_LDI, 1, 0, 0, 0, 0, 0, 0);
		for (i = 0; i < PTO_NUM_TREGS; i++) {
			prog[pc++] = INSN(PTO_OP_LDI, 0, 0, 0, 0, 0, 0, (int64_t)i * rows);
			prog[pc++] = INSN(PTO_OP_TSTORE, i, 0, 1, 0, 0, 0, 0);
		}
		prog[pc++] = INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0);
		ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, prog, pc, tiles,
					      PTO_NUM_TREGS, &kfull));
		ASSERT_EQ(0, pto_test_bo_create(self->fd,
						(uint64_t)PTO_NUM_TREGS * per, &bo, NULL));
		map = pto_test_bo_mmap(self->fd, bo, NULL);
		ASSERT_NE(MAP_FAILED, (void *)map);
		ta = pto_test_targ(bo, PTO_ISA_I32, 0, PTO_NUM_TREGS * rows, cols);
		fz_run_one(_metadata, self->fd, &q, kfull, 0, 1, 0, &ta, 1, NULL, 0,
			   &last);
		EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, last.status);
		for (i = 0; i < PTO_NUM_TREGS; i++)
			for (r = 0; r < rows; r++)
				for (c = 0; c < cols; c++)
					ASSERT_EQ((int32_t)i + 1,
						  map[((size_t)i * rows + r) * cols + c])
						TH_LOG("tile %u [%u, %u]", i, r, c);
		munmap(map, (size_t)PTO_NUM_TREGS * per);
		EXPECT_EQ(0, fz_kernel_destroy(self->fd, kfull));

		for (i = 0; i < PTO_NUM_TREGS; i++)
			tiles[i].cols = cols + 1;
		{
			struct drm_pto_npu_kernel_create kc = {
				.insns = (uintptr_t)prog, .num_insns = pc,
				.tiles = (uintptr_t)tiles, .num_tiles = PTO_NUM_TREGS,
				.core_type = PTO_CORE_AIV,
			};

			EXPECT_EQ(-EINVAL, fz_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE,
						    &kc));
			ecode = kc.error_code;
		}
		EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_BUDGET, ecode);
		EXPECT_EQ(0, pto_test_gem_close(self->fd, bo));
	}

	/*
	 * The most program memory one file can hold: every kernel handle with
	 * the longest program. One more is refused; closing frees it all.
	 */
	{
		uint32_t nins = self->lim.max_insns, i, h = 0, made = 0;
		struct pto_insn *big = calloc(nins, sizeof(*big));
		int fd3 = pto_test_open(), ret = 0;

		ASSERT_NE(NULL, big);
		ASSERT_LE(0, fd3);
		for (i = 0; i + 1 < nins; i++)
			big[i] = INSN(PTO_OP_LDI, i % PTO_NUM_SREGS, 0, 0, 0, 0, 0, i);
		big[nins - 1] = INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0);
		t0 = pto_test_now_ns();
		for (i = 0; i < self->lim.max_kernels_per_context; i++) {
			ret = fz_kernel_create(fd3, PTO_CORE_AIV, big, nins, NULL, 0, &h);
			if (ret)
				break;
			made++;
		}
		EXPECT_EQ(0, ret);
		EXPECT_EQ(self->lim.max_kernels_per_context, made);
		EXPECT_EQ(-ENOSPC, fz_kernel_create(fd3, PTO_CORE_AIV, big, nins,
						    NULL, 0, &h));
		printf("# fuzz: %u kernels of %u instructions (%zu KiB of program) in %lld ms\n",
		       made, nins, (size_t)made * nins * sizeof(*big) / 1024,
		       (long long)((pto_test_now_ns() - t0) / 1000000));
		close(fd3);
		free(big);
	}

	ASSERT_EQ(0, fz_q_doorbell(self->fd, &q, 0, 0, &consumed, NULL));
	munmap(g0.map, g0.size);
	munmap(g1.map, g1.size);
	free(shadow);
	free(shadow1);
	EXPECT_EQ(0, fz_q_close(self->fd, &q));
	FZ_FINISH();
}

/* --------------------------------------------------- races, in-flight bound */

TEST_F_TIMEOUT(fz, race_close_submit_wait, 900)
{
	unsigned long rounds = self->iters / 50, i;

	if (rounds < 5)
		rounds = 5;
	for (i = 0; i < rounds; i++) {
		struct fz_race x[3];
		pthread_t th[3];
		struct fz_q q[2];
		uint32_t kernel, in, out, j, actions;
		int fd = pto_test_open(), ret;

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, fz_good_kernel(fd, &kernel));
		ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &in, NULL));
		ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &out, NULL));
		ASSERT_EQ(0, fz_q_open(fd, 64, 64, &q[0]));
		/* One CQ entry: completions are held, then flushed by waits. */
		ASSERT_EQ(0, fz_q_open(fd, 32, 1, &q[1]));
		for (j = 0; j < 3; j++) {
			x[j] = (struct fz_race){ .fd = fd, .q = &q[j % 2],
						 .kernel = kernel, .in = in, .out = out,
						 .waiter = j == 2, .seed = fz_next(&self->r) };
			ASSERT_EQ(0, pthread_create(&th[j], NULL, fz_race_thread, &x[j]));
		}

		/* Pull things out from under them, then the file itself. */
		actions = fz_below(&self->r, 4);
		for (j = 0; j < actions; j++) {
			struct drm_pto_npu_queue_destroy d = {
				.queue_id = q[fz_below(&self->r, 2)].c.queue_id,
			};

			usleep(fz_below(&self->r, 3000));
			switch (fz_below(&self->r, 5)) {
			case 0:
				ret = pto_test_gem_close(fd, fz_pct(&self->r, 50) ? in : out);
				fz_note(FZ_GEM_CLOSE, ret, E_GEM_CLOSE, "close under the doorbell");
				break;
			case 1:
				ret = fz_kernel_destroy(fd, kernel);
				fz_note(FZ_KERNEL_DESTROY, ret, E_KDESTROY, "destroy under the doorbell");
				break;
			case 2:
				ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &d);
				fz_note(FZ_QUEUE_DESTROY, ret, E_QDESTROY, "destroy of a busy queue");
				break;
			case 3:
				ret = pto_test_gem_close(fd, q[fz_below(&self->r, 2)].c.handle);
				fz_note(FZ_GEM_CLOSE, ret, E_GEM_CLOSE, "close of a ring handle");
				break;
			default: {
				struct drm_pto_npu_memory_info mem;

				ret = pto_test_memory(fd, &mem);
				fz_note(FZ_QUERY, ret, E_QUERY, "query under the doorbell");
				break;
			}
			}
		}
		usleep(fz_below(&self->r, 5000));
		/* No other thread opens files meanwhile: the number is not reused. */
		close(fd);
		for (j = 0; j < 3; j++) {
			__atomic_store_n(&x[j].stop, 1, __ATOMIC_RELEASE);
			pthread_join(th[j], NULL);
		}
		munmap(q[0].map, q[0].c.ring_size);
		munmap(q[1].map, q[1].c.ring_size);
	}
	printf("# fuzz: %lu rounds of close() against doorbells and waits\n", rounds);
	FZ_FINISH();
}

/*
 * Regression: the in-flight cap counted tasks, not what they hold. 16384
 * tasks of 8192 blocks each made the doorbell allocate 8 GiB of block
 * records. Now intake stops at FZ_MAX_INFLIGHT_UNITS block records (plus
 * the entry that crosses it); the rest stays in the SQ until room frees.
 */
#define FZ_MAX_INFLIGHT_UNITS (1u << 18)
#define FZ_WIDE_ENTRIES 64

TEST_F_TIMEOUT(fz, inflight_block_records_bounded, 600)
{
	uint32_t kloop, kend, consumed = 0, blocks = self->lim.max_block_num, i, n;
	struct fz_run_last l = { 0 };
	struct fz_cqe_seen seen = { 0 };
	uint64_t first = 0;
	struct pto_test_sqe e;
	struct fz_q q;
	int64_t dep;

	/* The holder below runs for seconds: 2^26 instructions. */
	ASSERT_EQ(0, fz_q_open_budget(self->fd, 256, 1024, 1ull << 26, &q));
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_endless,
				      FZ_N(fz_endless), NULL, 0, &kloop));
	ASSERT_EQ(0, fz_end_kernel(self->fd, PTO_CORE_AIV, &kend));
	/* A task that holds its dependants until its budget runs out. */
	n = (uint32_t)(pto_test_sqe_init(&e, kloop, 0, 1,
					 NULL, 0, NULL, 0, NULL, 0) /
		       DRM_PTO_NPU_SQ_SLOT_SIZE);
	fz_q_push(&q, &e, n);
	ASSERT_EQ(0, fz_q_doorbell(self->fd, &q, 0, 0, &consumed, &first));
	ASSERT_EQ(1u, consumed);
	dep = (int64_t)first;
	for (i = 0; i < FZ_WIDE_ENTRIES; i++) {
		n = (uint32_t)(pto_test_sqe_init(&e, kend, 0,
						 blocks, NULL, 0, NULL, 0, &dep, 1) /
			       DRM_PTO_NPU_SQ_SLOT_SIZE);
		fz_q_push(&q, &e, n);
	}
	ASSERT_EQ(0, fz_q_doorbell(self->fd, &q, 0, 0, &consumed, NULL));
	printf("# fuzz: one doorbell took %u of %u entries of %u blocks\n",
	       consumed, FZ_WIDE_ENTRIES, blocks);
	EXPECT_LE(1u, consumed);
	EXPECT_GE(FZ_MAX_INFLIGHT_UNITS / blocks + 1, consumed);
	/* The rest is taken as room frees: every entry ends, none is lost. */
	seen.last = fz_run_last_cb;
	seen.arg = &l;
	ASSERT_EQ(0, fz_q_drain(self->fd, &q, &seen, FZ_DRAIN_NS));
	EXPECT_EQ(FZ_WIDE_ENTRIES + 1u, l.seen);
	EXPECT_EQ(1u, seen.status[DRM_PTO_NPU_STATUS_WORK_BUDGET]);
	EXPECT_EQ((unsigned long)FZ_WIDE_ENTRIES, seen.status[DRM_PTO_NPU_STATUS_DEP_FAILED]);
	EXPECT_EQ(0, fz_q_close(self->fd, &q));
	FZ_FINISH();
}

TEST_HARNESS_MAIN
