"""One look for every figure hscc draws: sizes, fonts, file formats, colours.

- Sizes (``--size``): ``column`` 3.5 × 2.6 in (one column of a two-column paper),
  ``wide`` 7.16 × 3 in (both columns), ``slide`` 10 × 5.625 in (16:9). The width is
  the size's; a figure of several rows of panels is taller than one panel (a slide's only
  beyond two rows).
- Format from the file's extension: .png, .pdf or .svg; anything else is refused
  (``FormatError``). Text stays text: TrueType fonts embedded in PDF, ``<text>``
  elements in SVG, so a figure can be edited and searched.
- Colour by algorithm (CTCP is always the same blue, Reno the same red, in every
  figure), line style by flow within an algorithm.
- Every drawn series is in the legend (``legend_gaps`` checks a figure).
"""

from __future__ import annotations

import io
import math
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not to name a size
    from matplotlib.figure import Figure

SIZES: dict[str, tuple[float, float]] = {
    "column": (3.5, 2.6),
    "wide": (7.16, 3.0),
    "slide": (10.0, 5.625),  # 16:9
}
DEFAULT_SIZE = "slide"  # what `hscc plot` and `hscc sweep` draw unless told
FONT_SIZES = {"column": 7.0, "wide": 8.0, "slide": 11.0}
FORMATS = (".png", ".pdf", ".svg")
DPI = 200  # PNG only; PDF and SVG are vector

RC: Any = {  # matplotlib's typed rcParams keys; a plain dict here
    "svg.fonttype": "none",  # text as <text>, not paths
    "pdf.fonttype": 42,  # TrueType embedded: selectable, editable text
    "ps.fonttype": 42,
    "axes.grid": True,
    "grid.color": "0.9",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "lines.linewidth": 1.2,
}

# Fixed per algorithm, so that a colour means the same algorithm in every figure.
ALGORITHM_COLOURS: dict[str, str] = {
    "reno": "#d62728",
    "ctcp": "#1f77b4",
    "ctcpla": "#17becf",
    "cubic": "#ff7f0e",
    "fit": "#2ca02c",
    "sync": "#8c564b",
    "fast": "#9467bd",
    "vegas": "#393b79",
    "htcp": "#e377c2",
    "bic": "#bcbd22",
    "highspeed": "#7f7f00",
    "scalable": "#aec7e8",
    "illinois": "#98df8a",
    "westwood": "#ff9896",
    "veno": "#c5b0d5",
    "hybla": "#e7ba52",
    "yeah": "#ad494a",
    "cdg": "#a55194",
    "nv": "#6b6ecf",
    "africa": "#c49c94",
    "multcp": "#f7b6d2",
    "bbr": "#2b8cbe",
    "bbr3": "#08519c",
    "dctcp": "#31a354",
    "lp": "#fdae6b",
    "ledbat": "#9e9ac8",
}
_SPARE = ["#555555", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d"]
LINE_STYLES: tuple[Any, ...] = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
CAPACITY_COLOUR = "black"
OTHER_TRAFFIC = ("#7f7f7f", "#b15928", "#6a3d9a", "#33a02c")  # UDP, VoIP, web, ...


class FormatError(ValueError):
    """An image file name whose extension is not .png, .pdf or .svg."""


class SizeError(ValueError):
    """A size that is not column, wide or slide."""


def file_format(path: str | Path) -> str:
    """ "png", "pdf" or "svg", from the file name; FormatError for any other extension."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise FormatError(
            f"{path}: the format is chosen by the extension; use .png, .pdf or .svg"
            + (f" (not {suffix})" if suffix else "")
        )
    return suffix[1:]


def check_size(size: str) -> str:
    if size not in SIZES:
        raise SizeError(f"size {size!r} is not known (one of: {', '.join(SIZES)})")
    return size


def figsize(size: str, rows: int = 1) -> tuple[float, float]:
    """The size's width; its height for one row of panels and 55 % of that more for each
    further row. A slide stays 16:9 up to two rows (a talk has no room for a taller figure)
    and grows 45 % for each row beyond."""
    width, height = SIZES[check_size(size)]
    if size == "slide":
        return width, height * (1 + 0.45 * max(0, rows - 2))
    return width, height * (1 + 0.55 * (rows - 1))


@contextmanager
def context(size: str = DEFAULT_SIZE) -> Iterator[None]:
    """matplotlib settings of the house style at `size`: draw and save inside it."""
    base = FONT_SIZES[check_size(size)]
    settings: Any = {
        **RC,
        "font.size": base,
        "axes.titlesize": base,
        "axes.labelsize": base,
        "xtick.labelsize": base - 1,
        "ytick.labelsize": base - 1,
        "legend.fontsize": base - 1,
        "figure.titlesize": base + 1,
    }
    import matplotlib as mpl

    with mpl.rc_context(settings):
        yield


def new_figure(size: str = DEFAULT_SIZE, rows: int = 1) -> Figure:
    """A figure at `size` (Agg canvas, no display), laid out by constrained layout."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize(size, rows), layout="constrained")
    FigureCanvasAgg(fig)
    # A notebook shows the figure as a PNG even where pyplot (and its inline backend) was
    # never imported: IPython asks the object for _repr_png_.
    setattr(fig, "_repr_png_", lambda: _notebook_png(fig))  # noqa: B010
    return fig


def _notebook_png(fig: Figure) -> bytes:
    import matplotlib as mpl

    buf = io.BytesIO()
    with mpl.rc_context(RC):
        fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def render(fig: Figure, fmt: str) -> bytes:
    """The figure as a file of format `fmt` ("png", "pdf" or "svg"), text kept as text."""
    import matplotlib as mpl

    buf = io.BytesIO()
    with mpl.rc_context(RC):
        fig.savefig(buf, format=fmt, dpi=DPI, metadata=_metadata(fmt))
    return buf.getvalue()


def _metadata(fmt: str) -> dict[str, Any]:
    # No creation date: the same run gives the same file.
    if fmt == "pdf":
        return {"CreationDate": None}
    if fmt == "svg":
        return {"Date": None}
    return {}


def _key(algorithm: str) -> str:
    """ "CTCP-LA", "ctcp_la" → "ctcpla": the table's spelling."""
    return algorithm.lower().replace("-", "").replace("_", "")


def known_algorithm(algorithm: str) -> bool:
    """Whether `algorithm` has a colour of its own (not a spare one)."""
    return _key(algorithm) in ALGORITHM_COLOURS


def algorithm_colour(algorithm: str) -> str:
    """The colour of `algorithm` (its name as in `hscc algorithms`, any case, with or without
    dashes); a stable spare one if unknown."""
    key = _key(algorithm)
    if key in ALGORITHM_COLOURS:
        return ALGORITHM_COLOURS[key]
    return _SPARE[zlib.crc32(key.encode()) % len(_SPARE)]


def line_style(n: int) -> Any:
    """The line style of the n-th flow (from 0) of one algorithm."""
    return LINE_STYLES[n % len(LINE_STYLES)]


def legend_gaps(fig: Figure) -> list[str]:
    """Labels of the lines, bars and error bars drawn with data whose label no legend of `fig`
    shows (empty: all shown).

    A line is 'drawn' when it is visible and has at least one point; lines labelled
    with a leading underscore (matplotlib's "not in the legend") count as missing, except
    the parts matplotlib itself makes of another series (a bar's error bars)."""
    shown: set[str] = set()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    for leg in legends:
        if leg is not None:
            shown.update(t.get_text() for t in leg.get_texts())
    owner: dict[int, str] = {}  # error bar caps and data lines: their container's label
    for ax in fig.axes:
        for c in ax.containers:
            for artist in _flatten(c):
                owner[id(artist)] = str(c.get_label())
    missing = []
    for ax in fig.axes:
        for c in ax.containers:  # bars, error bars: their container's label
            if c.get_label() == _AUXILIARY:
                continue
            drawn = [a for a in _flatten(c) if getattr(a, "get_visible", lambda: False)()]
            if drawn and str(c.get_label()) not in shown:
                missing.append(str(c.get_label()))
        for line in ax.get_lines():
            if line.get_visible() and len(line.get_xdata()) > 0:  # type: ignore[arg-type]
                label = owner.get(id(line), str(line.get_label()))
                if label not in shown and not (id(line) in owner and label == _AUXILIARY):
                    missing.append(label)
    return missing


# What matplotlib labels a part of another series (a bar's error bars): not a series.
_AUXILIARY = "_nolegend_"


def _flatten(x: Any) -> Iterator[Any]:
    if isinstance(x, (tuple, list)):
        for y in x:
            yield from _flatten(y)
    elif x is not None:
        yield x


def figure_legend(fig: Figure, handles: list[Any], labels: list[str], max_cols: int = 4) -> Any:
    """One legend under the panels, in as many columns (up to `max_cols`) as fit the
    figure's width, so that no entry is cut at its edges."""
    if not handles:
        return None
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    width = fig.get_figwidth() * fig.dpi
    ncols = max(1, min(max_cols, len(handles)))
    while True:
        leg = fig.legend(handles, labels, loc="outside lower center", ncols=ncols)
        if ncols == 1 or leg.get_window_extent(renderer).width <= 0.98 * width:
            return leg
        leg.remove()
        ncols -= 1


def single_value_axis(ax: Any, values: list[Any], log: bool = False) -> None:
    """An x axis for one distinct value: the value in the middle, one tick, a margin that
    says nothing about a range (not matplotlib's ±4 % of the value)."""
    finite = {float(v) for v in values if v is not None}
    if len(finite) != 1:
        return
    (x,) = finite
    if log and x > 0:
        ax.set_xlim(x / 3, x * 3)
    elif x != 0:
        ax.set_xlim(x - abs(x) * 0.5, x + abs(x) * 0.5)
    else:
        ax.set_xlim(-1, 1)
    ax.set_xticks([x])
    ax.minorticks_off()


def robust_top(ax: Any) -> float | None:
    """An upper y limit that keeps the body of the lines in view when a few samples are far
    above it (more than twice the 99th percentile): None when no cut is needed."""
    import numpy as np

    data = [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()]
    values = sorted(float(v) for v in np.concatenate(data or [np.zeros(0)]) if math.isfinite(v))
    if len(values) < 20:
        return None
    p99 = values[int(0.99 * (len(values) - 1))]
    if p99 <= 0 or values[-1] <= 2 * p99:
        return None
    return 1.25 * p99
