package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/klog/v2"
)

// Index keeps, from one run to the next, what reading a CRD file gave:
// each CRD's outline (see Outline) and the whole CRD as the server
// decoded it, in the server's own protobuf encoding (the one etcd stores
// CRDs in). A later run that finds the file unchanged reads neither the
// file's YAML nor the CRDs it does not use.
//
// An entry answers only for the file as it was indexed (fileIdentity); a
// file changed less than two seconds before it was read is not indexed,
// since a second change in the same tick of its clock could keep its
// identity. Entries are written to a temporary file and renamed into
// place, so that processes indexing at once (pre-commit runs hooks in
// parallel) never leave a mixed entry. An entry that cannot be read, is
// cut short or fails a checksum is not used (and is written again), and
// an index that cannot be written is left alone: what the index does
// never changes an answer.
type Index struct {
	dir string
	// racy: a file changed this recently is not indexed.
	racy time.Duration
}

// NewIndex uses dir; "" switches indexing off (nil).
func NewIndex(dir string) *Index {
	if dir == "" {
		return nil
	}
	return &Index{dir: dir, racy: 2 * time.Second}
}

// indexMagic names the entries' format. Its number changes with what an
// entry holds (the fields an Outline keeps, their encoding), so that no
// run reads an entry another version of kubectl crd wrote.
const indexMagic = "kubectl-crd CRD index 3\n"

// indexHeader is the JSON at the start of an entry; the outlines follow
// it, then the CRDs.
type indexHeader struct {
	Identity string     `json:"identity"`
	Docs     []indexDoc `json:"docs"`
}

type indexDoc struct {
	Line    int  `json:"line"`
	Outline blob `json:"outline"`
	CRD     blob `json:"crd"`
}

// blob is where an encoded CRD is, relative to the end of the header.
type blob struct {
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
	CRC    uint32 `json:"crc"`
}

// checksum is an entry's CRC-32C (Castagnoli) of data. crc32 builds the
// polynomial's table once, when MakeTable is first called.
func checksum(data []byte) uint32 {
	return crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
}

// entryPath is where the entry for a file is kept.
func (x *Index) entryPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(x.dir, hex.EncodeToString(sum[:16])+".index"), nil
}

// load returns the CRDs of a file from its entry, when there is one that
// answers for the file as it is now.
func (x *Index) load(path string) ([]*fileCRD, bool) {
	if x == nil {
		return nil, false
	}
	crds, err := x.read(path)
	if err != nil {
		klog.V(4).InfoS("Not using the CRD index", "file", path, "err", err)
		return nil, false
	}
	return crds, true
}

func (x *Index) read(path string) ([]*fileCRD, error) {
	identity, _, err := fileIdentity(path)
	if err != nil {
		return nil, err
	}
	entry, err := x.entryPath(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(entry)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	header, start, err := readHeader(f)
	if err != nil {
		return nil, err
	}
	if header.Identity != identity {
		return nil, errors.New("the file changed since it was indexed")
	}
	crds := make([]*fileCRD, len(header.Docs))
	for i, d := range header.Docs {
		outline := &apiextensionsv1.CustomResourceDefinition{}
		if err := readBlob(f, start, d.Outline, outline); err != nil {
			return nil, err
		}
		fc := &fileCRD{outline: outline, origin: fmt.Sprintf("%s:%d", path, d.Line), line: d.Line}
		fc.decode = func() (*CRD, error) { return x.readCRD(path, entry, identity, d, fc.origin) }
		crds[i] = fc
	}
	return crds, nil
}

// readCRD reads one CRD of an entry (when it is first asked for); should
// the entry have changed or broken since, the file itself is read again.
func (x *Index) readCRD(path, entry, identity string, d indexDoc, origin string) (*CRD, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := func() error {
		f, err := os.Open(entry)
		if err != nil {
			return err
		}
		defer f.Close()
		header, start, err := readHeader(f)
		if err != nil {
			return err
		}
		if header.Identity != identity {
			return errors.New("the entry changed")
		}
		return readBlob(f, start, d.CRD, crd)
	}()
	if err == nil {
		crd.APIVersion, crd.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
		return &CRD{CustomResourceDefinition: crd, Origin: origin}, nil
	}
	klog.V(4).InfoS("Reading the CRD from its file again", "file", path, "err", err)
	fresh, err := readCRDFile(path, nil)
	if err != nil {
		return nil, err
	}
	for _, fc := range fresh {
		if fc.origin == origin {
			return fc.decoded()
		}
	}
	return nil, fmt.Errorf("%s: the CustomResourceDefinition is no longer there", origin)
}

func readHeader(r io.ReaderAt) (*indexHeader, int64, error) {
	prefix := make([]byte, len(indexMagic)+4)
	if _, err := r.ReadAt(prefix, 0); err != nil {
		return nil, 0, err
	}
	if string(prefix[:len(indexMagic)]) != indexMagic {
		return nil, 0, errors.New("not an index entry")
	}
	size := int64(binary.BigEndian.Uint32(prefix[len(indexMagic):]))
	raw := make([]byte, size)
	if _, err := r.ReadAt(raw, int64(len(prefix))); err != nil {
		return nil, 0, err
	}
	var h indexHeader
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, 0, err
	}
	return &h, int64(len(prefix)) + size, nil
}

func readBlob(r io.ReaderAt, start int64, b blob, crd *apiextensionsv1.CustomResourceDefinition) error {
	data := make([]byte, b.Length)
	if _, err := r.ReadAt(data, start+b.Offset); err != nil {
		return err
	}
	if checksum(data) != b.CRC {
		return errors.New("checksum mismatch")
	}
	return crd.Unmarshal(data)
}

// store writes the entry of a file whose identity was taken before it
// was read. Every CRD of the file is decoded for it; a file with a CRD
// that does not decode is not indexed (its error is for when it is used).
// The CRDs are then decoded, when used, from the encoded form kept in
// memory.
func (x *Index) store(path, identity string, changed time.Time, crds []*fileCRD) {
	if x == nil || time.Since(changed) < x.racy {
		return
	}
	var outlines, wholes bytes.Buffer
	header := indexHeader{Identity: identity}
	encoded := make([][]byte, len(crds))
	for i, fc := range crds {
		crd, err := fc.decoded()
		if err != nil {
			return
		}
		o, err := fc.outline.Marshal()
		if err != nil {
			return
		}
		if encoded[i], err = crd.Marshal(); err != nil {
			return
		}
		header.Docs = append(header.Docs, indexDoc{Line: fc.line, Outline: appendBlob(&outlines, 0, o)})
	}
	for i := range crds {
		header.Docs[i].CRD = appendBlob(&wholes, int64(outlines.Len()), encoded[i])
	}
	if err := x.write(path, &header, outlines.Bytes(), wholes.Bytes()); err != nil {
		klog.V(4).InfoS("Cannot write the CRD index", "file", path, "err", err)
	}
	for i, fc := range crds {
		fc.keep(encoded[i])
	}
}

func appendBlob(buf *bytes.Buffer, base int64, data []byte) blob {
	b := blob{Offset: base + int64(buf.Len()), Length: int64(len(data)), CRC: checksum(data)}
	buf.Write(data)
	return b
}

func (x *Index) write(path string, header *indexHeader, parts ...[]byte) error {
	entry, err := x.entryPath(path)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(header)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(x.dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(x.dir, ".entry-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	size := make([]byte, 4)
	binary.BigEndian.PutUint32(size, uint32(len(raw)))
	for _, p := range append([][]byte{[]byte(indexMagic), size, raw}, parts...) {
		if _, err := tmp.Write(p); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), entry)
}
