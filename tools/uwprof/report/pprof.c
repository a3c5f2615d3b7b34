// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report --format pprof: the samples as a gzip'd perftools.profiles
 * Profile (profile.proto), which go tool pprof, Pyroscope, Parca and other
 * pprof backends read.  The message is encoded by protobuf-c, with C
 * generated at build time from the official profile.proto (mk/pprof.mk).
 *
 * What goes in (docs/USAGE.md has the reader's view):
 *  - one Mapping per process and file mapping that a sample hit, with the
 *    runtime range, file offset, path on the device and build-id, so a
 *    backend can symbolize it again from its own copy of the file;
 *  - one Location per (mapping, address): the sampled pc, or for a return
 *    address the byte before it, inside the call (profile.proto allows a
 *    non-leaf address in the middle of a call instruction), with Line
 *    entries from uwprof's symbols: the inline chain there, innermost
 *    first, each with its file and line, as pprof wants it (the function
 *    alone with --no-lines);
 *  - one Function per (name, source file);
 *  - one Sample per distinct (stack, pid, tid, process name), with the
 *    values samples/count and cpu/nanoseconds (samples x the period,
 *    1e9 / frequency), and labels pid and tid (numbers) and process_name
 *    (a string).
 * A Mapping's has_* flags say what uwprof could name: has_functions only if
 * every location in it got a function, has_filenames and has_line_numbers
 * (and has_inline_frames) only without --no-lines and with a line for
 * every one;
 * otherwise pprof symbolizes the mapping itself when it finds the file
 * (PPROF_BINARY_PATH).
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "report/report.h"
#include "report/symbols.h"
#include "uwprof.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p) {
		uw_err("report: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	return p;
}

static uint64_t fnv(uint64_t h, const void *d, size_t n)
{
	for (const uint8_t *c = d; n--; c++)
		h = (h ^ *c) * 1099511628211ull;
	return h;
}

/* The next key to try after a hash collision; ~0 is rp_map's empty key. */
static uint64_t next_key(uint64_t k)
{
	return k + 1 == UINT64_MAX ? 0 : k + 1;
}

/* ---- the string table: index 0 is "", as profile.proto requires ---- */

struct strtab {
	char **s;
	uint32_t n, room;
	struct rp_map ids;
};

static int64_t str_id(struct strtab *t, const char *s)
{
	uint64_t h = fnv(1469598103934665603ull, s, strlen(s));
	uint32_t id;

	for (h = h == UINT64_MAX ? 0 : h; rp_map_get(&t->ids, h, &id); h = next_key(h))
		if (!strcmp(t->s[id], s))
			return id;
	t->s = rp_grow(t->s, &t->room, t->n, sizeof(*t->s));
	t->s[t->n] = strdup(s);	/* callers may pass a scratch buffer */
	if (!t->s[t->n]) {
		uw_err("report: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	rp_map_put(&t->ids, h, t->n);
	return t->n++;
}

/* ---- the profile as it is built; ids are 1-based, as in pprof ---- */

/* The pseudo-mapping of the [kernel] leaf: pprof wants every location in one. */
#define PP_KERNEL_MAP	UINT32_MAX

struct pp_map {
	uint32_t model;		/* index in rp_profile.maps, or PP_KERNEL_MAP */
	uint32_t nlocs, named, lined;	/* locations, with a function, with a line */
};

struct pp_loc {
	uint32_t map;		/* pprof mapping id, 0: none */
	uint32_t addr;
	uint32_t line0, nlines;	/* in pp.lines */
};

struct pp_func {
	int64_t name, file;
};

struct pp_smp {
	uint32_t pid, tid, comm;
	uint32_t loc0, nlocs;	/* in pp.stack, leaf first */
	uint64_t count;
};

struct pp {
	const struct rp_profile *p;
	bool want_lines;	/* file and line of every location */
	struct strtab st;
	uint32_t *map_ids;	/* per rp_profile.maps: pprof id or 0 */
	uint32_t kernel_map;	/* pprof id of the [kernel] mapping, or 0 */
	struct pp_map *maps;
	uint32_t nmaps, maproom;
	struct pp_loc *locs;
	uint32_t nlocs, locroom;
	struct rp_map loc_ids;	/* (model mapping + 1, address) -> index */
	struct rp_map jit_loc_ids;	/* JIT code's: (pid, address) -> index */
	pb_line *lines;
	uint32_t nlines, lineroom;
	struct pp_func *funcs;
	uint32_t nfuncs, funcroom;
	struct rp_map func_ids;	/* (name, file) -> index */
	struct pp_smp *smps;
	uint32_t nsmps, smproom;
	struct rp_map smp_ids;	/* hash of the sample's key -> index */
	uint64_t *stack;	/* location ids of every sample */
	uint32_t nstack, stackroom;
};

static uint32_t func_id(struct pp *w, const char *name, const char *file)
{
	int64_t n = str_id(&w->st, name), f = str_id(&w->st, file ? file : "");
	uint64_t key = (uint64_t)n << 32 | (uint64_t)f;
	uint32_t id;

	if (rp_map_get(&w->func_ids, key, &id))
		return id + 1;
	w->funcs = rp_grow(w->funcs, &w->funcroom, w->nfuncs, sizeof(*w->funcs));
	w->funcs[w->nfuncs] = (struct pp_func){ .name = n, .file = f };
	rp_map_put(&w->func_ids, key, w->nfuncs);
	return ++w->nfuncs;
}

static void add_line(struct pp *w, const char *name, const char *file, int line)
{
	pb_line l = PERFTOOLS__PROFILES__LINE__INIT;

	l.function_id = func_id(w, name, file);
	l.line = line > 0 ? line : 0;
	w->lines = rp_grow(w->lines, &w->lineroom, w->nlines, sizeof(*w->lines));
	w->lines[w->nlines++] = l;
}

/*
 * The pprof id of a model mapping (or PP_KERNEL_MAP), made when a sample
 * first hits it.
 */
static uint32_t map_id(struct pp *w, uint32_t model)
{
	uint32_t *id = model == PP_KERNEL_MAP ? &w->kernel_map :
		       &w->map_ids[model];

	if (!*id) {
		w->maps = rp_grow(w->maps, &w->maproom, w->nmaps, sizeof(*w->maps));
		w->maps[w->nmaps] = (struct pp_map){ .model = model };
		*id = ++w->nmaps;
	}
	return *id;
}

/*
 * The functions at link address @vaddr, innermost first; 0 if none is
 * known.  With @lines, as the text report --lines names them: the inline
 * chain, each function with its own file and line; else the function
 * alone.
 */
static unsigned int loc_frames(struct sym_file *f, uint32_t vaddr, bool lines,
			       struct sym_frame *out, unsigned int max)
{
	if (!f || !max)
		return 0;
	if (lines)
		return sym_frames(f, vaddr, out, max);
	out->name = sym_lookup(f, vaddr);
	out->file = NULL;
	out->line = 0;
	return out->name ? 1 : 0;
}

/* The lines of a location in a mapping, named as the text report names it. */
static void name_location(struct pp *w, struct pp_loc *l, uint32_t model)
{
	const struct rp_mapping *m = &w->p->maps[model];
	const struct rp_module *mod = &w->p->mods[m->module];
	struct pp_map *pm = &w->maps[l->map - 1];
	struct sym_frame fr[RP_INLINE_MAX];
	char buf[1024];
	bool lined = true;
	unsigned int n = loc_frames(mod->sym, l->addr - m->bias, w->want_lines,
				    fr, RP_INLINE_MAX);

	pm->nlocs++;
	if (!n) {
		/* A placeholder that pprof replaces if it finds the file. */
		/* [libc.so.6]; a name such as [vdso] is already so */
		snprintf(buf, sizeof(buf), mod->name[0] == '[' ? "%s" : "[%s]",
			 mod->name);
		add_line(w, buf, NULL, 0);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		add_line(w, fr[i].name, fr[i].file, fr[i].line);
		lined &= fr[i].file != NULL;
	}
	pm->named++;
	pm->lined += lined;
}

/*
 * The location of a frame at @addr in model mapping @model (RP_NO_MAPPING:
 * none found; JIT code of process @pid if its symbol files name it), or of
 * the [kernel] leaf.  Made once per key.
 */
static uint64_t location(struct pp *w, uint32_t model, uint32_t pid,
			 uint32_t addr, bool kernel)
{
	uint64_t key = kernel ? (uint64_t)UINT32_MAX << 32 :
		       (uint64_t)(model + 1) << 32 | addr;	/* none: model + 1 = 0 */
	const char *jit = NULL;
	struct rp_map *ids = &w->loc_ids;
	struct pp_loc *l;
	uint32_t id;

	/* JIT code: in no mapping, or in anonymous memory */
	if (!kernel && (model == RP_NO_MAPPING ||
			rp_jit_anon(w->p->mods[w->p->maps[model].module].path)))
		jit = rp_jit_name(&w->p->jit, pid, addr);
	if (jit) {
		ids = &w->jit_loc_ids;
		key = (uint64_t)pid << 32 | addr;
	}
	if (rp_map_get(ids, key, &id))
		return id + 1;
	w->locs = rp_grow(w->locs, &w->locroom, w->nlocs, sizeof(*w->locs));
	l = &w->locs[w->nlocs];
	*l = (struct pp_loc){ .line0 = w->nlines };
	if (kernel) {
		l->map = map_id(w, PP_KERNEL_MAP);
		w->maps[l->map - 1].nlocs++;
		w->maps[l->map - 1].named++;
		add_line(w, "[kernel]", NULL, 0);
	} else if (model == RP_NO_MAPPING) {
		l->addr = addr;
		add_line(w, jit ? jit : "[unknown]", NULL, 0);
	} else if (jit) {
		l->addr = addr;
		l->map = map_id(w, model);
		w->maps[l->map - 1].nlocs++;
		w->maps[l->map - 1].named++;
		add_line(w, jit, NULL, 0);
	} else {
		l->addr = addr;
		l->map = map_id(w, model);
		name_location(w, l, model);
	}
	l->nlines = w->nlines - l->line0;
	rp_map_put(ids, key, w->nlocs);
	return ++w->nlocs;
}

/* Count one recorded sample into the Sample of its stack and labels. */
static void add_sample(struct pp *w, const struct rp_sample *k)
{
	const struct rp_profile *p = w->p;
	uint32_t top = w->nstack, n, id;
	struct pp_smp *s;
	uint64_t h;

	if (k->kernel) {
		w->stack = rp_grow(w->stack, &w->stackroom, w->nstack, sizeof(*w->stack));
		w->stack[w->nstack++] = location(w, 0, 0, 0, true);
	}
	for (uint32_t i = 0; i < k->nframes; i++) {
		uint32_t look = rp_frame_addr(p->addrs[k->frames + i], i > 0);
		uint64_t loc = location(w, p->addr_maps[k->frames + i], k->pid,
					look, false);

		w->stack = rp_grow(w->stack, &w->stackroom, w->nstack, sizeof(*w->stack));
		w->stack[w->nstack++] = loc;
	}
	n = w->nstack - top;
	if (!n)
		return;		/* no frames: the call tree leaves it out too */
	h = fnv(1469598103934665603ull, &k->pid, sizeof(k->pid));
	h = fnv(h, &k->tid, sizeof(k->tid));
	h = fnv(h, &k->comm, sizeof(k->comm));
	h = fnv(h, w->stack + top, n * sizeof(*w->stack));
	for (h = h == UINT64_MAX ? 0 : h; rp_map_get(&w->smp_ids, h, &id); h = next_key(h)) {
		s = &w->smps[id];
		if (s->pid == k->pid && s->tid == k->tid && s->comm == k->comm &&
		    s->nlocs == n &&
		    !memcmp(w->stack + s->loc0, w->stack + top, n * sizeof(*w->stack))) {
			s->count++;
			w->nstack = top;	/* the stack is already there */
			return;
		}
	}
	w->smps = rp_grow(w->smps, &w->smproom, w->nsmps, sizeof(*w->smps));
	w->smps[w->nsmps] = (struct pp_smp){
		.pid = k->pid, .tid = k->tid, .comm = k->comm,
		.loc0 = top, .nlocs = n, .count = 1,
	};
	rp_map_put(&w->smp_ids, h, w->nsmps++);
}

/* ---- the protobuf-c message ---- */

static void value_type(pb_value_type *v, struct strtab *st, const char *type,
		       const char *unit)
{
	perftools__profiles__value_type__init(v);
	v->type = str_id(st, type);
	v->unit = str_id(st, unit);
}

static void num_label(pb_label *l, struct strtab *st, const char *key, int64_t num)
{
	perftools__profiles__label__init(l);
	l->key = str_id(st, key);
	l->num = num;
}

static void str_label(pb_label *l, struct strtab *st, const char *key,
		      const char *val)
{
	perftools__profiles__label__init(l);
	l->key = str_id(st, key);
	l->str = str_id(st, val);
}

/*
 * Labels of a sample: pid and tid as numbers (pprof's -tagfocus=pid=N
 * matches numeric labels only; the same key also as a string would be
 * counted twice by pprof -tags), the process's name as a string.  A thread
 * name goes here as the string "thread_name" once the data file carries
 * thread names.  Returns how many (at most PP_LABELS).
 */
#define PP_LABELS	3

static size_t labels(struct pp *w, const struct pp_smp *s, pb_label *l)
{
	size_t n = 0;

	num_label(&l[n++], &w->st, "pid", s->pid);
	num_label(&l[n++], &w->st, "tid", s->tid);
	if (s->comm != UINT32_MAX)
		str_label(&l[n++], &w->st, "process_name", w->p->comms[s->comm]);
	return n;
}

static void fill_mapping(struct pp *w, uint32_t i, pb_mapping *m)
{
	const struct pp_map *pm = &w->maps[i];
	const struct rp_mapping *rm;
	const struct rp_module *mod;
	char hex[2 * UWD_BUILD_ID_MAX + 1];

	perftools__profiles__mapping__init(m);
	m->id = i + 1;
	if (pm->model == PP_KERNEL_MAP) {
		/* samples taken in the kernel: no address, named already */
		m->filename = str_id(&w->st, "[kernel]");
		m->has_functions = true;
		return;
	}
	rm = &w->p->maps[pm->model];
	mod = &w->p->mods[rm->module];
	uw_hex(mod->build_id, mod->build_id_len, hex);
	m->memory_start = rm->start;
	m->memory_limit = rm->end;
	m->file_offset = rm->offset;
	m->filename = str_id(&w->st, mod->path);
	m->build_id = str_id(&w->st, hex);
	m->has_functions = pm->named == pm->nlocs;
	m->has_filenames = w->want_lines && pm->lined == pm->nlocs;
	m->has_line_numbers = m->has_filenames;
	/* Lines come with the inline chains (sym_frames). */
	m->has_inline_frames = m->has_line_numbers;
}

/* Every array of the message, freed together. */
struct pb_arrays {
	pb_value_type vt[3];
	pb_value_type *types[2];
	pb_mapping *maps, **mapp;
	pb_location *locs, **locp;
	pb_line **linep;
	pb_function *funcs, **funcp;
	pb_sample *smps, **smpp;
	int64_t *vals;
	pb_label *labs, **labp;
};

static void fill_profile(struct pp *w, uint64_t period, pb_profile *pr,
			 struct pb_arrays *a)
{
	const struct rp_profile *p = w->p;
	size_t nlab = 0;

	perftools__profiles__profile__init(pr);
	value_type(&a->vt[0], &w->st, "samples", "count");
	value_type(&a->vt[1], &w->st, "cpu", "nanoseconds");
	value_type(&a->vt[2], &w->st, "cpu", "nanoseconds");
	a->types[0] = &a->vt[0];
	a->types[1] = &a->vt[1];
	pr->n_sample_type = 2;
	pr->sample_type = a->types;
	pr->period_type = &a->vt[2];
	pr->period = (int64_t)period;
	pr->time_nanos = (int64_t)p->hdr.start_realtime_ns;
	pr->duration_nanos = p->last_ns > p->first_ns ?
		(int64_t)(p->last_ns - p->first_ns) : 0;

	a->smps = xcalloc(w->nsmps, sizeof(*a->smps));
	a->smpp = xcalloc(w->nsmps, sizeof(*a->smpp));
	a->vals = xcalloc(2 * (size_t)w->nsmps, sizeof(*a->vals));
	a->labs = xcalloc(PP_LABELS * (size_t)w->nsmps, sizeof(*a->labs));
	a->labp = xcalloc(PP_LABELS * (size_t)w->nsmps, sizeof(*a->labp));
	for (uint32_t i = 0; i < w->nsmps; i++) {
		const struct pp_smp *s = &w->smps[i];
		pb_sample *o = &a->smps[i];
		size_t nl = labels(w, s, a->labs + nlab);

		perftools__profiles__sample__init(o);
		o->n_location_id = s->nlocs;
		o->location_id = w->stack + s->loc0;
		a->vals[2 * i] = (int64_t)s->count;
		a->vals[2 * i + 1] = (int64_t)(s->count * period);
		o->n_value = 2;
		o->value = a->vals + 2 * i;
		for (size_t k = 0; k < nl; k++)
			a->labp[nlab + k] = &a->labs[nlab + k];
		o->n_label = nl;
		o->label = a->labp + nlab;
		nlab += nl;
		a->smpp[i] = o;
	}
	pr->n_sample = w->nsmps;
	pr->sample = a->smpp;

	a->maps = xcalloc(w->nmaps, sizeof(*a->maps));
	a->mapp = xcalloc(w->nmaps, sizeof(*a->mapp));
	for (uint32_t i = 0; i < w->nmaps; i++) {
		fill_mapping(w, i, &a->maps[i]);
		a->mapp[i] = &a->maps[i];
	}
	pr->n_mapping = w->nmaps;
	pr->mapping = a->mapp;

	a->linep = xcalloc(w->nlines, sizeof(*a->linep));
	for (uint32_t i = 0; i < w->nlines; i++)
		a->linep[i] = &w->lines[i];
	a->locs = xcalloc(w->nlocs, sizeof(*a->locs));
	a->locp = xcalloc(w->nlocs, sizeof(*a->locp));
	for (uint32_t i = 0; i < w->nlocs; i++) {
		pb_location *l = &a->locs[i];

		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = w->locs[i].map;
		l->address = w->locs[i].addr;
		l->n_line = w->locs[i].nlines;
		l->line = a->linep + w->locs[i].line0;
		a->locp[i] = l;
	}
	pr->n_location = w->nlocs;
	pr->location = a->locp;

	a->funcs = xcalloc(w->nfuncs, sizeof(*a->funcs));
	a->funcp = xcalloc(w->nfuncs, sizeof(*a->funcp));
	for (uint32_t i = 0; i < w->nfuncs; i++) {
		pb_function *f = &a->funcs[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = w->funcs[i].name;
		/* symbols.h gives the name as shown (demangled unless
		 * --no-demangle), not the linker's as well. */
		f->system_name = w->funcs[i].name;
		f->filename = w->funcs[i].file;
		/* start_line stays 0: symbols.h does not give the line of a
		 * function's declaration yet. */
		a->funcp[i] = f;
	}
	pr->n_function = w->nfuncs;
	pr->function = a->funcp;

	/* Last: every id above is in the table by now. */
	pr->n_string_table = w->st.n;
	pr->string_table = w->st.s;
}

static void free_arrays(struct pb_arrays *a)
{
	free(a->maps);
	free(a->mapp);
	free(a->locs);
	free(a->locp);
	free(a->linep);
	free(a->funcs);
	free(a->funcp);
	free(a->smps);
	free(a->smpp);
	free(a->vals);
	free(a->labs);
	free(a->labp);
}

static void free_pp(struct pp *w)
{
	for (uint32_t i = 0; i < w->st.n; i++)
		free(w->st.s[i]);
	free(w->st.s);
	rp_map_free(&w->st.ids);
	free(w->map_ids);
	free(w->maps);
	free(w->locs);
	rp_map_free(&w->loc_ids);
	rp_map_free(&w->jit_loc_ids);
	free(w->lines);
	free(w->funcs);
	rp_map_free(&w->func_ids);
	free(w->smps);
	rp_map_free(&w->smp_ids);
	free(w->stack);
}

/* pprof reads gzip'd profiles (it also takes them plain, other readers
 * do not). */
static int gzip_write(const uint8_t *msg, size_t len, FILE *out)
{
	uint8_t buf[65536];
	z_stream z = { 0 };
	int ret;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (uint8_t *)msg;
	z.avail_in = (uInt)len;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		ret = deflate(&z, Z_FINISH);
		if (ret == Z_STREAM_ERROR ||
		    fwrite(buf, 1, sizeof(buf) - z.avail_out, out) !=
		    sizeof(buf) - z.avail_out) {
			deflateEnd(&z);
			return -1;
		}
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	return ferror(out) ? -1 : 0;
}

int rp_write_pprof(const struct rp_profile *p, bool lines, FILE *out)
{
	uint64_t period = p->hdr.freq_hz ? 1000000000ull / p->hdr.freq_hz : 1000000;
	struct pp w = { .p = p, .want_lines = lines };
	struct pb_arrays a = { 0 };
	pb_profile pr;
	uint8_t *msg;
	size_t len;
	int ret;

	str_id(&w.st, "");
	w.map_ids = xcalloc(p->nmaps, sizeof(*w.map_ids));
	for (uint32_t i = 0; i < p->nsmp; i++)
		add_sample(&w, &p->smp[i]);
	fill_profile(&w, period, &pr, &a);
	len = perftools__profiles__profile__get_packed_size(&pr);
	msg = xcalloc(len, 1);
	perftools__profiles__profile__pack(&pr, msg);
	ret = gzip_write(msg, len, out);
	free(msg);
	free_arrays(&a);
	free_pp(&w);
	return ret;
}
