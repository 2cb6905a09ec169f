package apply

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

// maxForeignHeader bounds the length prefix of a birdwatcher header.
const maxForeignHeader = 1 << 16

// foreignBackup names a file that is not a heron backup but another tool's
// (a birdwatcher backup: a gzip stream that starts with an 8-byte little
// endian length and a protobuf BackupHeader whose field 1 is its version),
// or a gzip file, instead of calling it a truncated or unreadable heron
// backup. It returns nil for anything else.
func foreignBackup(path string, r *bufio.Reader) error {
	head, _ := r.Peek(len(gzipMagic))
	if len(head) < len(gzipMagic) || head[0] != gzipMagic[0] || head[1] != gzipMagic[1] {
		return nil
	}
	if v, ok := birdwatcherVersion(path); ok {
		return fmt.Errorf("%s is a birdwatcher backup (format version %d), not a heron backup: heron restores and loads only the backups its own write and backup commands write; open this one with birdwatcher (load-backup)", path, v)
	}
	return fmt.Errorf("%s is a gzip file, not a heron backup (heron backups are uncompressed JSON lines): decompress it first if it is one", path)
}

// birdwatcherVersion reads the header of a birdwatcher backup.
func birdwatcherVersion(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return 0, false
	}
	var lb [8]byte
	if _, err := io.ReadFull(zr, lb[:]); err != nil {
		return 0, false
	}
	n := binary.LittleEndian.Uint64(lb[:])
	if n == 0 || n > maxForeignHeader {
		return 0, false
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(zr, hb); err != nil {
		return 0, false
	}
	// BackupHeader: field 1 (version, varint), tag byte 0x08.
	if hb[0] != 0x08 {
		return 0, false
	}
	v, k := binary.Uvarint(hb[1:])
	if k <= 0 {
		return 0, false
	}
	return int64(v), true
}
