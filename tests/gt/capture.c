// SPDX-License-Identifier: GPL-2.0
/*
 * Real stacks for make bench-unwind: an armhf shared object preloaded into
 * a program (lua5.4) under qemu-user.  ITIMER_PROF interrupts the main
 * thread; the SIGPROF handler saves the user registers and the stack
 * words from sp up to the stack's top (at most UWCAP_WINDOW bytes), then
 * unwinds them with unwind_v2.c and the tables uwprof built, and keeps
 * the frames and the stop too, so a replay on the host can check that it
 * reproduces exactly what the unwinder found on the ARM side.
 *
 *   UWCAP_OUT=FILE            where the replay file goes (at exit)
 *   UWCAP_TABLES=NAME=UWT;... tables by module file name ("main" for the
 *                             program), as tests/gt/gt.c takes them
 *   UWCAP_SAMPLES=N           most samples kept (default 2000)
 *   UWCAP_WINDOW=BYTES        most stack bytes per sample (default 64 KiB)
 *
 * The file layout is in bench/replay.h.
 */
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>

#include "unwind_v2.h"
#include "lib/uwt.h"
#include "replay.h"

#define MAX_MODS	8
#define ARENA_BYTES	(48u << 20)

static struct uw2_module mods[MAX_MODS];
static struct uw2_table tables[MAX_MODS];
static struct uwr_mod mod_names[MAX_MODS];
static uint32_t nmods;
static uint32_t stack_lo, stack_hi, window, max_samples, nsamples;
static uint8_t *arena;
static uint32_t arena_used;
static volatile int done;
static pthread_t main_thread;

static int read_word(void *ctx, uint32_t addr, uint32_t *val)
{
	(void)ctx;
	*val = *(const uint32_t *)(uintptr_t)addr;
	return 0;
}

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	const mcontext_t *mc = &((ucontext_t *)ucv)->uc_mcontext;
	struct uwr_sample *s;
	struct uw2_stack st;
	struct uw2_regs r;
	uint32_t frames[UWR_MAX_FRAMES], n, hi, need;

	(void)sig;
	(void)si;
	if (done || nsamples == max_samples ||
	    !pthread_equal(pthread_self(), main_thread))
		return;
	memcpy(r.r, &mc->arm_r0, sizeof(r.r));
	if (mc->arm_cpsr & 0x20)
		r.r[UW2_PC] |= 1;
	if (r.r[UW2_SP] < stack_lo || r.r[UW2_SP] >= stack_hi ||
	    (r.r[UW2_SP] & 3))
		return;
	hi = stack_hi - r.r[UW2_SP] > window ? r.r[UW2_SP] + window : stack_hi;
	need = sizeof(*s) + UWR_MAX_FRAMES * 4 + (hi - r.r[UW2_SP]);
	if (ARENA_BYTES - arena_used < need)
		return;
	s = (struct uwr_sample *)(arena + arena_used);
	memcpy(s->regs, r.r, sizeof(s->regs));
	s->lo = r.r[UW2_SP];
	s->hi = hi;
	st = (struct uw2_stack){ .lo = s->lo, .hi = s->hi, .read = read_word };
	s->stop = uw2_unwind(mods, nmods, &r, &st, frames, UWR_MAX_FRAMES,
			     &n, 0);
	s->nframes = n;
	memcpy(s + 1, frames, n * 4);
	memcpy((uint8_t *)(s + 1) + n * 4, (const void *)(uintptr_t)s->lo,
	       s->hi - s->lo);
	arena_used += uwr_sample_size(s);
	nsamples++;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The table file for module @name in "NAME=FILE;NAME=FILE". */
static char *table_for(const char *spec, const char *name)
{
	size_t len = strlen(name);
	const char *p = spec, *end;

	while (p && *p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if (!strncmp(p, name, len) && p[len] == '=')
			return strndup(p + len + 1, end - p - len - 1);
		p = *end ? end + 1 : end;
	}
	return NULL;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name[0] ? base_name(info->dlpi_name) :
						"main";
	char *tf = table_for(data, name), err[256];

	struct uwt_file u;

	(void)size;
	if (getenv("UWCAP_DEBUG"))
		fprintf(stderr, "uwcap: module %s at 0x%x: %s\n", name,
			(unsigned int)info->dlpi_addr, tf ? tf : "no table");
	if (!tf || nmods == MAX_MODS) {
		free(tf);
		return 0;
	}
	if (uwt_load_file(tf, &u, err, sizeof(err)) ||
	    uw2_table_init(&tables[nmods], u.blob, u.blob_size, NULL)) {
		fprintf(stderr, "uwcap: bad table %s\n", tf);
		exit(2);
	}
	mods[nmods].text_start = info->dlpi_addr + u.meta.text_addr;
	mods[nmods].text_end = mods[nmods].text_start +
			       uw2_table_text_span(&tables[nmods]);
	mods[nmods].table = &tables[nmods];
	snprintf(mod_names[nmods].name, sizeof(mod_names[nmods].name), "%s",
		 name);
	mod_names[nmods].text_start = mods[nmods].text_start;
	mod_names[nmods].text_end = mods[nmods].text_end;
	nmods++;
	free(tf);
	return 0;
}

/* Modules sorted by text start, as uw2_unwind() wants them. */
static void sort_modules(void)
{
	for (uint32_t i = 1; i < nmods; i++)
		for (uint32_t j = i; j && mods[j].text_start <
					  mods[j - 1].text_start; j--) {
			struct uw2_module m = mods[j];
			struct uwr_mod nm = mod_names[j];

			mods[j] = mods[j - 1];
			mods[j - 1] = m;
			mod_names[j] = mod_names[j - 1];
			mod_names[j - 1] = nm;
		}
}

static void write_file(void)
{
	const char *path = getenv("UWCAP_OUT");
	struct uwr_header h = { .magic = UWR_MAGIC, .version = UWR_VERSION };
	FILE *f;

	done = 1;
	if (!path)
		return;
	f = fopen(path, "wb");
	if (!f) {
		perror("uwcap: output");
		return;
	}
	h.nmods = nmods;
	h.nsamples = nsamples;
	fwrite(&h, sizeof(h), 1, f);
	fwrite(mod_names, sizeof(mod_names[0]), nmods, f);
	fwrite(arena, 1, arena_used, f);
	if (fclose(f))
		perror("uwcap: output");
	fprintf(stderr, "uwcap: %u samples, %u modules, %u bytes\n", nsamples,
		nmods, arena_used);
}

static uint32_t env_u32(const char *name, uint32_t def)
{
	const char *v = getenv(name);

	return v ? (uint32_t)strtoul(v, NULL, 0) : def;
}

__attribute__((constructor)) static void uwcap_init(void)
{
	struct sigaction sa = { .sa_sigaction = on_prof,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	const char *spec = getenv("UWCAP_TABLES");
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (!spec || !getenv("UWCAP_OUT"))
		return;
	max_samples = env_u32("UWCAP_SAMPLES", 2000);
	window = env_u32("UWCAP_WINDOW", 64 << 10) & ~3u;
	arena = malloc(ARENA_BYTES);
	if (!arena)
		return;
	dl_iterate_phdr(add_module, (void *)spec);
	sort_modules();
	main_thread = pthread_self();
	pthread_getattr_np(main_thread, &a);
	pthread_attr_getstack(&a, &addr, &size);
	pthread_attr_destroy(&a);
	stack_lo = (uint32_t)(uintptr_t)addr;
	stack_hi = (uint32_t)(uintptr_t)addr + size;
	atexit(write_file);
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
}
