# growsegment.py ETCD KEY BYTES TAIL: grows the segment at KEY to over BYTES
# bytes with real binlog entries (SegmentInfo.binlogs), written through
# etcd's JSON gateway (etcdctl's client cannot send that much), and writes
# the hex of the appended bytes' last 4 KiB to TAIL (a rewrite must keep
# them). Used by the e2e scripts of etcd's request limit.
import base64, json, sys, urllib.request

etcd, key, size, tail = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


def call(path, body):
    req = urllib.request.Request("http://%s/v3/kv/%s" % (etcd, path), data=json.dumps(body).encode(), method="POST")
    return json.load(urllib.request.urlopen(req))


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    tag = varint(num << 3 | wire)
    return tag + (varint(payload) if wire == 0 else varint(len(payload)) + payload)


k64 = base64.b64encode(key.encode()).decode()
value = base64.b64decode(call("range", {"key": k64})["kvs"][0]["value"])
extra = bytearray()
log = 0
while len(value) + len(extra) < size:
    # SegmentInfo.binlogs (11): FieldBinlog{fieldID 1, binlogs 2: Binlog{entries_num 1, log_path 4, log_size 5, logID 6}}
    # (milvus pkg/v2 proto/data_coord.proto)
    binlogs = b"".join(field(2, 2, field(1, 0, 1000) + field(4, 2, ("files/insert_log/100/101/%d/%d/%d" % (1001, 100 + f, log + f)).encode())
                             + field(5, 0, 4096) + field(6, 0, log + f)) for f in range(40))
    extra += field(11, 2, field(1, 0, 100 + log % 7) + binlogs)
    log += 40
call("put", {"key": k64, "value": base64.b64encode(value + bytes(extra)).decode()})
open(tail, "w").write(bytes(extra[-4096:]).hex())
