/* SPDX-License-Identifier: MIT */
/*
 * libpto internals: the handles behind the opaque types and the ioctl
 * helpers every file of the library shares. Not installed.
 */
#ifndef PTO_INTERNAL_H
#define PTO_INTERNAL_H

#include <errno.h>
#include <stdint.h>

#include <xf86drm.h>

#include "pto/pto.h"
#include "pto_npu_accel.h"
#include "tensor_layout.h"

/** PTO_DRIVER_NAME - DRM driver name of pto_npu.ko */
#define PTO_DRIVER_NAME "pto_npu"
/** PTO_ACCEL_PATH_FMT - device node of accel device N */
#define PTO_ACCEL_PATH_FMT "/dev/accel/accel%u"

#define PTO_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct pto_device {
	int fd;
	char *path;
	struct pto_device_info info;
	struct pto_limits limits;
};

struct pto_buffer {
	struct pto_device *dev;
	void *map;
	size_t size;
	uint32_t handle;
};

struct pto_tensor {
	struct pto_buffer *buf;
	/* true when pto_tensor_alloc() made @buf and pto_tensor_free() frees it */
	bool owns_buf;
	struct pto_layout layout;
};

/* drmIoctl() restarts on EINTR/EAGAIN; errors come back as -errno. */
static inline int pto_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

int pto_query(int fd, uint32_t type, void *data, uint32_t size);

#endif /* PTO_INTERNAL_H */
