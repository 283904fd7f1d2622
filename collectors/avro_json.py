"""Avro's JSON encoding, decoded under a writer's schema.

Hadoop writes job history with Avro's JSON encoder: records are JSON objects, unions are
``null`` or a one-key object naming the branch (``{"string": "x"}``,
``{"org.apache.hadoop.mapreduce.jobhistory.JhCounters": {...}}``), bytes are strings of code
points 0-255. :class:`AvroJsonDecoder` turns such values into the plain Python values fastavro
returns for the binary encoding (unions unwrapped, bytes as ``bytes``), so both encodings feed
the same code. Every mismatch with the schema raises :class:`AvroJsonError` carrying the JSON
path of the offending value.

A schema comes from the file being read, so it is checked before any datum is: no type that
contains itself (Hadoop's Event schema has none, and a binary reader would recurse once per
byte), no nesting deeper than :data:`MAX_SCHEMA_DEPTH`, and no array whose items take no bytes
in the binary encoding (``array<null>``: a count of 2^62 in a few bytes of data would be read
as that many items).
"""

from __future__ import annotations

from typing import Any

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_INT_RANGE = {"int": 2**31, "long": 2**63}
#: Deepest nesting of types a schema may have (Hadoop's Event schema nests five deep).
MAX_SCHEMA_DEPTH = 32


class AvroJsonError(ValueError):
    """A value does not match the schema (``path`` is its JSON path) or the schema is invalid."""

    def __init__(self, reason: str, path: str = "") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{path}: {reason}" if path else reason)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


class AvroJsonDecoder:
    """Decoder for one writer's schema (a parsed JSON schema document)."""

    def __init__(self, schema: Any) -> None:
        self._named: dict[str, Any] = {}
        self._open: set[str] = set()  # named types being registered: a reference is a cycle
        self._depth = 0
        self.root = self._register(schema, None)
        self._check_arrays()

    # -- schema -------------------------------------------------------------------------------

    def _full_name(self, name: Any, namespace: str | None) -> str:
        if not isinstance(name, str) or not name:
            raise AvroJsonError(f"schema: a named type needs a name, found {name!r}")
        if "." in name or not namespace:
            return name
        return f"{namespace}.{name}"

    def _register(self, schema: Any, namespace: str | None) -> Any:
        """Check ``schema``, record its named types and return it in a resolved form."""
        self._depth += 1
        try:
            if self._depth > MAX_SCHEMA_DEPTH:
                raise AvroJsonError(f"schema: types nested more than {MAX_SCHEMA_DEPTH} deep")
            return self._resolve(schema, namespace)
        finally:
            self._depth -= 1

    def _resolve(self, schema: Any, namespace: str | None) -> Any:
        if isinstance(schema, str):
            if schema in _PRIMITIVES:
                return schema
            full = self._full_name(schema, namespace)
            for candidate in (full, schema):
                if candidate in self._open:
                    raise AvroJsonError(f"schema: type {candidate} contains itself")
                if candidate in self._named:
                    return ("ref", candidate)
            raise AvroJsonError(f"schema: unknown type {schema!r}")
        if isinstance(schema, list):
            return ("union", [self._register(branch, namespace) for branch in schema])
        if not isinstance(schema, dict):
            raise AvroJsonError(f"schema: expected a type, found {_kind(schema)}")
        kind = schema.get("type")
        if isinstance(kind, str) and kind in _PRIMITIVES:
            return kind
        if isinstance(kind, str) and kind in ("record", "error", "enum", "fixed"):
            return self._register_named(schema, kind, namespace)
        if kind == "array":
            return ("array", self._register(schema.get("items"), namespace))
        if kind == "map":
            return ("map", self._register(schema.get("values"), namespace))
        if isinstance(kind, (str, list, dict)):
            return self._register(kind, namespace)
        raise AvroJsonError(f"schema: unknown type {kind!r}")

    def _register_named(self, schema: dict, kind: str, namespace: str | None) -> Any:
        own_namespace = schema.get("namespace", namespace)
        if own_namespace is not None and not isinstance(own_namespace, str):
            raise AvroJsonError(f"schema: namespace must be a string, found {own_namespace!r}")
        full = self._full_name(schema.get("name"), own_namespace)
        inner_namespace = full.rpartition(".")[0] or None
        if kind == "enum":
            symbols = schema.get("symbols")
            if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
                raise AvroJsonError(f"schema: enum {full} needs a list of symbols")
            self._named[full] = ("enum", full, frozenset(symbols))
        elif kind == "fixed":
            size = schema.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise AvroJsonError(f"schema: fixed {full} needs a size")
            self._named[full] = ("fixed", full, size)
        else:
            fields = schema.get("fields")
            if not isinstance(fields, list):
                raise AvroJsonError(f"schema: record {full} needs a list of fields")
            resolved: list[tuple[str, Any, bool, Any]] = []
            self._open.add(full)
            for spec in fields:
                if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
                    raise AvroJsonError(f"schema: record {full} has a field without a name")
                field_type = self._register(spec.get("type"), inner_namespace)
                resolved.append((spec["name"], field_type, "default" in spec, spec.get("default")))
            self._open.discard(full)
            self._named[full] = ("record", full, resolved)
        return ("ref", full)

    def _takes_no_bytes(self, schema: Any) -> bool:
        """Whether a value of ``schema`` is zero bytes long in the binary encoding."""
        if isinstance(schema, str):
            return schema == "null"
        if schema[0] != "ref":
            return False  # unions, arrays and maps read at least an index or a count
        named = self._named[schema[1]]
        if named[0] == "fixed":
            return named[2] == 0
        if named[0] == "record":
            return all(self._takes_no_bytes(field_type) for _, field_type, *_ in named[2])
        return False

    def _check_arrays(self) -> None:
        """Refuse arrays of zero-byte items, wherever they are in the schema."""
        pending = [self.root, *(n[2] for n in self._named.values() if n[0] == "record")]
        while pending:
            node = pending.pop()
            if isinstance(node, list):  # a record's fields
                pending.extend(field_type for _, field_type, *_ in node)
            elif isinstance(node, tuple) and node[0] == "union":
                pending.extend(node[1])
            elif isinstance(node, tuple) and node[0] in ("array", "map"):
                if node[0] == "array" and self._takes_no_bytes(node[1]):
                    raise AvroJsonError("schema: an array whose items take no bytes (a count "
                                        "in the data could make it endless)")
                pending.append(node[1])

    def root_fields(self) -> list[str]:
        """Field names of the root schema when it is a record, else an empty list."""
        root = self.root
        if isinstance(root, tuple) and root[0] == "ref" and self._named[root[1]][0] == "record":
            return [name for name, *_ in self._named[root[1]][2]]
        return []

    # -- values -------------------------------------------------------------------------------

    def decode(self, value: Any) -> Any:
        """Decode one JSON value under the root schema."""
        try:
            return self._decode(value, self.root, "$")
        except RecursionError:
            raise AvroJsonError("value nested too deeply") from None

    def _branch_name(self, schema: Any) -> str:
        if isinstance(schema, str):
            return schema
        if schema[0] == "ref":
            return schema[1]
        return schema[0]  # array, map (unions cannot nest)

    def _decode(self, value: Any, schema: Any, path: str) -> Any:
        if isinstance(schema, str):
            return self._primitive(value, schema, path)
        tag = schema[0]
        if tag == "ref":
            return self._decode_named(value, self._named[schema[1]], path)
        if tag == "union":
            return self._decode_union(value, schema[1], path)
        if tag == "array":
            if not isinstance(value, list):
                raise AvroJsonError(f"expected an array, found {_kind(value)}", path)
            return [self._decode(item, schema[1], f"{path}[{i}]") for i, item in enumerate(value)]
        if not isinstance(value, dict):  # map
            raise AvroJsonError(f"expected an object (map), found {_kind(value)}", path)
        return {key: self._decode(item, schema[1], f"{path}.{key}") for key, item in value.items()}

    def _decode_union(self, value: Any, branches: list, path: str) -> Any:
        if value is None:
            if "null" in branches:
                return None
            raise AvroJsonError("null is not allowed here", path)
        if not isinstance(value, dict) or len(value) != 1:
            raise AvroJsonError(f"expected a union as a one-key object, found {_kind(value)}", path)
        (name, inner), = value.items()
        for branch in branches:
            full = self._branch_name(branch)
            if name == full or full.rpartition(".")[2] == name:
                return self._decode(inner, branch, f"{path}.{name}")
        raise AvroJsonError(f"union has no branch {name!r}", path)

    def _decode_named(self, value: Any, named: tuple, path: str) -> Any:
        tag, full = named[0], named[1]
        if tag == "enum":
            if not isinstance(value, str) or value not in named[2]:
                raise AvroJsonError(f"expected a symbol of {full}, found {value!r}"[:200], path)
            return value
        if tag == "fixed":
            data = self._primitive(value, "bytes", path)
            if len(data) != named[2]:
                raise AvroJsonError(f"expected {named[2]} bytes, found {len(data)}", path)
            return data
        if not isinstance(value, dict):
            raise AvroJsonError(f"expected an object ({full}), found {_kind(value)}", path)
        out = {}
        for name, field_type, has_default, default in named[2]:
            where = f"{path}.{name}"
            if name in value:
                out[name] = self._decode(value[name], field_type, where)
            elif has_default:
                out[name] = default
            elif field_type == "null" or (
                    isinstance(field_type, tuple) and field_type[0] == "union"
                    and "null" in field_type[1]):
                out[name] = None  # an absent nullable field reads as null
            else:
                raise AvroJsonError("missing field", where)
        return out

    def _primitive(self, value: Any, kind: str, path: str) -> Any:
        if kind == "null":
            if value is not None:
                raise AvroJsonError(f"expected null, found {_kind(value)}", path)
            return None
        if kind == "boolean":
            if not isinstance(value, bool):
                raise AvroJsonError(f"expected a boolean, found {_kind(value)}", path)
            return value
        if kind in _INT_RANGE:
            if not isinstance(value, int) or isinstance(value, bool):
                raise AvroJsonError(f"expected an integer ({kind}), found {_kind(value)}", path)
            bound = _INT_RANGE[kind]
            if not -bound <= value < bound:
                raise AvroJsonError(f"integer out of {kind} range: {value}", path)
            return value
        if kind in ("float", "double"):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise AvroJsonError(f"expected a number ({kind}), found {_kind(value)}", path)
            try:
                return float(value)
            except OverflowError:
                raise AvroJsonError(f"number out of {kind} range", path) from None
        if not isinstance(value, str):
            raise AvroJsonError(f"expected a string ({kind}), found {_kind(value)}", path)
        if kind == "bytes":
            try:
                return value.encode("latin-1")
            except UnicodeEncodeError:
                raise AvroJsonError("bytes must be code points 0-255", path) from None
        return value
