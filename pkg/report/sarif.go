package report

import "io"

// SARIF is one run of a SARIF 2.1.0 log: the findings of one command,
// each at its place, and the rules they break, each listed once.
type SARIF struct {
	// ToolVersion is kubectl-crd's version.
	ToolVersion string
	// KubernetesVersion is the version whose answers these are
	// (MAJOR.MINOR), in the run's properties.
	KubernetesVersion string
	// Notifications say what the run did not check, and why: each a
	// warning of the run's invocation (toolExecutionNotifications).
	Notifications []string

	rules   []sarifRule
	index   map[string]int
	results []sarifResult
}

// Levels of a SARIF result.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNote    = "note"
)

// Finding is one result: a rule broken at a place in a file.
type Finding struct {
	// RuleID names the rule; Rule describes it (the first description
	// given for an ID is kept).
	RuleID, Rule string
	Level        string
	Message      string
	File         string
	// Line and Column are 1-based; 0 (unknown) is written as 1.
	Line, Column int
	// Help and HelpURI, when set, say where the rule's rationale and
	// fix are (the first given for an ID is kept).
	Help, HelpURI string
}

// Add adds a finding, and its rule the first time it is met.
func (s *SARIF) Add(f Finding) {
	if s.index == nil {
		s.index = map[string]int{}
	}
	i, ok := s.index[f.RuleID]
	if !ok {
		i = len(s.rules)
		s.index[f.RuleID] = i
		rule := sarifRule{ID: f.RuleID, ShortDescription: sarifMessage{Text: f.Rule}, HelpURI: f.HelpURI}
		if f.Help != "" {
			rule.Help = &sarifMessage{Text: f.Help}
		}
		s.rules = append(s.rules, rule)
	}
	var loc sarifLocation
	loc.PhysicalLocation.ArtifactLocation.URI = f.File
	loc.PhysicalLocation.Region.StartLine = max(f.Line, 1)
	loc.PhysicalLocation.Region.StartColumn = max(f.Column, 1)
	s.results = append(s.results, sarifResult{RuleID: f.RuleID, RuleIndex: i, Level: f.Level,
		Message: sarifMessage{Text: f.Message}, Locations: []sarifLocation{loc}})
}

// Write writes the log.
func (s *SARIF) Write(w io.Writer) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: Tool, Version: s.ToolVersion, InformationURI: InformationURI,
			Rules: append([]sarifRule{}, s.rules...)}},
		Results:    append([]sarifResult{}, s.results...),
		Properties: map[string]string{"kubernetesVersion": s.KubernetesVersion},
	}
	if len(s.Notifications) > 0 {
		inv := sarifInvocation{ExecutionSuccessful: true}
		for _, n := range s.Notifications {
			inv.Notifications = append(inv.Notifications, sarifNotification{Level: LevelWarning, Message: sarifMessage{Text: n}})
		}
		run.Invocations = []sarifInvocation{inv}
	}
	return WriteJSON(w, sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]string `json:"properties"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string        `json:"id"`
	ShortDescription sarifMessage  `json:"shortDescription"`
	Help             *sarifMessage `json:"help,omitempty"`
	HelpURI          string        `json:"helpUri,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn"`
		} `json:"region"`
	} `json:"physicalLocation"`
}
