package apply

// PreviousBackup is the backup a run of command on root path root, planned
// at revision rev, would continue: the latest earlier backup of that root
// path by command in dir (absolute), the one `restore --file PATH --run`
// rolls an interrupted run back with. ok is false when dir holds none.
func PreviousBackup(dir, root string, rev int64, command string) (path string, ok bool) {
	path, _, ok = previousBackup(dir, Header{RootPath: root, Revision: rev}, command)
	return path, ok
}
