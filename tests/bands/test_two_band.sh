#!/usr/bin/env bash
# test_two_band.sh — the two-band crystal (models/two-band) through `mcf band` with the tetra
# evaluator, against its closed form, and its refusal of a Monte Carlo run.
#
# On a chain (dims = 1) each band eps(k) = e0 - 2t cos k (e0 = -+gap/2) has the DOS per cell
# 1/(2 pi |t| sin k*) = 1/(pi sqrt(4t^2 - (E - e0)^2)), k* in (0, pi) the crossing
# E = eps(k*), and N(E) = k*/pi below E (t > 0; 1 - k*/pi for t < 0).  The tetra grid of
# kpoints = n is k_i = 2 pi i / n (shift 0, step h = 2 pi / n); on it the method interpolates
# each band linearly between grid points (the interval method), so:
#  - DOS: the interval [a, b] that holds k* contributes 1/(2 pi |slope|) with the secant's
#    slope (eps(b) - eps(a))/h = eps'(m) sin(h/2)/(h/2), m = (a + b)/2 (the cosine's identity
#    cos a - cos b = 2 sin m sin(h/2)).  At an energy whose k* is a midpoint m the method's
#    DOS is therefore the exact one times (h/2)/sin(h/2), to rounding (checked to 2e-9, the
#    table's 10 digits); anywhere else, with |m - k*| <= h/2, the ratio is
#    1/((cos d + cot k* sin d) sin(h/2)/(h/2)), off 1 by at most y + 2y^2 with
#    y = |cot k*| h/2 + h^2/6 (the first-order error of a piecewise constant DOS);
#  - N(E): the linear interpolant is within (h^2/8) max|eps''| = h^2 |t| / 4 of eps, which
#    moves each of the two crossings by at most h^2 / (8 sin k*): |N - N_exact| <=
#    h^2 / (8 pi sin k*) = pi / (2 n^2 sin k*) (plus 1e-9 for the table's digits);
#  - the band energy at mu in the gap: the valence band filled, e = the grid's average of
#    eps_v = -gap/2 - 2 t_v (1/n) sum_i cos(2 pi i / n) = -gap/2 exactly (the cosine sums to
#    0 over the grid; Bloechl's correction vanishes with mu outside every interval), so to
#    rounding (1e-10); electrons 1; omega = e - mu.  Below the bands n = e = 0; above them
#    n = 2 and e = the average of eps_v + eps_c = 0.  N = 2 above the bands: the DOS per
#    cell integrates to 2 (two orbitals, one site).
#  - no v-c hopping: at a valence energy the orbital DOS is all orbital 0, at a conduction
#    one all orbital 1.
# Checked for the defaults (gap 3, t_v = -0.25, t_c = 0.5: bands [-2, -1] and [0.5, 2.5],
# the gap direct at k = 0) and for gap 4, t_v = 0.3, t_c = -0.7 (signs swapped: a missing
# factor or sign shows); on the square and cubic lattices (gap 6, the default hoppings) N = 2
# above the bands and e = -3 at mu in the gap.  Refusals (exit status 2): `mcf run` of the
# model (no classical field), leaving no output folder, and an unknown state.
# usage: test_two_band.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/two_band
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
rows() { grep -v '^#' "$1" | tail -n +2; } # a table's rows without the header

cat > chain.ini <<'EOF'
[run]
model = two-band
[band]
states = crystal
[model]
dims = 1
[evaluator]
kpoints = 240
EOF

# chain NAME GAP T_V T_C MU1 MU2 MU3 (three mu in the gap)
chain() {
  local name=$1 gap=$2 tv=$3 tc=$4 n=240
  # the energies: per band, k* at the midpoints of intervals 20, 59, 100 and at 0.9, 1.3,
  # 2.2; columns E, band, k*, midpoint (1/0); with one energy below and one above the bands.
  # E has 8 digits (config.ini's lines are short): a midpoint's E stays inside its interval,
  # where the method's DOS is constant, and elsewhere k* is the rounded E's
  awk -v gap="$gap" -v tv="$tv" -v tc="$tc" -v n=$n 'BEGIN { pi = atan2(0, -1)
      split("20 59 100", mid, " "); split("0.9 1.3 2.2", gen, " ")
      for (a = 0; a < 2; a++) {
        e0 = a ? gap / 2 : -gap / 2; t = a ? tc : tv
        for (j = 1; j <= 3; j++) {
          k = 2 * pi * (mid[j] + 0.5) / n; printf "%.8g\t%d\t%.17g\t1\n", e0 - 2 * t * cos(k), a, k
          k = gen[j]; printf "%.8g\t%d\t%.17g\t0\n", e0 - 2 * t * cos(k), a, k
        } }
      printf "-9\t-1\t0\t0\n9\t2\t0\t0\n" }' | sort -g > "$name.spec"
  local energies
  energies=$(cut -f1 "$name.spec" | paste -sd, -)
  if "$mcf" band chain.ini --set run.output="$name.out" --set model.gap="$gap" \
       --set model.t_v="$tv" --set model.t_c="$tc" --set "band.energies=$energies" \
       --set "band.mu=-9, $5, $6, $7, 9" > "$name.txt" 2> "$name.err"
  then ok "$name: mcf band ran"
  else bad "$name: mcf band failed"; cat "$name.err"; return; fi
  paste "$name.spec" <(rows "$name.out/dos-crystal.tsv") > "$name.dos"
  # columns: E band k* mid | E dos idos dos_orbital_0 dos_orbital_1
  if [ "$(wc -l < "$name.dos")" = 14 ] &&
     awk -F'\t' -v gap="$gap" -v tv="$tv" -v tc="$tc" -v n=$n -v what="$name" '
      function abs(x) { return x < 0 ? -x : x }
      BEGIN { pi = atan2(0, -1); h = 2 * pi / n; bad = 0 }
      {
        E = $1; a = $2; k = $3; dos = $6; idos = $7; o0 = $8; o1 = $9
        if (abs($5 - E) > 1e-9 * (abs(E) + 1)) {
          print what ": row", NR, "E", $5, "want", E; bad = 1 }
        if (a < 0 || a > 1) {
          want = a < 0 ? 0 : 2
          if (abs(idos - want) > 1e-12 || dos != 0) {
            print what ": E", E, "N", idos, "rho", dos; bad = 1 }
          next
        }
        t = a ? tc : tv
        if ($4 == 0) { c = ((a ? gap / 2 : -gap / 2) - E) / (2 * t); k = atan2(sqrt(1 - c * c), c) }
        s = sin(k); c = cos(k)
        exact = 1 / (2 * pi * abs(t) * s)
        if ($4 == 1) { want = exact * (h / 2) / sin(h / 2); tol = 2e-9 * want }
        else { want = exact; y = abs(c / s) * h / 2 + h * h / 6; tol = (y + 2 * y * y) * exact }
        if (abs(dos - want) > tol) {
          print what ": E", E, "rho", dos, "want", want, "tolerance", tol; bad = 1 }
        Nb = t > 0 ? k / pi : 1 - k / pi
        Nw = a + Nb; tolN = pi / (2 * n * n * s) + 1e-9
        if (abs(idos - Nw) > tolN) {
          print what ": E", E, "N", idos, "want", Nw, "tolerance", tolN; bad = 1 }
        own = a ? o1 : o0; other = a ? o0 : o1
        if (abs(own - dos) > 1e-9 * dos || abs(other) > 1e-12) {
          print what ": E", E, "orbital DOS", o0, o1, "of", dos; bad = 1 }
        if (dev[$4] < abs(dos / want - 1)) dev[$4] = abs(dos / want - 1)
      }
      END { if (!bad) printf "%s: rho(E) / its interval-method value - 1: %.2g at " \
                             "midpoints, %.2g elsewhere\n", what, dev[1], dev[0]
            exit bad }' "$name.dos"
  then ok "$name: DOS and N(E) of both bands against the closed form, N = 0 below and 2 above"
  else bad "$name: DOS"; cat "$name.dos"; fi
  rows "$name.out/bands.tsv" > "$name.bands"
  # columns: state mu electrons energy grand_potential
  if [ "$(wc -l < "$name.bands")" = 5 ] && awk -F'\t' -v gap="$gap" -v what="$name" '
      function abs(x) { return x < 0 ? -x : x }
      { mu = $2; n = mu < -5 ? 0 : mu > 5 ? 2 : 1; e = n == 1 ? -gap / 2 : 0
        if ($1 != "crystal" || abs($3 - n) > 1e-10 || abs($4 - e) > 1e-10 ||
            abs($5 - (e - mu * n)) > 1e-10) { print what ": mu", mu, "n", $3, "e", $4, "omega", $5,
            "want", n, e, e - mu * n; bad = 1 } }
      END { exit bad }' "$name.bands"
  then ok "$name: band energy -gap/2 = $(awk -v g="$gap" 'BEGIN { print -g / 2 }') with mu" \
          "in the gap, 1 electron; 0 below, 2 above"
  else bad "$name: bands.tsv"; cat "$name.bands"; fi
}

chain defaults 3 -0.25 0.5 -0.9 -0.25 0.4
chain swapped 4 0.3 -0.7 -1 -0.4 0.5

# square and cubic lattices: the gap 6 keeps the bands apart (with gap 3 they touch at
# k = 0 in 2D, eps_v(0) = eps_c(0) = -1/2, and overlap in 3D)
for d in 2 3; do
  if "$mcf" band chain.ini --set run.output=d$d.out --set model.dims=$d --set model.gap=6 \
       --set evaluator.kpoints=16 --set "band.energies=-9, -0.75, 9" \
       --set "band.mu=-0.75" > d$d.txt 2> d$d.err &&
     rows d$d.out/dos-crystal.tsv | awk -F'\t' 'function abs(x) { return x < 0 ? -x : x }
       { want = NR == 1 ? 0 : NR == 2 ? 1 : 2; if (abs($3 - want) > 1e-12 || $2 != 0) exit 1 }' &&
     rows d$d.out/bands.tsv | awk -F'\t' 'function abs(x) { return x < 0 ? -x : x }
       { if (abs($3 - 1) > 1e-10 || abs($4 + 3) > 1e-10) exit 1 }'
  then ok "dims = $d: N = 0, 1, 2 below, in the gap, above; e = -3 at mu = -0.75"
  else bad "dims = $d"; cat d$d.err; cat d$d.out/dos-crystal.tsv d$d.out/bands.tsv; fi
done

# refusals
printf '[run]\nmodel = two-band\noutput = run.out\n[schedule]\ntemperatures = 1\nsweeps = 100\n' \
  > run.ini
"$mcf" run run.ini > run.txt 2> run.err; rc=$?
want="two-band: no classical field to sample; it is a crystal for \`mcf kbe\` (real-time"
want="$want dynamics) and \`mcf band\` (its DOS)"
if [ $rc = 2 ] && grep -qF "$want" run.err
then ok "mcf run refused (exit 2): no classical field"
else bad "mcf run: exit $rc, expected 2 with the model's message"; cat run.err; fi
[ ! -e run.out/results.tsv ] && ok "the refused run wrote no results" || bad "run.out/results.tsv"
"$mcf" band chain.ini --set run.output=x.out --set band.states=ferro > x.txt 2> x.err; rc=$?
if [ $rc = 2 ] && grep -q "two-band knows the state crystal" x.err
then ok "mcf band refuses the state ferro (exit 2), naming crystal"
else bad "state ferro: exit $rc"; cat x.err; fi

echo "$passed passed, $fail failed"
[ $fail = 0 ]
