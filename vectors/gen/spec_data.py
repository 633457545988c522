"""Reserved reasons, declaration refusal classes and the clauses.md renderer."""

RESERVED = {
    "spec": "agent-hooks/0.1",
    "description": "The fourteen host_error:* reasons of agent-hooks/0.1 (section 11). Only a host synthesizes them; "
                   "a verdict from an interceptor or an approval resolver that carries one is refused with "
                   "host_error:verdict_invalid. Each entry names the clauses of spec/0.1/clauses.json that require it.",
    "reasons": [
        {"id": "host_error:context_invalid",
         "cause": "The host could not hand over a valid context: the section 4 envelope check failed, the identity "
                  "provider failed or refused the value domain (an integer beyond 2^53-1, excessive depth, a non-finite "
                  "number, a lone surrogate), a size bound was exceeded, or a transform pushed the context out of domain.",
         "clauses": ["6.3-a", "10.1-d", "10.2-d", "10.2-e", "10.2-h", "12.3-a", "4.4-a", "4.4-b"]},
        {"id": "host_error:interceptor_failed",
         "cause": "An interceptor raised, panicked or answered with something that is not JSON at all.",
         "clauses": ["6.3-b"]},
        {"id": "host_error:interceptor_timeout",
         "cause": "An interceptor gave no answer within its configured timeout.",
         "clauses": ["6.3-c"]},
        {"id": "host_error:verdict_invalid",
         "cause": "A returned value failed the section 5 verdict checks, or an approval resolution carried a verdict "
                  "that failed them or contradicted its outcome.",
         "clauses": ["6.3-d", "5-b", "5-c", "5-d", "5-e", "5-f", "5-g", "5-h", "5-i", "5-j", "5-k", "9-j", "9-k", "11-b"]},
        {"id": "host_error:transform_invalid",
         "cause": "A transform path did not resolve inside the target, or met a value of the wrong type, including a "
                  "transform carried by an approval.",
         "clauses": ["5.2-f", "7.4-d", "9-m"]},
        {"id": "host_error:transform_target_forbidden",
         "cause": "A transform was returned at agent_startup or agent_shutdown, where nothing may be rewritten, or its "
                  "path was rooted somewhere other than $target.",
         "clauses": ["4.3-c", "5.2-e"]},
        {"id": "host_error:transform_conflict",
         "cause": "Under parallel/strictest two or more interceptors returned transforms at the winning severity.",
         "clauses": ["7.5-c", "7.5-d"]},
        {"id": "host_error:composition_disagreement",
         "cause": "Under parallel/unanimous at least one interceptor returned something other than allow.",
         "clauses": ["7.5-g", "7.5-h"]},
        {"id": "host_error:approval_resolver_failed",
         "cause": "The approval resolver raised or timed out, the redactor raised, or the resolution was malformed "
                  "(a verdict missing on approve or reject, or present on unresolved).",
         "clauses": ["9-g", "9-i", "9-q"]},
        {"id": "host_error:approval_unresolved",
         "cause": "The approval resolver answered that it could not decide.",
         "clauses": ["9-e"]},
        {"id": "host_error:approval_identity_mismatch",
         "cause": "The resolution did not echo the request's context identity byte for byte.",
         "clauses": ["9-f"]},
        {"id": "host_error:adapter_unsupported",
         "cause": "The adapter cannot emit this interception point in the host it wraps.",
         "clauses": ["11-c"]},
        {"id": "host_error:no_interceptor",
         "cause": "No interceptor is bound at the point of the emission.",
         "clauses": ["7-d", "7-f", "7.7.5-c"]},
        {"id": "host_error:streaming_unsupported",
         "cause": "Streamed model content could not be mediated: the host could not assemble it, or part of it was "
                  "never covered by an evaluated emission when the stream ended.",
         "clauses": ["12.1-b"]},
    ],
    "retired": [
        {"id": "host_error:approval_resolver_missing", "note": "Never used: with no resolver a liftable deny stands as a plain deny (5.1-e)."},
        {"id": "host_error:approval_action_mismatch", "note": "Former name of host_error:approval_identity_mismatch."},
    ],
}

DECL_ERRORS = {
    "declaration": "agent-hooks-declaration/1.0",
    "spec": "agent-hooks/0.1",
    "description": "The eleven declaration_error:* refusal classes, in load-pipeline order (section 7.7.6). Steps run in "
                   "order; the first step that fails decides the one class reported, with every finding of that step. "
                   "A refusal is a construction error: no context, no record, no host_error reason. Step 12 builds and "
                   "seals the emitter.",
    "classes": [
        {"step": 1, "id": "declaration_error:unreadable",
         "fires_when": "Only on the file-path entry: the path is not a regular file, cannot be read, is larger than 1 MiB, "
                       "starts with a byte-order mark or is not valid UTF-8."},
        {"step": 2, "id": "declaration_error:malformed",
         "fires_when": "The text is not JSON, its root is not an object, a key repeats, nesting passes 32 levels, the text "
                       "passes 1 MiB, something follows the document, or a value-path document holds a non-finite number."},
        {"step": 3, "id": "declaration_error:version_unsupported",
         "fires_when": "The declaration member is absent, is not a string, or names a version the loader does not accept "
                       "(an unknown major, major 0, a newer minor); the error lists the accepted versions."},
        {"step": 4, "id": "declaration_error:spec_unsupported",
         "fires_when": "The spec member is present but not a string, not of the form agent-hooks/<major>.<minor>, of "
                       "another major, or of a newer minor than the loader implements."},
        {"step": 5, "id": "declaration_error:unknown_field",
         "fires_when": "A member the contract does not define appears at a closed level: the root, host, configuration "
                       "and its sub-objects, surface, the profiles map and its knob maps, or a binding."},
        {"step": 6, "id": "declaration_error:invalid_field",
         "fires_when": "A member has the wrong type, an unknown enum value, breaks its pattern or range, is a float where "
                       "an integer is required, repeats a set item, or a required-iff rule fails (bindings missing, host "
                       "without name, exposure_bound present exactly when buffered_output is false)."},
        {"step": 7, "id": "declaration_error:inconsistent",
         "fires_when": "Members contradict each other: the floor or point pairs are broken, capabilities disagree with "
                       "points, a knob the profile does not consult is set, the configuration leaves the stated profiles, "
                       "incremental_output comes with buffered output, the document's own version is missing from "
                       "declaration_versions, a binding's at leaves the surface, or binding ids repeat."},
        {"step": 8, "id": "declaration_error:surface_unsupported",
         "fires_when": "The stated surface or configuration asks for more than the host code has: points, capabilities, "
                       "profiles or knob values, contract versions, posture, unbuffered output, or a numeric timeout on "
                       "a build that cannot bound execution."},
        {"step": 9, "id": "declaration_error:reference_unresolved",
         "fires_when": "A custom identity provider, approval resolver or redactor is named but not registered."},
        {"step": 10, "id": "declaration_error:kind_unknown",
         "fires_when": "A binding's kind has no registered resolver; every kind is checked before any resolver runs."},
        {"step": 11, "id": "declaration_error:binding_rejected",
         "fires_when": "A kind resolver returns an error, raises or panics, or yields something that is not an "
                       "interceptor; all work already done for the document is discarded."},
    ],
}


def clauses_md(catalog):
    cl = catalog["clauses"]
    counts = {}
    for x in cl:
        counts[x["keyword"]] = counts.get(x["keyword"], 0) + 1
    nvt = [x for x in cl if "not_vector_testable" in x]
    out = []
    w = out.append
    w("# agent-hooks/0.1 clause catalog")
    w("")
    w("Generated from `clauses.json` by `vectors/gen/gen.py`; edit the generator, not this file.")
    w("")
    w("Every normative requirement of the `agent-hooks/0.1` contract (sections 3 to 14), one requirement per")
    w("clause, in our own words. The catalog is what the project's vectors (`vectors/0.1/`) are measured")
    w("against: every vector lists the clauses it exercises in `covers`, and every MUST clause is either")
    w("covered by at least one vector or marked `not_vector_testable` with the unit tests that pin it.")
    w("")
    w("## Shape of `clauses.json`")
    w("")
    w("```")
    w('{ "spec": "agent-hooks/0.1", "catalog_version": 1, "description": "...",')
    w('  "clauses": [ { "id": "6.3-c",            // <section>-<letter>, stable, never reused')
    w('                 "keyword": "MUST",        // MUST | SHOULD | MAY')
    w('                 "section": "6.3",         // the section of the specification it comes from')
    w('                 "text": "...",            // one sentence, paraphrased')
    w('                 "not_vector_testable": "...",   // only when no JSON vector can test it: why')
    w('                 "unit_tests": ["agent-hooks/reference-host/src/context/envelope.rs::conditional_members_must_keep_their_types"],')
    w('                                           // with not_vector_testable (kept when vectors come to cover it):')
    w('                                           // <repo-relative file>::<test fn>')
    w('                 "needs": ["tool_calls"] } ] }   // capabilities a surface must list for the clause to bind it')
    w("```")
    w("")
    w("Rules: ids are never renumbered; a retired clause keeps its id. A vector's `covers` may only name")
    w("ids present here. `not_vector_testable` clauses name the tests that pin them instead, each as")
    w("`<repo-relative file path>::<test fn name>` in `agent-hooks/reference-host/`, `runner/` or `agent-hooks/adapter/`")
    w("(`vectors/gen/check.py` verifies the file contains `fn <name>(`). An empty list means no test pins the")
    w("clause yet; the table says so.")
    w("")
    w("`needs` (issue 27) lists the capabilities of a declared surface the clause is about (`model_calls` for")
    w("the model points, `tool_calls` for the tool points, `host_declaration` for the declaration document, ...):")
    w("a clause without it binds every host, a floor host (agent_startup, input, output, agent_shutdown, no")
    w("capability) included. `ctk coverage --surface` checks that every vector-testable MUST clause binding a")
    w("minimal surface (floor, tool router, a model and no tools) is covered by a vector that applies to it.")
    w("")
    w("Counts: " + ", ".join("%s %d" % (k, counts.get(k, 0)) for k in ("MUST", "SHOULD", "MAY"))
      + "; %d clauses in all, %d not vector-testable." % (len(cl), len(nvt)))
    w("")
    sec = None
    for x in cl:
        top = x["section"].split(".")[0]
        if top != sec:
            sec = top
            w("")
            w("## Section %s" % sec)
            w("")
            w("| id | keyword | requirement | vector-testable | needs |")
            w("|---|---|---|---|---|")
        if "not_vector_testable" not in x:
            t = "yes" if not x.get("unit_tests") else "yes (also %s)" % ", ".join("`%s`" % u for u in x["unit_tests"])
        else:
            t = "no: %s (%s)" % (
                x["not_vector_testable"], ", ".join("`%s`" % u for u in x["unit_tests"]) or "**no unit test pins it yet**")
        w("| `%s` | %s | %s | %s | %s |" % (x["id"], x["keyword"], x["text"].replace("|", "\\|"), t,
                                          ", ".join("`%s`" % n for n in x.get("needs", [])) or "any host"))
    w("")
    return "\n".join(out)
