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
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:transform_invalid", "decided_by": None, "fold_truncated": False,
                             "verdicts[1].decision": "transform"})]),
  caps=MT, scripts=[A(), [rule(PT, transform("$target.missing.leaf", "x"))]], composition=RA, advisory="D-15")
