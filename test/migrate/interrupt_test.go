package migrate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/migrate"
)

// TestMigrateInterrupted interrupts a migration halfway, with SIGINT and
// with SIGTERM: writes are slowed down by the test cluster's front, the
// signal is sent once 40 objects were written. migrate must send no new
// write after it (those in flight finish), leave storedVersions as it
// was, say how far it got and that running it again finishes, and exit
// with 128 + the signal. Run again, it finishes: etcd then holds every
// object once, at the storage version, and storedVersions is pruned.
func TestMigrateInterrupted(t *testing.T) {
	for _, c := range []struct {
		sig    syscall.Signal
		output string
	}{{syscall.SIGINT, "json"}, {syscall.SIGTERM, "text"}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			group := fmt.Sprintf("interrupted-%d.example.com", c.sig)
			f := newFixture(t, group, nil)
			const objects = 200
			f.create(f.old, "v1alpha1", 0, objects, size)
			f.storeAtV1()

			var mu sync.Mutex
			var puts int
			var signalled time.Time
			var late []string // writes that arrived well after the signal
			sent := make(chan struct{})
			testCluster.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodPut || !strings.Contains(r.URL.Path, "/apis/"+group+"/") {
					return false
				}
				mu.Lock()
				puts++
				if puts == 40 {
					close(sent)
				}
				if !signalled.IsZero() && time.Since(signalled) > time.Second {
					late = append(late, r.URL.Path)
				}
				mu.Unlock()
				time.Sleep(25 * time.Millisecond)
				return false
			})
			defer testCluster.SetHook(nil)

			args := []string{"migrate", "things." + group, "--concurrency", "4", "--chunk-size", "50"}
			if c.output == "json" {
				args = append(args, "-o", "json")
			}
			run := bin.Start(t, "kubectl-crd", nil, args...)
			select {
			case <-sent:
			case <-time.After(time.Minute):
				t.Fatal("migrate did not write 40 objects in a minute")
			}
			mu.Lock()
			signalled = time.Now()
			mu.Unlock()
			run.Signal(t, c.sig)
			r := run.Wait(t)

			mu.Lock()
			total, lateWrites := puts, late
			mu.Unlock()
			if want := 128 + int(c.sig); r.Code != want {
				t.Errorf("exit %d, want %d\n%s%s", r.Code, want, r.Stdout, r.Stderr)
			}
			if len(lateWrites) > 0 || total >= objects {
				t.Errorf("%d writes in all, %d of them more than a second after the signal: want it to stop writing", total, len(lateWrites))
			}
			if !strings.Contains(r.Stderr, "Interrupted") {
				t.Errorf("stderr does not say it was interrupted:\n%s", r.Stderr)
			}
			if got := f.crd().Status.StoredVersions; fmt.Sprint(got) != "[v1alpha1 v1]" {
				t.Errorf("storedVersions after the interrupt: %v, want it as it was", got)
			}
			stored := f.stored()
			if c.output == "json" {
				var res migrate.Result
				if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
					t.Fatalf("%v:\n%s", err, r.Stdout)
				}
				if !res.Interrupted || res.Rewritten < 40 || res.Rewritten >= objects || res.Rewritten > total || res.NotPruned == "" {
					t.Errorf("result %+v after %d writes; want interrupted, storedVersions not pruned", res, total)
				}
			} else {
				t.Logf("the report:\n%s%s", r.Stdout, r.Stderr)
				for _, want := range []string{fmt.Sprintf("interrupted, %d of %d objects done at v1: %d rewritten", stored[group+"/v1"], objects, stored[group+"/v1"]),
					"storedVersions [v1alpha1 v1] left as it was; run it again to finish"} {
					if !strings.Contains(r.Stdout, want) {
						t.Errorf("the report lacks %q:\n%s", want, r.Stdout)
					}
				}
				if strings.Contains(r.Stderr, "\033") {
					t.Errorf("terminal escapes on a stderr that is not a terminal: %q", r.Stderr)
				}
			}
			if stored[group+"/v1"] < 40 || stored[group+"/v1"]+stored[group+"/v1alpha1"] != objects {
				t.Errorf("etcd after the interrupt: %v", stored)
			}

			res, again := f.migrate()
			if again.Code != 0 || res.Interrupted || res.Rewritten+res.Unchanged != objects || fmt.Sprint(res.StoredVersionsAfter) != "[v1]" {
				t.Errorf("run again: exit %d, %+v\n%s", again.Code, res, again.Stderr)
			}
			if got := f.stored(); got[group+"/v1"] != objects || len(got) != 1 {
				t.Errorf("etcd after running again: %v; want all %d at v1", got, objects)
			}
			t.Logf("%v after %d writes: %d rewritten then; the second run rewrote %d", c.sig, 40, stored[group+"/v1"], res.Rewritten)
		})
	}
}
