package models

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// DatabasePrefix holds rootcoord's databases: root-coord/database/db-info/{dbID}.
// Not verified in pkg/v2 v2.6.23: the prefix is built in Milvus's root module
// (internal/metastore/kv/rootcoord, DBInfoMetaPrefix = "root-coord/database/db-info"),
// which pkg does not hold.
const DatabasePrefix = "root-coord/database/db-info/"

// etcdpb.DatabaseInfo field numbers (pkg/v2 v2.6.23 proto/etcd_meta.proto).
const (
	dbTenant      protowire.Number = 1
	dbName        protowire.Number = 2
	dbID          protowire.Number = 3
	dbState       protowire.Number = 4
	dbCreatedTime protowire.Number = 5
	dbProperties  protowire.Number = 6
)

// etcdpb.DatabaseState.
var databaseStates = map[uint64]string{0: "DatabaseUnknown", 1: "DatabaseCreated", 2: "DatabaseCreating", 3: "DatabaseDropping", 4: "DatabaseDropped"}

// DatabaseInfo is the decoded view of etcdpb.DatabaseInfo.
type DatabaseInfo struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	TenantID    string     `json:"tenant_id,omitempty"`
	State       string     `json:"state"`
	CreatedTime uint64     `json:"created_time"`
	Properties  []KeyValue `json:"properties"`
}

// DecodeDatabaseInfo decodes a db-info value.
func DecodeDatabaseInfo(b []byte) (*DatabaseInfo, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a DatabaseInfo: %w", err)
	}
	props, err := keyValues(m, dbProperties, "DatabaseInfo.properties")
	if err != nil {
		return nil, err
	}
	return &DatabaseInfo{
		ID:          int64(m.Varint(dbID)),
		Name:        m.String(dbName),
		TenantID:    m.String(dbTenant),
		State:       stateName(databaseStates, m.Varint(dbState)),
		CreatedTime: m.Varint(dbCreatedTime),
		Properties:  props,
	}, nil
}

// ParseDatabaseKey returns the database id of a db-info key.
func ParseDatabaseKey(rel string) (id int64, ok bool) {
	rest, ok := strings.CutPrefix(rel, DatabasePrefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil
}
