#!/usr/bin/env bash
# test_install.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR [long] — the SDK as a plugin author meets it.
#
#   1. installs BUILD_DIR into SCRATCH_DIR/prefix (cmake --install --prefix)
#   2. builds SOURCE_DIR/examples/plugin-xy against that prefix with CMake
#      (find_package(mcf)) and with make + pkg-config
#   3. checks that the installed `mcf plugins` lists xy from each build (MCF_PLUGIN_PATH)
#      and the installed models without it
#   4. runs a very short XY temperature scan with the installed program and checks
#      results.tsv; draws it with `mcf plot` when gnuplot is installed
#   5. compiles and runs tests/install/gauge.c against the installed headers and library:
#      factorized hoppings of a pure gauge field (mcf/hamiltonian_factors.h)
#   6. builds tests/install/gas.c, a model with its own sweep op and an mcf/pair_function.h
#      weight, against the installed headers; its sweep and the core's loop must give the
#      same results.tsv, and <u> of two particles the radial integrals' value within 4
#      error bars
#   7. builds tests/install/falicov_kimball.c, a fermion model (mcf 1.0: ABI 2's model
#      table and fermion helpers; the roles ENERGY_DT and ACTION_DT,
#      mcf_fermion_occupation_heat), and tests/install/fk_exact.c,
#      the exact enumeration of its 2^16 configurations on 4x4, against the installed
#      headers; runs the model with evaluator = ed at T = 0.15 (near the checkerboard
#      order) and 0.3 and compares 9 columns (the core's specific_heat of a general weight
#      among them) with the exact values within 4 error bars; then 24 short independent
#      chains at T = 0.15: the mean z^2 of energy and abs_m must lie in the window of its
#      sampling distribution (error bars neither too small nor too large); a sanitizer
#      build runs 4000 sweeps instead of 20000 and leaves the 24 chains to the main build
#      (these comparisons are the long part: see "Tiers" below)
#   8. `mcf new-model` of the installed program: a classical and a --fermion skeleton, each
#      built with its own CMakeLists.txt against the prefix (find_package(mcf)), as a newcomer
#      would, and its NAME.ini run as written (one results.tsv row per temperature; the
#      fermion one with the installed ed); the program names the prefix to build against
#   9. a stranger's two models (examples/stranger: Blume-Capel, 150 lines; Ising bond variables
#      modulating fermion hoppings, 200 lines), written from the guide's first page and the
#      installed headers alone, each built with its own CMakeLists.txt against the prefix and
#      passing its own exact check (check.sh: transfer matrix, exact enumeration with ed;
#      within 4 error bars, and a parameter 5 % off caught)
#
# Tiers (docs/reliability.md, "The time of .ci/run"): step 7's comparisons with error bars
# need minutes of sampling, so install_sdk_long (PART long, label long: skipped, 77, unless
# MCF_TEST_LONG=1) runs steps 1 and 7 as above and holds them; the default install_sdk runs
# every step, step 7 with a run of 1000 sweeps after 200 (its exact enumeration and its
# self-check held, the 18 columns of results.tsv and their errors held present, their
# distances from the exact values printed, not held) and without the 24 chains.
#
# Each step says what it does; a failure names the step, the command and the tail of its
# output, and exits 1.  Environment (set by tests/install/CMakeLists.txt, all optional):
# MCF_CMAKE (cmake to use), MCF_CMAKE_GENERATOR, MCF_C_COMPILER, MCF_C_FLAGS (the build's
# CMAKE_C_FLAGS, for step 5), MCF_MAKE, MCF_PKG_CONFIG.
set -u

if [ $# -ne 3 ] && { [ $# -ne 4 ] || [ "$4" != long ]; }; then
    echo "usage: $0 BUILD_DIR SOURCE_DIR SCRATCH_DIR [long]" >&2
    exit 2
fi
build=$1
src=$2
scratch=$3
part=${4:-}
if [ "$part" = long ] && [ -z "${MCF_TEST_LONG:-}" ]; then
    echo "skipped: install_sdk's long part (step 7's comparisons at full length) runs with" \
         "MCF_TEST_LONG=1"
    exit 77
fi

cmake_cmd=${MCF_CMAKE:-cmake}
make_cmd=${MCF_MAKE:-make}
pkg_config_cmd=${MCF_PKG_CONFIG:-pkg-config}
step_name="setup"

step() {
    step_name=$1
    echo "== $step_name"
}

fail() {
    echo "FAILED at step '$step_name': $*" >&2
    exit 1
}

# run LOG cmd args... — runs the command with its output in LOG; on failure shows the
# command and the last 40 lines of LOG and fails the step.
run() {
    local log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "---- command: $*" >&2
        echo "---- last lines of $log:" >&2
        tail -n 40 "$log" >&2
        fail "the command above failed (full output in $log)"
    fi
}

# header_has FILE COLUMN — the first line of FILE that is not a '#' comment has a
# tab-separated field COLUMN.
header_has() {
    awk -F'\t' -v col="$2" '
        /^#/ || /^[ \t]*$/ { next }
        { for (i = 1; i <= NF; i++) if ($i == col) found = 1; exit }
        END { exit found ? 0 : 1 }' "$1"
}

# data_rows FILE — number of data rows (lines after the header that are not comments).
data_rows() {
    awk '/^#/ || /^[ \t]*$/ { next } { n++ } END { print (n > 0 ? n - 1 : 0) }' "$1"
}

# A plugin path from the caller's environment must not leak into the checks.
unset MCF_PLUGIN_PATH

step "prepare a fresh scratch folder $scratch"
case $scratch in
    "" | "/") fail "refusing to use '$scratch' as the scratch folder" ;;
esac
rm -rf "$scratch" || fail "cannot remove the old $scratch"
mkdir -p "$scratch" || fail "cannot create $scratch"
prefix=$scratch/prefix
[ -f "$build/CMakeCache.txt" ] || fail "$build is not a CMake build folder (no CMakeCache.txt)"
[ -f "$src/examples/plugin-xy/xy.c" ] || fail "$src/examples/plugin-xy/xy.c not found"

# ---------------------------------------------------------------------------------------
step "1. install the build tree into $prefix"
run "$scratch/install.log" "$cmake_cmd" --install "$build" --prefix "$prefix"
mcf=$prefix/bin/mcf
[ -x "$mcf" ] || fail "cmake --install put no executable at $mcf"
[ -f "$prefix/include/mcf/mcf.h" ] || fail "no SDK header at $prefix/include/mcf/mcf.h"
config=$(find "$prefix" -name mcfConfig.cmake -print | head -n 1)
[ -n "$config" ] || fail "no mcfConfig.cmake installed under $prefix (find_package(mcf) needs it)"
pc=$(find "$prefix" -name mcf.pc -path '*/pkgconfig/*' -print | head -n 1)
[ -n "$pc" ] || fail "no pkgconfig/mcf.pc installed under $prefix"
# the Python package beside the program (python/install_python.cmake), naming that program
paths=$(find "$prefix" -path '*/mcf/_paths.py' -print | head -n 1)
[ -n "$paths" ] || fail "no Python package mcf (mcf/_paths.py) installed under $prefix"
grep -qF "PROGRAM = \"$mcf\"" "$paths" || fail "$paths does not name $mcf: $(cat "$paths")"
. "$src/tests/hdf5/h5py_python.sh"
py=$(h5py_python)
if [ -n "$py" ]; then
    found=$(cd "$scratch" && env -u MCF_PROGRAM PYTHONPATH="$(dirname "$(dirname "$paths")")" \
            "$py" -c 'import mcf; print(mcf.program())') || fail "the installed package does not import"
    [ "$found" = "$mcf" ] || fail "the installed package's mcf.program() is $found, not $mcf"
    echo "   Python package: $(dirname "$paths"), mcf.program() = $found"
fi
echo "   mcf: $mcf"
echo "   CMake package: $config"
echo "   pkg-config file: $pc"
libdir=$(dirname "$(find "$prefix" -name 'libmcf.so*' -print | head -n 1)")

# steps 2 to 6 (and 8, 9): the default part only; the long part goes on with step 7
if [ -z "$part" ]; then

# ---------------------------------------------------------------------------------------
step "2a. build examples/plugin-xy with CMake and find_package(mcf)"
xy_cmake=$scratch/xy-cmake
gen_args=()
[ -n "${MCF_CMAKE_GENERATOR:-}" ] && gen_args=(-G "$MCF_CMAKE_GENERATOR")
cc_args=()
[ -n "${MCF_C_COMPILER:-}" ] && cc_args=(-DCMAKE_C_COMPILER="$MCF_C_COMPILER")
run "$scratch/xy-cmake-configure.log" "$cmake_cmd" -S "$src/examples/plugin-xy" \
    -B "$xy_cmake" "${gen_args[@]}" "${cc_args[@]}" -DCMAKE_PREFIX_PATH="$prefix"
run "$scratch/xy-cmake-build.log" "$cmake_cmd" --build "$xy_cmake"
[ -f "$xy_cmake/mcf-xy.so" ] || fail "the CMake build wrote no $xy_cmake/mcf-xy.so"

# ---------------------------------------------------------------------------------------
step "2b. build examples/plugin-xy with make and pkg-config"
xy_make=$scratch/xy-make
builds=("$xy_cmake")
if ! command -v "$make_cmd" >/dev/null 2>&1; then
    echo "   skipped: '$make_cmd' not found"
elif ! command -v "$pkg_config_cmd" >/dev/null 2>&1; then
    echo "   skipped: '$pkg_config_cmd' not found"
else
    pcdir=$(dirname "$pc")
    export PKG_CONFIG_PATH=$pcdir
    "$pkg_config_cmd" --exists mcf || fail "pkg-config does not find mcf with PKG_CONFIG_PATH=$pcdir"
    incdir=$("$pkg_config_cmd" --variable=includedir mcf)
    real_incdir=$(cd "$incdir" 2>/dev/null && pwd -P)
    real_prefix_inc=$(cd "$prefix/include" && pwd -P)
    if [ "$real_incdir" != "$real_prefix_inc" ]; then
        fail "mcf.pc gives includedir=$incdir, but the SDK was installed under $prefix: mcf.pc is not relocatable. core/cmake/mcf.pc.in should derive prefix from \${pcfiledir} (e.g. prefix=\${pcfiledir}/../.. for libdir lib) rather than hard-code CMAKE_INSTALL_PREFIX."
    fi
    make_args=(BUILD="$xy_make" PKG_CONFIG="$pkg_config_cmd")
    [ -n "${MCF_C_COMPILER:-}" ] && make_args+=(CC="$MCF_C_COMPILER")
    run "$scratch/xy-make.log" "$make_cmd" -C "$src/examples/plugin-xy" "${make_args[@]}"
    [ -f "$xy_make/mcf-xy.so" ] || fail "make wrote no $xy_make/mcf-xy.so"
    unset PKG_CONFIG_PATH
    builds+=("$xy_make")
fi

# ---------------------------------------------------------------------------------------
step "3. the installed mcf lists xy from each build, and its own models without help"
for dir in "${builds[@]}"; do
    MCF_PLUGIN_PATH=$dir run "$scratch/plugins.log" "$mcf" plugins
    awk '$1 == "xy" { found = 1 } END { exit found ? 0 : 1 }' "$scratch/plugins.log" ||
        { cat "$scratch/plugins.log" >&2; fail "'mcf plugins' with MCF_PLUGIN_PATH=$dir does not list xy"; }
    MCF_PLUGIN_PATH=$dir run "$scratch/describe.log" "$mcf" describe xy
    grep -qF "$dir/mcf-xy.so" "$scratch/describe.log" ||
        { cat "$scratch/describe.log" >&2; fail "'mcf describe xy' did not load $dir/mcf-xy.so"; }
    grep -q "step" "$scratch/describe.log" ||
        { cat "$scratch/describe.log" >&2; fail "'mcf describe xy' does not show the parameter 'step'"; }
    echo "   xy found in $dir"
done
run "$scratch/plugins-installed.log" "$mcf" plugins
awk '$1 == "ising" { found = 1 } END { exit found ? 0 : 1 }' "$scratch/plugins-installed.log" ||
    { cat "$scratch/plugins-installed.log" >&2; fail "the installed mcf does not find the installed model ising (in <prefix>/lib/mcf) without MCF_PLUGIN_PATH"; }

# ---------------------------------------------------------------------------------------
step "4. a short XY scan with the installed program"
out=$scratch/xy-short.out
cat >"$scratch/xy-short.ini" <<EOF
[run]
model = xy
seed = 11
output = $out
threads = 2
[schedule]
thermalize = 100
sweeps = 300
measure_every = 1
checkpoint_every = 100
temperatures = 0.6:1.2:4
[model]
L = 8
EOF
MCF_PLUGIN_PATH=$xy_cmake run "$scratch/xy-run.log" "$mcf" run "$scratch/xy-short.ini"
results=$out/results.tsv
[ -f "$results" ] || fail "the run wrote no $results"
header_has "$results" energy || { head -n 20 "$results" >&2; fail "$results has no 'energy' column"; }
header_has "$results" energy_err || fail "$results has no 'energy_err' column"
header_has "$results" T || header_has "$results" temperature ||
    echo "   note: no column named T or temperature in the header"
rows=$(data_rows "$results")
[ "$rows" = 4 ] || { cat "$results" >&2; fail "$results has $rows data rows; expected 4, one per temperature"; }
echo "   $results: energy column, $rows rows"
if [ -n "$py" ]; then  # examples/plugin-xy's output through the installed Python package
    loaded=$(PYTHONPATH="$(dirname "$(dirname "$paths")")" "$py" -c "import mcf, sys
r = mcf.load(sys.argv[1]); print(r.attrs['model'], r.n_points, len(r['energy_err']))" "$out") ||
        fail "the installed Python package does not load $out"
    [ "$loaded" = "xy 4 4" ] || fail "mcf.load($out) gave '$loaded', expected 'xy 4 4'"
    echo "   mcf.load($out): model xy, 4 rows"
fi

if command -v gnuplot >/dev/null 2>&1; then
    rm -f "$out"/plot-*.svg
    run "$scratch/xy-plot.log" "$mcf" plot "$out"
    [ -s "$out/plot-energy.svg" ] || fail "'mcf plot $out' wrote no plot-energy.svg"
    grep -q "<svg" "$out/plot-energy.svg" || fail "$out/plot-energy.svg is not an SVG file"
    echo "   mcf plot: $out/plot-energy.svg"
else
    echo "   gnuplot not installed: 'mcf plot' not checked"
fi

# ---------------------------------------------------------------------------------------
step "5. a program of one's own against the installed headers (factorized hoppings)"
[ -f "$src/tests/install/gauge.c" ] || fail "$src/tests/install/gauge.c not found"
# the build's own C flags: a sanitizer build's libmcf needs its runtime in the program
# shellcheck disable=SC2086
run "$scratch/gauge-build.log" "${MCF_C_COMPILER:-cc}" ${MCF_C_FLAGS:-} -std=c11 -Wall -Wextra \
    -Werror -I"$prefix/include" "$src/tests/install/gauge.c" -o "$scratch/gauge" \
    -L"$libdir" -lmcf -lm
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run "$scratch/gauge.log" "$scratch/gauge"
cat "$scratch/gauge.log"

# ---------------------------------------------------------------------------------------
step "6. a model of one's own with its own sweep op and a pair function (tests/install/gas.c)"
gasdir=$scratch/gas
mkdir -p "$gasdir"
# shellcheck disable=SC2086
run "$scratch/gas-build.log" "${MCF_C_COMPILER:-cc}" ${MCF_C_FLAGS:-} -std=c11 -Wall -Wextra \
    -Werror -fPIC -shared -I"$prefix/include" "$src/tests/install/gas.c" \
    -o "$gasdir/mcf-gas.so" -lm
cat >"$scratch/gas.ini" <<EOF
[run]
model = gas
seed = 5
walkers = 2
threads = 2
[schedule]
thermalize = 200
sweeps = 200000
[model]
N = 2
L = 4
A = 1
F = 0.5
step = 1.5
EOF
for by in false true; do
    MCF_PLUGIN_PATH=$gasdir run "$scratch/gas-$by.log" "$mcf" run "$scratch/gas.ini" \
        --set "run.output=$scratch/gas-$by" --set "model.own_sweep=$by"
done
cmp "$scratch/gas-false/results.tsv" "$scratch/gas-true/results.tsv" >/dev/null ||
    fail "the model's own sweep and the core's loop wrote different results.tsv"
echo "   the model's sweep and the core's loop: the same results.tsv"
# a plugin that says it needs a newer mcf is refused, naming both versions
mkdir -p "$gasdir/newer"
# shellcheck disable=SC2086
run "$scratch/gas-newer-build.log" "${MCF_C_COMPILER:-cc}" ${MCF_C_FLAGS:-} -std=c11 -Wall \
    -Wextra -Werror -fPIC -shared -I"$prefix/include" '-DGAS_NEEDS=MCF_VERSION_NUMBER(9, 0, 0)' \
    "$src/tests/install/gas.c" -o "$gasdir/newer/mcf-gas.so" -lm
if MCF_PLUGIN_PATH=$gasdir/newer "$mcf" run "$scratch/gas.ini" \
    --set "run.output=$scratch/gas-newer" >"$scratch/gas-newer.log" 2>&1; then
    fail "a plugin needing mcf 9.0.0 was loaded"
fi
grep -q "needs mcf 9.0.0 or newer; this is mcf $("$mcf" --version | awk '{ print $2; exit }')" \
    "$scratch/gas-newer.log" || { cat "$scratch/gas-newer.log" >&2
    fail "the refusal of a plugin needing mcf 9.0.0 does not name both versions"; }
echo "   a plugin needing mcf 9.0.0: refused, naming both versions"
# <u> = int_0^rc 4 pi r^2 u e^{2u} dr / (int_0^rc 4 pi r^2 e^{2u} dr + L^3 - 4 pi rc^3 / 3),
# rc = L / 2 (u = 0 beyond), by the midpoint rule on 200000 points (error ~1e-11)
awk -F'\t' '/^#/ || $1 == "point" { next } { print $2, $3; exit }' \
    "$scratch/gas-true/results.tsv" | awk '{
    L = 4; A = 1; F = 0.5; rc = L / 2; n = 200000; h = rc / n; pi = atan2(0, -1)
    for (k = 0; k < n; k++) {
        r = (k + 0.5) * h
        u = (1 - r / rc)^3 * (-(A / r) * (1 - exp(-r / F)))
        w = 4 * pi * r * r * exp(2 * u) * h
        num += u * w; den += w
    }
    exact = num / (den + L^3 - 4 * pi * rc^3 / 3)
    z = ($1 - exact) / $2
    printf "   <u> = %.6f +- %.6f, the integrals %.6f: %.2f error bars\n", $1, $2, exact, z
    exit (z > 4 || z < -4) ? 1 : 0 }' ||
    fail "<u> of two particles is more than 4 error bars from the radial integrals"
fi # steps 2 to 6

# ---------------------------------------------------------------------------------------
step "7. a fermion model of one's own (tests/install/falicov_kimball.c) against exact enumeration"
fkdir=$scratch/fk
mkdir -p "$fkdir"
# shellcheck disable=SC2086
run "$scratch/fk-build.log" "${MCF_C_COMPILER:-cc}" ${MCF_C_FLAGS:-} -std=c11 -Wall -Wextra \
    -Werror -fPIC -shared -I"$prefix/include" "$src/tests/install/falicov_kimball.c" \
    -o "$fkdir/mcf-falicov-kimball.so" -lm
# shellcheck disable=SC2086
run "$scratch/fk-exact-build.log" "${MCF_C_COMPILER:-cc}" ${MCF_C_FLAGS:-} -std=c11 -O2 \
    -Wall -Wextra -Werror -I"$prefix/include" "$src/tests/install/fk_exact.c" \
    -o "$fkdir/fk_exact" -L"$libdir" -lmcf -lm
# t = 1, U = 4, mu = mu_f = 2 (the model's defaults: half filling); fk_exact fails unless
# the specific heat's two exact forms (covariance, central difference) agree to 1e-8
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run "$fkdir/exact.tsv" \
    "$fkdir/fk_exact" L=4 0.15 0.3
# a sanitizer build (MCF_C_FLAGS with -fsanitize=, the third tree of .ci/run; its ed is ~5x
# slower) runs 4000 sweeps: the same 18 comparisons with ~2.2x their error bars, and leaves
# the 24 chains below to the main tree's install_sdk_long.  The default part (no PART) runs
# 1000 sweeps after 200 in either build: the columns held, the comparisons printed
fk_therm=1000 fk_sweeps=20000 sanitized="" hold=1
case "${MCF_C_FLAGS:-}" in *-fsanitize=*) fk_sweeps=4000 sanitized=1 ;; esac
[ -z "$part" ] && fk_therm=200 fk_sweeps=1000 hold=0
cat >"$fkdir/fk.ini" <<EOF
[run]
model = falicov-kimball
evaluator = ed
seed = 3
threads = 2
output = $fkdir/long
[schedule]
thermalize = $fk_therm
sweeps = $fk_sweeps
temperatures = 0.15, 0.3
[model]
L = 4
EOF
MCF_PLUGIN_PATH=$fkdir run "$fkdir/long.log" "$mcf" run "$fkdir/fk.ini"
# 2 temperatures x 9 columns = 18 comparisons of z = (mcf - exact) / (mcf's error), the
# error from ~32-64 blocks or 32 jackknife bins: z is close to Student's t with >= 31
# degrees of freedom, P(|z| > 4) ~ 4e-4, so all 18 pass for ~99 % of seeds, while a wrong
# formula or a factor of N or T is many error bars off.
awk -F'\t' -v hold=$hold \
    -v cols="energy abs_m m2 m4 density occupation specific_heat susceptibility binder" '
    FNR == 1 { header = 0; ex = (FILENAME == ARGV[1]) }
    /^#/ || /^[ \t]*$/ { next }
    !header { header = 1; for (i = 1; i <= NF; i++) col[ex, $i] = i; next }
    ex { rows++; for (i = 1; i <= NF; i++) exact[rows, i] = $i; next }
    {
        T = $col[0, "T"]; k = 0
        for (r = 1; r <= rows; r++)
            if (exact[r, col[1, "T"]] - T < 1e-9 && T - exact[r, col[1, "T"]] < 1e-9) k = r
        if (!k) { printf "   no exact row for T = %s\n", T; bad = 1; next }
        n = split(cols, c, " ")
        for (j = 1; j <= n; j++) {
            if (!((0, c[j]) in col) || !((0, c[j] "_err") in col) || !((1, c[j]) in col)) {
                printf "   column %s missing from results.tsv\n", c[j]; bad = 1; continue
            }
            x = $col[0, c[j]]; e = $col[0, c[j] "_err"]; xe = exact[k, col[1, c[j]]]
            z = e > 0 ? (x - xe) / e : 1e9
            printf "   T = %-5s %-15s mcf %11.6f +- %9.6f  exact %11.6f  %6.2f error bars%s\n",
                T, c[j], x, e, xe, z, hold ? "" : " (not held)"
            if (hold ? !(z <= 4 && z >= -4) : !(e > 0)) bad = 1
            compared++
        }
    }
    END { exit (bad || compared != 18) ? 1 : 0 }' "$fkdir/exact.tsv" "$fkdir/long/results.tsv" ||
    fail "falicov-kimball with ed: more than 4 error bars from the exact values (or, not held," \
        "no error), or no column"
[ "$hold" = 1 ] || echo "   not compared: the 18 columns against the exact values, a run of" \
    "$fk_sweeps sweeps (install_sdk_long: 20000 sweeps, and the 24 chains)"
# Are the error bars right?  R = 24 independent chains of 2048 sweeps at T = 0.15 (tau of
# abs_m ~3 sweeps): one run whose temperatures list T 24 times, each chain with its own
# random stream (seed, chain index) as 24 runs of different seeds would have, in a sixth of
# their time (a run draws its plots, ~1 s).  With sigma from n ~ 32 blocks, z = (x - exact)
# / sigma is ~ Student's t_nu, nu = n - 1 = 31: E z^2 = nu / (nu - 2), Var z^2 = 2 nu^2
# (nu - 1) / ((nu - 2)^2 (nu - 4)).  The mean of z^2 over the R chains is taken as a scaled
# chi^2_k with that mean mu and variance Var / R (k = 2 mu^2 R / Var z^2 = 21.6); its 0.1 %
# and 99.9 % quantiles (Wilson-Hilferty) give the window [0.33, 2.37]: error bars wrong by
# a factor ~1.6 either way fall outside; ~0.4 % false alarms for the two observables.
R=24
if [ -z "$part" ]; then
    echo "   the 24 chains' error bars: in install_sdk_long"
elif [ -n "$sanitized" ]; then
    echo "   the 24 chains' error bars: not in a sanitizer build (the same run as the main" \
         "tree's install_sdk_long, ~5x slower; the runs above went through the same code)"
else
cal_temps=$(printf '0.15, %.0s' $(seq 2 $R))0.15
MCF_PLUGIN_PATH=$fkdir run "$fkdir/cal.log" "$mcf" run "$fkdir/fk.ini" \
    --set "run.output=$fkdir/cal" --set schedule.thermalize=500 --set schedule.sweeps=2048 \
    --set "schedule.temperatures=$cal_temps"
awk -F'\t' -v R="$R" -v nu=31 '
    FNR == 1 { header = 0; ex = (FILENAME == ARGV[1]) }
    /^#/ || /^[ \t]*$/ { next }
    !header { header = 1; for (i = 1; i <= NF; i++) col[ex, $i] = i; next }
    ex { if ($col[1, "T"] == 0.15) { e0 = $col[1, "energy"]; m0 = $col[1, "abs_m"] }; next }
    $col[0, "T"] == 0.15 {
        z = ($col[0, "energy"] - e0) / $col[0, "energy_err"]; ze += z * z
        z = ($col[0, "abs_m"] - m0) / $col[0, "abs_m_err"]; zm += z * z
        chains++
    }
    END {
        mu = nu / (nu - 2); v = 2 * nu * nu * (nu - 1) / ((nu - 2) ^ 2 * (nu - 4))
        k = 2 * mu * mu * R / v; a = 2 / (9 * k)
        lo = mu * (1 - a - 3.090 * sqrt(a)) ^ 3; hi = mu * (1 - a + 3.090 * sqrt(a)) ^ 3
        printf "   %d chains at T = 0.15: mean z^2 of energy %.3f, of abs_m %.3f; " \
            "window [%.2f, %.2f]\n", chains, ze / R, zm / R, lo, hi
        exit (chains == R && ze / R >= lo && ze / R <= hi && zm / R >= lo && zm / R <= hi) ? 0 : 1
    }' "$fkdir/exact.tsv" "$fkdir/cal/results.tsv" ||
    fail "the error bars of falicov-kimball at T = 0.15 are off: mean z^2 outside its window"
fi

[ "$part" = long ] && { echo "== the long part's steps (1, 7) passed"; exit 0; }

# ---------------------------------------------------------------------------------------
step "8. a skeleton of one's own: mcf new-model, built with its CMakeLists.txt"
real_prefix=$(cd "$prefix" && pwd -P)
for kind in classical fermion; do
    name=skel-$kind
    kind_args=()
    [ $kind = fermion ] && kind_args=(--fermion)
    skel=$scratch/$name
    run "$scratch/$name-new.log" "$mcf" new-model "$name" "${kind_args[@]}" --dir "$skel"
    grep -qF -- "-DCMAKE_PREFIX_PATH=$real_prefix" "$scratch/$name-new.log" ||
        { cat "$scratch/$name-new.log" >&2; fail "mcf new-model does not name the prefix $real_prefix to build against"; }
    for f in "$name.c" CMakeLists.txt "$name.ini" README.md; do
        [ -s "$skel/$f" ] || fail "mcf new-model $name ${kind_args[*]} wrote no $skel/$f"
    done
    run "$scratch/$name-configure.log" "$cmake_cmd" -S "$skel" -B "$skel/build" "${gen_args[@]}" \
        "${cc_args[@]}" -DCMAKE_PREFIX_PATH="$prefix"
    run "$scratch/$name-build.log" "$cmake_cmd" --build "$skel/build"
    [ -f "$skel/build/mcf-$name.so" ] || fail "the skeleton's CMake build wrote no $skel/build/mcf-$name.so"
    cd "$skel" || fail "cannot enter $skel"
    MCF_PLUGIN_PATH=$skel/build run "$scratch/$name-run.log" "$mcf" run "$name.ini" --no-progress
    cd - >/dev/null || fail "cannot go back from $skel"
    results=$skel/$name.out/results.tsv
    [ -f "$results" ] || fail "mcf run $name.ini wrote no $results"
    want=$(awk -F= '/^[ \t]*temperatures[ \t]*=/ { v = $2; gsub(/[ \t]/, "", v)
        if (split(v, p, ":") == 3) print p[3]; else print split(v, q, ","); exit }' "$skel/$name.ini")
    rows=$(data_rows "$results")
    [ "$rows" = "$want" ] || { cat "$results" >&2; fail "$results has $rows data rows; $name.ini lists $want temperatures"; }
    echo "   $name ($kind): built with its CMakeLists.txt, $name.ini run as written: $rows rows"
done

step "9. a stranger's models (examples/stranger), built against the prefix, exact checks"
for name in blume-capel ssh-ising; do
    m=$scratch/stranger-$name
    rm -rf "$m" && cp -r "$src/examples/stranger/$name" "$m" || fail "cannot copy $name"
    run "$scratch/$name-configure.log" "$cmake_cmd" -S "$m" -B "$m/build" "${gen_args[@]}" \
        "${cc_args[@]}" -DCMAKE_PREFIX_PATH="$prefix"
    run "$scratch/$name-build.log" "$cmake_cmd" --build "$m/build"
    PATH=$prefix/bin:$PATH run "$scratch/$name-check.log" sh "$m/check.sh"
    echo "   $name: $(grep -c 'sigma' "$scratch/$name-check.log") comparisons; $(grep -E 'PASS|caught' \
        "$scratch/$name-check.log" | tr -s ' ' | tr '\n' ';')"
done

echo "== all steps passed"
exit 0
