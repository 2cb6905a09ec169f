package apply

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"
)

// The backup file is JSON lines:
//
//	{"heron_backup":1,"command":"reset checkpoint --target-wal kafka","created":"2026-...Z",
//	 "endpoints":["127.0.0.1:2379"],"root_path":"by-dev","meta_root":"by-dev/meta/",
//	 "revision":1234,"target":"kafka","scope":["by-dev-rootcoord-dml_0"]}
//	{"key":"by-dev/meta/datacoord-meta/s/100/101/1001","value":"<base64>","mod_revision":17,"op":"put"}
//	{"key":"by-dev/meta/queryCoord-Collection-Target/999","value":"<base64>","mod_revision":21,"op":"delete"}
//	{"key":"by-dev/config/new","value":"","mod_revision":0,"absent":true,"op":"put"}
//	{"end":true,"ops":3}
//
// one line per op, in the order the ops are written, with the key's value and
// mod revision as read by the plan ("absent" when the key did not exist); a
// key that is not valid UTF-8 is in "key_base64" instead of "key". The last
// line closes the file: a file without it is truncated and is refused.

type backupLine struct {
	Key         string `json:"key,omitempty"`
	KeyBase64   string `json:"key_base64,omitempty"`
	Value       string `json:"value"`
	ModRevision int64  `json:"mod_revision"`
	Absent      bool   `json:"absent,omitempty"`
	Op          string `json:"op"`
}

type backupEnd struct {
	End bool  `json:"end"`
	Ops int64 `json:"ops"`
}

// backupWriter writes a backup under a temporary name and publishes it.
type backupWriter struct {
	final string
	tmp   string
	f     *os.File
	w     *bufio.Writer
	n     int64
	buf   []byte
}

func createBackup(path string, h Header) (*backupWriter, error) {
	if path == "" {
		return nil, errors.New("backup: no backup path")
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
	bw := &backupWriter{final: path, tmp: f.Name(), f: f, w: bufio.NewWriterSize(f, 1<<20)}
	h.Format = BackupFormat
	if h.Created.IsZero() {
		h.Created = time.Now().UTC()
	}
	hb, err := json.Marshal(h)
	if err != nil {
		bw.abort()
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := bw.line(hb); err != nil {
		bw.abort()
		return nil, err
	}
	return bw, nil
}

func (bw *backupWriter) line(b []byte) error {
	if _, err := bw.w.Write(b); err != nil {
		return fmt.Errorf("backup: write %s: %w", bw.tmp, err)
	}
	if err := bw.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("backup: write %s: %w", bw.tmp, err)
	}
	return nil
}

// add writes the line of one op. It encodes by hand: it runs once per key.
func (bw *backupWriter) add(op Op) error {
	b := bw.buf[:0]
	if utf8.ValidString(op.Key) {
		b = append(b, `{"key":`...)
		kb, _ := json.Marshal(op.Key)
		b = append(b, kb...)
	} else {
		b = append(b, `{"key_base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(op.Key))
		b = append(b, '"')
	}
	b = append(b, `,"value":"`...)
	b = base64.StdEncoding.AppendEncode(b, op.Original)
	b = append(b, `","mod_revision":`...)
	b = strconv.AppendInt(b, op.ModRevision, 10)
	if op.ModRevision == 0 {
		b = append(b, `,"absent":true`...)
	}
	if op.Delete {
		b = append(b, `,"op":"delete"}`...)
	} else {
		b = append(b, `,"op":"put"}`...)
	}
	bw.buf = b
	bw.n++
	return bw.line(b)
}

// commit writes the end line, syncs the file and its folder, and renames the
// file to its final name without overwriting anything.
func (bw *backupWriter) commit() error {
	eb, _ := json.Marshal(backupEnd{End: true, Ops: bw.n})
	if err := bw.line(eb); err != nil {
		bw.abort()
		return err
	}
	if err := bw.w.Flush(); err != nil {
		bw.abort()
		return fmt.Errorf("backup: write %s: %w", bw.tmp, err)
	}
	if err := bw.f.Sync(); err != nil {
		bw.abort()
		return fmt.Errorf("backup: sync %s: %w", bw.tmp, err)
	}
	if err := bw.f.Close(); err != nil {
		_ = os.Remove(bw.tmp)
		return fmt.Errorf("backup: close %s: %w", bw.tmp, err)
	}
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

func (bw *backupWriter) abort() {
	if bw.f != nil {
		_ = bw.f.Close()
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
	// Line is the entry's line number in the file (the header is line 1).
	Line int64
}

// BackupReader streams a backup file an entry at a time.
type BackupReader struct {
	Path   string
	Header Header
	f      *os.File
	r      *bufio.Reader
	line   int64
	n      int64
	done   bool
}

// OpenBackup opens a backup file and reads its header.
func OpenBackup(path string) (*BackupReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	br := &BackupReader{Path: path, f: f, r: bufio.NewReaderSize(f, 1<<20)}
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
	return br, nil
}

func (br *BackupReader) readLine() ([]byte, error) {
	b, err := br.r.ReadBytes('\n')
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
	return b[:len(b)-1], nil
}

// Next returns the next entry; ok is false after the end line, which it
// checks against the number of entries read. A file that stops before its end
// line is an error: it was not completely written.
func (br *BackupReader) Next() (e Entry, ok bool, err error) {
	if br.done {
		return Entry{}, false, nil
	}
	b, err := br.readLine()
	if errors.Is(err, io.EOF) {
		return Entry{}, false, fmt.Errorf("backup %s: no end line after %d entries (truncated file)", br.Path, br.n)
	}
	if err != nil {
		return Entry{}, false, err
	}
	if e, ok := parseEntryLine(b); ok {
		if e.Absent != (e.ModRevision == 0) {
			return Entry{}, false, fmt.Errorf("backup %s: line %d: absent=%v with mod_revision %d", br.Path, br.line, e.Absent, e.ModRevision)
		}
		e.Line = br.line
		br.n++
		return e, true, nil
	}
	var l struct {
		backupLine
		backupEnd
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return Entry{}, false, fmt.Errorf("backup %s: line %d: %v", br.Path, br.line, err)
	}
	if l.End {
		if l.backupEnd.Ops != br.n {
			return Entry{}, false, fmt.Errorf("backup %s: end line says %d entries, file has %d", br.Path, l.backupEnd.Ops, br.n)
		}
		if _, err := br.readLine(); !errors.Is(err, io.EOF) {
			return Entry{}, false, fmt.Errorf("backup %s: data after the end line", br.Path)
		}
		br.done = true
		return Entry{}, false, nil
	}
	e = Entry{Key: l.Key, ModRevision: l.ModRevision, Absent: l.Absent, Delete: l.Op == "delete", Line: br.line}
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

// Close closes the file.
func (br *BackupReader) Close() error { return br.f.Close() }

// parseEntryLine reads an entry line in exactly the form backupWriter.add
// writes it, without encoding/json (replay reads every line of a run's
// backup): a key without escapes, a base64 value, a mod revision, "absent"
// and the op in that order. ok is false for anything else (escaped or
// base64 keys, other spacing or order, the end line), which Next then reads
// with encoding/json.
func parseEntryLine(b []byte) (e Entry, ok bool) {
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
	if rest, ok = cutPrefix(rest[i:], `","value":"`); !ok {
		return Entry{}, false
	}
	i = 0
	for i < len(rest) && rest[i] != '"' {
		i++
	}
	if i == len(rest) {
		return Entry{}, false
	}
	e.Value = make([]byte, base64.StdEncoding.DecodedLen(i))
	n, err := base64.StdEncoding.Decode(e.Value, rest[:i])
	if err != nil {
		return Entry{}, false
	}
	e.Value = e.Value[:n]
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
	switch string(rest) {
	case `,"op":"put"}`:
	case `,"op":"delete"}`:
		e.Delete = true
	default:
		return Entry{}, false
	}
	return e, true
}

func cutPrefix(b []byte, p string) ([]byte, bool) {
	if len(b) < len(p) || string(b[:len(p)]) != p {
		return b, false
	}
	return b[len(p):], true
}
