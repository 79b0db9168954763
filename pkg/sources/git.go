package sources

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// errNoGit: git is not installed.
var errNoGit = errors.New("reading a git revision needs the git command, which is not in PATH")

// gitPrefix starts a git source: git:REV:PATH.
const gitPrefix = "git:"

// git reads git:REV:PATH: the file, or the directory's files with one of
// manifest.Extensions, as they are at revision REV of the repository the
// command runs in. PATH is from the repository's top, or from the current
// directory when it starts with ./ or ../, as git reads REV:PATH.
//
// It asks the git command, which reads every revision syntax, ref store
// and object store git itself does (packs, alternates, partial and
// shallow clones, worktrees), and only reads: rev-parse, ls-tree and
// cat-file neither touch the work tree nor write the index.
func (s *Sources) git(spec string, recursive bool) ([]manifest.Text, error) {
	rev, dir, ok := strings.Cut(strings.TrimPrefix(spec, gitPrefix), ":")
	if !ok || rev == "" {
		return nil, errors.New("a git source is git:REVISION:PATH (for example git:HEAD~1:config/crd)")
	}
	commit, err := s.gitOut("rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if _, repoErr := s.gitOut("rev-parse", "--git-dir"); repoErr != nil {
			if errors.Is(repoErr, errNoGit) {
				return nil, repoErr
			}
			return nil, errors.New("not in a git repository")
		}
		return nil, fmt.Errorf("git knows no revision %s", rev)
	}
	object := strings.TrimSpace(string(commit)) + ":" + dir
	kind, err := s.gitOut("cat-file", "-t", object)
	if err != nil {
		return nil, fmt.Errorf("%s is not in revision %s", orTop(dir), rev)
	}
	if strings.TrimSpace(string(kind)) == "blob" {
		data, err := s.gitOut("cat-file", "blob", object)
		if err != nil {
			return nil, err
		}
		return []manifest.Text{{Name: spec, Data: data}}, nil
	}
	names, oids, err := s.gitTree(object, recursive)
	if err != nil {
		return nil, err
	}
	blobs, err := s.gitBlobs(oids)
	if err != nil {
		return nil, err
	}
	// A path from the current directory stays one in the files' names.
	here := ""
	if strings.HasPrefix(dir, "./") {
		here = "./"
	}
	texts := make([]manifest.Text, len(names))
	for i, n := range names {
		texts[i] = manifest.Text{Name: gitPrefix + rev + ":" + here + path.Join(dir, n), Data: blobs[i]}
	}
	return texts, nil
}

func orTop(dir string) string {
	if dir == "" {
		return "the top"
	}
	return dir
}

// gitTree lists the files of a tree with one of manifest.Extensions
// (links and submodules are not files), in the order a directory of them
// is read on disk: by name, a directory's files where its name sorts.
func (s *Sources) gitTree(tree string, recursive bool) (names, oids []string, err error) {
	// --full-tree: run in a subdirectory, ls-tree would list only the
	// tree's entries under that subdirectory's path (nothing, for a tree
	// that is not the top).
	args := []string{"ls-tree", "-z", "--full-tree"}
	if recursive {
		args = append(args, "-r")
	}
	out, err := s.gitOut(append(args, tree)...)
	if err != nil {
		return nil, nil, err
	}
	type file struct{ name, oid string }
	var files []file
	for _, entry := range bytes.Split(out, []byte{0}) {
		// <mode> SP <type> SP <object> TAB <file>
		meta, name, ok := strings.Cut(string(entry), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" || fields[0] == "120000" || !manifest.HasExtension(name) {
			continue
		}
		files = append(files, file{name, fields[2]})
	}
	slices.SortFunc(files, func(a, b file) int {
		return slices.Compare(strings.Split(a.name, "/"), strings.Split(b.name, "/"))
	})
	for _, f := range files {
		names, oids = append(names, f.name), append(oids, f.oid)
	}
	return names, oids, nil
}

// gitBlobs reads blobs by object id, all through one git cat-file.
func (s *Sources) gitBlobs(oids []string) ([][]byte, error) {
	if len(oids) == 0 {
		return nil, nil
	}
	cmd := s.gitCommand("cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(oids, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, gitError(err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	blobs := make([][]byte, len(oids))
	for i := range oids {
		// <oid> SP <type> SP <size> LF <contents> LF
		head, err := r.ReadString('\n')
		fields := strings.Fields(head)
		if err != nil || len(fields) != 3 {
			return nil, fmt.Errorf("git cat-file answered %q for %s", strings.TrimSpace(head), oids[i])
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file answered %q for %s", strings.TrimSpace(head), oids[i])
		}
		blobs[i] = make([]byte, size)
		if _, err := io.ReadFull(r, blobs[i]); err != nil {
			return nil, err
		}
		if _, err := r.Discard(1); err != nil {
			return nil, err
		}
	}
	return blobs, nil
}

func (s *Sources) gitOut(args ...string) ([]byte, error) {
	out, err := s.gitCommand(args...).Output()
	if err != nil {
		return nil, gitError(err)
	}
	return out, nil
}

func (s *Sources) gitCommand(args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = s.o.Dir
	// Reading takes no lock: a git command running beside this one (an
	// editor's, a hook's) is not disturbed.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	return cmd
}

// gitError is git's own message (its standard error's last line), or why
// git could not be run.
func gitError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		lines := strings.Split(strings.TrimSpace(string(ee.Stderr)), "\n")
		if msg := strings.TrimPrefix(lines[len(lines)-1], "fatal: "); msg != "" {
			return errors.New(msg)
		}
		return err
	}
	if errors.Is(err, exec.ErrNotFound) {
		return errNoGit
	}
	return err
}
