// Package live records provenance while an agent writes (the AAR standard,
// seed paper §5: "semantic provenance with protocolized validation …
// operating continuously during synthesis"). A session is one growing
// provenance graph, a prov.Graph of sources, reasoning steps and claims,
// that an agent adds to step by step, through the Service methods, the HTTP
// JSON API (Handler) or the MCP tools (package mcpserver).
//
// # Verification and the gate
//
// A claim is verified when it arrives: each supports edge from a source
// straight into the claim is judged by the configured Judge (the offline
// judge by default) against the source's text, which is the excerpt the
// agent recorded or, when the agent gave only a URL and fetching is allowed,
// the readable text of the page fetched through the SSRF-safe fetcher. The
// verdict, its strength ν and the verbatim evidence go on the edge.
//
// The claim is then gated, so that the agent can revise it before writing
// it, when its provenance is incomplete (docs/design.md's PCov definition: no
// source reaches it, a source on its path is unresolved, or a reasoning step
// on its path has no input) or when none of its direct source supports has
// ν > τ, which includes a claim with no direct source support at all: with
// nothing to verify it is unverified. A gated claim is recorded with the
// reasons; the agent revises it (the same id with revise set), backs it with
// another source (a supports edge, judged like the others) or withdraws it.
// Metrics count what the graph holds, gated claims included, so that they
// measure the draft as it would be published.
//
// # Persistence
//
// Every operation is validated against the AAR rules (prov.NewIndex names
// the rule a bad operation breaks), written to the store as one unit of an
// append-only log (a run of kind "live" per session, units of kind
// "live_op" keyed by sequence number) and only then applied. The log holds
// the outcome of each operation, verdicts and fetched text included, so
// reopening a session replays it without judging or fetching again: a crash
// loses nothing that was acknowledged. A session is served by one process
// at a time.
//
// Operations on one session are serialized; judging and fetching run
// outside the session's lock, so slow judges and pages do not block reads.
//
// # Bounds
//
// Limits bound what one session holds and how many sessions are open (in
// all and per owner, the holder of one token: WithOwner), and the memory
// of the sessions in memory: past Limits.MemoryBytes, sessions not in use
// leave memory, least recently used first, and are replayed from the store
// when next used. A session is loaded by one caller, outside the service's
// lock; others wanting it wait for that load, not for the lock.
package live
