package validate

import "sync"

// inOrder collects results by chunk and passes them on in input order.
type inOrder struct {
	emit func(ObjectResult)

	mu      sync.Mutex
	pending map[int][]ObjectResult // by chunk, until passed on
	next    int
	kept    []ObjectResult // without emit
	summary Summary
}

// done records the results of chunk i, and passes on every result whose
// turn has come.
func (o *inOrder) done(i int, results []ObjectResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending[i] = results
	for {
		results, ok := o.pending[o.next]
		if !ok {
			return
		}
		delete(o.pending, o.next)
		o.next++
		for _, res := range results {
			o.summary.count(res.Status)
			if o.emit != nil {
				o.emit(res)
			} else {
				o.kept = append(o.kept, res)
			}
		}
	}
}

func (o *inOrder) report() Report {
	return Report{Results: o.kept, Summary: o.summary}
}

func (s *Summary) count(status Status) {
	switch status {
	case Valid:
		s.Valid++
	case Invalid:
		s.Invalid++
	case Skipped:
		s.Skipped++
	default:
		s.Errors++
	}
}
