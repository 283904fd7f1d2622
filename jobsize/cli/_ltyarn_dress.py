"""``jobsize simulate`` options of LTYARN and DRESS, and their reproductions
(``--reproduce ltyarn``, ``--reproduce dress``). Imports nothing heavy until a run."""

from __future__ import annotations

import argparse
import math
import time

from jobsize.cli._options import cluster_spec
from jobsize.errors import ConfigError
from jobsize.progress import progress_bar

REPRODUCTIONS = ("ltyarn", "dress")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("LTYARN (Tang's thesis, ch 5) and DRESS (Mao et al.), YARN "
                                  "model")
    g.add_argument("--ltyarn-queues", metavar="SPEC",
                   help="LTYARN's queue tree: path[:weight[:ltmm|mlrf|fifo[:min[:max]]]],... "
                   "with dotted paths (org.team); the order says how a queue shares among its "
                   "children, min/max are fractions of the cluster; 'root::mlrf' sets the "
                   "root's order. A job's queue column names a leaf (by path or last part); "
                   "other names become leaves under the root (default: all ltmm, weight 1)")
    g.add_argument("--ltyarn-quantum", type=float, default=60.0, metavar="S",
                   help="Q0, the root's time quantum in seconds (default 60)")
    g.add_argument("--ltyarn-fixed-quantum", action="store_true",
                   help="keep every quantum at Q0 (no Quantum Updater)")
    g.add_argument("--ltyarn-round", type=float, metavar="S",
                   help="round length L of the semi-long-term model S-LTMM (default: none, "
                   "history is kept for the whole run)")
    g.add_argument("--ltyarn-discount", type=float, default=1.0, metavar="ETA",
                   help="η of eq 5.7: resources a queue holds beyond its share count η "
                   "(default 1, no discount)")
    g.add_argument("--dress-theta", type=float, default=0.10, metavar="θ",
                   help="a job is large if it asks for more than θ of the cluster (0.1)")
    g.add_argument("--dress-delta", type=float, default=0.10, metavar="δ",
                   help="the small jobs' initial reserved share δ0 (0.1)")
    g.add_argument("--dress-delta-range", default="0:1", metavar="MIN:MAX",
                   help="bounds of the reserved share δ (default 0:1)")
    g.add_argument("--dress-classify", choices=("total", "available"), default="total",
                   help="compare a job's demand with θ × the cluster (default) or θ × the "
                   "free containers at its arrival (the paper's literal rule)")
    g.add_argument("--dress-lend", action="store_true",
                   help="a category may use the other's reservation while the other waits "
                   "for nothing")
    g.add_argument("--dress-leftover", choices=("split", "whole"), default="split",
                   help="Algorithm 3's last step: a small job takes what it can from its own "
                   "leftover first (default) or all from the large jobs' (the paper's lines "
                   "23-24)")


def _range(text: str) -> tuple[float, float]:
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return float(lo), float(hi)
    except ValueError:
        raise ConfigError(f"--dress-delta-range {text!r}: expected MIN:MAX like 0:1") from None


def scheduler_options(args: argparse.Namespace) -> dict[str, dict[str, object]]:
    """``make_scheduler`` options for ``ltyarn`` and ``dress`` from the command line."""
    from jobsize.sim.schedulers.ltyarn import parse_ltyarn_queues

    ltyarn: dict[str, object] = {
        "quantum_s": args.ltyarn_quantum, "adaptive": not args.ltyarn_fixed_quantum,
        "round_s": args.ltyarn_round if args.ltyarn_round is not None else math.inf,
        "discount": args.ltyarn_discount,
    }
    if args.ltyarn_queues:
        ltyarn["queues"] = parse_ltyarn_queues(args.ltyarn_queues)
    dress: dict[str, object] = {
        "theta": args.dress_theta, "delta": args.dress_delta,
        "delta_range": _range(args.dress_delta_range), "classify": args.dress_classify,
        "lend": args.dress_lend, "leftover": args.dress_leftover,
    }
    return {"ltyarn": ltyarn, "dress": dress}


def run_reproduction(args: argparse.Namespace, *, seeds: tuple[int, ...], cost_model) -> int:
    """``jobsize simulate --reproduce ltyarn|dress``: run, write report.md beside CSVs (and
    figures), print the report."""
    from jobsize.sim.load import load_workload

    options = scheduler_options(args)
    # validate the DRESS options before running anything
    from jobsize.sim.schedulers.dress import DRESS

    DRESS(**options["dress"])  # type: ignore[arg-type]
    workload = load_workload(args.workload, args.format, cost_model=cost_model, seed=seeds[0])
    t0 = time.perf_counter()
    if args.reproduce == "ltyarn":
        from jobsize.sim.reproductions import ltyarn

        runs = len(seeds) * len(ltyarn.LOADS) * len(ltyarn.POLICIES)
        with progress_bar("reproducing LTYARN", total=runs) as advance:
            rep = ltyarn.reproduce(workload.submit_s()[:100], seeds=seeds, loads=ltyarn.LOADS,
                                   policies=ltyarn.POLICIES, n_jobs=args.parallel,
                                   advance=advance)
        rep.meta["arrivals"] = f"the first 100 jobs of {workload.name}"
        rep.meta["elapsed_s"] = time.perf_counter() - t0
        ltyarn.write_report(rep, args.output, figures=not args.no_figures)
    else:
        from jobsize.sim.cluster import Cluster
        from jobsize.sim.metrics import Segmentation
        from jobsize.sim.reproductions import dress

        cluster = Cluster.parse(cluster_spec(args))
        workload.check_fits(cluster)
        segmentation = Segmentation.parse(args.segments)
        runs = len(seeds) * len(dress.SETTINGS) + len(segmentation.windows(workload.n_jobs))
        with progress_bar("reproducing DRESS", total=runs) as advance:
            rep = dress.reproduce(seeds=seeds, trace=workload, trace_cluster=cluster,
                                  segmentation=segmentation, dress=options["dress"],
                                  n_jobs=args.parallel, advance=advance)
        rep.meta["dress"] = ", ".join(f"{k}={v}" for k, v in options["dress"].items())
        rep.meta["elapsed_s"] = time.perf_counter() - t0
        dress.write_report(rep, args.output)
    print((args.output / "report.md").read_text())
    return 0
