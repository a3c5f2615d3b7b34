/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host tests that decode real ARM code: capstone's two handles, and the
 * bytes of each executable section of an ELF file.
 */
#ifndef UWPROF_TEST_ARM_CODE_H
#define UWPROF_TEST_ARM_CODE_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>

/* capstone's ARM (@cs[0]) and Thumb (@cs[1]) handles with details, and
 * an instruction to decode into. */
void th_cs_open(csh cs[2], cs_insn **in);
void th_cs_close(csh cs[2], cs_insn *in);

/* One section's bytes (@len of them at @b) and its link address. */
typedef void (*th_code_fn)(void *arg, const uint8_t *b, uint64_t len,
			   uint32_t addr);

/*
 * @fn on each executable PROGBITS section of @path, in the file's order:
 * false (named as skipped) when @path is absent.
 */
bool th_exec_sections(const char *path, th_code_fn fn, void *arg);

#endif
