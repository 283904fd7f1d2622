"""Sampling over WebHDFS against real HTTP servers on loopback: a NameNode and a DataNode that
speak the WebHDFS protocol (GETFILESTATUS, LISTSTATUS, OPEN with a 307 redirect)."""

from __future__ import annotations

import json
import random
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlencode

import pytest
import requests
from jobsize.sampler.sampling import sample
from jobsize.sampler.splits import input_splits, local_splits, webhdfs_splits
from jobsize.sampler.webhdfs import client_for
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from jobsize.errors import InputError, RemoteError

PREFIX = "/webhdfs/v1"


@dataclass
class FakeHdfs:
    """An in-memory namespace behind a NameNode and a DataNode."""

    datanode: HTTPServer
    files: dict[str, bytes] = field(default_factory=dict)
    block_size: int = 4096
    user: str | None = None  # when set, only this user (or the token) may read
    token: str | None = None
    forbidden: set[str] = field(default_factory=set)
    fail: dict[str, list[int]] = field(default_factory=dict)  # op → statuses to answer first
    ignore_length: bool = False  # a broken DataNode that sends the rest of the file
    served: list[tuple[str, int, int]] = field(default_factory=list)  # DataNode reads
    seen: list[dict[str, str]] = field(default_factory=list)  # NameNode query strings
    authorization: list[str | None] = field(default_factory=list)  # NameNode auth headers

    def is_dir(self, path: str) -> bool:
        prefix = path.rstrip("/") + "/"
        return path == "/" or any(p.startswith(prefix) for p in self.files)

    def status(self, path: str, suffix: str) -> dict:
        if path in self.files:
            kind, length, block = "FILE", len(self.files[path]), self.block_size
        else:
            kind, length, block = "DIRECTORY", 0, 0
        return {"accessTime": 0, "blockSize": block, "group": "supergroup", "length": length,
                "modificationTime": 0, "owner": "hdfs", "pathSuffix": suffix,
                "permission": "644", "replication": 3, "type": kind}

    def namenode(self, request: Request) -> Response:
        path = unquote(request.path[len(PREFIX):]) or "/"
        args = dict(request.args)
        self.seen.append(args)
        self.authorization.append(request.headers.get("Authorization"))
        op = args.get("op", "")
        if self.fail.get(op):
            return Response("busy", status=self.fail[op].pop(0))
        allowed = (args.get("delegation") == self.token if self.token
                   else self.user is None or args.get("user.name") == self.user)
        if not allowed or path in self.forbidden:
            who = args.get("user.name", "dr.who")
            return _remote(403, "AccessControlException", "org.apache.hadoop.security."
                           "AccessControlException", f"Permission denied: user={who}, "
                           f"access=READ_EXECUTE, inode=\"{path}\":hdfs:supergroup:drwx------")
        if path not in self.files and not self.is_dir(path):
            return _remote(404, "FileNotFoundException", "java.io.FileNotFoundException",
                           f"File does not exist: {path}")
        if op == "GETFILESTATUS":
            return _json({"FileStatus": self.status(path, "")})
        if op == "LISTSTATUS":
            prefix = path.rstrip("/") + "/"
            names = sorted({p[len(prefix):].split("/")[0] for p in self.files
                            if p.startswith(prefix)})
            entries = [self.status(prefix + n, n) for n in names]
            return _json({"FileStatuses": {"FileStatus": entries}})
        if op == "OPEN":
            params = {"op": "OPEN", "namenoderpcaddress": "nn:8020",
                      "offset": args.get("offset", "0")}
            if "length" in args:
                params["length"] = args["length"]
            location = self.datanode.url_for(PREFIX + path) + "?" + urlencode(params)
            return Response(status=307, headers={"Location": location})
        return _remote(400, "IllegalArgumentException", "java.lang.IllegalArgumentException",
                       f"Invalid value for webhdfs parameter \"op\": {op}")

    def serve(self, request: Request) -> Response:
        path = unquote(request.path[len(PREFIX):])
        if self.fail.get("DATANODE"):
            return Response("datanode down", status=self.fail["DATANODE"].pop(0))
        data = self.files[path]
        offset = int(request.args["offset"])
        length = int(request.args.get("length", len(data)))
        if self.ignore_length:
            length = len(data)
        chunk = data[offset: offset + length]
        self.served.append((path, offset, len(chunk)))
        return Response(chunk, status=200, content_type="application/octet-stream")


def _json(body: dict) -> Response:
    return Response(json.dumps(body), status=200, content_type="application/json")


def _remote(status: int, exception: str, java: str, message: str) -> Response:
    body = {"RemoteException": {"exception": exception, "javaClassName": java,
                                "message": message}}
    return Response(json.dumps(body), status=status, content_type="application/json")


@pytest.fixture
def datanode() -> Iterator[HTTPServer]:
    server = HTTPServer(host="127.0.0.1")
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


@pytest.fixture
def hdfs(httpserver: HTTPServer, datanode: HTTPServer) -> FakeHdfs:
    fake = FakeHdfs(datanode)
    httpserver.expect_request(re.compile(f"^{PREFIX}/.*"), method="GET") \
        .respond_with_handler(fake.namenode)
    datanode.expect_request(re.compile(f"^{PREFIX}/.*"), method="GET") \
        .respond_with_handler(fake.serve)
    return fake


def _nn(httpserver: HTTPServer) -> str:
    return f"{httpserver.host}:{httpserver.port}"


def _text(n: int, seed: int = 0) -> bytes:
    rnd = random.Random(seed)
    return b"".join(b"%d %s\n" % (i, b"w" * rnd.randint(0, 50)) for i in range(n))


FAST = {"backoff": 0.0, "retries": 2, "timeout": 10.0}


# ---------------------------------------------------------------------------------------------


def test_sampling_over_webhdfs_equals_sampling_the_same_files_locally(
        hdfs: FakeHdfs, httpserver: HTTPServer, tmp_path: Path) -> None:
    parts = {"part-00000": _text(900, 1), "part-00001": _text(700, 2), "_SUCCESS": b""}
    for name, data in parts.items():
        hdfs.files[f"/data/logs/{name}"] = data
        (tmp_path / name).write_bytes(data)
    url = f"webhdfs://{_nn(httpserver)}/data/logs"
    remote = webhdfs_splits(url, user="alice", **FAST)
    local = local_splits(tmp_path, hdfs.block_size)  # the HDFS block size is the default
    assert [(s.start, s.length) for s in remote] == [(s.start, s.length) for s in local]
    assert remote[0].path == f"{url}/part-00000"

    got = sample(remote, len(remote), 20, 3, seed=11)
    want = sample(local, len(local), 20, 3, seed=11)
    assert got.data == want.data and got.data
    assert got.fraction == want.fraction and got.bytes_read == want.bytes_read

    # the bytes came from the DataNode after the NameNode's redirect, and only the sampled ranges
    assert hdfs.served and sum(n for _, _, n in hdfs.served) == got.bytes_read
    assert all(path.startswith("/data/logs/part-") for path, _, _ in hdfs.served)
    assert got.bytes_read < 0.25 * got.input_bytes
    assert all(args.get("user.name") == "alice" for args in hdfs.seen)


def test_http_urls_and_their_query_parameters(hdfs: FakeHdfs, httpserver: HTTPServer) -> None:
    hdfs.user = "bob"
    hdfs.files["/in/file.txt"] = _text(300)
    url = httpserver.url_for(f"{PREFIX}/in/file.txt") + "?user.name=bob"
    splits = input_splits([url], 1000, **FAST)
    assert sum(s.length for s in splits) == len(hdfs.files["/in/file.txt"])
    s = sample(splits, 1, 0, seed=0)  # N_m = 1: the whole file, over OPEN
    assert s.data == hdfs.files["/in/file.txt"]


def test_missing_file_is_a_clear_404(hdfs: FakeHdfs, httpserver: HTTPServer) -> None:
    with pytest.raises(RemoteError) as err:
        webhdfs_splits(f"webhdfs://{_nn(httpserver)}/data/nope", user="alice", **FAST)
    message = str(err.value)
    assert err.value.status == 404
    assert f"{PREFIX}/data/nope?op=GETFILESTATUS" in message
    assert message.endswith("HTTP 404 FileNotFoundException: File does not exist: /data/nope")
    assert "\n" not in message


def test_permission_denied_is_a_clear_403(hdfs: FakeHdfs, httpserver: HTTPServer) -> None:
    hdfs.user = "hdfs"
    hdfs.files["/secret/x"] = b"1\n"
    with pytest.raises(RemoteError, match=r"HTTP 403 AccessControlException: Permission denied: "
                       r"user=mallory") as err:
        webhdfs_splits(f"webhdfs://{_nn(httpserver)}/secret", user="mallory", **FAST)
    assert err.value.status == 403


def test_delegation_token_is_sent_instead_of_the_user_and_never_shown(
        hdfs: FakeHdfs, httpserver: HTTPServer) -> None:
    hdfs.token = "SECRET-TOKEN"
    hdfs.files["/t/a"] = _text(50)
    splits = webhdfs_splits(f"webhdfs://{_nn(httpserver)}/t", delegation="SECRET-TOKEN", **FAST)
    assert sample(splits, 1, 1, seed=0).data == hdfs.files["/t/a"]
    assert all(a.get("delegation") == "SECRET-TOKEN" and "user.name" not in a
               for a in hdfs.seen)
    with pytest.raises(RemoteError) as err:
        webhdfs_splits(f"webhdfs://{_nn(httpserver)}/t", delegation="WRONG-TOKEN", **FAST)
    assert "WRONG-TOKEN" not in str(err.value) and "delegation=%2A%2A%2A" in str(err.value)


def test_server_errors_are_retried(hdfs: FakeHdfs, httpserver: HTTPServer) -> None:
    hdfs.files["/r/a"] = _text(200)
    hdfs.fail = {"GETFILESTATUS": [503, 502], "DATANODE": [500]}
    splits = webhdfs_splits(f"webhdfs://{_nn(httpserver)}/r/a", user="u", **FAST)
    assert sample(splits, 1, 0, seed=0).data == hdfs.files["/r/a"]
    assert hdfs.fail == {"GETFILESTATUS": [], "DATANODE": []}


def test_a_datanode_that_keeps_failing_is_named(hdfs: FakeHdfs, httpserver: HTTPServer,
                                                datanode: HTTPServer) -> None:
    hdfs.files["/r/a"] = _text(200)
    splits = webhdfs_splits(f"webhdfs://{_nn(httpserver)}/r/a", user="u", **FAST)
    hdfs.fail = {"DATANODE": [500, 500, 500]}
    with pytest.raises(RemoteError, match=r"HTTP 500 INTERNAL SERVER ERROR: datanode down") as e:
        sample(splits, 1, 0, seed=0)
    assert f":{datanode.port}{PREFIX}/r/a?op=OPEN" in str(e.value)


def test_a_datanode_that_ignores_the_length_is_reported(hdfs: FakeHdfs,
                                                        httpserver: HTTPServer) -> None:
    hdfs.files["/r/a"] = _text(2000)
    hdfs.ignore_length = True
    splits = webhdfs_splits(f"webhdfs://{_nn(httpserver)}/r/a", 1000, user="u", **FAST)
    with pytest.raises(RemoteError, match=r"offset \d+: asked for \d+ bytes, the server sent "
                       r"\d+: it ignores OPEN's length"):
        sample(splits, len(splits), 0, seed=0)


def test_an_unreachable_namenode_is_reported_after_retries() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(RemoteError, match=r"cannot reach the server after 3 attempts"):
        webhdfs_splits(f"webhdfs://127.0.0.1:{port}/x", user="u", **FAST)


def test_a_non_webhdfs_answer_is_reported(httpserver: HTTPServer) -> None:
    httpserver.expect_request(f"{PREFIX}/x").respond_with_data("<html>hello</html>")
    with pytest.raises(RemoteError, match=r"not a WebHDFS answer: the body is not JSON"):
        webhdfs_splits(f"webhdfs://{_nn(httpserver)}/x", user="u", **FAST)


def test_url_forms() -> None:
    client, path = client_for("webhdfs://nn.example/data/x", user="a")
    assert (client.base, path, client.user) == ("http://nn.example:9870", "/data/x", "a")
    assert client.name(path) == "webhdfs://nn.example:9870/data/x"
    client, path = client_for("swebhdfs://nn:1234/y", user="a")
    assert (client.base, path) == ("https://nn:1234", "/y")
    client, path = client_for("https://nn:9871/webhdfs/v1/z%20z?user.name=carol")
    assert (client.base, path, client.user) == ("https://nn:9871", "/z z", "carol")
    with pytest.raises(InputError, match="must start with /webhdfs/v1/"):
        client_for("http://nn:9870/data/x")


def test_user_defaults_to_hadoop_user_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HADOOP_USER_NAME", "etl")
    assert client_for("webhdfs://nn/x")[0].user == "etl"


class _Negotiate(requests.auth.AuthBase):
    """Stands in for SPNEGO: the header a Kerberos ticket would produce."""

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        r.headers["Authorization"] = "Negotiate dGlja2V0"
        return r


def test_sample_cli_kerberos_sends_spnego(hdfs: FakeHdfs, httpserver: HTTPServer,
                                          tmp_path: Path, monkeypatch) -> None:
    import jobsize.collectors.rest

    from jobsize.cli import main

    hdfs.files["/data/a.txt"] = _text(400)
    monkeypatch.setattr(jobsize.collectors.rest, "spnego_auth", _Negotiate)
    out = tmp_path / "s"
    url = f"webhdfs://{_nn(httpserver)}/data/a.txt"
    assert main(["sample", url, "--maps", "4", "-r", "1", "--kerberos", "-o", str(out)]) == 0
    assert hdfs.authorization and set(hdfs.authorization) == {"Negotiate dGlja2V0"}
    assert out.stat().st_size > 0


def test_sample_cli_kerberos_without_the_extra_is_one_line(tmp_path: Path, capsys) -> None:
    try:
        import requests_gssapi  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("the kerberos extra is installed")
    from jobsize.cli import main

    code = main(["sample", "webhdfs://127.0.0.1:9/x", "--maps", "2", "-r", "1", "--kerberos",
                 "-o", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert code == 2 and "pip install 'jobsize[kerberos]'" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("hadoop", [False, True])
def test_probe_cli_authenticates_to_webhdfs(hdfs: FakeHdfs, httpserver: HTTPServer,
                                            tmp_path: Path, monkeypatch, capsys,
                                            hadoop: bool) -> None:
    import jobsize.collectors.rest

    from jobsize.cli import main

    hdfs.files["/data/a.txt"] = _text(400)
    hdfs.user = "alice"
    monkeypatch.setattr(jobsize.collectors.rest, "spnego_auth", _Negotiate)
    argv = ["probe", "--input", f"webhdfs://{_nn(httpserver)}/data/a.txt", "--mapper", "cat",
            "--reducer", "cat", "--maps", "4", "--reduces", "1", "--seed", "1",
            "--user", "alice", "--kerberos", "-D", "mapreduce.job.ubertask.enable=true"]
    if hadoop:
        argv += ["--hadoop", "--print-commands", "--sample-dir", str(tmp_path / "sample")]
    assert main(argv) == 0
    assert {s.get("user.name") for s in hdfs.seen} == {"alice"}
    assert set(hdfs.authorization) == {"Negotiate dGlja2V0"}
    out = capsys.readouterr().out
    assert ("hdfs dfs -put" in out) if hadoop else ('"uberized": true' in out)


def test_probe_cli_counts_the_maps_hadoop_runs_on_hdfs(hdfs: FakeHdfs, httpserver: HTTPServer,
                                                      capsys) -> None:
    """Over WebHDFS too, ``--maps`` is a hint: each file is cut at min(its block, total/hint),
    and the probe's N_m (and so f_p) is the number of those splits."""
    from jobsize.cli import main

    hdfs.files["/data/a.txt"] = data = _text(400)  # about 11 KB: 2-3 blocks of 4 KiB
    url = f"webhdfs://{_nn(httpserver)}/data/a.txt"
    blocks = len(webhdfs_splits(url, **FAST))
    hinted = len(webhdfs_splits(url, len(data) // 8, **FAST))
    for maps, expected in ((1, blocks), (8, hinted)):
        assert main(["probe", "--input", url, "--mapper", "cat", "--reducer", "cat", "--maps",
                     str(maps), "--reduces", "1", "--seed", "1"]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert printed["n_maps"] == expected
        assert printed["probe_fraction"] == pytest.approx(1 / expected, rel=0.3)
    assert blocks < 8 <= hinted
