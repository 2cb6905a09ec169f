package show

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/models"
)

// decodedDoc turns a decoded view (a models struct, proto messages inside)
// into the document show etcd-kv --decode prints, in the style of every
// other document: snake_case names, enums by name (Flushed, L1, pulsar),
// positions with their id in human form and its WAL (guessed from the
// pchannel's consume checkpoint when the position does not say, as show
// checkpoint does).
type decodedDoc struct {
	// checkpointWAL is the WAL of each pchannel's consume checkpoint.
	checkpointWAL map[string]commonpb.WALName
}

var (
	timeType     = reflect.TypeOf(time.Time{})
	walNameType  = reflect.TypeOf(commonpb.WALName(0))
	positionType = reflect.TypeOf(msgpb.MsgPosition{})
	stringerType = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()
)

func (d decodedDoc) value(v any) any {
	if v == nil {
		return nil
	}
	return d.walk(reflect.ValueOf(v))
}

func (d decodedDoc) walk(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		if v.Kind() == reflect.Pointer && v.Type().Elem() == positionType {
			return d.position(v.Interface().(*msgpb.MsgPosition))
		}
		return d.walk(v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			return v.Interface()
		}
		if v.Type() == positionType {
			p := v.Addr().Interface().(*msgpb.MsgPosition)
			return d.position(p)
		}
		var out fields
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case tag == "-":
				continue
			case strings.Contains(opts, "omitempty") && v.Field(i).IsZero():
				continue
			case tag != "":
				name = tag
			}
			if f.Anonymous && f.Type.Kind() == reflect.Struct && tag == "" {
				if inner, ok := d.walk(v.Field(i)).(fields); ok {
					out = append(out, inner...)
				}
				continue
			}
			value := d.walk(v.Field(i))
			if seg, ok := v.Interface().(models.SegmentInfo); ok && f.Name == "Level" {
				value = levelName(seg.Level) // an int32 in the view, named as show segment names it
			}
			out = append(out, field{snakeCase(name), value})
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = d.walk(v.Index(i))
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		iter := v.MapRange()
		for iter.Next() {
			out[fmt.Sprint(iter.Key().Interface())] = d.walk(iter.Value())
		}
		return out
	case reflect.Int32, reflect.Int64, reflect.Int, reflect.Uint32:
		if v.Type() == walNameType {
			return walName(commonpb.WALName(v.Int()))
		}
		// A named integer type with a String method is an enum.
		if v.Type().PkgPath() != "" && v.Type().Implements(stringerType) && v.Type() != reflect.TypeOf(time.Duration(0)) {
			return v.Interface().(fmt.Stringer).String()
		}
	}
	if v.CanInterface() {
		return v.Interface()
	}
	return nil
}

// position is a MsgPosition as the other documents show one.
func (d decodedDoc) position(p *msgpb.MsgPosition) fields {
	wal, guessed := models.PositionWAL(p, d.checkpointWAL[models.PChannelOf(p.GetChannelName())])
	out := fields{{"channel_name", p.GetChannelName()}, {"msg_id", base64.StdEncoding.EncodeToString(p.GetMsgID())}}
	if len(p.GetMsgID()) > 0 && wal != commonpb.WALName_Unknown {
		human, errText := describe(wal, p.GetMsgID())
		out = append(out, field{"msg_id_human", human}, field{"wal", walName(wal)}, field{"wal_guessed", guessed})
		if errText != "" {
			out = append(out, field{"error", errText})
		}
	}
	return append(out, field{"timestamp", p.GetTimestamp()}, field{"time", tsoTime(p.GetTimestamp())})
}

// field is one name and value of a decoded struct.
type field struct {
	name  string
	value any
}

// fields are a decoded struct: a JSON object in the struct's field order.
type fields []field

// MarshalJSON writes the fields as an object, in order.
func (fs fields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// snakeCase is CollectionID → collection_id, DMLPosition → dml_position,
// msgID → msg_id; a name already in snake_case stays as it is.
func snakeCase(s string) string {
	r := []rune(s)
	var sb strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]))
			nextLower := i > 0 && i+1 < len(r) && unicode.IsUpper(r[i-1]) && unicode.IsLower(r[i+1])
			if prevLower || nextLower {
				sb.WriteByte('_')
			}
			sb.WriteRune(unicode.ToLower(c))
			continue
		}
		sb.WriteRune(c)
	}
	return sb.String()
}
