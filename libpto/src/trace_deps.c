// SPDX-License-Identifier: MIT
/*
 * deps.json: a graph's tasks, tensor arguments and edges (named and
 * inferred) as the last run left them, and, for a replayed run, the
 * launch (pto_graph_replay()). Documentation/tracing.rst has the schema.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>

#include "graph_internal.h"
#include "pto/pto.h"

PTO_API int pto_graph_write_deps(const struct pto_graph *g, const char *path)
{
	FILE *f;
	size_t i, nt = 0, ne = 0;
	char nbuf[32];
	int ret;

	if (!g || !path)
		return -EINVAL;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs("{\n\"tasks\": [", f);
	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = pto_graph_task_at(g, i);
		unsigned int k;

		fprintf(f, "%s\n  {\"id\": %zu, \"task_id\": %" PRIu64 ", \"name\": ",
			i ? "," : "", i, t->task_id);
		pto_json_str(f, pto_trace_task_name(g, i, nbuf, sizeof(nbuf)));
		fprintf(f,
			", \"kernels\": {\"aiv\": %u, \"aic\": %u}, \"block_num\": %u, \"shape\": \"%s\", \"status\": \"%s\", \"flags\": {\"early_resolve\": %s, \"sync_start\": %s, \"predicate\": ",
			t->kernel[0], t->kernel[1], t->block_num, pto_trace_shape_name(t),
			pto_status_name(t->status),
			(t->flags & PTO_TASK_EARLY_RESOLVE) ? "true" : "false",
			(t->flags & PTO_TASK_SYNC_START) ? "true" : "false");
		if (t->flags & DRM_PTO_NPU_TASK_F_PREDICATE) {
			const struct drm_pto_npu_predicate *p =
				PTO_VEC_AT(&g->preds, struct drm_pto_npu_predicate,
					   t->pred);

			fprintf(f,
				"{\"operand\": {\"tensor\": %zu, \"index\": [%u, %u]}, \"op\": \"%s\", \"literal\": %" PRId64 "}",
				(size_t)t->tensor_off + p->tensor, p->row, p->col,
				pto_trace_cmp_name(p->op), (int64_t)p->literal);
		} else {
			fputs("null", f);
		}
		fprintf(f, "}, \"split_mode\": \"%s\", ",
			t->kernel[0] && t->kernel[1] ?
			(t->split_mode ? "UP_DOWN" : "NONE") : "none");
		/* The ring's slots as the device ran it (0: the default). */
		if (t->kernel[0] && t->kernel[1])
			fprintf(f, "\"slot_num\": %u, ",
				t->slot_num ? t->slot_num : PTO_DEFAULT_SLOT_NUM);
		fputs("\"tensors\": [", f);
		for (k = 0; k < t->num_tensors; k++)
			fprintf(f, "%s%u", k ? ", " : "", t->tensor_off + k);
		fputs("]}", f);
		nt++;
	}
	fputs("\n],\n\"tensors\": [", f);
	for (i = 0; i < g->tensors.n; i++) {
		const struct drm_pto_npu_tensor_arg *a =
			PTO_VEC_AT(&g->tensors, struct drm_pto_npu_tensor_arg, i);
		unsigned int k;

		fprintf(f,
			"%s\n  {\"id\": %zu, \"buffer\": %u, \"offset\": %" PRIu64 ", \"dtype\": \"%s\", \"shape\": [",
			i ? "," : "", i, a->handle, (uint64_t)a->offset,
			pto_dtype_name((enum pto_dtype)a->dtype));
		for (k = 0; k < a->ndim; k++)
			fprintf(f, "%s%u", k ? ", " : "", a->shape[k]);
		fputs("]", f);
		if (a->flags)
			fprintf(f, ", \"dir\": \"%s\"",
				a->flags == PTO_ARG_INOUT ? "inout" :
				a->flags == PTO_ARG_IN ? "in" : "out");
		fputs("}", f);
	}
	/* Edges inferred from directions (libpto's rule, the device's) marked. */
	fputs("\n],\n\"edges\": [", f);
	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = pto_graph_task_at(g, i);
		unsigned int d;

		for (d = 0; d < pto_graph_ndeps(t); d++)
			fprintf(f, "%s\n  {\"pred\": %u, \"succ\": %zu%s}",
				ne++ ? "," : "", pto_graph_dep(g, t, d), i,
				d < t->num_deps ? "" : ", \"inferred\": true");
	}
	fputs("\n]", f);
	if (g->replay.on)
		fprintf(f,
			",\n\"replay\": {\"graph\": %u, \"launch\": %" PRIu64
			", \"nodes\": %zu}",
			g->replay.graph, g->replay.launch, g->tasks.n);
	fputs("\n}\n", f);
	(void)nt;
	ret = ferror(f) ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

