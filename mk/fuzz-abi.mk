# SPDX-License-Identifier: GPL-2.0
# The device ABI under random call sequences in the VM (fuzz/abi_fuzz.c):
#   make fuzz-abi                       100,000 sequences (FUZZ_SEQUENCES)
#   make fuzz-abi FUZZ_SECONDS=N        N seconds instead
#   make fuzz-abi KERNEL=debug-6.1      on the debug kernel (make debug-kernel)
# FUZZ_ABI_FLAGS adds abi_fuzz options (-w workers, -t threads, -r seed, -F).

FUZZ_SEQUENCES	?= 100000
# FUZZ_SECONDS has a default for the libFuzzer targets; only one given
# here bounds the ABI fuzz by time.
ifneq ($(filter command line environment,$(origin FUZZ_SECONDS)),)
FUZZ_ABI_BOUND	:= -s $(FUZZ_SECONDS)
else
FUZZ_ABI_BOUND	:= -n $(FUZZ_SEQUENCES)
endif
FUZZ_ABI_TIMEOUT ?= 3600

$(ABI_FUZZ): fuzz/abi_fuzz.c uapi/uwprof.h
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(ARM_CFLAGS) -D_GNU_SOURCE -I$(CURDIR) -o $@ $< -lpthread

# $(1): abi_fuzz arguments.  The module (uwprof.ko, or UWPROF_MODULE for
# vm.sh) must be built for $(KERNEL).
fuzz_abi_run = scripts/vm.sh --timeout $(FUZZ_ABI_TIMEOUT) --mem 1024 \
	--add $(ABI_FUZZ):/abi_fuzz --add fuzz/abi-in-vm.sh:/abi-in-vm.sh \
	--add selftests/kmemleak.sh:/kmemleak.sh -- "/abi-in-vm.sh $(1)"

# The run's summary (the line of sequences and the calls with their errno
# counts) goes to $(BUILD)/fuzz-abi/$(KERNEL).md headed by the commit and
# kernel, and into FUZZ_ABI_DOC's "make fuzz-abi" section (docs/HOSTILE.md;
# make check's short run sets it empty).
FUZZ_ABI_DOC	?= docs/HOSTILE.md
FUZZ_ABI_OUT	:= $(BUILD)/fuzz-abi/$(KERNEL)

fuzz-abi: module $(ABI_FUZZ)
	@mkdir -p $(dir $(FUZZ_ABI_OUT))
	$(Q){ $(call fuzz_abi_run,$(FUZZ_ABI_BOUND) $(FUZZ_ABI_FLAGS)); \
		echo $$? >$(FUZZ_ABI_OUT).rc; } 2>&1 | tee $(FUZZ_ABI_OUT).log; \
		exit $$(cat $(FUZZ_ABI_OUT).rc)
	$(Q){ echo "\`make fuzz-abi\` (abi_fuzz $(strip $(FUZZ_ABI_BOUND) $(FUZZ_ABI_FLAGS))) on $(KERNEL)," \
		"commit $$(git rev-parse --short HEAD)$$(git diff --quiet HEAD -- || echo +changes)," \
		"$$(date -u +%Y-%m-%d):"; echo; \
	  sed -n '/^# abi_fuzz: [0-9]* sequences in/,/^# abi_fuzz: ok/s/^# /    /p' \
		$(FUZZ_ABI_OUT).log; } >$(FUZZ_ABI_OUT).md
	$(Q)$(if $(FUZZ_ABI_DOC),scripts/doc-section.sh fuzz-abi \
		$(FUZZ_ABI_OUT).md $(FUZZ_ABI_DOC) markdown)

.PHONY: fuzz-abi
