// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis on several threads (uwprof table --jobs): each
 * worker has its own decoder (a reader of the forms function discovery
 * kept, decode_once.h) and its own spare buffers, so the analyses share
 * nothing they write; the passes merge what the workers found in
 * function order, on one thread, so the table is the same whatever the
 * number of threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "table/decode_once.h"
#include "table/prologue_int.h"
#include "table/elf.h"

#define PA_PAR_CHUNK	16	/* items a thread claims at once */

int pa_par_open(struct pa_par *p, struct tb_elf *e, u32 jobs)
{
	struct tb_dec *kept = tb_elf_decoder(e);

	memset(p, 0, sizeof(*p));
	if (!kept)
		return -1;
	/* the sections' bytes read now, not by two threads at once: libelf
	 * reads a section's data (and header) on the first request */
	for (u32 i = 0; i < e->nsecs; i++)
		tb_elf_sec_bytes(e, &e->secs[i]);
	p->w = calloc(jobs ? jobs : 1, sizeof(*p->w));
	if (!p->w)
		return -1;
	for (p->nw = 0; p->nw < (jobs ? jobs : 1); p->nw++)
		if (tb_dec_open_reader(&p->w[p->nw].dec, kept)) {
			tb_dec_close(&p->w[p->nw].dec);
			return -1;
		}
	return 0;
}

void pa_par_close(struct pa_par *p)
{
	for (u32 i = 0; i < p->nw; i++) {
		tb_dec_close(&p->w[i].dec);
		pa_reuse_free(&p->w[i].reuse);
	}
	free(p->w);
	memset(p, 0, sizeof(*p));
}

struct run {
	struct pa_par *p;
	u32 n, next;		/* items, the next one unclaimed */
	void (*fn)(void *arg, struct pa_worker *w, u32 k);
	void *arg;
};

struct thread {
	struct run *run;
	struct pa_worker *w;
};

static void *work(void *v)
{
	struct thread *t = v;
	struct run *run = t->run;
	u32 k;

	while ((k = __atomic_fetch_add(&run->next, PA_PAR_CHUNK,
				       __ATOMIC_RELAXED)) < run->n)
		for (u32 end = k + PA_PAR_CHUNK; k < end && k < run->n; k++)
			run->fn(run->arg, t->w, k);
	return NULL;
}

void pa_par_run(struct pa_par *p, u32 n,
		void (*fn)(void *arg, struct pa_worker *w, u32 k), void *arg)
{
	struct run run = { p, n, 0, fn, arg };
	struct thread t[p->nw];
	pthread_t id[p->nw];
	u32 started = 1;

	for (u32 i = 0; i < p->nw; i++)
		t[i] = (struct thread){ &run, &p->w[i] };
	/* not more threads than chunks; a thread that cannot start leaves
	 * its share to the others */
	for (u32 i = 1; i < p->nw && (i - 1) * PA_PAR_CHUNK < n; i++)
		if (!pthread_create(&id[started], NULL, work, &t[i]))
			started++;
	work(&t[0]);
	for (u32 i = 1; i < started; i++)
		pthread_join(id[i], NULL);
}
