#!/usr/bin/env python3
"""Writes docs/runbook/*.md, one page per WAL switch, from one text: the
steps every switch shares keep one wording, and each page still stands alone
(an on-call engineer reads only the page of the switch at hand).

    python3 scripts/runbook-pages.py      # rewrites docs/runbook/{source}-to-{target}.md
    python3 scripts/runbook-pages.py DIR  # writes them into DIR (test_runbook.sh compares)

Edit the text here, not the pages. tests/e2e/commands/test_runbook.sh runs
the pages' `heron` blocks against a real etcd."""
import os
import sys
import textwrap

NAME = {"pulsar": "Pulsar", "kafka": "Kafka", "rocksmq": "RocksMQ", "woodpecker": "Woodpecker"}
PAGES = [("pulsar", "woodpecker"), ("kafka", "woodpecker"), ("rocksmq", "woodpecker"),
         ("woodpecker", "kafka"), ("woodpecker", "pulsar"), ("kafka", "pulsar"), ("pulsar", "kafka")]

# The reset's own flags per target: what the target check needs.
TARGET_FLAGS = {
    "woodpecker": "",
    "kafka": " --kafka-brokers KAFKA_HOST:9092 --milvus-version MILVUS_VERSION",
    "pulsar": " --pulsar-admin http://PULSAR_HOST:8080 --milvus-version MILVUS_VERSION",
}
CHECK_FLAGS = {"woodpecker": "", "kafka": " --kafka-brokers KAFKA_HOST:9092", "pulsar": ""}


def fill(text):
    """One paragraph wrapped at 100 columns like the rest of the page."""
    return textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False)


def releases(src, tgt):
    s = ("**Milvus releases.** Milvus 2.6.x (the streaming releases: etcd holds `streamingnode-meta/` and "
         "`streamingcoord-meta/`) and 3.0. Not 2.5 or older: heron refuses a pre-streaming instance (gate "
         "\"a streaming (2.6 or later) instance\", exit 3), and 2.5 has no woodpecker.")
    if src == "rocksmq":
        s += (" RocksMQ is Milvus standalone's local MQ, so this page is for **standalone** (Helm "
              "`cluster.enabled=false`, Operator `mode: standalone`, the standalone docker compose). RocksMQ as "
              "a *target* has no page: Milvus 2.6.23 and 3.0.0 stall on it after a switch (\"Rmq server is "
              "nil\": the rocksmq WAL needs a server that starts only when rocksmq was the WAL from process "
              "start) and master refuses rocksmq outside standalone mode.")
    if tgt == "woodpecker":
        s += (" Woodpecker keeps its metadata in the same etcd: Milvus 2.6 builds with woodpecker before "
              "v0.1.30 under the top-level `woodpecker/` (shared by every instance on that etcd; only the log "
              "names, which are the pchannel names, tell instances apart), later 2.6 builds and 3.0 under "
              "`by-dev/woodpecker/` (`woodpecker.meta.prefix`, default `woodpecker`); while any key is left "
              "under the legacy `woodpecker/`, woodpecker keeps using it. heron reads every one of these "
              "prefixes and prints the one in effect.")
    if tgt == "kafka":
        s += (" heron writes Kafka's earliest position as offset `0` for 2.6 and `-2` (OffsetBeginning, what "
              "Milvus's own online switch writes) for 3.x: it reads the release from the session keys, which "
              "a stopped Milvus no longer has, so the commands below pass `--milvus-version`.")
    if tgt == "pulsar":
        s += (" Milvus 2.6.0 to 2.6.8 write every topic to `public/default` whatever `pulsar.tenant` and "
              "`pulsar.namespace` say (milvus-io/milvus#46748): the commands below pass `--milvus-version` so "
              "that heron checks the right namespace (both, for those releases).")
    if src == "woodpecker":
        s += (" Woodpecker's logs of the old WAL stay in its metadata and object storage: heron does not touch "
              "them on this switch. A later switch back to woodpecker starts with `reset wal --target "
              "woodpecker` (the woodpecker pages).")
    return s


def tested(src, tgt):
    page = f"{src}-to-{tgt}.md"
    s = ("**What was tested.** `tests/e2e/commands/test_runbook.sh` (`bash tests/e2e/run.sh test_runbook`) "
         "takes this page's `heron` blocks in order, puts a test etcd for `ETCD_HOST:2379` and a temporary "
         "folder for `BACKUP_DIR`, and types each line into heron after `connect` against Debian's etcd "
         f"server seeded with heron demo's instance on {NAME[src]} (3 pchannels, stopped sessions without a "
         "lease, a replication checkpoint, a tombstone broadcast task")
    if src in ("pulsar", "kafka"):
        s += ", woodpecker logs left from an earlier run on woodpecker"
    s += "); "
    if tgt == "kafka":
        s += "`KAFKA_HOST:9092` is a Kafka broker without the topics (`tests/e2e/kafkafake`); "
    if tgt == "pulsar":
        s += "`http://PULSAR_HOST:8080` is a stand-in admin API that knows no topic (404: absent); "
    s += (f"the `etcdctl snapshot` lines of steps 1 and 3 (etcdctl 3.4) and step 1's `heron --olc` line "
          f"run too; every line must exit 0, `show session`, `show broadcast-task` and each `--run` must "
          f"print what this page says to look for (`0 alive`, `0 in flight`, `verify: ok`), and at the end "
          f"`show checkpoint "
          f"--pchannels` must say that every pchannel is on {tgt}, none split. Then it takes step 9's way "
          "back, restoring the backups the page's commands wrote newest first, and compares every key with "
          "the seeded instance, byte for byte. The same script checks that every flag of this page's "
          "`heron-live` and `heron-s3` blocks is one that heron's `help` lists. A renamed flag or command "
          "fails it. "
          "**Not tested**: a real Milvus (its flush, stop, restart and `check` on a running instance), Helm, "
          "the Milvus Operator, docker compose, restoring an etcd snapshot, ")
    if tgt == "woodpecker":
        s += "the deletion of woodpecker's objects (`--minio-*`, the `heron-s3` block), "
    s += (f"a real {NAME[tgt] if tgt != 'woodpecker' else 'object storage'}, and the repairs of step 8 on a real "
          "Milvus (they are tested against etcd with real protobuf bytes: `tests/e2e/commands/test_repair.sh` and "
          "`TestCheckNamesTheRepairThatClosesIt`).")
    return s


def stop_section(src):
    kept = {"pulsar": "and so must Pulsar (the way back needs it)",
            "kafka": "and so must Kafka (the way back needs it)",
            "rocksmq": "and the standalone's volume, which holds RocksMQ's data, must be kept (the way back needs it)",
            "woodpecker": "and so must the woodpecker service if you run one (embedded woodpecker runs inside the "
                          "streaming node; its data is in MinIO)"}[src]
    intro = fill("Stop every Milvus component (mixcoord, proxy, querynode, datanode, streamingnode; or "
                 f"standalone) and nothing else: etcd and MinIO must stay up, {kept}. Use the way the instance "
                 "was deployed.")
    return f"""## 3. Stop Milvus, keep etcd, MinIO and the MQs up

{intro}

**Helm chart** (`milvus/milvus`, release `RELEASE` in `NAMESPACE`). The chart labels its Milvus
workloads `app.kubernetes.io/name=milvus` and the release `app.kubernetes.io/instance=RELEASE`; its
etcd, MinIO, Pulsar and Kafka subcharts carry other names, so this selector leaves them alone. Save
the replica counts and the values first, then scale to 0:

```sh
kubectl get deploy,statefulset -n NAMESPACE -l app.kubernetes.io/instance=RELEASE,app.kubernetes.io/name=milvus
kubectl get deploy -n NAMESPACE -l app.kubernetes.io/instance=RELEASE,app.kubernetes.io/name=milvus -o custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas --no-headers > BACKUP_DIR/replicas.txt
helm get values RELEASE -n NAMESPACE -o yaml > BACKUP_DIR/helm-values-before.yaml
kubectl scale deploy -n NAMESPACE -l app.kubernetes.io/instance=RELEASE,app.kubernetes.io/name=milvus --replicas=0
kubectl get pods -n NAMESPACE -l app.kubernetes.io/instance=RELEASE,app.kubernetes.io/name=milvus
```

The first command lists what the selector takes: expect only Milvus components (Attu and CDC, if
enabled, go too, which is harmless). A statefulset listed there is the woodpecker service of
`woodpecker.enabled` with `streaming.woodpecker.embedded=false`: it is not a Milvus component; leave
it up. `kubectl scale` lasts until the next `helm upgrade`, which sets the replicas of the values
again (that is how step 7 starts Milvus). The alternative through Helm alone is
`helm upgrade --reset-then-reuse-values` with each component's `replicas` at 0
(`mixCoordinator.replicas`, `proxy.replicas`, `queryNode.replicas`, `dataNode.replicas`,
`streamingNode.replicas`, or `standalone.replicas`); an HPA that manages a component must be
suspended first.

**Milvus Operator** (a `Milvus` resource `NAME` in `NAMESPACE`). The operator's documentation stops
a cluster by scaling the component replicas to 0 (`docs/administration/scale-a-milvus-cluster.md`):
`spec.components.replicas` is the default of every component, and a component's own
`spec.components.<component>.replicas` (`mixCoord`, `proxy`, `queryNode`, `dataNode`,
`streamingNode`, `standalone`) or deployment `groups` win over it, so set those to 0 too. The
resource's `status.status` reads `Stopped` once no Milvus pod is left:

```sh
kubectl get milvus NAME -n NAMESPACE -o yaml > BACKUP_DIR/milvus-cr-before.yaml
kubectl patch milvus NAME -n NAMESPACE --type merge -p '{{"spec":{{"components":{{"replicas":0}}}}}}'
kubectl get milvus NAME -n NAMESPACE -o jsonpath='{{.status.status}}'
```

Not verified here: that every operator release accepts the patch as shown (this text follows
milvus-operator's `main` of 2026-08), and how an HPA managing a group behaves (the operator's docs
say to suspend external HPAs and set static replicas before a full stop).

**docker compose** (Milvus's compose file: services `etcd`, `minio`, `standalone`; a cluster compose
has one service per component). Stop only the Milvus services:

```sh
docker compose ps --services
docker compose stop standalone
docker compose ps
```

**Then, whatever the deployment**, open heron on the instance's etcd (the `heron` binary, or its
container image: [docs/release.md](../release.md)) and wait until no session is alive: a component
that did not stop cleanly (killed, evicted) keeps its session key until its lease expires (Milvus's
session TTL: tens of seconds).

```sh
heron
```

Type `connect --etcd ETCD_HOST:2379 --rootPath by-dev` (add `--etcdUserName`/`--enableTLS` and the
certificate flags your etcd needs: `help connect`). Every `heron` block below is typed in that shell,
one line at a time, and each must end without `error:`. Run `show session` again until its last line
says `0 alive`; then take the backups of the stopped instance: heron's (the pre-switch state that
`check --since-backup` compares with) and etcd's (the last way back):

```heron
show session
show broadcast-task
backup --file BACKUP_DIR/by-dev-stopped.jsonl
```

```sh
ETCDCTL_API=3 etcdctl --endpoints=ETCD_HOST:2379 snapshot save BACKUP_DIR/etcd-stopped.db
```

`show broadcast-task` must end with `0 in flight`. A task still in flight means Milvus was stopped
before it finished: start Milvus on {NAME[src]} again (step 7's commands, without the config change) until
it finishes, then stop again; a task that never finishes is step 8's `repair wal-broadcast-task`.
"""


def target_prep(src, tgt):
    if tgt == "woodpecker":
        return """## 4. Empty woodpecker's logs of the instance's pchannels

Woodpecker must start fresh: a log of a pchannel left in its metadata (from an earlier run on
woodpecker, even one truncated with no segment left) makes the WAL never open after the reset.
`reset wal` deletes those logs' etcd keys (never `logidgen`, never other instances' logs). Read the
plan, then run it:

```heron
reset wal --target woodpecker
reset wal --target woodpecker --run --backup-dir BACKUP_DIR
```

When the plan lists no log, the run writes nothing, which is fine. Without `--minio-address` the
logs' objects stay in the bucket (`{minio.bucketName}/{minio.rootPath}/wp/{logId}/`): that is safe
because log ids are never reused, so no new log reads them; they only take space. To delete them
too, give heron the object storage Milvus uses (`minio.address:minio.port`, `minio.bucketName`,
`minio.rootPath`; credentials from `MINIO_ACCESS_KEY_ID` and `MINIO_SECRET_ACCESS_KEY` in heron's
environment) in place of the block above. An etcd backup cannot bring deleted objects back:

```heron-s3
reset wal --target woodpecker --minio-address MINIO_HOST:9000 --minio-bucket a-bucket --minio-root-path files
reset wal --target woodpecker --minio-address MINIO_HOST:9000 --minio-bucket a-bucket --minio-root-path files --run --backup-dir BACKUP_DIR
```

If milvus.yaml sets `woodpecker.meta.prefix` to something else than `woodpecker`, add
`--wp-meta-prefix THAT` to every `reset wal`, `reset checkpoint` and `show checkpoint` here (heron
sees an etcd override of it, not milvus.yaml). With `woodpecker.storage.type` `local` or `service`
heron cannot reach the data: the plan says so and `--run` needs `--allow-data-left`.
"""
    if tgt == "kafka":
        return """## 4. Make sure the Kafka topics are fresh

After the reset Milvus reads each pchannel's topic (named after the pchannel, partition 0) from
its beginning: a topic that still holds records (from an earlier run of this instance on Kafka) is
replayed. Each topic must be absent, or empty (low watermark equal to the high one, also when
retention deleted every record). heron checks this in step 5's dry run with `--kafka-brokers` (gate
"target topics are fresh"; it creates no topic) and names every topic that holds records. To look yourself, and to delete a topic heron
names (one `--delete` per topic; the brokers need `delete.topic.enable=true`, Kafka's default):

```sh
kafka-topics.sh --bootstrap-server KAFKA_HOST:9092 --list | grep '^by-dev-rootcoord-dml_'
kafka-topics.sh --bootstrap-server KAFKA_HOST:9092 --delete --topic by-dev-rootcoord-dml_0
```

Keep every other writer off these topics until Milvus starts. With SASL or TLS, give heron the same
settings as Milvus's `kafka.*` (`--kafka-security-protocol`, `--kafka-sasl-mechanisms`,
`--kafka-sasl-username`, the password in `KAFKA_SASL_PASSWORD`, `--kafka-ssl-ca-cert`, ...:
`help reset checkpoint`).
"""
    return """## 4. Make sure the Pulsar topics are fresh

After the reset Milvus reads each pchannel's topic (`persistent://{tenant}/{namespace}/{pchannel}`)
from its earliest entry: a topic that still holds entries (from an earlier run of this instance on
Pulsar) is replayed. Each topic must be absent or hold no entry. heron checks this in step 5's dry
run with `--pulsar-admin` (the admin API, `http://host:{pulsar.webport}`; gate "target topics are
fresh"), reading each topic's `internalStats` (a partitioned topic: every partition), and names
every topic that holds entries. The tenant and namespace are `--pulsar-tenant`/`--pulsar-namespace`,
else the instance's etcd overrides, else `public`/`default`; a token goes in a file
(`--pulsar-token-file`). To look yourself, and to delete a topic heron names:

```sh
pulsar-admin --admin-url http://PULSAR_HOST:8080 topics list public/default | grep 'by-dev-rootcoord-dml_'
pulsar-admin --admin-url http://PULSAR_HOST:8080 topics delete persistent://public/default/by-dev-rootcoord-dml_0
```

(`topics delete-partitioned-topic` for a partitioned one.) Keep every other writer off these topics
until Milvus starts.
"""


# The chart renders one milvus.yaml from the MQs its values enable
# (milvus-helm charts/milvus/templates/config.tpl, chart 5.0.19): the first
# of externalPulsar, pulsar, woodpecker, pulsarv3 writes an `mq:` section,
# then externalKafka or kafka writes another. What the old MQ must do there.
HELM_OLD = {
    ("pulsar", "woodpecker"): "The old Pulsar: an in-cluster `pulsarv3` may stay enabled (woodpecker comes "
                              "before it in the chart's choice); `externalPulsar.enabled` or `pulsar.enabled` "
                              "(Pulsar 2) come before woodpecker: set them to `false`.",
    ("kafka", "woodpecker"): "The old Kafka: `kafka.enabled` or `externalKafka.enabled` adds a `mq: kafka` "
                             "section of its own: set it to `false`.",
    ("rocksmq", "woodpecker"): "Leave `woodpecker.enabled` alone on a standalone release: "
                               "`standalone.messageQueue` chooses there.",
    ("woodpecker", "kafka"): "The old woodpecker: `woodpecker.enabled` adds a `mq: woodpecker` section of its "
                             "own: set it to `false` (with `streaming.woodpecker.embedded=false` that also "
                             "removes the woodpecker service's statefulset).",
    ("woodpecker", "pulsar"): "The old woodpecker: `woodpecker.enabled` comes before an in-cluster `pulsarv3` "
                              "in the chart's choice: set it to `false` (with "
                              "`streaming.woodpecker.embedded=false` that also removes the woodpecker service's "
                              "statefulset).",
    ("kafka", "pulsar"): "The old Kafka: `kafka.enabled` or `externalKafka.enabled` adds a `mq: kafka` section "
                         "of its own: set it to `false`.",
    ("pulsar", "kafka"): "The old Pulsar: `pulsarv3.enabled` (the chart's default), `pulsar.enabled` or "
                         "`externalPulsar.enabled` adds a `mq: pulsar` section of its own: set it to `false`.",
}
HELM_RENDERED = ("Each MQ the values enable writes its own `mq:` section and settings into the milvus.yaml the "
                 "chart renders (`templates/config.tpl`), so read it before you start: `kubectl get configmap "
                 "-n NAMESPACE -l app.kubernetes.io/instance=RELEASE -o yaml`. An in-cluster MQ subchart set to "
                 "`false` takes its pods away; its statefulsets' PersistentVolumeClaims stay, so enabling it "
                 "again for the way back should find its data (not verified here).")


def config_section(src, tgt):
    yaml = {
        "woodpecker": """mq:
  type: woodpecker
woodpecker:
  meta:
    prefix: woodpecker   # the default; another value: pass --wp-meta-prefix to heron
  storage:
    type: minio          # Milvus's default: the data in Milvus's bucket under {minio.rootPath}/wp/""",
        "kafka": """mq:
  type: kafka
kafka:
  brokerList: KAFKA_HOST:9092
  securityProtocol: PLAINTEXT   # or SSL, SASL_PLAINTEXT, SASL_SSL, as your brokers need
  saslMechanisms: PLAIN
  saslUsername: ""
  saslPassword: \"\"""",
        "pulsar": """mq:
  type: pulsar
pulsar:
  address: PULSAR_HOST
  port: 6650
  webport: 8080
  tenant: public
  namespace: default""",
    }[tgt]
    helm = {
        "woodpecker": ("The chart writes `mq.type: woodpecker` when `woodpecker.enabled=true` and neither "
                       "`externalPulsar.enabled` nor `pulsar.enabled` (the Pulsar 2 subchart) is set, and "
                       "runs woodpecker inside the streaming node (`streaming.woodpecker.embedded=true`, the "
                       "default) with `streaming.woodpecker.storage.type` (default `minio`). On a standalone "
                       "release `standalone.messageQueue: woodpecker` (the chart's default) does not switch "
                       "an upgrade: the chart then keeps the queue the standalone deployment's "
                       "`milvus.io/message-queue` annotation names (`milvus.standalone.messageQueue` in "
                       "its `_helpers.tpl`). "
                       "`extraConfigFiles.user.yaml`, which the chart documents as overriding its own "
                       "config, states it whatever the chart derives:"),
        "kafka": ("For an external Kafka the chart writes the `kafka:` settings from `externalKafka.enabled=true`, "
                  "`externalKafka.brokerList`, `externalKafka.securityProtocol` (its default is `SASL_SSL`: "
                  "set `PLAINTEXT` for brokers without security) and `externalKafka.sasl.*` (an in-cluster "
                  "Kafka: `kafka.enabled=true`); "
                  "`extraConfigFiles.user.yaml`, which the chart documents as overriding its own config, "
                  "states `mq.type` whatever the chart derives:"),
        "pulsar": ("For an external Pulsar the chart writes the `pulsar:` settings from "
                   "`externalPulsar.enabled=true`, `externalPulsar.host`, `externalPulsar.port`, "
                   "`externalPulsar.tenant`, `externalPulsar.namespace` (and `authPlugin`/`authParams`; an "
                   "in-cluster Pulsar: `pulsarv3.enabled=true`); "
                   "`extraConfigFiles.user.yaml`, which the chart documents as overriding its own config, "
                   "states `mq.type` whatever the chart derives:"),
    }[tgt]
    helm_code = ""
    if src == "rocksmq":
        helm = ("A standalone release renders `mq.type` from `standalone.messageQueue`, but when that is "
                "`woodpecker` (the chart's default) an upgrade keeps the queue the standalone deployment's "
                "`milvus.io/message-queue` annotation names (`milvus.standalone.messageQueue` in the chart's "
                "`_helpers.tpl`; `templates/standalone-deployment.yaml` writes the annotation), which is "
                "`rocksmq` here. So annotate the deployment first (its name: `kubectl get deploy -n NAMESPACE "
                "-l app.kubernetes.io/instance=RELEASE,component=standalone`), then set the values; "
                "`extraConfigFiles.user.yaml`, which the chart documents as overriding its own config, states "
                "it as well:")
        helm_code = ("```sh\nkubectl annotate deploy RELEASE-milvus-standalone -n NAMESPACE "
                     "milvus.io/message-queue=woodpecker --overwrite\n```\n\n")
    helm_values = {
        "woodpecker": """extraConfigFiles:
  user.yaml: |+
    mq:
      type: woodpecker
woodpecker:
  enabled: true
streaming:
  woodpecker:
    storage:
      type: minio""",
        "kafka": """extraConfigFiles:
  user.yaml: |+
    mq:
      type: kafka
externalKafka:
  enabled: true
  brokerList: KAFKA_HOST:9092
  securityProtocol: PLAINTEXT""",
        "pulsar": """extraConfigFiles:
  user.yaml: |+
    mq:
      type: pulsar
externalPulsar:
  enabled: true
  host: PULSAR_HOST
  port: 6650
  tenant: public
  namespace: default""",
    }[tgt]
    if src == "rocksmq":
        helm_values = """extraConfigFiles:
  user.yaml: |+
    mq:
      type: woodpecker
standalone:
  messageQueue: woodpecker
streaming:
  woodpecker:
    storage:
      type: minio"""
    operator = {
        "woodpecker": '{"spec":{"dependencies":{"msgStreamType":"woodpecker"}}}',
        "kafka": '{"spec":{"dependencies":{"msgStreamType":"kafka","kafka":{"external":true,"brokerList":["KAFKA_HOST:9092"]}}}}',
        "pulsar": '{"spec":{"dependencies":{"msgStreamType":"pulsar","pulsar":{"external":true,"endpoint":"PULSAR_HOST:6650"}}}}',
    }[tgt]
    extra = ""
    if tgt == "woodpecker":
        extra = "\n" + fill("`woodpecker.storage.type`: keep `minio` (Milvus's default) or `service` in a cluster; `local` "
                 "keeps each streaming node's data on its own disk, and late 2.6 builds panic on it in cluster "
                 "mode. `woodpecker.meta.prefix`: leave the default unless you know why; heron was told the "
                 "value (`--wp-meta-prefix`) if you changed it.") + "\n"
    return f"""## 6. Point Milvus at {NAME[tgt]}: mq.type and the {NAME[tgt]} settings

`reset checkpoint --run` already set `mq.type` in Milvus's etcd config source: every key directly
under `by-dev/config/` whose name formats to `mqtype` (`config/mqtype`, `config/mq.type`, ...) now
says `{tgt}`, and when there was none it created `by-dev/config/mqtype` (step 5's `show config-etcd`
marks it). Milvus ranks its config sources etcd first, then the environment, then the files
(pkg/v2 v2.6.23 `config/source.go`: `HighPriority` for `EtcdSource`), so this override decides the
WAL, and a `restore` of the reset's backup puts it back too. Still set the deployment's own config to
`{tgt}`, with the settings Milvus needs to reach {NAME[tgt]}: a milvus.yaml that names the old MQ is
a trap for the next person, and a deleted override would bring it back. In milvus.yaml (or
`user.yaml` beside it):

```yaml
{yaml}
```
{extra}
{fill("**Helm chart.** " + helm)}

{helm_code}```yaml
{helm_values}
```

Copy whatever `BACKUP_DIR/helm-values-before.yaml` holds under `extraConfigFiles.user.yaml` into
that `user.yaml` first (the value replaces the whole file). Save it as `BACKUP_DIR/mq-{tgt}.yaml`;
step 7 applies it.

{fill(HELM_OLD[src, tgt] + " " + HELM_RENDERED)}

**Milvus Operator.** The operator writes `mq.type` from `spec.dependencies.msgStreamType` and drops
the other MQs' sections from the config it renders (milvus-operator `pkg/controllers/configmaps.go`):

```sh
kubectl patch milvus NAME -n NAMESPACE --type merge -p '{operator}'
```

Not verified here: whether an operator release re-creates or deletes an in-cluster MQ it manages
when `msgStreamType` changes (check `spec.dependencies.*.inCluster.deletionPolicy` before you patch),
and whether it rolls the pods by itself once the replicas are back.

**docker compose.** Put the settings above into the `user.yaml` (or milvus.yaml) you mount into the
Milvus container at `/milvus/configs/` (add the volume to the service if there is none), or set the
environment variable `MQ_TYPE: {tgt}` on the Milvus services (Milvus's environment source reads
the same formatted names; not tested here).
"""


def start_section(src, tgt):
    return f"""## 7. Start Milvus on {NAME[tgt]} and watch it

**Helm chart:** apply step 6's values; the upgrade also sets the replicas of the values again,
which starts Milvus (use the chart version the release runs: `helm list -n NAMESPACE`):

```sh
helm upgrade RELEASE milvus/milvus -n NAMESPACE --version CHART_VERSION --reset-then-reuse-values -f BACKUP_DIR/mq-{tgt}.yaml
kubectl get pods -n NAMESPACE -l app.kubernetes.io/instance=RELEASE,app.kubernetes.io/name=milvus
```

If you scaled with `kubectl` and change no value, scale back what step 3 saved:

```sh
while read -r name replicas; do kubectl scale deploy "$name" -n NAMESPACE --replicas="$replicas"; done < BACKUP_DIR/replicas.txt
```

**Milvus Operator:** set `spec.components.replicas` (and each component's `replicas` you set to 0)
back to what `BACKUP_DIR/milvus-cr-before.yaml` holds; when it had none, remove the field:

```sh
kubectl patch milvus NAME -n NAMESPACE --type json -p '[{{"op":"remove","path":"/spec/components/replicas"}}]'
kubectl get milvus NAME -n NAMESPACE -o jsonpath='{{.status.status}}'
```

**docker compose:** `up -d` creates the container again with a changed compose file or
environment (`start` would not):

```sh
docker compose up -d standalone
```

Then, with Milvus running, watch it for five minutes in heron: `check` reads the metastore only,
every 10 s, and compares the reads with each other and with the stopped instance's backup:

```heron-live
check --target-wal {tgt} --since-backup BACKUP_DIR/by-dev-stopped.jsonl{CHECK_FLAGS[tgt]} --watch --for 5m
show wal-distribution
show vchannel-health
```

Done when `check` ends with exit 0 (`check: ok`, or only `WARN` rows: read them). Each `FAIL` row
names the keys at fault and what to do (`do:`); step 8 lists the repairs. Then write and search a
few entities through your application or the SDK before you give the instance back.
"""


def repair_section(src, tgt):
    return """## 8. When check fails: the repairs

A repair is a write command like the reset: it needs Milvus **stopped** (step 3: the components
cache what a repair writes, and heron refuses while a session is alive), shows its plan without
`--run`, writes a backup with `--run`, and `restore --file` undoes it. `check` prints each FAIL's
repair whole, on a line of its own, with the vchannel, id or cluster filled in (`--format json`:
the item's `commands`); which row leads to which repair:

| `check` row that FAILs | what is wrong | repair (dry run, then the same with `--run --backup-dir BACKUP_DIR`) |
|---|---|---|
| `progress`: a channel checkpoint over the max lag that also lags its pchannel's consume checkpoint by more than the max lag (as old as the pchannel's: no repair, a running flusher moves it) | the vchannel's checkpoint is frozen at a position its flusher will not pass | `repair checkpoint --vchannel V --set-to pchannel-cp` |
| `vchannel-registration` | a live collection's vchannel has no `streamingnode-meta/wal/{p}/vchannel/{v}` | `repair vchannel-registration --vchannel V` |
| `broadcast-tasks`: a task in flight, unchanged for `--stuck-after` | a broadcast (a DDL) that will not finish | `repair wal-broadcast-task --id N --mode reset` |
| `recovery-storage`: a vchannel meta with no schema (the streaming node panics: "vchannel has no schemas in recovery info") | schemas lost from the pchannel's recovery storage | `repair wal-recovery-storage` |
| `replicate-pchannels`: a replicating pchannel of a cluster no longer in the replicate configuration | a stale replication (CDC) entry | `remove replicate-pchannel --target-cluster C --source-channel P` |

A crash loop (`pchannel-assignment`: the term rises at every read) with none of these is in the
streaming node's log: stop Milvus and take the way back (step 9). After a repair, start Milvus
again (step 7) and run `check` again. What each repair writes, and the Milvus facts it rests on:
[docs/repair.md](../repair.md).
"""


def way_back(src, tgt):
    annotation = ("; first the standalone deployment's annotation back: "
                  "`milvus.io/message-queue=rocksmq`") if src == "rocksmq" else ""
    if tgt == "woodpecker":
        row4 = ("| 4 (`reset wal --run`) | `restore --file BACKUP_DIR/heron-backup-by-dev-reset-wal-rev….jsonl --run` "
                "puts the log keys back (not objects deleted with `--minio-address`) |")
        row5 = "restore the `reset-woodpecker` backup first, then the `reset-wal` one (step 4)"
    else:
        row4 = (f"| 4 (the {NAME[tgt]} topics) | heron wrote nothing; a topic you deleted held only an earlier "
                f"run's records, which the way back does not need |")
        row5 = f"restore the `reset-{tgt}` backup"
    return f"""## 9. The way back

heron's `backups --dir BACKUP_DIR` lists the backups the write commands wrote, newest first
(`heron-backup-by-dev-reset-{tgt}-rev…jsonl` from step 5{", `heron-backup-by-dev-reset-wal-rev…jsonl` from step 4" if tgt == "woodpecker" else ""}). Restore
them newest first, Milvus stopped, each as a dry run, then with `--run`; `restore` refuses a key
that changed since the backed-up write and says which. The full backups (`by-dev-before.jsonl`,
`by-dev-stopped.jsonl`) are not restorable with `restore` (it refuses a file that is not a write
command's): they are what `check --since-backup` compares with, and `heron load-backup FILE` opens
a copy to read. The etcd snapshot is the last resort: it rolls back every key of that etcd, other
instances' too.

| you are past step | to go back |
|---|---|
| 1-3 (backups, check, stop) | heron wrote nothing: start Milvus as it was (step 7's commands, without the config change) |
{row4}
| 5 (`reset checkpoint --run`) | {row5}; the mq.type override goes back with it; start Milvus on {NAME[src]} with its old config |
| 6 (the config) | put back `BACKUP_DIR/helm-values-before.yaml` (`helm upgrade ... -f` it{annotation}), `BACKUP_DIR/milvus-cr-before.yaml` (`kubectl apply -f`), or the compose file, then the row above |
| 7 (Milvus ran on {NAME[tgt]}) | stop Milvus (step 3), then the rows above; `restore` refuses what Milvus changed since: `--force-moved-on` rolls it back, and what was written on {NAME[tgt]} since the restart is lost |
| 8 (a repair) | `restore --file` of that repair's backup (the newest), Milvus stopped |
| a restore refused and not forceable, or etcd damaged | stop Milvus and etcd, `etcdutl snapshot restore BACKUP_DIR/etcd-stopped.db --data-dir NEW_DIR` (etcd 3.5 and later; `ETCDCTL_API=3 etcdctl snapshot restore` on 3.4) for every member, with its `--name`, `--initial-cluster` and `--initial-advertise-peer-urls`, then start etcd on the new data dirs |
"""


def page(src, tgt):
    S, T = NAME[src], NAME[tgt]
    flags = TARGET_FLAGS[tgt]
    s3_block = ("; `heron-s3` is like `heron`, with the object storage's address and credentials"
                if tgt == "woodpecker" else "")
    gate = "woodpecker target is empty" if tgt == "woodpecker" else "target topics are fresh"
    out = f"""# Switch a stopped Milvus from {S} to {T}

The whole procedure, in order, for an instance whose metadata is in etcd under the root path
`by-dev`. Milvus is **stopped** while heron rewrites every persisted MQ position (consume
checkpoints, channel checkpoints, collection start positions, segment positions) to {T}'s
earliest position; it starts again on {T}. Every step says how to go back (step 9).

{fill(releases(src, tgt))}

{fill(tested(src, tgt))}

Placeholders: `ETCD_HOST:2379` (the etcd Milvus uses), `by-dev` (`etcd.rootPath`), `BACKUP_DIR` (a
folder on a disk that outlives the pod or machine heron runs on), `RELEASE`/`NAMESPACE` (Helm),
`NAME` (the `Milvus` resource of the Operator), `MILVUS_HOST:19530` (the Milvus proxy),
`MINIO_HOST:9000`, `KAFKA_HOST:9092`, `PULSAR_HOST`, `MILVUS_VERSION` (e.g. `2.6.23`),
`CHART_VERSION`. Blocks: `sh` runs in a shell; `heron` is typed in heron's shell after `connect`
with Milvus stopped; `heron-live` needs Milvus running{s3_block}.

## 1. Back up etcd

Before anything else, with Milvus still running: an etcd snapshot (the last way back) and heron's
backup of the whole root path (a record of the instance as it ran):

```sh
mkdir -p BACKUP_DIR
ETCDCTL_API=3 etcdctl --endpoints=ETCD_HOST:2379 snapshot save BACKUP_DIR/etcd-before.db
ETCDCTL_API=3 etcdctl --write-out=table snapshot status BACKUP_DIR/etcd-before.db
heron --olc "connect --etcd ETCD_HOST:2379 --rootPath by-dev, backup --file BACKUP_DIR/by-dev-before.jsonl"
```

(`etcdutl snapshot status` on etcd 3.6, where `etcdctl snapshot status` is gone.) Step 3 takes
both again once Milvus is stopped: those are the ones the later steps use.

## 2. Check the instance on {S}, while it still runs

The switch only keeps what is persisted, so the instance must be healthy on {S} first. In heron
(`heron`, then `connect --etcd ETCD_HOST:2379 --rootPath by-dev`):

```heron-live
check
show broadcast-task
```

`check` must end without `FAIL` (exit 0). `show broadcast-task` must end with `0 in flight`: a
broadcast (a DDL: create, drop, alter) still in flight has messages in {S} that the new WAL never
sees, so wait until it finishes; heron's reset refuses while one is in flight. Then stop the writes (your application's
inserts and deletes) and flush every collection, so that no segment is left Growing, Sealed or
Flushing: rows not flushed live only in {S} and would be lost (the reset refuses them unless
`--allow-growing`). With pymilvus 2.4 or later:

```sh
python3 - <<'EOF'
from pymilvus import MilvusClient
client = MilvusClient(uri="http://MILVUS_HOST:19530", token="root:Milvus")
for db in client.list_databases():
    client.using_database(db)
    for name in client.list_collections():
        client.flush(name)
        print("flushed", db, name)
EOF
```

```heron-live
show segment --state Growing
show segment --state Sealed
show segment --state Flushing
```

Each must list no segment. A collection that keeps one: flush it again, and wait.

{stop_section(src)}
{target_prep(src, tgt)}
## 5. Move every position to {T}: reset checkpoint

Read the plan first: every gate must be `ok`, including "{gate}". A refusal
(exit 3) ends with `what to do, in order:`: do that, then run the dry run again. Then run it, and
look at the result:

```heron
reset checkpoint --target-wal {tgt}{flags}
reset checkpoint --target-wal {tgt}{flags} --run --backup-dir BACKUP_DIR
show checkpoint --pchannels
show config-etcd
```

The run ends with `verify: ok` and names its backup (`backup: BACKUP_DIR/heron-backup-by-dev-reset-{tgt}-rev….jsonl`);
`show checkpoint --pchannels` says `N pchannel(s): N on {tgt}; none split`. A run stopped
midway leaves a split state that the same command completes when run again (or `restore` undoes:
step 9). The plan's warnings matter: "this instance is a replication source" means replication
must be set up again after the switch (step 8).

{config_section(src, tgt)}
{start_section(src, tgt)}
{repair_section(src, tgt)}
{way_back(src, tgt)}"""
    return out


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "runbook")
    if len(sys.argv) > 1:
        root = sys.argv[1]
    for src, tgt in PAGES:
        with open(os.path.join(root, f"{src}-to-{tgt}.md"), "w") as f:
            f.write(page(src, tgt))


if __name__ == "__main__":
    main()
