package lsp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"go.lsp.dev/protocol"
)

// diagnoser checks the open documents that changed, one at a time, on a
// goroutine of its own; a document edited while it is checked is checked
// again afterwards, once, with its latest text.
type diagnoser struct {
	s       *Server
	mu      sync.Mutex
	pending map[protocol.DocumentURI]bool
	order   []protocol.DocumentURI
	wake    chan struct{}
	// told: the environment's error the user was told of, once.
	told string
}

func newDiagnoser(s *Server) *diagnoser {
	return &diagnoser{s: s, pending: map[protocol.DocumentURI]bool{}, wake: make(chan struct{}, 1)}
}

// want asks for a check of uri.
func (d *diagnoser) want(uri protocol.DocumentURI) {
	d.mu.Lock()
	if !d.pending[uri] {
		d.pending[uri] = true
		d.order = append(d.order, uri)
	}
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// all asks for a check of every open document.
func (d *diagnoser) all() {
	d.s.mu.Lock()
	uris := make([]protocol.DocumentURI, 0, len(d.s.docs))
	for u := range d.s.docs {
		uris = append(uris, u)
	}
	d.s.mu.Unlock()
	sort.Slice(uris, func(i, j int) bool { return uris[i] < uris[j] })
	for _, u := range uris {
		d.want(u)
	}
}

// forget drops a pending check (the document was closed).
func (d *diagnoser) forget(uri protocol.DocumentURI) {
	d.mu.Lock()
	delete(d.pending, uri)
	d.mu.Unlock()
}

func (d *diagnoser) next() (protocol.DocumentURI, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.order) > 0 {
		u := d.order[0]
		d.order = d.order[1:]
		if d.pending[u] {
			delete(d.pending, u)
			return u, true
		}
	}
	return "", false
}

// staleEvery is how often the CRD files are compared with the disk
// while nothing else happens.
const staleEvery = 2 * time.Second

func (d *diagnoser) run(ctx context.Context) {
	tick := time.NewTicker(staleEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-tick.C:
			// A CRD file changed on disk: every open document is checked
			// again (with the CRDs read again).
			if d.s.crdFilesChanged() {
				d.all()
			}
			continue
		}
		for {
			uri, ok := d.next()
			if !ok {
				break
			}
			d.check(ctx, uri)
		}
	}
}

// check checks one document and publishes its diagnostics. A panic in the
// checks is logged and published as one diagnostic: the server goes on.
func (d *diagnoser) check(ctx context.Context, uri protocol.DocumentURI) {
	doc := d.s.doc(uri)
	if doc == nil {
		return
	}
	d.s.status(Status{State: "checking"})
	var diags []protocol.Diagnostic
	func() {
		defer func() {
			if p := recover(); p != nil {
				d.s.log.Printf("panic checking %s: %v", uri, p)
				diags = []protocol.Diagnostic{{Severity: protocol.DiagnosticSeverityError, Source: source,
					Message: fmt.Sprintf("kubectl crd could not check this file: %v", p)}}
			}
		}()
		diags = d.diagnostics(ctx, doc)
	}()
	d.s.status(d.s.checked(d.told))
	if d.s.doc(uri) == nil {
		return // closed meanwhile
	}
	d.s.notify(protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
		URI: uri, Version: uint32(max(doc.version, 0)), Diagnostics: diags})
}

// source names the server in diagnostics.
const source = "kubectl-crd"

// MaxEditorFile is the largest file checked in the editor, the whole
// file (manifest.MaxDocument, twice as large, is the largest document
// read from a file on disk); a larger one gets one diagnostic (kubectl
// crd validate reads it, a document at a time).
const MaxEditorFile = 32 << 20

// diagnostics are validate's findings on the document's text, each on the
// range of its field.
func (d *diagnoser) diagnostics(ctx context.Context, doc *document) []protocol.Diagnostic {
	if len(doc.text) > MaxEditorFile {
		return []protocol.Diagnostic{{Severity: protocol.DiagnosticSeverityError, Source: source,
			Message: fmt.Sprintf("the file is %d bytes: kubectl crd checks files of up to %d bytes in the editor (kubectl crd validate reads it)", len(doc.text), MaxEditorFile)}}
	}
	if strings.IndexByte(doc.text, 0) >= 0 {
		return []protocol.Diagnostic{{Severity: protocol.DiagnosticSeverityError, Source: source,
			Message: "the file holds NUL bytes: it is not YAML or JSON text"}}
	}
	env, err := d.s.environment()
	if err != nil {
		return d.unchecked(err)
	}
	text := []byte(doc.text)
	p, err := validate.NewPipeline(env.Catalog, manifest.InputOf(doc.path, text))
	if err != nil {
		return []protocol.Diagnostic{{Severity: protocol.DiagnosticSeverityError, Source: source, Message: err.Error()}}
	}
	crds := p.CRDs()
	cache := env.cache
	if len(crds) > 0 {
		cache = d.s.documentCache(doc, crds)
	}
	var results []validate.ObjectResult
	opts := env.Options
	opts.Cache, opts.Found = cache, env.remember
	opts.Emit = func(r validate.ObjectResult) { results = append(results, r) }
	_, err = p.Check(ctx, opts)
	cache.ForgetFailed() // a cluster that did not answer is asked again next time
	if err != nil {
		return d.unchecked(err)
	}
	d.told = ""
	diags := toDiagnostics(doc.textLines(), results)
	if len(crds) > 0 {
		settings := d.s.current()
		ests := estimates(p.InputCRDs())
		diags = append(diags, costDiagnostics(doc.textLines(), ruleCosts(p.InputCRDs(), ests), settings.CostWarning)...)
		diags = append(diags, lintDiagnostics(doc.textLines(), p.InputCRDs(), ests, settings.Lint)...)
	}
	return diags
}

// unchecked is what a document gets when it cannot be checked (the
// cluster cannot be asked, say): one diagnostic, and the user is told the
// cause in a message once, not for each file.
func (d *diagnoser) unchecked(err error) []protocol.Diagnostic {
	msg := "kubectl crd cannot check this file: " + err.Error()
	cause := err // validate names the file and the kind around the cause
	var lookup *validate.LookupError
	if errors.As(err, &lookup) {
		cause = lookup.Err
	}
	if d.told != cause.Error() {
		d.told = cause.Error()
		d.s.showMessage(protocol.MessageTypeWarning, "kubectl crd cannot check files: "+cause.Error())
	}
	return []protocol.Diagnostic{{Severity: protocol.DiagnosticSeverityWarning, Source: source, Message: msg,
		Range: protocol.Range{End: protocol.Position{Line: 0, Character: 0}}}}
}

// aboutKey tells whether a problem of type typ is about a key, not its
// value: a field that is not known, or not there.
func aboutKey(typ string) bool {
	switch typ {
	case "FieldValueUnknown", "FieldValueRequired", "FieldValueNotFound", "FieldValueForbidden":
		return true
	}
	return false
}

// toDiagnostics turns validate's results on a text into diagnostics:
// errors and warnings as validate reports them, the server's cause type
// as the code, the message as validate's text output writes it.
func toDiagnostics(lines []string, results []validate.ObjectResult) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	add := func(sev protocol.DiagnosticSeverity, code string, line, column int, field, msg string) {
		if field != "" {
			msg = field + ": " + msg
		}
		diag := protocol.Diagnostic{Severity: sev, Source: source, Message: msg, Range: rangeOf(lines, line, column, field, code)}
		if code != "" {
			diag.Code = code
		}
		out = append(out, diag)
	}
	for _, r := range results {
		switch {
		case r.Status == validate.Skipped:
			add(protocol.DiagnosticSeverityInformation, "Skipped", r.Line, 0, "", "not checked: "+r.Reason)
		case r.Status == validate.Errored && len(r.Errors) == 0:
			add(protocol.DiagnosticSeverityError, "Error", r.Line, 0, "", "error: "+r.Reason)
		}
		for _, p := range r.Errors {
			line := p.Line
			if line == 0 {
				line = r.Line
			}
			add(protocol.DiagnosticSeverityError, p.Type, line, p.Column, p.Field, p.Message)
		}
		for _, p := range r.Warnings {
			line := p.Line
			if line == 0 {
				line = r.Line
			}
			add(protocol.DiagnosticSeverityWarning, p.Type, line, p.Column, p.Field, p.Message)
		}
	}
	return out
}

// rangeOf is the range of a problem at line:column (1-based, in
// characters; column 0: the whole line): the key of a field that is
// unknown or missing (or when the line holds an ancestor of the field),
// the value otherwise.
func rangeOf(lines []string, line, column int, field, typ string) protocol.Range {
	row := line - 1
	if row < 0 || row >= len(lines) {
		return protocol.Range{}
	}
	s := lines[row]
	var start, end int
	if column <= 0 {
		start = len(s) - len(strings.TrimLeft(s, " \t"))
		end = len(strings.TrimRight(s, " \t\r"))
	} else {
		b := runeToByte(s, column)
		value := !aboutKey(typ)
		if key, _, ok := cutKey(s[b:]); ok && field != "" && !lastStepIs(field, key) {
			value = false // the line holds an ancestor of the field
		}
		start, end = tokenRange(s, b, value)
	}
	return protocol.Range{
		Start: protocol.Position{Line: uint32(row), Character: uint32(utf16Column(s, start))},
		End:   protocol.Position{Line: uint32(row), Character: uint32(utf16Column(s, end))},
	}
}

// lastStepIs tells whether a field path ("spec.ports[0].name",
// "metadata.labels[app]", "spec.limits.example.com/gpu") ends with key.
func lastStepIs(field, key string) bool {
	return field == key || strings.HasSuffix(field, "."+key) || strings.HasSuffix(field, "["+key+"]")
}
