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
 * Copyright (C) 2026 pto-npu authors
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

#define FZ_DEFAULT_SEED 0x5eed2026ull
#define FZ_DEFAULT_ITERS 600

#define FZ_N(a) (sizeof(a) / sizeof((a)[0]))

/* Device timeout while the fuzzer runs kernels that may never end. */
#define FZ_TIMEOUT_MS 200
/* Work budget of the fuzzer's queues: random kernels that never end. */
#define FZ_WORK_BUDGET (1u << 20)
/* How long any batch of fuzz tasks may take to drain. */
#define FZ_DRAIN_NS PTO_TEST_SEC(120)
/* Live objects the fuzzer keeps per pool. */
#define FZ_POOL 64
/* Bytes of the good-memory area the broken pointers are carved around. */
#define FZ_RW_PAGES 32
/* The user_data of untouched entries: must complete with STATUS_OK. */
#define FZ_PRISTINE 0xc0ffee4200000000ull
#define FZ_PRISTINE_MASK 0xffffffff00000000ull
/* An untouched entry the kernel took, left in the ring (fz_q_unmark()). */
#define FZ_STALE 0x5ea1ed4200000000ull
/* Largest buffer the fuzzer maps (see fz_one_mmap()). */
#define FZ_MMAP_MAX (16u << 20)
/* Iterations from which the slow cases (the largest launch) run too. */
#define FZ_LONG_ITERS 5000
/* Tensor arguments of one task (the uapi's cap). */
#define FZ_TENSORS 16
/* First unexpected results printed per test. */
#define FZ_PRINT_MAX 20

/* ------------------------------------------------------------ config */

static uint64_t fz_env(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : dflt;
}

static uint64_t fz_seed(void)
{
	return fz_env("PTO_FUZZ_SEED", FZ_DEFAULT_SEED);
}

static unsigned long fz_iters(void)
{
	return (unsigned long)fz_env("PTO_FUZZ_ITERS", FZ_DEFAULT_ITERS);
}

/* ------------------------------------------------------------ random */

struct fz_rng {
	uint64_t s;
};

static uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fz_next(r) % n) : 0;
}

static bool fz_pct(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

/* Each test draws from a stream of its own: seed and test name. */
static void fz_rng_init(struct fz_rng *r, const char *name)
{
	uint64_t h = 1469598103934665603ull;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 1099511628211ull;
	r->s = fz_seed() ^ h;
}

/* An integer from the edges fuzzers like, powers of two, small or random. */
static uint64_t fz_int(struct fz_rng *r)
{
	static const uint64_t edge[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 63, 64, 255, 256,
		4095, 4096, 4097, 65535, 65536, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
		0x8000000000000000ull, UINT64_MAX - 1, UINT64_MAX,
	};
	uint64_t v;

	switch (fz_below(r, 5)) {
	case 0:
		return edge[fz_below(r, FZ_N(edge))];
	case 1:
		v = 1ull << fz_below(r, 64);
		return v + (uint64_t)(int64_t)(fz_below(r, 3) - 1);
	case 2:
		return fz_below(r, 64);
	case 3:
		return (uint64_t)-(int64_t)fz_below(r, 64);
	default:
		return fz_next(r);
	}
}

static void fz_bytes(struct fz_rng *r, void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)fz_next(r);
}

/* Flip 1..8 random bits of @n bytes. */
static void fz_flip(struct fz_rng *r, void *p, size_t n)
{
	uint32_t k = 1 + fz_below(r, 8), i;
	uint8_t *b = p;

	for (i = 0; i < k && n; i++)
		b[fz_below(r, (uint32_t)n)] ^= (uint8_t)(1u << fz_below(r, 8));
}

/* ------------------------------------------------------------ stats */

enum fz_op {
	FZ_QUERY,
	FZ_BO_CREATE,
	FZ_BO_INFO,
	FZ_GEM_CLOSE,
	FZ_MMAP,
	FZ_PRIME,
	FZ_KERNEL_CREATE,
	FZ_KERNEL_DESTROY,
	FZ_QUEUE_CREATE,
	FZ_QUEUE_DESTROY,
	FZ_QUEUE_SUBMIT,
	FZ_QUEUE_WAIT,
	FZ_SYNCOBJ,
	FZ_RAW_IOCTL,
	FZ_SQE,
	FZ_CQE,
	FZ_TASK_RUN,
	FZ_GM_GUARD,
	FZ_NOPS,
};

static const char *const fz_op_names[FZ_NOPS] = {
	[FZ_QUERY] = "QUERY",
	[FZ_BO_CREATE] = "BO_CREATE",
	[FZ_BO_INFO] = "BO_INFO",
	[FZ_GEM_CLOSE] = "GEM_CLOSE",
	[FZ_MMAP] = "mmap",
	[FZ_PRIME] = "PRIME",
	[FZ_KERNEL_CREATE] = "KERNEL_CREATE",
	[FZ_KERNEL_DESTROY] = "KERNEL_DESTROY",
	[FZ_QUEUE_CREATE] = "QUEUE_CREATE",
	[FZ_QUEUE_DESTROY] = "QUEUE_DESTROY",
	[FZ_QUEUE_SUBMIT] = "QUEUE_SUBMIT",
	[FZ_QUEUE_WAIT] = "QUEUE_WAIT",
	[FZ_SYNCOBJ] = "SYNCOBJ",
	[FZ_RAW_IOCTL] = "raw ioctl",
	[FZ_SQE] = "SQ entries",
	[FZ_CQE] = "CQEs",
	[FZ_TASK_RUN] = "fuzzed kernels run",
	[FZ_GM_GUARD] = "GM guard checks",
};

/* When the test started. */
static int64_t fz_t0;

/* Per test process (the harness forks each test); threads add atomically. */
static unsigned long fz_calls[FZ_NOPS], fz_bad[FZ_NOPS], fz_printed;

static void fz_count(enum fz_op op)
{
	__atomic_fetch_add(&fz_calls[op], 1, __ATOMIC_RELAXED);
}

static __attribute__((format(printf, 2, 3))) void
fz_unexpected(enum fz_op op, const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&fz_bad[op], 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&fz_printed, 1, __ATOMIC_RELAXED) >= FZ_PRINT_MAX)
		return;
	printf("# fuzz: UNEXPECTED %s: ", fz_op_names[op]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Errnos each call may fail with besides success (zero-terminated). */
static const int E_QUERY[] = { EINVAL, EFAULT, 0 };
static const int E_BO_CREATE[] = { EINVAL, ENOSPC, ENOMEM, 0 };
static const int E_BO_INFO[] = { EINVAL, ENOENT, ENOMEM, 0 };
static const int E_GEM_CLOSE[] = { EINVAL, ENOENT, 0 };
static const int E_MMAP[] = { EINVAL, EACCES, ENOMEM, EPERM, EOVERFLOW, 0 };
static const int E_PRIME[] = { EINVAL, ENOENT, EBADF, ENOMEM, EOPNOTSUPP, 0 };
static const int E_KCREATE[] = { EINVAL, EFAULT, E2BIG, ENOSPC, ENOMEM, 0 };
static const int E_KDESTROY[] = { EINVAL, ENOENT, 0 };
static const int E_QCREATE[] = { EINVAL, ENOSPC, ENOMEM, 0 };
static const int E_QDESTROY[] = { EINVAL, ENOENT, EBUSY, 0 };
static const int E_SUBMIT[] = { EINVAL, ENOENT, ENOMEM, 0 };
static const int E_WAIT[] = { EINVAL, ENOENT, ETIME, EINTR, 0 };
static const int E_SYNCOBJ[] = { EINVAL, ENOENT, ETIME, EFAULT, ENOMEM,
				 EBUSY, EOPNOTSUPP, 0 };
static const int E_RAW[] = { EINVAL, EFAULT, ENOENT, EBUSY, 0 };

/* Count a call returning @ret (0 or -errno); false if the errno is not in @ok. */
static bool fz_note(enum fz_op op, int ret, const int *ok, const char *what)
{
	fz_count(op);
	if (!ret)
		return true;
	for (; *ok; ok++)
		if (-ret == *ok)
			return true;
	fz_unexpected(op, "%s: %s (%d)", what, strerror(-ret), ret);
	return false;
}

/* A call that must have failed with @want (or any listed error if 0). */
static void fz_must_fail(enum fz_op op, int ret, int want, const char *what)
{
	if (!ret || (want && ret != -want))
		fz_unexpected(op, "%s: got %d, want %d", what, ret, -want);
}

static void fz_must_pass(enum fz_op op, int ret, const char *what)
{
	if (ret)
		fz_unexpected(op, "%s: %s, want success", what, strerror(-ret));
}

static unsigned long fz_report(void)
{
	unsigned long total = 0;
	int i;

	for (i = 0; i < FZ_NOPS; i++) {
		if (!fz_calls[i] && !fz_bad[i])
			continue;
		printf("# fuzz: %s %lu calls, %lu unexpected\n", fz_op_names[i],
		       fz_calls[i], fz_bad[i]);
		total += fz_bad[i];
	}
	fflush(stdout);
	return total;
}

/* ------------------------------------------------------------ raw ioctls */

static int fz_ioctl(int fd, unsigned long req, void *arg)
{
	return pto_test_ret(drmIoctl(fd, req, arg));
}

static int fz_kernel_create(int fd, uint32_t core, const struct pto_insn *p,
			    uint32_t n, const struct pto_tile_decl *t,
			    uint32_t nt, uint32_t *handle)
{
	struct drm_pto_npu_kernel_create c = {
		.insns = (uintptr_t)p, .tiles = (uintptr_t)t, .num_insns = n,
		.num_tiles = nt, .core_type = core,
	};
	int ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &c);

	if (!ret)
		*handle = c.handle;
	return ret;
}

static int fz_kernel_destroy(int fd, uint32_t handle)
{
	struct drm_pto_npu_kernel_destroy d = { .handle = handle };

	return fz_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY, &d);
}

static int fz_counters(int fd, struct drm_pto_npu_counters *c)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_COUNTERS, c, sizeof(*c));
}

/* ------------------------------------------------------------ user memory */

/* The last fz_uptr() ran into the PROT_NONE page part way (a write may fit). */
static bool fz_partial;

/*
 * Memory the broken pointers are made of: FZ_RW_PAGES good pages, then a
 * PROT_NONE page, then a read-only page; plus a range that was unmapped.
 */
struct fz_mem {
	size_t page;
	uint8_t *rw;
	uint8_t *none;
	uint8_t *ro;
	uint8_t *gone;
};

static int fz_mem_init(struct fz_mem *m)
{
	size_t page = pto_test_page_size();
	uint8_t *p = mmap(NULL, (FZ_RW_PAGES + 2) * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	m->page = page;
	m->rw = p;
	m->none = p + FZ_RW_PAGES * page;
	m->ro = m->none + page;
	if (mprotect(m->none, page, PROT_NONE) || mprotect(m->ro, page, PROT_READ))
		return -errno;
	m->gone = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->gone == MAP_FAILED)
		return -errno;
	munmap(m->gone, page);
	return 0;
}

/*
 * A user pointer to @len bytes of @good: mostly @good itself, else a copy
 * at an odd address (still good), or a broken pointer: NULL, unmapped,
 * PROT_NONE, read-only (broken for @write), kernel, non-canonical, random,
 * or a copy that runs into the PROT_NONE page. *@bad is set only when the
 * kernel surely cannot access all @len bytes.
 */
/* No mapping at [@p, @p + @len) (page aligned) any more. */
static bool fz_unmapped(void *p, size_t len)
{
	unsigned char v[1];

	return len <= (size_t)sysconf(_SC_PAGESIZE) && mincore(p, len, v) &&
	       errno == ENOMEM;
}

static uint64_t fz_uptr(struct fz_rng *r, struct fz_mem *m, const void *good,
			size_t len, bool write, bool *bad)
{
	size_t room = FZ_RW_PAGES * m->page, cut;
	uint8_t *p;

	*bad = false;
	fz_partial = false;
	if (fz_pct(r, 80))
		return (uintptr_t)good;
	switch (fz_below(r, 9)) {
	case 0:
		*bad = len > 0;
		return 0;
	case 1:
		/* Unmapped at setup, but a later mmap() may have taken it. */
		*bad = len > 0 && fz_unmapped(m->gone, m->page);
		return (uintptr_t)m->gone + fz_below(r, (uint32_t)m->page);
	case 2:
		*bad = len > 0;
		return (uintptr_t)m->none + fz_below(r, (uint32_t)m->page);
	case 3:
		*bad = write && len > 0;
		return (uintptr_t)m->ro;
	case 4:
		*bad = len > 0;
		return 0xffffffffff000000ull + fz_below(r, 0x1000);
	case 5:
		*bad = len > 0;
		return 0x8000000000000000ull | fz_next(r);
	case 6:
		return fz_next(r);
	case 7:
		if (len + 1 > room)
			return (uintptr_t)good;
		p = m->rw + 1 + fz_below(r, 7);
		if (good)
			memcpy(p, good, len);
		return (uintptr_t)p;
	default:
		/* The last @cut bytes fall into the PROT_NONE page. */
		if (!len || len > room)
			return (uintptr_t)good;
		cut = 1 + fz_below(r, (uint32_t)len);
		p = m->none - len + cut;
		if (good)
			memcpy(p, good, len - cut);
		*bad = true;
		fz_partial = true;
		return (uintptr_t)p;
	}
}

/* ------------------------------------------------------------ queues */

struct fz_q {
	struct drm_pto_npu_queue_create c;
	uint8_t *map;
	struct drm_pto_npu_ring_header *hdr;
	uint8_t *sq;
	struct drm_pto_npu_cqe *cq;
	uint32_t tail;
	uint32_t head;
	bool scribbled;
};

static int fz_q_open_budget(int fd, uint32_t sq, uint32_t cq, uint64_t budget,
			    struct fz_q *q)
{
	int ret;

	memset(q, 0, sizeof(*q));
	q->c.sq_slots = sq;
	q->c.cq_entries = cq;
	q->c.work_budget = budget;
	ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &q->c);
	if (ret)
		return ret;
	q->map = mmap(NULL, q->c.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, (off_t)q->c.mmap_offset);
	if (q->map == MAP_FAILED) {
		q->map = NULL;
		return -errno;
	}
	q->hdr = (struct drm_pto_npu_ring_header *)q->map;
	q->sq = q->map + q->c.sq_offset;
	q->cq = (struct drm_pto_npu_cqe *)(q->map + q->c.cq_offset);
	return 0;
}

/* Random kernels that never end stop after FZ_WORK_BUDGET instructions. */
static int fz_q_open(int fd, uint32_t sq, uint32_t cq, struct fz_q *q)
{
	return fz_q_open_budget(fd, sq, cq, FZ_WORK_BUDGET, q);
}

/* Unmaps, destroys, closes the ring handle. Returns QUEUE_DESTROY's result. */
static int fz_q_close(int fd, struct fz_q *q)
{
	struct drm_pto_npu_queue_destroy d = { .queue_id = q->c.queue_id };
	int ret;

	if (q->map)
		munmap(q->map, q->c.ring_size);
	q->map = NULL;
	ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &d);
	pto_test_gem_close(fd, q->c.handle);
	return ret;
}

static uint32_t fz_q_sq_head(const struct fz_q *q)
{
	return __atomic_load_n(&q->hdr->sq_head, __ATOMIC_ACQUIRE);
}

static bool fz_q_room(const struct fz_q *q, uint32_t n)
{
	return q->tail - fz_q_sq_head(q) + n <= q->c.sq_slots;
}

/* Writes @n slots of @e at our tail and publishes them. */
static void fz_q_push(struct fz_q *q, const void *e, uint32_t n)
{
	uint32_t i, mask = q->c.sq_slots - 1;

	for (i = 0; i < n; i++)
		memcpy(q->sq + ((q->tail + i) & mask) * DRM_PTO_NPU_SQ_SLOT_SIZE,
		       (const uint8_t *)e + i * DRM_PTO_NPU_SQ_SLOT_SIZE,
		       DRM_PTO_NPU_SQ_SLOT_SIZE);
	q->tail += n;
	__atomic_store_n(&q->hdr->sq_tail, q->tail, __ATOMIC_RELEASE);
}

/*
 * Entries the kernel has taken stay in the SQ's memory, and a scribbled
 * tail may hand them in again, cut short or twice: such a rerun is fuzz,
 * not an untouched entry. With nothing pending, mark every header there
 * as stale.
 */
static void fz_q_unmark(struct fz_q *q)
{
	uint32_t i;

	for (i = 0; i < q->c.sq_slots; i++) {
		struct drm_pto_npu_sqe *e = (void *)(q->sq + (size_t)i *
						     DRM_PTO_NPU_SQ_SLOT_SIZE);

		if ((e->user_data & FZ_PRISTINE_MASK) == FZ_PRISTINE)
			e->user_data = FZ_STALE | (e->user_data & ~FZ_PRISTINE_MASK);
	}
}

/* After a doorbell with a scribbled header: our indices back in the ring. */
static void fz_q_resync(struct fz_q *q)
{
	uint32_t h = fz_q_sq_head(q);

	/* The kernel may have taken stale slots past our tail. */
	if ((int32_t)(h - q->tail) > 0)
		q->tail = h;
	q->hdr->cq_head = q->head;
	__atomic_store_n(&q->hdr->sq_tail, q->tail, __ATOMIC_RELEASE);
}

static int fz_q_doorbell(int fd, struct fz_q *q, uint32_t syncobj,
			 uint64_t point, uint32_t *consumed, uint64_t *first)
{
	struct drm_pto_npu_queue_submit s = {
		.queue_id = q->c.queue_id, .syncobj = syncobj,
		.syncobj_point = point,
	};
	int ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s);

	if (consumed)
		*consumed = s.consumed;
	if (first)
		*first = s.first_task_id;
	return ret;
}

/* Checks of every CQE read. */
struct fz_cqe_seen {
	unsigned long cqes;
	unsigned long lasts;
	unsigned long pristine;
	unsigned long status[DRM_PTO_NPU_STATUS_WORK_BUDGET + 1];
	/* Callback per LAST CQE, may be NULL. */
	void (*last)(void *arg, const struct drm_pto_npu_cqe *c);
	void *arg;
};

static void fz_check_cqe(const struct drm_pto_npu_cqe *c, struct fz_cqe_seen *s)
{
	bool last = c->flags & DRM_PTO_NPU_CQE_F_LAST;

	fz_count(FZ_CQE);
	s->cqes++;
	if (c->status < 0 || c->status > DRM_PTO_NPU_STATUS_WORK_BUDGET) {
		fz_unexpected(FZ_CQE, "task %llu: status %d",
			      (unsigned long long)c->task_id, c->status);
		return;
	}
	if (c->flags & ~(uint32_t)(DRM_PTO_NPU_CQE_F_LAST | DRM_PTO_NPU_CQE_F_RAN |
				   DRM_PTO_NPU_CQE_F_STAGED))
		fz_unexpected(FZ_CQE, "task %llu: flags 0x%x",
			      (unsigned long long)c->task_id, c->flags);
	if (c->core_type > PTO_CORE_AIC)
		fz_unexpected(FZ_CQE, "task %llu: core_type %u",
			      (unsigned long long)c->task_id, c->core_type);
	if (!last) {
		if (c->reason)
			fz_unexpected(FZ_CQE, "task %llu: reason %u on a non-LAST CQE",
				      (unsigned long long)c->task_id, c->reason);
		return;
	}
	s->lasts++;
	s->status[c->status]++;
	if ((c->status == DRM_PTO_NPU_STATUS_INVALID) != (c->reason != 0) ||
	    c->reason > DRM_PTO_NPU_REASON_SYNCALL)
		fz_unexpected(FZ_CQE, "task %llu: status %d with reason %u",
			      (unsigned long long)c->task_id, c->status, c->reason);
	if ((c->user_data & FZ_PRISTINE_MASK) == FZ_PRISTINE) {
		s->pristine++;
		if (c->status != DRM_PTO_NPU_STATUS_OK)
			fz_unexpected(FZ_CQE,
				      "valid entry (task %llu) among fuzzed ones: status %d reason %u detail %llu",
				      (unsigned long long)c->task_id, c->status,
				      c->reason, (unsigned long long)c->detail);
	}
	if (s->last)
		s->last(s->arg, c);
}

static void fz_q_reap(struct fz_q *q, struct fz_cqe_seen *s)
{
	uint32_t tail = __atomic_load_n(&q->hdr->cq_tail, __ATOMIC_ACQUIRE);

	/*
	 * The kernel never posts more than the CQ holds past our head, unless
	 * we lied about the head: then what was overwritten is lost.
	 */
	if (tail - q->head > q->c.cq_entries) {
		if (!q->scribbled)
			fz_unexpected(FZ_CQE, "cq_tail %u is %u past cq_head %u (%u entries)",
				      tail, tail - q->head, q->head, q->c.cq_entries);
		q->head = tail - q->c.cq_entries;
	}
	for (; q->head != tail; q->head++)
		fz_check_cqe(&q->cq[q->head & (q->c.cq_entries - 1)], s);
	__atomic_store_n(&q->hdr->cq_head, q->head, __ATOMIC_RELEASE);
}

/*
 * Ring and wait until every published entry is taken and every task of the
 * queue has posted all its CQEs, checking each. 0, or -ETIME.
 */
static int fz_q_drain(int fd, struct fz_q *q, struct fz_cqe_seen *s,
		      int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;

	/* Undo any scribbling on the header. */
	q->hdr->cq_head = q->head;
	__atomic_store_n(&q->hdr->sq_tail, q->tail, __ATOMIC_RELEASE);
	for (;;) {
		struct drm_pto_npu_queue_wait w = {
			.queue_id = q->c.queue_id,
			.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(20),
		};
		int ret;

		ret = fz_q_doorbell(fd, q, 0, 0, NULL, NULL);
		fz_note(FZ_QUEUE_SUBMIT, ret, E_SUBMIT, "drain doorbell");
		ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
		fz_note(FZ_QUEUE_WAIT, ret, E_WAIT, "drain wait");
		fz_q_reap(q, s);
		if (ret == -ETIME && !w.inflight && fz_q_sq_head(q) == q->tail &&
		    !q->hdr->cq_held &&
		    __atomic_load_n(&q->hdr->cq_tail, __ATOMIC_ACQUIRE) == q->head) {
			q->scribbled = false;
			return 0;
		}
		if (pto_test_now_ns() > deadline)
			return -ETIME;
	}
}

/* ------------------------------------------------------------ programs */

#define INSN(o, d, aa, bb, cc, m, f, i)                                       \
	((struct pto_insn){ .op = (o), .dst = (d), .a = (aa), .b = (bb),      \
			    .c = (cc), .mode = (m), .flags = (f), .imm = (i) })

/* out[0, j] = in[0, j] * 3 + arg0 for j < 16: g0 in, g1 out (int32). */
static const struct pto_insn fz_good_prog[] = {
	INSN(PTO_OP_ARG, 4, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_LDI, 1, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_LOOP, 2, 0, 0, 0, 0, PTO_INSN_F_IMM, 16),
	INSN(PTO_OP_GLD, 3, 1, 2, 0, 0, 0, 0),
	INSN(PTO_OP_ALU, 3, 3, 0, 0, PTO_ALU_MUL, PTO_INSN_F_IMM, 3),
	INSN(PTO_OP_ALU, 3, 3, 4, 0, PTO_ALU_ADD, 0, 0),
	INSN(PTO_OP_GST, 0, 1, 2, 3, 0, 0, 1),
	INSN(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

#define FZ_GOOD_ARG 7
#define FZ_GOOD_COLS 16

static const struct pto_insn fz_end_prog[] = {
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

/* An SQ entry with room for the largest body. */
struct fz_sqe {
	struct drm_pto_npu_sqe hdr;
	uint8_t body[(PTO_TEST_SQE_MAX_SLOTS - 1) * DRM_PTO_NPU_SQ_SLOT_SIZE];
};

/* The good task's entry: in, out int32 [1, 16] in buffers @in and @out. */
static uint32_t fz_good_entry(struct fz_sqe *e, uint32_t kernel, uint32_t in,
			      uint32_t out, uint64_t user_data)
{
	struct drm_pto_npu_tensor_arg t[2] = {
		pto_test_targ(in, PTO_ISA_I32, 0, 1, FZ_GOOD_COLS),
		pto_test_targ(out, PTO_ISA_I32, 0, 1, FZ_GOOD_COLS),
	};
	int64_t arg = FZ_GOOD_ARG;

	pto_test_sqe_init((struct pto_test_sqe *)e, kernel, 0, 1, t, 2, &arg, 1,
			  NULL, 0);
	e->hdr.user_data = user_data;
	return e->hdr.num_slots;
}

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
	struct fz_sqe e;
	struct fz_q q;
	int fd, j;

	fd = pto_test_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fz_kernel_create(fd, PTO_CORE_AIV, fz_good_prog,
				      FZ_N(fz_good_prog), NULL, 0, &kernel));
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

/* ------------------------------------------------------------ fixture */

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
	ASSERT_EQ(0, fz_counters(self->fd, &self->cnt0));
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
	ASSERT_EQ(0, fz_counters(probe, &c1));
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

/* ------------------------------------------------------------ pools */

struct fz_pool {
	uint32_t live[FZ_POOL];
	unsigned int nlive;
	uint32_t dead[16];
	unsigned int ndead;
};

static void fz_pool_add(struct fz_pool *p, uint32_t h)
{
	if (p->nlive < FZ_POOL)
		p->live[p->nlive++] = h;
}

/* Removes and returns live entry @i. */
static uint32_t fz_pool_take(struct fz_pool *p, unsigned int i)
{
	uint32_t h = p->live[i];

	p->live[i] = p->live[--p->nlive];
	p->dead[p->ndead++ % FZ_N(p->dead)] = h;
	return h;
}

/* A handle: a live one, a dead one, 0, ~0 or random. *@live tells which. */
static uint32_t fz_pool_pick(struct fz_rng *r, const struct fz_pool *p,
			     bool *live)
{
	unsigned int k = fz_below(r, 100);

	*live = false;
	if (k < 70 && p->nlive) {
		*live = true;
		return p->live[fz_below(r, p->nlive)];
	}
	if (k < 85 && p->ndead)
		return p->dead[fz_below(r, (uint32_t)(p->ndead < FZ_N(p->dead) ?
						       p->ndead : FZ_N(p->dead)))];
	if (k < 90)
		return 0;
	if (k < 93)
		return UINT32_MAX;
	return (uint32_t)fz_int(r);
}

/* ------------------------------------------------------------ test 1 */

static const uint32_t fz_query_sizes[] = {
	sizeof(struct drm_pto_npu_device_info), sizeof(struct drm_pto_npu_limits),
	sizeof(struct drm_pto_npu_memory_info), sizeof(struct drm_pto_npu_counters),
};

static void fz_one_query(struct fz_rng *r, struct fz_mem *m, int fd)
{
	uint8_t out[256];
	struct drm_pto_npu_query q = { 0 };
	bool bad, valid;
	int ret;

	q.type = fz_pct(r, 85) ? fz_below(r, 4) : (uint32_t)fz_int(r);
	switch (fz_below(r, 4)) {
	case 0:
		q.size = 0;
		break;
	case 1:
		q.size = q.type < 4 ? fz_query_sizes[q.type] : 64;
		break;
	case 2:
		q.size = 1 + fz_below(r, sizeof(out));
		break;
	default:
		q.size = (uint32_t)fz_int(r);
		break;
	}
	if (fz_pct(r, 5))
		q.flags = (uint32_t)fz_int(r);
	if (fz_pct(r, 5))
		q.pad = (uint32_t)fz_int(r);
	valid = q.type < 4 && !q.flags && !q.pad;
	/* The kernel copies at most its structure's size. */
	q.data = fz_uptr(r, m, out, valid ? (q.size < fz_query_sizes[q.type] ?
					     q.size : fz_query_sizes[q.type]) : 0,
			 true, &bad);
	if (!bad && q.size > sizeof(out) && q.data == (uintptr_t)out)
		q.size = sizeof(out);
	ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUERY, &q);
	fz_note(FZ_QUERY, ret, E_QUERY, "query");
	if (!valid) {
		fz_must_fail(FZ_QUERY, ret, EINVAL, "query with bad type/flags/pad");
	} else if (bad && q.size) {
		fz_must_fail(FZ_QUERY, ret, EFAULT, "query to a broken pointer");
	} else if (q.data == (uintptr_t)out || !q.size) {
		fz_must_pass(FZ_QUERY, ret, "valid query");
		if (!ret && !q.size)
			fz_unexpected(FZ_QUERY, "size probe returned 0");
	}
}

static void fz_one_bo_create(struct fz_rng *r, int fd, struct fz_pool *p,
			     const struct drm_pto_npu_limits *lim)
{
	struct drm_pto_npu_bo_create c = { 0 };
	uint64_t page = pto_test_page_size();
	bool valid;
	int ret;

	switch (fz_below(r, 5)) {
	case 0:
		c.size = fz_int(r);
		break;
	case 1:
		c.size = lim->max_bo_size + fz_below(r, 3) - 1;
		break;
	default:
		c.size = 1 + fz_below(r, 65536);
		break;
	}
	if (fz_pct(r, 5))
		c.flags = (uint32_t)fz_int(r);
	if (fz_pct(r, 5))
		c.handle = (uint32_t)fz_int(r);
	valid = c.size && c.size <= lim->max_bo_size && !c.flags && !c.handle;
	ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_BO_CREATE, &c);
	fz_note(FZ_BO_CREATE, ret, E_BO_CREATE, "bo_create");
	if (!valid) {
		fz_must_fail(FZ_BO_CREATE, ret, EINVAL, "bo_create with bad size/flags/handle");
		return;
	}
	if (ret)
		return;
	if (!c.handle || c.size % page)
		fz_unexpected(FZ_BO_CREATE, "handle %u size %llu", c.handle,
			      (unsigned long long)c.size);
	if (p->nlive == FZ_POOL) {
		ret = pto_test_gem_close(fd, fz_pool_take(p, fz_below(r, FZ_POOL)));
		fz_note(FZ_GEM_CLOSE, ret, E_GEM_CLOSE, "close to make room");
	}
	fz_pool_add(p, c.handle);
}

static void fz_one_bo_info(struct fz_rng *r, int fd, const struct fz_pool *p,
			   bool foreign)
{
	struct drm_pto_npu_bo_info i = { 0 };
	bool live;
	int ret;

	i.handle = fz_pool_pick(r, p, &live);
	if (fz_pct(r, 5))
		i.flags = (uint32_t)fz_int(r);
	ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_BO_INFO, &i);
	fz_note(FZ_BO_INFO, ret, E_BO_INFO, "bo_info");
	if (i.flags)
		fz_must_fail(FZ_BO_INFO, ret, EINVAL, "bo_info with flags");
	else if (live && !foreign)
		fz_must_pass(FZ_BO_INFO, ret, "bo_info of a live handle");
}

static void fz_one_gem_close(struct fz_rng *r, int fd, struct fz_pool *p)
{
	struct drm_gem_close c = { 0 };
	bool live = false;
	int ret;

	if (p->nlive && fz_pct(r, 60)) {
		c.handle = fz_pool_take(p, fz_below(r, p->nlive));
		live = true;
	} else {
		unsigned int i;

		c.handle = fz_pool_pick(r, p, &live);
		/* A number that happens to be live: keep pool and file in step. */
		for (i = 0; i < p->nlive; i++)
			if (p->live[i] == c.handle) {
				fz_pool_take(p, i);
				live = true;
				break;
			}
	}
	ret = fz_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
	fz_note(FZ_GEM_CLOSE, ret, E_GEM_CLOSE, "gem_close");
	if (live)
		fz_must_pass(FZ_GEM_CLOSE, ret, "close of a live handle");
}

static void fz_one_mmap(struct fz_rng *r, int fd, int other,
			const struct fz_pool *p)
{
	uint64_t size = 0, off = 0, page = pto_test_page_size(), len;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED, ret;
	bool exact = true, live;
	uint32_t h = fz_pool_pick(r, p, &live);
	uint8_t *map;

	if (!live || pto_test_bo_info(fd, h, &size, &off))
		return;
	/*
	 * mmap pins every page of a buffer at once (drm_gem_shmem_mmap): a
	 * 256 MiB one takes over 20 s under TCG + KASAN, a soft lockup.
	 */
	if (size > FZ_MMAP_MAX)
		return;
	len = size;
	switch (fz_below(r, 8)) {
	case 0:
		len = size + page;
		exact = false;
		break;
	case 1:
		off += page * (1 + fz_below(r, 4));
		exact = false;
		break;
	case 2:
		off = fz_int(r) & ~(page - 1);
		exact = false;
		break;
	case 3:
		flags = MAP_PRIVATE;
		exact = false;
		break;
	case 4:
		len = page;
		break;
	case 5:
		prot = PROT_READ;
		break;
	default:
		break;
	}
	/* Another file's offsets are not ours. */
	if (fz_pct(r, 10)) {
		fd = other;
		exact = false;
	}
	map = mmap(NULL, len, prot, flags, fd, (off_t)off);
	ret = map == MAP_FAILED ? -errno : 0;
	fz_note(FZ_MMAP, ret, E_MMAP, "mmap");
	if (exact)
		fz_must_pass(FZ_MMAP, ret, "mmap of a whole live buffer");
	if (ret)
		return;
	/* Touch it: first and last page, read back. */
	if (prot & PROT_WRITE) {
		map[0] = 0x5a;
		map[len - 1] = 0xa5;
		if (map[0] != 0x5a || map[len - 1] != 0xa5)
			fz_unexpected(FZ_MMAP, "mapping does not keep what was written");
	} else {
		(void)*(volatile uint8_t *)map;
	}
	munmap(map, len);
}

/* Export a buffer with PRIME, import it into the other file, use and drop it. */
static void fz_one_prime(struct fz_rng *r, int fd, int other,
			 const struct fz_pool *p)
{
	uint32_t h2 = 0;
	bool live;
	uint32_t h = fz_pool_pick(r, p, &live);
	int dmabuf = -1, ret;
	uint64_t size;

	ret = pto_test_ret(drmPrimeHandleToFD(fd, h, DRM_CLOEXEC | DRM_RDWR,
					      &dmabuf));
	fz_note(FZ_PRIME, ret, E_PRIME, "handle_to_fd");
	if (ret) {
		/* Random fds are not dma-bufs of this device. */
		ret = pto_test_ret(drmPrimeFDToHandle(other,
						      fz_pct(r, 50) ? fd : 0, &h2));
		fz_note(FZ_PRIME, ret, E_PRIME, "fd_to_handle of a non-dmabuf");
		fz_must_fail(FZ_PRIME, ret, 0, "import of a non-dmabuf fd");
		return;
	}
	ret = pto_test_ret(drmPrimeFDToHandle(other, dmabuf, &h2));
	fz_note(FZ_PRIME, ret, E_PRIME, "fd_to_handle");
	close(dmabuf);
	if (ret)
		return;
	ret = pto_test_bo_info(other, h2, &size, NULL);
	fz_note(FZ_BO_INFO, ret, E_BO_INFO, "bo_info of an import");
	ret = pto_test_gem_close(other, h2);
	fz_note(FZ_GEM_CLOSE, ret, E_GEM_CLOSE, "close of an import");
}

/*
 * Ioctl numbers and sizes the driver does not define: unknown numbers in
 * the driver range, and known harmless ones with a wrong size and random
 * bytes (DRM copies what the size says and zero-fills the rest).
 */
static void fz_one_raw(struct fz_rng *r, struct fz_mem *m, int fd)
{
	static const unsigned int harmless[] = {
		DRM_PTO_NPU_QUERY, DRM_PTO_NPU_BO_INFO, DRM_PTO_NPU_KERNEL_DESTROY,
		DRM_PTO_NPU_QUEUE_DESTROY,
	};
	uint8_t buf[128];
	unsigned int nr, size, dir;
	bool known = fz_pct(r, 50), bad;
	unsigned long req;
	uint64_t arg;
	int ret;

	nr = known ? harmless[fz_below(r, FZ_N(harmless))] :
		     DRM_PTO_NPU_QUEUE_WAIT + 1 +
			     fz_below(r, DRM_COMMAND_END - DRM_COMMAND_BASE -
					      DRM_PTO_NPU_QUEUE_WAIT - 1);
	size = fz_below(r, sizeof(buf) + 1);
	dir = fz_below(r, 4);
	fz_bytes(r, buf, sizeof(buf));
	req = _IOC(dir, DRM_IOCTL_BASE, DRM_COMMAND_BASE + nr, size);
	arg = fz_uptr(r, m, buf, size, dir & _IOC_READ, &bad);
	ret = ioctl(fd, req, (void *)(uintptr_t)arg) ? -errno : 0;
	fz_note(FZ_RAW_IOCTL, ret, E_RAW, "raw ioctl");
	if (!known)
		fz_must_fail(FZ_RAW_IOCTL, ret, 0, "unknown ioctl number");
}

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

/* ------------------------------------------------------------ programs */

#define FZ_PROG_MAX 96

struct fz_prog {
	uint32_t core;
	uint32_t n;
	uint32_t ntiles;
	struct pto_insn insns[FZ_PROG_MAX];
	struct pto_tile_decl tiles[PTO_NUM_TREGS];
};

static const uint8_t fz_dtypes[] = { PTO_ISA_F32, PTO_ISA_I32, PTO_ISA_I16,
				     PTO_ISA_I8, PTO_ISA_I64 };

static void fz_gen_tiles(struct fz_rng *r, struct fz_prog *p)
{
	uint8_t dtype = fz_dtypes[fz_below(r, FZ_N(fz_dtypes))];
	uint32_t rows = 1u << fz_below(r, 5), cols = 1u << fz_below(r, 5), i;

	if (p->core == PTO_CORE_AIC)
		dtype = PTO_ISA_F32;
	p->ntiles = fz_below(r, 7);
	for (i = 0; i < p->ntiles; i++) {
		struct pto_tile_decl *t = &p->tiles[i];

		memset(t, 0, sizeof(*t));
		/* Most tiles share one shape and dtype, so tile ops verify. */
		t->dtype = fz_pct(r, 80) ? dtype : fz_dtypes[fz_below(r, FZ_N(fz_dtypes))];
		t->rows = fz_pct(r, 80) ? rows : 1u << fz_below(r, 5);
		t->cols = fz_pct(r, 80) ? cols : 1u << fz_below(r, 5);
		t->buf = p->core == PTO_CORE_AIV ? PTO_BUF_UB :
			 PTO_BUF_L1 + fz_below(r, 4);
	}
}

static uint8_t fz_sreg(struct fz_rng *r)
{
	return (uint8_t)fz_below(r, PTO_NUM_SREGS);
}

static uint8_t fz_treg(struct fz_rng *r, const struct fz_prog *p)
{
	return (uint8_t)fz_below(r, p->ntiles);
}

/* A likely valid instruction (not control flow). */
static struct pto_insn fz_gen_insn(struct fz_rng *r, const struct fz_prog *p)
{
	bool imm = fz_pct(r, 60), tiles = p->ntiles > 0;
	struct pto_insn in;
	uint32_t k = fz_below(r, tiles ? 20 : 10);

	memset(&in, 0, sizeof(in));
	switch (k) {
	case 0:
		in.op = PTO_OP_LDI;
		in.dst = fz_sreg(r);
		in.imm = fz_pct(r, 80) ? (int64_t)fz_below(r, 20) : (int64_t)fz_int(r);
		break;
	case 1:
		in.op = PTO_OP_MOV;
		in.dst = fz_sreg(r);
		in.a = fz_sreg(r);
		break;
	case 2:
		in.op = PTO_OP_SREG;
		in.dst = fz_sreg(r);
		in.mode = (uint8_t)fz_below(r, PTO_SREG_NUM_ARGS + 1);
		break;
	case 3:
		in.op = PTO_OP_ARG;
		in.dst = fz_sreg(r);
		in.imm = fz_below(r, 4);
		break;
	case 4:
	case 5:
		in.op = k == 4 ? PTO_OP_ALU : PTO_OP_CMP;
		in.dst = fz_sreg(r);
		in.a = fz_sreg(r);
		in.mode = (uint8_t)fz_below(r, k == 4 ? PTO_ALU_MAX + 1 : PTO_CMP_LE + 1);
		if (imm) {
			in.flags = PTO_INSN_F_IMM;
			in.imm = fz_pct(r, 80) ? (int64_t)fz_below(r, 8) : (int64_t)fz_int(r);
		} else {
			in.b = fz_sreg(r);
		}
		break;
	case 6:
		in.op = PTO_OP_GLD;
		in.dst = fz_sreg(r);
		in.a = fz_sreg(r);
		in.b = fz_sreg(r);
		in.imm = fz_below(r, 3);
		break;
	case 7:
		in.op = PTO_OP_GST;
		in.a = fz_sreg(r);
		in.b = fz_sreg(r);
		in.c = fz_sreg(r);
		in.imm = fz_below(r, 3);
		break;
	case 8:
		in.op = PTO_OP_ATOMIC_ADD;
		in.dst = fz_sreg(r);
		in.a = fz_sreg(r);
		in.b = fz_sreg(r);
		in.c = fz_sreg(r);
		in.imm = fz_below(r, 3);
		break;
	case 9:
		in.op = fz_pct(r, 50) ? PTO_OP_FENCE : PTO_OP_CACHEINVALID;
		if (fz_pct(r, 3)) {
			/* SYNCALL: SOFT with a workspace, or HARD. */
			in.op = PTO_OP_SYNCALL;
			in.mode = (uint8_t)fz_below(r, 2);
			if (in.mode == PTO_SYNC_SOFT) {
				in.a = fz_sreg(r);
				in.imm = fz_below(r, 3);
			} else {
				in.imm = p->core == PTO_CORE_AIV ? PTO_SYNC_AIV :
								   PTO_SYNC_AIC;
			}
		}
		break;
	case 10:
	case 11:
		in.op = k == 10 ? PTO_OP_TLOAD : PTO_OP_TSTORE;
		in.dst = fz_treg(r, p);
		in.a = fz_sreg(r);
		in.b = fz_sreg(r);
		in.imm = fz_below(r, 3);
		break;
	case 12:
		in.op = PTO_OP_TFILL;
		in.dst = fz_treg(r, p);
		if (imm) {
			in.flags = PTO_INSN_F_IMM;
			in.imm = (int64_t)fz_int(r);
		} else {
			in.b = fz_sreg(r);
		}
		break;
	case 13:
		in.op = PTO_OP_TMOV;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		break;
	case 14:
		in.op = PTO_OP_TBIN;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		in.b = fz_treg(r, p);
		in.mode = (uint8_t)fz_below(r, PTO_TBIN_XOR + 1);
		break;
	case 15:
		in.op = PTO_OP_TBINS;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		in.mode = (uint8_t)fz_below(r, PTO_TBIN_XOR + 1);
		if (imm) {
			in.flags = PTO_INSN_F_IMM;
			in.imm = (int64_t)fz_int(r);
		} else {
			in.b = fz_sreg(r);
		}
		break;
	case 16:
		in.op = PTO_OP_TUNARY;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		in.mode = (uint8_t)fz_below(r, PTO_TUNARY_ABS + 1);
		break;
	case 17:
		in.op = fz_pct(r, 50) ? PTO_OP_TROWRED : PTO_OP_TCAST;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		if (in.op == PTO_OP_TROWRED)
			in.mode = (uint8_t)fz_below(r, PTO_ROWRED_MAX + 1);
		break;
	case 18:
		in.op = PTO_OP_MATMUL;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		in.b = fz_treg(r, p);
		if (fz_pct(r, 50))
			in.flags = PTO_INSN_F_ACC;
		break;
	default:
		in.op = fz_pct(r, 50) ? PTO_OP_PUSH : PTO_OP_POP;
		if (in.op == PTO_OP_PUSH)
			in.a = fz_treg(r, p);
		else
			in.dst = fz_treg(r, p);
		break;
	}
	return in;
}

/* Innermost LOOP of each instruction, as the verifier sees it. */
static void fz_loop_of(const struct fz_prog *p, int *loop_of)
{
	int stack[8], depth = 0;
	uint32_t pc;

	for (pc = 0; pc < p->n; pc++) {
		loop_of[pc] = depth ? stack[depth - 1] : -1;
		if (p->insns[pc].op == PTO_OP_LOOP && depth < 8)
			stack[depth++] = (int)pc;
		else if (p->insns[pc].op == PTO_OP_ENDLOOP && depth)
			depth--;
	}
}

/* A program that mostly verifies: balanced loops, forward jumps, an END. */
static void fz_gen_prog(struct fz_rng *r, struct fz_prog *p)
{
	uint32_t target = 2 + fz_below(r, fz_pct(r, 90) ? 30 : FZ_PROG_MAX - 8);
	int loop_of[FZ_PROG_MAX], depth = 0;
	uint32_t pc, t;

	memset(p, 0, sizeof(*p));
	p->core = fz_pct(r, 70) ? PTO_CORE_AIV : PTO_CORE_AIC;
	fz_gen_tiles(r, p);
	while (p->n + depth + 1 < target) {
		struct pto_insn in;
		uint32_t k = fz_below(r, 100);

		memset(&in, 0, sizeof(in));
		if (k < 8 && depth < PTO_MAX_LOOP_DEPTH) {
			in.op = PTO_OP_LOOP;
			in.dst = fz_sreg(r);
			if (fz_pct(r, 75)) {
				in.flags = PTO_INSN_F_IMM;
				in.imm = fz_pct(r, 90) ? (int64_t)fz_below(r, 5) :
					 (int64_t)fz_below(r, PTO_MAX_LOOP_COUNT + 1);
			} else {
				in.b = fz_sreg(r);
			}
			depth++;
		} else if (k < 16 && depth) {
			in.op = PTO_OP_ENDLOOP;
			depth--;
		} else if (k < 22) {
			in.op = PTO_OP_JMP + (uint8_t)fz_below(r, 3);
			if (in.op != PTO_OP_JMP)
				in.a = fz_sreg(r);
		} else {
			in = fz_gen_insn(r, p);
		}
		p->insns[p->n++] = in;
	}
	while (depth--)
		p->insns[p->n++] = INSN(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0);
	p->insns[p->n++] = INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0);

	/* Jumps: a later instruction of the same loop body. */
	fz_loop_of(p, loop_of);
	for (pc = 0; pc < p->n; pc++) {
		struct pto_insn *in = &p->insns[pc];
		uint32_t cand[FZ_PROG_MAX], nc = 0;

		if (in->op != PTO_OP_JMP && in->op != PTO_OP_JZ && in->op != PTO_OP_JNZ)
			continue;
		for (t = pc + 1; t < p->n; t++)
			if (loop_of[t] == loop_of[pc])
				cand[nc++] = t;
		if (nc)
			in->imm = cand[fz_below(r, nc)];
		else
			*in = INSN(PTO_OP_FENCE, 0, 0, 0, 0, 0, 0, 0);
	}
}

/* One to three corruptions of a program or its tile table. */
static void fz_mutate_prog(struct fz_rng *r, struct fz_prog *p)
{
	uint32_t k = 1 + fz_below(r, 3), i;

	for (i = 0; i < k; i++) {
		struct pto_insn *in = &p->insns[fz_below(r, p->n)];

		switch (fz_below(r, 8)) {
		case 0:
			fz_flip(r, in, sizeof(*in));
			break;
		case 1:
			in->imm = (int64_t)fz_int(r);
			break;
		case 2:
			((uint8_t *)in)[fz_below(r, 8)] = (uint8_t)fz_int(r);
			break;
		case 3:
			in->op = (uint8_t)fz_below(r, 0x40);
			break;
		case 4:
			if (p->ntiles)
				fz_flip(r, &p->tiles[fz_below(r, p->ntiles)],
					sizeof(p->tiles[0]));
			break;
		case 5:
			if (p->n > 1)
				p->n = 1 + fz_below(r, p->n);
			break;
		case 6: {
			struct pto_insn *o = &p->insns[fz_below(r, p->n)], t = *in;

			*in = *o;
			*o = t;
			break;
		}
		default:
			p->ntiles = fz_below(r, PTO_NUM_TREGS + 2);
			break;
		}
	}
}

/* Random bytes, sometimes with a plausible opcode in each instruction. */
static void fz_random_prog(struct fz_rng *r, struct fz_prog *p)
{
	uint32_t i;

	memset(p, 0, sizeof(*p));
	p->core = fz_pct(r, 90) ? 1 + fz_below(r, 2) : (uint32_t)fz_int(r);
	p->n = 1 + fz_below(r, FZ_PROG_MAX);
	p->ntiles = fz_below(r, PTO_NUM_TREGS + 1);
	fz_bytes(r, p->insns, p->n * sizeof(p->insns[0]));
	fz_bytes(r, p->tiles, sizeof(p->tiles));
	if (fz_pct(r, 50))
		for (i = 0; i < p->n; i++)
			p->insns[i].op &= 0x3f;
	if (fz_pct(r, 50))
		p->insns[p->n - 1] = INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0);
}

/* ------------------------------------------------------------ test 2 */

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

/* ------------------------------------------------------------ test 3 */

/* Syncobj ioctls on the doorbell's syncobjs (drm core, but ours to feed). */
static void fz_one_syncobj(struct fz_rng *r, int fd, struct fz_pool *s)
{
	uint64_t point = fz_pct(r, 50) ? fz_below(r, 8) : fz_int(r);
	bool live;
	uint32_t h = fz_pool_pick(r, s, &live), h2 = 0;
	int ret = 0, sfd = -1;

	switch (fz_below(r, 9)) {
	case 0:
		ret = pto_test_ret(drmSyncobjCreate(fd, fz_pct(r, 30) ?
						    DRM_SYNCOBJ_CREATE_SIGNALED : 0, &h2));
		if (!ret && s->nlive < FZ_POOL)
			fz_pool_add(s, h2);
		else if (!ret)
			drmSyncobjDestroy(fd, h2);
		break;
	case 1:
		{
			unsigned int i;

			for (i = 0; i < s->nlive; i++)
				if (s->live[i] == h) {
					fz_pool_take(s, i);
					live = true;
					break;
				}
		}
		ret = pto_test_ret(drmSyncobjDestroy(fd, h));
		if (live)
			fz_must_pass(FZ_SYNCOBJ, ret, "destroy of a live syncobj");
		break;
	case 2:
		ret = drmSyncobjWait(fd, &h, 1, fz_pct(r, 50) ? 0 :
				     pto_test_now_ns() + PTO_TEST_MSEC(1),
				     fz_below(r, 8), NULL);
		break;
	case 3:
		ret = drmSyncobjTimelineWait(fd, &h, &point, 1,
					     pto_test_now_ns() + PTO_TEST_MSEC(1),
					     fz_below(r, 16), NULL);
		break;
	case 4:
		ret = drmSyncobjQuery(fd, &h, &point, 1);
		break;
	case 5:
		ret = fz_pct(r, 50) ? drmSyncobjReset(fd, &h, 1) :
				      drmSyncobjSignal(fd, &h, 1);
		break;
	case 6:
		ret = drmSyncobjTimelineSignal(fd, &h, &point, 1);
		break;
	case 7:
		ret = drmSyncobjTransfer(fd, h, point, s->nlive ? s->live[0] : h,
					 fz_below(r, 4), 0);
		break;
	default:
		ret = drmSyncobjExportSyncFile(fd, h, &sfd);
		if (!ret) {
			ret = drmSyncobjImportSyncFile(fd, s->nlive ? s->live[0] : h, sfd);
			close(sfd);
		}
		break;
	}
	/* libdrm returns -errno for some calls and -1/errno for others. */
	if (ret == -1)
		ret = -errno;
	fz_note(FZ_SYNCOBJ, ret, E_SYNCOBJ, "syncobj");
}

static uint32_t fz_pow2_or_not(struct fz_rng *r, uint32_t max)
{
	switch (fz_below(r, 5)) {
	case 0:
		return 0;
	case 1:
		return (uint32_t)fz_int(r);
	case 2:
		return 1u << fz_below(r, 32);
	default:
		return 32u << fz_below(r, 5 + (max > 1024));
	}
}

TEST_F_TIMEOUT(fz, queue_ioctls_and_syncobjs, 600)
{
	struct fz_q qs[PTO_TEST_SQE_MAX_SLOTS] = { 0 };
	struct fz_pool sync = { 0 };
	unsigned long i, n = self->iters * 3;
	uint32_t kernel, in, out, nq = 0, j;
	struct fz_cqe_seen seen = { 0 };
	struct fz_sqe e;
	int ret;

	ASSERT_LE(self->lim.max_queues_per_context, FZ_N(qs));
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_good_prog,
				      FZ_N(fz_good_prog), NULL, 0, &kernel));
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
/* ------------------------------------------------------------ test 4 */

/* What the SQ entries of the fuzzer name. */
struct fz_res {
	uint32_t kgood;		/* fz_good_prog */
	uint32_t kend_aiv;	/* END */
	uint32_t kend_aic;	/* END on AIC */
	uint32_t kforeign;	/* a kernel handle of the other file */
	uint32_t kdead;		/* a destroyed kernel handle */
	uint32_t in, out;	/* the good task's buffers, never closed */
	uint32_t ring;		/* a ring buffer's handle */
	uint32_t foreign_bo;	/* a buffer handle of the other file */
	struct fz_pool bos;	/* more buffers, closed and made on the way */
	uint32_t cores[2];	/* AIV, AIC cores */
	bool long_run;		/* PTO_FUZZ_ITERS >= FZ_LONG_ITERS */
};

static uint32_t fz_slots(uint32_t nt, uint32_t ns, uint32_t nd, bool pred)
{
	return pto_test_sqe_slots_pred(nt, ns, nd, pred);
}

/* A valid entry other than the good task (not pristine: no result check). */
static uint32_t fz_valid_variant(struct fz_rng *r, struct fz_sqe *e,
				 const struct fz_res *res)
{
	struct drm_pto_npu_tensor_arg t[2] = {
		pto_test_targ(res->in, PTO_ISA_I32, 0, 1, FZ_GOOD_COLS),
		pto_test_targ(res->out, PTO_ISA_I32, 0, 1, FZ_GOOD_COLS),
	};
	struct drm_pto_npu_predicate pred = { 0 };
	int64_t deps[4], arg = fz_below(r, 100);
	uint32_t nd = fz_below(r, 3), i, k = fz_below(r, 4);

	for (i = 0; i < nd; i++)
		deps[i] = -(int64_t)(1 + fz_below(r, 8));
	pred.tensor = 0;
	pred.op = (uint8_t)fz_below(r, PTO_CMP_LE + 1);
	pred.col = fz_below(r, FZ_GOOD_COLS);
	pred.literal = fz_below(r, 8) - 4;
	switch (k) {
	case 0: /* the good kernel, deps and maybe a predicate */
		pto_test_sqe_init_pred((struct pto_test_sqe *)e, res->kgood, 0,
				       1 + fz_below(r, 4), t, 2, &arg, 1, deps,
				       nd, fz_pct(r, 50) ? &pred : NULL);
		break;
	case 1: /* END, several blocks, maybe all at once */
		pto_test_sqe_init((struct pto_test_sqe *)e, res->kend_aiv, 0,
				  1 + fz_below(r, 16), NULL, 0, NULL, 0, deps, nd);
		if (fz_pct(r, 30)) {
			e->hdr.flags = DRM_PTO_NPU_TASK_F_SYNC_START;
			e->hdr.block_num = 1 + fz_below(r, res->cores[0]);
		}
		break;
	case 2: /* mixed */
		pto_test_sqe_init((struct pto_test_sqe *)e, res->kend_aiv,
				  res->kend_aic, 1 + fz_below(r, 4), NULL, 0,
				  NULL, 0, deps, nd);
		e->hdr.split_mode = (uint8_t)fz_below(r, 2);
		e->hdr.slot_num = (uint16_t)fz_below(r, 9);
		break;
	default: /* AIC alone, early resolve */
		pto_test_sqe_init((struct pto_test_sqe *)e, 0, res->kend_aic,
				  1 + fz_below(r, 4), NULL, 0, NULL, 0, deps, nd);
		e->hdr.flags = DRM_PTO_NPU_TASK_F_EARLY_RESOLVE;
		break;
	}
	e->hdr.user_data = fz_next(r) & ~FZ_PRISTINE_MASK;
	return e->hdr.num_slots;
}

static uint32_t fz_bad_kernel(struct fz_rng *r, const struct fz_res *res)
{
	const uint32_t k[] = { 0, res->kforeign, res->kdead, res->kend_aic,
			       res->kend_aiv, res->kgood, UINT32_MAX,
			       (uint32_t)fz_int(r) };

	return k[fz_below(r, FZ_N(k))];
}

static uint32_t fz_bad_bo(struct fz_rng *r, const struct fz_res *res)
{
	bool live;
	const uint32_t h[] = { 0, res->ring, res->foreign_bo, res->kgood,
			       fz_pool_pick(r, &res->bos, &live), UINT32_MAX,
			       (uint32_t)fz_int(r), res->in };

	return h[fz_below(r, FZ_N(h))];
}

/* Corrupt one field of a valid entry of @slots slots. */
static void fz_mutate_entry(struct fz_rng *r, struct fz_sqe *e, uint32_t slots,
			    const struct fz_res *res)
{
	struct drm_pto_npu_sqe *h = &e->hdr;
	uint32_t nt = h->num_tensors, ns = h->num_scalars, nd = h->num_deps;
	struct drm_pto_npu_tensor_arg *t = (void *)e->body;
	int64_t *sc = (int64_t *)(e->body + nt * sizeof(*t));
	struct drm_pto_npu_predicate *p = (void *)(sc + ns + nd);
	uint32_t k = fz_below(r, 12);

	switch (k) {
	case 0:
		switch (fz_below(r, 10)) {
		case 0:
			h->kernel_aiv = fz_bad_kernel(r, res);
			break;
		case 1:
			h->kernel_aic = fz_bad_kernel(r, res);
			break;
		case 2:
			h->flags = fz_pct(r, 50) ? 1u << fz_below(r, 32) :
						   (uint32_t)fz_int(r);
			break;
		case 3: {
			const uint32_t b[] = { 0, 8193, UINT32_MAX, 64, 200,
					       res->cores[0] + 1 };

			/* The largest launch takes 20+ s under TCG: make fuzz only. */
			h->block_num = res->long_run && fz_pct(r, 2) ? 8192 :
				       b[fz_below(r, FZ_N(b))];
			if (fz_pct(r, 50))
				h->flags |= DRM_PTO_NPU_TASK_F_SYNC_START;
			break;
		}
		case 4:
			h->split_mode = (uint8_t)fz_int(r);
			break;
		case 5:
			h->slot_num = (uint16_t)fz_int(r);
			break;
		case 6:
			h->reserved[fz_below(r, 4)] = fz_int(r) | 1;
			break;
		case 7:
			h->flags |= DRM_PTO_NPU_TASK_F_PREDICATE;
			break;
		default:
			h->user_data = fz_next(r);
			break;
		}
		break;
	case 1:
	case 2:
		if (!nt)
			break;
		t += fz_below(r, nt);
		switch (fz_below(r, 8)) {
		case 0:
			t->handle = fz_bad_bo(r, res);
			break;
		case 1:
			t->dtype = (uint8_t)fz_int(r);
			break;
		case 2:
			t->ndim = (uint8_t)fz_int(r);
			break;
		case 3:
			t->flags = (uint16_t)fz_int(r) | 1;
			break;
		case 4:
			t->offset = fz_pct(r, 50) ? fz_below(r, 8192) : fz_int(r);
			break;
		case 5:
			t->shape[fz_below(r, 4)] = (uint32_t)fz_int(r);
			break;
		case 6:
			t->strides[fz_below(r, 4)] = (uint32_t)fz_int(r);
			break;
		default:
			/* A valid 4-D layout that still fits, or not. */
			t->ndim = 4;
			t->shape[0] = 1 + fz_below(r, 2);
			t->shape[1] = 1 + fz_below(r, 2);
			t->shape[2] = 1 + fz_below(r, 4);
			t->shape[3] = 1 + fz_below(r, 64);
			break;
		}
		break;
	case 3:
		if (ns)
			sc[fz_below(r, ns)] = (int64_t)fz_int(r);
		break;
	case 4:
		/* Dependencies: zero, the future, far past, random. */
		if (nd)
			sc[ns + fz_below(r, nd)] = fz_pct(r, 50) ?
				-(int64_t)fz_below(r, 1000) : (int64_t)fz_int(r);
		break;
	case 5:
		if (h->flags & DRM_PTO_NPU_TASK_F_PREDICATE)
			fz_flip(r, p, sizeof(*p));
		break;
	case 6:
		/* Counts past the caps or past the slots. */
		switch (fz_below(r, 3)) {
		case 0:
			h->num_tensors = (uint8_t)fz_int(r);
			break;
		case 1:
			h->num_scalars = (uint8_t)fz_int(r);
			break;
		default:
			h->num_deps = (uint8_t)fz_int(r);
			break;
		}
		break;
	case 7: {
		const uint16_t n[] = { 0, 1, (uint16_t)(slots - 1), (uint16_t)(slots + 1),
				       PTO_TEST_SQE_MAX_SLOTS, PTO_TEST_SQE_MAX_SLOTS + 1,
				       0xffff, (uint16_t)fz_int(r) };

		h->num_slots = n[fz_below(r, FZ_N(n))];
		break;
	}
	case 8:
	case 9:
		fz_flip(r, e, slots * DRM_PTO_NPU_SQ_SLOT_SIZE);
		break;
	default:
		fz_bytes(r, e->body, (slots - 1) * DRM_PTO_NPU_SQ_SLOT_SIZE);
		if (fz_pct(r, 50))
			fz_bytes(r, &e->hdr, sizeof(e->hdr));
		break;
	}
}

static int fz_res_init(struct fz_res *res, int fd, int fd2,
		       const struct drm_pto_npu_device_info *info)
{
	uint32_t h;
	int ret;

	memset(res, 0, sizeof(*res));
	res->cores[0] = info->aiv_cores;
	res->cores[1] = info->aic_cores;
	ret = fz_kernel_create(fd, PTO_CORE_AIV, fz_good_prog, FZ_N(fz_good_prog),
			       NULL, 0, &res->kgood) ?:
	      fz_kernel_create(fd, PTO_CORE_AIV, fz_end_prog, 1, NULL, 0, &res->kend_aiv) ?:
	      fz_kernel_create(fd, PTO_CORE_AIC, fz_end_prog, 1, NULL, 0, &res->kend_aic) ?:
	      fz_kernel_create(fd, PTO_CORE_AIV, fz_end_prog, 1, NULL, 0, &res->kdead) ?:
	      fz_kernel_destroy(fd, res->kdead) ?:
	      fz_kernel_create(fd2, PTO_CORE_AIV, fz_end_prog, 1, NULL, 0, &h);
	if (ret)
		return ret;
	/* A handle the other file has and this one does not. */
	res->kforeign = h;
	while (res->kforeign == res->kgood || res->kforeign == res->kend_aiv ||
	       res->kforeign == res->kend_aic) {
		ret = fz_kernel_create(fd2, PTO_CORE_AIV, fz_end_prog, 1, NULL, 0,
				       &res->kforeign);
		if (ret)
			return ret;
	}
	ret = pto_test_bo_create(fd, 4096, &res->in, NULL) ?:
	      pto_test_bo_create(fd, 4096, &res->out, NULL) ?:
	      pto_test_bo_create(fd2, 8192, &res->foreign_bo, NULL);
	return ret;
}

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
			struct fz_sqe e;
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
			ret = fz_kernel_create(self->fd, PTO_CORE_AIV, fz_end_prog, 1,
					       NULL, 0, &res.kend_aiv);
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
/* ------------------------------------------------------------ test 5 */

/*
 * Tensor slots of the run tests: each a buffer of guard page, view page,
 * guard page; the view a [FZ_VIEW_ROWS, FZ_VIEW_COLS] tensor at offset one
 * page. Nothing may ever change a guard byte.
 */
#define FZ_VIEW_ROWS 16
#define FZ_VIEW_COLS 16
#define FZ_GUARD_BYTE 0xe7

struct fz_slot {
	uint32_t handle;
	uint8_t *map;
	size_t size;
};

static int fz_slot_init(int fd, struct fz_slot *s)
{
	size_t page = pto_test_page_size();
	uint64_t size;
	int ret = pto_test_bo_create(fd, 3 * page, &s->handle, &size);

	if (ret)
		return ret;
	s->size = size;
	s->map = pto_test_bo_mmap(fd, s->handle, NULL);
	if (s->map == MAP_FAILED)
		return -errno;
	memset(s->map, FZ_GUARD_BYTE, s->size);
	return 0;
}

static bool fz_slot_guards_ok(const struct fz_slot *s, size_t view_bytes)
{
	size_t page = pto_test_page_size();

	fz_count(FZ_GM_GUARD);
	return pto_test_all_bytes(s->map, page, FZ_GUARD_BYTE) &&
	       pto_test_all_bytes(s->map + page + view_bytes,
				  s->size - page - view_bytes, FZ_GUARD_BYTE);
}

/* The dtype each tensor argument must have, as the verifier infers it. */
static void fz_arg_dtypes(const struct fz_prog *p, uint8_t *need)
{
	uint32_t pc;

	memset(need, 0, FZ_TENSORS);
	for (pc = 0; pc < p->n; pc++) {
		const struct pto_insn *in = &p->insns[pc];

		if (in->imm < 0 || in->imm >= FZ_TENSORS)
			continue;
		if ((in->op == PTO_OP_TLOAD || in->op == PTO_OP_TSTORE) &&
		    in->dst < p->ntiles)
			need[in->imm] = p->tiles[in->dst].dtype;
		else if (in->op == PTO_OP_ATOMIC_ADD ||
			 (in->op == PTO_OP_SYNCALL && in->mode == PTO_SYNC_SOFT))
			need[in->imm] = PTO_ISA_I32;
	}
}

static bool fz_has_hard_sync(const struct fz_prog *p)
{
	uint32_t pc;

	for (pc = 0; pc < p->n; pc++)
		if (p->insns[pc].op == PTO_OP_SYNCALL &&
		    p->insns[pc].mode == PTO_SYNC_HARD)
			return true;
	return false;
}

struct fz_run_last {
	uint32_t status;
	uint32_t reason;
	uint32_t seen;
	uint64_t detail;
};

static void fz_run_last_cb(void *arg, const struct drm_pto_npu_cqe *c)
{
	struct fz_run_last *l = arg;

	l->status = (uint32_t)c->status;
	l->reason = c->reason;
	l->detail = c->detail;
	l->seen++;
}

/* Statuses a task of an accepted random kernel may end with. */
static bool fz_run_status_ok(uint32_t s)
{
	switch (s) {
	case DRM_PTO_NPU_STATUS_OK:
	case DRM_PTO_NPU_STATUS_INVALID:
	case DRM_PTO_NPU_STATUS_GM_FAULT:
	case DRM_PTO_NPU_STATUS_TIMEOUT:
	case DRM_PTO_NPU_STATUS_WORK_BUDGET:
	case DRM_PTO_NPU_STATUS_ARITH_FAULT:
	case DRM_PTO_NPU_STATUS_LOOP_FAULT:
	case DRM_PTO_NPU_STATUS_BARRIER_FAULT:
		return true;
	}
	return false;
}

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
		struct fz_sqe e;
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
			uint8_t dt = need[j] ? need[j] : fz_dtypes[fz_below(&self->r, FZ_N(fz_dtypes))];

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
		nslots = fz_slots(nt, ns, 0, false);
		pto_test_sqe_init((struct pto_test_sqe *)&e,
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
	printf("# fuzz: %lu of %lu programs accepted and run: %lu ok, %lu gm-fault, %lu timeout, %lu work-budget, %lu arith-fault, %lu loop-fault, %lu barrier-fault, %lu refused at submit\n",
	       accepted, n, status[DRM_PTO_NPU_STATUS_OK],
	       status[DRM_PTO_NPU_STATUS_GM_FAULT], status[DRM_PTO_NPU_STATUS_TIMEOUT],
	       status[DRM_PTO_NPU_STATUS_WORK_BUDGET],
	       status[DRM_PTO_NPU_STATUS_ARITH_FAULT],
	       status[DRM_PTO_NPU_STATUS_LOOP_FAULT],
	       status[DRM_PTO_NPU_STATUS_BARRIER_FAULT],
	       status[DRM_PTO_NPU_STATUS_INVALID]);
	EXPECT_LT(0ul, accepted);
	for (j = 0; j < FZ_TENSORS; j++)
		munmap(slots[j].map, slots[j].size);
	fz_q_close(self->fd, &q);
	FZ_FINISH();
}
/* ------------------------------------------------------------ test 6 */

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
	struct fz_sqe e;
	uint32_t n;

	n = (uint32_t)(pto_test_sqe_init((struct pto_test_sqe *)&e, kaiv, kaic,
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
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_end_prog, 1,
				      NULL, 0, &kend));
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
/* ------------------------------------------------------------ test 7 */

static const int E_RACE_SUBMIT[] = { EINVAL, ENOENT, ENOMEM, EBADF, 0 };
static const int E_RACE_WAIT[] = { EINVAL, ENOENT, ETIME, EINTR, EBADF, 0 };

struct fz_race {
	int fd;
	struct fz_q *q;
	uint32_t kernel, in, out;
	bool waiter;
	int stop;
	uint64_t seed;
};

/* Pushes, rings and reaps (or only waits) until the file is gone. */
static void *fz_race_thread(void *arg)
{
	struct fz_race *x = arg;
	struct fz_rng r = { .s = x->seed };
	struct fz_cqe_seen seen = { 0 };

	while (!__atomic_load_n(&x->stop, __ATOMIC_ACQUIRE)) {
		struct drm_pto_npu_queue_wait w = {
			.queue_id = x->q->c.queue_id,
			.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(1 + fz_below(&r, 3)),
		};
		int ret;

		if (!x->waiter) {
			struct fz_sqe e;
			uint32_t n = fz_good_entry(&e, x->kernel, x->in, x->out,
						   fz_next(&r) & ~FZ_PRISTINE_MASK);
			uint32_t i, burst = 1 + fz_below(&r, 4);

			for (i = 0; i < burst && fz_q_room(x->q, n); i++)
				fz_q_push(x->q, &e, n);
			ret = fz_q_doorbell(x->fd, x->q, 0, 0, NULL, NULL);
			fz_note(FZ_QUEUE_SUBMIT, ret, E_RACE_SUBMIT, "racing doorbell");
			if (ret == -EBADF)
				break;
		}
		ret = fz_ioctl(x->fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
		fz_note(FZ_QUEUE_WAIT, ret, E_RACE_WAIT, "racing wait");
		if (ret == -EBADF)
			break;
		if (!x->waiter)
			fz_q_reap(x->q, &seen);
	}
	return NULL;
}

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
		ASSERT_EQ(0, fz_kernel_create(fd, PTO_CORE_AIV, fz_good_prog,
					      FZ_N(fz_good_prog), NULL, 0, &kernel));
		ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &in, NULL));
		ASSERT_EQ(0, pto_test_bo_create(fd, 4096, &out, NULL));
		ASSERT_EQ(0, fz_q_open(fd, 64, 64, &q[0]));
		ASSERT_EQ(0, fz_q_open(fd, 32, 1024, &q[1]));
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
	struct fz_sqe e;
	struct fz_q q;
	int64_t dep;

	/* The holder below runs for seconds: 2^26 instructions. */
	ASSERT_EQ(0, fz_q_open_budget(self->fd, 256, 1024, 1ull << 26, &q));
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_endless,
				      FZ_N(fz_endless), NULL, 0, &kloop));
	ASSERT_EQ(0, fz_kernel_create(self->fd, PTO_CORE_AIV, fz_end_prog, 1,
				      NULL, 0, &kend));
	/* A task that holds its dependants until its budget runs out. */
	n = (uint32_t)(pto_test_sqe_init((struct pto_test_sqe *)&e, kloop, 0, 1,
					 NULL, 0, NULL, 0, NULL, 0) /
		       DRM_PTO_NPU_SQ_SLOT_SIZE);
	fz_q_push(&q, &e, n);
	ASSERT_EQ(0, fz_q_doorbell(self->fd, &q, 0, 0, &consumed, &first));
	ASSERT_EQ(1u, consumed);
	dep = (int64_t)first;
	for (i = 0; i < FZ_WIDE_ENTRIES; i++) {
		n = (uint32_t)(pto_test_sqe_init((struct pto_test_sqe *)&e, kend, 0,
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
