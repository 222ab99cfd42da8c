"""What the testbed sustains on this machine: one CUBIC flow, 1 BDP buffer,
10 s, at each RATExRTT given (Mbit/s x ms), with the built-in limits lifted.

    sudo .venv/bin/python validation/testbed/limits.py 50x40 100x40 200x40 300x40 300x80 200x100 500x40

Prints per configuration the goodput after 3 s over the rate (0.965 is a full
link: 1448 payload bytes per 1500-byte packet), the minimum RTT, the delay
line's worst stall and share of packets more than 1 ms late, its overflow, the
TUN drops, its timer probe, the load average and whether the run was flagged.
docs/testbed.md, "Limits", has the table this produced and the limits chosen
from it (python/hscc/testbed/limits.py).
"""

import os
import sys
import tempfile

from hscc import load
from hscc import testbed as tb
from hscc.scenario import Scenario

if not sys.argv[1:] or {"-h", "--help"} & set(sys.argv[1:]):
    print(__doc__)
    sys.exit(0 if sys.argv[1:] else 2)

os.environ["HSCC_TESTBED_MAX_RATE"] = "1e10"
os.environ["HSCC_TESTBED_MAX_BDP"] = "1e10"

with tempfile.TemporaryDirectory() as tmp:
    for i, arg in enumerate(sys.argv[1:]):  # a configuration may be given more than once
        rate, rtt = (int(x) for x in arg.split("x"))
        sc = Scenario.parse(
            {
                "name": f"limits-{rate}-{rtt}",
                "duration": "10s",
                "output": {"sample_interval": "100ms"},
                "topology": {
                    "kind": "dumbbell",
                    "bottleneck": {"rate": f"{rate}Mbps", "delay": "1ms", "buffer": "1bdp"},
                    "pairs": [{"rate": "10Gbps", "rtt": f"{rtt}ms"}],
                },
                "flows": [{"pair": 0, "algorithm": "cubic"}],
            }
        )
        out = f"{tmp}/{i}-{rate}-{rtt}"
        load_avg = os.getloadavg()[0]
        tb.run(sc, out)
        r = load(out)
        k = r.manifest["kernel_run"]
        d = k["delay_line"]
        f = r.flows.row(0, named=True)
        steady = r.timeseries.filter(r.timeseries["time_s"] > 3)["throughput_bps"].mean() / (
            rate * 1e6
        )
        late = "/".join(f"{d[x]['late_1ms'] / max(1, d[x]['packets']):.2%}" for x in ("fwd", "rev"))
        print(
            f"{rate} Mbit/s x {rtt} ms: goodput after 3 s / rate {steady:.3f}, min RTT {f['min_rtt_s'] * 1e3:.2f} ms, "
            f"worst stall {d['fwd']['max_late_s'] * 1e3:.1f} / {d['rev']['max_late_s'] * 1e3:.1f} ms, > 1 ms late {late}, "
            f"overflow {d['fwd']['overflow'] + d['rev']['overflow']}, TUN drops {k['tun_tx_drops']}, timer probe {d['timer_probe_1ms']}, "
            f"load {load_avg:.1f}, flagged: {'; '.join(k['flags']) or 'no'}",
            flush=True,
        )
