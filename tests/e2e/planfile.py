"""The JSONL files heron writes for plans and backups (a header line, one
line an entry, an end line with the entry count and the SHA-256 of the lines
before it), for the e2e scripts that change a copy as anyone can: they edit
the header or the entries and recompute the end line. Run with
PYTHONPATH=$E2E_DIR (lib.sh)."""
import base64
import hashlib
import json


def line(entry):
    """One JSON line as heron writes it: compact."""
    return json.dumps(entry, separators=(",", ":"))


def load(path):
    """The header (a dict) and the entry lines (strings) of a file."""
    lines = open(path).read().splitlines()
    return json.loads(lines[0]), lines[1:-1]


def save(path, header, body):
    """Writes header (a dict, or a line kept as it is) and the entry lines,
    then the end line recomputed for them."""
    if not isinstance(header, str):
        header = line(header)
    data = "".join(l + "\n" for l in [header] + body).encode()
    end = line({"end": True, "ops": len(body), "sha256": hashlib.sha256(data).hexdigest()})
    open(path, "wb").write(data + end.encode() + b"\n")


def flip_value(body, part):
    """Flips the last bit of the value (the original bytes) of the first
    entry whose key holds part."""
    for i, l in enumerate(body):
        e = json.loads(l)
        if part in e.get("key", ""):
            v = bytearray(base64.b64decode(e["value"]))
            v[-1] ^= 0x01
            e["value"] = base64.b64encode(bytes(v)).decode()
            body[i] = line(e)
            return
    raise SystemExit("no entry's key holds %r" % part)
