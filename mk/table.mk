# SPDX-License-Identifier: GPL-2.0
# uwprof table / uwprof dump: the v2 table generator, its container and
# the dumper.  docs/TABLES.md describes them.

TABLE_CORE	:= tools/uwprof/table/enc.c tools/uwprof/table/conv.c \
		   tools/uwprof/table/layout.c tools/uwprof/table/breakpad.c \
		   tools/uwprof/table/rows.c
# Prologue analysis, one file per idea (table/prologue_int.h lists them).
PROLOGUE_SRCS	:= $(addprefix tools/uwprof/table/prologue_,state.c insn.c dp.c \
		   ldst.c frame.c apcs.c clone.c decode.c cfi.c path.c jump.c \
		   step.c walk.c sym.c cover.c par.c pass.c thread.c ehabi.c)
TABLE_ELF	:= tools/uwprof/table/dwarf.c tools/uwprof/table/ehabi.c \
		   tools/uwprof/table/elf.c $(PROLOGUE_SRCS) \
		   tools/uwprof/table/plt.c tools/uwprof/table/noreturn.c \
		   tools/uwprof/table/spans.c tools/uwprof/table/discover.c \
		   tools/uwprof/table/discover_walk.c \
		   tools/uwprof/table/discover_memo.c \
		   tools/uwprof/table/discover_sets.c \
		   tools/uwprof/table/discover_seeds.c \
		   tools/uwprof/table/decode_once.c \
		   tools/uwprof/table/decode_fast.c \
		   tools/uwprof/table/extsyms.c \
		   tools/uwprof/table/v8builtins.c
TABLE_SRCS	:= $(TABLE_CORE) $(TABLE_ELF)
TABLE_LIBS	:= -ldw -lelf -lz -lcapstone

# uwprof dump reads tables back (inspect/dump.c, also fuzzed by fuzz_uwt).
INSPECT_SRCS	:= tools/uwprof/inspect/dump.c tools/uwprof/inspect/cmd_dump.c

TOOL_SRCS	+= $(TABLE_SRCS) tools/uwprof/table/cmd_table.c $(INSPECT_SRCS)
TOOL_LIBS	+= $(TABLE_LIBS)

# The unwinder normally comes from mk/unwind.mk; link it here only if that
# fragment does not exist, so the tool never gets it twice.
ifeq ($(wildcard mk/unwind.mk),)
TOOL_SRCS	+= $(wildcard unwind_v2.c)
endif

HOST_TESTS	+= test_table
test_table_SRCS	:= $(TABLE_CORE) unwind_v2.c tools/uwprof/lib/uwt.c \
		   tools/uwprof/lib/regfile.c
# table/rows.c reads its packed rows with the one ULEB128 reader
test_table_SRCS	+= tools/uwprof/lib/ehabi.c

# Real code for the table tests: lua5.4 (gcc and clang) and Debian's libc.
lua-arm:
	$(Q)scripts/build-lua.sh $(BUILD)
.PHONY: lua-arm

# Real code: lua5.4 (gcc, clang) against libdw, and libc.so.6's exidx.
HOST_TESTS	+= test_table_real
test_table_real_SRCS := unwind_v2.c tools/uwprof/lib/uwt.c tools/uwprof/lib/regfile.c
test_table_real_LIBS := -ldw -lelf

HOST_TEST_SCRIPTS += tests/host/table_cli.sh tests/host/thread_entry.sh \
		     tests/host/table_lld_plt.sh tests/host/table_stripped.sh \
		     tests/host/table_split.sh tests/host/table_ehabi.sh \
		     tests/host/table_jobs.sh

# Prologue analysis: hand-assembled sequences, and lua5.4 against DWARF.
HOST_TESTS	+= test_table_prologue
test_table_prologue_SRCS := $(TABLE_CORE) tools/uwprof/table/elf.c \
		   tools/uwprof/table/extsyms.c \
		   $(PROLOGUE_SRCS) tools/uwprof/table/plt.c tools/uwprof/lib/regfile.c \
		   tools/uwprof/table/spans.c tools/uwprof/table/decode_once.c \
		   tools/uwprof/table/decode_fast.c
test_table_prologue_LIBS := -ldw -lelf -lcapstone
# table/elf.c opens its input through lib/elf.c (a file, or APK!/ENTRY)
test_table_prologue_SRCS += tools/uwprof/lib/elf.c tools/uwprof/lib/zip.c
# prologue_ehabi.c reads exidx opcodes with the one opcode walker
test_table_prologue_SRCS += tools/uwprof/lib/ehabi.c

# Function discovery on Debian armhf packages as shipped: .text coverage
# per file without and with it, written into docs/TABLES.md with the
# commit measured (scripts/stock-coverage.sh; the packages are fetched
# once into build/stock).
stock-coverage: tools
	$(Q)scripts/stock-coverage.sh $(UWPROF) $(BUILD)/stock $(BUILD)/stock/coverage.md
	$(Q)scripts/doc-section.sh stock-coverage $(BUILD)/stock/coverage.md \
		docs/TABLES.md markdown

.PHONY: stock-coverage

# Our decoder of the common instructions against capstone's forms.
HOST_TESTS	+= test_decode_fast
test_decode_fast_SRCS := tools/uwprof/table/decode_fast.c \
		   tools/uwprof/table/decode_once.c tests/host/arm_code.c
test_decode_fast_LIBS := -lelf -lcapstone

# The registers prologue analysis reads as written against capstone's
# cs_regs_access() (prologue_insn.c links with the analysis it serves).
HOST_TESTS	+= test_pa_writes
test_pa_writes_SRCS = $(test_table_prologue_SRCS) tests/host/arm_code.c
test_pa_writes_LIBS = $(test_table_prologue_LIBS)
