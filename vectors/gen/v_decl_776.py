"""Declaration loader vectors for section 7.7.6 read to the letter (ids CTK-1200..1229).

Three rules, each pinned at its edges:

- step 4's version rule: `spec` passes with the loader's major and a minor no greater than the
  loader's (so agent-hooks/0.0 loads on a 0.1 host; 0.2, 0.10 and 1.0 do not);
- the kit's own kind `ctk.scripted` reads `config.script` and ignores every other config member,
  as the kit defines it (a binding's config is "any JSON value", section 7.7.5). The harness
  protocol does not define the kind yet, and 7.7.5 lets a resolver refuse what it does not
  understand, so the tolerant reading is advisory (D-72); a missing or non-integer script is
  refused under every reading and gates;
- the document-wide integer bound: an integer beyond +/-(2^53-1) anywhere in the document is
  declaration_error:invalid_field at step 6. The text states no such bound for `max_buffered`,
  `config` or `extensions`, so those refusals are advisory (spec/0.1/DECISIONS.md, D-70); the
  bound itself loading is required by the text and gates.

The helpers mirror v_more.py's declaration helpers on purpose instead of importing them, so that
edits there never change these vectors.
"""
from lib import V, rule, deny, ix, rec, plain_scenario, FULL_PLAIN, SU, IN, SD, M

DL, DB, DR = "declaration/load", "declaration/bindings", "declaration/refusal"
HD = ["host_declaration"]
DV = "agent-hooks-declaration/1.0"
ACC = {"outcome": "accepted", "paths_equivalent": True}
SAFE = 2 ** 53 - 1
# Clauses every refusal cites (the pipeline, no record, refused at load, a construction error).
REFUSAL = ["7.7.6-a", "7.7.6-b", "7.7.1-a", "11-d"]


def scripted(bid, config, at=None):
    """A ctk.scripted binding whose config is written out in full."""
    x = {"id": bid, "kind": "ctk.scripted", "config": config}
    if at is not None:
        x["at"] = at
    return x


def doc(bindings, configuration=None, spec="agent-hooks/0.1", **extra):
    d = {"declaration": DV, "spec": spec}
    if configuration is not None:
        d["configuration"] = configuration
    d.update(extra)
    d["bindings"] = bindings
    return d


GUARD = [scripted("guard", {"script": 0})]


def refusal(num, slug, title, cls, covers, document=None, text=None, caps=None, advisory=None, invalid=False):
    """A refusal vector: the document (a value, or raw text) is refused with `cls` before anything runs."""
    kw = {}
    if document is not None:
        kw["host_declaration"] = document
    if text is not None:
        kw["host_declaration_text"] = text
    if invalid:
        kw["host_declaration_invalid"] = True
    V(num, "decl-776-" + slug, title, "7.7.6", covers + REFUSAL, DR, plain_scenario(),
      {"load": {"outcome": "refused", "class": "declaration_error:" + cls, "paths_equivalent": True},
       "interceptions": [], "run_outcome": "error"},
      caps=HD + (caps or []), scripts=[[]], advisory=advisory, **kw)


def accepted(num, slug, title, clause, covers, part, document, scripts, expect, caps=None, advisory=None):
    """A document that must load: the run goes on with the load outcome accepted."""
    e = {"load": ACC}
    e.update(expect)
    V(num, "decl-776-" + slug, title, clause, covers, part, plain_scenario(), e,
      caps=M + HD + (caps or []), scripts=scripts, host_declaration=document, advisory=advisory)


COMPLETED = {"interceptions": ix(FULL_PLAIN), "final_output": "hello there", "run_outcome": "completed"}

# ---------------- step 4: the loader's major, a minor no greater than the loader's (gating)
accepted(1200, "spec-older-minor-loads", "A document written for agent-hooks/0.0 has the loader's major and an older minor: it loads and the host emits 0.1",
         "7.7.6", ["7.7.6-d", "7.7.6-a", "7.7.9-a"], DL, doc(GUARD, spec="agent-hooks/0.0"), [[]],
         {"interceptions": ix(FULL_PLAIN, {0: {"spec": "agent-hooks/0.1"}}),
          "records": [rec(SU, {"declaration": DV})],
          "final_output": "hello there", "run_outcome": "completed"})
refusal(1201, "spec-next-minor", "A spec member one minor above the loader's (agent-hooks/0.2) is refused as spec_unsupported",
        "spec_unsupported", ["7.7.6-d"], doc(GUARD, spec="agent-hooks/0.2"), invalid=True)
refusal(1202, "spec-minor-ten", "agent-hooks/0.10 names minor 10, not 0.1 written long: it is a newer minor and refused as spec_unsupported",
        "spec_unsupported", ["7.7.6-d"], doc(GUARD, spec="agent-hooks/0.10"), invalid=True)
refusal(1203, "spec-next-major-lower-minor", "agent-hooks/1.0 has another major even though its minor is lower: refused as spec_unsupported",
        "spec_unsupported", ["7.7.6-d"], doc(GUARD, spec="agent-hooks/1.0"), invalid=True)
# Step 4's form agent-hooks/<major>.<minor> has digits on both sides of the dot: a spec with an empty minor is
# malformed and refused, though an empty minor would compare as no greater than the loader's.
refusal(1223, "spec-empty-minor", "agent-hooks/0. has no minor digits: it is not of the form agent-hooks/<major>.<minor> and is refused as spec_unsupported",
        "spec_unsupported", ["7.7.6-d"], doc(GUARD, spec="agent-hooks/0."), invalid=True)
refusal(1204, "spec-before-unknown-member", "A newer-minor spec and an unknown root member: step 4 comes first, so spec_unsupported",
        "spec_unsupported", ["7.7.6-d"], doc(GUARD, spec="agent-hooks/0.2", colour="red"), invalid=True)
refusal(1205, "spec-older-minor-passes-step-4", "agent-hooks/0.0 passes step 4, so an unknown root member beside it is what refuses the document: unknown_field",
        "unknown_field", ["7.7.6-d", "7.7.6-c"], doc(GUARD, spec="agent-hooks/0.0", colour="red"), invalid=True)

# ---------------- the kit's ctk.scripted: config.script, other members tolerated (gating)
accepted(1206, "scripted-extra-config-members", "A ctk.scripted binding whose config carries members besides script loads and runs script 0",
         "7.7.5, 7.7.9", ["7.7.9-a", "7.7.5-b"], DB,
         doc([scripted("guard", {"script": 0, "label": "from another kit", "weight": 2, "meta": {"owner": "ops"}})]),
         [[rule(IN, deny("ctk:tolerant"))]],
         {"interceptions": ix([SU, IN, SD]),
          "records": [rec(IN, {"verdict.reason": "ctk:tolerant", "verdicts[0].name": "guard"})],
          "final_output": None, "run_outcome": "blocked"}, advisory="D-72")
accepted(1207, "scripted-index-read-past-extras", "Two ctk.scripted bindings with extra config members each bind the script their script member names",
         "7.7.5, 7.7.9", ["7.7.9-a", "7.7.5-b", "7.7.8-a"], DB,
         doc([scripted("first", {"script": 0, "note": "allows"}), scripted("second", {"comment": "denies", "script": 1})]),
         [[], [rule(IN, deny("ctk:second"))]],
         {"interceptions": ix([SU, IN, SD]),
          "records": [rec(IN, {"verdict.reason": "ctk:second", "decided_by": 1,
                               "verdicts[1].name": "second", "interceptors_registered": 2})],
          "final_output": None, "run_outcome": "blocked"}, advisory="D-72")
refusal(1208, "scripted-without-script", "A ctk.scripted config with other members but no script names no interceptor: binding_rejected",
        "binding_rejected", ["7.7.5-d"], doc([scripted("guard", {"scripts": 0, "label": "typo"})]))
refusal(1209, "scripted-script-string", "A ctk.scripted config whose script is the string \"0\" is refused as binding_rejected, extra members or not",
        "binding_rejected", ["7.7.5-d"], doc([scripted("guard", {"script": "0", "label": "x"})]))

# ---------------- the document-wide integer bound
# The bound itself is an integer the text allows wherever it allows integers: it loads (gating).
accepted(1210, "max-buffered-at-bound", "records.max_buffered of 2^53-1, the largest exact integer, loads and the run completes",
         "7.7.3", ["7.7.3-d", "7.7.3-b"], DL, doc(GUARD, {"records": {"max_buffered": SAFE}}), [[]], COMPLETED)
accepted(1211, "extensions-at-bound", "Integers of +/-(2^53-1) inside extensions load: extension values are kept verbatim, never read",
         "7.7.3", ["7.7.3-b", "7.7.9-a"], DL, doc(GUARD, extensions={"acme": {"quota": SAFE, "floor": -SAFE}}),
         [[]], COMPLETED)
accepted(1219, "config-at-bound", "Integers of +/-(2^53-1) in a ctk.scripted binding's config beside script load: config is any JSON value",
         "7.7.5, 7.7.9", ["7.7.9-a"], DL, doc([scripted("guard", {"script": 0, "limits": [SAFE, -SAFE]})]),
         [[]], COMPLETED, advisory="D-72")
# Beyond the bound: the project's ruling D-70 (advisory; the text names no such bound here).
refusal(1212, "max-buffered-beyond-bound", "records.max_buffered of 2^53 is beyond the exact-integer bound: invalid_field at /configuration/records/max_buffered",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc(GUARD, {"records": {"max_buffered": SAFE + 1}}),
        caps=["int64_json"], advisory="D-70")
refusal(1213, "config-beyond-bound", "An integer of 2^53 inside a binding's config is refused as invalid_field at its pointer",
        "invalid_field", ["7.7.6-i"], doc([scripted("guard", {"script": 0, "limit": SAFE + 1})]),
        caps=["int64_json"], advisory="D-70")
refusal(1214, "config-nested-negative-beyond-bound", "-(2^53) nested in an array of a binding's config is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc([scripted("guard", {"script": 0, "ranges": [{"min": -(SAFE + 1), "max": 0}]})]),
        caps=["int64_json"], advisory="D-70")
refusal(1215, "extensions-beyond-bound", "An integer of 2^53+1 inside extensions is refused as invalid_field, though the loader never reads extension values",
        "invalid_field", ["7.7.6-i"], doc(GUARD, extensions={"acme": {"ticket": SAFE + 2}}),
        caps=["int64_json"], advisory="D-70")
refusal(1216, "config-beyond-64-bits-text", "A config integer literal beyond 64 bits (2^64) in the document text is refused as invalid_field, not rounded",
        "invalid_field", ["7.7.6-i", "7.7.1-b"],
        text='{"declaration": "%s", "spec": "agent-hooks/0.1", "bindings": [{"id": "guard", "kind": "ctk.scripted", '
             '"config": {"script": 0, "serial": 18446744073709551616}}]}' % DV,
        caps=["bigint_json"], advisory="D-70")
# The same literal behind a string written with a JSON escape: the text is read token by token to the literal, and an
# escape is part of a string token, never its end.
refusal(1220, "escaped-string-then-beyond-64-bits-text", "A config literal beyond 64 bits after a string written with a \\u escape is still refused as invalid_field",
        "invalid_field", ["7.7.6-i", "7.7.1-b"],
        text='{"declaration": "%s", "spec": "agent-hooks/0.1", "bindings": [{"id": "\\u0067uard", "kind": "ctk.scripted", '
             '"config": {"script": 0, "serial": 18446744073709551616}}]}' % DV,
        caps=["bigint_json"], advisory="D-70")
# The same literal after an empty array: the token reading steps past an empty container like any other value.
refusal(1221, "empty-array-then-beyond-64-bits-text", "A config literal beyond 64 bits after an empty array in the same config is still refused as invalid_field",
        "invalid_field", ["7.7.6-i", "7.7.1-b"],
        text='{"declaration": "%s", "spec": "agent-hooks/0.1", "bindings": [{"id": "guard", "kind": "ctk.scripted", '
             '"config": {"script": 0, "tags": [], "serial": 18446744073709551616}}]}' % DV,
        caps=["bigint_json"], advisory="D-70")
# The same literal after an empty object: the token reading steps past an empty object like any other value.
refusal(1222, "empty-object-then-beyond-64-bits-text", "A config literal beyond 64 bits after an empty object in the same config is still refused as invalid_field",
        "invalid_field", ["7.7.6-i", "7.7.1-b"],
        text='{"declaration": "%s", "spec": "agent-hooks/0.1", "bindings": [{"id": "guard", "kind": "ctk.scripted", '
             '"config": {"script": 0, "meta": {}, "serial": 18446744073709551616}}]}' % DV,
        caps=["bigint_json"], advisory="D-70")
refusal(1217, "bound-before-inconsistent", "An integer beyond the bound and a duplicate binding id: step 6 comes before step 7, so invalid_field",
        "invalid_field", ["7.7.6-i"],
        doc([scripted("same", {"script": 0, "limit": SAFE + 1}), scripted("same", {"script": 0})]),
        caps=["int64_json"], advisory="D-70")
# Whatever a host makes of large integers, an unknown member is refused first (step 5): gating.
refusal(1218, "unknown-member-before-bound", "An unknown root member beside a config integer beyond the bound is refused for the earlier step: unknown_field",
        "unknown_field", ["7.7.6-c"], doc([scripted("guard", {"script": 0, "limit": SAFE + 1})], colour="red"),
        caps=["int64_json"], invalid=True)
