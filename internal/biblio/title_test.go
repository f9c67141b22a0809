package biblio

import "testing"

func TestNormalizeTitle(t *testing.T) {
	tests := map[string]string{
		"Attention Is All You Need":                                               "attention is all you need",
		"  BERT:   Pre-training of Deep\tBidirectional Transformers ":             "bert pre training of deep bidirectional transformers",
		"Learning Phrase Representations using RNN Encoder--Decoder":              "learning phrase representations using rnn encoder decoder",
		"The SMART Retrieval System---Experiments":                                "the smart retrieval system experiments",
		"Transformers—A Survey":                                                   "transformers a survey",
		"“Why Should I Trust You?”: Explaining the Predictions":                   "why should i trust you explaining the predictions",
		"Alzheimer's disease":                                                     "alzheimers disease",
		"Alzheimer’s disease":                                                     "alzheimers disease",
		"Adversarial attacks on neural networks (Zügner)":                         "adversarial attacks on neural networks zugner",
		"Z{\\\"u}gner and G{\\\"u}nnemann":                                        "zugner and gunnemann",
		"\\'Etude de la r\\'egion":                                                "etude de la region",
		"Fran\\c{c}ois \\v{S}ediv\\'y":                                            "francois sedivy",
		"Łukasz and Søren and straße":                                             "lukasz and soren and strasse",
		"\\emph{Deep} \\textbf{Learning}":                                         "deep learning",
		"{G}{S}hard":                                                              "gshard",
		"\\GS\\hard: Scaling Giant Models":                                        "gshard scaling giant models",
		"Post-\\OCR\\ parsing via \\BIO\\ tagging":                                "post ocr parsing via bio tagging",
		"$\\$TESSERACT$\\$: Eliminating experimental bias":                        "tesseract eliminating experimental bias",
		"\\textCIS2: A Simplified Commonsense Inference":                          "cis2 a simplified commonsense inference",
		"Understanding Dataset Difficulty with $\\mathcalV$-Usable":               "understanding dataset difficulty with v usable",
		"$\\alpha$-blending and $\\beta$-VAE":                                     "α blending and β vae",
		"α-blending":                                                              "α blending",
		"Learning Sparse Neural Networks through L$_0$ Regularization":            "learning sparse neural networks through l 0 regularization",
		"Syrian hackers claim AP hack that tipped stock market by \\$136 billion": "syrian hackers claim ap hack that tipped stock market by 136 billion",
		"ＦＵＬＬＷＩＤＴＨ Ｔｉｔｌｅ２":                                                        "fullwidth title2",
		"Fine-tuning ﬁne ﬂow":                                                     "fine tuning fine flow",
		"中文标题：基于大模型的研究":                                                           "中文标题 基于大模型的研究",
		"":     "",
		"—…!?": "",
	}
	for in, want := range tests {
		if got := NormalizeTitle(in); got != want {
			t.Errorf("NormalizeTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTitleKeyEquivalences(t *testing.T) {
	groups := [][]string{
		{"Multi-Agent Systems", "Multi Agent Systems", "multiagent systems", "MULTI‐AGENT SYSTEMS", "Multi--Agent Systems"},
		{"SqueezeNet: AlexNet-level accuracy with 50x fewer parameters and <0.5MB model size", "SqueezeNet: AlexNet-level accuracy with 50x fewer parameters and 0.5 MB model size"},
		{"An investigation of the (in)effectiveness of counterfactually augmented data", "An Investigation of the In-Effectiveness of Counterfactually Augmented Data"},
		{"Learning Sparse Neural Networks through L$_0$ Regularization", "Learning Sparse Neural Networks through L0 Regularization", "Learning sparse neural networks through L_0 regularization"},
		{"Zügner", "Zugner", "Z{\\\"u}gner"},
	}
	for _, g := range groups {
		want := TitleKey(g[0])
		for _, s := range g[1:] {
			if got := TitleKey(s); got != want {
				t.Errorf("TitleKey(%q) = %q, want %q (as for %q)", s, got, want, g[0])
			}
		}
	}
	distinct := [][2]string{
		{"Qwen2 Technical Report", "Qwen2.5 Technical Report"},
		{"Vitamin C", "Vitamin D"},
		{"Part I", "Part II"},
	}
	for _, p := range distinct {
		if TitleKey(p[0]) == TitleKey(p[1]) {
			t.Errorf("TitleKey(%q) == TitleKey(%q)", p[0], p[1])
		}
	}
}
