/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the pto_npu kselftests: raw ioctls through libdrm's
 * drmIoctl(), so the tests depend only on the uapi header, never on libpto.
 *
 * Every helper returns 0 or -errno (errno is left as the ioctl set it), so a
 * test can either ASSERT_EQ(0, helper()) or check the exact error.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#ifndef PTO_TEST_H
#define PTO_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

/*
 * The harness is written for -Wall; the project builds with -Wextra too.
 * Its timeout handler has an unused parameter, and its TEST_F() wrapper
 * reads a local ("child") after longjmp() that it set after setjmp(), which
 * -Wclobbered reports in every test. The effect (checked with GCC 12 -O2):
 * after a failed ASSERT_*() the test process may skip FIXTURE_TEARDOWN()
 * before it aborts; the failure is still reported. So the teardowns here
 * only release what process exit releases anyway (fds, mappings).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include "pto_npu_accel.h"

/* Device node used when PTO_DEVICE is not set in the environment. */
#define PTO_TEST_DEFAULT_DEVICE "/dev/accel/accel0"

/* Byte used to detect which bytes an ioctl wrote. */
#define PTO_TEST_SENTINEL 0xAA

static inline const char *pto_test_device_path(void)
{
	const char *path = getenv("PTO_DEVICE");

	return path && *path ? path : PTO_TEST_DEFAULT_DEVICE;
}

/* Opens a new context: an fd of its own, or -1 with errno set. */
static inline int pto_test_open(void)
{
	return open(pto_test_device_path(), O_RDWR | O_CLOEXEC);
}

static inline size_t pto_test_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static inline int pto_test_ret(int ret)
{
	return ret ? -errno : 0;
}

/* Full-size query of @type into @data (@size bytes, zeroed first). */
static inline int pto_test_query(int fd, uint32_t type, void *data,
				 uint32_t size)
{
	struct drm_pto_npu_query q = {
		.type = type,
		.size = size,
		.data = (uintptr_t)data,
	};

	memset(data, 0, size);
	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUERY, &q));
}

static inline int pto_test_device_info(int fd,
				       struct drm_pto_npu_device_info *info)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_DEVICE, info, sizeof(*info));
}

static inline int pto_test_limits(int fd, struct drm_pto_npu_limits *lim)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_LIMITS, lim, sizeof(*lim));
}

static inline int pto_test_memory(int fd, struct drm_pto_npu_memory_info *mem)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_MEMORY, mem, sizeof(*mem));
}

/*
 * Creates a GM buffer of @size bytes. On success *@handle is the new handle
 * and, if @out_size is not NULL, *@out_size the allocated (page aligned) size.
 */
static inline int pto_test_bo_create(int fd, uint64_t size, uint32_t *handle,
				     uint64_t *out_size)
{
	struct drm_pto_npu_bo_create c = { .size = size };
	int ret = pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_BO_CREATE, &c));

	if (ret)
		return ret;
	*handle = c.handle;
	if (out_size)
		*out_size = c.size;
	return 0;
}

static inline int pto_test_bo_info(int fd, uint32_t handle, uint64_t *size,
				   uint64_t *mmap_offset)
{
	struct drm_pto_npu_bo_info i = { .handle = handle };
	int ret = pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_BO_INFO, &i));

	if (ret)
		return ret;
	if (size)
		*size = i.size;
	if (mmap_offset)
		*mmap_offset = i.mmap_offset;
	return 0;
}

static inline int pto_test_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c));
}

/*
 * Maps the whole buffer @handle MAP_SHARED read/write. Returns MAP_FAILED
 * with errno set on failure; *@size gets the buffer size if not NULL.
 */
static inline void *pto_test_bo_mmap(int fd, uint32_t handle, uint64_t *size)
{
	uint64_t sz, off;
	int ret = pto_test_bo_info(fd, handle, &sz, &off);

	if (ret) {
		errno = -ret;
		return MAP_FAILED;
	}
	if (size)
		*size = sz;
	return mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
}

/* True if all @len bytes at @p equal @byte. */
static inline int pto_test_all_bytes(const void *p, size_t len, uint8_t byte)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != byte)
			return 0;
	return 1;
}

/* A per-buffer, per-word pattern: distinct across buffers and offsets. */
static inline uint32_t pto_test_pattern(uint32_t seed, size_t word)
{
	uint32_t x = seed * 2654435761u ^ (uint32_t)word * 40503u;

	x ^= x >> 15;
	return x * 2246822519u + seed;
}

static inline void pto_test_fill(void *p, size_t len, uint32_t seed)
{
	uint32_t *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		w[i] = pto_test_pattern(seed, i);
}

/* Index of the first word that does not match, or -1 if all match. */
static inline long pto_test_check(const void *p, size_t len, uint32_t seed)
{
	const uint32_t *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		if (w[i] != pto_test_pattern(seed, i))
			return (long)i;
	return -1;
}

#endif /* PTO_TEST_H */
