# SPDX-License-Identifier: GPL-2.0
# make call-graph: the module's and the tools' files in layers, each
# calling only lower ones; exits non-zero on a circle of files that call
# each other (scripts/call-graph.py; tools/uwprof/README.md, "Layers").
call-graph:
	$(Q)scripts/call-graph.py

.PHONY: call-graph
