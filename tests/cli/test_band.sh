#!/usr/bin/env bash
# `mcf band` (core/program/band.c, issue 19) end to end, with the tetra band evaluator:
#  - exact scaling: with infinite Hund coupling the canted state's Hamiltonian is cos(TH/2)
#    times canted:0's on the same cell and grid, so its corner energies, Fermi levels and
#    band energies at fixed density scale by cos(TH/2) exactly (to the root finder's
#    1e-13 of the band width and rounding);
#  - neel-g's flat band at 0: no electron below mu = 0, one per site above, omega = -mu n;
#  - the clean cubic lattice: the DOS symmetric in E, N(0) = 1/2 (the grid maps k to k + pi),
#    N = 1 above the band; bcc's band edges +-8t;
#  - phases.tsv: for mu <= 0 canted:0 has the lowest omega (omega_TH(mu) = c omega_0(mu/c)
#    and N is nondecreasing: N(E/c) <= N(E) for E < 0), ties below the band to the first;
#  - state configuration (chain 0 of a run, its L^d box as one cell): anderson's disorder
#    realization writes dos-configuration.tsv (27 sites, N from 0 to 1, no orbital columns),
#    the same bytes again at the same [run] seed and another DOS at another; a
#    double-exchange spins file of parallel spins has the ferromagnet's band range;
#  - refusals (exit status 2): a model without crystals, a fermion evaluator, a section of a
#    Monte Carlo run, a scan in [model], an unknown state, an existing output, a filling
#    beyond the bands; a configuration with boundary = open (naming the key), without the
#    [band] temperature its model needs, at temperature inf.
# usage: test_band.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/band
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
col() { # FILE NAME: column NAME of a table, one value per line
  grep -v '^#' "$1" | awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }'
}

cat > de.ini <<'EOF'
[run]
model = double-exchange
output = de.out
[band]
states = canted:0 canted:60 canted:120 neel-g
mu = -6:6:49
energies = -6.5:6.5:261
electrons = 0.1, 0.25, 0.4, 0.5, 0.7, 0.9
[evaluator]
kpoints = 12
EOF
if "$mcf" band de.ini > de.txt 2> de.err; then ok "double exchange: ran (exit 0)"
else bad "double exchange: failed"; cat de.err; fi

# canted:TH against canted:0 at every filling: mu and e scale by c = cos(TH/2)
for th in 60 120; do
  paste <(grep -P "^canted:0\t" de.out/fillings.tsv) <(grep -P "^canted:$th\t" de.out/fillings.tsv) > f$th.txt
  if [ "$(wc -l < f$th.txt)" = 6 ] && awk -v th=$th 'BEGIN { c = cos(th / 2 * 3.14159265358979323846 / 180) }
       { dm = $7 - c * $3; de = $8 - c * $4; if (dm < 0) dm = -dm; if (de < 0) de = -de
         if (dm > 1e-10 || de > 1e-10 * (($4 < 0 ? -$4 : $4) + 1e-300)) { print "n", $2, "mu", $3, $7, "e", $4, $8; exit 1 } }' f$th.txt
  then ok "canted:$th = cos($th/2) x canted:0: Fermi levels and band energies at 6 fillings (1e-10)"
  else bad "canted:$th does not scale canted:0's bands"; cat f$th.txt; fi
done

# neel-g: the flat band at 0
grep -P "^neel-g\t" de.out/bands.tsv > ng.txt
if [ "$(wc -l < ng.txt)" = 49 ] && awk -F'\t' '{ mu = $2; n = $3; om = $5
     want = mu < 0 ? 0 : (mu > 0 ? 1 : -1)
     if (want >= 0 && (n - want > 1e-12 || want - n > 1e-12)) exit 1
     if (mu > 0 && (om + mu > 1e-12 || -om - mu > 1e-12)) exit 1 }' ng.txt
then ok "neel-g: n = 0 below mu = 0, 1 per site above, omega = -mu"
else bad "neel-g's flat band"; cat ng.txt; fi

# phases: canted:0 for every mu <= 0
if awk -F'\t' '!/^#/ && NR > 2 && $1 <= 0 && $2 != "canted:0" { exit 1 }' de.out/phases.tsv &&
   grep -q "ground state among those asked for" de.txt
then ok "phases.tsv: canted:0 has the lowest omega for every mu <= 0"
else bad "phases.tsv"; grep -v '^#' de.out/phases.tsv | head -30; fi

# the clean lattice
cat > and.ini <<'EOF'
[run]
model = anderson
[band]
states = clean
energies = -7:7:281
[evaluator]
kpoints = 16
EOF
if "$mcf" band and.ini > and.txt 2> and.err && [ -f and.out/dos-clean.tsv ]; then
  ok "anderson clean: ran, output and.out/ named after the configuration"
  paste <(col and.out/dos-clean.tsv E) <(col and.out/dos-clean.tsv dos) <(col and.out/dos-clean.tsv idos) > c.txt
  if awk '{ E[NR] = $1; r[NR] = $2; N[NR] = $3 } END { n = NR
        for (i = 1; i <= n; i++) { d = r[i] - r[n + 1 - i]; if (d < 0) d = -d; if (d > 1e-12) exit 1 }
        for (i = 1; i <= n; i++) if (E[i] == 0 && (N[i] - 0.5 > 1e-12 || 0.5 - N[i] > 1e-12)) exit 2
        if (N[1] != 0 || N[n] - 1 > 1e-12 || 1 - N[n] > 1e-12) exit 3 }' c.txt
  then ok "clean cubic: rho(E) = rho(-E), N(0) = 1/2, N = 0 below and 1 above the band"
  else bad "clean cubic DOS ($?)"; fi
else bad "anderson clean failed"; cat and.err; fi
if "$mcf" band and.ini --set run.output=bcc.out --set model.lattice=bcc > bcc.txt 2>&1 &&
   grep -q "bands -8 .. 8" bcc.txt
then ok "clean bcc: bands -8t .. 8t"
else bad "bcc band edges"; cat bcc.txt; fi

# state configuration: chain 0 of a run at [run] seed, its L^d box as one cell
cat > conf.ini <<'EOF'
[run]
model = anderson
output = conf.out
seed = 5
[band]
states = configuration
energies = -8:8:161
[model]
lattice = cubic
L = 3
W = 4
typical_sites = 4
[evaluator]
kpoints = 2
EOF
if "$mcf" band conf.ini > conf.txt 2> conf.err && [ -f conf.out/dos-configuration.tsv ]; then
  ok "anderson configuration: ran, wrote dos-configuration.tsv"
  if grep -q "27 sites, 27 orbitals per cell" conf.out/dos-configuration.tsv &&
     [ "$(grep -v '^#' conf.out/dos-configuration.tsv | head -1)" = "$(printf 'E\tdos\tidos')" ] &&
     col conf.out/dos-configuration.tsv idos | awk 'NR == 1 && $1 != 0 { exit 1 } { last = $1 }
       END { if (last - 1 > 1e-12 || 1 - last > 1e-12) exit 1 }' &&
     grep -q "^seed = 5" conf.out/config.ini
  then ok "configuration: the 3^3 box as one cell, N from 0 to 1 per site, no orbital columns, seed in config.ini"
  else bad "dos-configuration.tsv"; head -3 conf.out/dos-configuration.tsv; fi
  cp conf.out/dos-configuration.tsv seed5.tsv
  "$mcf" band conf.ini --force > /dev/null 2>&1 && cmp -s seed5.tsv conf.out/dos-configuration.tsv &&
    ok "configuration: the same seed, the same bytes" || bad "configuration: not reproducible"
  "$mcf" band conf.ini --force --set run.seed=6 > /dev/null 2>&1 &&
    ! cmp -s seed5.tsv conf.out/dos-configuration.tsv &&
    ok "configuration: another seed, another realization" || bad "configuration: seed 6 = seed 5"
else bad "anderson configuration failed"; cat conf.err; fi
for i in $(seq 27); do echo "1 0 0"; done > parallel.txt
cat > spins.ini <<'EOF'
[run]
model = double-exchange
output = spins.out
[band]
states = configuration
temperature = 0.5
[model]
L = 3
spins = parallel.txt
[evaluator]
kpoints = 2
EOF
if "$mcf" band spins.ini > spins.txt 2>&1 &&
   grep -q "state configuration: 27 sites, 27 orbitals per cell, bands -6 .. 6" spins.txt
then ok "double exchange: a spins file of parallel spins has the ferromagnet's bands -6 .. 6"
else bad "double-exchange spins file"; cat spins.txt; fi

# refusals: exit status 2 and a message naming the problem
refused() { # NAME NEEDLE ARGS...
  local name=$1 needle=$2; shift 2
  "$mcf" band "$@" > r.out 2> r.err; local rc=$?
  if [ $rc = 2 ] && grep -q -- "$needle" r.err; then ok "refused: $name"
  else bad "$name: exit $rc, expected 2 with '$needle'"; cat r.err; fi
}
refused "a model without crystals" "describes no ideal states" and.ini --set run.model=ising --set run.output=x1
refused "a fermion evaluator" "not a band-evaluator" and.ini --set run.evaluator=kpm --set run.output=x2
printf '[schedule]\nsweeps = 10\n' > extra.ini
cat and.ini extra.ini > sched.ini
refused "a [schedule] section" "no section of a band calculation" sched.ini
refused "a scan in [model]" "one value per key" de.ini --set "model.hund=2, 4" --set run.output=x3
refused "an unknown state" "unknown state 'stripes'" de.ini --set band.states=stripes --set run.output=x4
refused "an existing output" "--force replaces it" de.ini
refused "a filling beyond the band" "electrons" and.ini --set band.electrons=1.5 --set run.output=x5
[ ! -e x5 ] && ok "a refused filling leaves no output folder (the tables are written together)" ||
  bad "x5 was written in part"
refused "a configuration with open boundaries" "\[model\] boundary = open" conf.ini \
  --set model.boundary=open --set run.output=x6
grep -v '^temperature' spins.ini > notemp.ini
refused "a configuration without the temperature its model needs" "no \[band\] temperature" \
  notemp.ini --set run.output=x7
refused "a configuration at temperature inf" "temperature = inf" spins.ini \
  --set band.temperature=inf --set run.output=x8
if "$mcf" band de.ini --force > /dev/null 2>&1; then ok "--force replaces an output"
else bad "--force"; fi

echo "$passed passed, $fail failed"
[ $fail = 0 ]
