# SPDX-License-Identifier: GPL-2.0
# make call-graph: the module's and the tools' files in layers, each
# calling only lower ones; exits non-zero on a circle of files that call
# each other (scripts/call-graph.py; tools/uwprof/README.md, "Layers").
call-graph:
	$(Q)scripts/call-graph.py

# make layers-doc: the call graphs into docs/LAYERS.md, naming the commit
# they came from (scripts/layers-doc.sh).
layers-doc:
	$(Q)scripts/layers-doc.sh

.PHONY: call-graph layers-doc
