// SPDX-License-Identifier: GPL-2.0
/*
 * addrmap_probe FILE START END OFFSET [TABLE]: what record makes of one
 * executable mapping of FILE (runtime [START, END) from file OFFSET):
 * the bias from uw_elf_info() and uw_map_bias(), and with a table the
 * runtime range attach gives it (uw_runtime_text).  For
 * tests/host/addrmap_cli.sh, which checks them against the real loader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/addrmap.h"
#include "record/attach.h"
#include "lib/elf.h"
#include "lib/uwt.h"

static uint32_t num(const char *s)
{
	return (uint32_t)strtoul(s, NULL, 0);
}

int main(int argc, char **argv)
{
	struct uw_mapping m = { 0 };
	struct uw_elf_info info;
	struct uwt_file t;
	uint32_t bias, start, end;
	char err[256];

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: addrmap_probe FILE START END OFFSET [TABLE]\n");
		return 2;
	}
	m.start = num(argv[2]);
	m.end = num(argv[3]);
	m.offset = num(argv[4]);
	m.exec = true;
	if (uw_elf_info(argv[1], &info)) {
		perror(argv[1]);
		return 2;
	}
	if (uw_map_bias(info.loads, info.nloads, m.start, m.end, m.offset, &bias))
		printf("bias none\n");
	else
		printf("bias 0x%x\n", bias);
	if (argc == 6) {
		if (uwt_load_file(argv[5], &t, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 2;
		}
		if (uw_runtime_text(&t.meta, &m, &start, &end))
			printf("text none\n");
		else
			printf("text 0x%x 0x%x\n", start, end);
		free(t.buf);
	}
	return 0;
}
