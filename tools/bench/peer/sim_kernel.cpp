// SPDX-License-Identifier: MIT
/*
 * The empty kernel of make bench-peer on simpler's CPU simulator: the
 * counterpart of pto-bench's empty AIV kernel (a lone END). The simulator
 * dlopen()s it and calls kernel_entry() on an AICore thread.
 */
#include <cstdint>

extern "C" __attribute__((visibility("default"))) void kernel_entry(int64_t *args)
{
	(void)args;
}
