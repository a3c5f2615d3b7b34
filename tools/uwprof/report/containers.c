// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report: the containers the rest of report/ builds on, a u64 ->
 * u32 hash map (open addressing) and arrays that grow by doubling.  The
 * lowest file of report/: it calls none of the others.
 */
#include <stdlib.h>
#include <string.h>

#include "report/containers.h"
#include "uwprof.h"

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static void rp_map_grow(struct rp_map *m)
{
	struct rp_map g = { .cap = m->cap ? m->cap * 2 : 1024 };

	g.keys = malloc(g.cap * sizeof(*g.keys));
	g.vals = malloc(g.cap * sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		uw_err("report: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	memset(g.keys, 0xff, g.cap * sizeof(*g.keys));
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->keys[i] != UINT64_MAX)
			rp_map_put(&g, m->keys[i], m->vals[i]);
	rp_map_free(m);
	*m = g;
}

bool rp_map_get(const struct rp_map *m, uint64_t key, uint32_t *val)
{
	uint32_t i;

	if (!m->cap)
		return false;
	for (i = mix64(key) & (m->cap - 1); m->keys[i] != UINT64_MAX;
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
	return false;
}

void rp_map_put(struct rp_map *m, uint64_t key, uint32_t val)
{
	uint32_t i;

	if (2 * (m->n + 1) > m->cap)
		rp_map_grow(m);
	for (i = mix64(key) & (m->cap - 1); m->keys[i] != UINT64_MAX;
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return;
		}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

void rp_map_free(struct rp_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void *rp_grow(void *p, uint32_t *room, uint32_t n, size_t sz)
{
	void *g;

	if (n < *room)
		return p;
	*room = *room ? *room * 2 : 64;
	g = realloc(p, (size_t)*room * sz);
	if (!g) {
		uw_err("report: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	return g;
}
