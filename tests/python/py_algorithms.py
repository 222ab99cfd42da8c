"""Python algorithms the tests run (a module, so a sweep's workers can import it)."""

from __future__ import annotations

import hscc


class PyReno(hscc.Algorithm):
    """Reno, as hscc.Algorithm's defaults have it."""

    name = "pyreno"


class PyBeta(hscc.Algorithm):
    """Reno with the reduction a parameter: keep `beta` of the window on a loss."""

    name = "pybeta"
    params = {"beta": 0.5}

    def ssthresh(self, tp):
        return max(int(tp.snd_cwnd * self.beta), 2)


class PyRaises(hscc.Algorithm):
    name = "pyraises"

    def cong_avoid(self, tp, ack, acked):
        if tp.snd_cwnd > 20:
            raise ValueError("an idea that does not work yet")
        super().cong_avoid(tp, ack, acked)
