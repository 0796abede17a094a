// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM_IOCTL_PTO_NPU_QUERY: size negotiation, the three query types, and
 * every way the ioctl refuses its input.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pto_test.h"

/* Topology of a module loaded with its defaults. */
#define DEFAULT_CLUSTERS 24u
#define DEFAULT_AIV_UB (192u * 1024u)
#define DEFAULT_AIC_L1 (512u * 1024u)
#define DEFAULT_AIC_L0A (64u * 1024u)
#define DEFAULT_AIC_L0B (64u * 1024u)
#define DEFAULT_AIC_L0C (128u * 1024u)

/* An address no user mapping can have. */
#define KERNEL_ADDRESS 0xffffffffff000000ull

/* A query type no module version defines. */
#define UNKNOWN_QUERY_TYPE (DRM_PTO_NPU_QUERY_COUNTERS + 1)

/* Bytes a hypothetical newer user structure has past the known one. */
#define QUERY_SLACK 64

FIXTURE(query)
{
	int fd;
};

FIXTURE_SETUP(query)
{
	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", pto_test_device_path(),
				      strerror(errno));
}

FIXTURE_TEARDOWN(query)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int raw_query(int fd, struct drm_pto_npu_query *q)
{
	return drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUERY, q);
}

TEST_F(query, device_size_zero_returns_known_size)
{
	struct drm_pto_npu_device_info info;
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = 0,
		.data = (uintptr_t)&info,
	};

	memset(&info, PTO_TEST_SENTINEL, sizeof(info));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(info), q.size);
	/* A size probe writes nothing. */
	EXPECT_TRUE(pto_test_all_bytes(&info, sizeof(info), PTO_TEST_SENTINEL));
}

TEST_F(query, size_probe_accepts_null_data)
{
	struct drm_pto_npu_query q = { .type = DRM_PTO_NPU_QUERY_DEVICE };

	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(struct drm_pto_npu_device_info), q.size);

	q = (struct drm_pto_npu_query){ .type = DRM_PTO_NPU_QUERY_LIMITS };
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(struct drm_pto_npu_limits), q.size);

	q = (struct drm_pto_npu_query){ .type = DRM_PTO_NPU_QUERY_MEMORY };
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(struct drm_pto_npu_memory_info), q.size);
}

TEST_F(query, device_full_size_returns_topology)
{
	struct drm_pto_npu_device_info info;
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = sizeof(info),
		.data = (uintptr_t)&info,
	};

	memset(&info, PTO_TEST_SENTINEL, sizeof(info));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(info), q.size);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_UAPI_VERSION, info.uapi_version);
	EXPECT_EQ(0u, info.device_index);
	EXPECT_EQ(DEFAULT_CLUSTERS, info.clusters);
	EXPECT_EQ(DEFAULT_CLUSTERS, info.aic_cores);
	EXPECT_EQ(2 * DEFAULT_CLUSTERS, info.aiv_cores);
	EXPECT_EQ(DEFAULT_AIV_UB, info.aiv_ub_size);
	EXPECT_EQ(DEFAULT_AIC_L1, info.aic_l1_size);
	EXPECT_EQ(DEFAULT_AIC_L0A, info.aic_l0a_size);
	EXPECT_EQ(DEFAULT_AIC_L0B, info.aic_l0b_size);
	EXPECT_EQ(DEFAULT_AIC_L0C, info.aic_l0c_size);
	EXPECT_TRUE((info.capabilities & DRM_PTO_NPU_CAP_GM_MMAP) != 0);
	EXPECT_TRUE((info.capabilities & DRM_PTO_NPU_CAP_SYNCOBJ) != 0);
}

TEST_F(query, device_short_size_copies_prefix_only)
{
	struct drm_pto_npu_device_info ref, info;
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = 8,
		.data = (uintptr_t)&info,
	};

	ASSERT_EQ(0, pto_test_device_info(self->fd, &ref));
	memset(&info, PTO_TEST_SENTINEL, sizeof(info));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(8u, q.size);
	EXPECT_EQ(0, memcmp(&ref, &info, 8));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_UAPI_VERSION, info.uapi_version);
	EXPECT_TRUE(pto_test_all_bytes((uint8_t *)&info + 8, sizeof(info) - 8,
				       PTO_TEST_SENTINEL));
}

TEST_F(query, device_odd_size_copies_exact_bytes)
{
	struct drm_pto_npu_device_info ref, info;
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = 1,
		.data = (uintptr_t)&info,
	};

	ASSERT_EQ(0, pto_test_device_info(self->fd, &ref));
	memset(&info, PTO_TEST_SENTINEL, sizeof(info));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(1u, q.size);
	EXPECT_EQ(((uint8_t *)&ref)[0], ((uint8_t *)&info)[0]);
	EXPECT_TRUE(pto_test_all_bytes((uint8_t *)&info + 1, sizeof(info) - 1,
				       PTO_TEST_SENTINEL));
}

TEST_F(query, device_larger_size_leaves_tail_untouched)
{
	struct drm_pto_npu_device_info ref;
	uint8_t buf[sizeof(ref) + QUERY_SLACK];
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = sizeof(buf),
		.data = (uintptr_t)buf,
	};

	ASSERT_EQ(0, pto_test_device_info(self->fd, &ref));
	memset(buf, PTO_TEST_SENTINEL, sizeof(buf));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(ref), q.size);
	EXPECT_EQ(0, memcmp(&ref, buf, sizeof(ref)));
	EXPECT_TRUE(pto_test_all_bytes(buf + sizeof(ref), QUERY_SLACK,
				       PTO_TEST_SENTINEL));
}

TEST_F(query, device_max_u32_size_is_clamped)
{
	struct drm_pto_npu_device_info ref;
	uint8_t buf[sizeof(ref) + QUERY_SLACK];
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = UINT32_MAX,
		.data = (uintptr_t)buf,
	};

	ASSERT_EQ(0, pto_test_device_info(self->fd, &ref));
	memset(buf, PTO_TEST_SENTINEL, sizeof(buf));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(ref), q.size);
	EXPECT_EQ(0, memcmp(&ref, buf, sizeof(ref)));
	EXPECT_TRUE(pto_test_all_bytes(buf + sizeof(ref), QUERY_SLACK,
				       PTO_TEST_SENTINEL));
}

TEST_F(query, limits_are_consistent)
{
	struct drm_pto_npu_limits lim;
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_LIMITS,
		.size = sizeof(lim),
		.data = (uintptr_t)&lim,
	};
	uint64_t page = pto_test_page_size();

	memset(&lim, PTO_TEST_SENTINEL, sizeof(lim));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(lim), q.size);
	EXPECT_LE(page, lim.max_bo_size);
	EXPECT_EQ(0u, lim.max_bo_size % page);
	EXPECT_LE(lim.max_bo_size, lim.max_gm_per_context);
	EXPECT_LT(0u, lim.max_bos_per_context);
	EXPECT_LT(0u, lim.max_inflight_tasks);
	EXPECT_LT(0u, lim.max_insns);
	EXPECT_LT(0u, lim.timeout_ms);
}

TEST_F(query, limits_short_size_copies_prefix_only)
{
	struct drm_pto_npu_limits ref, lim;
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_LIMITS,
		.size = sizeof(lim.max_bo_size),
		.data = (uintptr_t)&lim,
	};

	ASSERT_EQ(0, pto_test_limits(self->fd, &ref));
	memset(&lim, PTO_TEST_SENTINEL, sizeof(lim));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(lim.max_bo_size), q.size);
	EXPECT_EQ(ref.max_bo_size, lim.max_bo_size);
	EXPECT_TRUE(pto_test_all_bytes(&lim.max_gm_per_context,
				       sizeof(lim) - sizeof(lim.max_bo_size),
				       PTO_TEST_SENTINEL));
}

TEST_F(query, memory_of_fresh_context_is_empty)
{
	struct drm_pto_npu_memory_info mem;
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_MEMORY,
		.size = sizeof(mem),
		.data = (uintptr_t)&mem,
	};

	memset(&mem, PTO_TEST_SENTINEL, sizeof(mem));
	ASSERT_EQ(0, raw_query(self->fd, &q));
	EXPECT_EQ(sizeof(mem), q.size);
	EXPECT_EQ(0u, mem.context_bos);
	EXPECT_EQ(0u, mem.context_bytes);
	EXPECT_LE(mem.context_bos, mem.device_bos);
	EXPECT_LE(mem.context_bytes, mem.device_bytes);
}

TEST_F(query, memory_counts_own_buffer)
{
	struct drm_pto_npu_memory_info before, after;
	uint64_t size;
	uint32_t handle;

	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 1, &handle, &size));
	ASSERT_EQ(0, pto_test_memory(self->fd, &after));
	EXPECT_EQ(before.context_bos + 1, after.context_bos);
	EXPECT_EQ(before.context_bytes + size, after.context_bytes);
	EXPECT_LE(after.context_bos, after.device_bos);
	EXPECT_LE(after.context_bytes, after.device_bytes);
}

TEST_F(query, unknown_type_rejected)
{
	struct drm_pto_npu_device_info info;
	uint32_t types[] = { UNKNOWN_QUERY_TYPE, 0x100, UINT32_MAX };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		struct drm_pto_npu_query q = {
			.type = types[i],
			.size = sizeof(info),
			.data = (uintptr_t)&info,
		};

		memset(&info, PTO_TEST_SENTINEL, sizeof(info));
		errno = 0;
		EXPECT_EQ(-1, raw_query(self->fd, &q));
		EXPECT_EQ(EINVAL, errno) TH_LOG("type %u", types[i]);
		EXPECT_TRUE(pto_test_all_bytes(&info, sizeof(info),
					       PTO_TEST_SENTINEL));
	}
}

TEST_F(query, unknown_type_rejected_on_size_probe)
{
	struct drm_pto_npu_query q = { .type = UNKNOWN_QUERY_TYPE };

	errno = 0;
	EXPECT_EQ(-1, raw_query(self->fd, &q));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(query, nonzero_flags_rejected)
{
	struct drm_pto_npu_device_info info;
	uint32_t flags[] = { 1u, 0x80000000u, UINT32_MAX };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		struct drm_pto_npu_query q = {
			.type = DRM_PTO_NPU_QUERY_DEVICE,
			.size = sizeof(info),
			.data = (uintptr_t)&info,
			.flags = flags[i],
		};

		memset(&info, PTO_TEST_SENTINEL, sizeof(info));
		errno = 0;
		EXPECT_EQ(-1, raw_query(self->fd, &q));
		EXPECT_EQ(EINVAL, errno) TH_LOG("flags 0x%x", flags[i]);
		EXPECT_TRUE(pto_test_all_bytes(&info, sizeof(info),
					       PTO_TEST_SENTINEL));
	}
}

TEST_F(query, nonzero_flags_rejected_on_size_probe)
{
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.flags = 1,
	};

	errno = 0;
	EXPECT_EQ(-1, raw_query(self->fd, &q));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(query, nonzero_pad_rejected)
{
	struct drm_pto_npu_device_info info;
	uint32_t pads[] = { 1u, 0x80000000u, UINT32_MAX };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pads); i++) {
		struct drm_pto_npu_query q = {
			.type = DRM_PTO_NPU_QUERY_DEVICE,
			.size = sizeof(info),
			.data = (uintptr_t)&info,
			.pad = pads[i],
		};

		memset(&info, PTO_TEST_SENTINEL, sizeof(info));
		errno = 0;
		EXPECT_EQ(-1, raw_query(self->fd, &q));
		EXPECT_EQ(EINVAL, errno) TH_LOG("pad 0x%x", pads[i]);
		EXPECT_TRUE(pto_test_all_bytes(&info, sizeof(info),
					       PTO_TEST_SENTINEL));
	}
}

TEST_F(query, small_pointer_efault)
{
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = sizeof(struct drm_pto_npu_device_info),
		.data = 8,
	};

	errno = 0;
	EXPECT_EQ(-1, raw_query(self->fd, &q));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(query, unmapped_pointer_efault)
{
	size_t page = pto_test_page_size();
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = sizeof(struct drm_pto_npu_device_info),
	};

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p, page));
	q.data = (uintptr_t)p;
	errno = 0;
	EXPECT_EQ(-1, raw_query(self->fd, &q));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(query, readonly_pointer_efault)
{
	size_t page = pto_test_page_size();
	void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_LIMITS,
		.size = sizeof(struct drm_pto_npu_limits),
	};

	ASSERT_NE(MAP_FAILED, p);
	q.data = (uintptr_t)p;
	errno = 0;
	EXPECT_EQ(-1, raw_query(self->fd, &q));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_TRUE(pto_test_all_bytes(p, page, 0));
	munmap(p, page);
}

TEST_F(query, kernel_pointer_efault)
{
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_MEMORY,
		.size = sizeof(struct drm_pto_npu_memory_info),
		.data = KERNEL_ADDRESS,
	};

	errno = 0;
	EXPECT_EQ(-1, raw_query(self->fd, &q));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(query, page_straddling_pointer_efault)
{
	size_t page = pto_test_page_size();
	uint8_t *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_DEVICE,
		.size = sizeof(struct drm_pto_npu_device_info),
	};

	ASSERT_NE(MAP_FAILED, (void *)p);
	/* The structure starts 8 bytes before a page that is gone. */
	ASSERT_EQ(0, munmap(p + page, page));
	q.data = (uintptr_t)(p + page - 8);
	errno = 0;
	EXPECT_EQ(-1, raw_query(self->fd, &q));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, page);
}

TEST_F(query, unknown_driver_ioctl_rejected)
{
	uint8_t arg[64] = { 0 };
	/* The last driver ioctl number: far past any the ABI will define. */
	unsigned long cmd = DRM_IOWR(DRM_COMMAND_END - 1, uint8_t[64]);

	errno = 0;
	EXPECT_EQ(-1, drmIoctl(self->fd, cmd, arg));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(query, driver_name_is_pto_npu)
{
	drmVersionPtr v = drmGetVersion(self->fd);

	ASSERT_NE(NULL, v);
	EXPECT_STREQ("pto_npu", v->name);
	EXPECT_NE(NULL, v->desc);
	EXPECT_LE(1, v->version_major);
	drmFreeVersion(v);
}

TEST_F(query, syncobj_capability_is_real)
{
	struct drm_pto_npu_device_info info;
	uint64_t cap = 0;
	uint32_t syncobj = 0;

	ASSERT_EQ(0, pto_test_device_info(self->fd, &info));
	ASSERT_TRUE((info.capabilities & DRM_PTO_NPU_CAP_SYNCOBJ) != 0);
	ASSERT_EQ(0, drmGetCap(self->fd, DRM_CAP_SYNCOBJ, &cap));
	EXPECT_EQ(1u, cap);
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	EXPECT_NE(0u, syncobj);
	EXPECT_EQ(0, drmSyncobjDestroy(self->fd, syncobj));
}

TEST_HARNESS_MAIN
