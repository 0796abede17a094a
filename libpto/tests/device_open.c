// SPDX-License-Identifier: MIT
/*
 * Opening devices that are not there or not ours, on a host with no
 * pto_npu module: every path must fail cleanly with *out NULL.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <pto/pto.h>

#include "tap.h"

#define POISON ((struct pto_device *)(uintptr_t)0x1)

static void open_nonexistent_index_is_enoent(void)
{
	struct pto_device *dev = POISON;

	TAP_CHECK_EQ(pto_device_open(4000000000u, &dev), -ENOENT);
	TAP_CHECK(dev == NULL);
}

static void open_nonexistent_path_is_enoent(void)
{
	struct pto_device *dev = POISON;

	TAP_CHECK_EQ(pto_device_open_path("/nonexistent/accel0", &dev),
		     -ENOENT);
	TAP_CHECK(dev == NULL);
}

static void open_dev_null_is_enodev(void)
{
	struct pto_device *dev = POISON;

	TAP_CHECK_EQ(pto_device_open_path("/dev/null", &dev), -ENODEV);
	TAP_CHECK(dev == NULL);
}

static void open_regular_file_is_enodev(void)
{
	char path[] = "/tmp/pto-unit-XXXXXX";
	struct pto_device *dev = POISON;
	int fd = mkstemp(path);

	TAP_CHECK(fd >= 0);
	if (fd < 0)
		return;
	TAP_CHECK_EQ(pto_device_open_path(path, &dev), -ENODEV);
	TAP_CHECK(dev == NULL);
	close(fd);
	unlink(path);
}

static void open_directory_fails(void)
{
	struct pto_device *dev = POISON;

	TAP_CHECK(pto_device_open_path("/", &dev) < 0);
	TAP_CHECK(dev == NULL);
}

static void open_null_arguments_refused(void)
{
	struct pto_device *dev = POISON;

	TAP_CHECK_EQ(pto_device_open_path(NULL, &dev), -EINVAL);
	TAP_CHECK(dev == NULL);
	TAP_CHECK_EQ(pto_device_open_path("/dev/null", NULL), -EINVAL);
	TAP_CHECK_EQ(pto_device_open(0, NULL), -EINVAL);
}

static void null_handles_are_noops(void)
{
	struct pto_buffer *buf = (struct pto_buffer *)POISON;

	pto_device_close(NULL);
	pto_buffer_free(NULL);
	pto_tensor_free(NULL);
	TAP_CHECK_EQ(pto_device_query_info(NULL, NULL), -EINVAL);
	TAP_CHECK_EQ(pto_device_query_limits(NULL, NULL), -EINVAL);
	TAP_CHECK_EQ(pto_device_query_memory(NULL, NULL), -EINVAL);
	TAP_CHECK_EQ(pto_buffer_alloc(NULL, 4096, &buf), -EINVAL);
	TAP_CHECK(buf == NULL);
}

static void capability_names(void)
{
	TAP_CHECK(pto_capability_name(PTO_CAP_GM_MMAP) != NULL);
	TAP_CHECK(pto_capability_name(PTO_CAP_SYNCOBJ) != NULL);
	TAP_CHECK(pto_capability_name(0) == NULL);
	TAP_CHECK(pto_capability_name(PTO_CAP_GM_MMAP | PTO_CAP_SYNCOBJ) ==
		  NULL);
	TAP_CHECK(pto_capability_name(UINT64_C(1) << 63) == NULL);
}

TAP_MAIN(TAP_TEST(open_nonexistent_index_is_enoent),
	 TAP_TEST(open_nonexistent_path_is_enoent),
	 TAP_TEST(open_dev_null_is_enodev),
	 TAP_TEST(open_regular_file_is_enodev), TAP_TEST(open_directory_fails),
	 TAP_TEST(open_null_arguments_refused),
	 TAP_TEST(null_handles_are_noops), TAP_TEST(capability_names))
