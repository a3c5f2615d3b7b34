/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwprof report: the processes of a data file over time, so that each
 * sample is resolved against the mappings and the name its process had
 * when it was taken.  A process image runs from its start (first sight,
 * fork) or exec to the next exec or its exit; a forked child sees its
 * parent's mappings as they were at the fork.  Keys order things: the
 * times of a timed file (UWD_HDR_TIMED), else the records' places in the
 * file (what older files guarantee: a sample after the mappings it needs).
 */
#ifndef UWPROF_REPORT_PROCS_H
#define UWPROF_REPORT_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "report/report.h"

#define RPP_NONE	UINT32_MAX

struct rp_region {
	uint32_t start, end, bias, module;
	uint32_t map;		/* index in rp_profile.maps (pprof's mappings) */
	bool bias_ok;
	uint64_t key;		/* valid from */
};

struct rpp_image {
	uint32_t pid;
	uint64_t from;
	uint32_t prev;		/* the pid's image before this one, or RPP_NONE */
	uint32_t parent;	/* forked from this image, or RPP_NONE */
	uint64_t fork_key;
	uint32_t comm;		/* the program's name, or UINT32_MAX */
	struct rp_region *r;
	uint32_t n, room;
};

struct rpp_name {
	uint64_t key;
	uint32_t comm;
	uint32_t prev;		/* the thread's older name, or RPP_NONE */
};

struct rp_procs {
	struct rpp_image *img;
	uint32_t nimg, imgroom;
	struct rp_map last_img;		/* pid -> newest image */
	struct rp_map exited;		/* pid -> 1: its newest image ended */
	struct rpp_name *names;
	uint32_t nnames, nameroom;
	struct rp_map last_name;	/* tid -> newest name */
	uint32_t processes;		/* started or first seen, not exec */
};

/* A process record: the process (a new one after an exit), or an exec. */
void rpp_process(struct rp_procs *P, uint32_t pid, bool exec, uint64_t key,
		 uint32_t comm);
void rpp_fork(struct rp_procs *P, uint32_t pid, uint32_t ppid, uint64_t key);
void rpp_exit(struct rp_procs *P, uint32_t pid, uint64_t key);
void rpp_mapping(struct rp_procs *P, uint32_t pid, const struct rp_region *r);
void rpp_name(struct rp_procs *P, uint32_t tid, uint64_t key, uint32_t comm);

/* The image @pid ran at @key, or RPP_NONE. */
uint32_t rpp_image_at(const struct rp_procs *P, uint32_t pid, uint64_t key);

/* The mapping holding @addr in image @img at @key, or NULL. */
const struct rp_region *rpp_region(const struct rp_procs *P, uint32_t img,
				   uint64_t key, uint32_t addr);

/* Thread @tid's name at @key in image @img, or UINT32_MAX. */
uint32_t rpp_comm(const struct rp_procs *P, uint32_t img, uint32_t pid,
		  uint32_t tid, uint64_t key);

void rpp_free(struct rp_procs *P);

#endif
