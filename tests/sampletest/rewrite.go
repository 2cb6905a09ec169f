package sampletest

import (
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// RewriteStartPositions sets the data of every start_positions pair of a
// CollectionInfo whose key is in scope (a pchannel in scope, or a vchannel
// of one) to id's bytes; it returns the new value and how many pairs
// changed, every other byte kept (models.EditStartPositions without the
// pairs as read).
func RewriteStartPositions(b []byte, inScope func(pchannel string) bool, id msgid.ID) ([]byte, int, error) {
	nv, changed, _, err := models.EditStartPositions(b, inScope, id)
	return nv, changed, err
}

// RewriteSegmentPositions sets msgID and WAL_name of a SegmentInfo's
// start_position and dml_position (where present) to id; it returns the new
// value and how many positions changed, everything else kept byte for byte
// (with nothing to change, the value as it is): a reset's rewrite of one segment.
// A value ViewSegment cannot read still gets the general decoder's rewrite
// (the zero view), so a test may hand it anything wire-parseable.
func RewriteSegmentPositions(b []byte, id msgid.ID) ([]byte, int, error) {
	v, err := models.ViewSegment(b)
	if err != nil {
		v = models.SegmentView{}
	}
	return models.RewriteViewedSegment(b, v, models.NewTarget(id))
}
