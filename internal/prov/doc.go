// Package prov is claimtrace's semantic provenance graph and the AAR
// metrics over it (the AAR standard, seed paper §4: definitions 5–9, the
// four metrics, Figure 4).
//
// A Graph holds sources (external evidence: id, URL/DOI, excerpt,
// retrieval time), reasoning steps (id, inference, deduction | induction |
// synthesis, model) and claims (id, statement, location), joined by typed
// edges: supports (with entailment strength ν ∈ [0, 1]), contradicts,
// refines and prerequisite. Sources have no incoming edges and claims no
// outgoing ones; Validate names the rule a bad graph breaks. The graph also
// carries the conflicts between sources an auditor found (the set K of
// contradiction transparency).
//
// Graphs come from three places: Build makes one from the pipeline's records
// (a parsed report, what each citation resolved to, verdicts on (claim,
// source) pairs); agents record their own in the native JSON format
// (Unmarshal, Encode; JSON Schema in graph.schema.json, documented in
// doc/graph-format.md); package importer reads the citation output of model
// providers. Package provjson writes W3C PROV-JSON and PROV-JSONLD and reads
// PROV-JSON; WriteGraphML and WriteDOT draw the graph.
//
// # Metrics
//
// Compute (or Index.Metrics) follows docs/design.md's precise definitions:
//
//   - π(c) is every node with a directed path to claim c; S_c and R_c are
//     its sources and reasoning steps. π(c) is complete when it holds at
//     least one source, every source in it is resolved, and every reasoning
//     step in it has an input. PCov = complete claims / claims.
//   - PSnd is taken over the citation pairs P = {(c, s): a supports edge
//     s → c from a source straight into a claim}: the share with ν > τ
//     (DefaultTau 0.5). A pair without a known strength is never sound. A
//     contradicts edge is a surfaced conflict, not a citation, so it is not
//     in P.
//   - CTran = |D| / |K| over the graph's conflicts; undefined (null) when K
//     is empty. A conflict between sources a and b is in D when a
//     contradicts edge records it (one side reaches the edge's tail, the
//     other reaches its head by another way) or when one claim or reasoning
//     step takes edges from both and its text states the disagreement
//     (ConflictCue).
//   - The AEff proxy of a claim is |S_c| + |R_c|, the nodes a reviewer
//     inspects, with the words to read in the excerpts of S_c beside it.
//
// Each figure comes per claim and per report, as a Ratio or Mean that is
// null when its denominator is zero.
//
// # Contradictions
//
// FindContradictions runs a Detector over source texts. Offline (the
// default) compares sentences of different sources that share enough
// content words, and reports negated assertions, opposite changes of the
// same thing and numbers in the same unit that disagree; TwoWay asks an
// Entailer (an NLI model or an LLM) both ways about the same candidate
// pairs.
//
// # Across reports
//
// MostCited and DependentClaims are pure functions over many graphs (for
// example: which claims rest on a retracted DOI), so any store can serve
// them.
//
// The hot path works on an Index: node numbers and compressed adjacency
// instead of string maps, one backward walk per claim.
package prov
