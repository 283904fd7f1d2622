"""``jobsize report``: the size model's accuracy on a trace — the paper's Figures 2-4.

    jobsize report TRACE [--model MODEL.json] -o DIR [--features F] [--method M]

Writes fig2_SE_m.png, fig3_SE_r.png, fig4_S.png (predicted against actual, log-log, with the
diagonal), pairs.parquet and accuracy.md (R² beside the paper's) into DIR and prints the
summary. Without ``--model`` every job is predicted prequentially.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from jobsize.cli._options import add_output
from jobsize.models.design import FEATURE_SETS
from jobsize.models.variance import METHODS


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "report", help="size-model accuracy on a trace: predicted vs actual SE_m, SE_r, S",
        description="Predict every job of a trace with a fitted model (or prequentially) and "
        "write the paper's Figures 2-4 (predicted vs actual SE_m, SE_r and S on log-log axes "
        "with the diagonal), their R² and a markdown summary.")
    p.add_argument("trace", type=Path, metavar="TRACE", help="parquet trace of job records")
    p.add_argument("--model", type=Path, metavar="MODEL.json",
                   help="fitted model (jobsize fit -o); without it each job is predicted "
                   "by a model fitted on the jobs that finished before it")
    p.add_argument("--features", choices=FEATURE_SETS, default="probe",
                   help="prequential mode: probe (the paper's) or actual counters")
    p.add_argument("--method", choices=METHODS, default="gls",
                   help="prequential mode: fitting method (default gls)")
    add_output(p, metavar="DIR", help="output directory", type=Path, old=("--out",))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from jobsize.accuracy import accuracy, markdown, write_accuracy_report
    from jobsize.schema import read_trace

    records = read_trace(args.trace)
    report = accuracy(records, args.model, trace=str(args.trace), features=args.features,
                      method=args.method)
    write_accuracy_report(report, args.output)
    print(markdown(report))
    print(f"figures and pairs in {args.output}")
    return 0
