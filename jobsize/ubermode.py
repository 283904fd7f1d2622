"""Whether MapReduce runs a job in uber mode: Hadoop's decision, from the job's configuration.

An uber job runs all its tasks one after another inside its ApplicationMaster's container. The
MapReduce AM decides it when the job is initialised (``JobImpl.makeUberDecision``), from the
job's configuration, which carries the cluster's ``mapred-site.xml`` values under the job's own
``-D`` settings. Every part of jobsize that must know — the probe (the record says so), the
predictor (they are sized differently), the local engine (it runs them in uber mode), bench
traces and the simulator — asks :func:`decide` with the configuration it has, and nothing else.
Where the configuration is silent, Hadoop's defaults (``mapred-default.xml``) apply; there is
no assumption of a cluster that enables uber mode.

The rule: uber mode is enabled (``mapreduce.job.ubertask.enable``, default **false**), and

- maps ≤ ``mapreduce.job.ubertask.maxmaps`` (default 9),
- reduces ≤ ``mapreduce.job.ubertask.maxreduces`` (default 1; Hadoop supports at most 1),
- input bytes ≤ ``mapreduce.job.ubertask.maxbytes`` (default: the HDFS block size
  ``dfs.blocksize``, 128 MB by default),
- the largest task container fits the AM's: map and reduce memory ≤
  ``yarn.app.mapreduce.am.resource.mb`` (1536) and vcores ≤
  ``yarn.app.mapreduce.am.resource.cpu-vcores`` (1),
- and the job is not a chain job (``mapreduce.job.map.class`` a ChainMapper or the reduce
  class a ChainReducer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from jobsize.errors import ConfigError

ENABLE = "mapreduce.job.ubertask.enable"
MAX_MAPS = "mapreduce.job.ubertask.maxmaps"
MAX_REDUCES = "mapreduce.job.ubertask.maxreduces"
MAX_BYTES = "mapreduce.job.ubertask.maxbytes"
BLOCK_SIZE = "dfs.blocksize"

#: mapred-default.xml / hdfs-default.xml / MRJobConfig defaults the decision reads.
HADOOP_DEFAULTS: dict[str, str] = {
    ENABLE: "false",
    MAX_MAPS: "9",
    MAX_REDUCES: "1",
    BLOCK_SIZE: str(128 << 20),
    "yarn.app.mapreduce.am.resource.mb": "1536",
    "yarn.app.mapreduce.am.resource.cpu-vcores": "1",
    "mapreduce.map.memory.mb": "1024",
    "mapreduce.reduce.memory.mb": "1024",
    "mapreduce.map.cpu.vcores": "1",
    "mapreduce.reduce.cpu.vcores": "1",
}

_SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


@dataclass(frozen=True)
class UberDecision:
    """The decision and the reason, naming the limit that decided it."""

    uber: bool
    reason: str


def _get(conf: Mapping[str, object], key: str) -> str:
    value = conf.get(key)
    if value is None and key == BLOCK_SIZE:
        value = conf.get("dfs.block.size")  # the deprecated name
    return str(HADOOP_DEFAULTS[key] if value is None else value).strip()


def _int(conf: Mapping[str, object], key: str) -> int:
    text = _get(conf, key)
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{key} must be an integer, got {text!r}") from None
    if not -(1 << 62) < value < 1 << 62:
        raise ConfigError(f"{key} is out of range: {text!r}")
    return value


def _bytes(conf: Mapping[str, object], key: str) -> int:
    """A byte size as Hadoop's ``getLongBytes`` reads it: digits with an optional k/m/g/t/p."""
    text = _get(conf, key)
    match = re.fullmatch(r"(\d{1,19})\s*([kmgtp]?)", text.lower())
    if not match:
        raise ConfigError(f"{key} must be a byte size such as 134217728 or 128m, got {text!r}")
    return int(match.group(1)) * _SUFFIX[match.group(2)]


def enabled(conf: Mapping[str, object] | None) -> bool:
    """``mapreduce.job.ubertask.enable`` (false unless set)."""
    return _get(conf or {}, ENABLE).lower() == "true"


def max_bytes(conf: Mapping[str, object] | None) -> int:
    """``mapreduce.job.ubertask.maxbytes``, else the block size."""
    conf = conf or {}
    return _bytes(conf, MAX_BYTES) if conf.get(MAX_BYTES) is not None else _bytes(conf,
                                                                                   BLOCK_SIZE)


def decide(n_maps: int, n_reduces: int, input_bytes: int,
           conf: Mapping[str, object] | None = None) -> UberDecision:
    """Hadoop's uber decision for a job of ``n_maps`` maps, ``n_reduces`` reduces and
    ``input_bytes`` of input under ``conf`` (job settings over the cluster's)."""
    conf = conf or {}
    if not enabled(conf):
        return UberDecision(False, f"uber mode is disabled ({ENABLE} is "
                                   f"{_get(conf, ENABLE)!r})")
    checks = (
        (n_maps <= _int(conf, MAX_MAPS), f"{n_maps} maps vs {MAX_MAPS} = {_int(conf, MAX_MAPS)}"),
        (n_reduces <= min(1, _int(conf, MAX_REDUCES)),
         f"{n_reduces} reduces vs {MAX_REDUCES} = {min(1, _int(conf, MAX_REDUCES))}"),
        (input_bytes <= max_bytes(conf),
         f"{input_bytes} input bytes vs {MAX_BYTES} = {max_bytes(conf)}"),
        (max(_int(conf, "mapreduce.map.memory.mb"), _int(conf, "mapreduce.reduce.memory.mb"))
         <= _int(conf, "yarn.app.mapreduce.am.resource.mb"),
         "task memory vs the AM's (yarn.app.mapreduce.am.resource.mb)"),
        (max(_int(conf, "mapreduce.map.cpu.vcores"), _int(conf, "mapreduce.reduce.cpu.vcores"))
         <= _int(conf, "yarn.app.mapreduce.am.resource.cpu-vcores"),
         "task vcores vs the AM's (yarn.app.mapreduce.am.resource.cpu-vcores)"),
        (not _chain(conf), "a chain job"),
    )
    failed = [why for ok, why in checks if not ok]
    if failed:
        return UberDecision(False, "not small enough for uber mode: " + "; ".join(failed))
    return UberDecision(True, "uber job: " + "; ".join(why for _, why in checks[:3]))


def _chain(conf: Mapping[str, object]) -> bool:
    for key in ("mapreduce.job.map.class", "mapreduce.job.reduce.class"):
        value = str(conf.get(key) or "")
        if value.endswith(("ChainMapper", "ChainReducer")):
            return True
    return False


def is_uber(n_maps: int, n_reduces: int, input_bytes: int,
            conf: Mapping[str, object] | None = None) -> bool:
    """:func:`decide`'s answer alone."""
    return decide(n_maps, n_reduces, input_bytes, conf).uber


def decide_array(n_maps, n_reduces, input_bytes, conf: Mapping[str, object] | None = None):
    """:func:`is_uber` over numpy arrays of jobs sharing one configuration (NaN: not uber)."""
    import numpy as np

    conf = conf or {}
    n_maps, n_reduces, input_bytes = (np.asarray(a, dtype=float)
                                      for a in (n_maps, n_reduces, input_bytes))
    if not enabled(conf) or _chain(conf) or not decide(1, 0, 0, conf).uber:
        return np.zeros(n_maps.shape, dtype=bool)  # off, or containers too large for the AM
    with np.errstate(invalid="ignore"):
        return ((n_maps <= _int(conf, MAX_MAPS))
                & (n_reduces <= min(1, _int(conf, MAX_REDUCES)))
                & (input_bytes <= max_bytes(conf)))
