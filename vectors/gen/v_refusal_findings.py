"""Ids 1420-1429: vectors from the review of reports/mutation/equivalents.txt (issue 13). A refusal's `detail` is
the loader's error text (HOSTS.md 3.2) and `expect.load.detail_contains` reads it, so what the findings of a refusal
name is now observable: D-46 has every finding of the failing step reported, each at an RFC 6901 pointer. The text
fixes no finding's wording or pointer, so each vector here is advisory; the mutants each one kills are named in the
comment above it. The helpers mirror v_decl_776.py's instead of importing them, so edits there never change these."""
from lib import V, plain_scenario

DR = "declaration/refusal"
HD = ["host_declaration"]
DV = "agent-hooks-declaration/1.0"
SAFE = 2 ** 53 - 1
# Clauses every refusal cites (the pipeline, no record, refused at load, a construction error).
REFUSAL = ["7.7.6-a", "7.7.6-b", "7.7.1-a", "11-d"]
GUARD = [{"id": "guard", "kind": "ctk.scripted", "config": {"script": 0}}]


def doc(**extra):
    d = {"declaration": DV, "spec": "agent-hooks/0.1"}
    d.update(extra)
    d["bindings"] = GUARD
    return d


def refusal(num, slug, title, cls, covers, document, detail_contains, advisory, caps=None):
    """A refusal whose detail must name each of `detail_contains` (the findings' pointers)."""
    V(num, "decl-detail-" + slug, title, "7.7.6", covers + REFUSAL, DR, plain_scenario(),
      {"load": {"outcome": "refused", "class": "declaration_error:" + cls, "paths_equivalent": True,
                "detail_contains": detail_contains},
       "interceptions": [], "run_outcome": "error"},
      caps=HD + (caps or []), scripts=[[]], advisory=advisory, host_declaration=document,
      host_declaration_invalid=True)


# D-46: an unknown member's finding sits at its RFC 6901 pointer, `~` written ~0 and `/` written ~1. Kills
# check.rs's `at -> String` replaced by String::new() or "xyzzy" (every finding pointer lost, the class kept).
refusal(1420, "unknown-member-pointer", "An unknown_field refusal of the root member \"a/b~c\" names its RFC 6901 pointer /a~1b~0c",
        "unknown_field", ["7.7.6-c"], doc(**{"a/b~c": True}), ["/a~1b~0c"], "D-46")

# D-70 and D-46: two step-6 faults, a bad id and an integer beyond 2^53-1 in extensions, give two findings, each at
# its own pointer. Kills check.rs fields' `x.pointer == p` -> `!=`, which drops the integer's finding whenever a
# finding at another pointer exists (the class stays invalid_field).
refusal(1421, "every-step-6-finding", "An invalid_field refusal for a bad id and an integer beyond 2^53-1 in extensions names both pointers",
        "invalid_field", ["7.7.6-i"], doc(id="Not An Id", extensions={"acme": {"ticket": SAFE + 2}}),
        ["/id", "/extensions/acme/ticket"], "D-70", caps=["int64_json"])

# D-46: a stated surface with pre_model_call but not post_model_call, listing model_calls, breaks two step-7 rules:
# the pair, and model_calls listed exactly when both points are there. Both findings are reported; the capability
# one points into /surface/capabilities. Kills check.rs resolve's `has(a) && has(b)` -> `||`, under which a listed
# capability agrees with half a pair (the class stays inconsistent through the pair rule).
refusal(1422, "capability-and-pair-findings", "An inconsistent refusal for half a model-call pair with model_calls listed names the capabilities finding too",
        "inconsistent", ["7.7.4-a"],
        doc(surface={"interception_points": ["agent_startup", "input", "pre_model_call", "output", "agent_shutdown"],
                     "capabilities": ["model_calls", "host_declaration"]}),
        ["/surface/interception_points", "/surface/capabilities"], "D-46")

# D-42: a finding about a member the document left out and that was defaulted says the document did not state it.
# A stated surface that lists incremental_output and omits buffered_output takes buffered_output: true (§7.7.4) and
# is inconsistent (step 7); the finding says buffered_output was not stated ("not state" is the token: the reference
# host writes "does not state buffered_output", examples/python-host "not stated"). Kills check.rs resolve's `delete !` in `!t.surface_stated || ...` (the note dropped).
refusal(1423, "unstated-buffered-output-named", "An inconsistent refusal for incremental_output under a defaulted buffered_output says the document does not state buffered_output",
        "inconsistent", ["7.7.4-a"],
        doc(surface={"interception_points": ["agent_startup", "input", "pre_model_call", "post_model_call", "output",
                                             "agent_shutdown"],
                     "capabilities": ["model_calls", "host_declaration", "incremental_output"]}),
        ["not state"], "D-42")
