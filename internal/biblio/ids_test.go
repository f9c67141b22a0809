package biblio

import (
	"testing"
	"time"
)

func TestArXivID(t *testing.T) {
	tests := map[string]string{
		"2101.00001":                                      "2101.00001",
		"2101.00001v2":                                    "2101.00001",
		" arXiv:2101.00001v2 ":                            "2101.00001",
		"ARXIV:2101.00001":                                "2101.00001",
		"1409.0473":                                       "1409.0473",
		"hep-th/9901001":                                  "hep-th/9901001",
		"arXiv:hep-th/9901001v1":                          "hep-th/9901001",
		"math.GT/0309136":                                 "math/0309136",
		"cond-mat/0607001":                                "cond-mat/0607001",
		"https://arxiv.org/abs/2101.00001":                "2101.00001",
		"http://arxiv.org/abs/1312.6114v10":               "1312.6114",
		"https://arxiv.org/pdf/2101.00001v2.pdf":          "2101.00001",
		"https://arxiv.org/pdf/2101.00001":                "2101.00001",
		"https://arxiv.org/html/2401.12345v1":             "2401.12345",
		"https://www.arxiv.org/abs/hep-th/9901001v2":      "hep-th/9901001",
		"https://export.arxiv.org/abs/2101.00001":         "2101.00001",
		"https://ar5iv.labs.arxiv.org/html/2101.00001":    "2101.00001",
		"https://ar5iv.org/abs/2101.00001":                "2101.00001",
		"https://www.alphaxiv.org/abs/2101.00001":         "2101.00001",
		"https://www.alphaxiv.org/overview/2101.00001v1":  "2101.00001",
		"https://www.arxiv-vanity.com/papers/2101.00001/": "2101.00001",
		"https://huggingface.co/papers/2305.12345":        "2305.12345",
		"https://doi.org/10.48550/arXiv.2211.05100":       "2211.05100",
		"10.48550/arXiv.2211.05100":                       "2211.05100",
		"arXiv preprint arXiv:1810.04805":                 "1810.04805",
		"Devlin et al. BERT. arXiv 1810.04805, 2018.":     "1810.04805",
		"see hep-th/9901001 for details":                  "hep-th/9901001",
		"https://arxiv.org/abs/2101.01507.":               "2101.01507",
		// Not ids.
		"":                               "",
		"version 2101.00001 of the tool": "",
		"arXiv:2301.XXXXX":               "",
		"2113.00001":                     "", // month 13
		"2101.0001":                      "", // 4 digits after 2015
		"1401.00001":                     "", // 5 digits before 2015
		"0612.1234":                      "", // before April 2007
		"2101.000012":                    "",
		"foo/9901001":                    "", // unknown archive
		"hep-th/99010011":                "",
		"hep-th/9913001":                 "",
		"https://blog.example.org/arxiv-2101.00001": "",
		"https://huggingface.co/models/2305.12345":  "",
		"https://example.org/2101.00001":            "",
	}
	for in, want := range tests {
		if got := ArXivID(in); got != want {
			t.Errorf("ArXivID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestArXivDate(t *testing.T) {
	tests := []struct {
		id   string
		want time.Time
		ok   bool
	}{
		{"2101.00001", time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"arXiv:1812.10528v2", time.Date(2018, 12, 1, 0, 0, 0, 0, time.UTC), true},
		{"0704.0001", time.Date(2007, 4, 1, 0, 0, 0, 0, time.UTC), true},
		{"hep-th/9901001", time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"math/0309136", time.Date(2003, 9, 1, 0, 0, 0, 0, time.UTC), true},
		{"nonsense", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := ArXivDate(tt.id)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ArXivDate(%q) = %v, %v; want %v, %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDOI(t *testing.T) {
	tests := map[string]string{
		"10.1145/3292500.3330701":                                                       "10.1145/3292500.3330701",
		"doi:10.1145/3292500.3330701.":                                                  "10.1145/3292500.3330701",
		"DOI: 10.1109/CVPR.2016.90":                                                     "10.1109/cvpr.2016.90",
		"https://doi.org/10.1016/S1474-6670(17)45407-3":                                 "10.1016/s1474-6670(17)45407-3",
		"(https://doi.org/10.1016/j.jss.2020.110798)":                                   "10.1016/j.jss.2020.110798",
		"http://dx.doi.org/10.1039/C3NR00037K":                                          "10.1039/c3nr00037k",
		"https://dl.acm.org/doi/10.1145/3139131.3143421":                                "10.1145/3139131.3143421",
		"https://dl.acm.org/doi/abs/10.1145/3139131.3143421?casa_token=x":               "10.1145/3139131.3143421",
		"https://link.springer.com/article/10.1007/s00779-020-01373-8":                  "10.1007/s00779-020-01373-8",
		"https://link.springer.com/content/pdf/10.1007/s00779-020-01373-8.pdf":          "10.1007/s00779-020-01373-8",
		"https://onlinelibrary.wiley.com/doi/full/10.1002/ppp3.10347":                   "10.1002/ppp3.10347",
		"https://www.tandfonline.com/doi/abs/10.1080/01621459.2017.1285773":             "10.1080/01621459.2017.1285773",
		"https://www.pnas.org/doi/pdf/10.1073/pnas.1114076109":                          "10.1073/pnas.1114076109",
		"https://www.frontiersin.org/articles/10.3389/fnhum.2020.00096/full":            "10.3389/fnhum.2020.00096",
		"https://www.biorxiv.org/content/10.1101/150490.full":                           "10.1101/150490",
		"https://www.biorxiv.org/content/10.1101/2020.01.01.123456v2.full.pdf":          "10.1101/2020.01.01.123456",
		"https://journals.plos.org/plosbiology/article?id=10.1371/journal.pbio.2004830": "10.1371/journal.pbio.2004830",
		"https://www.aeaweb.org/articles?id=10.1257/pol.20180033":                       "10.1257/pol.20180033",
		"https://example.org/x?doi=10.1000%2Fabc":                                       "10.1000/abc",
		"https://iopscience.iop.org/article/10.1088/1742-6596/1234/1/012001/pdf":        "10.1088/1742-6596/1234/1/012001",
		"https://www.nature.com/articles/s41467-020-15149-4.pdf":                        "10.1038/s41467-020-15149-4",
		"https://www.nature.com/articles/nature13291":                                   "10.1038/nature13291",
		"10.48550/arXiv.2211.05100":                                                     "10.48550/arxiv.2211.05100",
		"见 10.1234/abcd。":                                                               "10.1234/abcd",
		"(see 10.1234/abc)":                                                             "10.1234/abc",
		"[10.1234/a(b)c]":                                                               "10.1234/a(b)c",
		// Not DOIs, and not invented.
		"https://www.sciencedirect.com/science/article/pii/S0092867421001641": "",
		"https://ieeexplore.ieee.org/document/8578280":                        "",
		"version 210.1234/abc": "",
		"10.12/abc":            "",
		"10.1234/":             "",
		// A prefix cut short by whitespace is no DOI.
		"10.1016/j": "",
		"https://doi.org/10.1016/j              .conengprac.1.2": "",
		"doi:10.1016/j.": "",
		"10.1234/ab":     "10.1234/ab",
		"":               "",
	}
	for in, want := range tests {
		if got := DOI(in); got != want {
			t.Errorf("DOI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExternalID(t *testing.T) {
	tests := map[string]ExtID{
		"https://pubmed.ncbi.nlm.nih.gov/31452104/":                                    {IDPubMed, "31452104"},
		"https://www.ncbi.nlm.nih.gov/pubmed/0031452104":                               {IDPubMed, "31452104"},
		"https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6614286/":                        {IDPMC, "PMC6614286"},
		"https://pmc.ncbi.nlm.nih.gov/articles/pmc6614286":                             {IDPMC, "PMC6614286"},
		"https://europepmc.org/article/MED/31452104":                                   {IDPubMed, "31452104"},
		"https://europepmc.org/abstract/PMC/PMC6614286":                                {IDPMC, "PMC6614286"},
		"https://www.sciencedirect.com/science/article/pii/S0967066112001050":          {IDPII, "S0967066112001050"},
		"https://www.sciencedirect.com/science/article/abs/pii/s0967066112001050":      {IDPII, "S0967066112001050"},
		"https://linkinghub.elsevier.com/retrieve/pii/S0967-0661(12)00105-0":           {IDPII, "S0967066112001050"},
		"https://www.sciencedirect.com/science/article/pii/S0140673620301835X":         {},
		"https://www.sciencedirect.com/science/article/pii/B978-0-12-345678-9.00012-X": {IDPII, "B978012345678900012X"},
		"https://openreview.net/forum?id=rJ4km2R5t7":                                   {IDOpenReview, "rJ4km2R5t7"},
		"https://openreview.net/pdf?id=rJ4km2R5t7&noteId=x":                            {IDOpenReview, "rJ4km2R5t7"},
		"https://openreview.net/group?id=ICLR.cc/2024/Conference":                      {},
		"https://aclanthology.org/2020.acl-main.1/":                                    {IDACL, "2020.acl-main.1"},
		"https://aclanthology.org/2020.acl-main.1.pdf":                                 {IDACL, "2020.acl-main.1"},
		"https://www.aclweb.org/anthology/P19-1001.pdf":                                {IDACL, "P19-1001"},
		"https://aclanthology.org/events/acl-2020/":                                    {},
		"https://pubmed.ncbi.nlm.nih.gov/?term=widgets":                                {},
		"https://www.ncbi.nlm.nih.gov/pmc/articles/PMC/":                               {},
		"https://example.org/pii/S0967066112001050":                                    {},
		"not a url": {},
	}
	for in, want := range tests {
		got, ok := ExternalID(in)
		if ok != (want != ExtID{}) || got != want {
			t.Errorf("ExternalID(%q) = %+v, %v; want %+v", in, got, ok, want)
		}
	}
}
