# SPDX-License-Identifier: GPL-2.0
# make test-chromium's guest (tests/host/chromium_vm.sh): Debian armhf
# chromium exactly as shipped, with every shared library it loads from
# Debian's packages as shipped, in the form of bench/stock/programs.sh,
# for scripts/build-stock.sh (into build/chromium-stock).
#
# STOCK_PROGRAMS: NAME:PACKAGE:PATH.  chromium itself, and the libraries
# it may open with dlopen (ANGLE's EGL and GLES, SwiftShader's Vulkan,
# NSS's PKCS #11 modules): not in any DT_NEEDED list, but mapped as code
# when chromium opens them, so they need tables too.
STOCK_PROGRAMS="chromium:chromium:/usr/lib/chromium/chromium
crashpad:chromium-common:/usr/lib/chromium/chrome_crashpad_handler
egl:chromium-common:/usr/lib/chromium/libEGL.so
gles:chromium-common:/usr/lib/chromium/libGLESv2.so
swiftshader:chromium-common:/usr/lib/chromium/libvk_swiftshader.so
vulkan:chromium-common:/usr/lib/chromium/libvulkan.so.1
softokn:libnss3:/usr/lib/arm-linux-gnueabihf/libsoftokn3.so
freebl:libnss3:/usr/lib/arm-linux-gnueabihf/libfreeblpriv3.so
nssckbi:libnss3:/usr/lib/arm-linux-gnueabihf/libnssckbi.so"

# The packages of the libraries they load: chromium's Depends and their
# DT_NEEDED closure (build-stock.sh fails naming any soname not found).
STOCK_LIBRARIES="libasound2 libasyncns0 libatk-bridge2.0-0 libatk1.0-0 libatspi2.0-0
libavahi-client3 libavahi-common3 libblkid1 libbrotli1 libbsd0
libc6 libcairo2 libcap2 libcom-err2 libcups2 libdatrie1 libdav1d6
libdbus-1-3 libdouble-conversion3 libdrm2 libexpat1 libffi8
libflac12 libfontconfig1 libfreetype6 libfribidi0 libgbm1 libgcc-s1
libgcrypt20 libglib2.0-0 libgmp10 libgnutls30 libgpg-error0
libgraphite2-3 libgssapi-krb5-2 libharfbuzz-subset0 libharfbuzz0b
libhogweed6 libsqlite3-0 libidn2-0 libjpeg62-turbo libk5crypto3 libkeyutils1
libkrb5-3 libkrb5support0 liblcms2-2 liblz4-1 liblzma5 libmd0
libminizip1 libmount1 libmp3lame0 libmpg123-0 libnettle8 libnspr4
libnss3 libogg0 libopenh264-7 libopenjp2-7 libopus0 libp11-kit0
libpango-1.0-0 libpcre2-8-0 libpixman-1-0 libpng16-16 libpulse0
libselinux1 libsndfile1 libstdc++6 libsystemd0 libtasn1-6 libthai0
libudev1 libunistring2 libvorbis0a libvorbisenc2 libwayland-server0
libx11-6 libx11-xcb1 libxau6 libxcb-render0 libxcb-shm0 libxcb1
libxcomposite1 libxdamage1 libxdmcp6 libxext6 libxfixes3 libxi6
libxkbcommon0 libxnvctrl0 libxrandr2 libxrender1 libzstd1 zlib1g"

# The directories the guest's loader searches, as Debian's does, and the
# RUNPATH of libpulse (its private libpulsecommon).
STOCK_LIBDIRS="/lib/arm-linux-gnueabihf /usr/lib/arm-linux-gnueabihf
/usr/lib/arm-linux-gnueabihf/pulseaudio"
