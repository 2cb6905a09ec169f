package apply

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The backup file is JSON lines:
//
//	{"heron_backup":1,"command":"reset checkpoint --target-wal kafka","created":"2026-...Z",
//	 "endpoints":["127.0.0.1:2379"],"root_path":"by-dev","meta_root":"by-dev/meta/",
//	 "revision":1234,"target":"kafka","scope":["by-dev-rootcoord-dml_0"],
//	 "prefixes":["by-dev/meta/","by-dev/config/"]}
//	{"key":"by-dev/meta/datacoord-meta/s/100/101/1001","value":"<base64>","mod_revision":17,"op":"put"}
//	{"key":"by-dev/meta/queryCoord-Collection-Target/999","value":"<base64>","mod_revision":21,"op":"delete"}
//	{"key":"by-dev/config/new","value":"","mod_revision":0,"absent":true,"op":"put"}
//	{"end":true,"ops":3,"sha256":"<hex>"}
//
// one line per op, in the order the ops are written, with the key's value and
// mod revision as read by the plan ("absent" when the key did not exist); a
// key that is not valid UTF-8 is in "key_base64" instead of "key". The last
// line closes the file: a file without it is truncated and is refused. Its
// sha256 is the SHA-256 of every byte before it (the header and the entry
// lines, each with its newline): a reader refuses a file whose bytes changed
// after it was written, and one without a checksum (written before heron
// checksummed backups) unless its caller allows it (restore --no-checksum).
// The header's prefixes are the key prefixes the command writes: the writer
// refuses an entry outside them, and so does restore.

type backupLine struct {
	Key         string  `json:"key,omitempty"`
	KeyBase64   string  `json:"key_base64,omitempty"`
	Value       string  `json:"value"`
	ModRevision int64   `json:"mod_revision"`
	Absent      bool    `json:"absent,omitempty"`
	Phase       int     `json:"phase,omitempty"`
	New         *string `json:"new,omitempty"`
	Op          string  `json:"op"`
}

type backupEnd struct {
	End    bool   `json:"end"`
	Ops    int64  `json:"ops"`
	SHA256 string `json:"sha256,omitempty"`
}

// BackupWriter writes a backup file under a temporary name in the folder of
// its final name and publishes it on Commit: a reader never sees a partial
// backup under the final name. CreateBackup, Add for every key, then Commit
// (or Abort) is the whole API; the end line and its checksum are the
// writer's.
type BackupWriter struct {
	final  string
	tmp    string
	f      *os.File
	w      *bufio.Writer
	wb     *writeback
	sum    hash.Hash
	header Header
	// amended: the header changed after the entries were written (Apply
	// completes it after pass 1); Commit rewrites the file's first line.
	amended bool
	// withNew: entries carry the new value of a put ("new"), for a header
	// that names no rule deriving it.
	withNew bool
	n       int64
	buf     []byte
	// digest is the end line's SHA-256, once committed.
	digest string
}

// CreateBackup starts the backup file path (which must not exist) with
// header h; Format is set, and Created when zero. Every prefix of
// h.Prefixes must end with "/".
func CreateBackup(path string, h Header) (*BackupWriter, error) {
	if path == "" {
		return nil, errors.New("backup: no backup path")
	}
	for _, p := range h.Prefixes {
		if p == "" || !strings.HasSuffix(p, "/") {
			return nil, fmt.Errorf("backup: prefix %q of the header does not end with /", p)
		}
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("backup: %s already exists", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("backup: cannot create a file in %s: %w", dir, err)
	}
	h.Format = BackupFormat
	if h.Created.IsZero() {
		h.Created = time.Now().UTC()
	}
	bw := &BackupWriter{final: path, tmp: f.Name(), f: f, sum: sha256.New(), header: h}
	bw.w, bw.wb = newBackupFile(f)
	hb, err := json.Marshal(h)
	if err != nil {
		bw.Abort()
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := bw.line(hb); err != nil {
		bw.Abort()
		return nil, err
	}
	return bw, nil
}

func (bw *BackupWriter) line(b []byte) error {
	if _, err := bw.w.Write(b); err != nil {
		return fmt.Errorf("backup: write %s: %w", bw.tmp, err)
	}
	if err := bw.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("backup: write %s: %w", bw.tmp, err)
	}
	bw.sum.Write(b)
	bw.sum.Write(newline)
	return nil
}

var newline = []byte{'\n'}

// Add writes the line of one entry: the key, its value and mod revision
// before the write (Absent with mod revision 0 when it did not exist), and
// whether the write deletes it. An entry outside the header's prefixes is
// refused. It encodes by hand: it runs once per key.
func (bw *BackupWriter) Add(e Entry) error {
	if e.Key == "" {
		return errors.New("backup: an entry has an empty key")
	}
	if e.Absent != (e.ModRevision == 0) {
		return fmt.Errorf("backup: entry %s: absent=%v with mod revision %d", keyText(e.Key), e.Absent, e.ModRevision)
	}
	if !bw.header.Allows(e.Key) {
		return fmt.Errorf("backup: key %s is outside the prefixes %s of the backup's header", keyText(e.Key), strings.Join(bw.header.Prefixes, ", "))
	}
	b := bw.buf[:0]
	if plainJSON(e.Key) {
		b = append(b, `{"key":"`...)
		b = append(b, e.Key...)
		b = append(b, '"')
	} else if utf8.ValidString(e.Key) {
		b = append(b, `{"key":`...)
		kb, _ := json.Marshal(e.Key)
		b = append(b, kb...)
	} else {
		b = append(b, `{"key_base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(e.Key))
		b = append(b, '"')
	}
	b = append(b, `,"value":"`...)
	b = base64.StdEncoding.AppendEncode(b, e.Value)
	b = append(b, `","mod_revision":`...)
	b = strconv.AppendInt(b, e.ModRevision, 10)
	if e.Absent {
		b = append(b, `,"absent":true`...)
	}
	if e.Phase != 0 {
		b = append(b, `,"phase":`...)
		b = strconv.AppendInt(b, int64(e.Phase), 10)
	}
	if e.HasNew {
		b = append(b, `,"new":"`...)
		b = base64.StdEncoding.AppendEncode(b, e.New)
		b = append(b, '"')
	}
	if e.Delete {
		b = append(b, `,"op":"delete"}`...)
	} else {
		b = append(b, `,"op":"put"}`...)
	}
	bw.buf = b
	bw.n++
	return bw.line(b)
}

// plainJSON reports whether json.Marshal writes s as itself between quotes:
// printable ASCII, none of the bytes it escapes (the quote, the backslash
// and, for HTML, < > &).
// Every Milvus key is; Add then copies it, where json.Marshal cost a
// reflection and an allocation per key.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// add writes the entry of one op.
func (bw *BackupWriter) add(op Op) error {
	e := Entry{Key: op.Key, Value: op.Original, ModRevision: op.ModRevision, Absent: op.ModRevision == 0, Delete: op.Delete, Phase: op.Phase}
	if bw.withNew && !op.Delete {
		e.New, e.HasNew = op.Value, true
	}
	return bw.Add(e)
}

// setHeader replaces the header before Commit (which rewrites the first
// line when it changed).
func (bw *BackupWriter) setHeader(h Header) {
	h.Format, h.Created = BackupFormat, bw.header.Created
	a, _ := json.Marshal(bw.header)
	b, _ := json.Marshal(h)
	bw.header = h
	bw.amended = bw.amended || !bytes.Equal(a, b)
}

// rewriteHeader copies the temporary file to a new one that starts with the
// current header, hashing it again. The old file's failed early sync fails
// it: the copy is read back from pages the kernel may have dropped.
func (bw *BackupWriter) rewriteHeader() (err error) {
	if err := bw.w.Flush(); err != nil {
		return fmt.Errorf("backup: write %s: %w", bw.tmp, err)
	}
	if _, err := bw.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("backup: read %s: %w", bw.tmp, err)
	}
	r := bufio.NewReaderSize(bw.f, 1<<20)
	if _, err := r.ReadBytes('\n'); err != nil {
		return fmt.Errorf("backup: read %s: %w", bw.tmp, err)
	}
	dir, base := filepath.Split(bw.final)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("backup: cannot create a file in %s: %w", dir, err)
	}
	old, oldTmp, oldWB := bw.f, bw.tmp, bw.wb
	bw.f, bw.tmp, bw.sum = f, f.Name(), sha256.New()
	bw.w, bw.wb = newBackupFile(f)
	defer func() {
		if werr := oldWB.wait(); err == nil && werr != nil {
			err = fmt.Errorf("backup: sync %s: %w", oldTmp, werr)
		}
		_ = old.Close()
		_ = os.Remove(oldTmp)
	}()
	hb, err := json.Marshal(bw.header)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := bw.line(hb); err != nil {
		return err
	}
	if _, err := io.Copy(io.MultiWriter(bw.w, bw.sum), r); err != nil {
		return fmt.Errorf("backup: copy %s to %s: %w", oldTmp, bw.tmp, err)
	}
	bw.amended = false
	return nil
}

// Commit writes the end line with the checksum, syncs the file and its
// folder, and publishes the file under its final name without overwriting
// anything. On error nothing is left under either name.
func (bw *BackupWriter) Commit() error {
	if bw.amended {
		if err := bw.rewriteHeader(); err != nil {
			bw.Abort()
			return err
		}
	}
	bw.digest = hex.EncodeToString(bw.sum.Sum(nil))
	eb, _ := json.Marshal(backupEnd{End: true, Ops: bw.n, SHA256: bw.digest})
	if err := bw.line(eb); err != nil {
		bw.Abort()
		return err
	}
	if err := bw.w.Flush(); err != nil {
		bw.Abort()
		return fmt.Errorf("backup: write %s: %w", bw.tmp, err)
	}
	if err := errors.Join(bw.wb.wait(), bw.f.Sync()); err != nil {
		bw.Abort()
		return fmt.Errorf("backup: sync %s: %w", bw.tmp, err)
	}
	if err := bw.f.Close(); err != nil {
		_ = os.Remove(bw.tmp)
		return fmt.Errorf("backup: close %s: %w", bw.tmp, err)
	}
	bw.f = nil
	// A hard link publishes the file atomically and fails if the name is
	// taken; fall back to rename where links are not supported.
	if err := os.Link(bw.tmp, bw.final); err != nil {
		if errors.Is(err, os.ErrExist) {
			_ = os.Remove(bw.tmp)
			return fmt.Errorf("backup: %s already exists", bw.final)
		}
		if _, serr := os.Lstat(bw.final); serr == nil {
			_ = os.Remove(bw.tmp)
			return fmt.Errorf("backup: %s already exists", bw.final)
		}
		if err := os.Rename(bw.tmp, bw.final); err != nil {
			_ = os.Remove(bw.tmp)
			return fmt.Errorf("backup: rename to %s: %w", bw.final, err)
		}
	} else {
		_ = os.Remove(bw.tmp)
	}
	return syncDir(filepath.Dir(bw.final))
}

// Abort removes the temporary file: nothing is published.
func (bw *BackupWriter) Abort() {
	if bw.f != nil {
		// An early sync under way keeps the file open until it returns;
		// nothing waits for it.
		_ = bw.f.Close()
		bw.f = nil
	}
	_ = os.Remove(bw.tmp)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("backup: open folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("backup: sync folder %s: %w", dir, err)
	}
	return nil
}

// Entry is one key of a backup: its value and mod revision before the write.
type Entry struct {
	Key         string
	Value       []byte
	ModRevision int64
	// Absent: the key did not exist (restoring it means deleting it).
	Absent bool
	// Delete: the backed-up op deleted the key.
	Delete bool
	// Phase is the op's write phase (Op.Phase).
	Phase int
	// New is the value the op put, when the file carries it (HasNew): a
	// staged plan whose header names no Rule.
	New    []byte
	HasNew bool
	// Line is the entry's line number in the file (the header is line 1).
	Line int64
}

// BackupReader streams a backup file an entry at a time, hashing what it
// reads: at the end line it checks the entry count and the checksum.
type BackupReader struct {
	Path   string
	Header Header
	// AllowNoChecksum accepts a file whose end line has no checksum (a
	// backup written before heron checksummed them); set it before reading.
	AllowNoChecksum bool
	// Checksummed: the end line's checksum matched (set at the end line);
	// Digest is that checksum (hex), a plan's digest (--expect-digest).
	Checksummed bool
	Digest      string
	// Values, when set, names the entries whose value and new the caller
	// uses: Next may hand out the others without them (a check of the file
	// that needs keys only skips decoding a million values; their lines are
	// still hashed, and a later reading that uses the values decodes them).
	Values func(key string) bool
	f      io.Closer
	r      *bufio.Reader
	sum    hash.Hash
	line   int64
	n      int64
	done   bool
	// off is the byte offset of the next line; part: the reader reads
	// lines of entries only, from a file read whole before (Part): its end
	// is the end of the part, nothing is hashed.
	off  int64
	part bool
	// unsummed: the reader does not hash the file, nor check the end
	// line's checksum (its count it does): pass 2 reads the backup pass 1
	// wrote, and checks every transaction it builds from it against pass
	// 1's hash of it instead (writer.send, checkRequest).
	unsummed bool
}

// OpenBackup opens a backup file and reads its header.
// Only a regular file is read: a FIFO or a device (/dev/zero) is refused
// before it is opened (opening a FIFO waits for a writer).
func OpenBackup(path string) (*BackupReader, error) {
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("backup: %s is not a regular file (%s): heron reads plans and backups from regular files only", path, fileKind(info.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if info, err := f.Stat(); err == nil && !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("backup: %s is not a regular file (%s): heron reads plans and backups from regular files only", path, fileKind(info.Mode()))
	}
	return newBackupReader(path, f, f)
}

// fileKind names what a file that is not a regular one is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0, m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// maxLineBytes bounds a line of a backup: an entry holds a value (at most
// etcd's --max-request-bytes, 1.5 MiB by default) and its new value, in
// base64; a longer line is no heron backup, and reading it whole would
// hold all of it (a file without a newline: all the file) in memory.
const maxLineBytes = 32 << 20

// reopen reads the backup held open in f from its start (the kit holds the
// published backup open until its verify: a backup deleted meanwhile is
// still read back); closing the reader leaves f open.
func reopen(path string, f *os.File) (*BackupReader, error) {
	return newBackupReader(path, io.NewSectionReader(f, 0, 1<<62), io.NopCloser(nil))
}

// newBackupReader reads the header of the backup at path from r; f closes it.
func newBackupReader(path string, r io.Reader, f io.Closer) (*BackupReader, error) {
	br := &BackupReader{Path: path, f: f, r: bufio.NewReaderSize(r, 1<<20), sum: sha256.New()}
	if err := foreignBackup(path, br.r); err != nil {
		f.Close()
		return nil, err
	}
	b, err := br.readLine()
	if err != nil {
		f.Close()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("backup %s is empty", path)
		}
		return nil, err
	}
	if err := json.Unmarshal(b, &br.Header); err != nil || br.Header.Format == 0 {
		f.Close()
		return nil, fmt.Errorf("backup %s: line 1 is not a heron backup header", path)
	}
	if br.Header.Format != BackupFormat {
		f.Close()
		return nil, fmt.Errorf("backup %s: format %d is not supported (this heron reads %d)", path, br.Header.Format, BackupFormat)
	}
	br.hash(b)
	return br, nil
}

func (br *BackupReader) hash(b []byte) {
	if br.part || br.unsummed {
		return
	}
	br.sum.Write(b)
	br.sum.Write(newline)
}

// readLine returns the next line without its newline, valid until the
// next read (an Entry copies what it keeps of a line).
func (br *BackupReader) readLine() ([]byte, error) {
	chunk, err := br.r.ReadSlice('\n')
	if err == nil {
		// The whole line is in the reader's buffer (every line but a rare
		// long one): no copy.
		br.line++
		br.off += int64(len(chunk))
		return chunk[:len(chunk)-1], nil
	}
	b := append([]byte(nil), chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.r.ReadSlice('\n')
		if len(b)+len(chunk) > maxLineBytes {
			return nil, fmt.Errorf("backup %s: line %d is longer than %d MiB: not a heron backup", br.Path, br.line+1, maxLineBytes>>20)
		}
		b = append(b, chunk...)
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(b) > 0 {
			return nil, fmt.Errorf("backup %s: line %d is not terminated (truncated file)", br.Path, br.line+1)
		}
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("backup %s: %w", br.Path, err)
	}
	br.line++
	br.off += int64(len(b))
	return b[:len(b)-1], nil
}

// Next returns the next entry; ok is false after the end line, which it
// checks against the number of entries read and the checksum of every line
// before it. A file that stops before its end line is an error: it was not
// completely written. An entry is returned before the checksum that covers
// it is checked: a caller that must not act on a changed file reads it
// whole first (VerifyBackup).
func (br *BackupReader) Next() (e Entry, ok bool, err error) {
	if br.done {
		return Entry{}, false, nil
	}
	b, err := br.readLine()
	if errors.Is(err, io.EOF) && br.part {
		br.done = true
		return Entry{}, false, nil
	}
	if errors.Is(err, io.EOF) {
		return Entry{}, false, fmt.Errorf("backup %s: no end line after %d entries (truncated file)", br.Path, br.n)
	}
	if err != nil {
		return Entry{}, false, err
	}
	if e, ok := parseEntryLine(b, br.Values); ok {
		if e.Absent != (e.ModRevision == 0) {
			return Entry{}, false, fmt.Errorf("backup %s: line %d: absent=%v with mod_revision %d", br.Path, br.line, e.Absent, e.ModRevision)
		}
		e.Line = br.line
		br.n++
		br.hash(b)
		return e, true, nil
	}
	var l struct {
		backupLine
		backupEnd
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return Entry{}, false, fmt.Errorf("backup %s: line %d: %v", br.Path, br.line, err)
	}
	if l.End && br.part {
		return Entry{}, false, fmt.Errorf("backup %s: line %d: an end line among the entries: the file changed since it was checked", br.Path, br.line)
	}
	if l.End {
		return Entry{}, false, br.end(l.backupEnd)
	}
	br.hash(b)
	e = Entry{Key: l.Key, ModRevision: l.ModRevision, Absent: l.Absent, Delete: l.Op == "delete", Phase: l.Phase, Line: br.line}
	if l.New != nil {
		if e.New, err = base64.StdEncoding.DecodeString(*l.New); err != nil {
			return Entry{}, false, fmt.Errorf("backup %s: line %d: new: %v", br.Path, br.line, err)
		}
		e.HasNew = true
	}
	if l.KeyBase64 != "" {
		k, err := base64.StdEncoding.DecodeString(l.KeyBase64)
		if err != nil {
			return Entry{}, false, fmt.Errorf("backup %s: line %d: key_base64: %v", br.Path, br.line, err)
		}
		e.Key = string(k)
	}
	if e.Key == "" {
		return Entry{}, false, fmt.Errorf("backup %s: line %d has no key", br.Path, br.line)
	}
	if e.Value, err = base64.StdEncoding.DecodeString(l.Value); err != nil {
		return Entry{}, false, fmt.Errorf("backup %s: line %d: value: %v", br.Path, br.line, err)
	}
	if e.Absent != (e.ModRevision == 0) {
		return Entry{}, false, fmt.Errorf("backup %s: line %d: absent=%v with mod_revision %d", br.Path, br.line, e.Absent, e.ModRevision)
	}
	br.n++
	return e, true, nil
}

// end checks the end line.
func (br *BackupReader) end(l backupEnd) error {
	if l.Ops != br.n {
		return fmt.Errorf("backup %s: end line says %d entries, file has %d", br.Path, l.Ops, br.n)
	}
	if _, err := br.readLine(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("backup %s: data after the end line", br.Path)
	}
	if br.unsummed {
		br.done = true
		return nil
	}
	switch got := hex.EncodeToString(br.sum.Sum(nil)); {
	case l.SHA256 == "" && !br.AllowNoChecksum:
		return fmt.Errorf("backup %s: its end line (line %d) has no checksum: it was written before heron checksummed backups, so a change to it cannot be detected; pass --no-checksum to use it anyway", br.Path, br.line)
	case l.SHA256 == "":
	case l.SHA256 != got:
		return fmt.Errorf("backup %s: checksum mismatch: the SHA-256 of lines 1-%d is %s, the end line (line %d) says %s: the file changed after heron wrote it", br.Path, br.line-1, got, br.line, l.SHA256)
	default:
		br.Checksummed, br.Digest = true, l.SHA256
	}
	br.done = true
	return nil
}

// Close closes the file.
func (br *BackupReader) Close() error { return br.f.Close() }

// Offset is the byte offset in the file of the next line Next reads: before
// Next, where the entry it returns starts; after it, where it ends.
func (br *BackupReader) Offset() int64 { return br.off }

// Part reads again, from the file br holds open, the entries whose lines
// lie in the bytes [from, to) (Offsets of a reading of br that checked the
// file whole), the first of them on line number line: a command that has
// checked a file reads parts of it again, in its own order, without opening
// it again (a file renamed over it meanwhile is not read). Nothing is
// hashed: a changed byte is not detected, an end line among them is an
// error. Closing the part leaves br open.
func (br *BackupReader) Part(from, to, line int64) (*BackupReader, error) {
	f, ok := br.f.(io.ReaderAt)
	if !ok || from < 0 || to < from {
		return nil, fmt.Errorf("backup %s: cannot read bytes %d-%d of it again", br.Path, from, to)
	}
	sec := io.NewSectionReader(f, from, to-from)
	return &BackupReader{Path: br.Path, Header: br.Header, f: io.NopCloser(nil), r: bufio.NewReaderSize(sec, 1<<20),
		line: line - 1, off: from, part: true}, nil
}

// BackupInfo is what VerifyBackup read.
type BackupInfo struct {
	Header  Header
	Entries int64
	// Checksummed: the file carries a checksum, and it matched; Digest is
	// that checksum.
	Checksummed bool
	Digest      string
}

// VerifyBackup reads a whole backup file and checks it (every line, the end
// line, the checksum; without a checksum only with allowNoChecksum), calling
// each (when set) with every entry: its error stops the check. Read a file
// with it before acting on any of its entries.
func VerifyBackup(path string, allowNoChecksum bool, each func(Entry) error) (*BackupInfo, error) {
	return VerifyBackupValues(path, allowNoChecksum, nil, each)
}

// VerifyBackupValues is VerifyBackup that decodes the value (and new) of
// only the entries values names (BackupReader.Values; nil: every entry):
// each sees the others without them.
func VerifyBackupValues(path string, allowNoChecksum bool, values func(key string) bool, each func(Entry) error) (*BackupInfo, error) {
	br, err := OpenBackup(path)
	if err != nil {
		return nil, err
	}
	defer br.Close()
	br.AllowNoChecksum = allowNoChecksum
	br.Values = values
	for {
		e, ok, err := br.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return &BackupInfo{Header: br.Header, Entries: br.n, Checksummed: br.Checksummed, Digest: br.Digest}, nil
		}
		if each != nil {
			if err := each(e); err != nil {
				return nil, err
			}
		}
	}
}

// ClaimedDigest is the checksum a backup file's end line claims (its last
// line only, read from the end): what a reader can pin before reading the
// file, which its end line then proves (BackupReader checks it).
func ClaimedDigest(path string) (string, error) {
	br, err := OpenBackup(path)
	if err != nil {
		return "", err
	}
	defer br.Close()
	f, ok := br.f.(*os.File)
	if !ok {
		return "", fmt.Errorf("backup %s: not a file", path)
	}
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("backup %s: %w", path, err)
	}
	const tail = 512 // the end line is about 110 bytes
	start := max(info.Size()-tail, 0)
	b := make([]byte, info.Size()-start)
	if _, err := f.ReadAt(b, start); err != nil {
		return "", fmt.Errorf("backup %s: %w", path, err)
	}
	b = bytes.TrimSuffix(b, newline)
	var end backupEnd
	if err := json.Unmarshal(b[bytes.LastIndexByte(b, '\n')+1:], &end); err != nil || !end.End {
		return "", fmt.Errorf("backup %s: its last line is no end line (truncated file)", path)
	}
	return end.SHA256, nil
}

// ReadBackupHeader reads the header of a backup file (its first line only).
func ReadBackupHeader(path string) (Header, error) {
	br, err := OpenBackup(path)
	if err != nil {
		return Header{}, err
	}
	br.Close()
	return br.Header, nil
}

// parseEntryLine reads an entry line in exactly the form BackupWriter.Add
// writes it, without encoding/json (replay reads every line of a run's
// backup): a key without escapes, a base64 value, a mod revision, "absent"
// and the op in that order. ok is false for anything else (escaped or
// base64 keys, other spacing or order, the end line), which Next then reads
// with encoding/json.
func parseEntryLine(b []byte, values func(key string) bool) (e Entry, ok bool) {
	rest, ok := cutPrefix(b, `{"key":"`)
	if !ok {
		return Entry{}, false
	}
	i := 0
	for ; i < len(rest); i++ {
		c := rest[i]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 {
			return Entry{}, false
		}
	}
	if i == 0 || i == len(rest) || !utf8.Valid(rest[:i]) {
		return Entry{}, false
	}
	e.Key = string(rest[:i])
	decode := values == nil || values(e.Key)
	if rest, ok = cutPrefix(rest[i:], `","value":"`); !ok {
		return Entry{}, false
	}
	// A value is the most of a line: its end is found as bytes.IndexByte
	// finds it, not a byte at a time.
	if i = bytes.IndexByte(rest, '"'); i < 0 {
		return Entry{}, false
	}
	if decode {
		if e.Value, ok = decodeBase64(rest[:i]); !ok {
			return Entry{}, false
		}
	}
	if rest, ok = cutPrefix(rest[i:], `","mod_revision":`); !ok {
		return Entry{}, false
	}
	i = 0
	var rev int64
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' && i < 18 {
		rev = rev*10 + int64(rest[i]-'0')
		i++
	}
	if i == 0 || (i > 1 && rest[0] == '0') || (i < len(rest) && rest[i] >= '0' && rest[i] <= '9') {
		return Entry{}, false
	}
	e.ModRevision = rev
	rest = rest[i:]
	if r, ok := cutPrefix(rest, `,"absent":true`); ok {
		e.Absent, rest = true, r
	}
	if r, ok := cutPrefix(rest, `,"phase":`); ok {
		i = 0
		ph := 0
		for i < len(r) && r[i] >= '0' && r[i] <= '9' && i < 9 {
			ph = ph*10 + int(r[i]-'0')
			i++
		}
		if i == 0 || (i > 1 && r[0] == '0') || ph == 0 {
			return Entry{}, false
		}
		e.Phase, rest = ph, r[i:]
	}
	if r, ok := cutPrefix(rest, `,"new":"`); ok {
		if i = bytes.IndexByte(r, '"'); i < 0 {
			return Entry{}, false
		}
		if decode {
			if e.New, ok = decodeBase64(r[:i]); !ok {
				return Entry{}, false
			}
		}
		e.HasNew, rest = true, r[i+1:]
	}
	switch string(rest) {
	case `,"op":"put"}`:
	case `,"op":"delete"}`:
		e.Delete = true
	default:
		return Entry{}, false
	}
	return e, true
}

// decodeBase64 is the bytes the standard base64 text b encodes (false: b is
// not such text).
func decodeBase64(b []byte) ([]byte, bool) {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(out, b)
	return out[:n], err == nil
}

func cutPrefix(b []byte, p string) ([]byte, bool) {
	if len(b) < len(p) || string(b[:len(p)]) != p {
		return b, false
	}
	return b[len(p):], true
}

// BackupEntries is the number of entries the end line of the backup at path
// says it holds, read from the file's last bytes (the file is not checked:
// Next and VerifyBackup do that): what a caller sizes its work by before
// reading the file.
func BackupEntries(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	// The end line: {"end":true,"ops":N,"sha256":"<64 hex digits>"} and a newline.
	const tail = 256
	buf := make([]byte, min(st.Size(), tail))
	if _, err := f.ReadAt(buf, st.Size()-int64(len(buf))); err != nil {
		return 0, fmt.Errorf("backup %s: %w", path, err)
	}
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	var end backupEnd
	if err := json.Unmarshal(buf, &end); err != nil || !end.End || end.Ops < 0 {
		return 0, fmt.Errorf("backup %s: no end line (truncated file)", path)
	}
	return end.Ops, nil
}
