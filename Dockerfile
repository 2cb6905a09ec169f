# A minimal image of heron: the static binary of `make dist` and nothing else.
#
#   make dist
#   docker build --build-arg TARGETARCH=amd64 -t heron:$(git describe --tags --always) .
#   (docker buildx build --platform linux/amd64,linux/arm64 sets TARGETARCH itself)
#
# The image has no shell and no /tmp: heron works in /work (also its
# TMPDIR and HERON_HOME). A pod's working folder is lost with the pod: mount a
# volume for backups and pass --backup-dir (README, "Running heron in Kubernetes").
FROM scratch
ARG TARGETARCH=amd64
COPY dist/build/linux_${TARGETARCH}/heron /heron
WORKDIR /work
ENV HOME=/work HERON_HOME=/work TMPDIR=/work
ENTRYPOINT ["/heron"]
