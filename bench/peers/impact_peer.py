#!/usr/bin/env python3
"""SciPy peer of bench/impact_bench.cpp: the same single impact with scipy.integrate.solve_ivp.

A 10 mm AISI 1045 steel sphere (E = 205 GPa, nu = 0.29, sigma_y = 530 MPa, rho = 7870 kg/m^3)
on a flat of the same steel at 1 m/s; m delta'' = -F(delta, delta'), loading until delta' = 0
(terminal event), unloading until the law lets go (terminal event), rtol 1e-10 and atol 1e-12 of
the state scales, as in the C++ benchmark. Laws: Hertz (Brake 2014 eq. 13) and Thornton
(eqs. 37-42). Prints one line per law: law, method, restitution, impacts per second.
Written for this comparison from the equations; single thread.
"""
import math
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

E1, NU1, SIGMA_Y, RHO, R = 205e9, 0.29, 530e6, 7870.0, 0.01
E = 1.0 / (2 * (1 - NU1**2) / E1)           # effective modulus, steel on steel
MASS = RHO * 4.0 / 3.0 * math.pi * R**3      # sphere on a fixed flat
K = 4.0 / 3.0 * E * math.sqrt(R)             # Hertz stiffness
RTOL, ATOL_FRACTION = 1e-10, 1e-12


class Hertz:
    name = "hertz"

    def reset(self):
        pass

    def loading(self, d):
        return K * d**1.5 if d > 0 else 0.0

    def commit_peak(self, d):
        pass

    def unloading(self, d):
        return self.loading(d)

    def residual(self):
        return 0.0


class Thornton:
    name = "thornton"
    dy = (math.pi * SIGMA_Y / (2 * E))**2 * R                    # eq. (37)
    fy = 4.0 / 3.0 * E * math.sqrt(R) * dy**1.5                  # eq. (38)

    def reset(self):
        self.rbar, self.dbar = R, 0.0

    def loading(self, d):
        if d <= 0:
            return 0.0
        if d <= self.dy:
            return K * d**1.5
        return self.fy + math.pi * SIGMA_Y * R * (d - self.dy)  # eq. (39)

    def commit_peak(self, dm):
        fm = self.loading(dm)
        if dm <= self.dy:
            self.rbar, self.dbar = R, 0.0
        else:
            self.rbar = R * K * dm**1.5 / fm                    # eq. (40)
            self.dbar = dm - (3 * fm / (4 * E * math.sqrt(self.rbar)))**(2.0 / 3.0)  # eq. (41)

    def unloading(self, d):
        x = d - self.dbar
        return 4.0 / 3.0 * E * math.sqrt(self.rbar) * x**1.5 if x > 0 else 0.0  # eq. (42)

    def residual(self):
        return self.dbar


def overlap_scale(law, v0):
    # Where F(delta) delta = m v0^2, as the C++ simulator estimates it.
    lo, hi = -15.0, 0.0
    for _ in range(10):
        mid = 0.5 * (lo + hi)
        d = 10.0**mid
        if law.loading(d) * d >= MASS * v0 * v0:
            hi = mid
        else:
            lo = mid
    return 10.0**hi


def impact(law, v0, method):
    law.reset()
    atol = [ATOL_FRACTION * overlap_scale(law, v0), ATOL_FRACTION * v0]

    def loading_rhs(t, y):
        return [y[1], -law.loading(y[0]) / MASS]

    def peak(t, y):
        return y[1]
    peak.terminal, peak.direction = True, -1

    a = solve_ivp(loading_rhs, (0.0, 1.0), [0.0, v0], method=method, events=peak,
                  rtol=RTOL, atol=atol)
    t_peak, (dm, rate) = a.t_events[0][0], a.y_events[0][0]
    law.commit_peak(dm)

    def unloading_rhs(t, y):
        return [y[1], -law.unloading(y[0]) / MASS]

    def release(t, y):
        return y[0] - law.residual()
    release.terminal, release.direction = True, -1

    b = solve_ivp(unloading_rhs, (t_peak, t_peak + 1.0), [dm, rate], method=method,
                  events=release, rtol=RTOL, atol=atol)
    return -b.y_events[0][0][1] / v0


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    methods = sys.argv[2].split(",") if len(sys.argv) > 2 else ["DOP853", "RK45", "LSODA"]
    for law in (Hertz(), Thornton()):
        for method in methods:
            e = impact(law, 1.0, method)  # warm-up, and the value reported
            start = time.perf_counter()
            for _ in range(repeats):
                impact(law, 1.0, method)
            rate = repeats / (time.perf_counter() - start)
            print(f"{law.name} {method} {e:.10f} {rate:.3f}")


if __name__ == "__main__":
    main()
