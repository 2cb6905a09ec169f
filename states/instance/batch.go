package instance

import "context"

// Batch reads the current values of items as they come, size of them in
// one read-only transaction at revision rev (GetMany), and hands each item
// with its key's KV to fn, in the order added. Commands that stream a file
// of keys (apply's plan, restore's backup) compare it with etcd this way
// without holding the file.
type Batch[T any] struct {
	inst  *Instance
	rev   int64
	key   func(T) string
	fn    func(T, KV) error
	items []T
	keys  []string
}

// NewBatch is a Batch of size items (at least 1) read at rev.
func NewBatch[T any](inst *Instance, rev int64, size int, key func(T) string, fn func(T, KV) error) *Batch[T] {
	size = max(size, 1)
	return &Batch[T]{inst: inst, rev: rev, key: key, fn: fn, items: make([]T, 0, size), keys: make([]string, 0, size)}
}

// Add adds an item; a full batch is read and handed on.
func (b *Batch[T]) Add(ctx context.Context, item T) error {
	b.items = append(b.items, item)
	if len(b.items) < cap(b.items) {
		return nil
	}
	return b.Flush(ctx)
}

// Flush reads and hands on the items added since the last read.
func (b *Batch[T]) Flush(ctx context.Context) error {
	if len(b.items) == 0 {
		return nil
	}
	b.keys = b.keys[:0]
	for _, it := range b.items {
		b.keys = append(b.keys, b.key(it))
	}
	cur, err := b.inst.GetMany(ctx, b.keys, b.rev)
	if err != nil {
		return err
	}
	for i, it := range b.items {
		if err := b.fn(it, cur[i]); err != nil {
			return err
		}
	}
	b.items = b.items[:0]
	return nil
}
