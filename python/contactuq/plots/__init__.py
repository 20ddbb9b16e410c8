"""One module per kind of contactuq file; see contactuq.plot.

A figure that cannot be drawn (too few samples for what it shows, a statistic that came out
undefined) must not cost the others: draw each through `attempt`, which records the figure and
the reason in args.skipped, where the driver reports it."""


def attempt(args, figure, draw, *a, **kw):
    """draw(*a, **kw), or None when it raises: `figure: reason` is then appended to args.skipped.
    Without a list args.skipped (a module called directly, as in the tests) the error is raised."""
    skipped = getattr(args, "skipped", None)
    if skipped is None:
        return draw(*a, **kw)
    try:
        return draw(*a, **kw)
    except Exception as e:  # noqa: BLE001 - any failure of one figure; the driver names it
        from .style import plt

        plt.close("all")  # the half-drawn figure (figures are drawn one at a time)
        reason = " ".join(str(e).split()) or type(e).__name__
        skipped.append(f"{figure}: {reason}")
        return None
