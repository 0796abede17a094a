// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random task sets for pto_graph_record(), whose tasks infer many
 * producers, and what they leave in their buffer: declared and described
 * in gsf.h.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <string.h>

#include "gsf.h"

#define SLICE_BYTES (GSF_SLICE_ELEMS * 4)

int gsf_tasks_views(struct gsf_tasks *t, struct pto_buffer *buf)
{
	unsigned int i;
	int ret;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < GSF_SLICES; i++) {
		int64_t one[2] = { PTO_TG_ROWS, PTO_TG_COLS };
		int64_t span[2] = { (int64_t)(GSF_SLICES - i) * PTO_TG_ROWS,
				    PTO_TG_COLS };

		ret = pto_tensor_view(buf, (size_t)i * SLICE_BYTES,
				      PTO_DTYPE_I32, 2, one, NULL,
				      &t->slices[i]);
		if (!ret)
			ret = pto_tensor_view(buf, (size_t)i * SLICE_BYTES,
					      PTO_DTYPE_I32, 2, span, NULL,
					      &t->spans[i]);
		if (ret)
			return ret;
	}
	return 0;
}

void gsf_tasks_free(struct gsf_tasks *t)
{
	unsigned int i;

	pto_graph_free(t->g);
	t->g = NULL;
	for (i = 0; i < GSF_SLICES; i++) {
		pto_tensor_free(t->slices[i]);
		pto_tensor_free(t->spans[i]);
	}
}

/* Task @i: reads slice in (its span from there on), writes slice out. */
static int gsf_task_add(struct gsf_tasks *t, struct pto_kernel *kadd,
			unsigned int i)
{
	struct pto_tensor *ts[2] = {
		t->span[i] ? t->spans[t->in[i]] : t->slices[t->in[i]],
		t->slices[t->out[i]] };
	const uint8_t dirs[2] = { PTO_ARG_IN, PTO_ARG_OUT };
	int64_t s[2] = { t->add[i], 0 };
	struct pto_task_desc d = { .kernel_aiv = kadd, .block_num = 1,
				   .tensors = ts, .num_tensors = 2,
				   .scalars = s, .num_scalars = 2,
				   .tensor_dirs = dirs };
	int ret = pto_graph_add_task(t->g, &d);

	return ret < 0 ? ret : 0;
}

int gsf_tasks_build(struct gsf_tasks *t, struct pto_device *dev,
		    struct pto_kernel *kadd, unsigned int n, uint64_t *seed)
{
	/* A span now and then: from a slice near the start, many writers. */
	unsigned int span_odds = 2 + (unsigned int)(pto_tg_rnd(seed) % 12), i;
	int ret;

	pto_graph_free(t->g);
	t->g = NULL;
	ret = pto_graph_new(dev, &t->g);
	if (ret)
		return ret;
	t->ntasks = n < GSF_MAX_TASKS ? n : GSF_MAX_TASKS;
	for (i = 0; i < t->ntasks; i++) {
		t->in[i] = (uint8_t)(pto_tg_rnd(seed) % GSF_SLICES);
		t->out[i] = (uint8_t)((t->in[i] + 1 +
				       pto_tg_rnd(seed) % (GSF_SLICES - 1)) %
				      GSF_SLICES);
		t->span[i] = !(pto_tg_rnd(seed) % span_odds);
		t->add[i] = (int64_t)(pto_tg_rnd(seed) % 1000) - 500;
		ret = gsf_task_add(t, kadd, i);
		if (ret)
			return ret;
	}
	return 0;
}

void gsf_tasks_expect(const struct gsf_tasks *t, int32_t *data)
{
	unsigned int i, j;

	for (i = 0; i < t->ntasks; i++) {
		const int32_t *in = data + t->in[i] * GSF_SLICE_ELEMS;
		int32_t *out = data + t->out[i] * GSF_SLICE_ELEMS;

		for (j = 0; j < GSF_SLICE_ELEMS; j++)
			out[j] = (int32_t)((uint32_t)in[j] + (uint32_t)t->add[i]);
	}
}
