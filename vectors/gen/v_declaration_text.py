"""Ids 1300-1329: vectors that close mutation-run gaps (issue 13) in the declaration text reader and its refusals (declaration/text.rs, load.rs, resolved.rs, error.rs).
Each vector cites the text its expectation follows from; the mutant it kills is named in the comment above it.

The helpers mirror v_decl_776.py's on purpose instead of importing them, so that edits there never change
these vectors.
"""
import json

from lib import V, rule, deny, ix, rec, plain_scenario, FULL_PLAIN, SU, IN, PM, PO, PT, PTT, OUT, SD, M  # noqa: F401

DL, DR = "declaration/load", "declaration/refusal"
HD = ["host_declaration"]
DV = "agent-hooks-declaration/1.0"
ACC = {"outcome": "accepted", "paths_equivalent": True}
# Clauses every refusal cites (the pipeline, no record, refused at load, a construction error).
REFUSAL = ["7.7.6-a", "7.7.6-b", "7.7.1-a", "11-d"]
# Section 7.7.3: "A document is at most 1 MiB of text".
MIB = 1024 * 1024
COMPLETED = {"interceptions": ix(FULL_PLAIN), "final_output": "hello there", "run_outcome": "completed"}


def scripted(bid, config):
    return {"id": bid, "kind": "ctk.scripted", "config": config}


GUARD = [scripted("guard", {"script": 0})]


def doc(bindings, **extra):
    d = {"declaration": DV, "spec": "agent-hooks/0.1"}
    d.update(extra)
    d["bindings"] = bindings
    return d


def compact(value):
    """The compact JSON text of a value, as the vector loader writes a {"$ctk.generate": {"json": ...}} form."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def refusal(num, slug, title, cls, covers, document=None, text=None, caps=None, advisory=None, invalid=False):
    """A refusal vector: the document (a value, or raw text) is refused with `cls` before anything runs."""
    kw = {}
    if document is not None:
        kw["host_declaration"] = document
    if text is not None:
        kw["host_declaration_text"] = text
    if invalid:
        kw["host_declaration_invalid"] = True
    V(num, "decl-mut-" + slug, title, "7.7.6", covers + REFUSAL, DR, plain_scenario(),
      {"load": {"outcome": "refused", "class": "declaration_error:" + cls, "paths_equivalent": True},
       "interceptions": [], "run_outcome": "error"},
      caps=HD + (caps or []), scripts=[[]], advisory=advisory, **kw)


def accepted(num, slug, title, clause, covers, document=None, text=None, expect=None, caps=None, advisory=None,
             scenario=None, part=DL):
    """A document that must load: the run goes on with the load outcome accepted."""
    kw = {}
    if document is not None:
        kw["host_declaration"] = document
    if text is not None:
        kw["host_declaration_text"] = text
    e = {"load": ACC}
    e.update(expect or COMPLETED)
    V(num, "decl-mut-" + slug, title, clause, covers, part, scenario or plain_scenario(), e,
      caps=M + HD + (caps or []), scripts=[[]], advisory=advisory, **kw)


# ---------------- the 1 MiB text bound, met exactly (gating)
# Section 7.7.3: "A document is at most 1 MiB of text (the value path is measured after serialization)"; step 1 refuses a
# file only "larger than 1 MiB". A text of exactly 1,048,576 bytes is within the bound on the text and the file path, and
# section 7.7.7 asks every path to resolve an equal document alike, so its parsed value (whose compact serialization is
# the same 1,048,576 bytes) loads too. The padding is an extension value, which the loader keeps verbatim and never reads.
# Kills, in declaration/text.rs: `* with +` (a 2 KiB bound), read_file `> with ==` and `> with >=` at both checks,
# read_file `+ with -` (reads one byte short and cuts the closing brace), parse_text `> with >=`, check_value
# `> with >=` and `> with ==` on the size.
PAD_DOC = doc(GUARD, extensions={"acme": {"note": ""}})
PAD = MIB - len(compact(PAD_DOC))
assert PAD > 0, PAD
ONE_MIB_TEXT = {"$ctk.generate": {"json": doc(GUARD, extensions={"acme": {"note": {"$ctk.generate": {"repeat": "a", "count": PAD}}}})}}
assert len(compact(doc(GUARD, extensions={"acme": {"note": "a" * PAD}}))) == MIB
accepted(1300, "text-of-one-mib-loads", "A declaration text of exactly 1 MiB (1,048,576 bytes), a valid document padded by an extension value, loads on every path and the run completes",
         "7.7.3, 7.7.6, 7.7.7", ["7.7.6-g", "7.7.3-e", "7.7.7-a", "7.7.9-a", "7.7.1-b"], text=ONE_MIB_TEXT)


# ---------------- the 32-level depth bound, met exactly (gating)
# Section 7.7.3: a document "nests at most 32 levels". Counting the root object as level 1 (D-46), this document nests
# 32 levels; a count that starts below the root finds 31, and its deepest value is an empty object, so no scalar adds a
# level under any count: within the bound however it is counted, it must load, on every path (section 7.7.7).
# Kills, in declaration/text.rs: StrictVisitor::nested `> with >=` and `> with ==` (the text, file and builder paths
# refuse a container at level 32), check_value `> with >=` on the depth (the value path refuses depth 32).
def nested(levels):
    """An object nested `levels` deep ({} is one level)."""
    v = {}
    for _ in range(levels - 1):
        v = {"n": v}
    return v


def depth(x):
    if isinstance(x, dict):
        return 1 + max([depth(v) for v in x.values()] or [0])
    if isinstance(x, list):
        return 1 + max([depth(v) for v in x] or [0])
    return 0


# root (1) > extensions (2) > acme (3) > 29 more levels: 32
DEEPEST = doc(GUARD, extensions={"acme": nested(30)})
assert depth(DEEPEST) == 32, depth(DEEPEST)
accepted(1301, "depth-32-loads", "A document nested exactly 32 levels deep, the bound however the root is counted, loads on every path and the run completes",
         "7.7.3, 7.7.6, 7.7.7", ["7.7.3-e", "7.7.6-h", "7.7.7-a", "7.7.9-a"], document=DEEPEST)


# ---------------- integer literals beyond 64 bits, read token by token (advisory: D-70)
# The document-wide integer bound is the project's ruling D-70 (the text names no bound for a binding's config), so
# these refusals are advisory, like CTK-1216 and CTK-1220..1222. A literal beyond 64 bits reaches a parsed value as a
# float, so only the reading of the text itself finds it: every value written before it must be stepped over whole.
BIG = "18446744073709551616"  # 2^64


def config_text(members):
    return ('{"declaration": "%s", "spec": "agent-hooks/0.1", "bindings": [{"id": "guard", "kind": "ctk.scripted", '
            '"config": {"script": 0, %s}}]}' % (DV, members))


# An escaped quote is part of a string token, never its end. Kills text.rs `delete match arm b'\\' in Scan::string`.
refusal(1302, "escaped-quote-then-beyond-64-bits-text", "A config literal beyond 64 bits after a string holding escaped quotes is still refused as invalid_field",
        "invalid_field", ["7.7.6-i", "7.7.1-b"], text=config_text('"note": "say \\"hi\\" twice", "serial": %s' % BIG),
        caps=["bigint_json"], advisory="D-70")
# true, false and null are stepped over whole. Kills text.rs `+= with -= in Scan::value #11`.
refusal(1303, "literals-then-beyond-64-bits-text", "A config literal beyond 64 bits after true, false and null members is still refused as invalid_field",
        "invalid_field", ["7.7.6-i", "7.7.1-b"],
        text=config_text('"on": true, "off": false, "none": null, "serial": %s' % BIG),
        caps=["bigint_json"], advisory="D-70")
# A non-empty object ends at its closing brace, and the members after it belong to the enclosing object. Kills text.rs
# `delete match arm b'}' in Scan::value`, `+= with -= in Scan::value #4` and `+= with *= in Scan::value #4`.
refusal(1304, "object-then-beyond-64-bits-text", "A config literal beyond 64 bits after a non-empty object in the same config is still refused as invalid_field",
        "invalid_field", ["7.7.6-i", "7.7.1-b"],
        text=config_text('"meta": {"owner": "ops", "tier": 2}, "serial": %s' % BIG),
        caps=["bigint_json"], advisory="D-70")
# A non-empty array's elements are separated by commas and it ends at its closing bracket. Kills text.rs
# `delete match arm b',' in Scan::value #2`, `delete match arm b']' in Scan::value`, `+= with -= in Scan::value #9` and
# `+= with *= in Scan::value #9`.
refusal(1305, "array-then-beyond-64-bits-text", "A config literal beyond 64 bits after a two-element array in the same config is still refused as invalid_field",
        "invalid_field", ["7.7.6-i", "7.7.1-b"],
        text=config_text('"tags": [1, 2], "serial": %s' % BIG),
        caps=["bigint_json"], advisory="D-70")
# The literal as the second element of an array: the finding is at /bindings/0/config/serials/1, and the text has no
# exact value form, so only the text and file paths apply (D-70). Kills text.rs `+= with *= in Scan::value #7` (every
# element counted as index 0: the literal is looked for at .../serials/0, the text passes as exact, and the value and
# builder paths load the float the text path refuses).
refusal(1306, "array-second-element-beyond-64-bits-text", "A config literal beyond 64 bits as the second element of an array is refused as invalid_field on every path",
        "invalid_field", ["7.7.6-i", "7.7.1-b", "7.7.7-a"],
        text=config_text('"serials": [0, %s]' % BIG),
        caps=["bigint_json"], advisory="D-70")


# ---------------- an integer of 16 digits below the bound (gating)
# Extension values are kept verbatim and never read (section 7.7.3), so any integer within +/-(2^53-1) loads there,
# also one with as many digits as the bound (CTK-1211 pins the bound itself). Kills text.rs
# `> with < in digits_beyond_safe #2` (a 16-digit literal below 9007199254740991 taken as beyond it, so the text and
# file paths refuse).
accepted(1307, "extensions-sixteen-digits-load", "Integers of 16 digits below 2^53-1 inside extensions load: extension values are kept verbatim, never read",
         "7.7.3", ["7.7.3-b", "7.7.9-a", "7.7.7-a"],
         document=doc(GUARD, extensions={"acme": {"serial": 1234567890123456, "floor": -1000000000000000}}))


# ---------------- a declared unbuffered surface streams incrementally (gating)
# A stated surface with buffered_output false and incremental_output (section 7.7.4) selects the host's unbuffered
# streaming, which the code has (7.7.1-a): each streamed segment is its own post_model_call over the growing prefix
# (12.1-c), released once permitted, as CTK-1000 shows without a declaration. CTK-1271 is the buffered twin.
# Kills load.rs `replace Declaration::output_mode -> OutputMode with Default::default()` (the loop buffers: one
# post_model_call over the whole response).
UNBUFFERED = {"interception_points": [SU, IN, PM, PO, PT, PTT, OUT, SD],
              "capabilities": ["model_calls", "tool_calls", "incremental_output", "host_declaration"],
              "buffered_output": False,
              "exposure_bound": "none: a segment is released only after a verdict covering it permits",
              "declaration_versions": [DV],
              "profiles": {"sequential/first_deny": {"on_approval": ["stop"]}}}
CHUNKS = ["alpha ", "beta ", "gamma"]
STREAM = {"input": {"content": "tell me", "role": "user"},
          "model_script": [{"respond": {"content": "".join(CHUNKS), "stream": CHUNKS, "tool_calls": [],
                                        "finish_reason": "stop"}}]}
accepted(1308, "unbuffered-surface-streams-segments", "A declaration stating buffered_output false and incremental_output streams: three chunks give three post_model_call emissions over growing prefixes, all released",
         "7.7.4, 12.1", ["7.7.1-a", "7.7.4-b", "7.7.9-a", "12.1-c", "12.1a-b"],
         document=doc(GUARD, surface=UNBUFFERED), caps=["incremental_output"], scenario=STREAM, part="streaming/incremental",
         expect={"sequence_strict": True,
                 "interceptions": ix([SU, IN, PM, PO, PO, PO, OUT, SD], {
                     3: {"response.content": "alpha ", "response.finish_reason": "incremental"},
                     4: {"response.content": "alpha beta ", "response.finish_reason": "incremental"},
                     5: {"response.content": "alpha beta gamma", "response.finish_reason": "stop"},
                     6: {"output.content": "alpha beta gamma"}}),
                 "records": [rec(PO, {"verdict.decision": "allow", "declaration": DV}),
                             rec(PO, {"verdict.decision": "allow"}),
                             rec(PO, {"verdict.decision": "allow"})],
                 "released_output": "alpha beta gamma", "final_output": "alpha beta gamma", "run_outcome": "completed"})


# ---------------- step 1 is the file path's own (D-78)
# Section 7.7.6: step 1 ("unreadable") runs only on the file-path entry and refuses a file "larger than 1 MiB" or one
# starting with a byte-order mark; step 2 ("malformed") refuses a text that "passes 1 MiB" or is not JSON. The text
# itself therefore gives an equal document two classes: `unreadable` from a file, `malformed` on the text, value and
# builder paths. D-78 counts that pair as agreeing when paths are compared (section 7.7.7 compares what the paths make
# of a document; a file step 1 refuses never reaches one). Every other pair of classes still disagrees.
# A text of 1 MiB plus one byte, padded by an extension value as CTK-1300 is: the text path refuses it as malformed,
# which section 7.7.3 and step 2 require (gating); the file path refuses it as unreadable, and the paths agree (D-78).
# Kills host_adapter.rs compared_class's `== with !=` on the path and on the class, `&& with ||`, and its body
# replaced by the refusal's own class (each reports paths_equivalent false).
OVER_TEXT = {"$ctk.generate": {"json": doc(GUARD, extensions={"acme": {"note": {"$ctk.generate": {"repeat": "a", "count": PAD + 1}}}})}}
assert len(compact(doc(GUARD, extensions={"acme": {"note": "a" * (PAD + 1)}}))) == MIB + 1
refusal(1309, "text-past-one-mib-malformed", "A declaration text of 1 MiB plus one byte is refused as malformed, not truncated; the file path's unreadable agrees with it",
        "malformed", ["7.7.6-h", "7.7.3-e", "7.7.7-a"], text=OVER_TEXT, invalid=True)

# A text that starts with U+FEFF: a file of its UTF-8 bytes starts with the byte-order mark step 1 refuses; on the
# text path U+FEFF is not JSON whitespace (RFC 8259 section 2), so step 2 refuses it as malformed. RFC 8259 section 8.1
# lets a parser ignore a byte-order mark, so a text path that reads past it is a reading of the text too: advisory.
refusal(1310, "text-with-byte-order-mark-malformed", "A declaration text starting with U+FEFF is refused as malformed; the file path's unreadable agrees with it",
        "malformed", ["7.7.6-h", "7.7.7-a"], text="\ufeff" + compact(doc(GUARD)), invalid=True, advisory="D-78")
