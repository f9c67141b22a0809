// Package construct builds a ReportBench-format benchmark (seed paper
// §2.1): from the arXiv metadata snapshot to ReportBench_v1.1.jsonl and
// ReportBench_v1.1_GT/<arxiv_id>.jsonl, byte-compatible with the release.
//
// The stages, each resumable and each writing its output and a manifest
// under <dir>/build:
//
//	select    stream the snapshot, keep recent peer-reviewed surveys (arxivsnap)
//	classify  "is this a literature survey?" (rules offline, an LLM online)
//	sources   download and safely extract each e-print (tarx)
//	refs      LaTeX + BibTeX → the cited references (latex, bibtex)
//	prompts   three prompts per survey with the cutoff (templates / LLM)
//	domains   one of ten application domains (category rules / LLM)
//	sample    stratified, seeded draw of tasks and prompt levels
//
// LLM-backed stages take the small Completer interface declared here; the
// offline implementations are the defaults.
package construct
