#!/bin/bash
# dev.sh — on the lent GPU machine (docs/benchmarks.md): unpack the Debian packages it lacks
# (GSL, inih, libltdl, Random123: `apt-get download libgsl27 libgslcblas0 libgsl-dev libinih1
# libinih-dev libltdl7 libltdl-dev librandom123-dev` into $DEBS, default .debs, a folder git
# ignores and the call carries), configure a Release build, build TARGETS (or everything),
# then run each script named as an argument with MCF_PLUGIN_PATH set.  CMAKE_EXTRA adds cmake
# options; DEADLINE (seconds since the epoch; default BUDGET = 560 s after the build starts)
# is when tc.sh stops its run.
#   NP=2 CMAKE_EXTRA="-DMCF_MPI=ON -DMCF_BUILD_TESTS=OFF" \
#     TARGETS="mcf-program mcf-double-exchange mcf-kpm-cuda" \
#     bash tests/bench/device/dev.sh tests/bench/device/fine5.sh
set -e
mkdir -p /tmp/deps
for f in "${DEBS:-.debs}"/*.deb; do if [ -f "$f" ]; then dpkg -x "$f" /tmp/deps; fi; done
# or the same packages unpacked and slimmed into a tar.xz (no static libraries, docs or
# programs; with libhdf5-dev libhdf5-103-1 libsz2 libaec0 for results.h5): the whole .deb
# files would push the carried tree past the device's 64 MiB
for f in "${DEBS:-.debs}"/*.tar.xz; do if [ -f "$f" ]; then tar xJf "$f" -C /tmp/deps; fi; done
for pc in /tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
  sed -i 's|^prefix=/usr$|prefix=/tmp/deps/usr|' "$pc"; done
export CMAKE_PREFIX_PATH=/tmp/deps/usr
export PKG_CONFIG_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export CPATH=/tmp/deps/usr/include
export LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu
export PATH=/usr/local/cuda/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s); export DEADLINE=${DEADLINE:-$(( t0 + ${BUDGET:-560} ))}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMCF_CUDA=ON $CMAKE_EXTRA >$OUT/cmake.log 2>&1 \
  || { tail -60 $OUT/cmake.log; exit 1; }
if [ -n "$TARGETS" ]; then cmake --build build -j16 --target $TARGETS >$OUT/build.log 2>&1
else cmake --build build -j16 >$OUT/build.log 2>&1; fi || { grep -B2 -A8 -m5 error $OUT/build.log; tail -30 $OUT/build.log; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
export MCF_PLUGIN_PATH=$PWD/build/lib/mcf
for s in "$@"; do bash "$s"; done
