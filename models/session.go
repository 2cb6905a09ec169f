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
	return &Session{Key: rel, Role: sessionRole(rel, js.ServerName), ServerID: js.ServerID, Address: js.Address, Version: js.Version, Lease: lease, Alive: lease != 0}, nil
}

// SessionRole is the role of the component a session key belongs to
// ("datacoord"): its value's ServerName, or, when the value says none or is
// not JSON, its key's name without the server id (session/querynode-7).
// key may be absolute: the role comes from its last part under session/.
func SessionRole(key string, value []byte) string {
	var js sessionJSON
	_ = json.Unmarshal(value, &js)
	rel := key
	if i := strings.LastIndex(key, SessionPrefix); i >= 0 {
		rel = key[i:]
	}
	return sessionRole(rel, js.ServerName)
}

func sessionRole(rel, serverName string) string {
	if serverName != "" {
		return serverName
	}
	role := strings.TrimPrefix(rel, SessionPrefix)
	if i := strings.LastIndexByte(role, '-'); i > 0 {
		role = role[:i]
	}
	return role
}
