package agent

import "slices"

// ToolNames says which tools a run over budgets offers, given the search
// and reader asked for: with native search the provider searches and reads
// pages itself (SearchNative, no reader); when every budget is 0 no tool
// is offered (SearchNone, no reader); otherwise the search API and reader
// asked for. usesTools says whether the model is offered the search and
// reader tools, which a run must then open.
func ToolNames(searchName, readerName string, budgets []int) (search, reader string, usesTools bool) {
	native := searchName == SearchNative
	usesTools = !native && len(budgets) > 0 && slices.Max(budgets) > 0
	switch {
	case native:
		return SearchNative, "", false
	case !usesTools:
		return SearchNone, "", false
	}
	return searchName, readerName, true
}
