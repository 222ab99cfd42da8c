"""The source revision a run records (manifest "git"): the commit and whether tracked
files differ from it, from one `git status` process, equal to what `git rev-parse HEAD`
and `git status --porcelain` say."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from hscc import _core, provenance

pytestmark = pytest.mark.timeout(60)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout.strip()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A git work tree laid out as hscc's (crates/hscc-sim, python/hscc), one commit."""
    top = tmp_path / "src"
    (top / "crates" / "hscc-sim").mkdir(parents=True)
    (top / "crates" / "hscc-sim" / "lib.rs").write_text("// engine\n")
    (top / "python" / "hscc").mkdir(parents=True)
    (top / "python" / "hscc" / "provenance.py").write_text("# here\n")
    git(top, "init", "-q")
    git(top, "add", ".")
    git(top, "commit", "-q", "-m", "first")
    return top


def revision(top: Path) -> dict | None:
    return provenance.revision_of(top / "python" / "hscc")


def test_a_clean_tree_gives_its_head_commit(tree):
    assert revision(tree) == {"commit": git(tree, "rev-parse", "HEAD"), "dirty": False}


def test_changed_tracked_files_make_it_dirty_staged_or_not_untracked_files_do_not(tree):
    (tree / "notes.txt").write_text("untracked\n")
    assert revision(tree)["dirty"] is False
    lib = tree / "crates" / "hscc-sim" / "lib.rs"
    lib.write_text("// changed\n")
    assert revision(tree)["dirty"] is True
    git(tree, "add", str(lib))
    assert revision(tree)["dirty"] is True
    git(tree, "commit", "-q", "-m", "second")
    assert revision(tree) == {"commit": git(tree, "rev-parse", "HEAD"), "dirty": False}
    lib.unlink()
    assert revision(tree)["dirty"] is True


def test_a_linked_worktree_gives_its_own_commit_and_state(tree, tmp_path):
    first = git(tree, "rev-parse", "HEAD")
    (tree / "crates" / "hscc-sim" / "lib.rs").write_text("// second\n")
    git(tree, "commit", "-q", "-am", "second")
    git(tree, "pack-refs", "--all")  # the branch's ref only in packed-refs
    linked = tmp_path / "linked"
    git(tree, "worktree", "add", "-q", "--detach", str(linked), first)
    assert (linked / ".git").is_file()
    assert revision(linked) == {"commit": first, "dirty": False}
    assert revision(tree) == {"commit": git(tree, "rev-parse", "HEAD"), "dirty": False}
    (linked / "crates" / "hscc-sim" / "lib.rs").write_text("// changed\n")
    assert revision(linked)["dirty"] is True and revision(tree)["dirty"] is False


def test_no_revision_outside_hscc_s_tree_or_before_a_commit(tree, tmp_path):
    plain = tmp_path / "plain" / "python" / "hscc"
    plain.mkdir(parents=True)
    assert provenance.revision_of(plain) is None  # not in a git work tree
    other = tmp_path / "other"
    (other / "python" / "hscc").mkdir(parents=True)
    git(other, "init", "-q")
    (other / "python" / "hscc" / "x.py").write_text("")
    git(other, "add", ".")
    git(other, "commit", "-q", "-m", "x")
    assert revision(other) is None  # a repository, not hscc's
    fresh = tmp_path / "fresh"
    (fresh / "crates" / "hscc-sim").mkdir(parents=True)
    (fresh / "python" / "hscc").mkdir(parents=True)
    git(fresh, "init", "-q")
    assert revision(fresh) is None  # hscc's layout, no commit yet


def test_no_revision_when_git_is_missing(tree, monkeypatch):
    monkeypatch.setenv("PATH", str(tree / "no-such-bin"))
    assert revision(tree) is None


def test_this_checkout_s_revision_is_what_git_says():
    here = Path(provenance.__file__).resolve().parent
    got = provenance.revision_of(here)
    if got is None:
        pytest.skip("hscc is not running from a git checkout")
    assert got["commit"] == git(here, "rev-parse", "HEAD")
    assert got["dirty"] == bool(git(here, "status", "--porcelain", "--untracked-files=no"))
    assert provenance.describe_revision(got).startswith(f"git {got['commit'][:12]}")


def test_the_revision_takes_one_git_process(tree, monkeypatch):
    calls: list[list[str]] = []
    real = subprocess.run

    def counted(args, *rest, **kw):
        calls.append(list(args))
        return real(args, *rest, **kw)

    monkeypatch.setattr(provenance.subprocess, "run", counted)
    assert revision(tree) is not None
    assert [c[:2] for c in calls] == [["git", "status"]]


DIGESTED = ("hscc-model", "hscc-sim", "hscc-cc", "hscc-program")


# What hscc-program compiles into every program file, outside the crates' src/.
PROGRAM_BUILD = ("crates/hscc-program/csrc", "bpf/shim/include", "bpf/include")


def digested_files(root: Path) -> list[Path]:
    """The files the engine digest covers, in its order: the manifests and sources of the
    crates the extension runs (DIGESTED: the pre-run estimate and the algorithms' test
    harness left out), what every program
    file is built with (PROGRAM_BUILD) and Cargo.lock, in path-component order."""
    crates = root / "crates"
    files = [
        f
        for k in DIGESTED
        for f in (crates / k / "Cargo.toml", *(crates / k / "src").rglob("*"))
        if f.is_file()
    ]
    for left_out in (crates / "hscc-sim/src/estimate", crates / "hscc-cc/src/testing"):
        files = [f for f in files if f != left_out.with_suffix(".rs") and left_out not in f.parents]
    files += [f for d in PROGRAM_BUILD for f in (root / d).rglob("*") if f.is_file()]
    return sorted([*files, root / "Cargo.lock"], key=lambda f: f.relative_to(root).parts)


def without_unit_tests(text: bytes) -> bytes:
    """A Rust source's bytes before its last `#[cfg(test)]` + `mod tests {` at column 0, when
    only indented or blank lines and the module's closing `}` (the file's last) follow."""
    start = b"\n#[cfg(test)]\nmod tests {\n"
    at = text.rfind(start)
    if at < 0:
        return text
    rest = [line for line in text[at + len(start) :].split(b"\n") if line]
    if rest and rest[-1] == b"}" and all(line.startswith(b" ") for line in rest[:-1]):
        return text[: at + 1]
    return text


def tree_digest(root: Path) -> str:
    """The engine digest computed here, independently of crates/hscc-py/build.rs: SHA-256
    over `digested_files`, each as its '/'-separated path within the tree, a NUL, its bytes
    (a Rust file's without its unit tests) and a NUL; the first 8 bytes in hex."""
    files = digested_files(root)
    h = hashlib.sha256()
    for f in files:
        code = f.read_bytes()
        if f.suffix == ".rs":
            code = without_unit_tests(code)
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + code + b"\0")
    return h.hexdigest()[:16]


def test_the_engine_digest_is_a_function_of_the_sources_alone():
    """The extension's digest equals one computed from the sources' bytes and their paths
    within the tree: no absolute path enters it (one would make a clone's sweep cache and
    every dated note differ from the tree that built them). An extension built from other
    sources than these (a stale build) fails here too: rebuild it (scripts/bootstrap.sh)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "crates" / "hscc-py" / "build.rs").is_file():
        pytest.skip("not a source tree: the engine's sources are not here")
    assert _core.engine_digest() == tree_digest(root)


def test_a_unit_test_edit_leaves_the_digest_and_a_code_edit_moves_it():
    code = b"fn f() -> u32 {\n    1\n}\n"
    tests = b"\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn one() {\n        assert_eq!(super::f(), 1);\n    }\n}\n"
    kept = without_unit_tests(code + tests)
    assert kept == code + b"\n"  # up to the blank line before the module
    assert without_unit_tests(code + tests.replace(b"1);", b"2);")) == kept
    assert without_unit_tests(code.replace(b"1", b"2") + tests) != kept
    # An item after the module, or a line of it at column 0: the whole file counts.
    after = code + tests + b"fn g() {}\n"
    assert without_unit_tests(after) == after
    raw = code + tests.replace(b"        assert", b"assert")
    assert without_unit_tests(raw) == raw
    root = Path(__file__).resolve().parents[2]
    stack = root / "crates/hscc-sim/src/scenario/stack/mod.rs"
    if stack.is_file():
        text = stack.read_bytes()
        assert without_unit_tests(text) != text, "its unit tests are left out"


def test_every_file_hscc_program_embeds_is_in_the_digest():
    """hscc-program compiles its runtime and the shim's headers into every program file
    (`include_str!`): each such file decides a program's runs, so each is digested."""
    import re

    root = Path(__file__).resolve().parents[2]
    src = root / "crates" / "hscc-program" / "src"
    if not src.is_dir():
        pytest.skip("not a source tree")
    embedded = {
        (rs.parent / m).resolve()
        for rs in src.glob("*.rs")
        for m in re.findall(r'include_str!\("([^"]+)"\)', rs.read_text())
    }
    assert len(embedded) >= 8, embedded
    missing = embedded - {f.resolve() for f in digested_files(root)}
    assert not missing, missing


def test_every_crate_the_extension_runs_is_in_the_digest():
    """The crates hscc-py depends on, directly or through each other (path dependencies),
    are the digest's: a crate that decides a run's numbers (a default in the configuration,
    a user program's runtime) and is left out would let a sweep reuse runs of other code."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    if not (root / "crates" / "hscc-py" / "Cargo.toml").is_file():
        pytest.skip("not a source tree")
    seen: set[str] = set()
    todo = ["hscc-py"]
    while todo:  # bounded: each crate is visited once
        name = todo.pop()
        manifest = tomllib.loads((root / "crates" / name / "Cargo.toml").read_text())
        for dep, spec in manifest.get("dependencies", {}).items():
            if isinstance(spec, dict) and "path" in spec and dep not in seen:
                seen.add(dep)
                todo.append(dep)
    assert seen == set(DIGESTED)


def test_the_platform_name_is_python_s_without_its_uname_process():
    import platform

    assert provenance.platform_name() == platform.platform()
