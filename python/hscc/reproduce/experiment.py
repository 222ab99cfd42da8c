"""An experiment of a paper, as data: the set-up, the sweep that reruns it, how the paper
measures it, the published numbers and the paper's qualitative claims.

One TOML file per experiment (``experiments/PAPER/NAME.toml``; a user's own file works
the same way)::

    name = "ctcp-table2"
    paper = "ctcp"                      # a key of PAPERS
    source = "Table 2"                  # which table or figure
    title = "RTT fairness"
    setup = "as the paper states it"
    assumptions = [
        "what hscc had to choose where the paper is silent, and why",
        { shared = "tick" },            # a text several of the paper's experiments state,
    ]                                   # by its key in [assumptions] of shared.toml (shared.py)
    notes = "where hscc and the paper differ after a full run, and the mechanism"   # optional
    notes_engine = "0123456789abcdef"   # the engine digest (hscc --version) of the full run the notes quote
    design = false                      # true: the experiment checks hscc's design where the paper gives neither
                                        # a set-up nor numbers; the scorecard lists it apart from the reproductions

    [x]                                 # the paper's x axis: one swept field (none: a single column, bars)
    axis = "topology.pairs[1].rtt"      # its column in the sweep (values as the engine reads them: s, bit/s)
    label = "inverse RTT ratio"
    factor = 25                         # the paper's x = the swept value × factor (0.04 s → 1) ...
    map = {}                            # ... or by table, for values written as text ({ "100pkts" = 100 })
    values = [1, 2, 3, 6]               # the paper's x values, which `published` lists follow
    scale = "linear"                    # or "log"

    [series]                            # the lines: one swept field (optional: one series "hscc")
    axis = "flows[0].algorithm"
    names = { highspeed = "HSTCP" }    # how the paper names them

    [[measures]]                        # one panel each (see measures.py for the kinds)
    name = "ratio"
    kind = "ratio"
    a = [0]
    b = [1]
    label = "throughput ratio (short / long RTT)"
    source = "Table 2"
    published = { reno = [0.9, 3.6, 6.2, 31.6], ... }   # per series, aligned with x.values; "nan" where the paper has none

    [[claims]]                          # the paper's qualitative result, checked on every run (--quick included)
    text = "CTCP is far more RTT-fair than HSTCP"
    measure = "ratio"
    kind = "less"                       # less | greater: series a against series b (or a number `than`); increasing | decreasing
    a = "ctcp"
    b = "highspeed"
    at = [6]                            # the x values where it must hold (default: every x)
    quick = true                        # false: --quick does not check it (it needs the full length)
    unfairness = true                   # compare ratios r as max(r, 1/r), so that a long flow winning is no "fairer"
    known_miss = false                  # true: hscc does not reproduce it at full length (the notes say why);
                                        # --quick does not assert it, the full-length suite checks it still misses
    design = false                      # true: it checks hscc's own design (a threshold the paper does not
                                        # publish), not a result of the paper; the scorecard counts it apart

    [sweep]                             # a sweep (docs/sweeps.md) with an inline base scenario
    replicates = 5
    seed = 1
    [sweep.base] ...
    [sweep.axes] ...

    [[variants]]                        # a set-up choice shown the other way: hscc reproduce NAME --variant tick
    name = "tick"
    text = "what it changes, and why it is shown"   # or { shared = "tick" }: [variant_texts] tick
    set = { "topology.bottleneck.tick" = "1ms" }   # fields of the base scenario (sweep paths) and their values
    unset = ["stack", "flows[0].loss_detection"]   # fields of the base removed (they take their
                                        # defaults, or a profile's: `stack`)
    on = "hscc-defaults"                # another variant, named before this one, whose set, unset
                                        # and axes come first (this one's win)
    axes = { algorithm = { zip = { ... } } }   # axes of the sweep replaced (per-series settings;
                                        # the x's and the series' values stay as the sweep has them)

    [quick]                             # --quick: fewer replicates, shorter runs, fewer points
    replicates = 2
    duration = "60s"
    axes = { ... }                      # replaces the named axes' values
"""

from __future__ import annotations

import math
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from hscc.errors import show
from hscc.inputs import InputError, finite_number, load_toml

MAX_FILE_BYTES = 1 << 20

PAPERS = {
    "ctcp": "K. Tan, J. Song, Q. Zhang, M. Sridharan: A Compound TCP Approach for High-speed and Long Distance Networks (INFOCOM 2006)",
    "africa": "R. King, R. Baraniuk, R. Riedi: TCP-Africa: An Adaptive and Fair Rapid Increase Rule for Scalable TCP (INFOCOM 2005)",
    "fit": "J. Wang, J. Wen, J. Zhang, Y. Han: TCP-FIT: An Improved TCP Congestion Control Algorithm and its Performance (INFOCOM 2011)",
    "sync": "X. Wu, M. C. Chan, A. L. Ananda, C. Ganjihal: Sync-TCP: A New Approach to High Speed Congestion Control (ICNP 2009)",
    "dctcp": "M. Alizadeh, A. Greenberg, D. A. Maltz, J. Padhye, P. Patel, B. Prabhakar, S. Sengupta, M. Sridharan: Data Center TCP (DCTCP) (SIGCOMM 2010)",
    "bbr": "R. Ware, M. K. Mukerjee, S. Seshan, J. Sherry: Modeling BBR's Interactions with Loss-Based Congestion Control (IMC 2019)",
}

# Papers of algorithms hscc carries beside the four papers' (modern baselines): their
# experiments check hscc's implementations against published behaviour, and the scorecard
# lists them in a section of their own, after the four papers' reproductions.
BASELINE_PAPERS = ("dctcp", "bbr")


class ExperimentError(ValueError):
    """An experiment file that cannot be used: names the file, the key and what is allowed."""


class _Strict(BaseModel):
    # NaN and infinities are refused in every number but the published ones ("nan": none)
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


Factor = Annotated[float, Field(gt=0, le=1e12)]  # a scale between units, never 0 or negative
FlowIndex = Annotated[int, Field(ge=0, le=100_000)]  # a [[flows]] entry
Published = Annotated[float, Field(allow_inf_nan=True)]  # NaN: the paper has no number there


class XAxis(_Strict):
    axis: str | None = None  # none: one x (a table's single column), drawn as bars
    label: str = ""
    values: list[float] | None = (
        None  # the paper's x values; `published` lists are aligned with them
    )
    factor: Factor = 1.0  # x = the swept value × factor ...
    map: dict[str, float] = {}  # ... or, for a value written as text ("100pkts"), this table's
    scale: Literal["linear", "log"] = "linear"


class Series(_Strict):
    axis: str
    names: dict[str, str] = {}


class Measure(_Strict):
    name: str
    kind: Literal[
        "goodput", "ratio", "share", "utilization", "stolen", "change", "column", "sum", "available"
    ]
    label: str
    source: str | None = None
    a: list[FlowIndex] | None = (
        None  # [[flows]] entries (goodput, share, stolen's victims, ratio's numerator)
    )
    b: list[FlowIndex] | None = None  # ratio's denominator
    link: str = "bottleneck:fwd"  # utilization
    column: str | None = None  # change, column: a metric column of the sweep (hscc.sweeps.metrics)
    columns: list[str] | None = (
        None  # sum: metric columns added up; available: the UDP rates taken off capacity
    )
    minus: list[str] = []  # column, sum: metric columns taken off (what the paper does not count)
    capacity: float | None = None  # available: the link's rate, bit/s
    baseline: str | None = None  # stolen, change: the series value that is the baseline
    scale: float = 1.0  # column, sum: multiply by this (e.g. 1e3 for ms)
    log: bool = False  # the panel's y axis on a log scale
    published: dict[str, list[Published]] = {}

    @field_validator("published", mode="before")
    @classmethod
    def _nan(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {
                k: [math.nan if x == "nan" else x for x in xs] if isinstance(xs, list) else xs
                for k, xs in v.items()
            }
        return v

    @field_validator("published")
    @classmethod
    def _finite(cls, v: dict[str, list[float]]) -> dict[str, list[float]]:
        for k, xs in v.items():
            if any(math.isinf(x) for x in xs):
                raise ValueError(f'published.{k}: a number or "nan" (no number), not an infinity')
        return v

    @model_validator(mode="after")
    def _args(self) -> Measure:
        need = {
            "ratio": ("a", "b"),
            "stolen": ("a", "baseline"),
            "change": ("column", "baseline"),
            "column": ("column",),
            "sum": ("columns",),
            "share": ("a",),
            "available": ("capacity", "columns"),
        }.get(self.kind, ())
        missing = [k for k in need if getattr(self, k) is None]
        if missing:
            raise ValueError(f"a {self.kind!r} measure needs {', '.join(missing)}")
        return self


class Claim(_Strict):
    text: str
    measure: str
    kind: Literal["less", "greater", "increasing", "decreasing"]
    a: str
    b: str | None = None
    than: float | None = None
    factor: Factor = 1.0  # less: a × factor < b (a "far less" claim)
    unfairness: bool = (
        False  # compare max(r, 1/r): a throughput ratio's distance from 1, whichever side wins
    )
    at: list[float] | None = None
    quick: bool = True  # false: --quick does not check it (it needs the full length)
    known_miss: bool = False  # hscc does not reproduce it at full length; the notes say why
    design: bool = (
        False  # checks hscc's own design (a rule or threshold the paper does not publish)
    )

    @model_validator(mode="after")
    def _other(self) -> Claim:
        if self.kind in ("less", "greater") and (self.b is None) == (self.than is None):
            raise ValueError(
                f"a {self.kind!r} claim compares series a with a series b or a number than (one of them)"
            )
        return self


class Quick(_Strict):
    replicates: int = Field(default=1, ge=1, le=100)
    duration: str | None = None
    axes: dict[str, Any] = {}


class Variant(_Strict):
    """The experiment with one set-up choice made the other way (a field the paper leaves open,
    or a model of its tool): the same sweep with these fields of its base scenario set, these
    fields removed (`unset`, so they take their defaults or a profile's), and these axes of
    the sweep replaced (`axes`: a setting that differs by series, zipped with the series)."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    text: str = Field(min_length=1)
    set: dict[str, Any] = {}
    unset: list[str] = []
    axes: dict[str, Any] = {}
    # The variant this one is made on: its changes are in set, unset and axes above
    # (Experiment._variants_on_variants), so that each variant reads whole.
    on: str | None = None

    @model_validator(mode="after")
    def _changes_something(self) -> Variant:
        if not self.set and not self.unset and not self.axes:
            raise ValueError(
                f"variants {self.name!r}: needs `set`, `unset`, `axes` or some of them"
            )
        return self


class Experiment(_Strict):
    name: str
    paper: str
    source: str
    title: str
    setup: str
    assumptions: list[str]
    notes: str | None = None
    notes_engine: str | None = Field(default=None, pattern=r"^[0-9a-f]{16}$")
    design: bool = False  # checks hscc's design where the paper gives neither set-up nor numbers
    x: XAxis
    series: Series | None = None
    measures: list[Measure] = Field(min_length=1)
    claims: list[Claim] = []
    sweep: dict[str, Any]
    quick: Quick = Quick()
    variants: list[Variant] = []
    file: str | None = Field(default=None, exclude=True)

    @field_validator("paper")
    @classmethod
    def _paper(cls, v: str) -> str:
        if v not in PAPERS:
            raise ValueError(f"{v!r} is not a paper of the catalogue (one of {', '.join(PAPERS)})")
        return v

    @model_validator(mode="before")
    @classmethod
    def _variants_on_variants(cls, data: Any) -> Any:
        """A variant `on` another takes that one's set, unset and axes first, then its own."""
        if not isinstance(data, dict) or not isinstance(data.get("variants"), list):
            return data
        made: dict[str, dict[str, Any]] = {}
        variants = []
        for v in data["variants"]:
            if isinstance(v, dict) and v.get("on") is not None:
                parent = made.get(v["on"]) if isinstance(v["on"], str) else None
                if parent is None:
                    raise ValueError(
                        f"variants {v.get('name')!r}: on {v['on']!r} is not a variant named "
                        f"before it (one of: {', '.join(made) or 'none'})"
                    )
                v = {
                    **v,
                    "set": {**parent.get("set", {}), **v.get("set", {})},
                    "unset": list(dict.fromkeys([*parent.get("unset", []), *v.get("unset", [])])),
                    "axes": {**parent.get("axes", {}), **v.get("axes", {})},
                }
            if isinstance(v, dict) and isinstance(v.get("name"), str):
                made[v["name"]] = v
            variants.append(v)
        return {**data, "variants": variants}

    @model_validator(mode="after")
    def _consistent(self) -> Experiment:
        if any(c.known_miss for c in self.claims) and not self.notes:
            raise ValueError(
                "a claim hscc does not reproduce (known_miss) needs the notes that say why"
            )
        if self.notes_engine and not self.notes:
            raise ValueError("notes_engine dates the notes: it needs notes")
        names = [m.name for m in self.measures]
        for c in self.claims:
            if c.measure not in names:
                raise ValueError(f"claim {c.text!r}: measure {c.measure!r} is not one of {names}")
        self._check_series()
        self._check_variants()
        if self.x.values is not None:
            for c in self.claims:
                missing = [x for x in c.at or () if x not in self.x.values]
                if missing:
                    raise ValueError(
                        f"claim {c.text!r}: at {show(missing[0])} is not one of the x values "
                        f"{self.x.values}"
                    )
        n = len(self.x.values) if self.x.values is not None else 1 if self.x.axis is None else None
        for m in self.measures:
            if m.published and n is None:
                raise ValueError(
                    f"measures {m.name!r}: published numbers need the paper's x values (x.values)"
                )
            for s, vals in m.published.items():
                if n is not None and len(vals) != n:
                    raise ValueError(
                        f"measures {m.name!r}: published.{s} has {len(vals)} values for {n} x values"
                    )
        return self

    def notes_age(self) -> str | None:
        """Why the numbers the notes quote may not be this engine's; None when this engine
        measured them (or there are no notes). Any change to the engine's or the algorithms'
        sources (their unit tests aside) changes the digest, so a note written before it is
        flagged until a full run confirms or rewrites it."""
        if not self.notes:
            return None
        from hscc import _core

        now = _core.engine_digest()
        if self.notes_engine == now:
            return None
        if self.notes_engine is None:
            return (
                f"the notes do not say which engine measured their numbers (this is engine {now})"
            )
        return (
            f"the notes quote a full run on engine {self.notes_engine}; this is engine {now}: "
            "their numbers may have moved"
        )

    def _check_series(self) -> None:
        """The x's and series' axes are axes of the sweep; claims and baselines name series
        the sweep has (at full length, and with --quick's axes for the claims --quick checks)."""
        full = _axis_values(self.sweep.get("axes"))
        quick = {**full, **_axis_values(self.quick.axes)}
        series = self.series.axis if self.series is not None else None
        for what, axis in (("x.axis", self.x.axis), ("series.axis", series)):
            if axis is not None and _path(axis) not in full:
                raise ValueError(
                    f"{what}: {axis!r} is not an axis of the sweep "
                    f"(one of {', '.join(full) or 'none'})"
                )
        if self.series is None or series is None:
            return
        names = set(self.series.names.values()) | set(self.series.names)

        def check(value: str | None, owner: str, axes: dict[str, list[str] | None]) -> None:
            have = axes.get(_path(series))
            if value is not None and have is not None and value not in have and value not in names:
                shown = ", ".join(dict.fromkeys(have))
                raise ValueError(
                    f"{owner}: series {value!r} is not one the sweep has ({series}: {shown})"
                )

        for m in self.measures:
            check(m.baseline, f"measures {m.name!r}: baseline", full)
        for c in self.claims:
            for variant in (full, quick) if c.quick else (full,):
                check(c.a, f"claim {c.text!r}: a", variant)
                check(c.b, f"claim {c.text!r}: b", variant)

    def _check_variants(self) -> None:
        """Variant names are unique; a variant sets fields of the base, not swept ones (the
        axis would win, and the variant would change nothing); it replaces axes the sweep has
        and --quick leaves alone, keeping the x's and the series' values."""
        from hscc.sweeps.paths import NOT_FOUND, PathError, lookup

        names = [v.name for v in self.variants]
        if len(set(names)) != len(names):
            raise ValueError(f"variants: a name used twice ({', '.join(names)})")
        swept = set(_axis_values(self.sweep.get("axes"))) | set(_axis_values(self.quick.axes))
        base = self.sweep.get("base")
        for v in self.variants:
            for key in v.unset:
                try:
                    found = isinstance(base, dict) and lookup(base, key) is not NOT_FOUND
                except PathError as e:
                    raise ValueError(f"variants {v.name!r}: unset {key!r}: {e}") from None
                if not found:
                    raise ValueError(
                        f"variants {v.name!r}: unset {key!r} is not a field the inline base "
                        "scenario ([sweep.base]) sets"
                    )
                if _path(key) in swept:
                    raise ValueError(
                        f"variants {v.name!r}: unset {key!r} is an axis of the sweep (the axis "
                        "would set it)"
                    )
            for path in v.set:
                if _path(path) in swept:
                    raise ValueError(
                        f"variants {v.name!r}: set.{path} is an axis of the sweep (the axis "
                        "would win); a variant sets fields of the base scenario"
                    )
            axes = self.sweep.get("axes") or {}
            kept = [a for a in (self.x.axis, self.series.axis if self.series else None) if a]
            for name, spec in v.axes.items():
                if name not in axes or name in self.quick.axes:
                    raise ValueError(
                        f"variants {v.name!r}: axes.{name} is not an axis of the sweep that "
                        f"--quick leaves alone (one of {', '.join(a for a in axes if a not in self.quick.axes) or 'none'})"
                    )
                was, now = _axis_values({name: axes[name]}), _axis_values({name: spec})
                for path in map(_path, kept):
                    if path in was and now.get(path) != was[path]:
                        raise ValueError(
                            f"variants {v.name!r}: axes.{name} changes the values of {path}, "
                            "which the figure and the claims are drawn over; keep them"
                        )

    def variant(self, name: str) -> Variant:
        """The variant of that name (ExperimentError naming the ones there are)."""
        for v in self.variants:
            if v.name == name:
                return v
        from hscc.suggest import did_you_mean

        have = ", ".join(v.name for v in self.variants) or "none"
        raise ExperimentError(
            f"experiment {self.name}: variant {name!r} is not one of its variants ({have})"
            + did_you_mean(name, [v.name for v in self.variants])
        )

    def series_name(self, value: Any) -> str:
        """How the paper names the series of a swept value."""
        if self.series is None:
            return "hscc"
        return self.series.names.get(str(value), str(value))

    def sweep_data(
        self, quick: bool, replicates: int | None = None, variant: Variant | None = None
    ) -> dict[str, Any]:
        """The sweep's data (hscc.sweeps.spec.parse) at full length or --quick, with a
        variant's fields set in its base (ExperimentError for a path the base cannot take)."""
        from hscc.sweeps.paths import PathError, put, remove

        data = {k: v for k, v in self.sweep.items()}
        data["name"] = (
            self.name + (f"-{variant.name}" if variant else "") + ("-quick" if quick else "")
        )
        if variant is not None:
            base = data.get("base")
            if not isinstance(base, dict):
                raise ExperimentError(
                    f"experiment {self.name}: variant {variant.name!r} needs an inline base scenario ([sweep.base])"
                )
            base = dict(base)  # the main set-up's is left as it is
            for path in variant.unset:
                base = remove(base, path)
            for path, value in variant.set.items():
                try:
                    put(base, path, value, copy=True)
                except PathError as e:
                    raise ExperimentError(
                        f"experiment {self.name}: variants {variant.name!r}: set.{path}: {e}"
                    ) from None
            data["base"] = base
            data["axes"] = {**data.get("axes", {}), **variant.axes}
        if quick:
            # The quick duration is an axis of one value, not a change of the base: the base is
            # checked as written (full length), and each point with the quick axes' values too,
            # so a quick schedule of start times can come with the quick duration.
            data["replicates"] = self.quick.replicates
            short = {"duration": [self.quick.duration]} if self.quick.duration is not None else {}
            data["axes"] = {**data.get("axes", {}), **short, **self.quick.axes}
        if replicates is not None:
            data["replicates"] = replicates
        return data


def _path(path: str) -> str:
    from hscc.sweeps.paths import PathError, normalize

    try:
        return normalize(path)
    except PathError:
        return path


def _axis_values(axes: Any) -> dict[str, list[str] | None]:
    """Each swept field's values as text (None where they are a range), by normalized path."""
    out: dict[str, list[str] | None] = {}
    if not isinstance(axes, dict):
        return out
    for name, spec in axes.items():
        for path, values in axis_members(name, spec).items():
            if isinstance(values, dict):
                values = values.get("values")
            out[_path(str(path))] = _series_values(values)
    return out


def axis_members(name: str, spec: Any) -> dict[str, Any]:
    """A sweep axis's fields and their values as written: a zipped axis has several."""
    members = spec.get("zip") if isinstance(spec, dict) else None
    return dict(members) if isinstance(members, dict) else {name: spec}


def _series_values(values: Any) -> list[str] | None:
    """A swept field's values as a series names them: as written, and numbers and booleans
    also as the engine reads them (true → "1.0", 2 → "2.0"); None where they cannot be
    known without the engine (a range, or quantities with units such as "10ms")."""
    if not isinstance(values, list) or any(
        isinstance(v, str) and any(c.isdigit() for c in v) for v in values
    ):
        return None
    out = [str(v) for v in values]
    out += [str(float(v)) for v in values if isinstance(v, bool) or finite_number(v) is None]
    return out


def load(path: str | Path) -> Experiment:
    """Read and check an experiment file (ExperimentError naming the file and key); the texts
    it names by key come from the shared.toml in its folder."""
    from hscc.reproduce import shared

    path = Path(path)
    if path.name == shared.FILE:
        raise ExperimentError(
            f"{path} holds the texts a paper's experiments share, not an experiment "
            "(name an experiment file of its folder)"
        )
    try:
        data = load_toml(path, "experiment", MAX_FILE_BYTES)
    except InputError as e:
        raise ExperimentError(str(e)) from None
    return parse(data, str(path), path.parent)


def parse(
    data: dict[str, Any], source: str = "experiment", folder: Path | None = None
) -> Experiment:
    """Check an experiment's data; `folder` holds the shared.toml whose texts it names by key
    (None: it names none)."""
    from hscc.reproduce import shared

    data = shared.resolve(data, source, folder)
    try:
        return Experiment(**data, file=source)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        value = (
            f": {show(first['input'])}"
            if first["type"] != "missing" and not isinstance(first["input"], dict)
            else ""
        )
        message = first["msg"].removeprefix("Value error, ")
        raise ExperimentError(
            f"{source}: {where + value + ': ' if where else ''}{message}"
        ) from None
    except TypeError as e:
        raise ExperimentError(f"{source}: {e}") from None


@lru_cache(maxsize=1)
def catalogue() -> tuple[Experiment, ...]:
    """Every experiment shipped with hscc, by paper (in PAPERS' order) and name."""
    from hscc.reproduce import shared

    root = resources.files("hscc.reproduce") / "experiments"
    found = []
    for paper in PAPERS:
        folder = root / paper
        if folder.is_dir():
            found += [
                load(Path(str(f)))
                for f in sorted(folder.iterdir(), key=lambda f: f.name)
                if f.name.endswith(".toml") and f.name != shared.FILE
            ]
    names = [e.name for e in found]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ExperimentError(f"experiment names used twice: {', '.join(sorted(dup))}")
    return tuple(found)


def find(name: str) -> Experiment | None:
    """The catalogue's experiment of that name, or None."""
    return next((e for e in catalogue() if e.name == name), None)
