"""Ids 1360-1389: vectors that close mutation-run gaps (issue 13) in request identity and the context domain (identity/jcs.rs, identity/provider.rs, context/domain.rs).
Each vector cites the text its expectation follows from; the mutant it kills is named in the comment above it."""
from lib import *  # noqa: F401,F403
from v_more import *  # noqa: F401,F403
from v_identity import raw, rejected_post_model  # noqa: F401

IP = "identity/canonical"
CI = "host_error:context_invalid"


def gen_repeat(s, n):
    return {"$ctk.generate": {"repeat": s, "count": n}}


def gen_keys(prefix, n, value):
    return {"$ctk.generate": {"keys": prefix, "count": n, "value": value}}


def gen_nest(depth, leaf, key=None):
    """depth nested one-member objects {key: ...} around leaf, or one-element arrays when key is None (D-76)."""
    if key is None:
        return {"$ctk.generate": {"nest": "array", "depth": depth, "leaf": leaf}}
    return {"$ctk.generate": {"nest": "object", "key": key, "depth": depth, "leaf": leaf}}


def objects(levels, leaf):
    """{"n": {"n": ... leaf}} with `levels` objects."""
    return {"n": objects(levels - 1, leaf)} if levels else leaf


def arrays(levels, leaf):
    """[[...[leaf]...]] with `levels` arrays."""
    return [arrays(levels - 1, leaf)] if levels else leaf


# ---------------------------------------------------------------- §12.3 size bound, null provider
# Section 12.3's bounds apply whatever the provider (D-13): with the null provider the host measures the context by
# itself (check_bounds, one count-only walk), not as a by-product of the jcs-sha256 hash. CTK-1262's context (9,989
# bytes over the reference host's 5 MiB, a 20,000-member object in its content, which the input context carries
# twice: input.content and target.content) under the null provider is denied before dispatch.
# Kills (domain.rs) check_bounds -> Ok(()), `> with ==` in check_bounds; (jcs.rs) bounded_size -> Ok(0) and Ok(1),
# and `> with ==` / `> with <` in Scanner::value #3 (a count-only object's commas: one or none instead of n-1 undercounts
# the context by 39,996 or more bytes, under the bound; CTK-1262 catches these two as well, since jcs-sha256's one-pass
# scan counts a member with a subfield whitelist, input here, by the same count-only walk). Advisory like CTK-1261/1262: the 5 MiB bound is host-tunable
# (R-13); what the text fixes is the failure mode (12.3: deny host_error:context_invalid; 10.3-m: no verdicts).
V(1360, "size-just-beyond-bound-null-provider-denied",
  "With the null provider an input context some 10 KB beyond the reference host's 5 MiB size bound, a 20000-member object of its content counted among the bytes, is denied host_error:context_invalid at input",
  "12.3, 10.1, 10.3", ["12.3-b", "10.1-c", "10.3-m"], IP,
  {"input": {"content": {"fields": gen_keys("f", 20000, 0), "note": gen_repeat("0123456789abcdef", 151087)},
             "role": "user"},
   "model_script": [{"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}]},
  {"interceptions": ix([SU, SD]), "interceptions_absent": [IN, PM],
   "records": [rec(IN, {"verdict.decision": "deny", "verdict.reason": CI, "input_identity": None,
                        "enforced_identity": None, "decided_by": None, "identity_provider": None}, ["verdicts"])],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, identity_provider=None, script=[], advisory="D-13")

# Its twin within the bound: a context 10,011 bytes under 5 MiB whose content holds 20,000 one-member objects (twice) is
# dispatched at input under the null provider. Kills (jcs.rs) `> with >=` in Scanner::value #3: a comma counted before
# every member of a count-only object adds 40,009 bytes (one per non-empty object), past the bound.
V(1361, "size-within-bound-null-provider-dispatched",
  "With the null provider an input context some 10 KB within the reference host's 5 MiB size bound, 20000 one-member objects in its content, is dispatched at input: the interceptor is called and its deny stands",
  "12.3, 10.1", ["12.3-b", "10.1-c"], IP,
  {"input": {"content": {"fields": gen_keys("f", 20000, {"a": 0}), "note": gen_repeat("0123456789abcdef", 142962)},
             "role": "user"},
   "model_script": [{"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}]},
  {"interceptions": ix([SU, IN, SD]), "interceptions_absent": [PM, PO, OUT],
   "records": [rec(IN, {"verdict.decision": "deny", "verdict.reason": "ctk:stop-input", "decided_by": 0,
                        "identity_provider": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, identity_provider=None, script=[rule(IN, deny("ctk:stop-input"))], advisory="D-13")


# ---------------------------------------------------------------- §12.3 depth bound, one past it
# D-13's depth, one level past the bound: the context object is level 1 and every member or element one level below
# its parent. The tool call's arguments hold {"d": 60 nested objects around "leaf"}: at pre_tool_call, tool_call 2,
# args 3, the objects 4..63, "leaf" 64. A transform replaces "leaf" with 65 nested arrays around 0 (arrays 64..128),
# so the composed context holds 0 at level 129 (in target it sits one level higher, at 128). Nothing that deep ever
# crosses ctk-harness/1: the scenario nests 60 objects, the transform value 65 arrays, and no interceptor is sent the
# composed context. CTK-0532 is the same bound met exactly (level 128, let through).
DEEP_ARGS = {"d": objects(60, "leaf")}
DEEP_PATH = "$target.d" + ".n" * 60
DEEP_VALUE = arrays(65, 0)

# A permit whose composed context is one level past the bound fails closed at finalisation, as a fold out of the
# identity domain does (10.2-h: context_invalid, enforced identity null, decided_by null; D-17 for the bounds), and the
# tool never runs. Kills (jcs.rs) `+ with *` in Scanner::value #1 (arrays no longer count a level: 0 at 64) and the
# listed survivor `+ with *` in Scanner::members (hashed objects no longer count one: 0 at 67). Advisory: the depth
# bound is host-tunable (R-13).
V(1362, "depth-one-past-bound-folded-permit-fails-closed",
  "A transform that leaves the composed pre_tool_call context one level past the 128-level depth bound (objects, then arrays) fails closed: denied context_invalid, enforced identity and decided_by null, the tool never runs",
  "12.3, 10.2", ["12.3-b", "10.2-h", "10.2-f"], IP, tool_scenario(args=DEEP_ARGS),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.reason": CI, "enforced_identity": None, "decided_by": None})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT, script=[rule(PT, transform(DEEP_PATH, DEEP_VALUE))], advisory="D-13")

# The same under the null provider: the bounds are checked by the host's own count-only walk (check_bounds). Kills
# (jcs.rs) `+ with *` in Scanner::value #2 (a count-only object no longer counts a level: 0 at 67) and #1. A host
# without the reference host's depth bound (R-13 lets a host tune it) lets the tool run and dispatches the 129-level
# context to interceptor 0 at post_tool_call, in a ctk-harness/1 line nested about 131 levels: the kit reads lines up
# to 256 (agent-hooks/adapter/PROTOCOL.md section 1), so such a host fails this advisory vector rather than erroring.
V(1363, "depth-one-past-bound-folded-permit-null-provider-fails-closed",
  "With the null provider a transform that leaves the composed pre_tool_call context one level past the 128-level depth bound fails closed: denied context_invalid with decided_by null, the tool never runs",
  "12.3, 10.1, 10.2", ["12.3-b", "10.1-c", "10.2-h"], IP, tool_scenario(args=DEEP_ARGS),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.reason": CI, "decided_by": None, "identity_provider": None})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT, identity_provider=None, script=[rule(PT, transform(DEEP_PATH, DEEP_VALUE))], advisory="D-13")

# 1362's deepest level sits in tool_call, a member with a subfield whitelist, which the one-pass scan measures by its
# count-only walk; pre_model_call's messages (and target, which aliases them) are projected whole, so their levels are
# counted only by the hashed walk (Scanner::members). The input content is 60 nested objects around "leaf": at
# pre_model_call, messages 2, the message 3, content's objects 4..63, "leaf" 64 (target alike). A transform replaces
# "leaf" with 65 more nested objects around 0, which lands at level 129: the emission fails closed (10.2-h, D-17) and
# the model is never called. Kills (jcs.rs) the listed survivor `+ with *` in Scanner::members (hashed objects no
# longer count a level: 0 at 3) and `+ with *` in Scanner::value #1 (the array of messages no longer counts one: 0 at
# 128). Advisory, as the depth bound is host-tunable (R-13).
V(1368, "depth-one-past-bound-folded-messages-fails-closed",
  "A transform that leaves the composed pre_model_call context one level past the 128-level depth bound inside the messages fails closed: denied context_invalid, enforced identity and decided_by null, the model is never called",
  "12.3, 10.2", ["12.3-b", "10.2-h", "10.2-f"], IP,
  {"input": {"content": objects(60, "leaf"), "role": "user"},
   "model_script": [{"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}]},
  {"interceptions": ix([SU, IN, PM, SD]), "interceptions_absent": [PO, OUT],
   "records": [rec(PM, {"verdict.reason": CI, "enforced_identity": None, "decided_by": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(PM, transform("$target[0].content" + ".n" * 60, objects(65, 0)))], advisory="D-13")

# Under run_all a deny and a later transform, at input: the emission is denied, and its enforced identity is taken over
# the composed context, folds included (10.2-g, 7.4). The input content holds {"d": 60 nested objects around "leaf"}
# (input 2, content 3, the objects 4..63, "leaf" 64, in target alike), and the second interceptor's transform puts the
# 65 nested arrays there, so the composed context holds 0 at level 129: it has no jcs-sha256 identity, and
# enforced_identity is null (10.2-h; D-17: the computation fails, the deny stands). Only what both readings of 10.2-h
# give is asserted (a deny at input, so the turn never begins; enforced identity null), not which reason or slot the
# record names. Kills (domain.rs) `+ with *` in check_domain #1 (arrays no longer count a level) and #2 (objects no
# longer do), and `+ with -` in check_domain #2 (the level underflows below an object: the host panics).
V(1364, "depth-one-past-bound-folded-into-deny-no-enforced-identity",
  "run_all at input: a deny, then a transform that leaves the composed context one level past the 128-level depth bound: the emission is denied, its enforced identity is null and the turn never begins",
  "12.3, 10.2, 7.4", ["12.3-b", "10.2-h", "10.2-g"], IP,
  {"input": {"content": DEEP_ARGS, "role": "user"},
   "model_script": [{"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}]},
  {"interceptions": ix([SU, IN, SD]), "interceptions_absent": [PM],
   "records": [rec(IN, {"verdict.decision": "deny", "enforced_identity": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, composition={"profile": "sequential/run_all"},
  scripts=[[rule(IN, deny("ctk:stop"))], [rule(IN, transform("$target.content.d" + ".n" * 60, DEEP_VALUE))]],
  advisory="D-13")


# ---------------------------------------------------------------- §12.3 depth bound at the approval seam
# Section 9: the request's context_identity is the provider's identity of the context as it stands at consultation
# (D-24: computed over the presented context; failing to compute it rejects with context_invalid). Under jcs-sha256
# that computation takes section 10.2's domain checks, the depth bound with them (D-13: the context object is level
# 1, each member or element one below its parent; 128 is within, 129 is not). Under first_deny, interceptor 0's
# transform folds 124 nested objects around "leaf" (a generated value, D-76) into the tool call's q, so the context
# interceptor 1 receives and the seam consults holds "leaf" at level 128 (tool_call 2, args 3, the objects 4..127; in
# target one level higher). Nothing before the seam walks it with check_domain: the dispatch and the finalisation
# measure through the one-pass scan. Over ctk-harness/1 the deepest lines nest about 130 levels (the context inside
# callback/intercept and callback/resolve_approval), which the kit reads (PROTOCOL.md section 1). Advisory: the bound is
# host-tunable (R-13).
SEAM_LIFT = [rule(PT, liftable("ctk:needs-sign-off"))]
SEAM_PATH = "target.q" + ".n" * 124

# At the bound the request is made and the approval applies: the approver sees the folded value (its rule matches
# "leaf" 124 objects down), its echo of the recomputed identity matches, and the tool runs with the folded args, which
# post_tool_call's context still holds at level 128. Kills (domain.rs) `> with >=` and `> with ==` in check_domain #1:
# either refuses the value at level 128, so the seam rejects with context_invalid and the tool never runs.
V(1369, "depth-at-bound-at-approval-seam-approved",
  "A context exactly at the 128-level depth bound at the approval seam (a fold, then a liftable deny) is presented to the resolver, whose approval applies: the tool runs with the folded value",
  "12.3, 9", ["12.3-b", "9-b", "9-n", "9-c"], IP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT], {1: {"tool_call.args.q" + ".n" * 124: "leaf"}}),
   "records": [rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": 1})],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, scripts=[[rule(PT, transform("$target.q", gen_nest(124, "leaf", "n")))], SEAM_LIFT],
  approval_script=[{"match": {SEAM_PATH: "leaf"}, "resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}],
  advisory="D-13")

# One level more (125 objects, "leaf" at level 129): the request identity cannot be computed, so the seam rejects with
# context_invalid before asking the resolver (D-24; resolved_by rejection), the composed context has no identity
# (enforced_identity null, D-17), and the tool never runs. Which slot decided_by names then is D-09's question (the
# upstream Rust SDK says null), not asserted here. A host that asked the resolver
# anyway would fold its approval into a context beyond the bound and fail closed at finalisation instead (decided_by
# null, resolved_by approval), which D-13's reading does not take. (The Python example host does: its identity check
# counts the projection object as level 0, a bound of 129 there, as CTK-1364 shows too.) The resolver echoes the
# request's identity as sent.
V(1370, "depth-one-past-bound-at-approval-seam-rejected",
  "A context one level past the 128-level depth bound at the approval seam (a fold, then a liftable deny) has no request identity: the seam rejects with context_invalid, the tool never runs",
  "12.3, 9, 10.2", ["12.3-b", "10.2-f", "9-b", "9-l"], IP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": CI, "resolved_by": "rejection",
                        "enforced_identity": None})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT, scripts=[[rule(PT, transform("$target.q", gen_nest(125, "leaf", "n")))], SEAM_LIFT],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": ALLOW}}],
  advisory="D-13")


# ---------------------------------------------------------------- RFC 8785 escapes (D-73 recomputes the identity)
# Minimal escaping writes a backslash as \\ (10.2-c); the suite recomputes every jcs-sha256 input identity over the
# context interceptor 0 received (D-73), so a host that writes one raw fails here. The backslashes sit between letters
# and digits, with no space, quote or control byte in the same eight bytes, where a word-at-a-time scan that tests
# `word & '\\'` instead of `word ^ '\\'` sees nothing to escape. Kills (jcs.rs) `^ with &` in word_may_escape #2.
PATH_TEXT = "C:\\Windows\\System32\\drivers\\etc\\hosts"
V(1365, "backslashes-in-input-escaped",
  "Input text with backslashes between letters (a Windows path) reaches the model as sent, and every input identity is the jcs-sha256 of the context, each backslash written as \\\\",
  "10.2, 4.4", ["10.2-c", "10.2-a", "4.4-d"], IP, plain_scenario(text=PATH_TEXT),
  {"interceptions": ix(FULL_PLAIN, {1: {"input.content": PATH_TEXT}, 2: {"messages[0].content": PATH_TEXT}}),
   "final_output": "hello there", "run_outcome": "completed", "identities_equal": True},
  caps=M, script=[])


# ---------------------------------------------------------------- raw-text integer scan (10.2-d, 10.2-e)
# 10.2-d refuses integral numbers beyond 2^53-1 only, and 10.2-e scans integer literals: a number with a fraction is no
# integer literal, however many digits its fraction has. A tool result holding two non-integral numbers with 20 and 18
# fraction digits reaches post_tool_call, which is dispatched and allowed. Kills (domain.rs) the listed survivor
# `< with >` in raw_text_has_unsafe_integer #4 (the loop that reads a fraction or exponent never runs, so the fraction
# digits are read as an integer literal of their own, beyond 2^53-1).
V(1366, "long-fraction-digits-not-integer-literals",
  "Non-integral numbers whose fractions have 20 and 18 digits in a tool result are no integer literals: post_tool_call is dispatched and allowed",
  "10.2, 4.4", ["10.2-d", "10.2-e", "4.4-d"], IP,
  tool_scenario(ret={"ratio": raw("0.12345678901234567890"), "scale": raw("12.345678901234567891")}),
  {"interceptions": ix(FULL_TOOL), "records": [rec(PTT, {"verdict.decision": "allow"})],
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}], "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[])

# 10.2-e: an integer literal too large for 64 bits is caught from the raw text, wherever it stands: here after a string
# holding one escaped quote, in the same tool-call arguments. Kills (domain.rs) the listed survivor `+= with *=` in
# raw_text_has_unsafe_integer #2 (an escape inside a string doubles the scan position, past the literal) and
# `delete match arm b'\\'` (the escaped quote ends the string, the real closing quote opens one, and the literal is
# then read as string contents).
V(1367, "two-pow-64-after-escaped-quote-rejected",
  "An integer literal of 2^64 after a string holding an escaped quote, in the same tool-call arguments, is caught from the raw text and denied before dispatch",
  "10.2", ["10.2-e", "10.2-d", "10.2-j"], IP,
  tool_scenario(args={"note": 'a lone " quote', "id": raw("18446744073709551616")}),
  rejected_post_model("bigint_json"), caps=MT + ["bigint_json"], script=[])


# ---------------------------------------------------------------- §12.3 size bound met exactly (context-sized fills)
# The 5 MiB bound met exactly (D-13: the size is the RFC 8785 byte count of the whole context, each member counted
# once; a context of exactly 5,242,880 bytes is within it) and passed by one byte. Part of every context is the host's
# (session.id, the agent's names, the clock, request_id), so no value written in a file can do this: the transform's
# value is a context-sized fill (D-76), a string of x the runner sizes when the interceptor answers, against the
# context the host sent it, so that the composed context (the value at the path in target, the target written back to
# the member the point mirrors, §4.3) has the size asked for. The fill counts twice (target and its mirror), so a
# composed size of one parity only is reachable: pad_context_to gives 5,242,880 or 5,242,879, pad_context_past
# 5,242,881 or 5,242,882. The two tool calls' ids differ in length by one byte and nothing else in their pre_tool_call
# contexts differs in length in the reference host (sequence 4 and 6, a fixed-width clock, one session), so one of
# the two composed contexts is exactly 5,242,880 bytes whatever the session counter says; a host within the bound
# permits both: the transform stands, each tool runs (its post_tool_call, which carries the filled args once, is
# dispatched) and the turn completes (tool calls' args never enter the history, HOSTS.md §4.1, so the next model call
# is small). Advisory, as the 5 MiB bound is host-tunable (R-13).
PAD_TO = {"$ctk.generate": {"pad_context_to": 5242880}}
PAD_PAST = {"$ctk.generate": {"pad_context_past": 5242880}}
TWO_CALLS = {
    "input": {"content": "find alpha", "role": "user"},
    "tools": [{"name": "lookup", "behavior": [{"return": {"hits": 1}, "is_error": False}]}],
    "model_script": [
        {"respond": {"content": None, "tool_calls": [{"id": "tc-1", "name": "lookup", "args": {"q": "alpha"}},
                                                     {"id": "tc-10", "name": "lookup", "args": {"q": "alpha"}}],
                     "finish_reason": "tool_calls"}},
        {"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}},
    ],
}
AT_BOUND = {"interceptions": ix([SU, IN, PM, PO, PT, PTT, PT, PTT, PM, PO, OUT, SD],
                                 {4: {"tool_call.id": "tc-1"}, 5: {"tool_call.id": "tc-1"},
                                  6: {"tool_call.id": "tc-10"}, 7: {"tool_call.id": "tc-10"}}),
            "records": [rec(PT, {"verdict.decision": "transform"}), rec(PT, {"verdict.decision": "transform"})],
            "final_output": "done", "run_outcome": "completed"}

# jcs-sha256 measures the size in the same pass that hashes the projection (identity/jcs.rs scan_context). Kills
# (provider.rs) the listed survivor `> with >=` in IdentityProvider::compute_bounded (the context of exactly 5 MiB is
# refused at finalize) and (jcs.rs) `+ with *` in scan_context (the braces and commas of pre_tool_call's eight
# members counted 2*7 = 14 rather than 2+7 = 9 bytes: both contexts 5 bytes over).
V(1373, "size-at-bound-folded-permit-applied",
  "Transforms that leave each of two composed pre_tool_call contexts at the reference host's 5 MiB size bound (exactly 5,242,880 canonical bytes, or one below) are applied, both tools run and the turn completes",
  "12.3", ["12.3-b"], IP, TWO_CALLS, AT_BOUND,
  caps=MT, script=[rule(PT, transform("$target.q", PAD_TO))], advisory="D-13")

# The same under the null provider, which measures the size by itself (domain.rs check_bounds). Kills (domain.rs) the
# listed survivor `> with >=` in check_bounds.
V(1374, "size-at-bound-folded-permit-applied-null-provider",
  "With the null provider, transforms that leave each of two composed pre_tool_call contexts at the reference host's 5 MiB size bound (exactly 5,242,880 canonical bytes, or one below) are applied, both tools run and the turn completes",
  "12.3, 10.1", ["12.3-b", "10.1-c"], IP, TWO_CALLS,
  {**AT_BOUND, "records": [rec(PT, {"verdict.decision": "transform", "identity_provider": None}),
                           rec(PT, {"verdict.decision": "transform", "identity_provider": None})]},
  caps=MT, identity_provider=None, script=[rule(PT, transform("$target.q", PAD_TO))], advisory="D-13")

# One or two bytes beyond the bound, under the null provider, at post_model_call: the permit fails closed at
# finalisation (12.3-a: context_invalid; D-17; 10.3-m: enforced identity and decided_by null) and the response is
# never used. Kills a bound one or two bytes looser than 5 MiB.
V(1375, "size-just-past-bound-folded-null-provider-fails-closed",
  "With the null provider, a transform that leaves the composed post_model_call context one or two bytes beyond the reference host's 5 MiB size bound fails closed: denied context_invalid, enforced identity and decided_by null, no output",
  "12.3, 10.1", ["12.3-b", "10.1-c"], IP, plain_scenario(final="done"),
  {"interceptions": ix([SU, IN, PM, PO, SD]), "interceptions_absent": [OUT],
   "records": [rec(PO, {"verdict.decision": "deny", "verdict.reason": CI, "enforced_identity": None,
                        "decided_by": None, "identity_provider": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, identity_provider=None, script=[rule(PO, transform("$target.content", PAD_PAST))], advisory="D-13")

# pre_model_call carries request_id (D-31), outside the identity projection but inside the context, whose every member
# counts (D-13). A composed pre_model_call context one or two bytes beyond the bound under jcs-sha256 fails closed, and
# the model is never called. Kills (jcs.rs) the listed survivor `== with !=` in scan_context (the members outside the
# projection, request_id here, 21 bytes with its comma, are left out of the size: the context passes).
V(1376, "size-just-past-bound-with-request-id-fails-closed",
  "A transform that leaves the composed pre_model_call context, request_id counted, one or two bytes beyond the reference host's 5 MiB size bound fails closed: denied context_invalid, enforced identity and decided_by null, the model is never called",
  "12.3, 4.5", ["12.3-b"], IP, plain_scenario(final="done"),
  {"interceptions": ix([SU, IN, PM, SD]), "interceptions_absent": [PO, OUT],
   "records": [rec(PM, {"verdict.decision": "deny", "verdict.reason": CI, "enforced_identity": None,
                        "decided_by": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(PM, transform("$target[0].content", PAD_PAST))], advisory="D-13")
