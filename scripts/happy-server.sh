#!/usr/bin/env bash
# Happy's own server (slopus/happy packages/happy-server, standalone mode: embedded Postgres via PGlite,
# local file storage, no Redis, no S3) on loopback, for the tests against the real thing and the demo.
# The source is read from ../shared/happy-server (read-only); everything this script writes lives under DIR.
#
#   scripts/happy-server.sh install DIR        copy the source to DIR, install its packages (npm registry
#                                              only), generate the Prisma client offline, build happy-wire.
#                                              ~5-6 min from nothing, seconds when DIR is already installed.
#   scripts/happy-server.sh start DIR [PORT]   migrate and serve on 127.0.0.1:PORT (unset or "auto": the
#                                              first free port from 3105 up), wait until it answers, write
#                                              DIR/env (source it: HAPPY_MEDIA_HAPPY_SERVER_URL)
#   scripts/happy-server.sh stop DIR           stop the server `start` started; nothing is left running
#   scripts/happy-server.sh status DIR         print whether it is running
#
# Environment: HAPPY_SERVER_SOURCE (default ../shared/happy-server beside the repository).
# Offline workarounds (see ../shared/happy-server/attachments-api.md, "Running the server offline"):
# privacy-kit is the vendored build (the registry answers 404 for it); Prisma uses its wasm query
# compiler ("client" engine) with stub native engine paths, because the native engines are downloaded
# from a host that is not reachable.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
SOURCE="${HAPPY_SERVER_SOURCE:-$REPO/../shared/happy-server}"
PNPM_VERSION=10.34.9 # pnpm 11 needs Node 22; corepack cannot fetch here, so pnpm comes from npm.

log() { printf 'happy-server: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

dir_arg() {
  [ -n "${1:-}" ] || die "missing DIR (usage: $0 install|start|stop|status DIR [PORT])"
  mkdir -p "$1"
  DIR="$(cd "$1" && pwd)"
  APP="$DIR/app"
  SERVER="$APP/packages/happy-server"
}

# Every tool writes its caches and state under DIR, never in the home directory.
tool_env() {
  export XDG_CACHE_HOME="$DIR/cache/xdg-cache" XDG_DATA_HOME="$DIR/cache/xdg-data"
  export XDG_STATE_HOME="$DIR/cache/xdg-state" XDG_CONFIG_HOME="$DIR/cache/xdg-config"
  export npm_config_cache="$DIR/cache/npm" npm_config_update_notifier=false
  # The source pins packageManager pnpm@10.11.0; pnpm would try to fetch and switch to it.
  export npm_config_manage_package_manager_versions=false npm_config_package_manager_strict=false
  export PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1
  export PRISMA_CLIENT_ENGINE_TYPE=client PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING=1
  export PRISMA_SCHEMA_ENGINE_BINARY="$DIR/stub/schema-engine"
  export PRISMA_QUERY_ENGINE_LIBRARY="$DIR/stub/libquery_engine.so.node"
}

install() {
  dir_arg "${1:-}"
  if [ -f "$DIR/.installed" ]; then
    log "already installed in $DIR"
    return 0
  fi
  [ -d "$SOURCE/src/packages/happy-server" ] || die "no server source at $SOURCE (set HAPPY_SERVER_SOURCE)"
  command -v node >/dev/null || die "node not found"
  tool_env
  local t0=$SECONDS
  rm -rf "$APP" "$DIR/stub"
  mkdir -p "$APP" "$DIR/stub" "$DIR/tools"
  cp -R "$SOURCE/src/." "$APP/"
  # happy-server depends on "file:../../vendor/privacy-kit": a copy beside the packages, so pnpm also
  # installs privacy-kit's own dependencies (a `link:` would leave them unresolved).
  cp -R "$SOURCE/vendor" "$APP/vendor"
  chmod -R u+w "$APP"
  touch "$DIR/stub/schema-engine" "$DIR/stub/libquery_engine.so.node"
  if [ ! -x "$DIR/tools/node_modules/.bin/pnpm" ]; then
    log "installing pnpm $PNPM_VERSION"
    npm install --prefix "$DIR/tools" --no-audit --no-fund --no-save --loglevel=error "pnpm@$PNPM_VERSION" >/dev/null
  fi
  local pnpm="$DIR/tools/node_modules/.bin/pnpm"
  log "pnpm install (no lockfile ships with the source: resolves from the registry)"
  # node-linker=hoisted: one flat node_modules (bins in app/node_modules/.bin), whatever the machine's
  # pnpm defaults are. --ignore-scripts: the package's postinstall (`prisma generate` with the native engine) cannot run
  # offline; the steps it stands for run below. --no-frozen-lockfile: CI=true would demand a lockfile.
  (cd "$APP" && "$pnpm" install --ignore-scripts --no-frozen-lockfile --reporter=append-only \
    --store-dir "$DIR/cache/pnpm-store" --config.node-linker=hoisted --config.confirmModulesPurge=false) >"$DIR/install.log" 2>&1 ||
    {
      tail -n 30 "$DIR/install.log" >&2
      die "pnpm install failed (log: $DIR/install.log)"
    }
  log "prisma generate (wasm query compiler)"
  # Generators (prisma-json-types-generator) are looked up on PATH, as under `pnpm run`.
  (cd "$SERVER" && PATH="$APP/node_modules/.bin:$PATH" prisma generate --schema=prisma/schema.prisma) >>"$DIR/install.log" 2>&1 ||
    {
      tail -n 30 "$DIR/install.log" >&2
      die "prisma generate failed (log: $DIR/install.log)"
    }
  (cd "$APP" && node patches/fix-pglite-prisma-bytes.cjs) >>"$DIR/install.log" 2>&1 || die "pglite patch failed"
  log "building happy-wire"
  (cd "$APP" && "$pnpm" --filter @slopus/happy-wire build) >>"$DIR/install.log" 2>&1 ||
    {
      tail -n 30 "$DIR/install.log" >&2
      die "happy-wire build failed (log: $DIR/install.log)"
    }
  touch "$DIR/.installed"
  log "installed in $DIR in $((SECONDS - t0)) s"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  local want="${1:-auto}" p
  if [ "$want" != auto ]; then
    port_busy "$want" && die "port $want is in use"
    PORT=$want
    return 0
  fi
  for p in $(seq 3105 3199); do
    if ! port_busy "$p"; then
      PORT=$p
      return 0
    fi
  done
  die "no free port in 3105-3199 (pass PORT)"
}

running() { [ -f "$DIR/server.pid" ] && kill -0 "$(cat "$DIR/server.pid")" 2>/dev/null; }

start() {
  dir_arg "${1:-}"
  [ -f "$DIR/.installed" ] || die "not installed in $DIR: run '$0 install $DIR' first"
  running && stop "$DIR"
  tool_env
  pick_port "${2:-auto}"
  local t0=$SECONDS tsx="$APP/node_modules/.bin/tsx"
  # A fresh database per start: tests create their own accounts and sessions.
  rm -rf "$DIR/data"
  mkdir -p "$DIR/data"
  chmod 700 "$DIR/data"
  (cd "$SERVER" && DATA_DIR="$DIR/data" "$tsx" ./sources/standalone.ts migrate) >"$DIR/migrate.log" 2>&1 ||
    {
      tail -n 20 "$DIR/migrate.log" >&2
      die "migrate failed (log: $DIR/migrate.log)"
    }
  # The master secret signs this server's tokens; random per start, passed by environment only.
  local secret
  secret=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
  (
    cd "$SERVER"
    export DATA_DIR="$DIR/data" HANDY_MASTER_SECRET="$secret" PORT="$PORT" HOST=127.0.0.1
    export PUBLIC_URL="http://127.0.0.1:$PORT" METRICS_ENABLED=false NODE_ENV=production
    setsid nohup "$tsx" ./sources/standalone.ts serve >"$DIR/server.log" 2>&1 &
    echo $! >"$DIR/server.pid"
  )
  local url="http://127.0.0.1:$PORT" i
  for i in $(seq 1 600); do
    if curl -fsS --max-time 2 "$url/" 2>/dev/null | grep -q 'Happy'; then
      umask 077
      printf 'export HAPPY_MEDIA_HAPPY_SERVER_URL=%s\n' "$url" >"$DIR/env"
      log "ready at $url after $((SECONDS - t0)) s (migrate + serve); source $DIR/env"
      echo "$url"
      return 0
    fi
    running || break
    sleep 0.2
  done
  log "the server did not answer within 120 s; its log:"
  tail -n 30 "$DIR/server.log" >&2 || true
  stop "$DIR"
  return 1
}

stop() {
  dir_arg "${1:-}"
  [ -f "$DIR/server.pid" ] || return 0
  local pid i
  pid=$(cat "$DIR/server.pid")
  # setsid made the server the leader of its own process group (tsx runs node as a child): end the group.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$DIR/server.pid" "$DIR/env"
}

status() {
  dir_arg "${1:-}"
  if running; then
    echo "running: $(grep -o 'http://[^ ]*' "$DIR/env" 2>/dev/null || echo '?')"
  else
    echo "stopped"
    return 1
  fi
}

case "${1:-}" in
  install) install "${2:-}" ;;
  start) start "${2:-}" "${3:-auto}" ;;
  stop) stop "${2:-}" ;;
  status) status "${2:-}" ;;
  *)
    echo "usage: $0 install|start|stop|status DIR [PORT]" >&2
    exit 2
    ;;
esac
