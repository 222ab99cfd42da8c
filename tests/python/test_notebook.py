"""A notebook, executed for real: a Jupyter kernel (ipykernel, started by nbclient as
`jupyter nbconvert --execute` does) runs hscc.run, hscc.sweep and their plots, and the
cells' outputs are what a reader of the notebook sees: the progress line, the run's and the
sweep's tables as HTML, and the figures as images."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import ONE_FLOW

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]

CELLS = [
    "import hscc",
    "r = hscc.run('one-flow.toml')",
    "r",
    "fig = r.plot(size='column')\nfig",
    "s = hscc.sweep('one-flow.toml', {'flows[0].algorithm': ['reno', 'cubic']}, jobs=1)",
    "s",
    "figs = s.plot()\nfigs['jain_index'] if 'jain_index' in figs else next(iter(figs.values()))",
]


@pytest.mark.timeout(120)
def test_a_notebook_shows_progress_tables_and_figures(tmp_path: Path) -> None:
    (tmp_path / "one-flow.toml").write_text(ONE_FLOW.replace('duration = "10s"', 'duration = "3s"'))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    # The kernel imports the hscc this test imports (a checkout's python/ on PYTHONPATH).
    python = str(ROOT / "python")
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = python + (os.pathsep + env_path if env_path else "")
    try:
        client = nbclient.NotebookClient(
            nb,
            timeout=90,
            kernel_name="python3",
            resources={"metadata": {"path": str(tmp_path)}},
        )
        client.execute()
    finally:
        os.environ["PYTHONPATH"] = env_path
        if not env_path:
            del os.environ["PYTHONPATH"]

    def outputs(i: int) -> list[dict]:
        return list(nb.cells[i].outputs)

    # hscc.run in a kernel: its progress line on stderr, ended by a newline
    progress = "".join(o.get("text", "") for o in outputs(1) if o.get("name") == "stderr")
    assert "hscc.run: 3.0 / 3 s simulated" in progress and progress.endswith("\n"), progress
    # the result: its tables as HTML (Result._repr_html_)
    html = [o["data"]["text/html"] for o in outputs(2) if "text/html" in o.get("data", {})]
    assert len(html) == 1 and "one-flow" in html[0] and "Mbit/s" in html[0], outputs(2)
    # Result.plot() returns a figure, which the notebook shows as an image
    assert any("image/png" in o.get("data", {}) for o in outputs(3)), outputs(3)
    # hscc.sweep: its progress line counts the runs
    progress = "".join(o.get("text", "") for o in outputs(4) if o.get("name") == "stderr")
    assert "hscc.sweep: 2 of 2 runs" in progress, progress
    html = [o["data"]["text/html"] for o in outputs(5) if "text/html" in o.get("data", {})]
    assert len(html) == 1 and "cubic" in html[0], outputs(5)
    assert any("image/png" in o.get("data", {}) for o in outputs(6)), outputs(6)
