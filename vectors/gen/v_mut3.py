"""Ids 1360-1389: vectors that close mutation-run gaps (issue 13) in request identity and the context domain (identity/jcs.rs, identity/provider.rs, context/domain.rs).
Each vector cites the text its expectation follows from; the mutant it kills is named in the comment above it."""
from lib import *  # noqa: F401,F403
from v_more import *  # noqa: F401,F403
