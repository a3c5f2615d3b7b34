# SPDX-License-Identifier: GPL-2.0
# Hostile inputs to the user-space tools: crafted files against the table
# generator and report (tests/host/hostile_cli.sh, test_report_svg) and
# the libFuzzer harnesses in fuzz/ over every reader of untrusted bytes.

HOST_TESTS	+= test_report_svg
test_report_svg_SRCS := tools/uwprof/report_svg.c tools/uwprof/report_model.c \
		   tools/uwprof/symbols.c tools/uwprof/buildid.c \
		   tools/uwprof/datafile.c tools/uwprof/regfile.c \
		   tools/uwprof/uwutil.c
test_report_svg_LIBS := -ldw -lelf -lz

HOST_TEST_SCRIPTS += tests/host/hostile_cli.sh
HOST_TEST_SCRIPTS += tests/host/table_scale.sh
