// SPDX-License-Identifier: MIT
/*
 * A task graph's results after a run or a replay: each task's status,
 * block records, waits and scheduler records, the hazards of a
 * sanitizing queue, and the first error in words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

/* ------------------------------------------------------------- results */

PTO_API unsigned int pto_graph_hazard_count(const struct pto_graph *g)
{
	return g && g->ran ? (unsigned int)g->hazards.n : 0;
}

PTO_API int pto_graph_hazard(const struct pto_graph *g, unsigned int i,
			     unsigned int *task, struct pto_cqe *cqe,
			     struct pto_hazard *h)
{
	const struct pto_graph_hazard *x;

	if (!g || i >= pto_graph_hazard_count(g))
		return -EINVAL;
	x = PTO_VEC_AT(&g->hazards, struct pto_graph_hazard, i);
	if (task)
		*task = x->task;
	if (cqe)
		*cqe = x->cqe;
	if (h)
		*h = x->h;
	return 0;
}

PTO_API int pto_graph_hazard_str(const struct pto_graph *g, unsigned int i,
				 char *buf, size_t len)
{
	const struct pto_graph_hazard *x;
	char nbuf[32], text[320];
	int n;

	if (!g || i >= pto_graph_hazard_count(g) || (len && !buf))
		return -EINVAL;
	x = PTO_VEC_AT(&g->hazards, struct pto_graph_hazard, i);
	n = pto_hazard_str(&x->cqe, &x->h, text, sizeof(text));
	if (n < 0)
		return n;
	return snprintf(buf, len, "%s: %s",
			pto_trace_task_name(g, x->task, nbuf, sizeof(nbuf)),
			text);
}

/* PTO_SANITIZE=1: every hazard of the run on stderr, as KASAN would. */
void pto_graph_print_hazards(const struct pto_graph *g)
{
	const char *san = getenv("PTO_SANITIZE");
	char buf[400];
	unsigned int i;

	if (!san || !*san || !strcmp(san, "0"))
		return;
	for (i = 0; i < pto_graph_hazard_count(g); i++)
		if (pto_graph_hazard_str(g, i, buf, sizeof(buf)) >= 0)
			fprintf(stderr, "pto: hazard: %s\n", buf);
}

PTO_API const char *pto_graph_task_name(const struct pto_graph *g,
					unsigned int idx)
{
	if (!g || idx >= g->tasks.n)
		return "";
	return pto_graph_task_name_at(g, pto_graph_task_at(g, idx));
}

PTO_API int pto_graph_task_status(const struct pto_graph *g, unsigned int idx,
				  int *reason, uint64_t *detail)
{
	const struct pto_graph_task *t;

	if (reason)
		*reason = PTO_REASON_NONE;
	if (detail)
		*detail = 0;
	if (!g || idx >= g->tasks.n)
		return PTO_STATUS_PENDING;
	t = pto_graph_task_at(g, idx);
	if (reason)
		*reason = t->reason;
	if (detail)
		*detail = t->detail;
	return t->status;
}

PTO_API uint64_t pto_graph_task_id(const struct pto_graph *g, unsigned int idx)
{
	if (!g || idx >= g->tasks.n)
		return 0;
	return pto_graph_task_at(g, idx)->task_id;
}

PTO_API int pto_graph_task_deps(const struct pto_graph *g, unsigned int idx,
				uint32_t *deps, uint8_t *inferred,
				unsigned int max)
{
	const struct pto_graph_task *t;
	uint32_t d, n;

	if (!g || idx >= g->tasks.n || (max && !deps))
		return -EINVAL;
	t = pto_graph_task_at(g, idx);
	n = pto_graph_ndeps(t);
	for (d = 0; d < n && d < max; d++) {
		deps[d] = pto_graph_dep(g, t, d);
		if (inferred)
			inferred[d] = d >= t->num_deps;
	}
	return (int)n;
}

PTO_API int pto_graph_task_blocks(const struct pto_graph *g, unsigned int idx,
				  const struct pto_block_info **blocks,
				  unsigned int *n)
{
	const struct pto_graph_task *t;

	if (!g || idx >= g->tasks.n || !blocks || !n)
		return -EINVAL;
	t = pto_graph_task_at(g, idx);
	*n = g->ran ? t->nblocks : 0;
	*blocks = g->ran ? &g->blocks[t->block_off] : NULL;
	return 0;
}

PTO_API int pto_graph_task_waits(const struct pto_graph *g, unsigned int idx,
				 const struct pto_block_prof **profs,
				 unsigned int *n)
{
	const struct pto_graph_task *t;

	if (!g || idx >= g->tasks.n || !profs || !n)
		return -EINVAL;
	t = pto_graph_task_at(g, idx);
	*n = g->ran && g->profs ? t->nblocks : 0;
	*profs = *n ? &g->profs[t->block_off] : NULL;
	return 0;
}

PTO_API int pto_graph_task_sched(const struct pto_graph *g, unsigned int idx,
				 const struct pto_sched_rec **recs,
				 unsigned int *n)
{
	const struct pto_graph_task *t;

	if (!g || idx >= g->tasks.n || !recs || !n)
		return -EINVAL;
	t = pto_graph_task_at(g, idx);
	*n = g->ran && g->scheds ? t->nblocks : 0;
	*recs = *n ? &g->scheds[t->block_off] : NULL;
	return 0;
}

/*
 * The block where the task's status comes from: the device posts the
 * first failing unit's CQE last (PTO_BLOCK_LAST), each record with its own
 * status; else (records overflowed) one that reports the task's status.
 */
static const struct pto_block_info *
pto_failing_block(const struct pto_graph *g, const struct pto_graph_task *t)
{
	const struct pto_block_info *found = NULL;
	uint32_t i;

	for (i = 0; i < t->nblocks; i++) {
		const struct pto_block_info *b = &g->blocks[t->block_off + i];

		if (b->status != t->status)
			continue;
		if (b->flags & PTO_BLOCK_LAST)
			return b;
		if (!found)
			found = b;
	}
	return found;
}

static void pto_describe(char *buf, size_t len, const struct pto_graph *g,
			 const struct pto_graph_task *t)
{
	const struct pto_block_info *b = pto_failing_block(g, t);
	uint64_t detail = b ? b->detail : t->detail;
	unsigned long long d = (unsigned long long)t->detail;

	switch (t->status) {
	case PTO_STATUS_PENDING:
		pto_msgf(buf, len, "did not complete before the run ended");
		break;
	case PTO_STATUS_INVALID:
		pto_msgf(buf, len,
			 "refused by the device: %s (%s, detail %llu)",
			 pto_reason_text(t->reason), pto_reason_name(t->reason),
			 d);
		break;
	case PTO_STATUS_GM_FAULT:
		pto_msgf(buf, len, "GM fault on tensor %u at element %llu",
			 PTO_GM_FAULT_TENSOR(detail),
			 (unsigned long long)PTO_GM_FAULT_ELEMENT(detail));
		break;
	case PTO_STATUS_TIMEOUT:
		pto_msgf(buf, len,
			 "no progress within the device's timeout (%u ms)",
			 g->dev->limits.timeout_ms);
		break;
	case PTO_STATUS_WORK_BUDGET:
		pto_msgf(buf, len,
			 "a runaway kernel: %llu instructions, past its work budget",
			 (unsigned long long)detail);
		break;
	case PTO_STATUS_DEP_FAILED:
		pto_msgf(buf, len, "not run: a dependency failed");
		break;
	case PTO_STATUS_CANCELLED:
		pto_msgf(buf, len, "cancelled before it ran");
		break;
	case PTO_STATUS_ARITH_FAULT:
		pto_msgf(buf, len, "scalar division by zero at insn %llu",
			 (unsigned long long)detail);
		break;
	case PTO_STATUS_LOOP_FAULT:
		pto_msgf(buf, len, "loop count out of range at insn %llu",
			 (unsigned long long)detail);
		break;
	case PTO_STATUS_BARRIER_FAULT:
		pto_msgf(
			buf, len,
			"hard syncall without every core of its type (507018)");
		break;
	case PTO_STATUS_NOMEM:
		pto_msgf(buf, len, "the device ran out of memory taking it");
		break;
	case PTO_STATUS_WORKSPACE:
		pto_msgf(buf, len,
			 "SOFT syncall workspace broken at counter %lld: not whole rounds of used_cores, or used_cores out of range",
			 (long long)detail);
		break;
	default:
		pto_msgf(buf, len, "status %s (%d), detail %llu",
			 pto_status_name(t->status), t->status, d);
		break;
	}
}

static size_t pto_first_failed(const struct pto_graph *g, bool reported)
{
	size_t i;

	for (i = 0; i < g->tasks.n; i++) {
		int st = pto_graph_task_at(g, i)->status;

		if (!pto_graph_status_ok(st) &&
		    (!reported || st != PTO_STATUS_PENDING))
			break;
	}
	return i;
}

PTO_API int pto_graph_first_error(const struct pto_graph *g, char *buf,
				  size_t len)
{
	const struct pto_graph_task *t = NULL;
	const struct pto_block_info *b;
	char label[128], what[160];
	size_t i;

	if (buf && len)
		buf[0] = '\0';
	if (!g || !g->ran)
		return -ENOENT;
	/* A task never reported (PENDING) only when none reported failing. */
	i = pto_first_failed(g, true);
	if (i == g->tasks.n)
		i = pto_first_failed(g, false);
	if (i == g->tasks.n)
		return -ENOENT;
	t = pto_graph_task_at(g, i);
	if (!buf || !len)
		return (int)i;

	pto_graph_task_label(label, sizeof(label), i, pto_graph_task_name_at(g, t));
	b = pto_failing_block(g, t);
	if (b && t->block_num > 1 && (b->flags & PTO_BLOCK_RAN))
		pto_msgf(label + strlen(label), sizeof(label) - strlen(label),
			 " block %u", b->block);
	pto_describe(what, sizeof(what), g, t);
	pto_msgf(buf, len, "%s: %s", label, what);
	return (int)i;
}
