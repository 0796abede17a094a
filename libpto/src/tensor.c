// SPDX-License-Identifier: MIT
/*
 * Tensors over GM: a buffer plus a validated layout. The arithmetic lives
 * in tensor_layout.c.
 */
#include <stdlib.h>

#include "internal.h"

static int pto_tensor_new(struct pto_buffer *buf, bool owns_buf,
			  const struct pto_layout *l, struct pto_tensor **out)
{
	struct pto_tensor *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->buf = buf;
	t->owns_buf = owns_buf;
	t->layout = *l;
	*out = t;
	return 0;
}

PTO_API int pto_tensor_alloc(struct pto_device *dev, enum pto_dtype dtype,
			     unsigned int ndim, const int64_t *shape,
			     struct pto_tensor **out)
{
	struct pto_buffer *buf;
	struct pto_layout l;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!dev)
		return -EINVAL;
	ret = pto_layout_init(&l, dtype, ndim, shape, NULL, 0);
	if (ret)
		return ret;
	ret = pto_buffer_alloc(dev, l.nbytes, &buf);
	if (ret)
		return ret;
	ret = pto_tensor_new(buf, true, &l, out);
	if (ret)
		pto_buffer_free(buf);
	return ret;
}

PTO_API int pto_tensor_view(struct pto_buffer *buf, size_t offset,
			    enum pto_dtype dtype, unsigned int ndim,
			    const int64_t *shape, const int64_t *strides,
			    struct pto_tensor **out)
{
	struct pto_layout l;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!buf)
		return -EINVAL;
	ret = pto_layout_init(&l, dtype, ndim, shape, strides, offset);
	if (ret)
		return ret;
	ret = pto_layout_check_bounds(&l, buf->size);
	if (ret)
		return ret;
	return pto_tensor_new(buf, false, &l, out);
}

PTO_API void pto_tensor_free(struct pto_tensor *t)
{
	if (!t)
		return;
	if (t->owns_buf)
		pto_buffer_free(t->buf);
	free(t);
}

PTO_API void *pto_tensor_data(const struct pto_tensor *t)
{
	return (char *)t->buf->map + t->layout.offset;
}

PTO_API enum pto_dtype pto_tensor_dtype(const struct pto_tensor *t)
{
	return t->layout.dtype;
}

PTO_API unsigned int pto_tensor_ndim(const struct pto_tensor *t)
{
	return t->layout.ndim;
}

PTO_API const int64_t *pto_tensor_shape(const struct pto_tensor *t)
{
	return t->layout.shape;
}

PTO_API const int64_t *pto_tensor_strides(const struct pto_tensor *t)
{
	return t->layout.strides;
}

PTO_API size_t pto_tensor_offset(const struct pto_tensor *t)
{
	return t->layout.offset;
}

PTO_API struct pto_buffer *pto_tensor_buffer(const struct pto_tensor *t)
{
	return t->buf;
}

PTO_API size_t pto_tensor_numel(const struct pto_tensor *t)
{
	return t->layout.numel;
}

PTO_API size_t pto_tensor_nbytes(const struct pto_tensor *t)
{
	return t->layout.nbytes;
}

PTO_API bool pto_tensor_is_contiguous(const struct pto_tensor *t)
{
	return pto_layout_is_contiguous(&t->layout);
}
