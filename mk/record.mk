# SPDX-License-Identifier: GPL-2.0
# uwprof record (the collector, also built static for armhf) and
# uwprof report; the demo.  docs/USAGE.md and docs/DATAFILE.md describe them.

# The device-side uwprof (make uwprof-arm) is built by mk/uwprof-arm.mk,
# read after mk/table.mk since it takes the table generator's sources too.
RECORD_SRCS	:= tools/uwprof/record/cmd_record.c tools/uwprof/record/procs.c \
		   tools/uwprof/record/sideband.c tools/uwprof/record/attach.c \
		   tools/uwprof/record/cmd_vdso.c tools/uwprof/record/base.c \
		   tools/uwprof/record/archive.c tools/uwprof/record/autotable.c \
		   tools/uwprof/record/holdguard.c tools/uwprof/record/needs.c \
		   tools/uwprof/record/jitmaps.c
REPORT_COMMON_SRCS := tools/uwprof/report/cmd_report.c tools/uwprof/report/model.c \
		   tools/uwprof/report/containers.c \
		   tools/uwprof/report/procs.c tools/uwprof/report/symtab.c \
		   tools/uwprof/report/text.c tools/uwprof/report/folded.c \
		   tools/uwprof/report/json.c tools/uwprof/report/jitsyms.c \
		   tools/uwprof/report/perf_script.c tools/uwprof/report/svg.c
ARM_UWPROF	:= $(ARM_OUT)/uwprof

TOOL_SRCS	+= $(RECORD_SRCS)

# The host's report adds pprof and symbols through libdwfl.
REPORT_SRCS	:= $(REPORT_COMMON_SRCS) tools/uwprof/report/pprof.c \
		   tools/uwprof/report/symbols.c
TOOL_SRCS	+= $(REPORT_SRCS)
TOOL_LIBS	+= -lz -lstdc++

# make demo: lua5.4 profiled in the VM; leaves build/demo/flame.svg,
# report.txt and profile.pb.gz.  It does its own set-up, so it is the one
# command a newcomer needs.
demo:
	$(Q)$(MAKE) --no-print-directory setup
	$(Q)$(MAKE) --no-print-directory module tools uwprof-arm lua-arm
	$(Q)tools/uwprof/demo.sh $(BUILD)
HOST_TEST_SCRIPTS += tests/host/report_cli.sh tests/host/report_views.sh \
		     tests/host/symbols_cli.sh tests/host/perf_script_npm.sh \
		     tests/host/report_procs.sh tests/host/report_jit.sh

# make test-browser: the flame graph in headless Chromium, searched and
# zoomed by its own script (tests/host/svg_browser.sh, about 10 s).  Its
# packages (scripts/packages-browser.txt, about 130 MB) are installed by
# this target only, not by make setup; make check runs it.
test-browser: $(UWPROF)
	$(Q)scripts/setup.sh --browser
	$(Q)UWPROF=$(UWPROF) BUILD=$(BUILD) scripts/run-tests.sh test-browser \
		tests/host/svg_browser.sh
.PHONY: test-browser

# End to end in the VM (record there, report here): needs the armhf uwprof.
VM_TEST_SCRIPTS	+= tests/host/record_vm.sh tests/host/table_split_vm.sh
VM_TEST_DEPS	+= $(ARM_UWPROF) $(UWPROF)

# The address model against the real loader (tests/host/addrmap_cli.sh):
# a probe of record's side of it, built from the same sources.
ADDRMAP_PROBE	:= $(HOST_OUT)/tests/addrmap_probe
ADDRMAP_PROBE_SRCS := tests/host/addrmap_probe.c tools/uwprof/lib/addrmap.c \
		  tools/uwprof/lib/elf.c tools/uwprof/lib/zip.c tools/uwprof/record/attach.c \
		  tools/uwprof/lib/uwt.c tools/uwprof/lib/regfile.c
$(ADDRMAP_PROBE): $(ADDRMAP_PROBE_SRCS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $(ADDRMAP_PROBE_SRCS)
test-host: $(ADDRMAP_PROBE)
HOST_TEST_SCRIPTS += tests/host/addrmap_cli.sh
