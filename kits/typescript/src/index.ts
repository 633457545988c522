// agent-hooks-ctk's adapter kit for Node: the plumbing every adapter rewrote, so that a vendor
// writes only the part that is theirs. `agentHooks` serves a host over ctk-harness/1, `ahp` a
// harness over ctk-ahp-adapter/1.
export * from "./link.js";
export * as agentHooks from "./agentHooks.js";
export * as ahp from "./ahp.js";
