// Command etcd35 is etcd's own server at the version Milvus's compose file
// pins (3.5.x), built for bench/run.sh: a separate module, so that the
// main module keeps its own etcd.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
