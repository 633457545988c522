"""agent-hooks-ctk's adapter kit for Python: the plumbing every adapter rewrote, so that a vendor
writes only the part that is theirs. `ctk_kit.agent_hooks` serves an Agent Hooks host over
`ctk-harness/1`; `ctk_kit.ahp` serves an AHP harness over `ctk-ahp-adapter/1`. Standard library
only."""

__version__ = "0.2.0"
