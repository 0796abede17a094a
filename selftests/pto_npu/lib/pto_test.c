// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers of the pto_npu kselftests on the uapi alone (raw ioctls through
 * libdrm, sysfs): declared and described in pto_test_lib.h.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <stdio.h>
#include <sys/ioctl.h>

#include "pto_test_lib.h"

double pto_time_factor(void)
{
	static double factor;
	const char *env;

	if (factor == 0) {
		env = getenv("PTO_TIME_FACTOR");
		factor = env ? strtod(env, NULL) : 1;
		if (!(factor >= 1))
			factor = 1;
		if (factor > PTO_TIME_FACTOR_MAX)
			factor = PTO_TIME_FACTOR_MAX;
	}
	return factor;
}

const char *pto_test_device_path(void)
{
	const char *path = getenv("PTO_DEVICE");

	return path && *path ? path : PTO_TEST_DEFAULT_DEVICE;
}

int pto_test_open(void)
{
	return open(pto_test_device_path(), O_RDWR | O_CLOEXEC);
}

size_t pto_test_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

int pto_test_ret(int ret)
{
	return ret ? -errno : 0;
}

int pto_test_query(int fd, uint32_t type, void *data, uint32_t size)
{
	struct drm_pto_npu_query q = {
		.type = type,
		.size = size,
		.data = (uintptr_t)data,
	};

	memset(data, 0, size);
	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUERY, &q));
}

int pto_test_device_info(int fd, struct drm_pto_npu_device_info *info)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_DEVICE, info, sizeof(*info));
}

int pto_test_limits(int fd, struct drm_pto_npu_limits *lim)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_LIMITS, lim, sizeof(*lim));
}

int pto_test_memory(int fd, struct drm_pto_npu_memory_info *mem)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_MEMORY, mem, sizeof(*mem));
}

int pto_test_counters(int fd, struct drm_pto_npu_counters *c)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_COUNTERS, c, sizeof(*c));
}

int pto_test_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

int pto_test_bo_create(int fd, uint64_t size, uint32_t *handle,
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

int pto_test_bo_info(int fd, uint32_t handle, uint64_t *size,
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

int pto_test_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c));
}

void *pto_test_bo_mmap(int fd, uint32_t handle, uint64_t *size)
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

int pto_test_all_bytes(const void *p, size_t len, uint8_t byte)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != byte)
			return 0;
	return 1;
}

uint32_t pto_test_pattern(uint32_t seed, size_t word)
{
	uint32_t x = seed * 2654435761u ^ (uint32_t)word * 40503u;

	x ^= x >> 15;
	return x * 2246822519u + seed;
}

void pto_test_fill(void *p, size_t len, uint32_t seed)
{
	uint32_t *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		w[i] = pto_test_pattern(seed, i);
}

long pto_test_check(const void *p, size_t len, uint32_t seed)
{
	const uint32_t *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		if (w[i] != pto_test_pattern(seed, i))
			return (long)i;
	return -1;
}

long pto_test_param_read(const char *name)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/pto_npu/parameters/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

int pto_test_param_write(const char *name, long value)
{
	char path[128], buf[32];
	ssize_t n;
	int fd, len, err = 0;

	snprintf(path, sizeof(path), "/sys/module/pto_npu/parameters/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%ld\n", value);
	n = write(fd, buf, (size_t)len);
	if (n != len)
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}
