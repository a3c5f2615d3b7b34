# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/host/node_vm.sh and bench/big/bench-big.sh: every file
# Debian's armhf node maps (node, the libraries it needs, their DT_NEEDED
# closure in node's packages, and the loader), as paths in node's root.
NODE_FILES="usr/bin/node usr/lib/arm-linux-gnueabihf/libnode.so.108
lib/arm-linux-gnueabihf/ld-linux-armhf.so.3 lib/arm-linux-gnueabihf/libc.so.6
lib/arm-linux-gnueabihf/libm.so.6 lib/arm-linux-gnueabihf/libgcc_s.so.1
lib/arm-linux-gnueabihf/libz.so.1 usr/lib/arm-linux-gnueabihf/libstdc++.so.6
usr/lib/arm-linux-gnueabihf/libuv.so.1 usr/lib/arm-linux-gnueabihf/libcares.so.2
usr/lib/arm-linux-gnueabihf/libnghttp2.so.14 usr/lib/arm-linux-gnueabihf/libcrypto.so.3
usr/lib/arm-linux-gnueabihf/libssl.so.3 usr/lib/arm-linux-gnueabihf/libicui18n.so.72
usr/lib/arm-linux-gnueabihf/libicuuc.so.72 usr/lib/arm-linux-gnueabihf/libicudata.so.72
usr/lib/arm-linux-gnueabihf/libbrotlidec.so.1 usr/lib/arm-linux-gnueabihf/libbrotlienc.so.1
usr/lib/arm-linux-gnueabihf/libbrotlicommon.so.1"
