// SPDX-License-Identifier: MIT
/*
 * Device handles: open, driver check, and the queries. Topology and limits
 * do not change while the module is loaded, so they are read once at open.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

_Static_assert(PTO_CAP_GM_MMAP == DRM_PTO_NPU_CAP_GM_MMAP,
	       "public capability bits mirror the uapi");
_Static_assert(PTO_CAP_SYNCOBJ == DRM_PTO_NPU_CAP_SYNCOBJ,
	       "public capability bits mirror the uapi");
_Static_assert(PTO_CAP_PROFILE == DRM_PTO_NPU_CAP_PROFILE,
	       "public capability bits mirror the uapi");
_Static_assert(PTO_CAP_MEMORY_MODEL == DRM_PTO_NPU_CAP_MEMORY_MODEL,
	       "public capability bits mirror the uapi");
_Static_assert(sizeof(struct pto_limits) == 152,
	       "new limits take reserved space: the structure keeps its size");

static const struct {
	uint64_t cap;
	const char *name;
} pto_caps[] = {
	{ PTO_CAP_GM_MMAP, "gm_mmap" },
	{ PTO_CAP_SYNCOBJ, "syncobj" },
	{ PTO_CAP_PROFILE, "profile" },
	{ PTO_CAP_MEMORY_MODEL, "memory_model" },
};

int pto_query(int fd, uint32_t type, void *data, uint32_t size)
{
	struct drm_pto_npu_query q = {
		.type = type,
		.size = size,
		.data = (uintptr_t)data,
	};
	int ret;

	/* An older module writes less: the rest must read as zero. */
	memset(data, 0, size);
	ret = pto_ioctl(fd, DRM_IOCTL_PTO_NPU_QUERY, &q);
	if (ret)
		return ret;
	if (!q.size || q.size > size)
		return -EPROTO;
	return 0;
}

static int pto_check_driver(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	int ret;

	if (!v)
		return -ENODEV;
	ret = v->name && !strcmp(v->name, PTO_DRIVER_NAME) ? 0 : -ENODEV;
	drmFreeVersion(v);
	return ret;
}

static int pto_device_read_caps(struct pto_device *dev)
{
	struct drm_pto_npu_device_info di;
	struct drm_pto_npu_limits lim;
	int ret;

	ret = pto_query(dev->fd, DRM_PTO_NPU_QUERY_DEVICE, &di, sizeof(di));
	if (ret)
		return ret;
	ret = pto_query(dev->fd, DRM_PTO_NPU_QUERY_LIMITS, &lim, sizeof(lim));
	if (ret)
		return ret;
	if (!di.uapi_version)
		return -EPROTO;

	dev->info = (struct pto_device_info){
		.uapi_version = di.uapi_version,
		.device_index = di.device_index,
		.clusters = di.clusters,
		.aic_cores = di.aic_cores,
		.aiv_cores = di.aiv_cores,
		.aiv_ub_size = di.aiv_ub_size,
		.aic_l1_size = di.aic_l1_size,
		.aic_l0a_size = di.aic_l0a_size,
		.aic_l0b_size = di.aic_l0b_size,
		.aic_l0c_size = di.aic_l0c_size,
		.capabilities = di.capabilities,
	};
	dev->limits = (struct pto_limits){
		.max_buffer_size = lim.max_bo_size,
		.max_gm_per_context = lim.max_gm_per_context,
		.max_buffers_per_context = lim.max_bos_per_context,
		.max_kernels_per_context = lim.max_kernels_per_context,
		.max_insns = lim.max_insns,
		.max_queues_per_context = lim.max_queues_per_context,
		.max_sq_slots = lim.max_sq_slots,
		.max_cq_entries = lim.max_cq_entries,
		.max_inflight_tasks = lim.max_inflight_tasks,
		.max_tensor_args = lim.max_tensor_args,
		.max_scalar_args = lim.max_scalar_args,
		.max_deps = lim.max_deps,
		.max_block_num = lim.max_block_num,
		.timeout_ms = lim.timeout_ms,
		.work_budget = lim.work_budget,
		.min_work_budget = lim.min_work_budget,
		.max_work_budget = lim.max_work_budget,
		.max_inflight_units = lim.max_inflight_units,
	};
	return 0;
}

PTO_API int pto_device_open_path(const char *path, struct pto_device **out)
{
	struct pto_device *dev;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path)
		return -EINVAL;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->fd = -1;
	dev->path = strdup(path);
	if (!dev->path) {
		ret = -ENOMEM;
		goto err;
	}
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		ret = -errno;
		goto err;
	}
	ret = pto_check_driver(dev->fd);
	if (ret)
		goto err;
	ret = pto_device_read_caps(dev);
	if (ret)
		goto err;

	*out = dev;
	return 0;
err:
	pto_device_close(dev);
	return ret;
}

PTO_API int pto_device_open(unsigned int index, struct pto_device **out)
{
	char path[sizeof(PTO_ACCEL_PATH_FMT) + 3 * sizeof(index)];

	snprintf(path, sizeof(path), PTO_ACCEL_PATH_FMT, index);
	return pto_device_open_path(path, out);
}

PTO_API void pto_device_close(struct pto_device *dev)
{
	if (!dev)
		return;
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev->path);
	free(dev);
}

PTO_API int pto_device_fd(const struct pto_device *dev)
{
	return dev->fd;
}

PTO_API const char *pto_device_path(const struct pto_device *dev)
{
	return dev->path;
}

PTO_API int pto_device_query_info(const struct pto_device *dev,
				  struct pto_device_info *info)
{
	if (!dev || !info)
		return -EINVAL;
	*info = dev->info;
	return 0;
}

PTO_API int pto_device_query_limits(const struct pto_device *dev,
				    struct pto_limits *limits)
{
	if (!dev || !limits)
		return -EINVAL;
	*limits = dev->limits;
	return 0;
}

PTO_API int pto_device_query_memory(const struct pto_device *dev,
				    struct pto_memory_info *mem)
{
	struct drm_pto_npu_memory_info m;
	int ret;

	if (!dev || !mem)
		return -EINVAL;
	ret = pto_query(dev->fd, DRM_PTO_NPU_QUERY_MEMORY, &m, sizeof(m));
	if (ret)
		return ret;
	*mem = (struct pto_memory_info){
		.device_buffers = m.device_bos,
		.device_bytes = m.device_bytes,
		.context_buffers = m.context_bos,
		.context_bytes = m.context_bytes,
	};
	return 0;
}

PTO_API unsigned int pto_available_cluster_count(const struct pto_device *dev)
{
	return dev->info.clusters;
}

PTO_API unsigned int pto_available_aic_count(const struct pto_device *dev)
{
	return dev->info.aic_cores;
}

PTO_API unsigned int pto_available_aiv_count(const struct pto_device *dev)
{
	return dev->info.aiv_cores;
}

PTO_API const char *pto_capability_name(uint64_t cap)
{
	size_t i;

	for (i = 0; i < PTO_ARRAY_SIZE(pto_caps); i++)
		if (pto_caps[i].cap == cap)
			return pto_caps[i].name;
	return NULL;
}
