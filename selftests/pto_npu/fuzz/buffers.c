// SPDX-License-Identifier: GPL-2.0-only
/*
 * One random call each of QUERY, BO_CREATE, BO_INFO, GEM close, mmap,
 * PRIME and of unknown ioctls (the test query_buffers_mmap_prime).
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

static const uint32_t fz_query_sizes[] = {
	sizeof(struct drm_pto_npu_device_info), sizeof(struct drm_pto_npu_limits),
	sizeof(struct drm_pto_npu_memory_info), sizeof(struct drm_pto_npu_counters),
};

void fz_one_query(struct fz_rng *r, struct fz_mem *m, int fd)
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

void fz_one_bo_create(struct fz_rng *r, int fd, struct fz_pool *p,
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

void fz_one_bo_info(struct fz_rng *r, int fd, const struct fz_pool *p,
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

void fz_one_gem_close(struct fz_rng *r, int fd, struct fz_pool *p)
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

void fz_one_mmap(struct fz_rng *r, int fd, int other,
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
void fz_one_prime(struct fz_rng *r, int fd, int other,
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
void fz_one_raw(struct fz_rng *r, struct fz_mem *m, int fd)
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
