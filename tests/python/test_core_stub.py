"""python/hscc/_core.pyi, the types of the Rust extension, names what the built module has:
the same functions, the same Simulation methods and properties, the same parameters in the
same order with defaults in the same places. A function added to crates/hscc-py without
its stub (or a parameter renamed) fails here, not silently in the type check."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from hscc import _core

STUB = Path(__file__).resolve().parents[2] / "python" / "hscc" / "_core.pyi"


def _stub() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"))


def _params(fn: ast.FunctionDef) -> list[tuple[str, bool]]:
    """(name, has a default) of each parameter, without self/cls."""
    args = fn.args.posonlyargs + fn.args.args
    defaults = [False] * (len(args) - len(fn.args.defaults)) + [True] * len(fn.args.defaults)
    out = [(a.arg, d) for a, d in zip(args, defaults, strict=True)]
    out += [
        (a.arg, d is not None) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)
    ]
    return [p for p in out if p[0] not in ("self", "cls")]


def _runtime_params(obj: object) -> list[tuple[str, bool]]:
    sig = inspect.signature(obj)  # from the text signature pyo3 gives every function
    return [
        (p.name, p.default is not inspect.Parameter.empty)
        for p in sig.parameters.values()
        if p.name not in ("self", "$self")
    ]


def _public(names: object) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def _stub_all(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return []


def test_the_stub_and_the_module_have_the_same_names():
    tree = _stub()
    stub = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert _public(stub) == _public(dir(_core))
    assert sorted(_stub_all(tree)) == sorted(_core.__all__)


def test_every_function_has_the_modules_parameters():
    for node in _stub().body:
        if isinstance(node, ast.FunctionDef):
            assert _params(node) == _runtime_params(getattr(_core, node.name)), node.name


def test_simulation_has_the_modules_methods_and_properties():
    (cls,) = [n for n in _stub().body if isinstance(n, ast.ClassDef) and n.name == "Simulation"]
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    properties = {
        name
        for name, n in methods.items()
        if any(isinstance(d, ast.Name) and d.id == "property" for d in n.decorator_list)
    }
    runtime = {
        n: inspect.getattr_static(_core.Simulation, n) for n in _public(dir(_core.Simulation))
    }
    assert _public(methods) == set(runtime)
    assert properties == {n for n, v in runtime.items() if inspect.isdatadescriptor(v)}
    for name in _public(methods) - properties:
        assert _params(methods[name]) == _runtime_params(getattr(_core.Simulation, name)), name
    assert _params(methods["__new__"]) == _runtime_params(_core.Simulation), "__new__"
