package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// geminiResponse is the part of a generateContent response (REST JSON,
// camelCase as in go-genai's types) that carries grounding.
type geminiResponse struct {
	ModelVersion string `json:"modelVersion"`
	Candidates   []struct {
		Content struct {
			Parts []struct {
				Text    string `json:"text"`
				Thought bool   `json:"thought"`
			} `json:"parts"`
		} `json:"content"`
		GroundingMetadata *struct {
			GroundingChunks []struct {
				Web *struct {
					URI   string `json:"uri"`
					Title string `json:"title"`
				} `json:"web"`
				RetrievedContext *struct {
					URI          string `json:"uri"`
					Title        string `json:"title"`
					Text         string `json:"text"`
					DocumentName string `json:"documentName"`
				} `json:"retrievedContext"`
			} `json:"groundingChunks"`
			GroundingSupports []struct {
				Segment *struct {
					PartIndex  int    `json:"partIndex"`
					StartIndex int    `json:"startIndex"`
					EndIndex   int    `json:"endIndex"`
					Text       string `json:"text"`
				} `json:"segment"`
				GroundingChunkIndices []int     `json:"groundingChunkIndices"`
				ConfidenceScores      []float64 `json:"confidenceScores"`
			} `json:"groundingSupports"`
		} `json:"groundingMetadata"`
	} `json:"candidates"`
}

// Gemini reads a Gemini generateContent response grounded with Google
// Search or retrieval. Each groundingSupport's segment is a claim: its
// offsets are UTF-8 bytes into the part partIndex (both absent when 0). The
// offsets are checked against segment.text, which is searched for when they
// disagree. Each chunk index is a source: web chunks give a URI (often a
// Google redirect) and title, retrievedContext chunks also give an excerpt;
// confidenceScores[j] becomes the strength of the supports edge from chunk
// groundingChunkIndices[j].
func Gemini(data []byte) (*Result, error) {
	var resp geminiResponse
	if err := decode("gemini", data, &resp); err != nil {
		return nil, err
	}
	if len(resp.Candidates) == 0 {
		return nil, fmt.Errorf("gemini response: no candidates: %w", claimtrace.ErrInvalid)
	}
	cand := resp.Candidates[0]
	var text strings.Builder
	var partStart []int
	for _, p := range cand.Content.Parts {
		partStart = append(partStart, text.Len())
		if !p.Thought {
			text.WriteString(p.Text)
		}
	}
	partStart = append(partStart, text.Len())
	a := &assembler{provider: "gemini", model: resp.ModelVersion, text: text.String()}
	gm := cand.GroundingMetadata
	if gm == nil {
		return a.result()
	}
	for k, sup := range gm.GroundingSupports {
		if sup.Segment == nil {
			continue
		}
		seg := sup.Segment
		if seg.PartIndex < 0 || seg.PartIndex >= len(partStart)-1 {
			return nil, fmt.Errorf("gemini: grounding support %d: part %d of %d: %w", k, seg.PartIndex, len(partStart)-1, claimtrace.ErrInvalid)
		}
		part := a.text[partStart[seg.PartIndex]:partStart[seg.PartIndex+1]]
		s, e, ok := locateSegment(part, seg.StartIndex, seg.EndIndex, seg.Text)
		if !ok {
			return nil, fmt.Errorf("gemini: grounding support %d: segment [%d, %d) %q not in part %d (%d bytes): %w",
				k, seg.StartIndex, seg.EndIndex, seg.Text, seg.PartIndex, len(part), claimtrace.ErrInvalid)
		}
		s, e = trimSpan(part, s, e)
		if s >= e {
			continue
		}
		s += partStart[seg.PartIndex]
		e += partStart[seg.PartIndex]
		scores := sup.ConfidenceScores
		if len(scores) != len(sup.GroundingChunkIndices) {
			scores = nil // unpaired scores say nothing about a given chunk
		}
		for j, ci := range sup.GroundingChunkIndices {
			if ci < 0 || ci >= len(gm.GroundingChunks) {
				return nil, fmt.Errorf("gemini: grounding support %d: chunk %d of %d: %w", k, ci, len(gm.GroundingChunks), claimtrace.ErrInvalid)
			}
			ch := gm.GroundingChunks[ci]
			c := cite{claimStart: s, claimEnd: e, markStart: e, markEnd: e, kind: claimtrace.KindGrounding,
				key: "gemini-chunk:" + strconv.Itoa(ci)}
			switch {
			case ch.Web != nil:
				c.url, c.title = ch.Web.URI, ch.Web.Title
			case ch.RetrievedContext != nil:
				rc := ch.RetrievedContext
				c.url, c.title, c.excerpt = rc.URI, rc.Title, rc.Text
				if c.url == "" && rc.DocumentName != "" {
					c.key = "document:" + rc.DocumentName
				}
			}
			if scores != nil {
				v := scores[j]
				if math.IsNaN(v) || v < 0 || v > 1 {
					return nil, fmt.Errorf("gemini: grounding support %d: confidence %v outside [0, 1]: %w", k, v, claimtrace.ErrInvalid)
				}
				c.strength = &v
			}
			a.cites = append(a.cites, c)
		}
	}
	return a.result()
}

// locateSegment checks a segment's byte offsets against its text. When they
// disagree (or are out of range) it looks for the text in the part, taking
// the occurrence nearest the given start.
func locateSegment(part string, start, end int, text string) (int, int, bool) {
	inRange := start >= 0 && start <= end && end <= len(part)
	if inRange && (text == "" || part[start:end] == text) {
		return start, end, true
	}
	if text == "" {
		return 0, 0, false
	}
	best := -1
	for off := 0; off <= len(part); {
		i := strings.Index(part[off:], text)
		if i < 0 {
			break
		}
		i += off
		if best < 0 || abs(i-start) < abs(best-start) {
			best = i
		}
		off = i + 1
	}
	if best < 0 {
		return 0, 0, false
	}
	return best, best + len(text), true
}
