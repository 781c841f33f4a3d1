#!/usr/bin/env bash
# Happy's own server (slopus/happy packages/happy-server, standalone mode: embedded Postgres via PGlite,
# local file storage, no Redis, no S3) on loopback, for trying happy-media against the real thing, the
# tests and the demo. Its source is only read; everything this script writes lives under DIR.
#
#   scripts/happy-server.sh install DIR [SOURCE]   copy the server from SOURCE to DIR, install its packages
#                                                  (npm registry only), generate the Prisma client offline,
#                                                  build happy-wire. Minutes from nothing, seconds when DIR is
#                                                  already installed (rm -rf DIR to install another source).
#   scripts/happy-server.sh start DIR [PORT]       migrate and serve on 127.0.0.1:PORT (unset or "auto": the
#                                                  first free port from 3105 up), wait until it answers, write
#                                                  DIR/env (source it: HAPPY_MEDIA_HAPPY_SERVER_URL)
#   scripts/happy-server.sh stop DIR               stop the server `start` started; nothing is left running
#   scripts/happy-server.sh status DIR             print whether it is running
#
# SOURCE (else $HAPPY_SERVER_SOURCE, else ../shared/happy-server beside the repository) is either
#   - a checkout of slopus/happy (git clone https://github.com/slopus/happy): its packages/happy-server and
#     packages/happy-wire, its patches/ and its root package.json, narrowed to those two packages; the
#     packages come from the npm registry as the checkout names them (privacy-kit included), or
#   - a copy laid out as ../shared/happy-server: src/ (the server's part of the monorepo) and vendor/ (a
#     built privacy-kit, for a registry that does not have it).
# Offline workarounds (see ../shared/happy-server/attachments-api.md, "Running the server offline"):
# Prisma uses its wasm query compiler ("client" engine) with stub native engine paths, because the native
# engines are downloaded from a host that may not be reachable.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
DEFAULT_SOURCE="$REPO/../shared/happy-server"
PNPM_VERSION=10.34.9 # pnpm 11 needs Node 22; corepack cannot fetch here, so pnpm comes from npm.

log() { printf 'happy-server: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

dir_arg() {
  [ -n "${1:-}" ] || die "missing DIR (usage: $0 install DIR [SOURCE] | start DIR [PORT] | stop DIR | status DIR)"
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

# Which kind of source SOURCE is: "bundle" (../shared/happy-server's src/ and vendor/) or "checkout"
# (slopus/happy); anything else is refused, saying what is expected.
source_layout() {
  if [ -d "$SOURCE/src/packages/happy-server" ]; then
    LAYOUT=bundle
  elif [ -d "$SOURCE/packages/happy-server" ] && [ -f "$SOURCE/package.json" ]; then
    LAYOUT=checkout
  else
    die "no Happy server at $SOURCE: give a checkout of slopus/happy (git clone https://github.com/slopus/happy DIR2; $0 install DIR DIR2) or a copy laid out as ../shared/happy-server (src/, vendor/)"
  fi
}

# Copies what the server needs from a slopus/happy checkout: its two packages (without any node_modules
# the checkout has), the monorepo's patches, and a root package.json and workspace narrowed to them (what
# ../shared/happy-server's src/ holds).
copy_checkout() {
  local package
  mkdir -p "$APP/packages"
  for package in happy-server happy-wire; do
    [ -d "$SOURCE/packages/$package" ] || continue
    tar -C "$SOURCE/packages" --exclude=node_modules --exclude=dist -cf - "$package" | tar -C "$APP/packages" -xf -
  done
  [ -d "$SOURCE/patches" ] && cp -R "$SOURCE/patches" "$APP/patches"
  [ -f "$SOURCE/LICENSE" ] && cp "$SOURCE/LICENSE" "$APP/LICENSE"
  [ -d "$SOURCE/vendor" ] && tar -C "$SOURCE" --exclude=node_modules -cf - vendor | tar -C "$APP" -xf -
  node -e '
    const fs = require("node:fs");
    const root = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const packages = ["packages/happy-server", "packages/happy-wire"].filter((p) => fs.existsSync(`${process.argv[2]}/${p}`));
    const narrowed = { name: root.name ?? "monorepo", private: true, workspaces: { packages } };
    if (root.pnpm) narrowed.pnpm = root.pnpm;
    if (root.packageManager) narrowed.packageManager = root.packageManager;
    fs.writeFileSync(`${process.argv[2]}/package.json`, `${JSON.stringify(narrowed, null, 4)}\n`);
    fs.writeFileSync(`${process.argv[2]}/pnpm-workspace.yaml`, `packages:\n${packages.map((p) => `  - "${p}"\n`).join("")}`);
  ' "$SOURCE/package.json" "$APP"
}

install() {
  dir_arg "${1:-}"
  if [ -f "$DIR/.installed" ]; then
    log "already installed in $DIR (from $(cat "$DIR/.installed" 2>/dev/null || echo '?')); rm -rf $DIR to install again"
    return 0
  fi
  SOURCE="${2:-${HAPPY_SERVER_SOURCE:-$DEFAULT_SOURCE}}"
  [ -d "$SOURCE" ] || die "no server source at $SOURCE: give a checkout of slopus/happy ($0 install DIR SOURCE) or set HAPPY_SERVER_SOURCE"
  SOURCE="$(cd "$SOURCE" && pwd)"
  source_layout
  command -v node >/dev/null || die "node not found"
  tool_env
  local t0=$SECONDS
  rm -rf "$APP" "$DIR/stub"
  mkdir -p "$APP" "$DIR/stub" "$DIR/tools"
  log "server from $SOURCE ($LAYOUT)"
  if [ "$LAYOUT" = bundle ]; then
    cp -R "$SOURCE/src/." "$APP/"
    # happy-server depends on "file:../../vendor/privacy-kit": a copy beside the packages, so pnpm also
    # installs privacy-kit's own dependencies (a `link:` would leave them unresolved).
    cp -R "$SOURCE/vendor" "$APP/vendor"
  else
    copy_checkout
  fi
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
  if [ -f "$APP/patches/fix-pglite-prisma-bytes.cjs" ]; then
    (cd "$APP" && node patches/fix-pglite-prisma-bytes.cjs) >>"$DIR/install.log" 2>&1 || die "pglite patch failed"
  fi
  if [ -d "$APP/packages/happy-wire" ]; then
    log "building happy-wire"
    (cd "$APP" && "$pnpm" --filter @slopus/happy-wire build) >>"$DIR/install.log" 2>&1 ||
      {
        tail -n 30 "$DIR/install.log" >&2
        die "happy-wire build failed (log: $DIR/install.log)"
      }
  fi
  printf '%s (%s)\n' "$SOURCE" "$LAYOUT" >"$DIR/.installed"
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
  install) install "${2:-}" "${3:-}" ;;
  start) start "${2:-}" "${3:-auto}" ;;
  stop) stop "${2:-}" ;;
  status) status "${2:-}" ;;
  *)
    echo "usage: $0 install DIR [SOURCE] | start DIR [PORT] | stop DIR | status DIR" >&2
    exit 2
    ;;
esac
