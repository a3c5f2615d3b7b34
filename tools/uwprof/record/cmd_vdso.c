// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof vdso: write the kernel's vDSO image, as this device maps it into
 * 32-bit processes, so the host can make its table (uwprof table) and
 * symbolize it (uwprof report --symfs).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lib/elf.h"
#include "uwprof.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uwprof vdso [-o FILE]\n"
		"\n"
		"Write the kernel's vDSO (the code of clock_gettime, gettimeofday,\n"
		"...) as every 32-bit process on this device maps it, to FILE\n"
		"(default vdso.so), and print its build-id.  On the host:\n"
		"    uwprof table FILE --build-id-dir TABLES\n"
		"gives 'uwprof record --tables TABLES' its table.\n");
}

static int write_image(const char *path, const uint8_t *image, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(image, 1, len, f) != len) {
		uw_err("vdso: cannot write %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f)) {
		uw_err("vdso: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_vdso(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = "vdso.so";
	char bid[2 * UW_BUILD_ID_MAX + 1] = "";
	struct uw_elf_info info;
	const uint8_t *image;
	size_t len;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': usage(stdout); return UWPROF_EXIT_OK;
		default: usage(stderr); return UWPROF_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return UWPROF_EXIT_USAGE;
	}
	if (uw_vdso_image(&image, &len)) {
		uw_err("vdso: %s", errno == ENOENT ?
		       "the kernel maps no vDSO into 32-bit processes here: "
		       "nothing to table" :
		       "the vDSO is not a 32-bit ELF image");
		return UWPROF_EXIT_FAIL;
	}
	if (write_image(out, image, len))
		return UWPROF_EXIT_FAIL;
	if (!uw_vdso_info(&info))
		uw_hex(info.build_id, info.build_id_len, bid);
	printf("%s: the vDSO, %zu bytes, build-id %s\n", out, len,
	       bid[0] ? bid : "(none)");
	return UWPROF_EXIT_OK;
}

UWPROF_COMMAND(vdso, "vdso", "write the kernel's vDSO image, to table it on the host", cmd_vdso)
