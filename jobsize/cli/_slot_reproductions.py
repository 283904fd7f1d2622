"""``jobsize simulate --reproduce mrorder|dynamicmr|rasooli``: the reproductions of the MRv1
slot schedulers' papers (:mod:`jobsize.sim.reproductions`). Imports nothing heavy until a run."""

from __future__ import annotations

import argparse
import shlex

from jobsize.errors import ConfigError
from jobsize.progress import progress_bar

REPRODUCTIONS = ("mrorder", "dynamicmr", "rasooli")
#: the reproductions whose schedulers need sizes: run on exact and on predicted ones
SIZED = ("mrorder", "rasooli")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("MROrder, DynamicMR and Rasooli-Down reproductions (MRv1 "
                                  "slots)")
    g.add_argument("--replications", type=int, metavar="N",
                   help="runs (seeds) per setting of --reproduce mrorder|dynamicmr|rasooli "
                   "(defaults 5, 5 and 10)")


def run_reproduction(args: argparse.Namespace, *, cost_model: object, seed: int) -> int:
    """Run the reproduction, write report.md and the CSVs into ``-o``, print the report."""
    import importlib

    from jobsize.sim.load import load_workload

    module = importlib.import_module(f"jobsize.sim.reproductions.{args.reproduce}")
    swim = load_workload(args.workload, args.format, cost_model=cost_model,  # type: ignore[arg-type]
                         seed=seed)
    options: dict[str, object] = {}
    if args.replications is not None:
        if args.replications < 1:
            raise ConfigError("--replications: at least 1")
        if args.reproduce == "rasooli":
            options["replications"] = args.replications
        else:
            options["seeds"] = tuple(range(args.replications))
    if args.size_source and args.reproduce not in SIZED:
        raise ConfigError(f"--size-source: --reproduce {args.reproduce} schedules without "
                          f"sizes (it applies to {' and '.join(SIZED)})")
    if args.reproduce in SIZED:
        from jobsize.sim.predicted import ProbeCost, parse_size_source

        options["predicted"] = parse_size_source(
            args.size_source or "errors", seed=seed,
            probe=ProbeCost(startup_s=args.probe_startup), reference=args.reference)
    with progress_bar(f"reproducing {args.reproduce}",
                      total=module.n_tasks(swim, **options)) as advance:
        result = module.run(swim, n_jobs=args.parallel, advance=advance, **options)
    command = (f"jobsize simulate --reproduce {args.reproduce} "
               f"--workload {shlex.quote(str(args.workload))}")
    if args.replications is not None:
        command += f" --replications {args.replications}"
    if args.size_source:
        command += f" --size-source {shlex.quote(args.size_source)}"
    command += f" -o {shlex.quote(str(args.output))}"
    path = module.write_report(result, args.output, command)
    print(path.read_text())
    return 0
