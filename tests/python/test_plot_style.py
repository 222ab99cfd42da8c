"""The one plotting style: sizes, formats chosen by the extension, text kept as text,
colour by algorithm and line style per flow, capacity following [[changes]], every
drawn series in the legend, metric labels and units from one table."""

from __future__ import annotations

import json

import polars as pl
import pytest
from matplotlib.figure import Figure
from typer.testing import CliRunner

import hscc
from conftest import EXAMPLES
from hscc import style
from hscc.cli import app
from hscc.plot import figure
from hscc.units_table import format_value, metric

runner = CliRunner()
pytestmark = pytest.mark.timeout(60)  # each test: a few seconds; the module's runs are shared


@pytest.fixture(scope="module")
def ctcp_run(tmp_path_factory):
    """The CTCP test bed (4 CTCP + 4 Reno flows), 10 s instead of 120."""
    text = (
        (EXAMPLES / "ctcp-testbed.toml")
        .read_text()
        .replace('duration = "120s"', 'duration = "10s"')
    )
    path = tmp_path_factory.mktemp("ctcp") / "ctcp.toml"
    path.write_text(text)
    return hscc.run(path).write(path.parent / "run")


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    """TCP, UDP, VoIP and web traffic; the bottleneck halves at 20 s."""
    path = tmp_path_factory.mktemp("mixed") / "run"
    return hscc.run(EXAMPLES / "mixed-traffic.toml").write(path)


def _lines(fig: Figure) -> list:
    return [ln for ax in fig.axes for ln in ax.get_lines() if len(ln.get_xdata())]


def test_out_pdf_writes_a_pdf_with_text_as_text(ctcp_run, tmp_path):
    r = runner.invoke(app, ["plot", str(ctcp_run), "--out", str(tmp_path / "x.pdf")])
    assert r.exit_code == 0, r.output
    data = (tmp_path / "x.pdf").read_bytes()
    assert data[:4] == b"%PDF" and b"/FontFile2" in data  # TrueType embedded (fonttype 42)
    assert not (tmp_path / "x.png").exists()


def test_svg_keeps_text_as_text(ctcp_run, tmp_path):
    r = runner.invoke(app, ["plot", str(ctcp_run), "--out", str(tmp_path / "x.svg")])
    assert r.exit_code == 0, r.output
    svg = (tmp_path / "x.svg").read_text()
    assert "<text" in svg and "congestion window" in svg


@pytest.mark.parametrize("name", ["x.jpg", "x", "x.PNG.bak"])
def test_an_unknown_extension_is_refused(ctcp_run, tmp_path, name):
    r = runner.invoke(app, ["plot", str(ctcp_run), "--out", str(tmp_path / name)])
    assert r.exit_code == 2 and ".png, .pdf or .svg" in r.stderr
    assert str(tmp_path / name) in r.stderr.replace("\n", "")  # the value refused, named
    assert list(tmp_path.iterdir()) == []


# The test bed's four time panels: stacked in a column (4 rows), two by two otherwise; a slide
# stays 16:9.
_CTCP_HEIGHT = {"column": 2.6 * (1 + 3 * 0.55), "wide": 3.0 * 1.55, "slide": 10 * 9 / 16}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", list(style.SIZES))
def test_the_written_file_has_the_sizes_width(ctcp_run, tmp_path, size):
    """The PDF's page is the size's width in points (72 per inch), and a column's text is
    smaller than a slide's."""
    import re

    out = tmp_path / "x.pdf"
    r = runner.invoke(app, ["plot", str(ctcp_run), "--out", str(out), "--size", size])
    assert r.exit_code == 0, r.output
    box = re.search(rb"/MediaBox \[\s*0 0 ([0-9.]+) ([0-9.]+)", out.read_bytes())
    assert box is not None
    assert float(box[1]) == pytest.approx(72 * style.SIZES[size][0])
    assert float(box[2]) == pytest.approx(72 * _CTCP_HEIGHT[size])


@pytest.mark.parametrize("size", list(style.SIZES))
def test_sizes(ctcp_run, size):
    fig = figure(hscc.load(ctcp_run), size)
    width, height = fig.get_size_inches()
    assert (width, height) == pytest.approx((style.SIZES[size][0], _CTCP_HEIGHT[size]))
    fonts = {t.get_fontsize() for ax in fig.axes for t in [ax.xaxis.label, ax.yaxis.label]}
    assert fonts == {style.FONT_SIZES[size]}


def test_a_misspelt_size_is_refused_with_a_suggestion(ctcp_run):
    r = runner.invoke(app, ["plot", str(ctcp_run), "--size", "colum"])
    assert r.exit_code == 2 and 'did you mean "column"' in r.stderr


def test_colour_by_algorithm_line_style_by_flow(ctcp_run):
    fig = figure(hscc.load(ctcp_run))
    thr = fig.axes[0]
    flows = [ln for ln in thr.get_lines() if "capacity" not in str(ln.get_label())]
    assert len(flows) == 8
    by_colour: dict[str, set] = {}
    for ln in flows:
        by_colour.setdefault(ln.get_color(), set()).add(str(ln.get_linestyle()))
    assert set(by_colour) == {style.algorithm_colour("ctcp"), style.algorithm_colour("reno")}
    assert all(len(styles) == 4 for styles in by_colour.values())  # four flows each, told apart


@pytest.mark.parametrize("run", ["ctcp_run", "mixed_run"])
def test_every_drawn_line_is_in_the_legend(run, request):
    fig = figure(hscc.load(request.getfixturevalue(run)))
    assert _lines(fig) and style.legend_gaps(fig) == []


def _panel(fig: Figure, title: str):
    return next(ax for ax in fig.axes if ax.get_title(loc="left").startswith(title))


@pytest.mark.timeout(30)
def test_capacity_follows_changes(mixed_run):
    """The forward link halves at 20 s: its capacity line steps from 100 to 50 Mbit/s there,
    read from the run directory's record of the changes, and runs to the end of the run."""
    fig = figure(hscc.load(mixed_run))
    links = _panel(fig, "capacity")
    cap = next(
        ln
        for ln in links.get_lines()
        if str(ln.get_label()).startswith("capacity of bottleneck:fwd")
    )
    xs, ys = list(cap.get_xdata()), list(cap.get_ydata())
    assert xs == [0.0, 20.0, 40.0] and ys == [100.0, 50.0, 50.0]  # Mbit/s
    assert cap.get_drawstyle() == "steps-post"
    assert "100 Mbit/s → 50 Mbit/s" in str(cap.get_label())
    carried = next(
        ln for ln in links.get_lines() if "carried by bottleneck:fwd" in str(ln.get_label())
    )
    after = [y for x, y in zip(carried.get_xdata(), carried.get_ydata(), strict=True) if x > 21]
    assert after and max(after) <= 50.0 + 1e-6  # the link never carries more than its capacity


@pytest.mark.timeout(30)
def test_capacity_of_a_run_without_changes(ctcp_run):
    from hscc.plot import capacities

    assert capacities(hscc.load(ctcp_run)) == {"bottleneck:fwd": [(0.0, 700e6)]}  # not the ACK path


@pytest.mark.timeout(30)
def test_capacity_from_a_damaged_record(mixed_run):
    """Change records of the wrong shape are skipped; the links' rates stay."""
    from hscc.plot import capacities

    r = hscc.load(mixed_run)
    # The record a format-2 run directory holds (manifest.json's `engine_config`).
    r.manifest["engine_config"] = json.loads(r.scenario.resolved().config())
    r.manifest["engine_config"]["changes"] = [
        {"at": "20s", "link": 0, "rate_bps": 1},
        {"at": 1e12, "link": "0", "rate_bps": 1},
        {"at": 2e12, "link": 0, "rate_bps": None, "delay": 5},
        7,
    ]
    assert capacities(r)["bottleneck:fwd"] == [(0.0, 100e6)]
    r.manifest["engine_config"] = "not a record"
    assert capacities(r)["bottleneck:fwd"][0] == (0.0, 100e6)  # the scenario's changes, read


@pytest.mark.timeout(30)
def test_udp_voip_and_web_get_panels(mixed_run, ctcp_run):
    fig = figure(hscc.load(mixed_run))
    udp = _panel(fig, "UDP and VoIP")
    names = [t.get_text() for t in udp.get_yticklabels()]
    assert len(names) == 3 and names[0].startswith("on/off") and "lost" in names[0]
    assert udp.get_xlabel() == "one-way delay (ms)"
    web = _panel(fig, "web")
    assert web.get_xscale() == "log" and web.get_ylabel().startswith("response time (")
    assert style.legend_gaps(fig) == []
    titles = [ax.get_title(loc="left") for ax in figure(hscc.load(ctcp_run)).axes]
    assert not any(t.startswith(("UDP", "web")) for t in titles)  # only where a run has them


@pytest.mark.timeout(30)
def test_aggregate_draws_one_line_per_algorithm(ctcp_run, tmp_path):
    fig = figure(hscc.load(ctcp_run), aggregate=True)
    thr = _panel(fig, "goodput")
    lines = thr.get_lines()
    assert [ln.get_color() for ln in lines] == [
        style.algorithm_colour("ctcp"),
        style.algorithm_colour("reno"),
    ]
    assert str(lines[0].get_label()).startswith("ctcp: 4 flows")
    r = hscc.load(ctcp_run)
    ts = r.timeseries.filter(
        pl.col("flow").is_in(r.flows.filter(pl.col("algorithm") == "ctcp")["flow"].to_list())
    )
    expected = ts.group_by("time_s").agg(pl.col("throughput_bps").sum()).sort("time_s")
    assert list(lines[0].get_ydata()) == pytest.approx((expected["throughput_bps"] / 1e6).to_list())
    assert style.legend_gaps(fig) == []
    out = tmp_path / "agg.png"
    res = runner.invoke(app, ["plot", str(ctcp_run), "--aggregate", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_many_flows_share_their_entrys_legend_entry(write_toml):
    from conftest import ONE_FLOW

    path = write_toml(ONE_FLOW.replace('algorithm = "reno"', 'algorithm = "reno"\ncount = 12'))
    fig = figure(hscc.run(path))
    assert style.legend_gaps(fig) == []
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("12 × reno" in t for t in texts) and len(texts) < 5


def test_metric_table():
    m = metric("flows[1].goodput_bps")
    assert (m.title, m.kind) == ("flows[1] goodput", "rate")
    assert metric("bottleneck:fwd.mean_qdelay_s").title == "bottleneck:fwd mean queuing delay"
    assert format_value("flows[1].goodput_bps", 9.62e7) == "96.2 Mbit/s"
    assert format_value("flows[1].goodput_bps", 9.62e7, 0.0) == "96.2 ± 0 Mbit/s"
    assert format_value("bottleneck:fwd.utilization", 0.993) == "99.3%"
    assert format_value("jain_index", 0.99812) == "0.998"
    assert format_value("flows[0].retrans", 12.0) == "12"
    assert format_value("jain_index", None) == "–"


def test_sweep_plot_labels_and_file_names(tmp_path):
    from hscc.sweeps.plot import file_name

    assert file_name("flows[1].goodput_bps") == "flows-1-goodput"
    assert file_name("bottleneck:fwd.mean_qdelay_s") == "bottleneck-fwd-mean-qdelay"
    assert file_name("jain_index") == "jain-index"


def test_cc_log_plot_takes_the_format_of_out(write_toml, tmp_path):
    from test_cc_log import LOGGED

    path = write_toml(LOGGED)
    run_dir = hscc.run(path).write(tmp_path / "run")
    r = runner.invoke(app, ["plot", str(run_dir), "--out", str(tmp_path / "p.svg")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "p_cc_log.svg").read_text().count("<text") > 3


def test_result_frames_unchanged_by_plotting(ctcp_run):
    r = hscc.load(ctcp_run)
    before = r.flows.clone()
    figure(r, "column")
    assert r.flows.equals(before) and isinstance(r.flows, pl.DataFrame)


def _cells(measures: list[str], rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    """A comparison table as `hscc.reproduce.compare.cells` makes it: (measure, series, x)."""
    return pl.DataFrame(
        {
            "measure": [m for m, _, _ in rows],
            "series": [s for _, s, _ in rows],
            "x": [x for _, _, x in rows],
            "mean": [10.0] * len(rows),
            "ci_low": [9.0] * len(rows),
            "ci_high": [11.0] * len(rows),
            "paper": [12.0] * len(rows),
        }
    )


@pytest.mark.timeout(30)
def test_a_reproduction_figure_legends_every_panels_series():
    """A series drawn only in a later panel is in the legend too."""
    from hscc.reproduce.experiment import find
    from hscc.reproduce.figure import figure as repro_figure

    exp = find("ctcp-fig10-12")
    assert exp is not None
    a, b = exp.measures[0].name, exp.measures[1].name
    rows = [(a, "ctcp", 1e-5), (a, "ctcp", 1e-3), (b, "reno", 1e-5), (b, "reno", 1e-3)]
    fig = repro_figure(exp, _cells([a, b], rows))
    texts = {t.get_text() for t in fig.legends[0].get_texts()}
    assert {"ctcp (hscc)", "ctcp (paper)", "reno (hscc)", "reno (paper)"} <= texts
    assert style.legend_gaps(fig) == []


@pytest.mark.timeout(30)
def test_a_bar_figure_legends_every_series_once():
    """A table's figure (bars, no x axis): each series' bars and the published values."""
    from hscc.reproduce.experiment import find
    from hscc.reproduce.figure import figure as repro_figure

    exp = find("ctcp-table3")
    assert exp is not None
    names = [m.name for m in exp.measures]
    rows = [(m, s, 0.0) for m in names for s in ("ctcp", "reno")]
    fig = repro_figure(exp, _cells(names, rows))
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert sorted(texts) == ["ctcp (hscc)", "paper", "reno (hscc)"]
    assert style.legend_gaps(fig) == []


@pytest.mark.timeout(30)
def test_log_bars_start_a_decade_below_the_least_value_and_labels_wrap():
    """africa-fairness draws its drops as bars on a log axis: with 108 and 275 the axis starts
    at 10 (108 is 2.5 times shorter than 275 on the page), not just under 108 (which made it
    look 20 times shorter); its 69-character axis label wraps within the panel's height."""
    from hscc.reproduce.experiment import find
    from hscc.reproduce.figure import LABEL_CHARS, TITLE_CHARS
    from hscc.reproduce.figure import figure as repro_figure

    exp = find("africa-fairness")
    assert exp is not None
    names = [m.name for m in exp.measures]
    log = next(m for m in exp.measures if m.log and m.name == "all_drops")
    table = _cells(names, [(m, s, 0.0) for m in names for s in ("HSTCP", "TCP-Africa")])
    table = table.with_columns(
        pl.when(pl.col("measure") == log.name)
        .then(pl.when(pl.col("series") == "HSTCP").then(275.0).otherwise(108.0))
        .otherwise(pl.col("mean"))
        .alias("mean"),
        pl.when(pl.col("measure") == log.name).then(None).otherwise(pl.col("paper")).alias("paper"),
        pl.when(pl.col("measure") == log.name)
        .then(None)
        .otherwise(pl.col("ci_low"))
        .alias("ci_low"),
        pl.when(pl.col("measure") == log.name)
        .then(None)
        .otherwise(pl.col("ci_high"))
        .alias("ci_high"),
    )
    fig = repro_figure(exp, table)
    ax = fig.axes[names.index(log.name)]
    assert ax.get_yscale() == "log" and ax.get_ylim()[0] == pytest.approx(10.0)
    assert len(log.label) > LABEL_CHARS
    for a in fig.axes:
        assert max(map(len, a.get_ylabel().splitlines())) <= LABEL_CHARS, a.get_ylabel()
        assert max(map(len, a.get_title().splitlines())) <= TITLE_CHARS, a.get_title()


@pytest.mark.timeout(30)
def test_a_one_panel_figures_title_stays_within_the_figure():
    """sync-switching has one measure: its 130-character title wraps onto lines that fit the
    7.16-in figure, instead of running past both of its edges."""
    from hscc.reproduce.experiment import find
    from hscc.reproduce.figure import figure as repro_figure

    exp = find("sync-switching")
    assert exp is not None and len(exp.measures) == 1
    m = exp.measures[0].name
    series = ["Sync-TCP with switching", "Sync-TCP without switching"]
    fig = repro_figure(exp, _cells([m], [(m, s, 0.0) for s in series]))
    fig.canvas.draw()
    box = fig._suptitle.get_window_extent()  # noqa: SLF001
    assert len(fig._suptitle.get_text()) > 100  # noqa: SLF001
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width, (box, fig.bbox)


@pytest.mark.timeout(30)
def test_one_x_value_gets_an_axis_around_it():
    """A --quick reproduction with one x value: that value in the middle, one tick, not an
    axis of ±4 % around it."""
    from hscc.reproduce.experiment import find
    from hscc.reproduce.figure import figure as repro_figure

    exp = find("ctcp-fig9")
    assert exp is not None
    m = exp.measures[0].name
    fig = repro_figure(exp, _cells([m], [(m, "ctcp", 100.0), (m, "reno", 100.0)]))
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    assert low < 100 < high and high - low >= 50 and list(ax.get_xticks()) == [100.0]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """Two loss rates × Reno or CUBIC, 2 replicates, 5 s runs; and one loss rate alone."""
    from conftest import ONE_FLOW

    base = tmp_path_factory.mktemp("sweep") / "base.toml"
    base.write_text(ONE_FLOW.replace('duration = "10s"', 'duration = "5s"'))
    algorithms = ["reno", "cubic"]
    many = {"topology.bottleneck.loss": [1e-5, 1e-3], "flows[0].algorithm": algorithms}
    one = {"topology.bottleneck.loss": [1e-3], "flows[0].algorithm": algorithms}
    return (
        hscc.sweep(base, many, replicates=2, jobs=1, out=base.parent / "many"),
        hscc.sweep(base, one, replicates=2, jobs=1),
    )


@pytest.mark.timeout(60)
def test_sweep_plot_returns_figures_with_human_labels(sweep):
    many, _ = sweep
    figs = many.plot()
    assert figs and all(isinstance(f, Figure) for f in figs.values())
    fig = figs["flows[0].goodput_bps"]
    ax = fig.axes[0]
    assert ax.get_ylabel().startswith("flows[0] goodput (") and "bit/s)" in ax.get_ylabel()
    assert ax.get_xlabel() == "bottleneck random loss rate"
    assert ax.get_legend().get_title().get_text() == "flows[0] algorithm"
    assert ax.yaxis.get_offset_text().get_text() == ""  # no "1e7" offset
    colours = {str(c.get_label()): c.lines[0].get_color() for c in ax.containers}
    assert colours == {
        "reno": style.algorithm_colour("reno"),
        "cubic": style.algorithm_colour("cubic"),
    }
    assert style.legend_gaps(fig) == []
    for f in figs.values():
        low, _ = f.axes[0].get_ylim()
        assert low == 0  # a CI of a quantity ≥ 0 never reaches below 0


@pytest.mark.timeout(60)
def test_a_sweep_of_one_x_value(sweep):
    _, one = sweep
    ax = one.plot(metrics=["flows[0].goodput_bps"])["flows[0].goodput_bps"].axes[0]
    low, high = ax.get_xlim()
    assert low < 1e-3 < high and high - low >= 1e-3 and list(ax.get_xticks()) == [1e-3]


def test_legend_gaps_finds_a_series_left_out():
    with style.context("column"):
        fig = style.new_figure("column")
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], label="shown")
        ax.plot([0, 1], [1, 0], label="_hidden")
        ax.bar([0], [1], label="bars")
        ax.plot([], [], label="empty")  # no data: not drawn
        fig.legend([ax.get_lines()[0]], ["shown"])
    assert sorted(style.legend_gaps(fig)) == ["_hidden", "bars"]


@pytest.mark.timeout(180)
def test_sweep_plots_in_the_format_of_out(sweep, tmp_path):
    """hscc plot SWEEP_DIR --out DIR/NAME.pdf: DIR/NAME-METRIC.pdf, real PDFs at the size's width."""
    many, _ = sweep
    r = runner.invoke(
        app, ["plot", str(many.directory), "--out", str(tmp_path / "loss.pdf"), "--size", "column"]
    )
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in tmp_path.iterdir())
    assert "loss-flows-0-goodput.pdf" in files and all(f.endswith(".pdf") for f in files)
    data = (tmp_path / "loss-flows-0-goodput.pdf").read_bytes()
    assert data[:4] == b"%PDF" and b"/MediaBox [ 0 0 252 " in data


def test_a_figure_shows_in_a_notebook(ctcp_run):
    """IPython displays an object through its _repr_png_: the figure's PNG."""
    fig = hscc.load(ctcp_run).plot(size="column")
    assert fig._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"


def _catalogue() -> list[str]:
    from hscc.reproduce.experiment import catalogue

    return [e.name for e in catalogue()]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", _catalogue())
def test_every_reproduction_figure_legends_what_it_draws(name):
    """Each experiment's figure, from made-up runs at the paper's own points (two replicates
    each): every series hscc drew and every published one is in the one legend."""
    from hscc.reproduce import compare
    from hscc.reproduce.experiment import find
    from hscc.reproduce.figure import figure as repro_figure

    exp = find(name)
    assert exp is not None
    paper = compare._published(exp)
    if paper.is_empty():  # no published numbers: hscc's points at the figure's x values
        xs = exp.x.values or ([1e-4, 1e-3, 1e-2] if exp.x.axis else [0.0])
        paper = pl.DataFrame(
            [
                {"measure": m.name, "series": s, "x": float(x), "paper": None}
                for m in exp.measures
                for s in exp.series.names.values()
                for x in xs
            ],
            schema={
                "measure": pl.String,
                "series": pl.String,
                "x": pl.Float64,
                "paper": pl.Float64,
            },
        )
    runs = pl.concat(
        paper.select(
            "measure",
            "series",
            "x",
            (pl.col("paper").fill_null(1.0) * (1 + 0.1 * k)).alias("value"),
        )
        for k in range(2)
    )
    fig = repro_figure(exp, compare.cells(exp, runs))
    assert style.legend_gaps(fig) == []
    texts = {t.get_text() for t in fig.legends[0].get_texts()}
    assert {f"{s} (hscc)" for s in paper["series"].unique()} <= texts


def test_reproduction_series_take_their_algorithms_colours():
    """A series named for the paper ("Cubic TCP") has its algorithm's colour, as in run plots."""
    from hscc.reproduce.experiment import find
    from hscc.reproduce.figure import colours

    exp = find("sync-table1")
    assert exp is not None and exp.series is not None
    names = {name: key for key, name in exp.series.names.items()}
    got = colours(list(names), exp)
    assert got == {name: style.algorithm_colour(key) for name, key in names.items()}
    assert style.algorithm_colour("ctcp-la") == style.ALGORITHM_COLOURS["ctcpla"]


def test_panels_only_for_what_a_run_recorded(write_toml):
    """No TCP flows: no goodput or cwnd panel; flows traced but not queues: no queue panel."""
    from conftest import ONE_FLOW

    udp = ONE_FLOW.split("[[flows]]")[0] + '[[udp]]\npair = 0\npattern = "cbr"\nrate = "5Mbps"\n'
    titles = [ax.get_title(loc="left") for ax in figure(hscc.run(write_toml(udp, "u.toml"))).axes]
    assert titles == [
        "capacity and load per link",
        "queuing delay (mean per interval)",
        "UDP and VoIP: one-way delay",
    ]
    flows_only = ONE_FLOW.replace(
        'sample_interval = "100ms"', 'sample_interval = "100ms"\ntraces = ["flows"]'
    )
    titles = [
        ax.get_title(loc="left") for ax in figure(hscc.run(write_toml(flows_only, "f.toml"))).axes
    ]
    assert titles == [
        "goodput per flow",
        "capacity and load per link",
        "congestion window per flow",
    ]


@pytest.mark.timeout(30)
def test_compare_aggregate_draws_one_line_per_algorithm_and_run(ctcp_run):
    """4 CTCP + 4 Reno flows in each of two runs: 4 lines per panel instead of 16, each in
    the legend, the algorithm's colour, run A solid and run B dashed."""
    from hscc import compare

    r = hscc.load(ctcp_run)
    fig = compare.figure(r, r, ("A", "B"), "wide", aggregate=True)
    thr = fig.axes[0]
    lines = {ln.get_label(): ln for ln in thr.get_lines()}
    assert len(lines) == 4 and style.legend_gaps(fig) == []
    ctcp_a = next(ln for label, ln in lines.items() if label.startswith("ctcp") and "(A)" in label)
    ctcp_b = next(ln for label, ln in lines.items() if label.startswith("ctcp") and "(B)" in label)
    assert ctcp_a.get_color() == ctcp_b.get_color() == style.algorithm_colour("ctcp")
    assert ctcp_a.get_linestyle() == "-" and ctcp_b.get_linestyle() == "--"
    total = r.flows.filter(pl.col("algorithm") == "ctcp")["flow"].to_list()
    ts = r.timeseries.filter(pl.col("flow").is_in(total), pl.col("time_s") == 5.0)
    at5 = list(ctcp_a.get_xdata()).index(5.0)  # type: ignore[arg-type]
    divisor = 1e6  # Mbit/s at these rates
    assert ctcp_a.get_ydata()[at5] == pytest.approx(ts["throughput_bps"].sum() / divisor)  # type: ignore[index]
