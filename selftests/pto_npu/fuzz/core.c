// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fuzzer's machinery: PTO_FUZZ_SEED and PTO_FUZZ_ITERS, the random
 * streams, the per-call figures and the errnos each call may return, raw
 * ioctls, broken user pointers and pools of handles.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

/* ------------------------------------------------------------ config */

static uint64_t fz_env(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : dflt;
}

uint64_t fz_seed(void)
{
	return fz_env("PTO_FUZZ_SEED", FZ_DEFAULT_SEED);
}

unsigned long fz_iters(void)
{
	return (unsigned long)fz_env("PTO_FUZZ_ITERS", FZ_DEFAULT_ITERS);
}

/* ------------------------------------------------------------ random */

uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fz_next(r) % n) : 0;
}

bool fz_pct(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

/* Each test draws from a stream of its own: seed and test name. */
void fz_rng_init(struct fz_rng *r, const char *name)
{
	uint64_t h = 1469598103934665603ull;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 1099511628211ull;
	r->s = fz_seed() ^ h;
}

/* An integer from the edges fuzzers like, powers of two, small or random. */
uint64_t fz_int(struct fz_rng *r)
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

void fz_bytes(struct fz_rng *r, void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)fz_next(r);
}

/* Flip 1..8 random bits of @n bytes. */
void fz_flip(struct fz_rng *r, void *p, size_t n)
{
	uint32_t k = 1 + fz_below(r, 8), i;
	uint8_t *b = p;

	for (i = 0; i < k && n; i++)
		b[fz_below(r, (uint32_t)n)] ^= (uint8_t)(1u << fz_below(r, 8));
}

/* ------------------------------------------------------------ stats */

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

int64_t fz_t0;

/* Per test process (the harness forks each test); threads add atomically. */
static unsigned long fz_calls[FZ_NOPS], fz_bad[FZ_NOPS], fz_printed;

void fz_count(enum fz_op op)
{
	__atomic_fetch_add(&fz_calls[op], 1, __ATOMIC_RELAXED);
}

__attribute__((format(printf, 2, 3))) void
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
const int E_QUERY[] = { EINVAL, EFAULT, 0 };
const int E_BO_CREATE[] = { EINVAL, ENOSPC, ENOMEM, 0 };
const int E_BO_INFO[] = { EINVAL, ENOENT, ENOMEM, 0 };
const int E_GEM_CLOSE[] = { EINVAL, ENOENT, 0 };
const int E_MMAP[] = { EINVAL, EACCES, ENOMEM, EPERM, EOVERFLOW, 0 };
const int E_PRIME[] = { EINVAL, ENOENT, EBADF, ENOMEM, EOPNOTSUPP, 0 };
const int E_KCREATE[] = { EINVAL, EFAULT, E2BIG, ENOSPC, ENOMEM, 0 };
const int E_KDESTROY[] = { EINVAL, ENOENT, 0 };
const int E_QCREATE[] = { EINVAL, ENOSPC, ENOMEM, 0 };
const int E_QDESTROY[] = { EINVAL, ENOENT, EBUSY, 0 };
const int E_SUBMIT[] = { EINVAL, ENOENT, ENOMEM, 0 };
const int E_WAIT[] = { EINVAL, ENOENT, ETIME, EINTR, 0 };
const int E_SYNCOBJ[] = { EINVAL, ENOENT, ETIME, EFAULT, ENOMEM, EBUSY,
			  EOPNOTSUPP, 0 };
const int E_RAW[] = { EINVAL, EFAULT, ENOENT, EBUSY, 0 };

/* Count a call returning @ret (0 or -errno); false if the errno is not in @ok. */
bool fz_note(enum fz_op op, int ret, const int *ok, const char *what)
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
void fz_must_fail(enum fz_op op, int ret, int want, const char *what)
{
	if (!ret || (want && ret != -want))
		fz_unexpected(op, "%s: got %d, want %d", what, ret, -want);
}

void fz_must_pass(enum fz_op op, int ret, const char *what)
{
	if (ret)
		fz_unexpected(op, "%s: %s, want success", what, strerror(-ret));
}

unsigned long fz_report(void)
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

int fz_ioctl(int fd, unsigned long req, void *arg)
{
	return pto_test_ret(drmIoctl(fd, req, arg));
}

int fz_kernel_create(int fd, uint32_t core, const struct pto_insn *p,
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

int fz_kernel_destroy(int fd, uint32_t handle)
{
	struct drm_pto_npu_kernel_destroy d = { .handle = handle };

	return fz_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY, &d);
}

/* ------------------------------------------------------------ user memory */

/* The last fz_uptr() ran into the PROT_NONE page part way (a write may fit). */
bool fz_partial;

int fz_mem_init(struct fz_mem *m)
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

uint64_t fz_uptr(struct fz_rng *r, struct fz_mem *m, const void *good,
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

/* ------------------------------------------------------------ pools */

void fz_pool_add(struct fz_pool *p, uint32_t h)
{
	if (p->nlive < FZ_POOL)
		p->live[p->nlive++] = h;
}

/* Removes and returns live entry @i. */
uint32_t fz_pool_take(struct fz_pool *p, unsigned int i)
{
	uint32_t h = p->live[i];

	p->live[i] = p->live[--p->nlive];
	p->dead[p->ndead++ % FZ_N(p->dead)] = h;
	return h;
}

/* A handle: a live one, a dead one, 0, ~0 or random. *@live tells which. */
uint32_t fz_pool_pick(struct fz_rng *r, const struct fz_pool *p,
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
