// SPDX-License-Identifier: MIT
/*
 * Error text. Only errnos libpto or pto_npu.ko give a specific meaning get
 * their own wording; the rest fall back to the C library's description.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const pto_errors[] = {
	[0] = "success",
	[ENOENT] = "no such device node, buffer or object",
	[ENODEV] = "not a pto_npu device",
	[EINVAL] = "invalid argument",
	[ENOSPC] = "GM budget of this device handle exhausted",
	[E2BIG] = "a count or size is over the device's limit",
	[EOVERFLOW] = "size or address arithmetic overflows",
	[ERANGE] = "tensor reaches past the end of its buffer",
	[EPROTO] = "unexpected answer from the pto_npu driver",
	[ENOTTY] = "ioctl not supported by this pto_npu module",
	[EACCES] = "permission denied on the device node",
	[ENOMEM] = "out of memory",
};

PTO_API const char *pto_strerror(int err)
{
	const char *s;

	if (err == INT_MIN)
		return "unknown error";
	if (err < 0)
		err = -err;
	if ((size_t)err < PTO_ARRAY_SIZE(pto_errors) && pto_errors[err])
		return pto_errors[err];
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	/* Thread-safe, unlike strerror() for unknown values. */
	s = strerrordesc_np(err);
#else
	s = strerror(err);
#endif
	return s ? s : "unknown error";
}

void pto_msgf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

const char *pto_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	if (bytes && !(bytes % 1024))
		snprintf(buf, len, "%llu KiB",
			 (unsigned long long)(bytes / 1024));
	else if (bytes == 1)
		snprintf(buf, len, "1 byte");
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
	return buf;
}
