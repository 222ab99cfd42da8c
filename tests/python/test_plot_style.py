"""The one plotting style: sizes, formats chosen by the extension, text kept as text,
colour by algorithm and line style per flow, capacity following [[changes]], every
drawn series in the legend, metric labels and units from one table."""

from __future__ import annotations

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
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("size", list(style.SIZES))
def test_sizes(ctcp_run, size):
    fig = figure(hscc.load(ctcp_run), size)
    width, height = fig.get_size_inches()
    assert width == style.SIZES[size][0] and height > style.SIZES[size][1]


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


def test_capacity_follows_changes_and_other_traffic_shows(mixed_run):
    fig = figure(hscc.load(mixed_run))
    thr = fig.axes[0]
    cap = next(ln for ln in thr.get_lines() if str(ln.get_label()).startswith("capacity"))
    assert sorted(set(cap.get_ydata())) == [50, 100]  # Mbit/s: halved at 20 s
    labels = [str(ln.get_label()) for ln in thr.get_lines()]
    assert any(label.startswith("all traffic on") for label in labels)
    assert "VoIP" in fig.get_suptitle() or "voip" in fig.get_suptitle()


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
