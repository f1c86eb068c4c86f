"""The jackknife of the stored bins (mcf.Run.jackknife, .derived) against the core's derived
columns, bit for bit, on runs that exercise every path: walkers, measure_every not a power
of 2 (tau in measurements), parallel tempering, the general weight's specific heat
(holstein), xi/L (the model's L); and the two formulas against independent computations."""
import math
import random
import subprocess

import numpy as np
import pytest

import mcf
from mcf import stats


def run_config(program, text, out):
    with open(f"{out}.ini", "w") as fh:
        fh.write(text)
    subprocess.run([program, "run", f"{out}.ini", "--no-plots", "--no-progress"], check=True,
                   capture_output=True)
    return mcf.load(out)


def assert_derived_bits(run, names):
    tsv = mcf.read_tsv(f"{run.path}/results.tsv")
    checked = 0
    for name in names:
        if name not in run:
            continue
        value, error = run.derived(name)
        for k in range(run.n_points):
            assert value[k] == run[name][k] or (math.isnan(value[k]) and math.isnan(run[name][k]))
            e, ec = error[k], run[f"{name}_err"][k]
            assert e == ec or (math.isnan(e) and math.isnan(ec)), (name, k, e, ec)
            # and the ten digits of results.tsv
            assert f"{value[k]:.10g}" == f"{tsv[name][k]:.10g}"
        checked += 1
    return checked


def test_linear_function_gives_weighted_mean_and_its_error():
    """For f linear the weighted jackknife is the weighted mean with the error
    sqrt(sum w_i (m_i - M)^2 / (n (W - w_i))) (core/engine/stats.c's header)."""
    rng = random.Random(5)
    means = [[rng.gauss(1.0, 0.3)] for _ in range(17)]
    weights = [float(rng.randint(5, 40)) for _ in range(17)]
    value, error = stats.jackknife(means, weights, lambda m: 3.0 * m[0] - 1.0)
    W = sum(weights)
    M = sum(w * m[0] for w, m in zip(weights, means)) / W
    expect = math.sqrt(sum(w * (m[0] - M) ** 2 / (W - w) for w, m in zip(weights, means)) / 17)
    assert value == pytest.approx(3.0 * M - 1.0, rel=1e-14)
    assert error == pytest.approx(3.0 * expect, rel=1e-12)
    with pytest.raises(ValueError, match="weights must be > 0"):
        stats.jackknife(means[:2], [1.0, 0.0], lambda m: m[0])


@pytest.mark.parametrize("tau,block,n", [(3.0, 8, 4), (10.0, 16, 8), (1.5, 4, 32)])
def test_block_factor_against_the_covariance_sum(tau, block, n):
    """F = Var(mean) / E[blocked variance of the mean] for AR(1) with rho from tau, computed
    here from the full covariance matrix rho^|i-j| (N = n x block values)."""
    rho = (2 * tau - 1) / (2 * tau + 1)
    N = n * block
    i = np.arange(N)
    C = rho ** np.abs(i[:, None] - i[None, :])
    var_mean = C.sum() / N**2
    A = np.zeros((n, N))                      # block means
    for k in range(n):
        A[k, k * block:(k + 1) * block] = 1.0 / block
    D = A - np.full((n, N), 1.0 / N)          # b_k - mean
    expected_s2 = np.trace(D @ C @ D.T) / (n * (n - 1))
    assert stats.block_factor(tau, float(block), float(n)) == pytest.approx(
        var_mean / expected_s2, rel=1e-10)
    assert stats.block_factor(0.5, float(block), float(n)) == 1.0


ISING = """[run]
model = ising
seed = 11
output = {out}
walkers = 2
threads = 1
[schedule]
thermalize = 300
sweeps = 3000
measure_every = 3
bins = 24
temperatures = 2.0, 2.27, 2.6
[model]
L = 6, 10
"""


def test_ising_walkers_and_measure_every_3(mcf_program, in_scratch, hdf5):
    run = run_config(mcf_program, ISING.format(out="ising.out"), "ising.out")
    assert run.attrs["measure_every"] == 3
    assert assert_derived_bits(run, ["specific_heat", "susceptibility", "binder"]) == 3


TEMPERING = """[run]
model = double-exchange
evaluator = kpm
seed = 9
output = {out}
threads = 1
[schedule]
thermalize = 40
sweeps = 400
exchange_every = 2
temperatures = 0.08, 0.12, 0.2
[model]
lattice = cubic
L = 2
boundary = open
mu = -0.7
hund = inf
[evaluator]
moments = 64
vectors = 0
"""


def test_double_exchange_with_tempering(mcf_program, in_scratch, hdf5):
    run = run_config(mcf_program, TEMPERING.format(out="de.out"), "de.out")
    assert assert_derived_bits(run, ["specific_heat", "susceptibility", "binder"]) == 3


HOLSTEIN = """[run]
model = holstein
evaluator = ed
seed = 4
output = {out}
threads = 1
[schedule]
thermalize = 50
sweeps = 600
temperatures = 0.1, 0.3
[model]
lattice = square
L = 3
"""


def test_general_weight_specific_heat(mcf_program, in_scratch, hdf5):
    run = run_config(mcf_program, HOLSTEIN.format(out="hol.out"), "hol.out")
    roles = run.roles()
    assert "energy_dT" in roles and "action_dT" in roles, roles
    assert assert_derived_bits(run, ["specific_heat"]) == 1


TC = """[run]
model = ising
seed = 12
threads = 1
output = {out}
[schedule]
thermalize = 200
sweeps = 1200
[tc]
sizes = 6, 8
temperatures = 2.1:2.4:4
"""


def test_xi_over_l(mcf_program, in_scratch, hdf5):
    with open("tc.ini", "w") as fh:
        fh.write(TC.format(out="tc.out"))
    subprocess.run([mcf_program, "tc", "tc.ini", "--no-plots"], check=True, capture_output=True)
    run = mcf.load("tc.out")
    assert "xi_over_l" in run
    assert assert_derived_bits(run, ["xi_over_l", "binder", "susceptibility"]) == 3


def test_any_function_and_refusals(mcf_program, in_scratch, hdf5):
    run = run_config(mcf_program, ISING.format(out="ising.out"), "ising.out")
    # the ratio <m^2> / <|m|>^2 with the Point's values: finite, errors > 0
    r, e = run.jackknife(lambda m, m2, p: m2 / (m * m) + 0.0 * p.N, "abs_m", "m2")
    assert np.all(np.isfinite(r)) and np.all(e > 0)
    # the susceptibility written by hand equals the core's column
    chi, chi_err = run.jackknife(lambda m, m2, p: p.N * (m2 - m * m) / p.T, "abs_m", "m2")
    assert np.array_equal(chi, run["susceptibility"])
    assert np.array_equal(chi_err, run["susceptibility_err"])
    with pytest.raises(KeyError, match="not a scalar observable"):
        run.jackknife(lambda x: x, "no_such")
    with pytest.raises(KeyError, match="not a derived quantity"):
        run.derived("energy")
