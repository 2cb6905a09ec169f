package models

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Session is a Milvus component's registration under session/. A component is
// alive while its key is attached to an etcd lease.
type Session struct {
	Key      string `json:"key"`
	Role     string `json:"role"`
	ServerID int64  `json:"server_id"`
	Address  string `json:"address"`
	Version  string `json:"version,omitempty"`
	Lease    int64  `json:"lease"`
	Alive    bool   `json:"alive"`
}

// SessionIDKey is the server-id counter: no lease, not a component.
const SessionIDKey = "session/id"

type sessionJSON struct {
	ServerID   int64  `json:"ServerID"`
	ServerName string `json:"ServerName"`
	Address    string `json:"Address"`
	Version    string `json:"Version"`
}

// DecodeSession decodes a session value; rel is its key under the meta root.
func DecodeSession(rel string, value []byte, lease int64) (*Session, error) {
	var js sessionJSON
	if err := json.Unmarshal(value, &js); err != nil {
		return nil, fmt.Errorf("session %s is not JSON: %w", rel, err)
	}
	role := js.ServerName
	if role == "" {
		role = strings.TrimPrefix(rel, SessionPrefix)
		if i := strings.LastIndexByte(role, '-'); i > 0 {
			role = role[:i]
		}
	}
	return &Session{Key: rel, Role: role, ServerID: js.ServerID, Address: js.Address, Version: js.Version, Lease: lease, Alive: lease != 0}, nil
}
