# SPDX-License-Identifier: GPL-2.0
# uwprof report --format pprof: the profile message is encoded by protobuf-c
# from C generated here, at build time, from the official profile.proto
# that Debian's golang-github-google-pprof-dev installs (make setup).  The
# host uwprof links it and libprotobuf-c; the device-side binary does not
# write pprof.

PPROF_PROTO	?= /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
PPROF_GEN	:= $(HOST_OUT)/gen
PPROF_OBJ	:= $(PPROF_GEN)/profile.pb-c.o

$(PPROF_GEN)/profile.pb-c.c: $(PPROF_PROTO)
	@test -f $< || { echo "$<: missing; run make setup" \
		"(golang-github-google-pprof-dev, protobuf-c-compiler)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(Q)protoc-c --c_out=$(dir $@) --proto_path=$(dir $<) $(notdir $<)

$(PPROF_GEN)/profile.pb-c.h: $(PPROF_GEN)/profile.pb-c.c ;

$(PPROF_OBJ): $(PPROF_GEN)/profile.pb-c.c $(PPROF_GEN)/profile.pb-c.h
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -c -o $@ $<

TOOL_OBJS	+= $(PPROF_OBJ)
TOOL_LIBS	+= -lprotobuf-c
HOST_CFLAGS	+= -I$(PPROF_GEN)
FUZZ_TOOL_CFLAGS += -I$(PPROF_GEN)

# The fuzzers' own compile of the writer needs the generated header.
$(FUZZ_OUT)/obj/tools/uwprof/report/pprof.o: $(PPROF_GEN)/profile.pb-c.h

# google/pprof itself, built from Debian's source of it: go tool pprof (the
# copy inside the Go distribution) cannot read build-ids, so it ignores every
# local file for a mapping that has one and re-symbolizes nothing from
# PPROF_BINARY_PATH.  tests/host/report_pprof.sh uses both.
PPROF_TOOL	:= $(BUILD)/tools/pprof
PPROF_SRC	:= /usr/share/gocode/src/github.com/google/pprof

$(PPROF_TOOL): $(PPROF_PROTO)
	@mkdir -p $(dir $@)
	$(Q)GOENV=off GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= \
		GOCACHE=$(BUILD)/go-cache go build -o $@ github.com/google/pprof

test-host: $(PPROF_TOOL)
HOST_TEST_SCRIPTS += tests/host/report_pprof.sh
