/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwprof report's containers (report/containers.c), below every other
 * report file.
 */
#ifndef UWPROF_REPORT_CONTAINERS_H
#define UWPROF_REPORT_CONTAINERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* u64 -> u32 hash map (open addressing); key ~0 is reserved. */
struct rp_map {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t cap, n;
};

bool rp_map_get(const struct rp_map *m, uint64_t key, uint32_t *val);
void rp_map_put(struct rp_map *m, uint64_t key, uint32_t val);
void rp_map_free(struct rp_map *m);

/* @p with room for n + 1 elements of @sz bytes (doubling *room); exits
 * when out of memory. */
void *rp_grow(void *p, uint32_t *room, uint32_t n, size_t sz);

#endif
