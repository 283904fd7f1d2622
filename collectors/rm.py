"""ResourceManager REST API: the cluster's resources (the paper's CR) and its nodes.

``/ws/v1/cluster/metrics`` gives ``totalMB`` and ``totalVirtualCores``, the capacity CR that
eq 2-4 and 9 divide by; ``/ws/v1/cluster/nodes`` gives each NodeManager's used and available
memory and vcores, whose sums are the node's capacity.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from jobsize.collectors.rest import HttpOptions, JsonView, RestClient

from jobsize.errors import ConfigError, ParseError
from jobsize.schema import JAVA_INT

NODE_COLUMNS = ("node", "rack", "memory_mb", "vcores", "state")


def _client(url: str, http_options: dict[str, Any]) -> RestClient:
    try:
        options = HttpOptions(**http_options)
    except TypeError as exc:
        raise ConfigError(f"unknown HTTP option ({exc})") from None
    return RestClient(url, options)


def _get(client: RestClient, path: str) -> JsonView:
    return JsonView(client.get_json(path), client.url(path))


def cluster_resources(url: str, **http_options: Any) -> tuple[int, int]:
    """CR of the cluster at ``url`` (``http://rm:8088``): (total memory MB, total vcores).

    ``http_options`` are :class:`jobsize.collectors.rest.HttpOptions` fields (timeout, retries,
    backoff, verify, kerberos, pool).
    """
    return metrics_resources(_get(_client(url, http_options), "ws/v1/cluster/metrics"))


def metrics_resources(doc: JsonView) -> tuple[int, int]:
    """(total memory MB, total vcores) from a decoded ``cluster/metrics`` document."""
    metrics = doc.get("clusterMetrics")
    memory = _positive(metrics, "totalMB", "availableMB", "allocatedMB")
    vcores = _positive(metrics, "totalVirtualCores", "availableVirtualCores",
                       "allocatedVirtualCores")
    return memory, vcores


def _positive(metrics: JsonView, total: str, available: str, allocated: str) -> int:
    """A capacity: ``total``, or (older ResourceManagers) what is free plus what is in use.

    CR divides eq 2-4 and 9, so a capacity of 0 or less (a cluster with no NodeManager yet)
    is an error, not a number to divide by.
    """
    value = metrics.int(total, required=False)
    where = f"{metrics.path}.{total}"
    if value is None:
        free, used = metrics.int(available), metrics.int(allocated)
        if free < 0 or used < 0:  # type: ignore[operator]
            raise ParseError(f"{available} and {allocated} must be ≥ 0", source=metrics.source,
                             where=metrics.path)
        value = free + used  # type: ignore[operator]
        where = f"{metrics.path}.{available} + {allocated}"
    if not 0 < value < JAVA_INT * 1024:
        raise ParseError(f"the cluster's capacity must be positive, found {value}",
                         source=metrics.source, where=where)
    return value


def cluster_nodes(url: str, **http_options: Any) -> pd.DataFrame:
    """The cluster's nodes: node id, rack, memory MB and vcores (used + available), state."""
    return nodes_frame(_get(_client(url, http_options), "ws/v1/cluster/nodes"))


def nodes_frame(doc: JsonView) -> pd.DataFrame:
    """The node table from a decoded ``cluster/nodes`` document."""
    rows = []
    doc = doc.get("nodes")
    for node in doc.items("node"):
        memory = _sum(node, "usedMemoryMB", "availMemoryMB")
        vcores = _sum(node, "usedVirtualCores", "availableVirtualCores")
        rows.append({"node": node.str("id"), "rack": node.str("rack", required=False),
                     "memory_mb": memory, "vcores": vcores,
                     "state": node.str("state", required=False)})
    frame = pd.DataFrame.from_records(rows, columns=list(NODE_COLUMNS))
    return frame.astype({"node": "string", "rack": "string", "memory_mb": "Int64",
                         "vcores": "Int64", "state": "string"})


def _sum(node: JsonView, used: str, available: str) -> int | None:
    a, b = node.int(used, required=False), node.int(available, required=False)
    for key, value in ((used, a), (available, b)):
        if value is not None and not 0 <= value < JAVA_INT:
            raise ParseError(f"expected a number from 0 to {JAVA_INT - 1}, found {value}",
                             source=node.source, where=f"{node.path}.{key}")
    return None if a is None and b is None else (a or 0) + (b or 0)
