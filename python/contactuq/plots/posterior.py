"""Files of format "contactuq-posterior" (method "bayesian"): the figures are drawn by
contactuq.plots.bayesian."""

from .bayesian import plot  # noqa: F401
