package scholar

// ParseAtomForBench exposes parseAtom to the external benchmarks.
func ParseAtomForBench(body []byte) (int, error) {
	recs, err := parseAtom(body)
	return len(recs), err
}
