package biblio

import (
	"strings"
)

// scholarlyDomains are hosts (and their subdomains) that serve scholarly
// papers: preprint servers, DOI resolvers, publishers, proceedings, indexes.
var scholarlyDomains = []string{
	// preprints and their mirrors
	"arxiv.org", "ar5iv.org", "alphaxiv.org", "arxiv-vanity.com", "biorxiv.org", "medrxiv.org",
	"chemrxiv.org", "psyarxiv.com", "ssrn.com", "preprints.org", "researchsquare.com", "osf.io",
	"hal.science", "hal.archives-ouvertes.fr", "eprint.iacr.org", "zenodo.org", "openreview.net",
	// identifiers, indexes, repositories
	"doi.org", "semanticscholar.org", "pubmed.ncbi.nlm.nih.gov", "ncbi.nlm.nih.gov", "europepmc.org",
	"dblp.org", "openalex.org", "citeseerx.ist.psu.edu", "core.ac.uk", "paperswithcode.com",
	"researchgate.net", "jstor.org", "scholar.archive.org",
	// computing proceedings
	"dl.acm.org", "acm.org", "ieeexplore.ieee.org", "computer.org", "aclanthology.org", "aclweb.org",
	"papers.nips.cc", "proceedings.neurips.cc", "neurips.cc", "proceedings.mlr.press", "jmlr.org",
	"openaccess.thecvf.com", "thecvf.com", "ecva.net", "aaai.org", "ojs.aaai.org", "ijcai.org",
	"jair.org", "usenix.org", "vldb.org", "isca-speech.org", "iclr.cc", "icml.cc", "mlsys.org",
	"roboticsproceedings.org", "ceur-ws.org", "tmlr.org",
	// publishers
	"link.springer.com", "springer.com", "springeropen.com", "biomedcentral.com", "nature.com",
	"sciencedirect.com", "elsevier.com", "cell.com", "thelancet.com", "science.org", "sciencemag.org",
	"onlinelibrary.wiley.com", "wiley.com", "tandfonline.com", "mdpi.com", "frontiersin.org",
	"plos.org", "iopscience.iop.org", "iop.org", "aps.org", "pnas.org", "academic.oup.com",
	"cambridge.org", "sagepub.com", "hindawi.com", "peerj.com", "elifesciences.org", "bmj.com",
	"nejm.org", "jamanetwork.com", "annualreviews.org", "pubs.acs.org", "pubs.rsc.org",
	"pubs.aip.org", "aip.org", "epubs.siam.org", "ams.org", "degruyter.com", "emerald.com",
	"karger.com", "thieme-connect.com", "worldscientific.com", "inderscience.com", "igi-global.com",
	"opg.optica.org", "osapublishing.org", "spiedigitallibrary.org", "asmedigitalcollection.asme.org",
	"ascelibrary.org", "arc.aiaa.org", "journals.lww.com", "ahajournals.org", "atsjournals.org",
	"royalsocietypublishing.org", "jneurosci.org", "jbc.org", "embopress.org", "rupress.org",
	"genome.cshlp.org", "cshlp.org", "physiology.org", "journals.physiology.org", "ecologyandsociety.org",
	"copernicus.org", "agupubs.onlinelibrary.wiley.com", "journals.ametsoc.org", "iucr.org",
	"scielo.org", "cnki.net", "jmir.org", "dovepress.com", "oatext.com", "scirp.org", "aimspress.com",
}

// IsScholarlyHost reports whether host (as in a URL, any case, with or
// without "www." or a port) belongs to a site that publishes or indexes
// scholarly papers. researchgate.net, ncbi.nlm.nih.gov and huggingface.co
// also serve non-paper pages; IsScholarlyURL checks their paths.
func IsScholarlyHost(host string) bool {
	h := strings.ToLower(strings.TrimSpace(host))
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	h = strings.TrimPrefix(h, "www.")
	if h == "" {
		return false
	}
	for _, d := range scholarlyDomains {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

// IsScholarlyURL reports whether a URL points at a paper: it carries an arXiv
// id or a DOI, or it is on a scholarly host, where for mixed sites only paper
// pages count (researchgate.net/publication/…, huggingface.co/papers/…,
// ncbi.nlm.nih.gov/pmc/… and pubmed).
func IsScholarlyURL(raw string) bool {
	if ArXivID(raw) != "" || DOI(raw) != "" {
		return true
	}
	host, path, ok := canonicalHostPath(raw)
	if !ok {
		return false
	}
	switch {
	case host == "researchgate.net":
		return strings.HasPrefix(path, "/publication/")
	case host == "huggingface.co":
		return strings.HasPrefix(path, "/papers/")
	case host == "ncbi.nlm.nih.gov":
		return strings.HasPrefix(path, "/pmc/") || strings.HasPrefix(path, "/pubmed/")
	}
	return IsScholarlyHost(host)
}
