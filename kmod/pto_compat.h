/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
/*
 * The kernel APIs pto_npu uses that changed between Linux 6.12 (the floor)
 * and the newest kernel it is built for. Every version test of the module
 * lives here; the rest of the code calls the pto_ names below.
 */
#ifndef __PTO_COMPAT_H__
#define __PTO_COMPAT_H__

#include <linux/version.h>
#include <linux/workqueue.h>
#include <drm/drm_gem_shmem_helper.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#error "pto_npu needs Linux 6.12 or newer"
#endif

/*
 * 6.16 renamed the shmem helpers' vmap/vunmap, which want the reservation
 * lock held, to ..._locked(). From 7.0 the old names are KUnit-only
 * wrappers that take the lock themselves: never call them with it held.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)
#define pto_shmem_vmap_locked(shmem, map) drm_gem_shmem_vmap(shmem, map)
#define pto_shmem_vunmap_locked(shmem, map) drm_gem_shmem_vunmap(shmem, map)
#else
#define pto_shmem_vmap_locked(shmem, map) drm_gem_shmem_vmap_locked(shmem, map)
#define pto_shmem_vunmap_locked(shmem, map) \
	drm_gem_shmem_vunmap_locked(shmem, map)
#endif

/* 6.17 named the per-CPU system workqueue; system_wq is deprecated. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
#define pto_system_percpu_wq system_wq
#else
#define pto_system_percpu_wq system_percpu_wq
#endif

/* 6.13 made MODULE_IMPORT_NS() take a string literal. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define PTO_IMPORT_KUNIT_NS() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#else
#define PTO_IMPORT_KUNIT_NS() MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#endif

#endif /* __PTO_COMPAT_H__ */
