"""The registry of reference workloads: shape of each entry, reduce rule, fast program start."""

from __future__ import annotations

import dataclasses
import importlib.util
import subprocess
import sys

import pytest

from jobsize.errors import ConfigError
from jobsize.workloads import (
    GENERATORS,
    HELD_OUT,
    HELD_OUT_PROFILES,
    PROFILES,
    WORKLOADS,
    MiB,
    Workload,
    workload,
)


def test_at_least_ten_workloads_with_varied_profiles():
    assert len(WORKLOADS) >= 10
    profiles = {w.profile for w in WORKLOADS.values()}
    assert {"map-heavy", "shuffle-heavy", "reduce-heavy", "map-only", "cpu-heavy map"} <= profiles
    assert profiles <= set(PROFILES)
    assert sum(w.map_only for w in WORKLOADS.values()) >= 3


@pytest.mark.parametrize("name", sorted(WORKLOADS) + sorted(HELD_OUT))
def test_entry_names_real_streaming_programs(name):
    w = workload(name)
    assert isinstance(w, Workload) and w.name == name
    with pytest.raises(dataclasses.FrozenInstanceError):
        w.name = "other"  # type: ignore[misc]
    for argv, role in ((w.mapper, "map"), (w.reducer, "reduce"), (w.combiner, "combine")):
        if argv is None:
            continue
        assert argv[0] == sys.executable and argv[1] == "-m" and argv[3] == role
        assert argv[2].startswith("jobsize.workloads.")
        assert importlib.util.find_spec(argv[2]) is not None
    assert w.n_inputs == (2 if name == "join" else 1)
    assert w.input_kind in GENERATORS
    assert w.description
    if name in WORKLOADS:
        assert w.profile in PROFILES and (w.profile == "map-only") == w.map_only
    else:
        assert w.profile in HELD_OUT_PROFILES
        assert w.map_only == (w.profile == "map-only expansion")


def test_held_out_workloads_are_apart_each_with_its_own_shape():
    assert len(HELD_OUT) >= 7 and not set(HELD_OUT) & set(WORKLOADS)
    assert sorted(w.profile for w in HELD_OUT.values()) == sorted(HELD_OUT_PROFILES)
    assert not set(HELD_OUT_PROFILES) & set(PROFILES)
    assert workload("neardup") is HELD_OUT["neardup"]


def test_typical_reduces_rule():
    assert WORKLOADS["grep"].typical_reduces(10**12) == 0
    assert WORKLOADS["topk"].typical_reduces(10**12) == 1
    sort = WORKLOADS["sort"]
    assert sort.typical_reduces(0) == 1
    assert sort.typical_reduces(128 * MiB) == 1
    assert sort.typical_reduces(128 * MiB + 1) == 2
    assert sort.typical_reduces(10**15) == sort.max_reduces


def test_unknown_workload_names_the_choices():
    assert workload("sort") is WORKLOADS["sort"]
    with pytest.raises(ConfigError, match=r"unknown workload 'nope'.*wordcount.*chargrams"):
        workload("nope")


def test_programs_do_not_import_numpy_or_pandas():
    # A streaming task imports the package before the program: it must stay light.
    code = (
        "import runpy, sys; sys.argv = ['x', 'map']; sys.stdin = open('/dev/null');"
        "import jobsize.workloads.wordcount, jobsize.workloads.kmeans, jobsize.workloads.join;"
        "import jobsize.workloads.agentmix, jobsize.workloads.iplookup;"
        "print(sorted(m for m in ('numpy', 'pandas') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
