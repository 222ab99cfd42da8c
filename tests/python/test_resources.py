"""hscc finds its eBPF sources in a checkout and in an installed wheel, builds outside the
package when installed, and the wheel's include list ships every tracked file of bpf/."""

from __future__ import annotations

import glob
import importlib.util
import shutil
import subprocess
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import hscc.resources
from conftest import ROOT
from hscc.kernel import programs


def installed_copy(site: Path) -> ModuleType:
    """hscc.resources as an installed wheel has it: site/hscc/resources.py beside a real
    hscc/_bpf (a copy of two files is enough to be found) and no checkout around."""
    pkg = site / "hscc"
    (pkg / "_bpf").mkdir(parents=True)
    shutil.copy(ROOT / "bpf" / "hscc.h", pkg / "_bpf")
    shutil.copy(ROOT / "bpf" / "reno.bpf.c", pkg / "_bpf")
    shutil.copy(hscc.resources.__file__, pkg / "resources.py")
    spec = importlib.util.spec_from_file_location("resources_installed", pkg / "resources.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def no_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HSCC_BPF_DIR", "HSCC_BPF_BUILD", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)


def test_a_checkout_uses_its_bpf_directory_and_builds_into_bpf_build() -> None:
    assert hscc.resources.bpf_dir() == ROOT / "bpf"
    assert hscc.resources.bpf_build_dir("9.9.9") == ROOT / "bpf" / "build"
    assert programs.build_dir() == ROOT / "bpf" / "build"
    assert "reno" in programs.available() and "cubic" in programs.available()


def test_the_package_link_points_at_the_repository_s_bpf() -> None:
    link = ROOT / "python" / "hscc" / "_bpf"
    assert link.is_symlink() and link.resolve() == ROOT / "bpf"


def test_an_installed_copy_is_found_and_builds_into_a_per_version_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    res = installed_copy(tmp_path / "site-packages")
    bpf = tmp_path / "site-packages" / "hscc" / "_bpf"
    assert res.bpf_dir() == bpf and res.is_installed_copy(bpf)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert res.bpf_build_dir("1.2.3") == tmp_path / "cache" / "hscc" / "bpf-1.2.3"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert res.bpf_build_dir("1.2.3") == Path.home() / ".cache" / "hscc" / "bpf-1.2.3"
    monkeypatch.setenv("HSCC_BPF_BUILD", str(tmp_path / "mine"))
    assert res.bpf_build_dir("1.2.3") == tmp_path / "mine"


def test_missing_sources_say_where_hscc_looked(tmp_path: Path) -> None:
    res = installed_copy(tmp_path / "site-packages")
    shutil.rmtree(tmp_path / "site-packages" / "hscc" / "_bpf")
    with pytest.raises(res.ResourceError, match=r"eBPF sources are missing: neither .*_bpf"):
        res.bpf_dir()


def test_hscc_bpf_dir_must_name_a_bpf_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HSCC_BPF_DIR", str(tmp_path))
    with pytest.raises(programs.KernelError, match=f"HSCC_BPF_DIR={tmp_path} has no hscc.h"):
        programs.bpf_dir()
    shutil.copy(ROOT / "bpf" / "hscc.h", tmp_path)
    assert programs.bpf_dir() == tmp_path


def test_the_testbed_sources_are_package_files() -> None:
    d = hscc.resources.testbed_dir()
    assert d == ROOT / "python" / "hscc" / "testbed"
    for name in ("delayline.c", "loss.bpf.c", "recovery.bpf.c"):
        assert (d / name).is_file(), name


def test_the_wheel_ships_every_tracked_file_of_bpf() -> None:
    """pyproject's include patterns (as maturin globs them, through the link) against git."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["maturin"]
    shipped = set()
    for entry in config["include"]:
        assert entry["format"] == "wheel"
        for path in glob.glob(str(ROOT / entry["path"]), recursive=True):
            if Path(path).is_file():
                shipped.add(Path(path).relative_to(ROOT / "python" / "hscc" / "_bpf").as_posix())
    tracked = subprocess.run(
        ["git", "ls-files", "bpf"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
    ).stdout.split()
    assert tracked, "git lists no file in bpf/"
    assert shipped == {t.removeprefix("bpf/") for t in tracked}
