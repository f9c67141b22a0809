// Package biblio gives cited works an identity and matches them against a
// survey's ground-truth references.
//
// It is pure (no I/O) and fuzzed. The identity of a work is, in order of
// preference, its version-less arXiv id, its lowercased DOI, its canonical
// URL, or its normalized title (see Key), so that the abs, pdf and doi.org
// URLs of one paper are one work, while two URLs that differ only in an
// identifying query parameter (openreview.net/forum?id=A and ?id=B) stay two.
//
// Matching (Index) tries identifiers first, then the exact normalized title,
// then a deliberately strict fuzzy title comparison: it accepts a typo, and
// rejects a different paper whose title contains the other one, shares a
// prefix with it, or differs from it in a number ("Qwen2" / "Qwen2.5",
// "Part I" / "Part II").
package biblio
