"""The figures' colours stay apart for colour-blind readers: the palette of plots/style.py under
simulated protanopia, deuteranopia and tritanopia, and no plots module with colours of its own."""
import itertools
import os
import re

import numpy as np
import pytest

from contactuq.plots import style

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOTS = os.path.join(ROOT, "python", "contactuq", "plots")

# Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation of color
# vision deficiency", IEEE TVCG 15(6): the matrices of severity 1.0 (dichromacy), applied to
# linear RGB.
VISION = {
    "normal": np.eye(3),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}

# Smallest CIE76 colour difference allowed between any two series colours, for every vision.
# A difference of about 2.3 is just noticeable between two large patches side by side; series
# are thin lines and small markers matched against a legend, for which noticeable differences
# grow several times (Stone, Szafir & Setlur 2014, "An engineering model for color difference as
# a function of size"). 15 asks for about six such steps. The palette of style.SERIES (Okabe-Ito)
# measures 26.4 for normal vision, 20.7 under protanopia, 17.9 under deuteranopia and 16.1 under
# tritanopia; matplotlib's former default tab10 falls to 4.6 under protanopia (orange and green)
# and 7.2 under deuteranopia.
MIN_DELTA_E = 15.0

# Smallest contrast of a series colour against the white background (WCAG 2 ratio): what keeps
# yellow (1.3:1, a line that almost vanishes) out of the series. The lightest series colours,
# orange and sky blue, measure 2.25 and 2.31.
MIN_CONTRAST = 2.0

_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                 [0.2126729, 0.7151522, 0.0721750],
                 [0.0193339, 0.1191920, 0.9503041]])  # linear sRGB -> CIE XYZ, D65


def _linear(colour):
    """Linear RGB of a matplotlib colour (sRGB)."""
    from matplotlib.colors import to_rgb

    c = np.asarray(to_rgb(colour), dtype=float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(rgb_linear):
    """CIELAB (D65 white) of a linear RGB triple."""
    t = (_XYZ @ rgb_linear) / (_XYZ @ np.ones(3))
    d = 6.0 / 29.0
    f = np.where(t > d ** 3, np.cbrt(t), t / (3 * d * d) + 4.0 / 29.0)
    return np.array([116.0 * f[1] - 16.0, 500.0 * (f[0] - f[1]), 200.0 * (f[1] - f[2])])


def _seen(colour, vision):
    return _lab(np.clip(VISION[vision] @ _linear(colour), 0.0, 1.0))


def _cycled():
    """The colours the figures cycle through: matplotlib's prop_cycle once style is imported."""
    import matplotlib

    return list(matplotlib.rcParams["axes.prop_cycle"].by_key()["color"])


def min_delta_e(colours, vision):
    """(smallest CIE76 difference, the pair) among `colours` as seen with `vision`."""
    labs = [_seen(c, vision) for c in colours]
    return min((float(np.linalg.norm(labs[i] - labs[j])), (colours[i], colours[j]))
               for i, j in itertools.combinations(range(len(colours)), 2))


def test_the_cycle_is_the_palette():
    cycled = _cycled()
    assert [c.lower() for c in cycled] == [c.lower() for c in style.SERIES]
    assert set(style.SERIES) <= set(style.OKABE_ITO.values())
    # After the colours, series differ by line style.
    looks = [style.series_style(k) for k in range(len(style.SERIES) * len(style.LINE_STYLES))]
    assert len(set(looks)) == len(looks)


@pytest.mark.parametrize("vision", list(VISION))
def test_series_colours_stay_apart(vision):
    cycled = _cycled()
    assert len(cycled) >= 6  # the figures' cases, models and laws need at least this many
    delta, pair = min_delta_e(cycled, vision)
    assert delta >= MIN_DELTA_E, f"{vision}: {pair[0]} and {pair[1]} differ by CIE76 {delta:.1f} only"


def test_the_simulation_tells_a_bad_palette():
    # tab10's orange and green look alike to a protanope: the check has teeth.
    delta, _ = min_delta_e(["#ff7f0e", "#2ca02c"], "protanopia")
    assert delta < 5.0


def test_series_colours_show_on_white():
    def luminance(colour):
        return float(np.dot([0.2126, 0.7152, 0.0722], _linear(colour)))

    for colour in _cycled():
        contrast = 1.05 / (luminance(colour) + 0.05)
        assert contrast >= MIN_CONTRAST, f"{colour}: contrast {contrast:.2f} against white"


def test_roles_come_from_the_palette():
    allowed = {c.lower() for c in style.OKABE_ITO.values()}
    for role, colour in style.COLOURS.items():
        grey = re.fullmatch(r"0?\.\d+|[01](\.0*)?", colour) is not None
        assert colour.lower() in allowed or grey, f"role {role}: {colour} is not in the palette"


def test_impact_laws_differ_in_more_than_colour():
    from contactuq.plots import impact

    styles = impact._law_styles(30)
    assert len({(c, ls) for c, ls, _ in styles}) == 30
    assert len({c for c, _, _ in styles}) == len(style.SERIES)


def _modules():
    names = sorted(n for n in os.listdir(PLOTS) if n.endswith(".py"))
    assert "style.py" in names and len(names) > 5
    return names


# Colours of matplotlib's tableau palette, by name ("tab:red") or as a colormap (tab10, tab20...).
_TABLEAU = re.compile(r"""["']tab:[a-z]+["']|\btab(10|20[bc]?)\b""")


@pytest.mark.parametrize("name", _modules())
def test_no_hard_coded_tableau_colours(name):
    with open(os.path.join(PLOTS, name), encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = [f"{name}:{i}: {line.strip()}" for i, line in enumerate(lines, 1) if _TABLEAU.search(line)]
    assert not found, "colours outside the palette of style.py:\n" + "\n".join(found)


@pytest.mark.parametrize("name", _modules())
def test_one_text_helper(name):
    # Byte strings of h5py are decoded by contactuq._text / _texts, not by copies in each module.
    with open(os.path.join(PLOTS, name), encoding="utf-8") as f:
        source = f.read()
    assert not re.search(r"^def _texts?\(", source, re.MULTILINE), f"{name} defines its own _text"
