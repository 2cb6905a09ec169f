package framework

// Guard is a prefix that must hold no key with a lease while the kit
// writes (Milvus's sessions: a live component writes metadata at any
// time). The kit reads it again after the question and after the verify,
// and every transaction compares it (no key of the prefix but Except holds
// a lease): a live key fails the next transaction, named, and fails the
// verify. A transaction whose compare fails on a key reads it too, to name
// who changed the key.
type Guard struct {
	Name   string
	Prefix string
	// Except are keys under Prefix that hold no session (a counter).
	Except []string
	// Role names what a live key belongs to ("datacoord"), from its key and
	// value; nil: the key alone names it.
	Role func(key string, value []byte) string
}
