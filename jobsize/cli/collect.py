"""``jobsize collect``: turn Hadoop's job histories, REST APIs and traces into job records.

    jobsize collect jhs URL -o TRACE [--since T] [--until T] [--user U] [--queue Q] [--state S]
                                     [--limit N] [--parallel N] [--no-attempts] [HTTP options]
    jobsize collect jhist PATH... -o TRACE
    jobsize collect rumen FILE -o TRACE
    jobsize collect sls FILE -o TRACE
    jobsize collect sls-synth SPEC -o TRACE [--seed S] [--jobs N]
    jobsize collect swim FILE -o TRACE
    jobsize collect rm URL [--nodes] [HTTP options]

Traces are parquet; task-attempt rows go beside them as ``TRACE.tasks.parquet`` (jhs, jhist,
rumen, sls, sls-synth), the two committed together. Probe jobs (``jobsize probe`` runs) found by
jhs and jhist are joined to the jobs they probed, filling their ``probe_*`` columns, and listed
in ``TRACE.probes.parquet`` rather than counted as jobs. Every job is checked before it is
stored (:mod:`jobsize.validation`): ``--on-bad-record fail`` (the default) stops at the first
one with an impossible value and names it, ``skip`` leaves such jobs out and lists them.
``collect jhs`` skips jobs already in TRACE and exits 1 if some job could not be fetched, after
naming each one.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from jobsize.atomic import prepare
from jobsize.cli._options import count, hidden_alias, positive_number
from jobsize.errors import ConfigError
from jobsize.progress import progress_bar
from jobsize.schema import empty_tasks, tasks_path, write_trace, write_trace_with_tasks


def _since(text: str) -> int | str:
    """Epoch milliseconds, an ISO-8601 date or date-time (UTC unless it says), or ``last``."""
    if text == "last":
        return text
    if text.isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected epoch ms, an ISO date/time or 'last', got {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _http_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("HTTP")
    tls = group.add_mutually_exclusive_group()
    tls.add_argument("--ca-bundle", metavar="PEM", help="verify TLS against this CA bundle")
    tls.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    group.add_argument("--kerberos", action="store_true",
                       help="authenticate with SPNEGO (needs the 'kerberos' extra and a ticket)")
    group.add_argument("--timeout", type=positive_number, default=60.0, metavar="S",
                       help="seconds to wait for an answer (default: 60)")
    group.add_argument("--retries", type=int, default=5, metavar="N",
                       help="retries after a connection error, timeout, 5xx or broken answer, "
                       "with exponential backoff (default: 5)")


def _http_options(args: argparse.Namespace, pool: int = 16) -> dict[str, Any]:
    if args.retries < 0:
        raise ConfigError(f"--retries must be ≥ 0, not {args.retries}")
    verify: bool | str = args.ca_bundle or not args.insecure
    return {"timeout": (min(10.0, args.timeout), args.timeout), "retries": args.retries,
            "verify": verify, "kerberos": args.kerberos, "pool": pool}


def _record_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--on-bad-record", choices=("fail", "skip"), default="fail",
                        help="a job with an impossible value (a negative count, an unknown "
                        "state, ...): fail (stop and name it; the default) or skip (leave it "
                        "out, list it on stderr)")


def _check(args: argparse.Namespace) -> Any:
    from jobsize.validation import RecordCheck

    return RecordCheck(args.on_bad_record)


def _report(rejected: list) -> None:
    for rejection in rejected:
        print(f"jobsize: skipped: {rejection}", file=sys.stderr)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "collect", help="collect job records from Hadoop (JHS, RM, .jhist, Rumen, SLS, SWIM)",
        description="Turn Hadoop's job histories, REST APIs and workload traces into job-record "
        "traces (parquet).")
    sub = parser.add_subparsers(dest="source", metavar="SOURCE", required=True)

    jhs = sub.add_parser("jhs", help="finished jobs from a MapReduce JobHistory Server",
                         description="Collect finished jobs from a JobHistory Server's REST API "
                         "into TRACE. Jobs already in TRACE are skipped; the trace is rewritten "
                         "atomically as the run goes, so an interrupted run resumes.")
    jhs.add_argument("url", metavar="URL", help="JobHistory Server, e.g. http://jhs:19888")
    jhs.add_argument("-o", "--output", required=True, metavar="TRACE")
    jhs.add_argument("--since", type=_since, metavar="T",
                     help="only jobs finished at or after T: epoch ms, ISO date/time (UTC), or "
                     "'last' for the latest finish time already in TRACE")
    jhs.add_argument("--until", type=_since, metavar="T", help="only jobs finished by T")
    jhs.add_argument("--user", metavar="U")
    jhs.add_argument("--queue", metavar="Q")
    jhs.add_argument("--state", choices=("SUCCEEDED", "FAILED", "KILLED", "ERROR"))
    jhs.add_argument("--limit", type=count(1), metavar="N", help="at most N jobs listed")
    jhs.add_argument("--parallel", type=count(1), default=8, metavar="N",
                     help="jobs fetched at once (default: 8)")
    hidden_alias(jhs, "--workers", dest="parallel", type=count(1))
    jhs.add_argument("--no-attempts", action="store_true",
                     help="skip per-task attempt requests; SE_m/SE_r from the job's averages")
    jhs.add_argument("--checkpoint", type=count(1), default=200, metavar="N",
                     help="commit the trace every N jobs (default: 200)")
    _record_arguments(jhs)
    _http_arguments(jhs)
    jhs.set_defaults(func=_run_jhs)

    jhist = sub.add_parser("jhist", help=".jhist job history files (and their _conf.xml)")
    jhist.add_argument("paths", nargs="+", metavar="PATH",
                       help=".jhist files or directories to search")
    jhist.add_argument("-o", "--output", required=True, metavar="TRACE")
    _record_arguments(jhist)
    jhist.set_defaults(func=_run_jhist)

    for name, text in (("rumen", "a Rumen job trace (.json or .json.gz)"),
                       ("sls", "an SLS job trace"), ("swim", "a SWIM workload (.tsv)")):
        trace = sub.add_parser(name, help=text)
        trace.add_argument("file", metavar="FILE")
        trace.add_argument("-o", "--output", required=True, metavar="TRACE")
        _record_arguments(trace)
        trace.set_defaults(func=_run_trace, kind=name)

    synth = sub.add_parser("sls-synth", help="jobs drawn from an SLS synthetic spec (syn.json)",
                           description="Draw jobs from an SLS SYNTH workload spec as SLS's "
                           "synthetic job producer does: workloads, job classes and submission "
                           "times by weight; task counts, container sizes and task durations "
                           "from the spec's distributions.")
    synth.add_argument("file", metavar="SPEC")
    synth.add_argument("-o", "--output", required=True, metavar="TRACE")
    synth.add_argument("--seed", type=int, default=None,
                       help="seed of the draw (default: the spec's rand_seed)")
    synth.add_argument("--jobs", type=int, default=None, metavar="N",
                       help="jobs to draw (default: the spec's num_jobs)")
    _record_arguments(synth)
    synth.set_defaults(func=_run_trace, kind="sls-synth")

    rm = sub.add_parser("rm", help="cluster resources (CR) from a ResourceManager",
                        description="Print the cluster's total memory and vcores (the paper's "
                        "CR) from the ResourceManager REST API.")
    rm.add_argument("url", metavar="URL", help="ResourceManager, e.g. http://rm:8088")
    rm.add_argument("--nodes", action="store_true", help="also list the nodes")
    _http_arguments(rm)
    rm.set_defaults(func=_run_rm)


def _run_jhs(args: argparse.Namespace) -> int:
    from jobsize.collectors.jhs import JobFilter, collect_jhs
    from jobsize.collectors.rest import HttpOptions

    since = args.since
    query = JobFilter(state=args.state, user=args.user, queue=args.queue,
                      finished_begin_ms=None if since == "last" else since,
                      finished_end_ms=None if args.until == "last" else args.until,
                      limit=args.limit)
    options = HttpOptions(**_http_options(args, pool=args.parallel))
    with contextlib.ExitStack() as stack:
        advance: list = []
        # Listing can take a while (a slow server, retries): report it until the count is known.
        listing = stack.enter_context(contextlib.ExitStack())
        listing.enter_context(progress_bar(f"listing jobs at {args.url}"))

        def on_total(total: int) -> None:
            listing.close()
            advance.append(stack.enter_context(progress_bar("jobs", total=total)))

        result = collect_jhs(args.url, args.output, query=query, since_last=since == "last",
                             attempts=not args.no_attempts, workers=args.parallel,
                             checkpoint=args.checkpoint, options=options, on_total=on_total,
                             advance=lambda n=1: advance[0](n) if advance else None,
                             check=_check(args))
    _report(result.rejected)
    print(f"{result.output}: {result.collected} jobs collected, {result.skipped} already there"
          f" ({result.listed} listed)")
    if result.probes or result.probes_joined or result.probes_unjoined:
        print(f"{result.probes} probe jobs collected, {result.probes_joined} joined to their "
              f"jobs, {len(result.probes_unjoined)} not joined")
        _list_unjoined(result.probes_unjoined)
    if result.failed:
        print(f"jobsize: {len(result.failed)} jobs could not be collected "
              "(run again to retry them):", file=sys.stderr)
        for job_id, reason in result.failed.items():
            print(f"  {job_id}: {reason}", file=sys.stderr)
        return 1
    return 0


def _run_jhist(args: argparse.Namespace) -> int:
    from jobsize.collectors.jhist import collect_jhist, find_jhist
    from jobsize.collectors.probe_join import probes_path, write_probes

    total = len(find_jhist(args.paths))
    check = _check(args)
    with progress_bar("history files", total=total) as advance:
        found = collect_jhist(args.paths, advance=advance, check=check)
    _report(check.rejected)
    jobs = found.jobs
    _write(jobs, found.tasks, args.output)
    if found.probes or probes_path(args.output).exists():
        write_probes(found.probes, args.output)
    incomplete = int((~jobs["complete"].fillna(False)).sum()) if len(jobs) else 0
    print(f"{args.output}: {len(jobs)} jobs from {total} files"
          + (f", {incomplete} incomplete (history cut short)" if incomplete else ""))
    _report_probes(found.report)
    return 0


def _report_probes(report: Any) -> None:
    """One line on the probes; each probe not joined, and why, on stderr."""
    if report.probes:
        print(report.summary())
        _list_unjoined(report.unjoined)


def _list_unjoined(unjoined: dict[str, str]) -> None:
    for job_id, reason in sorted(unjoined.items()):
        print(f"  probe {job_id} not joined: {reason}", file=sys.stderr)


def _run_trace(args: argparse.Namespace) -> int:
    tasks = None
    check = _check(args)
    if args.kind == "rumen":
        from jobsize.collectors.rumen import read_rumen
        jobs, tasks = read_rumen(args.file, check=check)
    elif args.kind == "sls":
        from jobsize.collectors.sls import read_sls
        jobs, tasks = read_sls(args.file, check=check)
    elif args.kind == "sls-synth":
        from jobsize.collectors.sls_synth import generate_sls_synth
        jobs, tasks = generate_sls_synth(args.file, seed=args.seed, num_jobs=args.jobs,
                                         check=check)
    else:
        from jobsize.collectors.swim import read_swim
        jobs = read_swim(args.file, check=check)
    _report(check.rejected)
    _write(jobs, tasks, args.output)
    extra = f" and {len(tasks)} task rows" if tasks is not None else ""
    print(f"{args.output}: {len(jobs)} jobs{extra}")
    return 0


def _write(jobs: pd.DataFrame, tasks: pd.DataFrame | None, output: str) -> None:
    """The trace and its task table as one commit; a trace without tasks replaces an older
    task table beside it with an empty one, so the two always belong together."""
    prepare(output, tasks_path(output))
    if tasks is None and not tasks_path(output).exists():
        write_trace(jobs, Path(output))
        return
    write_trace_with_tasks(jobs, tasks if tasks is not None else empty_tasks(), output)


def _run_rm(args: argparse.Namespace) -> int:
    from jobsize.collectors.rm import cluster_nodes, cluster_resources

    options = _http_options(args)
    memory, vcores = cluster_resources(args.url, **options)
    print(f"cluster resources (CR): {memory} MB memory, {vcores} vcores")
    if args.nodes:
        nodes = cluster_nodes(args.url, **options)
        print(nodes.to_string(index=False) if len(nodes) else "no nodes")
    return 0
