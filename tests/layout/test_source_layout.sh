#!/bin/bash
# test_source_layout.sh SRC — the rules of docs/architecture.md ("Map") that a change could
# break without any other test noticing:
#  (a) no source file outside tests/ is over 600 lines, unless its first 5 lines give the
#      reason ("longer than 600 lines: ...");
#  (b) no circle of files in core (sdk, engine, program), plugins/*, models/* and cuda/*:
#      a .c with its .h is one node, an edge is an include or a call (file_graph.py says
#      exactly how), and the graph must have no circle (docs/architecture.md, "Map");
#  (c) getenv() outside tests/ reads only the variables that locate things or add log lines
#      (MCF_PLUGIN_PATH, MCF_DEBUG, MCF_TIMING, MCF_CUDA_DEVICE, OMP_NUM_THREADS, and the
#      MPI launchers' rank variables in core/engine/mpi.c): a setting that changes results or
#      speed belongs in the config file;
#  (d) the README's install line names every Debian package that .ci/run installs for the
#      README's test command (its first two `packages=` lines: the build and results.h5 with
#      its Python reader), so that the README's two commands give a full CPU suite with
#      nothing skipped for a missing package (issue 42: python3-h5py and python3-numpy were
#      missing, and test_results_h5_python said "skipped");
#  (e) the program (core/program) includes only its own headers, libmcf's public headers
#      (mcf/NAME.h, core/sdk/include) and the engine's public header (core/engine/include:
#      mcf_engine.h), never the engine's internal headers; the engine includes its own
#      headers and libmcf's public ones, never libmcf's internal headers (core/sdk/NAME.h),
#      except ABI 1's declarations (core/sdk/abi1/mcf/NAME.h: private to mcf since 1.0,
#      for the loader's checks and the model adapter): docs/architecture.md, "Two
#      libraries".
set -u
src=${1:?usage: test_source_layout.sh SRC}
here=$(cd "$(dirname "$0")" && pwd)
cd "$src" || exit 1
fail=0
checks=0

# (a) file length
while IFS= read -r f; do
    checks=$((checks + 1))
    n=$(wc -l < "$f")
    if [ "$n" -gt 600 ] && ! head -5 "$f" | grep -q "longer than 600 lines:"; then
        echo "FAIL (a): $f has $n lines (> 600) and no reason in its header"
        fail=1
    fi
done < <(find core models plugins cuda examples -type f \
              \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)

# (b) circles of files (file_graph.py; python3 is what CI has for tests/hdf5 too)
checks=$((checks + 1))
if ! command -v python3 >/dev/null 2>&1; then
    echo "FAIL (b): python3 not found: the file graph (tests/layout/file_graph.py) needs it"
    fail=1
elif ! graph=$(python3 "$here/file_graph.py" . 2>&1); then
    printf '%s\n' "$graph"
    fail=1
fi

# (c) environment variables
allowed='MCF_PLUGIN_PATH|MCF_DEBUG|MCF_TIMING|MCF_CUDA_DEVICE|OMP_NUM_THREADS'
while IFS= read -r hit; do
    checks=$((checks + 1))
    file=${hit%%:*}
    if [ "$file" = core/engine/mpi.c ] && echo "$hit" | grep -q 'getenv(vars\[k\])'; then
        continue # the launchers' rank variables (OMPI_COMM_WORLD_RANK, PMI_RANK, ...)
    fi
    if ! echo "$hit" | grep -qE "getenv\(\"($allowed)\"\)"; then
        echo "FAIL (c): $hit"
        fail=1
    fi
done < <(grep -rnE 'getenv *\(' core models plugins cuda --include='*.c' --include='*.h' \
             --include='*.cu' --include='*.cuh')

# (e) what the program and the engine may include (quoted includes)
for f in core/program/*.[ch]; do
    for inc in $(grep -oE '^#include "[^"]+"' "$f" | sed 's/#include "//; s/"//'); do
        checks=$((checks + 1))
        if [ -e "core/program/$inc" ] || [ -e "core/engine/include/$inc" ] ||
            { [ "${inc#mcf/}" != "$inc" ] && [ -e "core/sdk/include/$inc" ]; }; then
            continue
        fi
        echo "FAIL (e): $f includes \"$inc\": the program includes only its own headers, mcf/... (the SDK) and the engine's public mcf_engine.h"
        fail=1
    done
done
for f in core/engine/*.[ch] core/engine/include/*.h; do
    for inc in $(grep -oE '^#include "[^"]+"' "$f" | sed 's/#include "//; s/"//'); do
        checks=$((checks + 1))
        if [ -e "core/engine/$inc" ] || [ -e "core/engine/include/$inc" ] ||
            { [ "${inc#mcf/}" != "$inc" ] && [ -e "core/sdk/include/$inc" ]; } ||
            { [ "${inc#mcf/abi1}" != "$inc" ] && [ -e "core/sdk/abi1/$inc" ]; }; then
            continue
        fi
        echo "FAIL (e): $f includes \"$inc\": the engine includes its own headers," \
             "libmcf's public mcf/... and ABI 1's mcf/abi1_... only"
        fail=1
    done
done

# (d) the README's install line against .ci/run's packages for the main tree
readme_line=$(grep -m1 'apt-get install' README.md)
for p in $(grep -E '^packages="' .ci/run | head -2 | sed 's/^packages="//; s/"$//; s/\$packages//'); do
    checks=$((checks + 1))
    if ! printf '%s\n' "$readme_line" | grep -qw -- "$p"; then
        echo "FAIL (d): README.md's install line lacks $p, which .ci/run installs for the tests"
        fail=1
    fi
done

echo "$checks checks"
exit $fail
