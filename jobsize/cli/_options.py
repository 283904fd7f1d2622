"""Options that several commands share, in one vocabulary.

Every command spells the same idea the same way: ``-o/--output`` for what it writes,
``--parallel N`` for worker processes, ``--seed`` for randomness, ``--model`` for a model file.
Spellings of earlier releases stay accepted as hidden aliases (:func:`hidden_alias`) for one
release. This module imports nothing heavy, so ``jobsize CMD --help`` stays fast.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}

#: -D keys that set container sizes, and the ``Containers`` field each sets.
CONTAINER_KEYS = {
    "mapreduce.map.memory.mb": "map_memory_mb",
    "mapreduce.map.cpu.vcores": "map_vcores",
    "mapreduce.reduce.memory.mb": "reduce_memory_mb",
    "mapreduce.reduce.cpu.vcores": "reduce_vcores",
    "yarn.app.mapreduce.am.resource.mb": "am_memory_mb",
    "yarn.app.mapreduce.am.resource.cpu-vcores": "am_vcores",
}

#: The map-count hint's key and Hadoop's default for it (mapred-default.xml).
MAP_HINT_KEY = "mapreduce.job.maps"
DEFAULT_MAP_HINT = 2


def byte_size(text: str) -> int:
    """``65536``, ``64K``, ``64M``, ``1G`` (binary units; a trailing ``B``/``iB`` is allowed)."""
    match = re.fullmatch(r"\s*(\d{1,15})\s*([KMGT]?)(?:I?B)?\s*", text, flags=re.IGNORECASE)
    if not match or int(match.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"not a positive byte size: {text!r} (e.g. 64M)")
    return int(match.group(1)) * _UNITS[match.group(2).upper()]


def byte_size_or_zero(text: str) -> int:
    """:func:`byte_size`, or ``0`` (none)."""
    return 0 if text.strip() == "0" else byte_size(text)


def count(minimum: int) -> Callable[[str], int]:
    """An integer option of at least ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


def count_or_all(text: str) -> int:
    """A number of workers: at least 1, or -1 for all cores (joblib's ``n_jobs``; its other
    negative values are refused)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1 and value != -1:
        raise argparse.ArgumentTypeError(f"must be at least 1, or -1 for all cores, got {value}")
    return value


def _number(text: str) -> float:
    if not text.isascii():  # float() reads other scripts' digits; a command line should not
        raise argparse.ArgumentTypeError(f"not a number: {text!r}")
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def positive_number(text: str) -> float:
    """A finite number greater than 0."""
    value = _number(text)
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def fraction(text: str) -> float:
    """A number in (0, 1]."""
    value = _number(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text!r}")
    return value


def share(text: str) -> float:
    """A number in [0, 1]."""
    value = _number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return value


def locality_spec(text: str) -> tuple[int, float]:
    """``REPLICAS[/REMOTE_S]``: replicas per block (≥ 1) and a remote read's extra seconds (5)."""
    replicas, _, remote = text.partition("/")
    if not (replicas.isascii() and replicas.isdigit() and int(replicas) >= 1):
        raise argparse.ArgumentTypeError(f"expected REPLICAS[/REMOTE_S], REPLICAS a whole "
                                         f"number ≥ 1, got {text!r}")
    remote_s = _number(remote) if remote else 5.0
    if not (remote_s >= 0 and math.isfinite(remote_s)):
        raise argparse.ArgumentTypeError(f"REMOTE_S must be a number of seconds ≥ 0, got {text!r}")
    return int(replicas), remote_s


def stragglers_spec(text: str) -> tuple[float, float, float]:
    """``P[/LO-HI]``: an attempt's probability of straggling and its slowdown range (3-6)."""
    p_text, _, slowdown = text.partition("/")
    lo_text, dash, hi_text = (slowdown or "3-6").partition("-")
    if not dash:
        raise argparse.ArgumentTypeError(f"expected P[/LO-HI], got {text!r}")
    p, lo, hi = _number(p_text), _number(lo_text), _number(hi_text)
    if not (0 <= p <= 1 and 1 <= lo <= hi and math.isfinite(hi)):
        raise argparse.ArgumentTypeError(f"expected P in [0, 1] and 1 ≤ LO ≤ HI, got {text!r}")
    return p, lo, hi


def level(text: str) -> float:
    """An interval level (coverage): a number strictly between 0 and 1."""
    value = _number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value


def name_list(text: str, known: Callable[[str], bool], noun: str, choices: str
              ) -> tuple[str, ...]:
    """A comma-separated list of names each ``known`` accepts; else "unknown NOUN X; CHOICES"."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if not known(n)]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown {noun} {unknown[0] if unknown else text!r}; {choices}")
    return names


def property_pair(text: str) -> tuple[str, str]:
    """``-D KEY=VALUE``."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def hidden_alias(parser: argparse.ArgumentParser | Any, *flags: str, dest: str,
                 **kwargs: Any) -> None:
    """Accept an earlier spelling of an option without listing it in ``--help``."""
    parser.add_argument(*flags, dest=dest, help=argparse.SUPPRESS,
                        default=argparse.SUPPRESS, **kwargs)


def require(parser: argparse.ArgumentParser, dest: str, flag: str) -> None:
    """Make ``flag`` required where a hidden earlier spelling may also give it (argparse's own
    ``required`` would refuse the old spelling); :func:`jobsize.cli.main` checks it."""
    required = dict(parser.get_default("_required") or {})
    required[dest] = flag
    parser.set_defaults(_required=required)


def add_output(parser: argparse.ArgumentParser, *, required: bool = True,
               metavar: str = "PATH", help: str, old: tuple[str, ...] = (),
               **kwargs: Any) -> None:
    """``-o/--output`` (and earlier spellings such as ``--out`` hidden)."""
    parser.add_argument("-o", "--output", metavar=metavar, help=help, default=None, **kwargs)
    if old:
        hidden_alias(parser, *old, dest="output", **kwargs)
    if required:
        require(parser, "output", "-o/--output")


def add_parallel(parser: argparse.ArgumentParser, *, help: str, default: int | None = None,
                 old: tuple[str, ...] = ("--workers",), minimum: int = 1) -> None:
    """``--parallel N``: worker processes (earlier ``--workers`` hidden)."""
    parser.add_argument("--parallel", type=count(minimum), default=default, metavar="N",
                        help=help)
    if old:
        hidden_alias(parser, *old, dest="parallel", type=count(minimum))


def add_job_arguments(parser: argparse.ArgumentParser, *, reduces_default: int | None,
                      required: bool = True) -> None:
    """The options ``run`` and ``probe`` share: inputs, functions, task counts, properties.
    ``required=False`` leaves ``--input`` and ``--mapper`` optional (the command checks)."""
    parser.add_argument("--input", "-i", dest="inputs", nargs="+", required=required,
                        metavar="INPUT", help="input files or directories")
    parser.add_argument("--mapper", required=required, metavar="CMD",
                        help="map command (split like a shell would, e.g. 'python3 map.py')")
    parser.add_argument("--reducer", default=None, metavar="CMD",
                        help="reduce command; NONE or omitted: no reducer")
    parser.add_argument("--combiner", default=None, metavar="CMD", help="combine command")
    add_task_counts(parser, reduces_default=reduces_default, maps_hint=True,
                    maps_help="Hadoop's hint for the number of map tasks: the input is cut "
                    "into total/N-byte splits, at most --split-size, and N_m is their number")
    parser.add_argument("--split-size", type=byte_size, default=None, metavar="BYTES",
                        help="largest split, e.g. 128M (default: the 64M block size)")
    parser.add_argument("-D", dest="properties", type=property_pair, action="append",
                        default=[], metavar="KEY=VALUE",
                        help="a job property, e.g. mapreduce.map.memory.mb=2048 (repeatable)")
    parser.add_argument("--name", default=None, help="job name")
    parser.add_argument("--queue", default=None, help="queue name")


def add_task_counts(parser: argparse.ArgumentParser, *, reduces_default: int | None,
                    maps_help: str = "the job's number of map tasks N_m",
                    maps_hint: bool = False) -> None:
    """``--maps N`` and ``--reduces R`` (``-r``; ``-m`` kept hidden: it means --model
    elsewhere). With ``maps_hint`` --maps is Hadoop's hint and may be left out
    (:func:`map_hint`); otherwise it is the job's N_m and required."""
    default = (f"default: -D {MAP_HINT_KEY}, else Hadoop's {DEFAULT_MAP_HINT}" if maps_hint
               else "required")
    parser.add_argument("--maps", dest="n_maps", type=count(1), metavar="N",
                        help=f"{maps_help} ({default})")
    hidden_alias(parser, "-m", dest="n_maps", type=count(1))
    if not maps_hint:
        require(parser, "n_maps", "--maps")
    parser.add_argument("--reduces", "-r", dest="n_reduces", type=count(0),
                        default=reduces_default, required=reduces_default is None,
                        metavar="R", help="number of reduce tasks N_r (0: map-only)")


def map_hint(args: argparse.Namespace) -> int:
    """The job's map-count hint: ``--maps``, else ``-D mapreduce.job.maps``, else Hadoop's
    default (mapred-default.xml), as Hadoop Streaming takes it."""
    from jobsize.errors import ConfigError

    if args.n_maps is not None:
        return int(args.n_maps)
    given = dict(args.properties).get(MAP_HINT_KEY)
    if given is None:
        return DEFAULT_MAP_HINT
    try:
        value = int(given)
    except ValueError:
        raise ConfigError(f"{MAP_HINT_KEY} must be an integer, got {given!r}",
                          where="-D") from None
    if value < 1:
        raise ConfigError(f"{MAP_HINT_KEY} must be at least 1, got {value}", where="-D")
    return value


def reducer_of(args: argparse.Namespace) -> str | None:
    return None if args.reducer in (None, "NONE") else args.reducer


def job_properties(args: argparse.Namespace) -> dict[str, str]:
    """The job's ``-D`` properties with its identity (``jobsize.probe.id``), derived from its
    input, programs and user unless given, so that ``probe`` and ``run`` of the same job carry
    the same one (:mod:`jobsize.sampler.identity`)."""
    from jobsize.sampler.identity import with_identity

    return with_identity(dict(args.properties), inputs=args.inputs, mapper=args.mapper,
                         reducer=reducer_of(args), combiner=args.combiner,
                         n_reduces=args.n_reduces or 0)


def containers(conf: Mapping[str, str]) -> Any:
    """Container sizes (``jobsize.engine.Containers``) from ``-D`` properties (Hadoop's keys),
    defaults elsewhere."""
    from jobsize.engine.spec import Containers
    from jobsize.errors import ConfigError

    sizes = {}
    for key, name in CONTAINER_KEYS.items():
        if key in conf:
            try:
                sizes[name] = int(conf[key])
            except ValueError:
                raise ConfigError(f"{key} must be an integer, got {conf[key]!r}",
                                  where="-D") from None
            if sizes[name] < 1:
                raise ConfigError(f"{key} must be positive, got {sizes[name]}", where="-D")
    return Containers(**sizes)


def add_sample_budget(parser: argparse.ArgumentParser) -> None:
    """The probe's budget on its sample (``sample`` and ``probe``)."""
    parser.add_argument("--max-fraction", type=fraction, default=None, metavar="F",
                        help="a budget: the sample is at most this fraction of the input "
                        "(default: Algorithm 1's 1/max(N_m, N_r), uncapped)")
    parser.add_argument("--min-sample", type=byte_size_or_zero, default=None, metavar="BYTES",
                        help="but with --max-fraction never fewer bytes than this where the "
                        "input has them, too few records to time and count (default: 128K; "
                        "0: none)")


def add_uber_sizing(parser: argparse.ArgumentParser) -> None:
    """How jobs Hadoop runs in uber mode are sized (``probe`` and ``evaluate``): probed, as
    any job, by default, or unprobed and sized from the history's uber jobs, the paper's way
    (where a kind the history never ran comes out at a third of its size)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--uber-from-history", dest="probe_uber", action="store_false",
                       help="probe no job that Hadoop runs in uber mode: size it from the "
                       "history's uber jobs, unprobed, as the paper does (default: probe it, "
                       "and size it from its probe)")
    # the default since uber jobs are probed; kept so that earlier command lines still run
    group.add_argument("--force", dest="probe_uber", action="store_true",
                       help=argparse.SUPPRESS)
    parser.set_defaults(probe_uber=True)


def sample_budget(args: argparse.Namespace) -> dict[str, Any]:
    """The ``max_fraction`` and ``min_bytes`` of :func:`add_sample_budget`, defaults filled."""
    from jobsize.sampler.sampling import DEFAULT_MAX_FRACTION, DEFAULT_MIN_SAMPLE_BYTES

    return {"max_fraction": DEFAULT_MAX_FRACTION if args.max_fraction is None
            else args.max_fraction,
            "min_bytes": DEFAULT_MIN_SAMPLE_BYTES if args.min_sample is None else args.min_sample}


def add_cluster(parser: argparse.ArgumentParser | argparse._ArgumentGroup, *,
                when: str = "") -> None:
    """``--cluster DIR``: the Hadoop mini cluster a command uses (``jobsize hadoop up``)."""
    parser.add_argument("--cluster", default=None, metavar="DIR",
                        help=f"{when}the mini cluster's directory (default "
                        "$JOBSIZE_HADOOP_DIR, else ~/.cache/jobsize/hadoop/cluster)")


def add_webhdfs_arguments(parser: argparse.ArgumentParser) -> None:
    """How to authenticate to WebHDFS inputs (``sample`` and ``probe``)."""
    parser.add_argument("--user", default=None,
                        help="WebHDFS user.name (default $HADOOP_USER_NAME or the login name)")
    parser.add_argument("--delegation", default=None, metavar="TOKEN",
                        help="WebHDFS delegation token")
    parser.add_argument("--kerberos", action="store_true",
                        help="WebHDFS with SPNEGO authentication from your Kerberos ticket "
                        "(needs pip install 'jobsize[kerberos]')")


def webhdfs_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``jobsize.sampler.splits.input_splits`` options of :func:`add_webhdfs_arguments`."""
    options: dict[str, Any] = {"user": args.user, "delegation": args.delegation}
    if args.kerberos:
        from jobsize.collectors.rest import spnego_auth
        options["auth"] = spnego_auth()
    return options


#: The simulator's default clusters: the FSPY paper's 8 nodes of 8 GB and 8 vcores, and on MRv1
#: slots 8 TaskTrackers of Hadoop 1's default two map and two reduce slots.
YARN_CLUSTER = "8x8g×8"
SLOT_CLUSTER = "8x2x2"


def cluster_spec(args: argparse.Namespace) -> str:
    """``--cluster``, or the default of the cluster model (slots: NODES×MAPS×REDUCES)."""
    if args.cluster:
        return args.cluster
    return SLOT_CLUSTER if getattr(args, "cluster_model", "yarn") == "slots" else YARN_CLUSTER
