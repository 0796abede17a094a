// SPDX-License-Identifier: MIT
/*
 * GM buffers: a GEM object of the device, mapped MAP_SHARED so host and
 * device see the same bytes.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

static void pto_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	/* Nothing to do about a failure here; the fd's close frees it anyway. */
	(void)pto_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static int pto_buffer_map_gem(struct pto_buffer *buf, int fd, size_t want)
{
	struct drm_pto_npu_bo_info info = { .handle = buf->handle };
	off_t offset;
	void *map;
	int ret;

	ret = pto_ioctl(fd, DRM_IOCTL_PTO_NPU_BO_INFO, &info);
	if (ret)
		return ret;
	if (info.size < want || (size_t)info.size != info.size)
		return -EPROTO;
	offset = (off_t)info.mmap_offset;
	if (offset < 0 || (uint64_t)offset != info.mmap_offset)
		return -EOVERFLOW;

	map = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   offset);
	if (map == MAP_FAILED)
		return -errno;
	buf->map = map;
	buf->size = info.size;
	return 0;
}

PTO_API int pto_buffer_alloc(struct pto_device *dev, size_t size,
			     struct pto_buffer **out)
{
	struct drm_pto_npu_bo_create create = { .size = size };
	struct pto_buffer *buf;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!dev || !size)
		return -EINVAL;

	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	buf->dev = dev;

	ret = pto_ioctl(dev->fd, DRM_IOCTL_PTO_NPU_BO_CREATE, &create);
	if (ret)
		goto err_free;
	buf->handle = create.handle;
	ret = pto_buffer_map_gem(buf, dev->fd, size);
	if (ret)
		goto err_close;

	*out = buf;
	return 0;
err_close:
	pto_gem_close(dev->fd, buf->handle);
err_free:
	free(buf);
	return ret;
}

PTO_API void pto_buffer_free(struct pto_buffer *buf)
{
	if (!buf)
		return;
	munmap(buf->map, buf->size);
	pto_gem_close(buf->dev->fd, buf->handle);
	free(buf);
}

PTO_API void *pto_buffer_map(const struct pto_buffer *buf)
{
	return buf->map;
}

PTO_API size_t pto_buffer_size(const struct pto_buffer *buf)
{
	return buf->size;
}

PTO_API uint32_t pto_buffer_handle(const struct pto_buffer *buf)
{
	return buf->handle;
}
