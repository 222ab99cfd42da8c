"""hscc: high-speed TCP congestion control — algorithms, a packet-level simulator, results and plots.

import hscc
result = hscc.run("examples/two-reno-rtt.toml")
result.flows          # polars DataFrame, one row per flow
result.write("runs/demo")
hscc.load("runs/demo").timeseries
hscc.sweep("examples/two-reno-rtt.toml", {"flows[1].algorithm": ["reno", "cubic"]}, replicates=5).summary()

The names below are imported when first used (PEP 562): `import hscc` itself loads
no polars, no sweeps and no engine, so a command or script pays only for what it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hscc._core import Simulation, engine_version
    from hscc.algorithm import Algorithm
    from hscc.catalog import Algorithm as AlgorithmInfo
    from hscc.catalog import Param, algorithms
    from hscc.errors import RunError, ScenarioError
    from hscc.metrics import Stolen, bandwidth_stolen
    from hscc.results import Result, load
    from hscc.rundir import RunDirError
    from hscc.runner import run
    from hscc.scenario import Scenario
    from hscc.sweeps import SweepError, SweepResult, sweep
    from hscc.sweeps import load as load_sweep

    __version__: str

# Each public name: the module that defines it and its name there.
_WHERE: dict[str, tuple[str, str]] = {
    "Algorithm": ("hscc.algorithm", "Algorithm"),
    "AlgorithmInfo": ("hscc.catalog", "Algorithm"),
    "Param": ("hscc.catalog", "Param"),
    "Result": ("hscc.results", "Result"),
    "RunDirError": ("hscc.rundir", "RunDirError"),
    "RunError": ("hscc.errors", "RunError"),
    "Scenario": ("hscc.scenario", "Scenario"),
    "ScenarioError": ("hscc.errors", "ScenarioError"),
    "Simulation": ("hscc._core", "Simulation"),
    "Stolen": ("hscc.metrics", "Stolen"),
    "SweepError": ("hscc.sweeps", "SweepError"),
    "SweepResult": ("hscc.sweeps", "SweepResult"),
    "algorithms": ("hscc.catalog", "algorithms"),
    "bandwidth_stolen": ("hscc.metrics", "bandwidth_stolen"),
    "engine_version": ("hscc._core", "engine_version"),
    "load": ("hscc.results", "load"),
    "load_sweep": ("hscc.sweeps", "load"),
    "run": ("hscc.runner", "run"),
    "sweep": ("hscc.sweeps", "sweep"),
}

__all__ = [
    "Algorithm",
    "AlgorithmInfo",
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


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept (PEP 562)."""
    if name == "__version__":
        from hscc.provenance import version

        value: Any = version()
    elif name in _WHERE:
        module, attribute = _WHERE[name]
        value = getattr(importlib.import_module(module), attribute)
    else:
        raise AttributeError(f"module 'hscc' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
