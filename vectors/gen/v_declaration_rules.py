"""Ids 1330-1359: vectors that close mutation-run gaps (issue 13) in the declaration checks and registry (declaration/check.rs, registry.rs, kinds.rs).
Each vector cites the text its expectation follows from; the mutant it kills is named in the comment above it."""
from lib import *  # noqa: F401,F403
from v_more import *  # noqa: F401,F403

# Every vector here is gating: each expectation is a rule of the 1.0 document as section 7.7 writes it (the member
# tables of 7.7.3 to 7.7.5 and the step order of 7.7.6), read at one edge of the rule.


def loads(num, slug, title, clause, covers, part, document, expect=None, caps=None, scripts=None):
    """A document that must load; the plain run then completes."""
    e = {"load": ACC, "interceptions": ix(FULL_PLAIN), "final_output": "hello there", "run_outcome": "completed"}
    e.update(expect or {})
    V(num, "decl-" + slug, title, clause, covers, part, plain_scenario(), e,
      caps=M + HD + (caps or []), scripts=scripts or [[]], host_declaration=document)


# ---------------- surface.exposure_bound beside buffered_output false (section 7.7.4)
# The table: buffered_output is a boolean (default true, "false MUST be declared explicitly", section 13.1) and
# exposure_bound a string of 1 to 512 characters, present exactly when buffered_output is false. Written that way, at
# the upper edge of the length, the surface loads. A host that cannot stream unbuffered refuses it at step 8, so the
# vector needs incremental_output. CTK-1177, 1185, 1188..1190 pin the refusals around it.
# Kills check.rs:779:24 (the bound's guard -> false: every bound refused) and 801:24 (guard !bound -> true: a stated
# buffered_output false refused whatever stands beside it); it also pins 779:59 (<= -> >) from the inside.
UNBUFFERED = {"interception_points": [SU, IN, PM, PO, OUT, SD],
              "capabilities": ["model_calls", "incremental_output", "host_declaration"],
              "profiles": {"sequential/first_deny": {"on_approval": ["stop"]}},
              "buffered_output": False,
              "exposure_bound": ("a segment is released only after a verdict covering it permits; " * 9)[:512],
              "declaration_versions": [DV]}
assert len(UNBUFFERED["exposure_bound"]) == 512
loads(1330, "unbuffered-surface-with-bound", "A stated surface with buffered_output false and an exposure_bound of 512 characters loads and the run completes",
      "7.7.4", ["7.7.4-b", "7.7.1-a", "7.7.9-a"], DL, doc(G, surface=UNBUFFERED), caps=["incremental_output"])

# ---------------- host.name ^[a-z0-9_-]{1,64}$ and host.version of 1 to 64 characters (section 7.7.3)
# host is informative, but its members are typed: a name outside the pattern is refused at step 6 (7.7.6-i).
# Kills check.rs:395:5 (pattern_host_name -> true), 396:9 and 397:9 (&& -> ||: any non-empty or short name passes),
# 398:72 (== -> != on '_': every character but '_' passes) and 520:28 (the host.name guard -> true).
refused(1331, "host-name-capitals", "A host.name with capital letters (Sample-Host) breaks ^[a-z0-9_-]{1,64}$ and is refused as invalid_field",
        "invalid_field", doc(G, host={"name": "Sample-Host", "version": "2.4.1"}), ["7.7.6-i"], True)
# What the pattern allows loads: digits, an underscore and a hyphen, a digit first (unlike a binding id, a host name
# may start with one). Kills check.rs:398:67 (|| -> &&: digits and '_' no longer pass) and 398:72 ('_' no longer passes).
loads(1332, "host-name-digit-underscore", "A host.name with a leading digit, an underscore and a hyphen (9edge_node-07) matches ^[a-z0-9_-]{1,64}$: it loads and no record carries host",
      "7.7.3", ["7.7.3-b", "7.7.8-a", "7.7.9-a"], DL, doc(G, host={"name": "9edge_node-07", "version": "3.2.0"}),
      {"records": [rec(SU, {"declaration": DV}, ["host"])]})
# Kills check.rs:526:52 (&& -> ||: an empty version passes on its length).
refused(1333, "host-version-empty", "An empty host.version breaks its 1 to 64 characters and is refused as invalid_field",
        "invalid_field", doc(G, host={"name": "sample-host", "version": ""}), ["7.7.6-i", "7.7.3-e"], True)

# ---------------- approval.resolver and approval.redactor: a registered name or null (section 7.7.3)
# null is each member's default, and stating a default loads like leaving it out (7.7.3-b). Kills check.rs:600:9
# (optional_name's Value::Null arm deleted: null becomes an invalid name).
loads(1334, "approval-nulls-stated", "A declaration stating approval.resolver and approval.redactor null (their defaults) loads and the run completes",
      "7.7.3", ["7.7.3-b", "7.7.9-a"], DL, doc(G, {"approval": {"resolver": None, "redactor": None}}))

# ---------------- a binding's at: a set of one or more interception points (section 7.7.5)
# Kills check.rs:371:30 (|| -> && in Fields::set: no set's item count is checked, so an empty at binds nowhere and
# loads).
refused(1335, "binding-at-empty", "A binding whose at is the empty array breaks its at least one point and is refused as invalid_field",
        "invalid_field", doc([b("guard", 0, at=[])]), ["7.7.6-i"], True)
# Kills check.rs:418:5 (point_name -> true: any string is taken for a point, and the resolved at drops it).
refused(1336, "binding-at-unknown-point", "A binding whose at names a string that is no interception point (pre_tool) is refused as invalid_field",
        "invalid_field", doc([b("guard", 0, at=["pre_tool"])]), ["7.7.6-i"], True)

# ---------------- bindings: at most 256 (section 7.7.3's bounds)
# At the bound the document loads and every binding runs at every point; one more is refused at step 6, not
# truncated (7.7.3-e). Kills check.rs:548:28 (> -> >= and > -> ==: 256 bindings refused); CTK-1338 pins the other side.
# The first binding runs script 0, whose contexts the interceptions list reads; the other 255 run script 1.
MANY = [b("guard-000", 0)] + [b("guard-%03d" % i, 1) for i in range(1, 256)]
loads(1337, "bindings-256", "A declaration with 256 bindings, the most the 1.0 document allows, loads and all 256 run at each point",
      "7.7.3", ["7.7.3-e", "7.7.5-b", "7.7.9-a"], DB, doc(MANY),
      {"records": [rec(p, {"interceptors_registered": 256, "declaration": DV}) for p in (SU, OUT)]}, scripts=[[], []])
refused(1338, "bindings-257", "A declaration with 257 bindings, one beyond the bound, is refused as invalid_field, not truncated",
        "invalid_field", doc([b("guard-%03d" % i, 0) for i in range(257)]), ["7.7.6-i", "7.7.3-e"], True)

# ---------------- binding kind: ^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$ within 128 characters (section 7.7.5)
# A well-formed kind of exactly 128 characters passes step 6, and nobody registered it: kind_unknown (step 10).
# Kills registry.rs:217:19 (> -> >= and > -> ==: a kind of 128 characters refused invalid_field).
K128 = "com.example." + "k" * 116
assert len(K128) == 128
refused(1339, "kind-128-characters", "A well-formed binding kind of exactly 128 characters that nobody registered is refused as kind_unknown, not invalid_field",
        "kind_unknown", doc([{"id": "guard", "kind": K128}]), ["7.7.6-f", "7.7.6-a"])
refused(1340, "kind-129-characters", "A well-formed binding kind of 129 characters breaks the 128-character bound and is refused as invalid_field, not kind_unknown",
        "invalid_field", doc([{"id": "guard", "kind": K128 + "k"}]), ["7.7.6-i", "7.7.6-a", "7.7.3-e"], True)
# A capital after a segment's first letter breaks the pattern (invalid_field, step 6), before the kind is looked up.
# Kills registry.rs:225:17 (&& -> ||: a segment passes on its first letter alone).
refused(1341, "kind-capital-inside-segment", "A binding kind whose only fault is a capital after a segment's first letter (com.exAmple) is refused as invalid_field, not kind_unknown",
        "invalid_field", doc([{"id": "guard", "kind": "com.exAmple"}]), ["7.7.6-i", "7.7.6-a"], True)
