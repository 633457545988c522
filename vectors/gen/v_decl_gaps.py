"""Declaration loader vectors for the gaps the Python example host's mutants showed (issue 27, item 2;
ids CTK-1800..1899).

reports/mutation/python-host/survivors.txt listed loader mutants that no vector could tell apart from the
loader they came from, although section 7.7 fixes the behaviour: members no vector stated (the posture,
records.max_buffered, the less common capabilities and knob values), malformed values no vector gave
(knob lists in surface.profiles, repeated points, non-object members), and the ends of every range.
Each vector here states one of them and expects what the text requires, and only that:

- a refusal expects the class of the first failing step of section 7.7.6 (the table "Loading is a
  pipeline. Each step runs only if the one before it passed"); the schema the document is validated by
  (section 7.7.1) gives the types, enums, ranges and closed objects of steps 5 and 6;
- a document that must load states nothing beyond the surface of any host it applies to (the runner
  skips it where the declared surface lacks what it asks: agent-hooks/adapter/HOSTS.md section 1) and
  expects only what every host shows: the run's points, outcome and output, and record members the
  text fixes;
- a step 8 refusal runs on every surface, so a document that must be refused there whatever the host's
  code has also lists declaration version agent-hooks-declaration/1.9, a minor no loader knows (as
  CTK-1170 does). That is how a valid member no host may refuse early (a floor-only surface, an
  exposure_bound at its length bounds, the posture terminate, the capability streaming) is shown to
  pass steps 5 to 7: a loader that wrongly refuses it there reports invalid_field or inconsistent,
  not surface_unsupported. Such a surface is stated in full (every member but the ones under test),
  so no fill from the host's own surface can make it inconsistent first (rulings R-8 and R-10).

A posture the host's code does not implement is refused at step 8 on its own. Section 7.7.3 gives each
host's code exactly one posture ("MUST equal the posture the code implements"), and the runner reads it
from the declared surface. So such a vector names the posture it is for (host_posture, vector grammar
1.3) and is skipped on the other hosts (CTK-1868, CTK-1869).

Unbuffered output alone is refused at step 8 by a host whose code only buffers. A declared surface
does not say that: a host.json stating `buffered_output: true` may sit on code with both output modes
(D-41). But the host's own declaration, the one it sends in initialize, does say it, because section
7.7.4 resolves the own surface of "a host that mediates incrementally" to `buffered_output: false`.
So such a vector applies only where that declaration states true (host_buffers_only, vector grammar
1.3; CTK-1870).

The quoted sentences (section numbers of ../shared/upstream/agent-hooks/spec/AGENT-HOOKS-0.1.md) are
the upstream text the expectation rests on. The helpers mirror v_more.py's instead of importing them,
so edits there never change these vectors.
"""
from lib import V, rec, ix, plain_scenario, FULL_PLAIN, SU, IN, PM, PO, PT, PTT, OUT, SD, M

DL, DB, DR = "declaration/load", "declaration/bindings", "declaration/refusal"
HD = ["host_declaration"]
DV = "agent-hooks-declaration/1.0"
# A declaration version of a minor no loader has (section 7.7.2 defines 1.0 only): listing it in
# surface.declaration_versions exceeds every host's code, a step 8 refusal.
NO_LOADER = "agent-hooks-declaration/1.9"
ACC = {"outcome": "accepted", "paths_equivalent": True}
ALL_POINTS = [SU, IN, PM, PO, PT, PTT, OUT, SD]
FLOOR = [SU, IN, OUT, SD]
# Clauses every refusal cites (the pipeline, no record, refused at load, a construction error).
REFUSAL = ["7.7.6-a", "7.7.6-b", "7.7.1-a", "11-d"]
# The classes of steps 2 to 7: a document refused there may break the 1.0 schema, so a schema linter skips it.
BEFORE_STEP_8 = ("malformed", "version_unsupported", "spec_unsupported", "unknown_field", "invalid_field", "inconsistent")


def binding(bid, script, at=None, timeout_ms=None):
    """A ctk.scripted binding running interceptor script `script`."""
    x = {"id": bid, "kind": "ctk.scripted", "config": {"script": script}}
    if at is not None:
        x["at"] = at
    if timeout_ms is not None:
        x["timeout_ms"] = timeout_ms
    return x


def doc(bindings, configuration=None, surface=None, **extra):
    d = {"declaration": DV, "spec": "agent-hooks/0.1"}
    if configuration is not None:
        d["configuration"] = configuration
    if surface is not None:
        d["surface"] = surface
    d.update(extra)
    d["bindings"] = bindings
    return d


G = [binding("guard", 0)]


def full_surface(points=None, caps=None, versions=None, **members):
    """A surface stating every member a fill could change: points, capabilities, buffered_output and
    declaration_versions (profiles too when given)."""
    s = {"interception_points": list(ALL_POINTS if points is None else points),
         "capabilities": list(["model_calls", "tool_calls", "host_declaration"] if caps is None else caps),
         "buffered_output": True,
         "declaration_versions": list([DV] if versions is None else versions)}
    s.update(members)
    return s


def beyond_every_code(**kw):
    """A full surface that also lists a declaration version no loader has: refused at step 8 by every
    host, once steps 5 to 7 pass. The default profile is stated, so its absence from a host's own
    profiles can only add a step 8 finding too."""
    kw.setdefault("profiles", {"sequential/first_deny": {}})
    return full_surface(versions=[DV, NO_LOADER], **kw)


def refused(num, slug, title, cls, covers, document=None, text=None, caps=None, **kw):
    """A refusal vector: the document (a value, or raw text) is refused with `cls` before anything runs."""
    if document is not None:
        kw["host_declaration"] = document
    if text is not None:
        kw["host_declaration_text"] = text
    if cls in BEFORE_STEP_8:
        kw["host_declaration_invalid"] = True
    V(num, "decl-gap-" + slug, title, "7.7.6", covers + REFUSAL, DR, plain_scenario(),
      {"load": {"outcome": "refused", "class": "declaration_error:" + cls, "paths_equivalent": True},
       "interceptions": [], "run_outcome": "error"},
      caps=HD + (caps or []), scripts=[[]], **kw)


COMPLETED = {"interceptions": ix(FULL_PLAIN), "final_output": "hello there", "run_outcome": "completed"}


def loads(num, slug, title, clause, covers, document, records=None, caps=None, scripts=None, part=DL):
    """A document that must load: the run goes on and completes with the guard allowing everything."""
    e = dict(COMPLETED, load=ACC)
    if records:
        e["records"] = records
    V(num, "decl-gap-" + slug, title, clause, covers + ["7.7.9-a"], part, plain_scenario(), e,
      caps=M + HD + (caps or []), scripts=scripts or [[]], host_declaration=document)


STAMPED = [rec(SU, {"declaration": DV})]

# ================================================================ configuration.posture
# 7.7.3: "| `posture.tool_seam_host_error` | `continue`, `terminate` | `continue` | §13.1; MUST equal the
# posture the code implements |". Stating the default the code implements loads (a host implementing
# terminate is skipped: the runner reads the posture of its declared surface).
loads(1800, "posture-continue-stated", "A declaration stating posture.tool_seam_host_error continue, the posture the host implements, loads and the run completes",
      "7.7.3", ["7.7.3-b", "7.7.1-a"], doc(G, {"posture": {"tool_seam_host_error": "continue"}}), STAMPED)
# The same enum: any other value is an enum failure at step 6 ("Types, enums, patterns, ranges").
refused(1801, "posture-value-outside-enum", "A posture.tool_seam_host_error of abort, neither continue nor terminate, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, {"posture": {"tool_seam_host_error": "abort"}}))
# 7.7.3: "Every object is closed except `bindings[].config` and the values under `extensions`." posture is
# one of those objects: a string there is a type failure (step 6), an unknown member in it step 5.
refused(1802, "posture-not-object", "A configuration.posture given as the string continue, not an object, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, {"posture": "continue"}))
refused(1803, "posture-unknown-member", "An unknown member beside tool_seam_host_error inside configuration.posture is refused as unknown_field",
        "unknown_field", ["7.7.6-c"], doc(G, {"posture": {"tool_seam_host_error": "continue", "on_timeout": "continue"}}))
# terminate is in the enum, so it passes step 6 on every host; with a version no loader has beside it the
# document is refused at step 8 everywhere, whichever posture the host implements.
refused(1804, "posture-terminate-passes-step-6", "The posture terminate is a valid value: beside a surface listing a declaration version no loader has it reaches step 8, surface_unsupported",
        "surface_unsupported", ["7.7.4-c"], doc(G, {"posture": {"tool_seam_host_error": "terminate"}}, beyond_every_code()))

# The same posture alone, on the hosts whose code implements the other one: step 8, surface_unsupported.
for num, slug, asked, implemented in [(1868, "posture-terminate-on-continue-host", "terminate", "continue"),
                                      (1869, "posture-continue-on-terminate-host", "continue", "terminate")]:
    refused(num, slug, "A document configuring posture %s alone is refused at step 8, surface_unsupported, by a host implementing %s"
            % (asked, implemented), "surface_unsupported", ["7.7.4-c"],
            doc(G, {"posture": {"tool_seam_host_error": asked}}), host_posture=implemented)

# ================================================================ records.max_buffered
# 7.7.3: "| `records.max_buffered` | integer ≥ 1, `null` | `null` | in-memory record buffer bound |".
# Nothing is asserted about the records themselves: a bound of 1 may leave one record to report.
loads(1805, "max-buffered-one", "records.max_buffered of 1, the smallest bound, loads and the run completes",
      "7.7.3", ["7.7.3-d", "7.7.3-b"], doc(G, {"records": {"max_buffered": 1}}))
loads(1806, "max-buffered-null", "records.max_buffered written out as null, the unbounded default, loads and the run completes",
      "7.7.3", ["7.7.3-b"], doc(G, {"records": {"max_buffered": None}}), STAMPED)
refused(1807, "max-buffered-zero", "records.max_buffered of 0 is below its minimum of 1 and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc(G, {"records": {"max_buffered": 0}}))
refused(1808, "max-buffered-string", "records.max_buffered given as the string \"10\" is not an integer and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc(G, {"records": {"max_buffered": "10"}}))
# 7.7.3: "Integer members are written as JSON integers without a fraction or an exponent ... the loader
# refuses the other forms as `invalid_field`".
refused(1809, "max-buffered-fraction", "records.max_buffered of 1.5 is not an integer and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc(G, {"records": {"max_buffered": 1.5}}))
refused(1810, "records-not-object", "A configuration.records given as the number 5, not an object, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, {"records": 5}))

# ================================================================ surface.profiles
# 7.7.4: "`profiles` values are objects whose only members are the knobs that profile consults, each a
# non-empty set of supported values." The 1.0 schema closes surface.profiles over the four section 7.2
# profiles and each entry over its own knob; 7.7.6 step 5: "No unknown member at any closed level".
refused(1811, "surface-profiles-unknown-profile", "A surface.profiles entry naming a profile section 7.2 does not define is an unknown member: unknown_field",
        "unknown_field", ["7.7.6-c"], doc(G, surface={"profiles": {"sequential/first_deny": {}, "sequential/majority": {}}}))
refused(1812, "surface-profiles-unconsulted-knob", "A surface.profiles entry for first_deny listing on_disagreement, a knob it does not consult, is an unknown member: unknown_field",
        "unknown_field", ["7.7.6-c"], doc(G, surface={"profiles": {"sequential/first_deny": {"on_disagreement": ["deny"]}}}))
refused(1813, "surface-profiles-run-all-knob", "A surface.profiles entry for run_all listing on_approval, though run_all consults no knob, is an unknown member: unknown_field",
        "unknown_field", ["7.7.6-c"], doc(G, surface={"profiles": {"sequential/run_all": {"on_approval": ["stop"]}}}))
# "each a non-empty set of supported values": a string, an empty list, a repeated value or a value outside
# the knob's enum fails its type, size, uniqueness or enum (step 6).
refused(1814, "surface-knob-list-string", "A surface.profiles knob list given as the string stop, not a set, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"profiles": {"sequential/first_deny": {"on_approval": "stop"}}}))
refused(1815, "surface-knob-list-empty", "An empty surface.profiles knob list breaks its non-empty set and is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"profiles": {"sequential/first_deny": {"on_approval": []}}}))
refused(1816, "surface-knob-value-outside-enum", "A surface.profiles knob list naming merge, outside deny and approval, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"profiles": {"parallel/strictest": {"on_transform_conflict": ["deny", "merge"]}}}))
refused(1817, "surface-knob-value-repeated", "A surface.profiles knob list repeating deny is not a set and is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"profiles": {"parallel/unanimous": {"on_disagreement": ["deny", "deny"]}}}))
refused(1818, "surface-profile-entry-not-object", "A surface.profiles entry given as true, not an object, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"profiles": {"sequential/run_all": True}}))
refused(1819, "surface-profiles-not-object", "A surface.profiles given as a list of profile names, not a map, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"profiles": ["sequential/first_deny"]}))
# 7.7.3: "| `surface` | object, §7.7.4 |": any other type fails at step 6.
refused(1820, "surface-not-object", "A surface given as the string full, not an object, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface="full"))
# 7.7.4: "The configured composition MUST sit inside the declared surface: the profile present, each
# resolved knob value in the supported set." and "An absent knob member means the default value only."
refused(1821, "configured-knob-outside-surface-list", "A configured on_approval resume beside a surface.profiles listing only stop is refused as inconsistent",
        "inconsistent", ["7.7.4-d"],
        doc(G, {"composition": {"profile": "sequential/first_deny", "on_approval": "resume"}},
            full_surface(profiles={"sequential/first_deny": {"on_approval": ["stop"]}})))
refused(1822, "configured-knob-absent-list-default-only", "A configured on_disagreement approval beside a surface.profiles entry for unanimous with no knob list (the default deny only) is refused as inconsistent",
        "inconsistent", ["7.7.4-d"],
        doc(G, {"composition": {"profile": "parallel/unanimous", "on_disagreement": "approval"}},
            full_surface(profiles={"parallel/unanimous": {}})))
# A stated surface.profiles that lists every knob value of every profile, with run_all (which consults no
# knob) configured: it sits inside the surface and loads; records carry the profile.
loads(1823, "surface-profiles-every-value-run-all", "A full surface whose profiles list every knob value of the four profiles, with run_all configured, loads and records carry run_all",
      "7.7.4", ["7.7.4-d", "7.7.3-b"],
      doc(G, {"composition": {"profile": "sequential/run_all"}},
          full_surface(profiles={"sequential/first_deny": {"on_approval": ["resume", "stop"]}, "sequential/run_all": {},
                                 "parallel/strictest": {"on_transform_conflict": ["approval", "deny"]},
                                 "parallel/unanimous": {"on_disagreement": ["approval", "deny"]}})),
      [rec(SU, {"composition.profile": "sequential/run_all", "declaration": DV})])

# ================================================================ configuration values written out
# 7.7.3: "| `mode` | `enforce`, `evaluate_only` | `enforce` |", "| `composition.on_approval` | `stop`, `resume` |
# `stop` |", "| `composition.on_disagreement` | `deny`, `approval` | `deny` |", "|
# `composition.on_transform_conflict` | `deny`, `approval` | `deny` |". Each value the table allows loads
# when written out, and "the resolved value is what §10.3 records".
loads(1824, "enforce-and-stop-stated", "A declaration writing out mode enforce and first_deny with on_approval stop loads, and records carry both",
      "7.7.3", ["7.7.3-b"],
      doc(G, {"mode": "enforce", "composition": {"profile": "sequential/first_deny", "on_approval": "stop"}}),
      [rec(SU, {"mode": "enforce", "composition.profile": "sequential/first_deny", "composition.on_approval": "stop"})])
loads(1825, "strictest-deny-stated", "A declaration configuring parallel/strictest with on_transform_conflict deny written out loads, and records carry it",
      "7.7.3", ["7.7.3-b"],
      doc(G, {"composition": {"profile": "parallel/strictest", "on_transform_conflict": "deny"}}),
      [rec(SU, {"composition.profile": "parallel/strictest", "composition.on_transform_conflict": "deny"})])
loads(1826, "unanimous-approval-stated", "A declaration configuring parallel/unanimous with on_disagreement approval loads, and records carry it",
      "7.7.3", ["7.7.3-b"],
      doc(G, {"composition": {"profile": "parallel/unanimous", "on_disagreement": "approval"}}),
      [rec(SU, {"composition.profile": "parallel/unanimous", "composition.on_disagreement": "approval"})])
# "A consulted knob left unset takes its §7.2 default, and the resolved value is what §10.3 records."
loads(1827, "unanimous-knob-default", "A declaration configuring parallel/unanimous without on_disagreement loads, and records carry its default deny",
      "7.7.3", ["7.7.3-b"], doc(G, {"composition": {"profile": "parallel/unanimous"}}),
      [rec(SU, {"composition.profile": "parallel/unanimous", "composition.on_disagreement": "deny"})])
refused(1828, "on-disagreement-outside-enum", "An on_disagreement of abstain, outside deny and approval, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, {"composition": {"profile": "parallel/unanimous", "on_disagreement": "abstain"}}))
refused(1829, "on-transform-conflict-outside-enum", "An on_transform_conflict of merge, outside deny and approval, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, {"composition": {"profile": "parallel/strictest", "on_transform_conflict": "merge"}}))
# 7.7.3: "| `approval.redactor` | a registered name, `null` |" and "Registered names match
# `^[a-z][a-z0-9_-]{0,63}$`": a name breaking the pattern fails at step 6, before step 9 looks it up.
refused(1830, "redactor-name-pattern", "An approval redactor name with a capital and a space breaks the name pattern: invalid_field (step 6), before any lookup",
        "invalid_field", ["7.7.6-i"], doc(G, {"approval": {"redactor": "Bad Name"}}))

# ================================================================ surface.capabilities
# 7.7.4: "| `capabilities` | set from the closed capability list |"; the list is the schema's enum of nine.
refused(1831, "capability-unknown", "A surface capability outside the closed capability list (telepathy) is refused as invalid_field, not surface_unsupported",
        "invalid_field", ["7.7.6-i"], doc(G, surface=full_surface(caps=["model_calls", "tool_calls", "telepathy", "host_declaration"])))
refused(1832, "capability-repeated", "A surface capability list naming model_calls twice is not a set and is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface=full_surface(caps=["model_calls", "tool_calls", "model_calls", "host_declaration"])))
refused(1833, "capabilities-not-array", "A surface capabilities given as one string, not a set, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface=full_surface(caps=None) | {"capabilities": "model_calls"}))
# Every listed capability is in the closed list, so each passes step 6; the host skips the vector unless its
# declared surface has all of them.
WIDE = ["model_calls", "tool_calls", "parallel_tool_calls", "multi_turn", "int64_json", "bigint_json", "host_declaration"]
loads(1834, "surface-wide-capabilities", "A full surface listing parallel_tool_calls, multi_turn, int64_json and bigint_json on a host that has them loads and the run completes",
      "7.7.4", ["7.7.4-c", "7.7.3-b"], doc(G, surface=full_surface(caps=WIDE)), STAMPED,
      caps=["tool_calls", "parallel_tool_calls", "multi_turn", "int64_json", "bigint_json"])
# streaming is in the closed list (step 6 passes); the version no loader has refuses it at step 8 everywhere.
refused(1835, "capability-streaming-passes-step-6", "A surface listing streaming, a declarable capability, beside a version no loader has reaches step 8: surface_unsupported",
        "surface_unsupported", ["7.7.4-c"],
        doc(G, surface=beyond_every_code(caps=["model_calls", "tool_calls", "streaming", "host_declaration"])))

# ================================================================ buffered_output and exposure_bound
# 7.7.4: "| `buffered_output` | boolean | `true` |".
refused(1836, "buffered-output-string", "A surface buffered_output given as the string yes, not a boolean, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface=full_surface(buffered_output="yes")))
# "| `exposure_bound` | string, 1 to 512 characters; present iff `buffered_output` is `false` |" and
# "`incremental_output` requires `buffered_output: false`": such a surface passes steps 6 and 7 on every
# host, and the version no loader has refuses it at step 8.
INCREMENTAL = ["model_calls", "tool_calls", "incremental_output", "host_declaration"]
refused(1837, "incremental-unbuffered-passes-step-7", "A surface with incremental_output, buffered_output false and an exposure_bound is consistent: beside a version no loader has it reaches step 8, surface_unsupported",
        "surface_unsupported", ["7.7.4-b", "7.7.4-c"],
        doc(G, surface=beyond_every_code(caps=INCREMENTAL, buffered_output=False,
                                         exposure_bound="a segment is released once a verdict covering it permits")))
refused(1838, "exposure-bound-one-character", "An exposure_bound of exactly 1 character is within its 1 to 512: beside a version no loader has the document reaches step 8, surface_unsupported",
        "surface_unsupported", ["7.7.4-c", "7.7.3-e"],
        doc(G, surface=beyond_every_code(caps=INCREMENTAL, buffered_output=False, exposure_bound="x")))
refused(1839, "exposure-bound-512-characters", "An exposure_bound of exactly 512 characters is within its 1 to 512: beside a version no loader has the document reaches step 8, surface_unsupported",
        "surface_unsupported", ["7.7.4-c", "7.7.3-e"],
        doc(G, surface=beyond_every_code(caps=INCREMENTAL, buffered_output=False, exposure_bound="w" * 512)))

# 7.7.4: "When `surface` is absent the resolved document carries the host's own surface verbatim, streaming posture
# included: a host that mediates incrementally resolves to `buffered_output: false`", and "Every stated member MUST be
# a subset of what the host's code reports". A host whose own surface buffers therefore cannot mediate incrementally,
# and a document asking for unbuffered output (with the exposure_bound that must come with it, and nothing else a
# host with model and tool points lacks) exceeds its code.
refused(1870, "unbuffered-alone-on-buffering-host", "A surface asking only for buffered_output false is refused at step 8, surface_unsupported, by a host whose own surface buffers",
        "surface_unsupported", ["7.7.4-c"],
        doc(G, surface=full_surface(buffered_output=False, exposure_bound="a segment is released once a verdict covering it permits",
                                    profiles={"sequential/first_deny": {}})),
        host_buffers_only=True)

# ================================================================ interception point sets
# 7.7.4: "| `interception_points` | set of §3 point names, 4 to 8 |"; 7.7.5: "| `at` | set of point names, 1
# or more, each in the surface |". A set holds no item twice (the schema: uniqueItems).
refused(1840, "surface-points-repeated", "A surface interception_points naming input twice is not a set and is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface=full_surface(points=[SU, IN, PM, PO, IN, OUT, SD], caps=["model_calls", "host_declaration"])))
refused(1841, "binding-at-repeated", "A binding at naming input twice is not a set and is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc([binding("guard", 0, at=[IN, OUT, IN])]))
refused(1842, "surface-points-string", "A surface interception_points given as one string, not a set, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"interception_points": "agent_startup"}))
refused(1843, "surface-points-unknown", "A surface interception_points naming pre_search, not a section 3 point, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"interception_points": FLOOR + ["pre_search"]}))
# Three points: below the set's 4, a range failure at step 6 before step 7 could find the floor broken.
refused(1844, "surface-three-points", "A surface interception_points of three points is below its 4 to 8 and is refused as invalid_field, not inconsistent",
        "invalid_field", ["7.7.6-i"], doc(G, surface={"interception_points": [SU, IN, OUT]}))
# The floor alone is four points, the set's least: with no model or tool capability it is consistent
# (section 3.2), and the version no loader has refuses it at step 8 on every host.
refused(1845, "floor-surface-passes-step-7", "A surface of the four floor points with no model or tool capability is valid and consistent: beside a version no loader has it reaches step 8, surface_unsupported",
        "surface_unsupported", ["7.7.4-a", "7.7.4-c"], doc(G, surface=beyond_every_code(points=FLOOR, caps=["host_declaration"])))

# ================================================================ timeouts
# 7.7.3: "| `timeouts.interceptor_ms` | integer 1 to 3600000, `null` | `5000` |", "|
# `timeouts.approval_resolver_ms` | integer 1 to 3600000, `null` | the value of `interceptor_ms` |"; 7.7.5:
# "| `timeout_ms` | integer 1 to 3600000, `null` | no | `configuration.timeouts.interceptor_ms` |".
refused(1846, "binding-timeout-zero", "A binding timeout_ms of 0 is below its 1 to 3600000 and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc([binding("guard", 0, timeout_ms=0)]))
refused(1847, "binding-timeout-past-bound", "A binding timeout_ms of 3600001 is one past its 1 to 3600000 and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc([binding("guard", 0, timeout_ms=3600001)]))
refused(1848, "binding-timeout-string", "A binding timeout_ms given as the string \"5000\" is not an integer and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc([binding("guard", 0, timeout_ms="5000")]))
refused(1849, "approval-resolver-timeout-zero", "timeouts.approval_resolver_ms of 0 is below its 1 to 3600000 and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc(G, {"timeouts": {"approval_resolver_ms": 0}}))
refused(1850, "approval-resolver-timeout-past-bound", "timeouts.approval_resolver_ms of 3600001 is one past its 1 to 3600000 and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc(G, {"timeouts": {"approval_resolver_ms": 3600001}}))
refused(1851, "approval-resolver-timeout-string", "timeouts.approval_resolver_ms given as the string \"5000\" is not an integer and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc(G, {"timeouts": {"approval_resolver_ms": "5000"}}))
refused(1852, "interceptor-timeout-past-bound", "timeouts.interceptor_ms of 3600001 is one past its 1 to 3600000 and is refused as invalid_field",
        "invalid_field", ["7.7.3-d", "7.7.6-i"], doc(G, {"timeouts": {"interceptor_ms": 3600001}}))
refused(1853, "timeouts-not-object", "A configuration.timeouts given as null, not an object, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, {"timeouts": None}))
# Both ends of the range load. A bound of 1 ms is never given to a binding that runs: the guard states its own
# timeout_ms, no resolver is configured, and the 1 ms binding is bound at the tool points of a run with no tool
# call, so no interceptor call is timed against it.
loads(1854, "timeouts-at-upper-bound", "interceptor_ms, approval_resolver_ms and a binding timeout_ms of exactly 3600000 load and the run completes",
      "7.7.3", ["7.7.3-d", "7.7.3-b"],
      doc([binding("guard", 0, timeout_ms=3600000)], {"timeouts": {"interceptor_ms": 3600000, "approval_resolver_ms": 3600000}}),
      STAMPED)
loads(1855, "timeouts-at-lower-bound", "interceptor_ms, approval_resolver_ms and a binding timeout_ms of exactly 1 load; no interceptor call is timed against them and the run completes",
      "7.7.3, 7.7.5", ["7.7.3-d", "7.7.3-b", "7.7.5-b"],
      doc([binding("guard", 0, timeout_ms=5000), binding("tool-only", 1, at=[PT, PTT], timeout_ms=1)],
          {"timeouts": {"interceptor_ms": 1, "approval_resolver_ms": 1}}),
      [rec(SU, {"interceptors_registered": 1}), rec(OUT, {"interceptors_registered": 1})],
      caps=["tool_calls"], scripts=[[], []], part=DB)

# ================================================================ host.version
# 7.7.1: "The document is validated by `spec/schema/host-declaration-1.0.schema.json`"; that schema gives
# host.version "minLength": 1 and "maxLength": 64 (a range, step 6).
loads(1856, "host-version-one-character", "A host.version of exactly 1 character loads and the run completes",
      "7.7.3", ["7.7.3-b"], doc(G, host={"name": "sample-host", "version": "7"}), STAMPED)
loads(1857, "host-version-64-characters", "A host.version of exactly 64 characters loads and the run completes",
      "7.7.3", ["7.7.3-b", "7.7.3-e"], doc(G, host={"name": "sample-host", "version": "1." + "0" * 62}), STAMPED)
refused(1858, "host-version-65-characters", "A host.version of 65 characters is past its 64 and is refused as invalid_field, not truncated",
        "invalid_field", ["7.7.6-i", "7.7.3-e"], doc(G, host={"name": "sample-host", "version": "1." + "0" * 63}))
refused(1859, "host-version-empty", "An empty host.version is below its 1 character and is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc(G, host={"name": "sample-host", "version": ""}))

# ================================================================ bindings and text
# 7.7.5: "A binding is the open envelope `{id, kind, config?, at?, timeout_ms?}`": an object; any other
# item of bindings fails its type at step 6.
refused(1860, "binding-not-object", "A bindings item that is the number 5, not a binding object, is refused as invalid_field",
        "invalid_field", ["7.7.6-i"], doc([5]))
GUARD_TEXT = '{"id": "guard", "kind": "ctk.scripted", "config": {"script": 0}}'
HEAD = '"declaration": "%s", "spec": "agent-hooks/0.1"' % DV
# 7.7.6: "| `declaration_error:malformed` | not JSON, root not an object, duplicate key, depth over 32, ... |".
# NaN is no JSON value (RFC 8259 has no literal for it), so the text is not JSON.
refused(1861, "malformed-nan-literal", "Text holding the literal NaN as interceptor_ms is not JSON and is refused as malformed, not read as a number or null",
        "malformed", ["7.7.6-h"],
        text='{%s, "configuration": {"timeouts": {"interceptor_ms": NaN}}, "bindings": [%s]}' % (HEAD, GUARD_TEXT))
# Step 2: "depth at most 32". A text nested thousands of levels deep is refused the same way as one nested 33
# levels: a parser's own nesting limit is no excuse for failing otherwise.
DEEP_LEVELS = 5000
refused(1862, "malformed-depth-5000", "Text nested 5000 levels deep inside extensions is refused as malformed, however the parser meets its own limit",
        "malformed", ["7.7.6-h", "7.7.3-e"],
        text='{%s, "extensions": {"deep": %s%s}, "bindings": [%s]}' % (HEAD, "[" * DEEP_LEVELS, "]" * DEEP_LEVELS, GUARD_TEXT))

# ================================================================ finding pointers (advisory, D-46)
# 7.7.6: "An error carries the class, a list of findings (a JSON pointer such as `/bindings/1/kind` and a
# detail)". The harness fixes no wording for a refusal's detail, so naming the finding's pointer there is the
# project's reading D-46 (as CTK-1420): advisory. The profile name's `/` is written ~1 (RFC 6901).
V(1863, "decl-gap-detail-unknown-profile-pointer", "An unknown_field refusal of an unknown surface.profiles entry names its pointer /surface/profiles/sequential~1majority",
  "7.7.6", ["7.7.6-c"] + REFUSAL, DR, plain_scenario(),
  {"load": {"outcome": "refused", "class": "declaration_error:unknown_field", "paths_equivalent": True,
            "detail_contains": ["/surface/profiles/sequential~1majority"]},
   "interceptions": [], "run_outcome": "error"},
  caps=HD, scripts=[[]], advisory="D-46", host_declaration_invalid=True,
  host_declaration=doc(G, surface={"profiles": {"sequential/majority": {}}}))
V(1864, "decl-gap-detail-unconsulted-knob-pointer", "An unknown_field refusal of a knob first_deny does not consult in surface.profiles names the knob's pointer",
  "7.7.6", ["7.7.6-c"] + REFUSAL, DR, plain_scenario(),
  {"load": {"outcome": "refused", "class": "declaration_error:unknown_field", "paths_equivalent": True,
            "detail_contains": ["/surface/profiles/sequential~1first_deny/on_disagreement"]},
   "interceptions": [], "run_outcome": "error"},
  caps=HD, scripts=[[]], advisory="D-46", host_declaration_invalid=True,
  host_declaration=doc(G, surface={"profiles": {"sequential/first_deny": {"on_disagreement": ["deny"]}}}))

# ================================================================ unbounded timeouts
# 7.7.3: "| `timeouts.interceptor_ms` | integer 1 to 3600000, `null` | `5000` | §7; `null` is unbounded and MUST
# be written out |". Every host can honour an unbounded wait, so the document loads, and the guard, which
# answers at once, is dispatched to at every point with no bound.
loads(1865, "timeouts-null-unbounded", "interceptor_ms, approval_resolver_ms and a binding timeout_ms written out as null (unbounded) load, and the guard is dispatched to at every point",
      "7.7.3", ["7.7.3-b", "7.7.5-b"],
      doc([binding("guard", 0, timeout_ms=None)], {"timeouts": {"interceptor_ms": None, "approval_resolver_ms": None}}),
      [rec(SU, {"interceptors_registered": 1, "declaration": DV}), rec(OUT, {"interceptors_registered": 1})])

# ================================================================ streaming, where the host has it (stop 35)
# 7.7.4: a document may select what the host's code has. A host that streams model output (capability
# streaming, as the Python example host declares since it assembles scripted streams) loads a surface listing
# it; the runner skips the vector for a host whose declared surface lacks streaming.
loads(1866, "surface-streaming-capability", "A full surface listing streaming on a host that has it loads and the run completes",
      "7.7.4", ["7.7.4-c", "7.7.3-b"],
      doc(G, surface=full_surface(caps=["model_calls", "tool_calls", "streaming", "host_declaration"])), STAMPED,
      caps=["tool_calls", "streaming"])
