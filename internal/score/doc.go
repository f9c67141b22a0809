// Package score holds the benchmark's metrics: a report's cited works
// matched against its survey's ground truth (precision, recall and F1, with a
// reason for every miss), their macro, micro and per-domain aggregates, and
// the ratio and mean types every figure of a summary is written with, null
// when nothing was measured.
package score
