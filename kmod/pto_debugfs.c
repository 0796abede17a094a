// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: debugfs, under /sys/kernel/debug/accel/pto_npu.<index>/.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>

#include "pto_drv.h"

static int pto_debugfs_topology(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct pto_device *pdev = to_pto_device(entry->dev);
	const struct pto_topology *t = &pdev->topo;

	seq_printf(m, "device_index: %u\n", pdev->index);
	seq_printf(m, "clusters: %u\n", t->clusters);
	seq_printf(m, "aic_cores: %u\n", t->clusters);
	seq_printf(m, "aiv_cores: %u\n", t->clusters * PTO_AIV_PER_CLUSTER);
	seq_printf(m, "aiv_ub_bytes: %u\n", t->aiv_ub);
	seq_printf(m, "aic_l1_bytes: %u\n", t->aic_l1);
	seq_printf(m, "aic_l0a_bytes: %u\n", t->aic_l0a);
	seq_printf(m, "aic_l0b_bytes: %u\n", t->aic_l0b);
	seq_printf(m, "aic_l0c_bytes: %u\n", t->aic_l0c);
	return 0;
}

static int pto_debugfs_gm(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct pto_device *pdev = to_pto_device(entry->dev);

	seq_printf(m, "bos: %lld\n", atomic64_read(&pdev->bos));
	seq_printf(m, "bytes: %lld\n", atomic64_read(&pdev->bytes));
	return 0;
}

static const struct drm_debugfs_info pto_debugfs_list[] = {
	{ "topology", pto_debugfs_topology, 0 },
	{ "gm", pto_debugfs_gm, 0 },
};

void pto_debugfs_init(struct pto_device *pdev)
{
	drm_debugfs_add_files(&pdev->drm, pto_debugfs_list,
			      ARRAY_SIZE(pto_debugfs_list));
}
