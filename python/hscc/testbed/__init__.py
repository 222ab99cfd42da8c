"""The testbed: an hscc scenario run on the Linux kernel of this machine, with
real TCP sockets in network namespaces, written as the run directory a
simulation writes (`hscc testbed run`; `hscc compare` puts two runs side by side).

- `plan`: what the testbed builds for a scenario, and what it refuses (by field).
- `limits`: the rate × delay this machine sustains; the delay line's stall bound.
- `network`: the namespaces, veths, TUN routing, HTB + pfifo bottleneck, random loss.
- `build`: the delay line (delayline.c) and loss classifier (loss.bpf.c), compiled on first use.
- `endpoint`: the senders and receivers (run inside the namespaces).
- `record`: kernel counters and samples into hscc's run-directory tables.
- `run`: the order of it all, and the clean-up on success, error and Ctrl-C.

See docs/testbed.md.
"""

from hscc.testbed.plan import TestbedError
from hscc.testbed.run import run

__all__ = ["TestbedError", "run"]
