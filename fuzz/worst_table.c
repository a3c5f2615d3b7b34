// SPDX-License-Identifier: GPL-2.0
/*
 * worst_table [SIZE]: the valid table shapes of selftests/worst_tables.h
 * that cost validation the most, found by search on the host.  Every
 * shape of a grid is built at SIZE bytes (1 MiB by default), checked to
 * be valid, and validated with the module's memo, best of three; then
 * the slowest is improved by changing one parameter at a time while that
 * makes it slower.  Prints the ten slowest shapes in ns per KiB, as
 * initializers for wt_shapes[], and the slowest at 4 MiB.
 *
 * The attack selftest uploads the shapes wt_shapes[] lists in the VM
 * (tests/host/attack_vm.sh); run this when validation changes, and put
 * what it finds there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "unwind_v2.h"
#include "worst_tables.h"

struct scored {
	struct wt_shape sh;
	double ns_per_kib;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per KiB to validate @sh at @size, best of three; -1 if invalid. */
static double cost(const struct wt_shape *sh, uint8_t *b, uint32_t size)
{
	uint32_t n = wt_build(b, size, sh);
	struct uw2_verror err;
	struct uw2_table t;
	double best = 1e300;
	void *memo, *scratch;

	if (!n)
		return -1;
	memo = malloc(UW2_MEMO_BYTES(n));
	/* the upload finds the table's shapes too */
	scratch = NULL;
	if (uw2_table_parse_header(&t, b, n, &err) == UW2_OK)
		scratch = malloc(uw2_shapes_scratch_bytes(&t) + 1);
	for (int k = 0; k < 3; k++) {
		double t0;

		memset(memo, 0, UW2_MEMO_BYTES(n));
		t0 = now_ns();
		if (uw2_table_init_memo(&t, b, n, memo, &err) != UW2_OK) {
			fprintf(stderr, "invalid shape {%u,%u,%u,%u,%u,%u}: %s at %u\n",
				sh->list_pairs, sh->uleb_bytes, sh->seq_ops,
				sh->op, sh->func_share, sh->reverse,
				uw2_verr_str(err.code), err.offset);
			free(memo);
			free(scratch);
			return -1;
		}
		/* from the memo validation just filled: the named starts */
		uw2_shapes_find(&t, scratch, &(struct uw2_check){ .memo = memo });
		t0 = now_ns() - t0;
		if (t0 < best)
			best = t0;
	}
	free(memo);
	free(scratch);
	return best / (n / 1024.0);
}

static const uint32_t pairs_v[] = { 1, 16, 256, 4096 };
static const uint32_t uleb_v[] = { 1, 3, 5 };
static const uint32_t seq_v[] = { 2, 16, 64 };
static const uint32_t share_v[] = { 1, 4 };

static int by_cost(const void *a, const void *b)
{
	double x = ((const struct scored *)a)->ns_per_kib;
	double y = ((const struct scored *)b)->ns_per_kib;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Every shape of the grid, scored into @out; returns how many. */
static size_t grid(struct scored *out, uint8_t *b, uint32_t size)
{
	size_t n = 0;

	for (size_t p = 0; p < 4; p++)
		for (size_t u = 0; u < 3; u++)
			for (size_t q = 0; q < 3; q++)
				for (uint32_t op = 0; op < 3; op++)
					for (size_t f = 0; f < 2; f++)
						for (uint32_t r = 0; r < 2; r++) {
							struct wt_shape sh = {
								pairs_v[p], uleb_v[u], seq_v[q],
								op, share_v[f], r,
							};
							double c = cost(&sh, b, size);

							if (c >= 0)
								out[n++] = (struct scored){ sh, c };
						}
	return n;
}

/* One parameter of @sh moved by @step within its range; false if none. */
static bool nudge(struct wt_shape *sh, int which, int step)
{
	uint32_t *v[] = { &sh->list_pairs, &sh->uleb_bytes, &sh->seq_ops,
			  &sh->op, &sh->func_share, &sh->reverse };
	uint32_t lo[] = { 1, 1, 1, 0, 1, 0 }, hi[] = { 4096, 5, 64, 2, 64, 1 };
	int64_t x = (int64_t)*v[which] + step;

	if (which == 0 || which == 2 || which == 4)	/* scaled ones */
		x = step > 0 ? (int64_t)*v[which] * 2 : *v[which] / 2;
	if (x < lo[which] || x > hi[which] || x == *v[which])
		return false;
	*v[which] = x;
	return true;
}

/* Hill-climb from @s: one parameter at a time, while it gets slower. */
static struct scored climb(struct scored s, uint8_t *b, uint32_t size)
{
	bool better = true;

	while (better) {
		better = false;
		for (int w = 0; w < 6; w++)
			for (int step = -1; step <= 1; step += 2) {
				struct scored t = s;
				double c;

				if (!nudge(&t.sh, w, step))
					continue;
				c = cost(&t.sh, b, size);
				if (c > s.ns_per_kib * 1.05) {
					s.sh = t.sh;
					s.ns_per_kib = c;
					better = true;
				}
			}
	}
	return s;
}

int main(int argc, char **argv)
{
	uint32_t size = argc > 1 ? strtoul(argv[1], NULL, 0) : 1 << 20;
	struct scored all[432 + 1];
	uint8_t *b = malloc(4 << 20);
	size_t n;

	if (!b || size < 65536 || size > (4 << 20)) {
		fprintf(stderr, "usage: worst_table [SIZE: 64 KiB to 4 MiB]\n");
		return 2;
	}
	n = grid(all, b, size);
	qsort(all, n, sizeof(all[0]), by_cost);
	all[n] = climb(all[0], b, size);
	printf("%zu valid shapes at %u bytes; the ten slowest, ns per KiB:\n",
	       n, size);
	for (size_t i = 0; i < n && i < 10; i++)
		printf("\t{ %u, %u, %u, %u, %u, %u },\t/* %.0f */\n",
		       all[i].sh.list_pairs, all[i].sh.uleb_bytes,
		       all[i].sh.seq_ops, all[i].sh.op, all[i].sh.func_share,
		       all[i].sh.reverse, all[i].ns_per_kib);
	printf("climbed from the slowest:\n\t{ %u, %u, %u, %u, %u, %u },\t/* %.0f */\n",
	       all[n].sh.list_pairs, all[n].sh.uleb_bytes, all[n].sh.seq_ops,
	       all[n].sh.op, all[n].sh.func_share, all[n].sh.reverse,
	       all[n].ns_per_kib);
	printf("at 4 MiB: %.1f ms\n",
	       cost(&all[n].sh, b, 4 << 20) * 4096 / 1e6);
	free(b);
	return 0;
}
