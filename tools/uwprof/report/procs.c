// SPDX-License-Identifier: GPL-2.0
/* uwprof report: processes, their images and names over time. */
#include <stdlib.h>
#include <string.h>

#include "report/procs.h"
#include "uwprof.h"


static uint32_t newest(const struct rp_procs *P, uint32_t pid)
{
	uint32_t i;

	return rp_map_get(&P->last_img, pid, &i) ? i : RPP_NONE;
}

static uint32_t new_image(struct rp_procs *P, uint32_t pid, uint64_t from)
{
	struct rpp_image *im;

	P->img = rp_grow(P->img, &P->imgroom, P->nimg, sizeof(*P->img));
	im = &P->img[P->nimg];
	memset(im, 0, sizeof(*im));
	im->pid = pid;
	im->from = from;
	im->prev = newest(P, pid);
	im->parent = RPP_NONE;
	im->comm = UINT32_MAX;
	rp_map_put(&P->last_img, pid, P->nimg);
	rp_map_put(&P->exited, pid, 0);
	return P->nimg++;
}

static bool has_exited(const struct rp_procs *P, uint32_t pid)
{
	uint32_t v;

	return rp_map_get(&P->exited, pid, &v) && v;
}

void rpp_process(struct rp_procs *P, uint32_t pid, bool exec, uint64_t key,
		 uint32_t comm)
{
	uint32_t i = newest(P, pid);

	if (exec && i != RPP_NONE && !has_exited(P, pid)) {
		i = new_image(P, pid, key);
	} else if (i == RPP_NONE || has_exited(P, pid)) {
		i = new_image(P, pid, key);
		P->processes++;
	}
	if (comm != UINT32_MAX)
		P->img[i].comm = comm;
}

void rpp_fork(struct rp_procs *P, uint32_t pid, uint32_t ppid, uint64_t key)
{
	uint32_t parent = rpp_image_at(P, ppid, key), i;

	i = new_image(P, pid, key);
	P->img[i].parent = parent;
	P->img[i].fork_key = key;
	if (parent != RPP_NONE)
		P->img[i].comm = P->img[parent].comm;
	P->processes++;
}

void rpp_exit(struct rp_procs *P, uint32_t pid, uint64_t key)
{
	(void)key;
	if (newest(P, pid) != RPP_NONE)
		rp_map_put(&P->exited, pid, 1);
}

void rpp_mapping(struct rp_procs *P, uint32_t pid, const struct rp_region *r)
{
	uint32_t i = newest(P, pid);
	struct rpp_image *im;

	if (i == RPP_NONE || has_exited(P, pid)) {
		i = new_image(P, pid, 0);
		P->processes++;
	}
	im = &P->img[i];
	im->r = rp_grow(im->r, &im->room, im->n, sizeof(*im->r));
	im->r[im->n++] = *r;
}

void rpp_name(struct rp_procs *P, uint32_t tid, uint64_t key, uint32_t comm)
{
	struct rpp_name *n;
	uint32_t prev;

	P->names = rp_grow(P->names, &P->nameroom, P->nnames, sizeof(*P->names));
	n = &P->names[P->nnames];
	n->key = key;
	n->comm = comm;
	n->prev = rp_map_get(&P->last_name, tid, &prev) ? prev : RPP_NONE;
	rp_map_put(&P->last_name, tid, P->nnames++);
}

uint32_t rpp_image_at(const struct rp_procs *P, uint32_t pid, uint64_t key)
{
	uint32_t i = newest(P, pid);

	/* A sample before its process's first record: that process still. */
	while (i != RPP_NONE && P->img[i].from > key && P->img[i].prev != RPP_NONE)
		i = P->img[i].prev;
	return i;
}

const struct rp_region *rpp_region(const struct rp_procs *P, uint32_t img,
				   uint64_t key, uint32_t addr)
{
	/* Its own mappings, newest first; then its parent's at the fork. */
	for (unsigned int depth = 0; img != RPP_NONE && depth < 64; depth++) {
		const struct rpp_image *im = &P->img[img];

		for (uint32_t j = im->n; j-- > 0;)
			if (im->r[j].key <= key && addr >= im->r[j].start &&
			    addr < im->r[j].end)
				return &im->r[j];
		if (im->parent == RPP_NONE)
			break;
		key = key < im->fork_key ? key : im->fork_key;
		img = im->parent;
	}
	return NULL;
}

static uint32_t name_at(const struct rp_procs *P, uint32_t tid, uint64_t from,
			uint64_t key)
{
	uint32_t i;

	if (!rp_map_get(&P->last_name, tid, &i))
		return UINT32_MAX;
	for (; i != RPP_NONE; i = P->names[i].prev)
		if (P->names[i].key <= key)
			return P->names[i].key >= from ? P->names[i].comm : UINT32_MAX;
	return UINT32_MAX;
}

uint32_t rpp_comm(const struct rp_procs *P, uint32_t img, uint32_t pid,
		  uint32_t tid, uint64_t key)
{
	uint64_t from = img == RPP_NONE ? 0 : P->img[img].from;
	uint32_t c = name_at(P, tid, from, key);

	if (c == UINT32_MAX && tid != pid)
		c = name_at(P, pid, from, key);
	if (c == UINT32_MAX && img != RPP_NONE)
		c = P->img[img].comm;
	return c;
}

void rpp_free(struct rp_procs *P)
{
	for (uint32_t i = 0; i < P->nimg; i++)
		free(P->img[i].r);
	free(P->img);
	free(P->names);
	rp_map_free(&P->last_img);
	rp_map_free(&P->exited);
	rp_map_free(&P->last_name);
	memset(P, 0, sizeof(*P));
}
