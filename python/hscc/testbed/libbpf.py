"""The few libbpf calls the testbed makes from its own process (ctypes on
libbpf.so.1, from libbpf-dev): open, load and attach an object, read and write
its maps, reach the maps of a program tc loaded, and run a program once on a
packet (BPF_PROG_TEST_RUN). Everything is held by file descriptors of this
process, so the kernel detaches and frees it when the process ends, however it
ends: nothing is pinned."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
from pathlib import Path

from hscc.kernel.programs import KernelError

_P = ctypes.c_void_p


class _TestRunOpts(ctypes.Structure):  # struct bpf_test_run_opts (libbpf/bpf.h)
    _fields_ = [
        ("sz", ctypes.c_size_t),
        ("data_in", _P),
        ("data_out", _P),
        ("data_size_in", ctypes.c_uint32),
        ("data_size_out", ctypes.c_uint32),
        ("ctx_in", _P),
        ("ctx_out", _P),
        ("ctx_size_in", ctypes.c_uint32),
        ("ctx_size_out", ctypes.c_uint32),
        ("retval", ctypes.c_uint32),
        ("repeat", ctypes.c_int),
        ("duration", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("cpu", ctypes.c_uint32),
        ("batch_size", ctypes.c_uint32),
    ]


_SIGNATURES = {
    "bpf_object__open_file": (_P, [ctypes.c_char_p, _P]),
    "bpf_object__load": (ctypes.c_int, [_P]),
    "bpf_object__close": (None, [_P]),
    "bpf_object__find_program_by_name": (_P, [_P, ctypes.c_char_p]),
    "bpf_object__find_map_by_name": (_P, [_P, ctypes.c_char_p]),
    "bpf_program__fd": (ctypes.c_int, [_P]),
    "bpf_program__attach": (_P, [_P]),
    "bpf_link__destroy": (ctypes.c_int, [_P]),
    "bpf_map__fd": (ctypes.c_int, [_P]),
    "bpf_map_lookup_elem": (ctypes.c_int, [ctypes.c_int, _P, _P]),
    "bpf_map_update_elem": (ctypes.c_int, [ctypes.c_int, _P, _P, ctypes.c_uint64]),
    "bpf_map_get_next_key": (ctypes.c_int, [ctypes.c_int, _P, _P]),
    "bpf_map_get_fd_by_id": (ctypes.c_int, [ctypes.c_uint32]),
    "bpf_prog_test_run_opts": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_TestRunOpts)]),
}
_lib: ctypes.CDLL | None = None


def missing() -> str | None:
    """Why libbpf cannot be used here, or None."""
    try:
        _libbpf()
    except (OSError, AttributeError) as e:
        return f"libbpf.so.1 is not usable ({e}; apt-get install libbpf-dev)"
    return None


def _libbpf() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(ctypes.util.find_library("bpf") or "libbpf.so.1", use_errno=True)
        for name, (res, args) in _SIGNATURES.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        _lib = lib
    return _lib


def _check(ret: int, what: str) -> int:
    """libbpf returns -errno (its 1.0 convention)."""
    if ret < 0:
        raise KernelError(f"{what}: {os.strerror(-ret)}")
    return ret


def _errno(what: str) -> KernelError:
    return KernelError(f"{what}: {os.strerror(ctypes.get_errno())}")


class Object:
    """A BPF object file loaded into the kernel; `close` (or the end of a with block) detaches and frees it."""

    def __init__(self, path: Path) -> None:
        lib = _libbpf()
        self._obj = lib.bpf_object__open_file(str(path).encode(), None)
        if not self._obj:
            raise _errno(f"opening {path}")
        self._links: list[int] = []
        self.path = path

    def load(self) -> Object:
        _check(
            _libbpf().bpf_object__load(self._obj),
            f"loading {self.path.name} (the verifier's log is above)",
        )
        return self

    def _program(self, name: str) -> int:
        prog: int = _libbpf().bpf_object__find_program_by_name(self._obj, name.encode())
        if not prog:
            raise KernelError(f"{self.path.name} has no program {name}")
        return prog

    def program_fd(self, name: str) -> int:
        return _check(_libbpf().bpf_program__fd(self._program(name)), f"{name}'s descriptor")

    def attach(self, name: str) -> None:
        """Attach program `name` where its section says (a tracepoint, an fentry...)."""
        link = _libbpf().bpf_program__attach(self._program(name))
        if not link:
            raise _errno(f"attaching {name}")
        self._links.append(link)

    def map_fd(self, name: str) -> int:
        m = _libbpf().bpf_object__find_map_by_name(self._obj, name.encode())
        if not m:
            raise KernelError(f"{self.path.name} has no map {name}")
        return _check(_libbpf().bpf_map__fd(m), f"map {name}'s descriptor")

    def close(self) -> None:
        lib = _libbpf()
        while self._links:
            lib.bpf_link__destroy(self._links.pop())
        if self._obj:
            lib.bpf_object__close(self._obj)
            self._obj = None

    def __enter__(self) -> Object:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def lookup(fd: int, key: bytes, value_size: int) -> bytes | None:
    """The value at `key`, or None if there is none."""
    k, v = ctypes.create_string_buffer(key, len(key)), ctypes.create_string_buffer(value_size)
    if _libbpf().bpf_map_lookup_elem(fd, k, v) < 0:
        return None
    return v.raw


def update(fd: int, key: bytes, value: bytes) -> None:
    k, v = (
        ctypes.create_string_buffer(key, len(key)),
        ctypes.create_string_buffer(value, len(value)),
    )
    _check(_libbpf().bpf_map_update_elem(fd, k, v, 0), "updating a map")


def items(fd: int, key_size: int, value_size: int, most: int) -> list[tuple[bytes, bytes]]:
    """A hash map's entries (at most `most`: the map's size bounds the walk)."""
    lib = _libbpf()
    out: list[tuple[bytes, bytes]] = []
    key, nxt = None, ctypes.create_string_buffer(key_size)
    while len(out) < most and lib.bpf_map_get_next_key(fd, key, nxt) == 0:
        key = ctypes.create_string_buffer(nxt.raw, key_size)
        value = lookup(fd, key.raw, value_size)
        if value is not None:
            out.append((key.raw, value))
    return out


def test_run(prog_fd: int, packet: bytes, repeat: int = 1) -> int:
    """Run a program `repeat` times on `packet` (BPF_PROG_TEST_RUN); its last return value."""
    data = ctypes.create_string_buffer(packet, len(packet))
    opts = _TestRunOpts(
        sz=ctypes.sizeof(_TestRunOpts),
        data_in=ctypes.cast(data, _P),
        data_size_in=len(packet),
        repeat=repeat,
    )
    _check(_libbpf().bpf_prog_test_run_opts(prog_fd, ctypes.byref(opts)), "BPF_PROG_TEST_RUN")
    retval: int = opts.retval
    return retval


def tc_maps(ns: str, dev: str) -> dict[str, int]:
    """The maps of the BPF program tc attached to `dev`'s ingress in namespace `ns`, name -> descriptor (close them)."""
    filters = json.loads(
        _run("tc", "-n", ns, "-j", "filter", "show", "dev", dev, "ingress") or "[]"
    )
    ids = [f["options"]["prog"]["id"] for f in filters if "prog" in f.get("options", {})]
    if len(ids) != 1:
        raise KernelError(f"expected one BPF filter on {dev}'s ingress in {ns}, found {len(ids)}")
    prog = json.loads(_run("bpftool", "-j", "prog", "show", "id", str(ids[0])))
    out = {}
    for map_id in prog.get("map_ids", []):
        name = json.loads(_run("bpftool", "-j", "map", "show", "id", str(map_id)))["name"]
        out[name] = _check(_libbpf().bpf_map_get_fd_by_id(map_id), f"map {map_id}")
    return out


def _run(*cmd: str) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
    if r.returncode != 0:
        raise KernelError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout
