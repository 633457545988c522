"""The host declaration loader of the Python example host (Agent Hooks §7.7),
standard library only.

A loader turns one declaration document into a resolved declaration (every
default filled, knobs resolved, sets sorted), or refuses it with exactly one
`declaration_error:*` class: the first failing step of §7.7.6, with every
finding of that step. It selects only from what the host code has (`CODE`,
the code surface) and from the names a registry holds; it never narrows,
over-defaults or partly applies a document.

Four construction paths lead to the same resolved form: a file, a JSON text,
a parsed value, and a builder (one setter per member, one call per binding).
Which of them a declaration vector asks for is agent-hooks/adapter/PROTOCOL.md
§2.2; the kit's registry (ctk.scripted, ctk-scripted, ctk-redact, ctk-fault)
is agent-hooks/adapter/HOSTS.md §3.1.
"""

from __future__ import annotations

import json
import math
import os
import re

VERSION_1_0 = "agent-hooks-declaration/1.0"
ACCEPTED_VERSIONS = [VERSION_1_0]
MAX_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_BINDINGS = 256
MAX_TIMEOUT_MS = 3_600_000
DEFAULT_TIMEOUT_MS = 5000
DETAIL_MAX = 512
MAX_EXACT_INTEGER = 2**53 - 1

POINTS = [
    "agent_startup", "input", "pre_model_call", "post_model_call",
    "pre_tool_call", "post_tool_call", "output", "agent_shutdown",
]
FLOOR = ["agent_startup", "input", "output", "agent_shutdown"]
CAPABILITIES = [
    "model_calls", "tool_calls", "parallel_tool_calls", "streaming", "multi_turn",
    "int64_json", "bigint_json", "incremental_output", "host_declaration",
]
# profile -> (consulted knob, its values, its §7.2 default)
PROFILES = {
    "sequential/first_deny": ("on_approval", ["stop", "resume"], "stop"),
    "sequential/run_all": (None, [], None),
    "parallel/strictest": ("on_transform_conflict", ["deny", "approval"], "deny"),
    "parallel/unanimous": ("on_disagreement", ["deny", "approval"], "deny"),
}
KNOBS = {"on_approval", "on_disagreement", "on_transform_conflict"}

# What this host's code has: the most a document may select (§7.7.4). The
# loop assembles a model stream and buffers output (no incremental
# mediation), implements the `continue` posture only, and bounds every
# interceptor call with a timeout.
CODE = {
    "interception_points": list(POINTS),
    "capabilities": sorted(["bigint_json", "host_declaration", "int64_json", "model_calls", "multi_turn",
                            "parallel_tool_calls", "streaming", "tool_calls"]),
    "profiles": {name: ({knob: sorted(values)} if knob else {}) for name, (knob, values, _) in PROFILES.items()},
    "buffered_output": True,
    "streams_unbuffered": False,
    "posture": "continue",
    "declaration_versions": list(ACCEPTED_VERSIONS),
}

NAME = re.compile(r"[a-z][a-z0-9_-]{0,63}")
KIND = re.compile(r"[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+")
DOC_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
HOST_NAME = re.compile(r"[a-z0-9_-]{1,64}")
EXTENSION_KEY = re.compile(r"[a-z][a-z0-9_]*")
VERSION_FORM = re.compile(r"agent-hooks-declaration/[0-9]+\.[0-9]+")
SPEC_FORM = re.compile(r"agent-hooks/([0-9]+)\.([0-9]+)")

CLOSED = {
    "": {"$schema", "declaration", "spec", "id", "host", "configuration", "surface", "bindings", "extensions"},
    "/host": {"name", "version"},
    "/configuration": {"mode", "composition", "identity_provider", "approval", "posture", "timeouts", "records"},
    "/configuration/composition": {"profile"} | KNOBS,
    "/configuration/approval": {"resolver", "redactor"},
    "/configuration/posture": {"tool_seam_host_error"},
    "/configuration/timeouts": {"interceptor_ms", "approval_resolver_ms"},
    "/configuration/records": {"max_buffered"},
    "/surface": {"interception_points", "capabilities", "profiles", "buffered_output", "exposure_bound", "declaration_versions"},
}
BINDING_MEMBERS = {"id", "kind", "config", "at", "timeout_ms"}


class Refusal(Exception):
    """A refused document: one class, the findings of the failing step."""

    def __init__(self, cls, findings):
        self.cls = "declaration_error:" + cls
        self.findings = findings
        super().__init__(self.detail())

    def detail(self):
        parts = "; ".join(f"{p or '(document)'}: {d}" for p, d in self.findings)
        text = f"{self.cls}; {parts}"
        raw = text.encode("utf-8")
        return text if len(raw) <= DETAIL_MAX else raw[:DETAIL_MAX].decode("utf-8", "ignore")


def pointer(*parts):
    """An RFC 6901 pointer."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


class Registry:
    """What the host registers in code: binding kinds (name -> resolver
    `(config, binding) -> interceptor`, raising ValueError to refuse),
    identity providers, approval resolvers and redactors."""

    def __init__(self, kinds=None, providers=(), resolvers=(), redactors=()):
        self.kinds = dict(kinds or {})
        self.providers = set(providers)
        self.resolvers = set(resolvers)
        self.redactors = set(redactors)


# ------------------------------------------------------------ steps 1-2

def read_file(path):
    """Step 1: a readable regular UTF-8 file within 1 MiB, no BOM."""
    if not os.path.isfile(path):
        raise Refusal("unreadable", [("", "the path names no regular file")])
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise Refusal("unreadable", [("", f"cannot read the file: {e.strerror}")]) from e
    if len(data) > MAX_BYTES:
        raise Refusal("unreadable", [("", "the file is larger than 1 MiB")])
    if data.startswith(b"\xef\xbb\xbf"):
        raise Refusal("unreadable", [("", "starts with a byte-order mark")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Refusal("unreadable", [("", f"not UTF-8 at byte {e.start}")]) from e


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _Duplicate(key)
        seen[key] = value
    return seen


class _Duplicate(Exception):
    pass


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def depth(value):
    """Nesting depth, the root container counting as level 1."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def parse_text(text):
    """Step 2 on text: one JSON object, no repeated member name, no trailing
    content, depth at most 32, at most 1 MiB."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise Refusal("malformed", [("", "the document is larger than 1 MiB")])
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant)
    except _Duplicate as e:
        raise Refusal("malformed", [("", f"the member name {str(e)[:64]!r} is repeated within an object")]) from e
    except RecursionError as e:
        raise Refusal("malformed", [("", "the document nests too deeply")]) from e
    except ValueError as e:
        raise Refusal("malformed", [("", f"not one JSON value: {e}")]) from e
    return check_value_shape(value)


def parse_exact(text):
    """(True, value) when the text parses as one JSON value with no member
    name repeated within an object (PROTOCOL.md §2.2), else (False, None)."""
    try:
        return True, json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant)
    except (ValueError, _Duplicate, RecursionError):
        return False, None


def has_non_finite(value):
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(has_non_finite(v) for v in value)
    return False


def check_value_shape(value):
    """Step 2's checks that also apply to a parsed value."""
    if not isinstance(value, dict):
        raise Refusal("malformed", [("", "the root is not a JSON object")])
    if depth(value) > MAX_DEPTH:
        raise Refusal("malformed", [("", f"the document nests deeper than {MAX_DEPTH} levels")])
    if has_non_finite(value):
        raise Refusal("malformed", [("", "the document holds a non-finite number")])
    return value


# ------------------------------------------------------------ steps 3-8

def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def check_version(doc):
    """Step 3."""
    v = doc.get("declaration")
    if not isinstance(v, str) or v not in ACCEPTED_VERSIONS:
        what = "missing" if "declaration" not in doc else "not accepted"
        raise Refusal("version_unsupported", [("/declaration", f"the declaration version is {what}; accepted: {', '.join(ACCEPTED_VERSIONS)}")])


def check_spec(doc, run_spec):
    """Step 4: `spec` is required and names the run's major with a minor no
    newer than the run's."""
    if "spec" not in doc:
        raise Refusal("spec_unsupported", [("/spec", "the spec member is required")])
    spec = doc["spec"]
    run = SPEC_FORM.fullmatch(run_spec)
    m = SPEC_FORM.fullmatch(spec) if isinstance(spec, str) else None
    if m is None or run is None or m.group(1) != run.group(1) or int(m.group(2)) > int(run.group(2)):
        raise Refusal("spec_unsupported", [("/spec", f"this loader emits {run_spec}")])


def check_unknown(doc):
    """Step 5: an unknown member at any closed level."""
    findings = []

    def closed(obj, at, allowed):
        if isinstance(obj, dict):
            for key in obj:
                if key not in allowed:
                    findings.append((at + pointer(key), "unknown member"))

    closed(doc, "", CLOSED[""])
    for at, allowed in CLOSED.items():
        if not at:
            continue
        node = doc
        for part in at.strip("/").split("/"):
            node = node.get(part) if isinstance(node, dict) else None
        closed(node, at, allowed)
    profiles = doc.get("surface", {}).get("profiles") if isinstance(doc.get("surface"), dict) else None
    if isinstance(profiles, dict):
        for name, knobs in profiles.items():
            if name not in PROFILES:
                findings.append((pointer("surface", "profiles", name), "unknown profile"))
            elif isinstance(knobs, dict):
                knob = PROFILES[name][0]
                for key in knobs:
                    if key != knob:
                        findings.append((pointer("surface", "profiles", name, key), "a knob this profile does not consult"))
    bindings = doc.get("bindings")
    if isinstance(bindings, list):
        for i, b in enumerate(bindings):
            closed(b, pointer("bindings", i), BINDING_MEMBERS)
    if findings:
        raise Refusal("unknown_field", findings)


def check_fields(doc):
    """Step 6: types, enums, patterns, ranges, required-iff members."""
    findings = []

    def bad(at, detail):
        findings.append((at, detail))

    def obj(value, at):
        if not isinstance(value, dict):
            bad(at, "not an object")
            return False
        return True

    def name_or_null(value, at):
        if value is not None and not (isinstance(value, str) and NAME.fullmatch(value)):
            bad(at, "not a registered-name string or null")

    def timeout(value, at):
        if value is not None and not (is_int(value) and 1 <= value <= MAX_TIMEOUT_MS):
            bad(at, f"not an integer from 1 to {MAX_TIMEOUT_MS}, or null")

    def point_set(value, at, low, high):
        if not isinstance(value, list) or not low <= len(value) <= high:
            bad(at, f"not an array of {low} to {high} points")
            return
        if any(p not in POINTS for p in value):
            bad(at, "names an unknown interception point")
        if len(set(map(json.dumps, value))) != len(value):
            bad(at, "repeats an item")

    if "$schema" in doc and not isinstance(doc["$schema"], str):
        bad("/$schema", "not a string")
    if "id" in doc and not (isinstance(doc["id"], str) and DOC_ID.fullmatch(doc["id"])):
        bad("/id", "does not follow the id pattern")
    if "host" in doc and obj(doc["host"], "/host"):
        host = doc["host"]
        if "name" not in host:
            bad("/host/name", "required when host is present")
        elif not (isinstance(host["name"], str) and HOST_NAME.fullmatch(host["name"])):
            bad("/host/name", "does not follow the host name pattern")
        if "version" in host and not (isinstance(host["version"], str) and 1 <= len(host["version"]) <= 64):
            bad("/host/version", "not a string of 1 to 64 characters")
    if "configuration" in doc and obj(doc["configuration"], "/configuration"):
        c = doc["configuration"]
        if "mode" in c and c["mode"] not in ("enforce", "evaluate_only"):
            bad("/configuration/mode", "not enforce or evaluate_only")
        if "composition" in c and obj(c["composition"], "/configuration/composition"):
            comp = c["composition"]
            if comp.get("profile") not in PROFILES:
                bad("/configuration/composition/profile", "missing or not one of the four profiles")
            for knob, values in (("on_approval", ("stop", "resume")), ("on_disagreement", ("deny", "approval")),
                                 ("on_transform_conflict", ("deny", "approval"))):
                if knob in comp and comp[knob] not in values:
                    bad(pointer("configuration", "composition", knob), f"not one of {', '.join(values)}")
        if "identity_provider" in c:
            p = c["identity_provider"]
            if p is not None and p != "jcs-sha256" and not (isinstance(p, str) and NAME.fullmatch(p) and not p.startswith("jcs")):
                bad("/configuration/identity_provider", "not jcs-sha256, a registered-name string or null")
        if "approval" in c and obj(c["approval"], "/configuration/approval"):
            for key in ("resolver", "redactor"):
                if key in c["approval"]:
                    name_or_null(c["approval"][key], pointer("configuration", "approval", key))
        if "posture" in c and obj(c["posture"], "/configuration/posture"):
            if "tool_seam_host_error" in c["posture"] and c["posture"]["tool_seam_host_error"] not in ("continue", "terminate"):
                bad("/configuration/posture/tool_seam_host_error", "not continue or terminate")
        if "timeouts" in c and obj(c["timeouts"], "/configuration/timeouts"):
            for key in ("interceptor_ms", "approval_resolver_ms"):
                if key in c["timeouts"]:
                    timeout(c["timeouts"][key], pointer("configuration", "timeouts", key))
        if "records" in c and obj(c["records"], "/configuration/records"):
            mb = c["records"].get("max_buffered")
            if "max_buffered" in c["records"] and mb is not None and not (is_int(mb) and mb >= 1):
                bad("/configuration/records/max_buffered", "not a positive integer or null")
    if "surface" in doc and obj(doc["surface"], "/surface"):
        s = doc["surface"]
        if "interception_points" in s:
            point_set(s["interception_points"], "/surface/interception_points", 4, 8)
        if "capabilities" in s:
            caps = s["capabilities"]
            if not isinstance(caps, list) or any(x not in CAPABILITIES for x in caps) or len(set(map(json.dumps, caps))) != len(caps):
                bad("/surface/capabilities", "not a set of declarable capabilities")
        if "profiles" in s and obj(s["profiles"], "/surface/profiles"):
            for name, knobs in s["profiles"].items():
                at = pointer("surface", "profiles", name)
                if obj(knobs, at) and name in PROFILES:
                    knob, values, _ = PROFILES[name]
                    if knob in knobs:
                        listed = knobs[knob]
                        if (not isinstance(listed, list) or not listed or any(v not in values for v in listed)
                                or len(set(map(json.dumps, listed))) != len(listed)):
                            bad(pointer("surface", "profiles", name, knob), f"not a non-empty set of {', '.join(values)}")
        buffered = s.get("buffered_output", True)
        if "buffered_output" in s and not isinstance(s["buffered_output"], bool):
            bad("/surface/buffered_output", "not a boolean")
        if "exposure_bound" in s:
            eb = s["exposure_bound"]
            if not (isinstance(eb, str) and 1 <= len(eb) <= 512):
                bad("/surface/exposure_bound", "not a string of 1 to 512 characters")
            if buffered is True:
                bad("/surface/exposure_bound", "present although output is buffered")
        elif buffered is False:
            bad("/surface/exposure_bound", "required when buffered_output is false")
        if "declaration_versions" in s:
            dv = s["declaration_versions"]
            if (not isinstance(dv, list) or not dv or any(not (isinstance(v, str) and VERSION_FORM.fullmatch(v)) for v in dv)
                    or len(set(map(json.dumps, dv))) != len(dv)):
                bad("/surface/declaration_versions", "not a non-empty set of declaration versions")
    if "bindings" not in doc:
        bad("/bindings", "required")
    elif not isinstance(doc["bindings"], list) or len(doc["bindings"]) > MAX_BINDINGS:
        bad("/bindings", f"not an array of at most {MAX_BINDINGS} bindings")
    else:
        for i, b in enumerate(doc["bindings"]):
            at = pointer("bindings", i)
            if not obj(b, at):
                continue
            if not (isinstance(b.get("id"), str) and NAME.fullmatch(b["id"])):
                bad(at + "/id", "missing or not following the id pattern")
            if not (isinstance(b.get("kind"), str) and len(b["kind"]) <= 128 and KIND.fullmatch(b["kind"])):
                bad(at + "/kind", "missing or not following the kind pattern")
            if "at" in b:
                point_set(b["at"], at + "/at", 1, 8)
            if "timeout_ms" in b:
                timeout(b["timeout_ms"], at + "/timeout_ms")
    if "extensions" in doc and obj(doc["extensions"], "/extensions"):
        for key in doc["extensions"]:
            if not EXTENSION_KEY.fullmatch(key):
                bad(pointer("extensions", key), "not an extension name")

    # The project's reading D-70 (spec/0.1/DECISIONS.md): an integer beyond
    # the I-JSON exact range anywhere in the document cannot be carried into
    # the RFC 8785 resolved form without rewriting it.
    def exact_integers(value, at):
        if is_int(value) and abs(value) > MAX_EXACT_INTEGER:
            bad(at, "an integer beyond 2^53-1 in magnitude")
        elif isinstance(value, dict):
            for key, child in value.items():
                exact_integers(child, at + pointer(key))
        elif isinstance(value, list):
            for i, child in enumerate(value):
                exact_integers(child, at + pointer(i))

    exact_integers(doc, "")
    if findings:
        raise Refusal("invalid_field", findings)


def effective_surface(doc):
    """The surface the document states, its missing members filled from the
    code surface (`buffered_output` defaults to true)."""
    stated = doc.get("surface", {})
    return {
        "interception_points": stated.get("interception_points", CODE["interception_points"]),
        "capabilities": stated.get("capabilities", CODE["capabilities"]),
        "profiles": stated.get("profiles", CODE["profiles"]),
        "buffered_output": stated.get("buffered_output", True if "surface" in doc else CODE["buffered_output"]),
        "declaration_versions": stated.get("declaration_versions", CODE["declaration_versions"]),
    }


def resolved_composition(doc):
    comp = doc.get("configuration", {}).get("composition", {})
    profile = comp.get("profile", "sequential/first_deny")
    knob, _, default = PROFILES[profile]
    out = {"profile": profile}
    if knob is not None:
        out[knob] = comp.get(knob, default)
    return out


def check_consistent(doc):
    """Step 7: the document's members agree with one another."""
    findings = []
    surface = effective_surface(doc)
    stated = doc.get("surface", {})

    def note(member):
        return "" if member in stated else " (not stated: filled from the host)"

    points = set(surface["interception_points"])
    if "surface" in doc:
        for p in FLOOR:
            if p not in points:
                findings.append(("/surface/interception_points", f"omits the floor point {p}"))
        for a, b in (("pre_model_call", "post_model_call"), ("pre_tool_call", "post_tool_call")):
            if (a in points) != (b in points):
                findings.append(("/surface/interception_points", f"omits one of {a} and {b}"))
        caps = set(surface["capabilities"])
        for cap, pair in (("model_calls", ("pre_model_call", "post_model_call")), ("tool_calls", ("pre_tool_call", "post_tool_call"))):
            if (cap in caps) != all(p in points for p in pair):
                findings.append(("/surface/capabilities", f"{cap} must be listed exactly when both {pair[0]} and {pair[1]} are" + note("capabilities")))
        if "incremental_output" in caps and surface["buffered_output"] is not False:
            findings.append(("/surface/capabilities", "incremental_output requires buffered_output false" + note("buffered_output")))
    comp = doc.get("configuration", {}).get("composition", {})
    profile = comp.get("profile", "sequential/first_deny")
    knob = PROFILES[profile][0]
    for k in KNOBS:
        if k in comp and k != knob:
            findings.append((pointer("configuration", "composition", k), f"{profile} does not consult {k}"))
    if "profiles" in stated:
        resolved = resolved_composition(doc)
        if profile not in stated["profiles"]:
            findings.append(("/configuration/composition/profile", "the profile is not in surface.profiles"))
        elif knob is not None:
            listed = stated["profiles"][profile].get(knob, [PROFILES[profile][2]])
            if resolved[knob] not in listed:
                findings.append((pointer("configuration", "composition", knob), "the knob value is not in surface.profiles"))
    if doc["declaration"] not in surface["declaration_versions"]:
        findings.append(("/surface/declaration_versions", "does not list the document's own version" + note("declaration_versions")))
    seen = set()
    for i, b in enumerate(doc["bindings"]):
        if b["id"] in seen:
            findings.append((pointer("bindings", i, "id"), "repeats a binding id"))
        seen.add(b["id"])
        for p in b.get("at", []):
            if p not in points:
                findings.append((pointer("bindings", i, "at"), f"{p} is not a point of the surface" + note("interception_points")))
    if findings:
        raise Refusal("inconsistent", findings)


def check_supported(doc):
    """Step 8: nothing the document states or configures exceeds the code."""
    findings = []
    s = doc.get("surface", {})
    for p in s.get("interception_points", []):
        if p not in CODE["interception_points"]:
            findings.append(("/surface/interception_points", f"this host cannot emit {p}"))
    for c in s.get("capabilities", []):
        if c not in CODE["capabilities"]:
            findings.append(("/surface/capabilities", f"this host does not have {c}"))
    for name, knobs in s.get("profiles", {}).items():
        if name not in CODE["profiles"]:
            findings.append((pointer("surface", "profiles", name), "this host does not implement the profile"))
            continue
        knob = PROFILES[name][0]
        for v in knobs.get(knob, []):
            if v not in CODE["profiles"][name].get(knob, []):
                findings.append((pointer("surface", "profiles", name, knob), f"this host does not implement {v}"))
    for v in s.get("declaration_versions", []):
        if v not in CODE["declaration_versions"]:
            findings.append(("/surface/declaration_versions", f"this host does not load {v}"))
    if s.get("buffered_output") is False and not CODE["streams_unbuffered"]:
        findings.append(("/surface/buffered_output", "this host cannot stream output unbuffered"))
    comp = resolved_composition(doc)
    knob = PROFILES[comp["profile"]][0]
    if comp["profile"] not in CODE["profiles"] or (knob and comp[knob] not in CODE["profiles"][comp["profile"]].get(knob, [])):
        findings.append(("/configuration/composition", "this host does not implement the configured composition"))
    posture = doc.get("configuration", {}).get("posture", {}).get("tool_seam_host_error", CODE["posture"])
    if posture != CODE["posture"]:
        findings.append(("/configuration/posture/tool_seam_host_error", f"this host implements the {CODE['posture']} posture only"))
    if findings:
        raise Refusal("surface_unsupported", findings)


# ------------------------------------------------------------ steps 9-12

def check_references(doc, registry):
    """Step 9: every named provider, resolver and redactor is registered."""
    findings = []
    c = doc.get("configuration", {})
    provider = c.get("identity_provider", "jcs-sha256")
    if provider not in (None, "jcs-sha256") and provider not in registry.providers:
        findings.append(("/configuration/identity_provider", "no identity provider of this name is registered"))
    approval = c.get("approval", {})
    if approval.get("resolver") is not None and approval["resolver"] not in registry.resolvers:
        findings.append(("/configuration/approval/resolver", "no approval resolver of this name is registered"))
    if approval.get("redactor") is not None and approval["redactor"] not in registry.redactors:
        findings.append(("/configuration/approval/redactor", "no redactor of this name is registered"))
    if findings:
        raise Refusal("reference_unresolved", findings)


def resolve(doc, run_spec):
    """The resolved form (§7.7.3 defaults, §7.2 knobs, sets sorted)."""
    c = doc.get("configuration", {})
    timeouts = c.get("timeouts", {})
    interceptor_ms = timeouts.get("interceptor_ms", DEFAULT_TIMEOUT_MS)
    surface = effective_surface(doc)
    stated = doc.get("surface", {})
    lifecycle = sorted(set(surface["interception_points"]), key=POINTS.index)
    resolved_surface = {
        "interception_points": lifecycle,
        "capabilities": sorted(set(surface["capabilities"])),
        "profiles": {name: ({PROFILES[name][0]: sorted(set(knobs.get(PROFILES[name][0], [PROFILES[name][2]])))}
                            if PROFILES[name][0] else {})
                     for name, knobs in surface["profiles"].items()},
        "buffered_output": surface["buffered_output"],
        "declaration_versions": sorted(set(surface["declaration_versions"])),
    }
    if "exposure_bound" in stated:
        resolved_surface["exposure_bound"] = stated["exposure_bound"]
    out = {
        "declaration": doc["declaration"],
        "spec": doc["spec"],
        "configuration": {
            "mode": c.get("mode", "enforce"),
            "composition": resolved_composition(doc),
            "identity_provider": c.get("identity_provider", "jcs-sha256"),
            "approval": {"resolver": c.get("approval", {}).get("resolver"),
                         "redactor": c.get("approval", {}).get("redactor")},
            "posture": {"tool_seam_host_error": c.get("posture", {}).get("tool_seam_host_error", CODE["posture"])},
            "timeouts": {"interceptor_ms": interceptor_ms,
                         "approval_resolver_ms": timeouts.get("approval_resolver_ms", interceptor_ms)},
            "records": {"max_buffered": c.get("records", {}).get("max_buffered")},
        },
        "surface": resolved_surface,
        "bindings": [{
            "id": b["id"], "kind": b["kind"], "config": b.get("config", {}),
            "at": sorted(set(b.get("at", lifecycle)), key=POINTS.index),
            "timeout_ms": b.get("timeout_ms", interceptor_ms),
        } for b in doc["bindings"]],
        "extensions": doc.get("extensions", {}),
    }
    for key in ("id", "host"):
        if key in doc:
            out[key] = doc[key]
    return out


def build(doc, registry, run_spec):
    """Steps 3-11 on a parsed document: the resolved declaration and one
    interceptor per binding, or a Refusal."""
    check_version(doc)
    check_spec(doc, run_spec)
    check_unknown(doc)
    check_fields(doc)
    check_consistent(doc)
    check_supported(doc)
    check_references(doc, registry)
    unknown = [(pointer("bindings", i, "kind"), "no resolver is registered for this kind")
               for i, b in enumerate(doc["bindings"]) if b["kind"] not in registry.kinds]
    if unknown:
        raise Refusal("kind_unknown", unknown)
    resolved = resolve(doc, run_spec)
    interceptors = []
    for i, b in enumerate(resolved["bindings"]):
        try:
            interceptors.append(registry.kinds[b["kind"]](b["config"], b))
        except Exception as e:  # any failure of a resolver refuses the document
            # The message never echoes `config`.
            raise Refusal("binding_rejected", [(pointer("bindings", i), f"the {b['kind']} resolver refused the binding: {type(e).__name__}")]) from e
    return Declaration(resolved, interceptors)


class Declaration:
    """An accepted document: its resolved form and the binding interceptors."""

    def __init__(self, resolved, interceptors):
        self.resolved = resolved
        self.interceptors = interceptors


class Loader:
    """The four construction paths over one registry, for one spec."""

    def __init__(self, registry, run_spec):
        self.registry = registry
        self.run_spec = run_spec

    def load_text(self, text):
        return build(parse_text(text), self.registry, self.run_spec)

    def load_path(self, path):
        return self.load_text(read_file(path))

    def load_value(self, value):
        check_value_shape(value)
        try:
            # Compact, as a text of the same document can be: a spaced
            # serialization would refuse a value whose text loads (7.7.7-a).
            text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except ValueError as e:
            raise Refusal("malformed", [("", "the document holds a non-finite number")]) from e
        if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            raise Refusal("malformed", [("", "the document is larger than 1 MiB")])
        return build(value, self.registry, self.run_spec)

    def load_builder(self, builder):
        return self.load_text(builder.to_text())


class Builder:
    """A document built in code: one setter per root member, one call per
    binding; serialized, then fed to the text path (§7.7.7)."""

    def __init__(self):
        self.members = {}
        self.bindings = None

    def set(self, member, value):
        self.members[member] = value
        return self

    def binding(self, binding):
        self.bindings = (self.bindings or []) + [binding]
        return self

    @classmethod
    def from_document(cls, doc):
        b = cls()
        for member, value in doc.items():
            if member == "bindings" and isinstance(value, list):
                b.bindings = []
                for item in value:
                    b.binding(item)
            else:
                b.set(member, value)
        return b

    def to_text(self):
        doc = dict(self.members)
        if self.bindings is not None:
            doc["bindings"] = self.bindings
        # Compact, like the value path: the builder's text is measured.
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
