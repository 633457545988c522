"""Ids 1280-1299: vectors that close mutation-run gaps (issue 13) in composition, the agent loop and verdicts.
Each vector cites the text its expectation follows from; the mutant it kills is named in the comment above it."""
from lib import *  # noqa: F401,F403
from v_profiles import *  # noqa: F401,F403

# Section 7.4: a sequential transform that cannot be applied ends the fold as a host_error deny; section 10.3:
# fold_truncated is true iff a bound interceptor was never invoked. When the failing transform is the last
# interceptor's, every interceptor ran: nothing was truncated. The member's presence with false is the project's
# reading (D-15), so this is advisory. Kills run_all's `i + 1 < n` mutants (`<=`, `*`), which mark it truncated.
V(1280, "ra-failed-fold-at-last-not-truncated", "run_all: a transform that cannot be applied at the last interceptor denies with host_error:transform_invalid; every interceptor ran, so fold_truncated is false",
  "7.4, 10.3", ["7.4-d", "10.3-i"], P_RA, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:transform_invalid", "decided_by": None, "fold_truncated": False})]),
  caps=MT, scripts=[A(), [rule(PT, transform("$target.missing.leaf", "x"))]], composition=RA, advisory="D-15")

# Section 9 (9-a): the seam is consulted only for a liftable deny, and only when a resolver is registered; section
# 7.4 (7.4-i) says the same of run_all. A transform that stands is no deny: a resolver that would reject everything
# is never asked, and the tool runs with the rewritten args. Kills run_all's `v.is_liftable() && ...` -> `||`, which
# consults the resolver on the transform (and the reject then blocks the call).
V(1281, "ra-transform-never-consults-resolver", "run_all with a resolver that rejects everything: a transform that stands is no deny, so the resolver is never consulted; the tool runs with the rewritten args and no resolved_by is recorded",
  "7.4, 9", ["9-a", "7.4-i"], P_RA, tool_scenario(),
  ran({"q": "rewritten"}, records=[rec(PT, {"verdict.decision": "transform"}, ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "rewritten"))]], composition=RA, approval_script=REJECT)
# The same rule from its other side: with no resolver registered, a liftable deny stands as it was returned (its own
# reason), and nothing records a consultation.
V(1282, "ra-liftable-without-resolver-stands", "run_all with no resolver registered: a liftable deny is never sent to a seam; it stands with its own reason and no resolved_by is recorded",
  "7.4, 9", ["9-a", "7.4-i"], P_RA, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.decision": "deny", "verdict.reason": "ctk:soft", "decided_by": 1}, ["resolved_by"])]),
  caps=MT, scripts=[A(), [rule(PT, liftable("ctk:soft"))]], composition=RA)
