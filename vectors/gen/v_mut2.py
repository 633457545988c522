"""Ids 1330-1359: vectors that close mutation-run gaps (issue 13) in the declaration checks and registry (declaration/check.rs, registry.rs, kinds.rs).
Each vector cites the text its expectation follows from; the mutant it kills is named in the comment above it."""
from lib import *  # noqa: F401,F403
from v_more import *  # noqa: F401,F403
