package judge

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// defaultCalibration is the output of `claimtrace judge calibrate` on the
// calibration half of the shared AttributionBench and WiCE labels; its Fit
// field records the command and the figures.
//
//go:embed calibration.json
var defaultCalibration []byte

// citingCalibration is the same command's fit on Citation-Integrity's
// train split alone: thresholds for biomedical citing sentences judged
// against a cited abstract, which score lower than web claims against
// their pages. A user chooses it with --calibration citing
// (TestCitingCalibrationReproduces keeps it the fit).
//
//go:embed calibration_citing.json
var citingCalibration []byte

// builtinCalibrations are the calibrations built into the program, by the
// name --calibration takes.
var builtinCalibrations = map[string][]byte{
	"default": defaultCalibration,
	"citing":  citingCalibration,
}

// CalibrationNames lists the built-in calibrations' names, sorted.
func CalibrationNames() []string { return slices.Sorted(maps.Keys(builtinCalibrations)) }

// OpenCalibration returns the built-in calibration of that name ("" is
// "default"), or else reads the calibration file at that path (write
// "./citing" for a file of a built-in's name).
func OpenCalibration(nameOrPath string) (Calibration, error) {
	if nameOrPath == "" {
		nameOrPath = "default"
	}
	if data, ok := builtinCalibrations[nameOrPath]; ok {
		c, err := ParseCalibration(data)
		if err != nil {
			return Calibration{}, fmt.Errorf("built-in calibration %q: %w", nameOrPath, err)
		}
		return c, nil
	}
	if _, err := os.Stat(nameOrPath); errors.Is(err, fs.ErrNotExist) {
		return Calibration{}, fmt.Errorf("calibration %q is neither built in (%s) nor a file: %w",
			nameOrPath, strings.Join(CalibrationNames(), ", "), claimtrace.ErrInvalid)
	}
	return LoadCalibration(nameOrPath)
}

// CalibrationVersion is the version of the calibration file format and of
// the feature definitions it was fitted against. A file of another version
// is rejected: its thresholds would mean something else.
const CalibrationVersion = 1

// Calibration holds the offline judge's weights and thresholds. Its values
// are fitted by Calibrate on labelled pairs, never set by hand.
type Calibration struct {
	Version int `json:"version"`
	// Supported and Partial are score thresholds: score ≥ Supported is
	// supported, score ≥ Partial is partial, anything lower unsupported.
	Supported float64 `json:"supported"`
	Partial   float64 `json:"partial"`
	// Contradiction is the least claim-word coverage of the sentence aligned
	// with the claim at which a contradiction cue there (a conflicting
	// number, a negation mismatch, a reversed direction word, a substituted
	// name) turns the verdict into contradicted. Above 1 disables it.
	Contradiction float64 `json:"contradiction"`
	// Window is the number of sentences in a passage window (see
	// passage.Options.Window).
	Window int `json:"window"`
	// Weights of the score's parts.
	Weights Weights `json:"weights"`
	// NumberPenalty scales the score down by this share of the claim's
	// numbers that the passage lacks (all missing: ×(1-NumberPenalty)).
	NumberPenalty float64 `json:"number_penalty"`
	// NegationPenalty scales the score by (1-NegationPenalty) when the
	// sentence aligned with the claim carries a negation, direction or name
	// cue (below the contradiction threshold, or with it disabled).
	NegationPenalty float64 `json:"negation_penalty"`
	// PartialIsSupported maps partial to supported (rather than to
	// unsupported) when a binary label set is scored, e.g. AttributionBench's
	// attributable / not attributable.
	PartialIsSupported bool `json:"partial_is_supported"`
	// MinSourceTerms is the fewest distinct content words a source must have
	// to be judged at all; a smaller source (empty page, stub) is unknown.
	MinSourceTerms int `json:"min_source_terms"`
	// Fit records how the values were obtained.
	Fit *Fit `json:"fit,omitempty"`
}

// Weights combine the passage features into a score in [0, 1]: a weighted
// mean of claim-word coverage, bigram coverage and entity coverage in the
// best passage (parts the claim lacks drop out), mixed with coverage over
// the whole source by Document.
type Weights struct {
	Coverage float64 `json:"coverage"`
	Bigram   float64 `json:"bigram"`
	Entity   float64 `json:"entity"`
	Document float64 `json:"document"`
}

// Fit is the provenance of a calibration: what it was fitted on and how
// well it did there.
type Fit struct {
	// Command is the command line that produced the file.
	Command string `json:"command,omitempty"`
	// Labels are the label files fitted on, Split of each.
	Labels []string `json:"labels,omitempty"`
	// Whole are label files fitted on whole (a set's own train split).
	Whole []string `json:"whole,omitempty"`
	// ContradictionLabels are label files read whole that chose only the
	// contradiction threshold (CalibrateOptions.ContradictionOnly).
	ContradictionLabels []string `json:"contradiction_labels,omitempty"`
	// Split is the half of each dataset fitted on (labels.Split).
	Split string `json:"split"`
	// Metric is the metric maximized, averaged over datasets.
	Metric string `json:"metric"`
	// Objective is that average on the fitted pairs (in-sample).
	Objective float64 `json:"objective"`
	// Pairs counts the fitted pairs per dataset.
	Pairs map[string]int `json:"pairs"`
	// Scores is the metric per dataset on the fitted pairs (in-sample).
	Scores map[string]float64 `json:"scores"`
	// Grid is the number of parameter combinations tried.
	Grid int `json:"grid"`
	// Contradicted records how the contradiction threshold was chosen.
	Contradicted *ContradictedFit `json:"contradicted,omitempty"`
}

// ContradictedFit is the precision of contradicted at the fitted
// contradiction threshold on the fitted pairs: Correct of Predicted
// pairs, where correct means gold contradicted (or unsupported where a
// dataset does not separate the two), at least MinPrecision.
type ContradictedFit struct {
	MinPrecision float64 `json:"min_precision"`
	// MinPredicted is the least number of pairs the threshold must be
	// said of to be chosen.
	MinPredicted int `json:"min_predicted,omitempty"`
	Predicted    int `json:"predicted"`
	Correct      int `json:"correct"`
	// CI is the 95% Wilson interval of Correct/Predicted.
	CI *[2]float64 `json:"ci,omitempty"`
	// Datasets are the same counts per dataset: the threshold must reach
	// MinPrecision in each where it is said at least five times.
	Datasets map[string]ContradictedCount `json:"datasets,omitempty"`
}

// ContradictedCount is how often contradicted is said of a dataset's
// calibration pairs at the chosen threshold, how often it is right, and
// the 95% Wilson interval of that precision.
type ContradictedCount struct {
	Predicted int        `json:"predicted"`
	Correct   int        `json:"correct"`
	CI        [2]float64 `json:"ci"`
}

// DefaultCalibration returns the calibration shipped with the program. The
// error can only come from a corrupt build (the package tests parse it).
func DefaultCalibration() (Calibration, error) {
	c, err := ParseCalibration(defaultCalibration)
	if err != nil {
		return Calibration{}, fmt.Errorf("embedded calibration.json: %w", err)
	}
	return c, nil
}

// ParseCalibration decodes and validates a calibration file.
func ParseCalibration(data []byte) (Calibration, error) {
	var c Calibration
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Calibration{}, fmt.Errorf("decode calibration: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Calibration{}, err
	}
	return c, nil
}

// maxCalibrationBytes bounds a calibration file: one is a few kilobytes.
const maxCalibrationBytes = 1 << 20

// LoadCalibration reads a calibration file written by `judge calibrate`.
func LoadCalibration(path string) (Calibration, error) {
	data, err := inputfile.ReadFile(path, maxCalibrationBytes)
	if err != nil {
		return Calibration{}, fmt.Errorf("calibration: %w", err)
	}
	c, err := ParseCalibration(data)
	if err != nil {
		return Calibration{}, fmt.Errorf("calibration %s: %w", path, err)
	}
	return c, nil
}

// Validate checks that the values are usable.
func (c Calibration) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("calibration: "+format+": %w", append(args, claimtrace.ErrInvalid)...)
	}
	switch {
	case c.Version != CalibrationVersion:
		return bad("version %d, want %d (refit with judge calibrate)", c.Version, CalibrationVersion)
	case !unit(c.Supported) || !unit(c.Partial):
		return bad("thresholds supported=%g partial=%g outside [0,1]", c.Supported, c.Partial)
	case c.Partial > c.Supported:
		return bad("partial threshold %g above supported threshold %g", c.Partial, c.Supported)
	case c.Contradiction < 0:
		return bad("contradiction threshold %g below 0", c.Contradiction)
	case !unit(c.NumberPenalty) || !unit(c.NegationPenalty):
		return bad("penalties number=%g negation=%g outside [0,1]", c.NumberPenalty, c.NegationPenalty)
	case c.Weights.Coverage < 0 || c.Weights.Bigram < 0 || c.Weights.Entity < 0:
		return bad("negative weight in %+v", c.Weights)
	case c.Weights.Coverage+c.Weights.Bigram+c.Weights.Entity == 0:
		return bad("coverage, bigram and entity weights are all zero")
	case !unit(c.Weights.Document):
		return bad("document weight %g outside [0,1]", c.Weights.Document)
	case c.Window < 1 || c.Window > 20:
		return bad("window %d outside 1…20 sentences", c.Window)
	case c.MinSourceTerms < 0:
		return bad("min_source_terms %d below 0", c.MinSourceTerms)
	}
	return nil
}

// Marshal encodes the calibration as indented JSON with a final newline.
func (c Calibration) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode calibration: %w", err)
	}
	return append(b, '\n'), nil
}

func unit(x float64) bool { return x >= 0 && x <= 1 }
