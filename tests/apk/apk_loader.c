// SPDX-License-Identifier: GPL-2.0
/*
 * Run a library straight from a zip, as Android's linker does for an
 * APK's stored library (extractNativeLibs=false): map each PT_LOAD of the
 * ELF at file offset ENTRY_OFFSET + p_offset of the zip itself, apply its
 * R_ARM_RELATIVE relocations (the only kind a -nostdlib library with no
 * imports has; anything else is refused), then call its entry point
 * (e_entry, unsigned int f(unsigned int)) for SECONDS.
 *
 *     apk_loader APK ENTRY_OFFSET SECONDS
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#define PAGE 4096u
#define DOWN(a) ((a) & ~(PAGE - 1))
#define UP(a) (((a) + PAGE - 1) & ~(PAGE - 1))

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int prot_of(uint32_t f)
{
	return (f & PF_R ? PROT_READ : 0) | (f & PF_W ? PROT_WRITE : 0) |
	       (f & PF_X ? PROT_EXEC : 0);
}

int main(int argc, char **argv)
{
	Elf32_Ehdr eh;
	Elf32_Phdr ph[16];
	uint32_t lo = ~0u, hi = 0, rel = 0, relsz = 0, off;
	unsigned int (*entry)(unsigned int);
	volatile unsigned int sink = 0;
	double end;
	uint8_t *base;
	int fd, i;

	if (argc != 4) {
		fprintf(stderr, "usage: apk_loader APK ENTRY_OFFSET SECONDS\n");
		return 2;
	}
	off = strtoul(argv[2], NULL, 0);
	if (off % PAGE) {
		fprintf(stderr, "apk_loader: offset %u is not page-aligned\n", off);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die(argv[1]);
	if (pread(fd, &eh, sizeof(eh), off) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_type != ET_DYN ||
	    eh.e_phnum > 16 || eh.e_phentsize != sizeof(Elf32_Phdr)) {
		fprintf(stderr, "apk_loader: no ELF shared object at offset %u\n", off);
		return 1;
	}
	if (pread(fd, ph, eh.e_phnum * sizeof(ph[0]), off + eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(ph[0])))
		die("program headers");
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (DOWN(ph[i].p_vaddr) < lo)
			lo = DOWN(ph[i].p_vaddr);
		if (UP(ph[i].p_vaddr + ph[i].p_memsz) > hi)
			hi = UP(ph[i].p_vaddr + ph[i].p_memsz);
	}
	/* reserve the span, then map each segment over it from the zip */
	base = mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		die("mmap");
	base -= lo;
	for (i = 0; i < eh.e_phnum; i++) {
		const Elf32_Phdr *p = &ph[i];
		uint32_t start = DOWN(p->p_vaddr), fend = p->p_vaddr + p->p_filesz;

		if (p->p_type != PT_LOAD)
			continue;
		if (p->p_filesz &&
		    mmap(base + start, UP(fend) - start, prot_of(p->p_flags),
			 MAP_PRIVATE | MAP_FIXED, fd,
			 off + DOWN(p->p_offset)) == MAP_FAILED)
			die("mmap segment");
		if (p->p_memsz > p->p_filesz) {
			if (!(p->p_flags & PF_W)) {
				fprintf(stderr, "apk_loader: bss in a read-only segment\n");
				return 1;
			}
			memset(base + fend, 0, UP(fend) - fend);
			if (UP(p->p_vaddr + p->p_memsz) > UP(fend) &&
			    mmap(base + UP(fend), UP(p->p_vaddr + p->p_memsz) - UP(fend),
				 prot_of(p->p_flags), MAP_PRIVATE | MAP_FIXED |
				 MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
				die("mmap bss");
		}
		if (p->p_type == PT_DYNAMIC)
			break;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		const Elf32_Dyn *d;

		if (ph[i].p_type != PT_DYNAMIC)
			continue;
		for (d = (const void *)(base + ph[i].p_vaddr); d->d_tag != DT_NULL; d++) {
			if (d->d_tag == DT_REL)
				rel = d->d_un.d_ptr;
			else if (d->d_tag == DT_RELSZ)
				relsz = d->d_un.d_val;
			else if (d->d_tag == DT_RELA || d->d_tag == DT_JMPREL ||
				 d->d_tag == DT_NEEDED || d->d_tag == DT_TEXTREL) {
				fprintf(stderr, "apk_loader: the library needs more than "
					"R_ARM_RELATIVE (dynamic tag %d)\n", (int)d->d_tag);
				return 1;
			}
		}
	}
	for (uint32_t k = 0; k < relsz / sizeof(Elf32_Rel); k++) {
		const Elf32_Rel *r = (const void *)(base + rel) + k;

		if (ELF32_R_TYPE(r->r_info) != R_ARM_RELATIVE) {
			fprintf(stderr, "apk_loader: relocation type %u refused\n",
				ELF32_R_TYPE(r->r_info));
			return 1;
		}
		*(uint32_t *)(base + r->r_offset) += (uint32_t)(uintptr_t)base;
	}
	entry = (void *)(base + eh.e_entry);
	printf("apk_loader: %s at offset %u mapped at %p\n", argv[1], off,
	       (void *)(base + lo));
	fflush(stdout);
	/* let the recorder attach the table before the hot loop starts */
	usleep(300 * 1000);
	end = now() + atof(argv[3]);
	while (now() < end)
		sink += entry(20000);
	printf("apk_loader: done (%u)\n", sink);
	return 0;
}
