"""What running hscc's programs in this kernel needs, and which of it is missing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

BTF = Path("/sys/kernel/btf/vmlinux")
LIBBPF_HEADER = Path("/usr/include/bpf/libbpf.h")

# The Debian/Ubuntu packages that provide the tools (.ci/run installs them).
APT_PACKAGES = "clang llvm bpftool libbpf-dev"


def missing_for_build() -> str | None:
    """Why bpf/ cannot be built here, or None."""
    if not BTF.exists():
        return f"this kernel has no BTF ({BTF} is missing), so no vmlinux.h and no struct_ops"
    for tool in ("clang", "bpftool", "make", "cc"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install {APT_PACKAGES})"
    if not LIBBPF_HEADER.exists():
        return f"libbpf's headers are not installed ({LIBBPF_HEADER}; apt-get install libbpf-dev)"
    return None


def missing_for_kernel() -> str | None:
    """Why programs cannot be registered here, or None."""
    reason = missing_for_build()
    if reason:
        return reason
    if os.geteuid() != 0:
        return "registering a struct_ops program needs root (CAP_BPF and CAP_NET_ADMIN)"
    return None


def missing_for_smoke() -> str | None:
    """Why the namespace smoke test cannot run here, or None."""
    reason = missing_for_kernel()
    if reason:
        return reason
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install iproute2)"
    return None
