// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for make bench-profile: how many guest instructions
 * ran at each translated block's address, for kernel addresses and for
 * the static recorder's (below 1 MiB).  At exit it writes one line per
 * block, "ADDRESS INSNS EXECUTIONS" (hex, decimal, decimal), to the file
 * named by its argument out=FILE.
 *
 * Only the few calls of QEMU's plugin API used here are declared, as the
 * API (version 1, a stable C interface) defines them; QEMU's own header
 * is not packaged.  Executions are counted by an inline add, so a block
 * left early (an exception, an interrupt) counts whole: the figures are
 * close, not exact.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info;

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      int op, void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    void (*cb)(qemu_plugin_id_t, void *),
				    void *udata);

#define EXPORT __attribute__((visibility("default")))
#define INLINE_ADD_U64	0	/* QEMU_PLUGIN_INLINE_ADD_U64 */
#define KERNEL_START	0x80000000ull
#define RECORDER_END	0x100000ull

EXPORT int qemu_plugin_version = 1;

struct block {
	uint64_t addr, insns, runs;
	struct block *next;
};

static struct block *blocks;
static const char *out_path;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	(void)id;
	if (addr < KERNEL_START && addr >= RECORDER_END)
		return;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->addr = addr;
	b->insns = qemu_plugin_tb_n_insns(tb);
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, INLINE_ADD_U64, &b->runs, 1);
}

static void finished(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");

	(void)id;
	(void)udata;
	if (!f)
		return;
	for (struct block *b = blocks; b; b = b->next)
		if (b->runs)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->addr,
				(unsigned long long)b->insns,
				(unsigned long long)b->runs);
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info *info, int argc,
			       char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "tbcount: no out=FILE argument\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, finished, NULL);
	return 0;
}
