"""NumPy port of the receptacle-pin model (Williams, SAND2015-20731, eqs. 1.1-1.93).

Written the way a Python user would: vectorised over the points of one curve. It is the
peer that bench/run_curve_peer.sh measures the C++ model against, and a second, independent
implementation that the benchmark cross-checks. Inputs and outputs are SI.
"""
import numpy as np


def _solve(A, B, C, theta0):
    """Root of A + B cos(t*) + C sin(t*) = 0 chosen by eqs. (1.92)-(1.93), returned as theta."""
    n = np.sign(C * np.cos(theta0))
    disc = C * C - (A * A - B * B)  # eq. (1.90)
    t = 2.0 * np.arctan2(-C + n * np.sqrt(np.maximum(disc, 0.0)), A - B) - theta0
    return np.remainder(t + np.pi, 2.0 * np.pi) - np.pi


def arm_curve(x, vnorm, p, d0, engage=True):
    """Forces and kinematics of one arm along displacements x (array) with v/vt = vnorm."""
    Rr, Rp, phi, Rt = p["Rr"], p["Rp"], p["phi"], p["Rt"]
    h, R, L, b, K, mu, th0 = p["h"], p["R"], p["L"], p["b"], p["K"], p["mu"], p["theta0"]
    a = Rt * np.cos(phi)                                   # (1.76)
    e = Rr - Rp                                            # (1.77)
    Lct = (Rr * np.cos(phi) - (a + e)) / np.sin(phi)       # (1.78)
    c = Rt + (Rr - Rt) * np.sin(phi) + Lct * np.cos(phi)   # (1.79)

    tcr = np.array([
        _solve(-h, b, -L, th0),                                  # (1.22)
        _solve(-h + (Rt + R) * np.cos(phi), b, -L, th0),         # (1.24)
        _solve((R + Rr) * np.cos(phi) - (h + e), b, -L, th0),    # (1.57)-(1.60)
        _solve(R + Rp - h, b, -L, th0),                          # (1.63)-(1.66)
    ])
    ts = tcr + th0
    dcr = np.array([
        b * np.sin(ts[0]) + L * np.cos(ts[0]) + R,                                   # (1.23)
        b * np.sin(ts[1]) + L * np.cos(ts[1]) + (Rt + R) * np.sin(phi) - Rt,         # (1.25)
        -c + (R + Rr) * np.sin(phi) + b * np.sin(ts[2]) + L * np.cos(ts[2]),         # (1.61)
        b * np.sin(ts[3]) + L * np.cos(ts[3]) - c,                                   # (1.67)
    ])

    d = d0 - x if engage else d0 + x                       # (1.8), (1.80)
    m = np.sign(np.cos(th0))
    theta = np.zeros_like(d)
    alpha = np.full_like(d, np.nan)
    Lmn = np.full_like(d, np.nan)
    Lmt = np.full_like(d, np.nan)

    I = (d <= dcr[0]) & (d > dcr[1])                       # pin tip
    dd = d[I]
    th = _solve(L * L + b * b + h * h + (Rt + dd) ** 2 - (Rt + R) ** 2,       # (1.14)
                -2 * (L * (Rt + dd) + b * h),                                 # (1.15)
                2 * (L * h - b * (Rt + dd)), th0)                             # (1.16)
    al = np.arccos(np.clip((L * np.sin(th + th0) - b * np.cos(th + th0) + h) / (Rt + R), -1, 1))  # (1.17)
    Lmn[I] = (Rt + dd) * np.cos(al) - h * np.sin(al)       # (1.20)
    Lmt[I] = (Rt + dd) * np.sin(al) + h * np.cos(al) - Rt  # (1.21)
    theta[I] = th
    alpha[I] = al

    I = (d <= dcr[1]) & (d > dcr[2])                       # pin cone
    dd = d[I]
    th = _solve(dd + Rt - (Rt + R) * np.sin(phi) + (h - a - R * np.cos(phi)) / np.tan(phi),  # (1.33)
                -(L + b / np.tan(phi)) + 0 * dd,                                          # (1.34)
                L / np.tan(phi) - b + 0 * dd, th0)                                        # (1.35)
    Lc = (h - a - R * np.cos(phi) - b * np.cos(th + th0) + L * np.sin(th + th0)) / np.sin(phi)  # (1.31)
    Lmn[I] = (dd + Rt - Rt * np.sin(phi)) * np.cos(phi) - (h - a) * np.sin(phi) + Lc           # (1.38)
    Lmt[I] = (dd + Rt) * np.sin(phi) + Rt * np.cos(phi) ** 2 - Rt + (h - a) * np.cos(phi)      # (1.39)
    theta[I] = th
    alpha[I] = phi                                          # (1.40)

    I = (d <= dcr[2]) & (d > dcr[3])                       # pin round
    dd = d[I]
    th = _solve((R + Rr) ** 2 - L * L - b * b - (dd + c) ** 2 - (h + e) ** 2,  # (1.48)
                2 * L * (dd + c) + 2 * b * (h + e),                            # (1.49)
                2 * b * (dd + c) - 2 * L * (h + e), th0)                       # (1.50)
    al = np.arccos(np.clip((L * np.sin(th + th0) - b * np.cos(th + th0) + h + e) / (R + Rr), -1, 1))  # (1.51)
    Lmn[I] = (dd + c) * np.cos(al) - (h + e) * np.sin(al)       # (1.54)
    Lmt[I] = (dd + c) * np.sin(al) + (h + e) * np.cos(al) - Rr  # (1.55)
    theta[I] = th
    alpha[I] = al

    I = d <= dcr[3]                                        # pin barrel
    theta[I] = tcr[3]                                       # (1.70)
    alpha[I] = 0.0                                          # (1.71)
    Lmn[I] = L * np.cos(ts[3]) + b * np.sin(ts[3])          # (1.72)
    Lmt[I] = h - Rp                                         # (1.73)

    theta = np.maximum(m * theta, 0.0) * m                  # (1.26)
    mud = mu * np.tanh(2.5 * vnorm)                         # (1.84)
    sgn = -1.0 if engage else 1.0
    with np.errstate(invalid="ignore"):
        Fn = np.where(theta != 0.0, K * theta / (Lmn + sgn * mud * Lmt), 0.0)  # (1.4), (1.81)
    Ft = mud * Fn                                           # (1.3)
    sa, ca = np.sin(np.nan_to_num(alpha)), np.cos(np.nan_to_num(alpha))
    if engage:
        Fx, Fy = -Fn * sa - Ft * ca, Fn * ca - Ft * sa      # (1.5), (1.6)
    else:
        Fx, Fy = Fn * sa - Ft * ca, Fn * ca + Ft * sa       # (1.82), (1.83)
    return dict(Fx=Fx, Fy=Fy, Fn=Fn, Ft=Ft, theta=theta, alpha=alpha, Lmn=Lmn, Lmt=Lmt,
                dcr=dcr, theta_cr=tcr)
