#!/usr/bin/env python3
"""Exact E/N and <s^2> of the periodic Blume-Capel chain of L sites from the 3x3 transfer
matrix: Z = Tr T^L, T(s,s') = exp(-[-J s s' + D (s^2+s'^2)/2 - h (s+s')/2] / T).
usage: exact.py L J D h T..."""
import math, sys

def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]

def exact(L, J, D, h, T):
    sp = (-1, 0, 1)
    bond = [[-J * s * t + D * (s * s + t * t) / 2 - h * (s + t) / 2 for t in sp] for s in sp]
    Tm = [[math.exp(-bond[i][j] / T) for j in range(3)] for i in range(3)]
    P = [[float(i == j) for j in range(3)] for i in range(3)]
    for _ in range(L - 1):
        P = mul(P, Tm)                                  # T^(L-1)
    Z = sum(mul(P, Tm)[i][i] for i in range(3))
    # E/N = <bond energy of (s0, s1)>: Tr(A T^(L-1)) / Z, A = T o bond
    A = [[Tm[i][j] * bond[i][j] for j in range(3)] for i in range(3)]
    e = sum(mul(A, P)[i][i] for i in range(3)) / Z
    Q = [[Tm[i][j] * sp[i] ** 2 for j in range(3)] for i in range(3)]
    q = sum(mul(Q, P)[i][i] for i in range(3)) / Z
    return e, q

if __name__ == "__main__":
    L = int(sys.argv[1]); J, D, h = map(float, sys.argv[2:5])
    for T in map(float, sys.argv[5:]):
        print("%g %.12f %.12f" % ((T,) + exact(L, J, D, h, T)))
