"""The key hash that partitions map output, computed for a whole chunk of records at once.

A key's hash is the polynomial ``Σ b_i · M^i mod 2^64`` over its bytes, passed through the
splitmix64 finalizer so every bit depends on every byte; its partition is the hash modulo the
number of reduces. The value depends on nothing but the key's bytes, so partitions are the same
in every process, run and machine. For a chunk of lines the polynomials of all keys come from one
prefix sum over the chunk (numpy), which costs a few passes over the bytes instead of a Python
call per record; :func:`key_hash` is the one-key reference.
"""

from __future__ import annotations

import numpy as np

_M = 0x100000001B3  # odd, so it has an inverse modulo 2^64
_MASK = (1 << 64) - 1
_BLOCK = 1 << 20  # bytes per prefix-sum block
_POW: np.ndarray | None = None
_INV_POW: np.ndarray | None = None


def _powers() -> tuple[np.ndarray, np.ndarray]:
    """M^k and M^-k modulo 2^64 for k < 2·_BLOCK (built once per process)."""
    global _POW, _INV_POW
    if _POW is None:
        n = 2 * _BLOCK
        pw = np.empty(n, dtype=np.uint64)
        inv = np.empty(n, dtype=np.uint64)
        pw[0] = inv[0] = 1
        np.cumprod(np.full(n - 1, _M, dtype=np.uint64), out=pw[1:])
        np.cumprod(np.full(n - 1, pow(_M, -1, 1 << 64), dtype=np.uint64), out=inv[1:])
        _POW, _INV_POW = pw, inv
    return _POW, _INV_POW  # type: ignore[return-value]


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer, element-wise."""
    z = h + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def key_hash(key: bytes) -> int:
    """The hash of one key (the reference the chunked computation must agree with)."""
    h, p = 0, 1
    for byte in key:
        h = (h + byte * p) & _MASK
        p = (p * _M) & _MASK
    return int(_mix(np.array([h], dtype=np.uint64))[0])


def partition_of(key: bytes, n_partitions: int) -> int:
    """The reduce a key goes to."""
    return key_hash(key) % n_partitions


def _poly_long(arr: np.ndarray) -> int:
    """Σ b_i·M^i for a key too long for one block."""
    pw, _ = _powers()
    h = 0
    for off in range(0, len(arr), _BLOCK):
        block = arr[off:off + _BLOCK].astype(np.uint64)
        part = int(np.sum(block * pw[:len(block)], dtype=np.uint64))
        h = (h + part * pow(_M, off, 1 << 64)) & _MASK
    return h


def key_hashes(arr: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Hashes of the keys ``arr[starts[j]:ends[j]]`` (uint64), keys in increasing order."""
    n = len(starts)
    out = np.empty(n, dtype=np.uint64)
    if n == 0:
        return out
    pw, inv = _powers()
    j = 0
    while j < n:
        base = int(starts[j])
        # the keys that end within two blocks of ``base`` share one prefix sum
        k = int(np.searchsorted(ends, base + 2 * _BLOCK - 1, side="right"))
        if k == j:  # a single key longer than the window
            out[j] = _poly_long(arr[base:int(ends[j])])
            j += 1
            continue
        stop = int(ends[k - 1])
        window = arr[base:stop].astype(np.uint64)
        prefix = np.zeros(len(window) + 1, dtype=np.uint64)
        np.cumsum(window * pw[:len(window)], out=prefix[1:])
        s, e = starts[j:k] - base, ends[j:k] - base
        out[j:k] = (prefix[e] - prefix[s]) * inv[s]
        j = k
    return _mix(out)
