// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report: read a data file, symbolize every frame and build the
 * call tree and the per-function counts that the writers print.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/zip.h"
#include "report/report.h"
#include "report/procs.h"
#include "report/symbols.h"
#include "uwprof.h"

double rp_pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0;
}

const char *rp_func_module(const struct rp_profile *p, uint32_t f)
{
	uint32_t m = p->funcs[f].module;

	if (p->funcs[f].kernel)
		return "[kernel]";
	return m == RP_NO_MODULE ? "[unknown]" : p->mods[m].name;
}

/* ---- loading state ---- */

struct rp_load {
	struct rp_profile *p;
	const struct rp_opts *o;
	struct rp_procs procs;
	bool timed;		/* UWD_HDR_TIMED: keys are times */
	uint64_t seq;		/* the current record's place in the file */
	uint64_t bad_samples;
	const struct uwd_image *images[4];	/* the vDSO's, in the file */
	unsigned int nimages;
};

/* An image record: kept (it lives as long as the loaded file) if whole. */
static void on_image(struct rp_load *L, const void *data, size_t len)
{
	const struct uwd_image *im = data;

	if (len < sizeof(*im) || im->size > len - sizeof(*im) ||
	    im->build_id_len > UWD_BUILD_ID_MAX || !im->build_id_len ||
	    L->nimages == sizeof(L->images) / sizeof(L->images[0]))
		return;
	L->images[L->nimages++] = im;
}

/*
 * Symbols of a module from an image the file carries, by build-id: the
 * image is written to a temporary file for libdwfl, which keeps it open.
 */
static struct sym_file *sym_from_image(const struct rp_load *L,
				       const struct rp_module *mod)
{
	const char *dir = getenv("TMPDIR");
	struct sym_file *sym = NULL;
	char path[4096];
	bool mismatch;
	int fd;

	snprintf(path, sizeof(path), "%s/uwprof-image-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	for (unsigned int i = 0; i < L->nimages; i++) {
		const struct uwd_image *im = L->images[i];

		if (im->build_id_len != mod->build_id_len ||
		    memcmp(im->build_id, mod->build_id, im->build_id_len))
			continue;
		fd = mkstemp(path);
		if (fd < 0)
			return NULL;
		if (write(fd, im + 1, im->size) == (ssize_t)im->size)
			sym = sym_open(NULL, 0, path, mod->build_id,
				       mod->build_id_len, &mismatch);
		close(fd);
		unlink(path);
		return sym;
	}
	return NULL;
}

/* The key of a record with time @t: its time, or in older files its place. */
static uint64_t key_of(const struct rp_load *L, uint64_t t)
{
	return L->timed ? t : L->seq;
}

/*
 * A module's name: the base name of its path, or for a library inside an
 * archive ("/data/app/.../base.apk!/lib/armeabi-v7a/libfoo.so") the
 * archive's base name with the entry, as perf and simpleperf name it.
 */
static const char *module_name(const char *path)
{
	const char *sep = strstr(path, UW_ZIP_SEP), *base = NULL;

	for (const char *c = path; *c && (!sep || c < sep); c++)
		if (*c == '/')
			base = c;
	return base ? base + 1 : path;
}

/* The offset of a mapping in the ELF its path names (lib/elf.h). */
static uint32_t elf_offset(const struct uwd_mapping *m)
{
	return m->elf_offset <= m->offset ? m->offset - m->elf_offset : m->offset;
}

/* A new module of @path, its other fields zero. */
static struct rp_module *new_module(struct rp_profile *p, const char *path)
{
	struct rp_module *mod;

	p->mods = rp_grow(p->mods, &p->modroom, p->nmods, sizeof(*p->mods));
	mod = &p->mods[p->nmods];
	memset(mod, 0, sizeof(*mod));
	mod->path = strdup(path);
	mod->name = module_name(mod->path);
	return mod;
}

static uint32_t module_for(struct rp_load *L, const struct uwd_mapping *m,
			   const char *path)
{
	struct rp_profile *p = L->p;
	struct rp_module *mod;
	bool mismatch;

	for (uint32_t i = 0; i < p->nmods; i++)
		if (!strcmp(p->mods[i].path, path) &&
		    p->mods[i].build_id_len == m->build_id_len &&
		    !memcmp(p->mods[i].build_id, m->build_id, m->build_id_len))
			return i;
	mod = new_module(p, path);
	mod->build_id_len = m->build_id_len > UWD_BUILD_ID_MAX ?
		UWD_BUILD_ID_MAX : m->build_id_len;
	memcpy(mod->build_id, m->build_id, mod->build_id_len);
	mod->start = m->start;
	mod->end = m->end;
	mod->offset = elf_offset(m);
	mod->sym = sym_open(L->o->symfs, L->o->nsymfs, path, mod->build_id,
			    mod->build_id_len, &mismatch);
	if (!mod->sym)
		mod->sym = sym_from_image(L, mod);
	if (!mod->sym && !L->o->quiet)
		uw_err("report: warning: no symbols for %s%s; give its unstripped "
		       "copy with --symfs DIR", path,
		       mismatch ? " (a file was found but its build-id differs)" : "");
	return p->nmods++;
}

/* The mapping as the writers see it, after the process's lifetime. */
static uint32_t keep_mapping(struct rp_profile *p, const struct uwd_mapping *m,
			     const struct rp_region *r)
{
	p->maps = rp_grow(p->maps, &p->maproom, p->nmaps, sizeof(*p->maps));
	p->maps[p->nmaps] = (struct rp_mapping){
		.pid = m->pid, .start = m->start, .end = m->end,
		.offset = elf_offset(m), .module = r->module,
		.bias = r->bias_ok ? r->bias : r->start,
	};
	return p->nmaps++;
}

static void on_mapping(struct rp_load *L, const void *data, size_t len)
{
	struct uwd_mapping m;
	struct rp_region r = { 0 };
	const char *path = (const char *)data + sizeof(m);

	if (len <= sizeof(m) || !memchr(path, 0, len - sizeof(m)))
		return;
	memcpy(&m, data, sizeof(m));
	r.start = m.start;
	r.end = m.end;
	r.key = key_of(L, m.time_ns);
	r.module = module_for(L, &m, path);
	r.bias = m.bias;
	r.bias_ok = m.flags & UWD_MAP_BIAS;
	if (!r.bias_ok && L->p->mods[r.module].sym)
		r.bias_ok = !sym_bias(L->p->mods[r.module].sym, m.start,
				      m.end, elf_offset(&m), &r.bias);
	if (m.flags & UWD_MAP_TABLE)
		L->p->mods[r.module].has_table = true;
	if (m.flags & UWD_MAP_TABLE_MODULE)
		L->p->mods[r.module].table_by_module = true;
	r.map = keep_mapping(L->p, &m, &r);
	rpp_mapping(&L->procs, m.pid, &r);
}

/* A name (a comm, or an executable's base name), interned. */
static uint32_t intern_comm(struct rp_profile *p, const char *exe)
{
	const char *base = strrchr(exe, '/');

	base = base ? base + 1 : exe;
	for (uint32_t i = 0; i < p->ncomms; i++)
		if (!strcmp(p->comms[i], base))
			return i;
	p->comms = rp_grow(p->comms, &p->commroom, p->ncomms, sizeof(*p->comms));
	p->comms[p->ncomms] = strdup(base);
	if (!p->comms[p->ncomms]) {
		uw_err("report: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	return p->ncomms++;
}

static void on_process(struct rp_load *L, const void *data, size_t len)
{
	struct uwd_process pr;
	const char *exe = (const char *)data + sizeof(pr);
	uint32_t comm = UINT32_MAX;

	if (len < sizeof(pr))
		return;
	memcpy(&pr, data, sizeof(pr));
	if (len > sizeof(pr) && memchr(exe, 0, len - sizeof(pr)) && exe[0])
		comm = intern_comm(L->p, exe);
	/* An exec: the old image's mappings are gone. */
	rpp_process(&L->procs, pr.pid, pr.flags & UWD_PROC_EXEC,
		    key_of(L, pr.time_ns), comm);
}

static void on_comm(struct rp_load *L, const void *data, size_t len)
{
	struct uwd_comm c;
	const char *name = (const char *)data + sizeof(c);

	if (len <= sizeof(c) || !memchr(name, 0, len - sizeof(c)) || !name[0])
		return;
	memcpy(&c, data, sizeof(c));
	rpp_name(&L->procs, c.tid, key_of(L, c.time_ns), intern_comm(L->p, name));
}

static void on_fork(struct rp_load *L, const void *data, size_t len)
{
	struct uwd_fork f;

	if (len < sizeof(f))
		return;
	memcpy(&f, data, sizeof(f));
	rpp_fork(&L->procs, f.pid, f.ppid, key_of(L, f.time_ns));
}

static void on_exit_rec(struct rp_load *L, const void *data, size_t len)
{
	struct uwd_exit x;

	if (len < sizeof(x))
		return;
	memcpy(&x, data, sizeof(x));
	rpp_exit(&L->procs, x.pid, key_of(L, x.time_ns));
}

/* ---- functions and the tree ---- */

static uint64_t name_hash(uint32_t module, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ module;

	while (*name)
		h = (h ^ (uint8_t)*name++) * 1099511628211ull;
	return h == UINT64_MAX ? 0 : h;
}

static uint32_t intern_func(struct rp_profile *p, uint32_t module,
			    const char *name)
{
	uint64_t key = name_hash(module, name);
	struct rp_func *f;
	uint32_t id;

	/* Collisions are told apart by name, stepping to the next key. */
	while (rp_map_get(&p->func_ids, key, &id)) {
		if (p->funcs[id].module == module && !strcmp(p->funcs[id].name, name))
			return id;
		key = key + 1 == UINT64_MAX ? 0 : key + 1;
	}
	p->funcs = rp_grow(p->funcs, &p->funcroom, p->nfuncs, sizeof(*p->funcs));
	f = &p->funcs[p->nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->module = module;
	f->stamp = UINT64_MAX;
	rp_map_put(&p->func_ids, key, p->nfuncs);
	return p->nfuncs++;
}

/*
 * The functions at @vaddr of @module into @ids, innermost first; returns
 * how many.  With --lines, each with its file:line, and the functions
 * inlined there as frames of their own, marked "(inlined)".
 */
static uint32_t name_frames(struct rp_load *L, uint32_t module, uint32_t vaddr,
			    uint32_t *ids)
{
	struct rp_profile *p = L->p;
	struct rp_module *mod = &p->mods[module];
	struct sym_frame fr[RP_INLINE_MAX];
	uint32_t n = 0, k;
	char buf[1024];

	if (mod->sym && L->o->lines)
		n = sym_frames(mod->sym, vaddr, fr, RP_INLINE_MAX);
	else if (mod->sym)
		n = (fr[0].name = sym_lookup(mod->sym, vaddr)) ? 1 : 0;
	if (!n) {
		/* [libc.so.6]; a name such as [vdso] is already so */
		snprintf(buf, sizeof(buf), mod->name[0] == '[' ? "%s" : "[%s]",
			 mod->name);
		ids[0] = intern_func(p, module, buf);
		return 1;
	}
	for (k = 0; k < n; k++) {
		const char *inl = k + 1 < n ? " (inlined)" : "";

		if (L->o->lines && fr[k].file)
			snprintf(buf, sizeof(buf), "%s %s:%d%s", fr[k].name,
				 fr[k].file, fr[k].line, inl);
		else
			snprintf(buf, sizeof(buf), "%s%s", fr[k].name, inl);
		ids[k] = intern_func(p, module, buf);
		p->funcs[ids[k]].inlined = k + 1 < n;
	}
	return n;
}

/* Remember an address's functions: one id, or an inline chain's index. */
static uint32_t cache_frames(struct rp_profile *p, uint64_t key,
			     const uint32_t *ids, uint32_t n)
{
	uint32_t at = p->nchains;

	if (n > 1) {
		for (uint32_t k = 0; k <= n; k++) {
			p->chains = rp_grow(p->chains, &p->chainroom, p->nchains,
					 sizeof(*p->chains));
			p->chains[p->nchains++] = k ? ids[k - 1] : n;
		}
	}
	rp_map_put(&p->addr_ids, key, n > 1 ? RP_INLINE_CHAIN | at : ids[0]);
	return n;
}

/*
 * The module that stands for @pid's JIT code, named by its perf map as
 * perf names it: "/tmp/perf-PID.map".  No file, no symbols of its own.
 */
static uint32_t jit_module(struct rp_profile *p, uint32_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	for (uint32_t i = 0; i < p->nmods; i++)
		if (!p->mods[i].build_id_len && !strcmp(p->mods[i].path, path))
			return i;
	new_module(p, path);
	return p->nmods++;
}

/*
 * An address in no mapping (@r NULL) or in anonymous memory: JIT code if
 * its symbol files name it, else UINT32_MAX.
 */
static uint32_t jit_func(struct rp_profile *p, const struct rp_region *r,
			 uint32_t pid, uint32_t look)
{
	const char *name;

	if (r && !rp_jit_anon(p->mods[r->module].path))
		return UINT32_MAX;
	name = rp_jit_name(&p->jit, pid, look);
	return name ? intern_func(p, jit_module(p, pid), name) : UINT32_MAX;
}

/* Frame 0 is the sampled pc; the others are return addresses. */
static uint32_t frame_funcs(struct rp_load *L, uint32_t img, uint32_t pid,
			    uint64_t when, uint32_t addr, bool ret_addr,
			    uint32_t *ids)
{
	uint32_t look = rp_frame_addr(addr, ret_addr), vaddr, id, n;
	const struct rp_region *r = rpp_region(&L->procs, img, when, look);
	struct rp_profile *p = L->p;
	uint64_t key;

	ids[0] = jit_func(p, r, pid, look);
	if (ids[0] != UINT32_MAX)
		return 1;
	if (!r) {
		ids[0] = intern_func(p, RP_NO_MODULE, "[unknown]");
		return 1;
	}
	vaddr = r->bias_ok ? look - r->bias : look - r->start;
	key = ((uint64_t)(r->module + 1) << 32) | vaddr;
	if (key != UINT64_MAX && rp_map_get(&p->addr_ids, key, &id)) {
		if (!(id & RP_INLINE_CHAIN)) {
			ids[0] = id;
			return 1;
		}
		id &= ~RP_INLINE_CHAIN;
		n = p->chains[id];
		memcpy(ids, &p->chains[id + 1], n * sizeof(*ids));
		return n;
	}
	n = name_frames(L, r->module, vaddr, ids);
	return key != UINT64_MAX ? cache_frames(p, key, ids, n) : n;
}

static uint32_t child_of(struct rp_profile *p, uint32_t parent, uint32_t func)
{
	uint64_t key = ((uint64_t)parent << 32) | func;
	struct rp_node *n;
	uint32_t id;

	if (rp_map_get(&p->child_ids, key, &id))
		return id;
	p->nodes = rp_grow(p->nodes, &p->noderoom, p->nnodes, sizeof(*p->nodes));
	n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->func = func;
	n->parent = parent;
	rp_map_put(&p->child_ids, key, p->nnodes);
	return p->nnodes++;
}

static void count_node(struct rp_profile *p, uint32_t *node, uint32_t f,
		       uint64_t stamp)
{
	*node = child_of(p, *node, f);
	p->nodes[*node].total++;
	if (p->funcs[f].stamp != stamp) {	/* recursion counts once */
		p->funcs[f].total++;
		p->funcs[f].stamp = stamp;
	}
}

/* The [kernel] leaf: a sample taken in the kernel, above its user stack. */
static uint32_t kernel_func(struct rp_profile *p)
{
	uint32_t f = intern_func(p, RP_NO_MODULE, "[kernel]");

	p->funcs[f].kernel = true;
	return f;
}

static void keep_sample(struct rp_load *L, const struct uwprof_record *s,
			uint32_t img, uint64_t key, uint32_t leaf, uint32_t comm)
{
	struct rp_profile *p = L->p;
	struct rp_sample *k;

	p->smp = rp_grow(p->smp, &p->smproom, p->nsmp, sizeof(*p->smp));
	k = &p->smp[p->nsmp++];
	*k = (struct rp_sample){
		.time_ns = s->time_ns, .pid = s->pid, .tid = s->tid,
		.cpu = s->cpu, .comm = comm, .leaf = leaf,
		.frames = p->naddrs, .nframes = s->nframes,
		.kernel = s->flags & UWPROF_RF_KERNEL,
	};
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t room = p->addrroom;
		const struct rp_region *r =
			rpp_region(&L->procs, img, key,
				   rp_frame_addr(s->frames[i], i > 0));

		p->addrs = rp_grow(p->addrs, &p->addrroom, p->naddrs, sizeof(*p->addrs));
		p->addr_maps = rp_grow(p->addr_maps, &room, p->naddrs,
				    sizeof(*p->addr_maps));
		p->addr_maps[p->naddrs] = r ? r->map : RP_NO_MAPPING;
		p->addrs[p->naddrs++] = s->frames[i];
	}
}

/* The root of a process's stacks: its name (perf's ':PID' if unknown). */
static uint32_t process_func(struct rp_profile *p, uint32_t comm, uint32_t pid)
{
	char name[32];
	uint32_t f;

	if (comm != UINT32_MAX)
		snprintf(name, sizeof(name), "%s", p->comms[comm]);
	else
		snprintf(name, sizeof(name), ":%u", pid);
	f = intern_func(p, RP_NO_MODULE, name);
	p->funcs[f].process = true;
	return f;
}

static void add_sample(struct rp_load *L, const struct uwprof_record *s,
		       uint32_t img, uint64_t key, uint32_t comm)
{
	struct rp_profile *p = L->p;
	uint32_t node = 0, f = 0, outer = 0, depth = 0, ids[RP_INLINE_MAX], n;
	uint64_t stamp = p->samples;
	unsigned int stop = s->stop < UWPROF_STOP_NR ? s->stop : UWPROF_STOP_NR - 1;
	bool kernel = s->flags & UWPROF_RF_KERNEL;

	p->samples++;
	p->stops[stop]++;
	p->kernel_ctx += kernel;
	if (!p->first_ns || s->time_ns < p->first_ns)
		p->first_ns = s->time_ns;
	if (s->time_ns > p->last_ns)
		p->last_ns = s->time_ns;
	p->nodes[0].total++;
	if (p->per_process) {
		f = process_func(p, rpp_comm(&L->procs, img, s->pid, s->pid, key),
				 s->pid);
		count_node(p, &node, f, stamp);
	}
	for (uint32_t i = s->nframes; i-- > 0;) {
		n = frame_funcs(L, img, s->pid, key, s->frames[i], i > 0, ids);
		while (n--) {	/* the outer function first, inlined ones in it */
			f = ids[n];
			if (!depth)
				outer = f;
			count_node(p, &node, f, stamp);
			depth++;
		}
	}
	if (s->nframes) {
		p->funcs[outer].stopped[stop]++;
		if (p->funcs[outer].module != RP_NO_MODULE)
			p->mods[p->funcs[outer].module].stopped[stop]++;
		if (depth > p->max_depth)
			p->max_depth = depth;
	}
	if (kernel) {
		f = kernel_func(p);
		count_node(p, &node, f, stamp);
	}
	if (node) {
		p->nodes[node].self++;
		p->funcs[f].self++;
	}
	if (L->o->keep_samples)
		keep_sample(L, s, img, key, node, comm);
}

static bool in_list(const uint32_t *v, unsigned int n, uint32_t x)
{
	for (unsigned int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Does the sample pass --pid, --tid, --comm and --time? */
static bool wanted(const struct rp_load *L, const struct uwprof_record *s,
		   uint32_t comm)
{
	const struct rp_filter *fl = &L->o->filter;
	bool name_ok = !fl->ncomms;

	if (fl->npids && !in_list(fl->pids, fl->npids, s->pid))
		return false;
	if (fl->ntids && !in_list(fl->tids, fl->ntids, s->tid))
		return false;
	if ((fl->has_start && s->time_ns < fl->start_ns) ||
	    (fl->has_end && s->time_ns > fl->end_ns))
		return false;
	for (unsigned int i = 0; i < fl->ncomms && comm != UINT32_MAX; i++)
		if (!strcmp(fl->comms[i], L->p->comms[comm]))
			name_ok = true;
	return name_ok;
}

static void on_sample(struct rp_load *L, const void *data, size_t len)
{
	const struct uwprof_record *s = data;
	uint32_t comm, img;
	uint64_t key;

	if (len < sizeof(*s) || s->size > len || s->size < sizeof(*s) ||
	    s->nframes > (s->size - sizeof(*s)) / 4) {
		L->bad_samples++;
		return;
	}
	key = key_of(L, s->time_ns);	/* only once it is known whole */
	img = rpp_image_at(&L->procs, s->pid, key);
	comm = rpp_comm(&L->procs, img, s->pid, s->tid, key);
	if (!wanted(L, s, comm)) {
		L->p->filtered++;
		return;
	}
	add_sample(L, s, img, key, comm);
}

static void on_stats(struct rp_load *L, const void *data, size_t len)
{
	struct uwprof_stats st = { 0 };

	memcpy(&st, data, len < sizeof(st) ? len : sizeof(st));
	L->p->lost = st.dropped_full;
	L->p->have_stats = true;
	/* a recorder or module older than the counters: not known */
	if (len < sizeof(st) || !(st.flags & UWPROF_STATS_LOOKUPS))
		return;
	L->p->have_lookups = true;
	L->p->lookups = (struct rp_lookups){
		st.lookup_pc_hits, st.lookup_pc_misses, st.lookup_ra_hits,
		st.lookup_ra_misses, st.lookup_ra_loop,
	};
}

/*
 * Two passes: what happened to the processes first, then each sample
 * against the state at its key.  In a timed file a sample may come
 * before the side-band records it needs (they are read from another
 * ring); in an older file the first pass only sees what came before.
 */
static void walk(struct rp_load *L, struct uwd_file *f)
{
	const void *data;
	uint32_t type;
	size_t len;

	for (L->seq = 0; uwd_next(f, &type, &data, &len); L->seq++) {
		switch (type) {
		case UWD_MAPPING: on_mapping(L, data, len); break;
		case UWD_PROCESS: on_process(L, data, len); break;
		case UWD_COMM: on_comm(L, data, len); break;
		case UWD_FORK: on_fork(L, data, len); break;
		case UWD_EXIT: on_exit_rec(L, data, len); break;
		case UWD_STATS: on_stats(L, data, len); break;
		case UWD_IMAGE: on_image(L, data, len); break;
		case UWD_JITMAP: rp_jit_add(&L->p->jit, data, len); break;
		default: break;	/* samples next; newer record types: skipped */
		}
	}
	rp_jit_done(&L->p->jit);
	uwd_rewind(f);
	for (L->seq = 0; uwd_next(f, &type, &data, &len); L->seq++)
		if (type == UWD_SAMPLE)
			on_sample(L, data, len);
	L->p->processes = L->procs.processes;
}

static void warn_damage(const struct rp_load *L, const struct uwd_file *f,
			const char *path)
{
	if (f->cut_short)
		uw_err("report: warning: %s: the last record is cut short at byte "
		       "%zu of %zu (the recording did not finish); it is skipped",
		       path, f->pos, f->size);
	else if (!f->saw_end)
		uw_err("report: warning: %s has no end record: the recording "
		       "did not finish (killed or crashed?)", path);
	if (L->bad_samples)
		uw_err("report: warning: %s: %llu malformed samples skipped", path,
		       (unsigned long long)L->bad_samples);
}

int rp_load(const char *path, const struct rp_opts *o, struct rp_profile *p)
{
	struct uwd_file f;
	char err[512];

	memset(p, 0, sizeof(*p));
	if (uwd_load(path, &f, err, sizeof(err))) {
		uw_err("report: %s", err);
		return -1;
	}
	return rp_load_file(&f, path, o, p);
}

int rp_load_file(struct uwd_file *fp, const char *path,
		 const struct rp_opts *o, struct rp_profile *p)
{
	struct rp_load L = { .p = p, .o = o, .timed = fp->hdr.flags & UWD_HDR_TIMED };
	const struct rp_filter *fl = &o->filter;
	struct uwd_file f = *fp;

	memset(p, 0, sizeof(*p));
	p->filtering = fl->npids || fl->ntids || fl->ncomms || fl->has_start ||
		       fl->has_end;
	p->hdr = f.hdr;
	p->per_process = o->per_process < 0 ? !!(f.hdr.flags & UWD_HDR_ALL) :
			 o->per_process;
	p->noderoom = 64;
	p->nodes = calloc(p->noderoom, sizeof(*p->nodes));
	if (!p->nodes) {
		uw_err("report: out of memory");
		uwd_free(&f);
		return -1;
	}
	p->nodes[0].func = UINT32_MAX;
	p->nnodes = 1;
	walk(&L, &f);
	warn_damage(&L, &f, path);
	rpp_free(&L.procs);
	uwd_free(&f);
	rp_sort_tree(p);
	return 0;
}

void rp_free(struct rp_profile *p)
{
	for (uint32_t i = 0; i < p->nmods; i++) {
		sym_close(p->mods[i].sym);
		free(p->mods[i].path);
	}
	for (uint32_t i = 0; i < p->nfuncs; i++)
		free(p->funcs[i].name);
	for (uint32_t i = 0; i < p->ncomms; i++)
		free(p->comms[i]);
	free(p->comms);
	free(p->smp);
	free(p->addrs);
	free(p->chains);
	free(p->addr_maps);
	free(p->maps);
	free(p->mods);
	free(p->funcs);
	free(p->nodes);
	rp_map_free(&p->func_ids);
	rp_map_free(&p->addr_ids);
	rp_map_free(&p->child_ids);
	rp_jit_free(&p->jit);
}

/* ---- ordering ---- */

static const struct rp_profile *sort_p;
static bool sort_by_total;

static int name_cmp(uint32_t a, uint32_t b)
{
	int c = strcmp(sort_p->funcs[a].name, sort_p->funcs[b].name);

	if (c)
		return c;
	return strcmp(rp_func_module(sort_p, a), rp_func_module(sort_p, b));
}

static int node_cmp(const void *x, const void *y)
{
	const struct rp_node *a = &sort_p->nodes[*(const uint32_t *)x];
	const struct rp_node *b = &sort_p->nodes[*(const uint32_t *)y];

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return name_cmp(a->func, b->func);
}

uint32_t rp_next_node(const struct rp_profile *p, uint32_t n)
{
	if (p->nodes[n].child)
		return p->nodes[n].child;
	while (n && !p->nodes[n].next)
		n = p->nodes[n].parent;
	return n ? p->nodes[n].next : 0;
}

void rp_sort_tree(struct rp_profile *p)
{
	uint32_t *ids = malloc(p->nnodes * sizeof(*ids)), n = 0;

	if (!ids)
		return;
	for (uint32_t i = 1; i < p->nnodes; i++)
		ids[n++] = i;
	sort_p = p;
	qsort(ids, n, sizeof(*ids), node_cmp);
	for (uint32_t i = 0; i < p->nnodes; i++)
		p->nodes[i].child = p->nodes[i].next = 0;
	/* Linked back to front, so each list ends up in sorted order. */
	for (uint32_t i = n; i-- > 0;) {
		struct rp_node *c = &p->nodes[ids[i]];

		c->next = p->nodes[c->parent].child;
		p->nodes[c->parent].child = ids[i];
	}
	free(ids);
}

static int func_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct rp_func *fa = &sort_p->funcs[a], *fb = &sort_p->funcs[b];
	uint64_t ka = sort_by_total ? fa->total : fa->self;
	uint64_t kb = sort_by_total ? fb->total : fb->self;

	if (ka != kb)
		return ka > kb ? -1 : 1;
	ka = sort_by_total ? fa->self : fa->total;
	kb = sort_by_total ? fb->self : fb->total;
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return name_cmp(a, b);
}

uint32_t *rp_sorted_funcs(const struct rp_profile *p, bool by_total)
{
	uint32_t *ids = malloc((p->nfuncs + 1) * sizeof(*ids));

	if (!ids) {
		uw_err("report: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	for (uint32_t i = 0; i < p->nfuncs; i++)
		ids[i] = i;
	sort_p = p;
	sort_by_total = by_total;
	qsort(ids, p->nfuncs, sizeof(*ids), func_cmp);
	return ids;
}
