"""collectors.rm against a ResourceManager on loopback serving the documented examples."""

from __future__ import annotations

import json

import pytest
from collect_fuzz import damaged_json, fuzz_pair, hostile_text, only_jobsize_errors
from conftest import shared_root
from jobsize.collectors.rest import JsonView
from jobsize.collectors.rm import cluster_nodes, cluster_resources, metrics_resources, nodes_frame
from pytest_httpserver import HTTPServer

from jobsize.boundedjson import loads
from jobsize.errors import ConfigError, ParseError, RemoteError

FAST = {"retries": 2, "backoff": 0.01, "timeout": (2.0, 2.0)}


@pytest.fixture
def rm(httpserver: HTTPServer, shared):
    rest = shared / "hadoop" / "rm-rest"
    for name, path in (("cluster-metrics", "metrics"), ("nodes", "nodes")):
        httpserver.expect_request(f"/ws/v1/cluster/{path}").respond_with_data(
            (rest / f"{name}.json").read_bytes(), content_type="application/json")
    return httpserver


def test_cluster_resources_from_documented_metrics(rm):
    # cluster-metrics.json: "totalMB":17408, "totalVirtualCores":8
    assert cluster_resources(rm.url_for("/"), **FAST) == (17408, 8)


def test_cluster_nodes_from_documented_nodes(rm):
    nodes = cluster_nodes(rm.url_for("/"), **FAST)
    assert list(nodes["node"]) == ["h2:1235", "h1:1234"]
    assert list(nodes["memory_mb"]) == [8192, 8192]  # usedMemoryMB 0 + availMemoryMB 8192
    assert list(nodes["vcores"]) == [8, 8]
    assert list(nodes["rack"]) == ["/default-rack"] * 2


def test_metrics_without_totals_add_available_and_allocated(httpserver):
    body = {"clusterMetrics": {"availableMB": 1000, "allocatedMB": 24,
                               "availableVirtualCores": 3, "allocatedVirtualCores": 1}}
    httpserver.expect_request("/ws/v1/cluster/metrics").respond_with_json(body)
    assert cluster_resources(httpserver.url_for("/"), **FAST) == (1024, 4)


def test_server_errors_are_retried_then_reported(httpserver):
    httpserver.expect_request("/ws/v1/cluster/metrics").respond_with_data("no", status=503)
    with pytest.raises(RemoteError, match="HTTP 503"):
        cluster_resources(httpserver.url_for("/"), **FAST)
    assert len(httpserver.log) == 3  # the first try and two retries


def test_unknown_http_option():
    with pytest.raises(ConfigError, match="unknown HTTP option"):
        cluster_resources("http://127.0.0.1:9", colour="blue")


def test_missing_total_names_json_path(httpserver):
    httpserver.expect_request("/ws/v1/cluster/metrics").respond_with_json({"clusterMetrics": {}})
    with pytest.raises(ParseError, match=r"\$\.clusterMetrics\.availableMB: missing"):
        cluster_resources(httpserver.url_for("/"), **FAST)


def _doc(name: str):
    path = shared_root() / "hadoop" / "rm-rest" / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _check_with(parse):
    return lambda doc: only_jobsize_errors(lambda: parse(JsonView(doc, "fuzz")))


def _check_text(parse):
    def check(data: bytes) -> None:
        def run():
            nodes = parse(JsonView(loads(data, source="fuzz"), "fuzz"))
            if isinstance(nodes, tuple):
                assert all(v > 0 for v in nodes)  # CR divides: never 0 or less
            else:
                nodes.to_string()  # printable: no lone surrogate reaches the terminal
            return nodes
        only_jobsize_errors(run)
    return check


_metrics_fast, _metrics_slow = fuzz_pair(damaged_json(_doc("cluster-metrics")),
                                         _check_with(metrics_resources), name="rm_metrics")
_nodes_fast, _nodes_slow = fuzz_pair(damaged_json(_doc("nodes")), _check_with(nodes_frame),
                                     name="rm_nodes")
_metrics_text_fast, _metrics_text_slow = fuzz_pair(
    hostile_text(_doc("cluster-metrics")), _check_text(metrics_resources),
    name="rm_metrics_hostile_text")
_nodes_text_fast, _nodes_text_slow = fuzz_pair(
    hostile_text(_doc("nodes")), _check_text(nodes_frame), name="rm_nodes_hostile_text")
test_fuzz_rm_metrics_text, test_fuzz_rm_metrics_text_slow = _metrics_text_fast, _metrics_text_slow
test_fuzz_rm_nodes_text, test_fuzz_rm_nodes_text_slow = _nodes_text_fast, _nodes_text_slow


@pytest.mark.parametrize("total", [0, -4096])
def test_a_cluster_without_capacity_is_an_error(total):
    doc = {"clusterMetrics": {"totalMB": total, "totalVirtualCores": 8}}
    with pytest.raises(ParseError, match="capacity must be positive"):
        metrics_resources(JsonView(doc, "m.json"))
test_fuzz_rm_metrics, test_fuzz_rm_metrics_slow = _metrics_fast, _metrics_slow
test_fuzz_rm_nodes, test_fuzz_rm_nodes_slow = _nodes_fast, _nodes_slow
