// SPDX-License-Identifier: GPL-2.0
/* capstone's handles and an ELF file's executable sections, for the
 * host tests. */
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>
#include "harness.h"
#include "arm_code.h"

void th_cs_open(csh cs[2], cs_insn **in)
{
	for (int t = 0; t < 2; t++) {
		CHECK(cs_open(CS_ARCH_ARM, t ? CS_MODE_THUMB : CS_MODE_ARM,
			      &cs[t]) == CS_ERR_OK);
		cs_option(cs[t], CS_OPT_DETAIL, CS_OPT_ON);
	}
	*in = cs_malloc(cs[0]);
}

void th_cs_close(csh cs[2], cs_insn *in)
{
	cs_free(in, 1);
	cs_close(&cs[0]);
	cs_close(&cs[1]);
}

bool th_exec_sections(const char *path, th_code_fn fn, void *arg)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;

	if (fd < 0) {
		printf("skipped: %s (absent)\n", path);
		return false;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(e != NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			fn(arg, d->d_buf, d->d_size, (uint32_t)sh.sh_addr);
	}
	elf_end(e);
	close(fd);
	return true;
}
