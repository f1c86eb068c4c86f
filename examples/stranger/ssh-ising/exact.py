#!/usr/bin/env python3
"""Exact averages of ssh-ising on a periodic ring of 4 sites (4 bonds, 16 configurations):
for each sigma, the levels of the 4x4 hopping matrix (H_{b,b+1} = -t (1 + delta sigma_b)),
S_eff = -sum log(1 + e^{-(eps-mu)/T}), weight exp(-E_cl/T - S_eff), E_cl = -K sum_b
sigma_b sigma_{b+1}.  Per bond: energy (E_f + E_cl)/4, E_f = sum eps f(eps); density
N_f/4; m = sum_b (-1)^b sigma_b / 4 (|m|, m^2); specific heat d<energy>/dT at fixed mu.
usage: exact.py t delta K mu T...   prints: T energy density abs_m m2 bond specific_heat"""
import itertools, math, sys

def eigvalsh(a):  # cyclic Jacobi for a small real symmetric matrix
    a = [row[:] for row in a]; n = len(a)
    for _ in range(100):
        off = sum(a[i][j] ** 2 for i in range(n) for j in range(n) if i != j)
        if off < 1e-30: break
        for p in range(n):
            for q in range(p + 1, n):
                if abs(a[p][q]) < 1e-300: continue
                th = (a[q][q] - a[p][p]) / (2 * a[p][q])
                t = (1 if th >= 0 else -1) / (abs(th) + math.sqrt(th * th + 1))
                c = 1 / math.sqrt(t * t + 1); s = t * c
                for k in range(n):
                    akp, akq = a[k][p], a[k][q]
                    a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
                for k in range(n):
                    apk, aqk = a[p][k], a[q][k]
                    a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
    return sorted(a[i][i] for i in range(n))

def averages(t, delta, K, mu, T, L=4):
    acc = [0.0] * 6; Zs = []
    logw = []; obs = []
    for sg in itertools.product((1, -1), repeat=L):
        h = [[0.0] * L for _ in range(L)]
        for b in range(L):
            i, j = b, (b + 1) % L
            h[i][j] = h[j][i] = -t * (1 + delta * sg[b])
        eps = eigvalsh(h)
        f = [1 / (1 + math.exp((e - mu) / T)) for e in eps]
        S = -sum(math.log1p(math.exp(-(e - mu) / T)) if (e - mu) / T > -30 else -(e - mu) / T
                 for e in eps)
        ecl = -K * sum(sg[b] * sg[(b + 1) % L] for b in range(L))
        ef = sum(e * x for e, x in zip(eps, f))
        m = sum((-1) ** b * sg[b] for b in range(L)) / L
        logw.append(-ecl / T - S)
        obs.append(((ef + ecl) / L, sum(f) / L, abs(m), m * m, sum(sg) / L))
    top = max(logw); w = [math.exp(x - top) for x in logw]; Z = sum(w)
    return [sum(wi * o[q] for wi, o in zip(w, obs)) / Z for q in range(5)]

if __name__ == "__main__":
    t, delta, K, mu = map(float, sys.argv[1:5])
    for T in map(float, sys.argv[5:]):
        r = averages(t, delta, K, mu, T)
        dT = 1e-4 * T
        C = (averages(t, delta, K, mu, T + dT)[0] - averages(t, delta, K, mu, T - dT)[0]) / (2 * dT)
        print(" ".join("%.12g" % x for x in [T] + r + [C]))
