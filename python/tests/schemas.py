"""A small JSON Schema (draft 2020-12) checker for docs/schema: the
keywords those files use (type, properties, required,
additionalProperties, items, enum, const, pattern, minimum, maximum,
minLength, maxItems, $ref, allOf, anyOf, oneOf). No dependency: the package
and its tests use the standard library only."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "docs" / "schema"

_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def load(name: str, base: Path = SCHEMAS) -> Dict[str, Any]:
    return json.loads((base / name).read_text(encoding="utf-8"))


def _type_ok(value: Any, t: str) -> bool:
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[t])


def _resolve(ref: str, root: Dict[str, Any], base: Path):
    file, _, pointer = ref.partition("#")
    doc = root
    here = base
    if file:
        path = (base / file).resolve()
        doc = json.loads(path.read_text(encoding="utf-8"))
        here = path.parent
    node: Any = doc
    for part in [p for p in pointer.split("/") if p]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node, doc, here


def errors(value: Any, schema: Any, root: Optional[Dict[str, Any]] = None, base: Path = SCHEMAS, at: str = "$") -> List[str]:
    """What in ``value`` the schema refuses, one line each (empty: valid)."""
    if root is None:
        root = schema
    if schema is True or schema == {}:
        return []
    if schema is False:
        return [f"{at}: nothing is allowed here"]
    out: List[str] = []
    if "$ref" in schema:
        target, doc, here = _resolve(schema["$ref"], root, base)
        out += errors(value, target, doc, here, at)
    for sub in schema.get("allOf", []):
        out += errors(value, sub, root, base, at)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            results = [errors(value, sub, root, base, at) for sub in schema[key]]
            if not any(not r for r in results):
                out.append(f"{at}: matches none of {key}: {results[0][:2]}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, t) for t in types):
            return out + [f"{at}: {type(value).__name__} is not {types}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{at}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        out.append(f"{at}: {value!r} is not {schema['const']!r}")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{at}: {value!r} does not match {schema['pattern']}")
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(f"{at}: shorter than {schema['minLength']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{at}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{at}: {value} > {schema['maximum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                out.append(f"{at}: required key {k!r} missing")
        for k, v in value.items():
            if k in props:
                out += errors(v, props[k], root, base, f"{at}.{k}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{at}: key {k!r} is not allowed")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(v, schema["additionalProperties"], root, base, f"{at}.{k}")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{at}: more than {schema['maxItems']} items")
        if isinstance(schema.get("items"), dict):
            for i, v in enumerate(value):
                out += errors(v, schema["items"], root, base, f"{at}[{i}]")
    return out


def check(value: Any, name: str, base: Path = SCHEMAS) -> None:
    """Asserts ``value`` is valid against the schema file ``name``."""
    found = errors(value, load(name, base), base=base)
    assert not found, f"{name}: " + "; ".join(found[:10])


def keys(name: str, base: Path = SCHEMAS) -> tuple:
    """The schema's top-level properties and required keys (following a
    top-level $ref or allOf)."""
    schema = load(name, base)
    props: Dict[str, Any] = {}
    required: set = set()

    def walk(s: Dict[str, Any], root: Dict[str, Any], here: Path) -> None:
        if "$ref" in s:
            target, doc, there = _resolve(s["$ref"], root, here)
            walk(target, doc, there)
        for sub in s.get("allOf", []):
            walk(sub, root, here)
        props.update(s.get("properties", {}))
        required.update(s.get("required", []))

    walk(schema, schema, base)
    return set(props), required
