#!/usr/bin/env bash
# A real S3-compatible server on loopback for the tests and .ci/run: OpenStack Swift (Debian packages)
# with the s3api middleware in its proxy. Chosen over Ceph radosgw because it comes up in ~4 s instead
# of ~25 s and needs no cluster bootstrap (see /work/shared/s3/README.md).
#
#   scripts/s3-server.sh install   apt packages (idempotent, quiet)
#   scripts/s3-server.sh start     one account/container/object server + proxy on 127.0.0.1, a bucket,
#                                  waits until S3 answers, writes .s3/env (source it)
#   scripts/s3-server.sh stop      stops every process that `start` started; nothing is left running
#   scripts/s3-server.sh status    prints whether it is running
#
# Everything lives under .s3/ (git-ignored): configs, rings, data, logs, pids. Credentials are random
# per start and written only to .s3/env (mode 0600), never to argv.
# Ports: HAPPY_MEDIA_S3_PORT (proxy) and the three next ports for the storage servers; unset, the first
# free block from 18080 up.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)/.s3"
SW="$ROOT/swift"
PORT="${HAPPY_MEDIA_S3_PORT:-}"
BUCKET="${HAPPY_MEDIA_S3_BUCKET:-happy-media-test}"
PY=/usr/bin/python3
PACKAGES=(swift swift-proxy swift-object swift-container swift-account)

log() { printf 's3-server: %s\n' "$*" >&2; }

install() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends "${missing[@]}" >/dev/null
}

write_configs() {
  local prefix suffix
  prefix=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  suffix=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  mkdir -p "$SW/etc" "$SW/node/d1" "$SW/run" "$SW/log"
  cat >"$SW/etc/swift.conf" <<EOF
[swift-hash]
swift_hash_path_prefix = $prefix
swift_hash_path_suffix = $suffix
[storage-policy:0]
name = Policy-0
default = yes
EOF
  local kind port
  for kind in account container object; do
    case $kind in account) port=$((PORT + 1)) ;; container) port=$((PORT + 2)) ;; object) port=$((PORT + 3)) ;; esac
    cat >"$SW/etc/$kind-server.conf" <<EOF
[DEFAULT]
swift_dir = $SW/etc
devices = $SW/node
mount_check = false
disable_fallocate = true
bind_ip = 127.0.0.1
bind_port = $port
workers = 0
log_level = WARNING
[pipeline:main]
pipeline = $kind-server
[app:$kind-server]
use = egg:swift#$kind
EOF
    (
      cd "$SW/etc"
      swift-ring-builder "$kind.builder" create 4 1 1 >/dev/null
      swift-ring-builder "$kind.builder" add "r1z1-127.0.0.1:$port/d1" 1 >/dev/null
      swift-ring-builder "$kind.builder" rebalance >/dev/null || true
    )
  done
  # tempauth holds the one S3 user ("account:user" is the access key); s3api checks SigV4 against it.
  cat >"$SW/etc/proxy-server.conf" <<EOF
[DEFAULT]
swift_dir = $SW/etc
bind_ip = 127.0.0.1
bind_port = $PORT
workers = 0
log_level = WARNING
[pipeline:main]
pipeline = catch_errors proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-server
[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
[filter:cache]
paste.filter_factory = happy_media_cache:filter_factory
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
[filter:catch_errors]
use = egg:swift#catch_errors
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:s3api]
use = egg:swift#s3api
location = us-east-1
[filter:tempauth]
use = egg:swift#tempauth
user_happy_media = $SECRET .admin
EOF
  chmod 600 "$SW/etc/proxy-server.conf"
  # tempauth and s3api need a cache in the proxy. With one proxy process (workers = 0) an in-process
  # dict does the job of memcached without another daemon and port to manage.
  cat >"$SW/etc/happy_media_cache.py" <<'EOF_PY'
import time


class ProcessCache:
    def __init__(self):
        self._data = {}

    def _live(self, key):
        item = self._data.get(key)
        if item is None:
            return None
        value, expires = item
        if expires and expires < time.time():
            del self._data[key]
            return None
        return item

    def get(self, key, raise_on_error=False):
        item = self._live(key)
        return None if item is None else item[0]

    def set(self, key, value, serialize=True, time=0, min_compress_len=0, raise_on_error=False):
        self._data[key] = (value, (_now() + time) if time else 0)

    def incr(self, key, delta=1, time=0):
        item = self._live(key)
        value = int(item[0]) + delta if item else delta
        self.set(key, max(value, 0), time=time)
        return max(value, 0)

    def decr(self, key, delta=1, time=0):
        return self.incr(key, -delta, time)

    def delete(self, key, server_key=None):
        self._data.pop(key, None)

    def set_multi(self, mapping, server_key, serialize=True, time=0, min_compress_len=0):
        for key, value in mapping.items():
            self.set(key, value, time=time)

    def get_multi(self, keys, server_key):
        return [self.get(key) for key in keys]


def _now():
    return time.time()


def filter_factory(global_conf, **local_conf):
    cache = ProcessCache()

    def make(app):
        def middleware(env, start_response):
            env['swift.cache'] = cache
            return app(env, start_response)

        return middleware

    return make
EOF_PY
}

start_one() { # name, command...
  local name=$1
  shift
  setsid nohup "$@" >"$SW/log/$name.log" 2>&1 &
  echo $! >"$SW/run/$name.pid"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Four consecutive free ports (proxy, account, container, object): HAPPY_MEDIA_S3_PORT if set, else the
# first free block from 18080 up, so a port taken by something else does not fail the run.
pick_ports() {
  local base p busy
  for base in ${HAPPY_MEDIA_S3_PORT:-18080 18180 18280 18380 18480 18580 18680 18780 18880 18980}; do
    busy=0
    for p in "$base" $((base + 1)) $((base + 2)) $((base + 3)); do
      port_busy "$p" && busy=1
    done
    if [ $busy -eq 0 ]; then
      PORT=$base
      return 0
    fi
  done
  log "no free block of 4 ports found (set HAPPY_MEDIA_S3_PORT)"
  return 1
}

start() {
  if [ -d "$SW/run" ] && ls "$SW"/run/*.pid >/dev/null 2>&1; then
    log "stopping the previous instance first"
    stop
  fi
  for cmd in swift-proxy-server swift-object-server swift-ring-builder; do
    command -v "$cmd" >/dev/null || { log "$cmd not found: run '$0 install' first"; return 1; }
  done
  pick_ports
  rm -rf "$SW"
  mkdir -p "$ROOT"
  chmod 700 "$ROOT"
  SECRET=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
  write_configs
  local kind
  for kind in account container object; do
    start_one "$kind" "$PY" /usr/bin/swift-$kind-server "$SW/etc/$kind-server.conf" --verbose
  done
  PYTHONPATH="$SW/etc" start_one proxy "$PY" /usr/bin/swift-proxy-server "$SW/etc/proxy-server.conf" --verbose
  local env_file="$ROOT/env"
  umask 077
  cat >"$env_file" <<EOF
export HAPPY_MEDIA_S3_ENDPOINT=http://127.0.0.1:$PORT
export AWS_ACCESS_KEY_ID=happy:media
export AWS_SECRET_ACCESS_KEY=$SECRET
export AWS_REGION=us-east-1
export HAPPY_MEDIA_S3_BUCKET=$BUCKET
EOF
  # Wait until the proxy answers, then create the bucket, with the project's own S3 client (it signs
  # SigV4; curl cannot, as tempauth access keys contain a colon). Credentials go by environment only.
  local waiter="$SW/run/create-bucket.mjs"
  cat >"$waiter" <<'EOF_JS'
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
const client = new S3Client({
  endpoint: process.env.HAPPY_MEDIA_S3_ENDPOINT, region: process.env.AWS_REGION, forcePathStyle: true,
  maxAttempts: 1,
});
const deadline = Date.now() + 90_000;
for (;;) {
  try {
    await client.send(new CreateBucketCommand({ Bucket: process.env.HAPPY_MEDIA_S3_BUCKET }));
    process.exit(0);
  } catch (e) {
    if (e?.name === 'BucketAlreadyOwnedByYou' || e?.name === 'BucketAlreadyExists') process.exit(0);
    if (Date.now() > deadline) { console.error(`create bucket: ${e?.name}: ${e?.message}`); process.exit(1); }
    await new Promise((r) => setTimeout(r, 200));
  }
}
EOF_JS
  if (
    # shellcheck disable=SC1090
    . "$env_file"
    NODE_NO_WARNINGS=1 node "$waiter"
  ); then
    log "ready at http://127.0.0.1:$PORT (bucket $BUCKET) after ${SECONDS}s; source .s3/env"
    return 0
  fi
  log "S3 did not answer within 90 s; logs:"
  tail -n 20 "$SW"/log/*.log >&2 || true
  stop
  return 1
}

stop() {
  local kind pid
  [ -d "$SW/run" ] || return 0
  for kind in proxy object container account; do
    [ -f "$SW/run/$kind.pid" ] || continue
    pid=$(cat "$SW/run/$kind.pid")
    # Swift servers fork workers into the parent's process group; end the whole group we started.
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  done
  for i in $(seq 1 50); do
    local alive=0
    for kind in proxy object container account; do
      [ -f "$SW/run/$kind.pid" ] && kill -0 "$(cat "$SW/run/$kind.pid")" 2>/dev/null && alive=1
    done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  for kind in proxy object container account; do
    [ -f "$SW/run/$kind.pid" ] || continue
    pid=$(cat "$SW/run/$kind.pid")
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    rm -f "$SW/run/$kind.pid"
  done
  rm -f "$ROOT/env"
}

status() {
  if [ -f "$SW/run/proxy.pid" ] && kill -0 "$(cat "$SW/run/proxy.pid")" 2>/dev/null; then
    echo "running: $(grep -o 'http://[^ ]*' "$ROOT/env" 2>/dev/null || echo '?')"
  else
    echo "stopped"
    return 1
  fi
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 install|start|stop|status" >&2
    exit 2
    ;;
esac
