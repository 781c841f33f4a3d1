#!/usr/bin/env bash
# Happy adopts Session Protocol v2: applies and tests the patch series in integrations/happy/ (one
# `git format-patch` file per step, against slopus/happy at 2c8ecacc; docs/happy-adoption.md).
#
#   scripts/happy-adoption.sh apply DIR     apply the series to DIR: a slopus/happy checkout, or a copy of
#                                           ../shared/happy-src. Changes files under packages/ only; refuses
#                                           (exit 1, nothing changed) a tree the series does not fit.
#   scripts/happy-adoption.sh test DIR      on a patched DIR, run Happy's own tests of every module the series
#                                           touches, and the tests it adds (plus tsc on happy-wire and the app
#                                           modules listed in integrations/happy/test-deps.json)
#   scripts/happy-adoption.sh prepare [DIR] copy ../shared/happy-src to DIR (default .tmp/happy-adoption/tree)
#                                           and apply the series: what CI and test/node/happy/adoption-e2e use
#   scripts/happy-adoption.sh edit WORK     a git repository at WORK: the base as one commit, then each patch
#                                           as a commit (git am), to change the series with git
#   scripts/happy-adoption.sh export WORK   write WORK's commits after the base back to integrations/happy/
#
# Environment: HAPPY_SRC (the base for prepare/edit; default ../shared/happy-src beside the repository).
#
# What `test` installs, and what it stands in for (everything it writes lives under .tmp/happy-adoption/):
# - Only the packages the tested modules import (integrations/happy/test-deps.json: vitest, zod, cuid2,
#   TypeScript, …), from the npm registry into .tmp/happy-adoption/deps, linked as each tested package's
#   node_modules. Happy's own install (pnpm, the whole workspace: Expo, React Native, LiveKit, Skia, Electron)
#   is neither needed for these modules nor possible offline.
# - happy-media: the patches depend on "happy-media": "^0.1.0"; until that is published, `test` installs a
#   tarball packed (`npm pack`) from this repository, which is what the registry package will hold.
# - @slopus/happy-wire: the workspace package's source (pnpm links the workspace, whose entry is its build).
# - TypeScript options are given to esbuild inline: the app's tsconfig.json extends expo/tsconfig.base.json,
#   which comes with `expo`, not installed here.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
SERIES="$REPO/integrations/happy"
WORKDIR="$REPO/.tmp/happy-adoption"
HAPPY_SRC="${HAPPY_SRC:-$REPO/../shared/happy-src}"
# The commit the series is written against (slopus/happy).
BASE_COMMIT=2c8ecacc

# npm's cache and logs stay under .tmp/happy-adoption too, never in the home directory.
export npm_config_cache="$WORKDIR/npm-cache" npm_config_update_notifier=false npm_config_fund=false

log() { printf 'happy-adoption: [%ss] %s\n' "$SECONDS" "$*" >&2; }
die() {
  log "$*"
  exit 1
}

patches() {
  local found=("$SERIES"/*.patch)
  [ -e "${found[0]}" ] || die "no patches in $SERIES"
  printf '%s\n' "${found[@]}"
}

tree_arg() {
  [ -n "${1:-}" ] || die "missing DIR (usage: $0 apply|test DIR)"
  [ -d "$1" ] || die "$1 is not a directory"
  TREE="$(cd "$1" && pwd)"
}

# git as a plain patch tool inside TREE: TREE's own repository if it is one, never an enclosing one (a
# copy under this repository's .tmp/ must not be read as part of it).
git_in_tree() { (cd "$TREE" && GIT_CEILING_DIRECTORIES="$(dirname "$TREE")" git "$@"); }

apply() {
  tree_arg "${1:-}"
  local list
  mapfile -t list < <(patches)
  # Every path the series touches must lie under packages/.
  local outside
  outside="$(git_in_tree apply --numstat "${list[@]}" | awk '{print $3}' | grep -v '^packages/' || true)"
  [ -z "$outside" ] || die "the series touches paths outside packages/: $outside"
  for required in packages/happy-wire/src/sessionProtocol.ts packages/happy-app/sources/sync/typesRaw.ts \
    packages/happy-cli/src/claude/utils/sessionProtocolMapper.ts; do
    [ -f "$TREE/$required" ] ||
      die "$TREE is not a slopus/happy tree ($required is missing): give a checkout of slopus/happy or a copy of ../shared/happy-src"
  done
  if git_in_tree apply --check --reverse "${list[@]}" 2>/dev/null; then
    log "the series is already applied to $TREE"
    return 0
  fi
  local report
  if ! report="$(git_in_tree apply --check "${list[@]}" 2>&1)"; then
    printf '%s\n' "$report" | head -n 20 >&2
    die "the series does not apply to $TREE (written against slopus/happy $BASE_COMMIT; nothing was changed). See docs/happy-adoption.md, \"When Happy moves\""
  fi
  git_in_tree apply "${list[@]}"
  log "applied ${#list[@]} patches to $TREE"
}

prepare() {
  local dir="${1:-$WORKDIR/tree}"
  [ -d "$HAPPY_SRC/packages" ] || die "no Happy source at $HAPPY_SRC (set HAPPY_SRC)"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -R "$HAPPY_SRC/." "$dir/"
  chmod -R u+w "$dir"
  apply "$dir"
}

# A hash of what the tarball is made of: the library's sources and package.json.
library_hash() {
  (cd "$REPO" && find src package.json tsconfig.build.json -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
}

pack_library() {
  local hash
  hash="$(library_hash)"
  TARBALL="$WORKDIR/happy-media-$hash.tgz"
  [ -f "$TARBALL" ] && return 0
  log "packing happy-media from this repository (npm run build, npm pack)"
  (cd "$REPO" && npm run -s build) >"$WORKDIR/build.log" 2>&1 || {
    tail -n 30 "$WORKDIR/build.log" >&2
    die "build failed (log: $WORKDIR/build.log)"
  }
  rm -f "$WORKDIR"/happy-media-*.tgz
  local packed
  packed="$(cd "$REPO" && npm pack --ignore-scripts --silent --pack-destination "$WORKDIR")"
  mv "$WORKDIR/$packed" "$TARBALL"
}

install_deps() {
  local deps="$WORKDIR/deps" stamp
  mkdir -p "$deps"
  # The manifest: the packages of integrations/happy/test-deps.json, and happy-media from the tarball.
  node -e '
    const [list, tarball, out] = process.argv.slice(1);
    const deps = JSON.parse(require("node:fs").readFileSync(list, "utf8")).dependencies;
    const manifest = { name: "happy-adoption-test-deps", private: true, type: "module",
      dependencies: { ...deps, "happy-media": `file:${tarball}` } };
    require("node:fs").writeFileSync(out, JSON.stringify(manifest, null, 2) + "\n");
  ' "$SERIES/test-deps.json" "$TARBALL" "$deps/package.json.next"
  stamp="$(sha256sum "$deps/package.json.next" | cut -c1-16)"
  if [ -f "$deps/.stamp" ] && [ "$(cat "$deps/.stamp")" = "$stamp" ] && [ -d "$deps/node_modules" ]; then
    rm "$deps/package.json.next"
    return 0
  fi
  mv "$deps/package.json.next" "$deps/package.json"
  rm -f "$deps/package-lock.json"
  log "installing the test dependencies (npm registry; cache in $WORKDIR/npm-cache)"
  (cd "$deps" && npm install --no-audit --no-fund --no-package-lock --loglevel=error --ignore-scripts) \
    >"$WORKDIR/install.log" 2>&1 || {
    tail -n 30 "$WORKDIR/install.log" >&2
    die "npm install failed (log: $WORKDIR/install.log)"
  }
  printf '%s\n' "$stamp" >"$deps/.stamp"
}

# The unit test files of what the series touches in packages/PACKAGE: each touched test file, and every
# test file of the package that imports a touched module (by a relative path or the package's `@/` alias).
touched_tests() {
  local package="$1" list
  mapfile -t list < <(patches)
  git_in_tree apply --numstat "${list[@]}" | awk '{print $3}' | grep "^packages/$package/" |
    node -e '
      const fs = require("node:fs"), path = require("node:path");
      const [tree, root, sourceDir] = process.argv.slice(1);
      const touched = fs.readFileSync(0, "utf8").split("\n").filter(Boolean).map((p) => path.join(tree, p));
      // Unit tests only: *.integration.test.ts need a running agent and server (Happy runs them apart).
      const isTest = (file) => /\.(test|spec)\.tsx?$/.test(file) && !/\.integration\.test\./.test(file);
      const modules = new Set(touched.filter((file) => !isTest(file) && /\.tsx?$/.test(file)).map((file) => file.replace(/\.tsx?$/, "")));
      const tests = new Set(touched.filter((file) => isTest(file) && fs.existsSync(file)));
      const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.name === "node_modules" ? [] : entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]);
      for (const file of walk(path.join(root, sourceDir)).filter(isTest)) {
        const source = fs.readFileSync(file, "utf8");
        for (const [, spec] of source.matchAll(/from\s+["\x27]((?:\.\.?|@)\/[^"\x27]+)["\x27]/g)) {
          const target = spec.startsWith("@/") ? path.join(root, sourceDir, spec.slice(2)) : path.resolve(path.dirname(file), spec);
          if (modules.has(target.replace(/\.tsx?$/, ""))) tests.add(file);
        }
      }
      for (const file of [...tests].sort()) console.log(path.relative(root, file));
    ' "$TREE" "$TREE/packages/$package" "$([ "$package" = happy-app ] && echo sources || echo src)"
}

write_configs() {
  local deps="$WORKDIR/deps" ts
  ts='{ compilerOptions: { jsx: "react-jsx", target: "es2022", useDefineForClassFields: true } }'
  cat >"$deps/vitest.app.config.mts" <<EOF
// Generated by scripts/happy-adoption.sh: happy-app's own vitest.config.ts, with @slopus/happy-wire as its
// source and the TypeScript options inline (see the script's header).
import { mergeConfig } from 'vitest/config';
import happyConfig from '$TREE/packages/happy-app/vitest.config.ts';
export default mergeConfig(happyConfig, {
  root: '$TREE/packages/happy-app',
  resolve: { alias: { '@slopus/happy-wire': '$TREE/packages/happy-wire/src/index.ts' } },
  esbuild: { tsconfigRaw: JSON.stringify($ts) },
  test: { cache: false },
});
EOF
  # happy-cli's vitest config is not part of the copied tree; this is its unit project's setup as its
  # package.json and tsconfig.json describe it (environment node, \`@\` → src).
  cat >"$deps/vitest.cli.config.mts" <<EOF
// Generated by scripts/happy-adoption.sh: happy-cli's unit tests (environment node, \`@\` → src).
import { defineConfig } from 'vitest/config';
export default defineConfig({
  root: '$TREE/packages/happy-cli',
  resolve: { alias: { '@/': '$TREE/packages/happy-cli/src/', '@slopus/happy-wire': '$TREE/packages/happy-wire/src/index.ts' } },
  esbuild: { tsconfigRaw: JSON.stringify({ compilerOptions: { jsx: 'react', target: 'es2022', experimentalDecorators: true } }) },
  test: { environment: 'node', globals: false, cache: false },
});
EOF
}

# vitest in packages/DIR with CONFIG (empty: the package's own) on the given files; none given: nothing
# to run, unless ALL is set (the package's whole suite).
# tsc --noEmit --strict on the modules of PACKAGE listed under "typecheck" in test-deps.json: those compile
# with only the test packages (the packages' own tsconfig needs their whole dependency tree).
typecheck() {
  local package="$1" sources files config="$WORKDIR/deps/tsconfig.$1-check.json" options
  files="$(node -e '
    const [list, root, pkg] = process.argv.slice(1);
    const files = JSON.parse(require("node:fs").readFileSync(list, "utf8")).typecheck?.[pkg] ?? [];
    console.log(JSON.stringify(files.map((file) => `${root}/${file}`)));
  ' "$SERIES/test-deps.json" "$TREE/packages/$package" "$package")"
  [ "$files" != "[]" ] || return 0
  if [ "$package" = happy-app ]; then
    sources=sources
    options='"lib": ["ES2022", "DOM"], "types": [], "allowImportingTsExtensions": true'
  else
    sources=src
    options='"lib": ["ES2022"], "types": ["node"], "typeRoots": ["'"$WORKDIR"'/deps/node_modules/@types"], "experimentalDecorators": true'
  fi
  cat >"$config" <<EOF
{
  "compilerOptions": {
    "strict": true, "noEmit": true, "skipLibCheck": true, "target": "ES2022", "module": "ESNext",
    "moduleResolution": "bundler", $options,
    "baseUrl": "$TREE/packages/$package",
    "paths": { "@/*": ["./$sources/*"], "@slopus/happy-wire": ["../happy-wire/src/index.ts"] }
  },
  "files": $files
}
EOF
  log "$package: tsc --noEmit on $(printf '%s' "$files" | tr -d '[]"' | sed "s|$TREE/packages/$package/||g")"
  "$WORKDIR/deps/node_modules/.bin/tsc" -p "$config"
}

# vitest in packages/DIR with CONFIG (empty: the package's own) on the given files; none given: nothing
# to run, unless ALL is set (the package's whole suite).
run_vitest() {
  local dir="$1" config="$2"
  shift 2
  [ "$#" -gt 0 ] || [ -n "${ALL:-}" ] || return 0
  log "$dir: vitest run $*"
  (cd "$TREE/packages/$dir" && "$WORKDIR/deps/node_modules/.bin/vitest" run ${config:+--config "$config"} "$@" </dev/null)
}

test_tree() {
  tree_arg "${1:-}"
  mkdir -p "$WORKDIR"
  local t0=$SECONDS status=0
  pack_library
  install_deps
  write_configs
  local deps="$WORKDIR/deps" package
  for package in happy-wire happy-app happy-cli; do
    [ -d "$TREE/packages/$package" ] && ln -sfn "$deps/node_modules" "$TREE/packages/$package/node_modules"
  done

  # The type checks run beside the tests (one core each on a small machine); their output follows the tests'.
  (
    checked=0
    log "happy-wire: tsc --noEmit"
    (cd "$TREE/packages/happy-wire" && "$deps/node_modules/.bin/tsc" --noEmit -p .) || checked=1
    typecheck happy-app || checked=1
    typecheck happy-cli || checked=1
    exit "$checked"
  ) >"$WORKDIR/typecheck.log" 2>&1 &
  TYPECHECK_PID=$!
  trap 'kill "${TYPECHECK_PID:-}" 2>/dev/null || true' EXIT

  ALL=1 run_vitest happy-wire "" || status=1
  local app_tests cli_tests
  mapfile -t app_tests < <(touched_tests happy-app)
  mapfile -t cli_tests < <(touched_tests happy-cli)
  run_vitest happy-app "$deps/vitest.app.config.mts" "${app_tests[@]}" || status=1
  run_vitest happy-cli "$deps/vitest.cli.config.mts" "${cli_tests[@]}" || status=1

  wait "$TYPECHECK_PID" || status=1
  trap - EXIT
  cat "$WORKDIR/typecheck.log" >&2

  if [ "$status" -eq 0 ]; then
    log "all of Happy's tests of the touched modules passed ($((SECONDS - t0)) s)"
  else
    log "some of Happy's tests failed ($((SECONDS - t0)) s)"
  fi
  return "$status"
}

edit() {
  [ -n "${1:-}" ] || die "missing WORK (usage: $0 edit WORK)"
  local work="$1" list
  [ ! -e "$work" ] || die "$work exists: give a new directory"
  [ -d "$HAPPY_SRC/packages" ] || die "no Happy source at $HAPPY_SRC (set HAPPY_SRC)"
  mkdir -p "$work"
  cp -R "$HAPPY_SRC/." "$work/"
  chmod -R u+w "$work"
  mapfile -t list < <(patches)
  (
    cd "$work"
    git init -q
    echo node_modules >>.git/info/exclude
    git add -A
    git -c user.name=happy-adoption -c user.email=happy-adoption@localhost commit -qm "slopus/happy $BASE_COMMIT (base)"
    git tag base
    git am -q --keep-cr "${list[@]}"
  )
  log "$work: the base (tag 'base') and ${#list[@]} commits; change them with git, then: $0 export $work"
}

export_series() {
  [ -n "${1:-}" ] || die "missing WORK (usage: $0 export WORK)"
  local work
  work="$(cd "$1" && pwd)"
  git -C "$work" rev-parse -q --verify base >/dev/null || die "$work has no 'base' tag (made by $0 edit)"
  rm -f "$SERIES"/*.patch
  git -C "$work" format-patch -q --zero-commit --no-signature --no-numbered -o "$SERIES" base..HEAD
  log "wrote $(find "$SERIES" -maxdepth 1 -name '*.patch' | wc -l) patches to $SERIES"
}

case "${1:-}" in
apply) apply "${2:-}" ;;
test) test_tree "${2:-}" ;;
prepare) prepare "${2:-}" ;;
edit) edit "${2:-}" ;;
export) export_series "${2:-}" ;;
*) die "usage: $0 apply DIR | test DIR | prepare [DIR] | edit WORK | export WORK" ;;
esac
