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

#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_task_mem.h"

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

/* What each core runs, has staged or has preloaded. */
static int pto_debugfs_cores(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct pto_sched *s = to_pto_device(entry->dev)->sched;
	u32 ti, i;

	spin_lock(&s->lock);
	for (ti = 0; ti < PTO_NUM_CIDX; ti++) {
		for (i = 0; i < s->ncores[ti]; i++) {
			struct pto_core *c = &s->cores[ti][i];

			seq_printf(m, "%s_%u:", ti == PTO_AIC ? "AIC" : "AIV", i);
			if (c->run_task)
				seq_printf(m, " %s task=%llu unit=%u",
					   c->staged ? "staged" : "running",
					   c->run_task->id, c->run_unit);
			else if (!ti && (i & 1) && s->cores[0][i - 1].partner == c)
				seq_puts(m, " reserved");
			else
				seq_puts(m, " idle");
			if (c->pend_task)
				seq_printf(m, " pending task=%llu unit=%u",
					   c->pend_task->id, c->pend_unit);
			seq_putc(m, '\n');
		}
	}
	for (ti = 0; ti < PTO_NUM_RQ; ti++) {
		struct pto_ctx *ctx;
		size_t n = 0;

		list_for_each_entry(ctx, &s->ready[ti], ready_link[ti])
			n += list_count_nodes(&ctx->ready[ti]);
		seq_printf(m, "ready[%s]: %zu\n",
			   ti == PTO_RQ_MIX ? "MIX" : ti == PTO_RQ_AIC ? "AIC" : "AIV", n);
	}
	spin_unlock(&s->lock);
	return 0;
}

/* Per open file: its queues' depths and what is in flight. */
static int pto_debugfs_queues(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct drm_device *drm = entry->dev;
	struct drm_file *file;

	mutex_lock(&drm->filelist_mutex);
	list_for_each_entry(file, &drm->filelist, lhead) {
		struct pto_ctx *ctx = file->driver_priv;
		struct pto_queue *q;
		unsigned long id;
		u32 idle;

		mutex_lock(&ctx->submit_lock);
		/* Empty inference trees kept, idle under the sched lock: a snapshot. */
		idle = data_race(ctx->infer.nidle);
		seq_printf(m, "context %llu: inflight=%d next_id=%llu idle_trees=%u spare_trees=%u\n",
			   ctx->uid, atomic_read(&ctx->inflight), ctx->next_id,
			   idle, ctx->infer.nspare);
		xa_for_each(&ctx->queues, id, q)
			seq_printf(m, "  queue %u: sq %u/%u slots published, cq %u/%u unconsumed, held %u, live %d\n",
				   q->id, READ_ONCE(q->hdr->sq_tail) - q->sq_head,
				   q->sq_slots,
				   READ_ONCE(q->cq_tail) - READ_ONCE(q->hdr->cq_head),
				   q->cq_entries, READ_ONCE(q->hdr->cq_held),
				   atomic_read(&q->live));
		mutex_unlock(&ctx->submit_lock);
	}
	mutex_unlock(&drm->filelist_mutex);
	return 0;
}

static const char *const pto_counter_names[] = {
	"tasks", "invalid", "dispatches", "units", "skips", "stages",
	"releases", "barriers", "faults", "timeouts", "retired",
};

static int pto_debugfs_counters(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct pto_device *pdev = to_pto_device(entry->dev);
	u32 i;

	for (i = 0; i < ARRAY_SIZE(pto_counter_names); i++)
		seq_printf(m, "%s: %lld\n", pto_counter_names[i],
			   atomic64_read(&pdev->counters.c[i]));
	return 0;
}

/* Spare task memory kept for reuse (pto_task_mem_alloc()). */
static int pto_debugfs_spares(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct pto_device *pdev = to_pto_device(entry->dev);
	size_t bytes;
	u32 n = pto_task_spares(pdev->sched, &bytes);

	seq_printf(m, "spares: %u\n", n);
	seq_printf(m, "max: %u\n", pto_task_spares_max());
	seq_printf(m, "bytes: %zu\n", bytes);
	return 0;
}

static const struct drm_debugfs_info pto_debugfs_list[] = {
	{ "topology", pto_debugfs_topology, 0 },
	{ "gm", pto_debugfs_gm, 0 },
	{ "cores", pto_debugfs_cores, 0 },
	{ "queues", pto_debugfs_queues, 0 },
	{ "counters", pto_debugfs_counters, 0 },
	{ "spares", pto_debugfs_spares, 0 },
};

void pto_debugfs_init(struct pto_device *pdev)
{
	drm_debugfs_add_files(&pdev->drm, pto_debugfs_list,
			      ARRAY_SIZE(pto_debugfs_list));
	/* Fault injection: the next N units hang (Documentation/robustness.rst). */
	debugfs_create_atomic_t("inject_hang", 0600, pdev->drm.debugfs_root,
				&pdev->inject_hang);
}
