// SPDX-License-Identifier: GPL-2.0
/*
 * The zip reader (tools/uwprof/lib/zip.c) as record and the readers use
 * it, for tests/host/apk_cli.sh:
 *
 *   zip_probe name SPEC         the ELF named SPEC ("APK!/ENTRY" or a file)
 *   zip_probe mapping FILE OFF  what record makes of a mapping of FILE at
 *                               file offset OFF
 *
 * prints "entry NAME at OFFSET size SIZE build-id HEX" (name), or
 * "spec SPEC elf_offset OFFSET build-id HEX" / "plain" (mapping), or the
 * error; exit 0 found, 1 not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf.h"
#include "lib/util.h"
#include "record/archive.h"

static void print_bid(const char *spec)
{
	struct uw_elf_info info;
	char hex[2 * UW_BUILD_ID_MAX + 1];

	if (uw_elf_info(spec, &info)) {
		printf(" not-an-elf (%s)\n", strerror(errno));
		return;
	}
	uw_hex(info.build_id, info.build_id_len, hex);
	printf(" build-id %s loads %u\n", hex, info.nloads);
}

int main(int argc, char **argv)
{
	char err[512], spec[256];
	struct uw_elf_src s;
	struct uw_mapping m = { 0 };
	uint32_t elf_off = 0;

	if (argc == 3 && !strcmp(argv[1], "name")) {
		if (uw_elf_src_open(argv[2], &s, err, sizeof(err))) {
			printf("error: %s\n", err);
			return 1;
		}
		printf("entry %s at %llu size %llu", s.entry[0] ? s.entry : "-",
		       (unsigned long long)s.off, (unsigned long long)s.size);
		uw_elf_src_close(&s);
		print_bid(argv[2]);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "mapping")) {
		snprintf(m.path, sizeof(m.path), "%s", argv[2]);
		m.offset = (uint32_t)strtoul(argv[3], NULL, 0);
		if (!rec_archive_mapping(&m, spec, sizeof(spec), &elf_off)) {
			printf("plain\n");
			return 1;
		}
		printf("spec %s elf_offset %u", spec, elf_off);
		print_bid(spec);
		return 0;
	}
	fprintf(stderr, "usage: zip_probe name SPEC | mapping FILE OFFSET\n");
	return 2;
}
