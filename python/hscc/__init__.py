"""hscc: high-speed TCP congestion control — algorithms, a packet-level simulator, results and plots.

import hscc
result = hscc.run("examples/two-reno-rtt.toml")
result.flows          # polars DataFrame, one row per flow
result.write("runs/demo")
hscc.load("runs/demo").timeseries
hscc.sweep("examples/two-reno-rtt.toml", {"flows[1].algorithm": ["reno", "cubic"]}, replicates=5).summary()
"""

from hscc._core import Simulation, engine_version
from hscc.catalog import Algorithm, Param, algorithms
from hscc.errors import RunError, ScenarioError
from hscc.metrics import Stolen, bandwidth_stolen
from hscc.provenance import version as _version
from hscc.results import Result, load
from hscc.rundir import RunDirError
from hscc.runner import run
from hscc.scenario import Scenario
from hscc.sweeps import SweepError, SweepResult, sweep
from hscc.sweeps import load as load_sweep

__version__ = _version()

__all__ = [
    "Algorithm",
    "Param",
    "Result",
    "RunDirError",
    "RunError",
    "Scenario",
    "ScenarioError",
    "Simulation",
    "Stolen",
    "SweepError",
    "SweepResult",
    "algorithms",
    "bandwidth_stolen",
    "engine_version",
    "load",
    "load_sweep",
    "run",
    "sweep",
    "__version__",
]
