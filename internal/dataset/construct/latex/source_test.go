package latex_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/latex"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// writeTree creates files (slash paths → content) under a new temp dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindMain(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"single", map[string]string{"paper.tex": `\documentclass{article}\begin{document}x\end{document}`, "intro.tex": "intro"}, "paper.tex"},
		{"commented documentclass does not count", map[string]string{
			"a.tex": "% \\documentclass{article}\n\\section{A}",
			"b.tex": "\\documentclass{article}\n\\begin{document}\\end{document}",
		}, "b.tex"},
		{"included file with its own documentclass loses", map[string]string{
			"main.tex":     "\\documentclass{article}\\begin{document}\\input{sec/part}\\end{document}",
			"sec/part.tex": "\\documentclass[../main.tex]{subfiles}\\begin{document}x\\end{document}",
		}, "main.tex"},
		{"standalone figure loses", map[string]string{
			"fig.tex": "\\documentclass{standalone}\\begin{document}\\begin{tikzpicture}\\end{tikzpicture}\\end{document}",
			"zzz.tex": "\\documentclass{article}\\begin{document}\\bibliography{r}\\end{document}",
		}, "zzz.tex"},
		{"bibliography breaks a tie", map[string]string{
			"old.tex": "\\documentclass{article}\\begin{document}draft with more text in it\\end{document}",
			"new.tex": "\\documentclass{article}\\begin{document}\\bibliography{refs}\\end{document}",
		}, "new.tex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := latex.OpenTree(writeTree(t, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			got, err := tree.FindMain()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("FindMain = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFindMainNone(t *testing.T) {
	tree, err := latex.OpenTree(writeTree(t, map[string]string{"notes.tex": "no class", "x.bib": "@misc{a}"}))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	_, err = tree.FindMain()
	if !errors.Is(err, latex.ErrNoMain) || !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("FindMain = %v, want ErrNoMain", err)
	}
}

func TestExpand(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"main.tex": `\documentclass{article}
\begin{document}
\input{sections/intro}   % without .tex
\include{sections/method.tex}
\input sections/plain
\subfile{sections/sub}
\import{parts/}{deep}
\input{missing}
\input{../outside}
\input{/etc/passwd}
\input{main}
\end{document}`,
		"sections/intro.tex":  "INTRO \\cite{a} % \\cite{commented}",
		"sections/method.tex": "METHOD \\input{sections/nested}",
		"sections/nested.tex": "NESTED \\endinput\nAFTER-ENDINPUT",
		"sections/plain.tex":  "PLAIN",
		"sections/sub.tex":    "SUB",
		"parts/deep.tex":      "DEEP \\input{parts/loop}",
		"parts/loop.tex":      "LOOP \\input{parts/deep}",
		"unused.tex":          "UNUSED \\cite{never}",
	})
	outside := filepath.Join(filepath.Dir(dir), "outside.tex")
	if err := os.WriteFile(outside, []byte("OUTSIDE"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(outside)
	tree, err := latex.OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	doc, err := tree.Expand("main.tex")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"INTRO", "METHOD", "NESTED", "PLAIN", "SUB", "DEEP", "LOOP"} {
		if !strings.Contains(doc.Text, want) {
			t.Errorf("expanded text lacks %s", want)
		}
	}
	for _, bad := range []string{"AFTER-ENDINPUT", "OUTSIDE", "UNUSED", "commented", "root:"} {
		if strings.Contains(doc.Text, bad) {
			t.Errorf("expanded text holds %q", bad)
		}
	}
	if n := strings.Count(doc.Text, "DEEP"); n != 1 {
		t.Errorf("cyclic inclusion expanded %d times", n)
	}
	wantFiles := []string{"main.tex", "sections/intro.tex", "sections/method.tex", "sections/nested.tex",
		"sections/plain.tex", "sections/sub.tex", "parts/deep.tex", "parts/loop.tex"}
	if diff := cmp.Diff(wantFiles, doc.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantMissing := []string{"parts/deep", "missing", "../outside", "/etc/passwd", "main"}
	if diff := cmp.Diff(wantMissing, doc.Missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	if got := latex.CitedKeys(doc.Text); !cmp.Equal(got, []string{"a"}) {
		t.Errorf("cited keys = %v, want [a]", got)
	}
}

func TestExpandRefusesSymlinkOut(t *testing.T) {
	dir := writeTree(t, map[string]string{"main.tex": "\\documentclass{article}\\input{link}\\input{inner}"})
	secret := filepath.Join(t.TempDir(), "secret.tex")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.tex")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink("main.tex", filepath.Join(dir, "inner.tex")); err != nil {
		t.Fatal(err)
	}
	tree, err := latex.OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	doc, err := tree.Expand("main.tex")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Text, "SECRET") {
		t.Fatal("expansion followed a symbolic link out of the tree")
	}
	if _, err := tree.ReadFile("link.tex"); err == nil {
		t.Error("ReadFile of a symbolic link should fail")
	}
}

// TestSharedSources counts the keys cited by the two real surveys. The
// counts were checked independently with a short Python script (regex
// cite extraction after %-stripping and \input expansion): 152 keys over
// 27 files, and 203 keys over 15 files (the .bbl also has 203 items).
func TestSharedSources(t *testing.T) {
	root := sharedtest.Dir(t, "latex")
	for _, tt := range []struct {
		dir, main string
		files     int
		keys      int
		bib       []string
	}{
		{"algorithmic-assurances-survey", "main_acm.tex", 27, 152, []string{"References.bib"}},
		{"vla-attack-survey", "main.tex", 15, 203, []string{"main.bib"}},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			tree, err := latex.OpenTree(filepath.Join(root, tt.dir))
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			main, err := tree.FindMain()
			if err != nil || main != tt.main {
				t.Fatalf("FindMain = %q, %v; want %q", main, err, tt.main)
			}
			doc, err := tree.Expand(main)
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Files) != tt.files || len(doc.Missing) != 0 {
				t.Errorf("read %d files (missing %v), want %d", len(doc.Files), doc.Missing, tt.files)
			}
			if keys := latex.CitedKeys(doc.Text); len(keys) != tt.keys {
				t.Errorf("%d cited keys, want %d", len(keys), tt.keys)
			}
			if bib := latex.BibResources(doc.Text, doc.Jobname()); !cmp.Equal(bib, tt.bib) {
				t.Errorf("BibResources = %v, want %v", bib, tt.bib)
			}
		})
	}
}

// TestSharedBBL reads the .bbl of the VLA survey and checks its titles
// against the .bib it was made from.
func TestSharedBBL(t *testing.T) {
	root := sharedtest.Dir(t, "latex/vla-attack-survey")
	bbl, err := os.ReadFile(filepath.Join(root, "main.bbl"))
	if err != nil {
		t.Fatal(err)
	}
	items := latex.BibItems(string(bbl))
	if len(items) != 203 {
		t.Fatalf("%d items, want 203", len(items))
	}
	bib, err := os.ReadFile(filepath.Join(root, "main.bib"))
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string {
		return strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer("{", "", "}", "", ",", "", ".", "", ":", "").Replace(s))), " ")
	}
	titles := map[string]string{}
	for _, block := range strings.Split(string(bib), "\n@")[1:] {
		key := strings.TrimSpace(block[strings.Index(block, "{")+1 : strings.Index(block, ",")])
		if i := strings.Index(block, "title"); i >= 0 {
			rest := block[i:]
			open := strings.Index(rest, "{")
			line := rest[open+1:]
			line = line[:strings.Index(line, "},")]
			titles[key] = norm(latex.ToUnicode(line))
		}
	}
	same := 0
	for _, it := range items {
		if titles[it.Key] == norm(it.Title) {
			same++
		}
	}
	if same < 195 {
		t.Errorf("%d of 203 .bbl titles match the .bib, want at least 195", same)
	}
	t.Logf("%d of %d .bbl titles match the .bib", same, len(items))
}
