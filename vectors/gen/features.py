"""Which adapter features an Agent Hooks vector needs (agent-hooks/adapter/features.json,
PROTOCOL.md section 7), derived from what the vector asks of the host's adapter, so that every
vector the project writes lists exactly the features it needs (its `adapter_features`).

Each rule names the part of the vector that makes the adapter do what the feature added after
the base of ctk-harness/1. The Rust vector lint refuses a name the catalog does not know; this
derivation keeps the project's own lists complete. Standard library only.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CATALOG = os.path.join(ROOT, "agent-hooks", "adapter", "features.json")

# Section 7.7.3's bound on a declaration document's text, and the byte-order mark whose
# reading decision D-78 settles: a text past the bound or starting with the mark is
# `unreadable` from a file and `malformed` on the other construction paths.
MAX_DECLARATION_BYTES = 1024 * 1024
BOM = "\ufeff"


def known():
    """The catalog's feature names, oldest first."""
    with open(CATALOG, encoding="utf-8") as f:
        return [feature["name"] for feature in json.load(f)["features"]]


def _generated(value):
    """Every `$ctk.generate` parameter object in value."""
    if isinstance(value, dict):
        if list(value) == ["$ctk.generate"] and isinstance(value["$ctk.generate"], dict):
            yield value["$ctk.generate"]
            yield from _generated(value["$ctk.generate"])
            return
        for v in value.values():
            yield from _generated(v)
    elif isinstance(value, list):
        for v in value:
            yield from _generated(v)


def _expand(value):
    """value with its generated values expanded (runner/README.md, "Vector grammar"), as far as
    a size needs: a context-sized fill stays as it is."""
    if isinstance(value, dict):
        if list(value) == ["$ctk.generate"] and isinstance(value["$ctk.generate"], dict):
            g = value["$ctk.generate"]
            if "repeat" in g:
                return g["repeat"] * g["count"]
            if "keys" in g:
                return {"%s%d" % (g["keys"], i): _expand(g.get("value")) for i in range(g["count"])}
            if "nest" in g:
                inner = _expand(g.get("leaf"))
                for _ in range(g["depth"]):
                    inner = {g["key"]: inner} if g["nest"] == "object" else [inner]
                return inner
            if "json" in g:
                return json.dumps(_expand(g["json"]), ensure_ascii=False, separators=(",", ":"))
            return value
        return {k: _expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v) for v in value]
    return value


def _declaration_text(v):
    """The document text a multi-path declaration vector loads, or None for one that loads a
    single path (a file fault) or none."""
    if "host_declaration_file" in v:
        return None
    if "host_declaration_text" in v:
        text = _expand(v["host_declaration_text"])
        return text if isinstance(text, str) else None
    if "host_declaration" in v:
        return json.dumps(_expand(v["host_declaration"]), ensure_ascii=False, separators=(",", ":"))
    return None


def derive(v):
    """The features vector v needs, in catalog order."""
    needed = set()
    forms = list(_generated(v))
    if any(k in g for g in forms for k in ("repeat", "keys", "json")):
        needed.add("generated-values")
    if any("nest" in g for g in forms):
        needed.add("deep-lines")
    if any(k in g for g in forms for k in ("pad_context_to", "pad_context_past")):
        needed.add("context-sized-fills")
    expect = v.get("expect", {})
    if "persisted_must_contain" in expect or "persisted_must_not_contain" in expect:
        needed.add("persisted-state")
    if isinstance(expect.get("load"), dict) and "detail_contains" in expect["load"]:
        needed.add("load-detail")
    if "released_output" in expect and expect["released_output"] is None:
        needed.add("released-output-absent")
    text = _declaration_text(v)
    if text is not None and (len(text.encode("utf-8")) > MAX_DECLARATION_BYTES or text.startswith(BOM)):
        needed.add("declaration-path-classes")
    # A declaration the host must refuse ends the vector before its scenario runs.
    refused = isinstance(expect.get("load"), dict) and expect["load"].get("outcome") == "refused"
    if v.get("scenario", {}).get("model_script") and "model_calls" not in v.get("capabilities", []) and not refused:
        needed.add("agent-steps")
    order = known()
    unknown = needed - set(order)
    assert not unknown, "features.py derives %s, which features.json does not list" % sorted(unknown)
    return [name for name in order if name in needed]


def with_features(v):
    """v with `adapter_features` set to what it needs (absent when nothing), placed before
    `scenario` so that every file lists it in the same place."""
    needed = derive(v)
    out = {}
    for key, value in v.items():
        if key == "adapter_features":
            continue
        if key == "scenario" and needed:
            out["adapter_features"] = needed
        out[key] = value
    if needed and "adapter_features" not in out:
        out["adapter_features"] = needed
    return out
