// SPDX-License-Identifier: GPL-2.0
/*
 * The module's one ELF reader: for an executable file mapping, the file's
 * GNU build-id and the PT_LOAD segment mapped there, read from the file's
 * page cache in the task's own context (follow.c); for the vDSO, the
 * same from the image the kernel mapped into the task, read from user
 * memory in that context.  Only 32-bit little-endian ARM images are
 * understood; anything else has no build-id.
 *
 * A file is never read through its file system: a FUSE daemon that does
 * not answer or a hung NFS server would hold the sampled task, which never
 * asked for that read, in an uninterruptible wait.  The pages looked at
 * (the ELF header, program headers and notes, at the file's start) are
 * cached from the loader's reads; when one is not, the mapping is tried
 * again at a later sweep (-EAGAIN).
 *
 * The address model is the one of the uwprof command (addrmap.c): the
 * loader maps a PT_LOAD from file offset page_down(p_offset) at
 * bias + page_down(p_vaddr), so a mapping of file offset off at start has
 * bias = start - (page_down(p_vaddr) + (off - page_down(p_offset))), and
 * link address A runs at bias + A.
 */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "uwprof_mod.h"

#define UWPROF_ELF_PAGE		0x1000u	/* ARM ELF segment alignment unit */
#define UWPROF_PHDRS_MAX	64
#define UWPROF_NOTE_MAX		1024	/* bytes of a PT_NOTE looked at */
#define UWPROF_NT_GNU_BUILD_ID	3

static u32 uwprof_page_down(u32 a)
{
	return a & ~(UWPROF_ELF_PAGE - 1);
}

/* Where an ELF image is read from: a file, or current's memory. */
struct uwprof_elf_src {
	struct file *file;
	unsigned long user_start;	/* no file: the image's first byte */
	u64 user_len;
};

/* [@off, @off + @len) of @file from its page cache: -EAGAIN if not there. */
static int uwprof_read_cached(struct file *file, u8 *buf, size_t len, u64 off)
{
	u64 size = i_size_read(file_inode(file));
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter to;
	size_t in, n;
	struct page *page;
	bool copied;

	if (off > size || len > size - off)
		return -ENOEXEC;
	iov_iter_kvec(&to, READ, &kv, 1, len);
	for (; len; off += n, len -= n) {
		in = off & (PAGE_SIZE - 1);
		n = min_t(size_t, len, PAGE_SIZE - in);
		page = find_get_page(file->f_mapping, off >> PAGE_SHIFT);
		if (!page)
			return -EAGAIN;
		if (!PageUptodate(page)) {
			put_page(page);
			return -EAGAIN;
		}
		/* maps a high page for the copy, on every kernel */
		copied = copy_page_to_iter(page, in, n, &to) == n;
		put_page(page);
		if (!copied)
			return -EFAULT;
	}
	return 0;
}

static int uwprof_read_at(const struct uwprof_elf_src *src, void *buf,
			  size_t len, u64 off)
{
	if (src->file)
		return uwprof_read_cached(src->file, buf, len, off);
	if (off > src->user_len || len > src->user_len - off)
		return -ENOEXEC;
	return copy_from_user(buf, (const void __user *)
			      (src->user_start + (unsigned long)off),
			      len) ? -EFAULT : 0;
}

static bool uwprof_ehdr_ok(const struct elf32_hdr *eh)
{
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	       eh->e_ident[EI_CLASS] == ELFCLASS32 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh->e_machine == EM_ARM &&
	       eh->e_phentsize == sizeof(struct elf32_phdr) &&
	       eh->e_phnum && eh->e_phnum <= UWPROF_PHDRS_MAX;
}

/* The NT_GNU_BUILD_ID descriptor among the notes in @buf. */
static bool uwprof_find_build_id(const u8 *buf, u32 len,
				 struct uwprof_elf_map *out)
{
	u32 at = 0;

	while (len - at >= sizeof(struct elf32_note)) {
		const struct elf32_note *n = (const void *)(buf + at);
		u32 name = ALIGN(n->n_namesz, 4), desc = ALIGN(n->n_descsz, 4);

		at += sizeof(*n);
		if (name > len - at || desc > len - at - name)
			return false;
		if (n->n_type == UWPROF_NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(buf + at, "GNU", 4) && n->n_descsz &&
		    n->n_descsz <= UWPROF_BUILD_ID_MAX) {
			out->build_id_size = n->n_descsz;
			memcpy(out->build_id, buf + at + name, n->n_descsz);
			return true;
		}
		at += name + desc;
	}
	return false;
}

/* The executable PT_LOAD whose file pages hold [off, off + len). */
static bool uwprof_exec_segment(const struct elf32_phdr *ph, u32 n, u64 off,
				u64 len, struct uwprof_elf_map *out)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u64 first = uwprof_page_down(ph[i].p_offset);
		u64 last = ALIGN((u64)ph[i].p_offset + ph[i].p_filesz,
				 UWPROF_ELF_PAGE);

		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) ||
		    !ph[i].p_filesz || off < first || off + len > last)
			continue;
		out->seg_vaddr = ph[i].p_vaddr;
		out->seg_offset = ph[i].p_offset;
		return true;
	}
	return false;
}

static int uwprof_notes_build_id(const struct uwprof_elf_src *src,
				 const struct elf32_phdr *ph, u32 n,
				 struct uwprof_elf_map *out)
{
	u8 *buf = kmalloc(UWPROF_NOTE_MAX, GFP_KERNEL);
	int ret = -ENOENT, err;
	u32 i, len;

	if (!buf)
		return -ENOMEM;
	for (i = 0; i < n && ret; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		len = min_t(u32, ph[i].p_filesz, UWPROF_NOTE_MAX);
		err = uwprof_read_at(src, buf, len, ph[i].p_offset);
		if (err == -EAGAIN)
			ret = err;	/* unless a later note has it */
		else if (!err && uwprof_find_build_id(buf, len, out))
			ret = 0;
	}
	kfree(buf);
	return ret;
}

static int uwprof_elf_info(const struct uwprof_elf_src *src, u64 map_off,
			   u64 map_len, struct uwprof_elf_map *out)
{
	struct elf32_phdr *ph;
	struct elf32_hdr eh;
	int ret;

	ret = uwprof_read_at(src, &eh, sizeof(eh), 0);
	if (ret)
		return ret;
	if (!uwprof_ehdr_ok(&eh))
		return -ENOEXEC;
	ph = kmalloc_array(eh.e_phnum, sizeof(*ph), GFP_KERNEL);
	if (!ph)
		return -ENOMEM;
	ret = uwprof_read_at(src, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff);
	if (!ret && !uwprof_exec_segment(ph, eh.e_phnum, map_off, map_len, out))
		ret = -ENOEXEC;
	if (!ret)
		ret = uwprof_notes_build_id(src, ph, eh.e_phnum, out);
	kfree(ph);
	return ret;
}

/*
 * Fill @out for the mapping of @file at offset @map_off, @map_len bytes:
 * 0, or -ENOEXEC (not an ARM ELF, or no executable segment there),
 * -ENOENT (no build-id), -ENOMEM, or -EAGAIN (a page not in the page
 * cache: try again later).
 */
int uwprof_elf_map_info(struct file *file, u64 map_off, u64 map_len,
			struct uwprof_elf_map *out)
{
	struct uwprof_elf_src src = { .file = file };

	return uwprof_elf_info(&src, map_off, map_len, out);
}

/*
 * The same for an image the kernel mapped whole at @start, @len bytes, in
 * current's memory (the vDSO: its ELF header is its first byte).  In
 * current's context, without the mmap lock: the reads may fault.
 */
int uwprof_elf_user_info(unsigned long start, u64 len,
			 struct uwprof_elf_map *out)
{
	struct uwprof_elf_src src = { .user_start = start, .user_len = len };

	return uwprof_elf_info(&src, 0, len, out);
}

/* Runtime minus link address for the mapping at @map_start, @map_off. */
u32 uwprof_map_bias(const struct uwprof_elf_map *e, u32 map_start,
		    u64 map_off)
{
	return map_start - (uwprof_page_down(e->seg_vaddr) +
			    (u32)(map_off - uwprof_page_down(e->seg_offset)));
}
