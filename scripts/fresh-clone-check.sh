#!/usr/bin/env bash
# The README's promise, checked as a new user would meet it: a clone of this repository's HEAD in a temp
# dir, a PATH without ffmpeg, ffprobe or Chromium, an empty environment (HOME and PATH only), and the
# README's two commands exactly as written:
#
#   npm install && npx happy-media demo
#   npm test
#
# Fails when either command fails, when the demo skips anything (the video needs the bundled ffmpeg), or
# when npm prints an install-script warning. Used by .ci/run; runnable by hand: scripts/fresh-clone-check.sh
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# node and npm may live in the same directory as a system ffmpeg (/usr/bin), so the PATH is a directory of
# symlinks to every command on the current PATH except the hidden ones.
hidden='^(ffmpeg|ffprobe|chromium|chromium-browser|chrome|google-chrome.*)$'
shim="$work/bin"
mkdir "$shim"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    n="${f##*/}"
    [[ "$n" =~ $hidden ]] && continue
    [ -x "$f" ] && [ ! -e "$shim/$n" ] && ln -s "$f" "$shim/$n"
  done
done
for t in ffmpeg ffprobe chromium; do
  if PATH="$shim" command -v "$t" >/dev/null; then
    echo "fresh-clone check: $t is still on the shim PATH" >&2
    exit 1
  fi
done

git clone -q "$repo" "$work/happy-media" || exit 1
cd "$work/happy-media" || exit 1
echo "fresh clone of $(git log -1 --format='%h %s' | cut -c1-72) in $PWD; PATH without ffmpeg/ffprobe/chromium"

# A fresh user's environment: nothing but HOME (npm's cache and config) and the shim PATH.
as_new_user() { env -i HOME="$HOME" PATH="$shim" LANG=C.UTF-8 bash -c "$1"; }

failed=0
as_new_user 'npm install && npx happy-media demo' 2>&1 | tee "$work/install-demo.log"
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
  echo "fresh-clone check: 'npm install && npx happy-media demo' failed" >&2
  failed=1
fi
if grep -qiE 'install-scripts|allowScripts' "$work/install-demo.log"; then
  echo "fresh-clone check: npm printed an install-script warning" >&2
  failed=1
fi
if grep -qi 'skipped' "$work/install-demo.log"; then
  echo "fresh-clone check: the demo skipped a step" >&2
  failed=1
fi
if ! grep -qE '^ +bundled +/' "$work/install-demo.log"; then
  echo "fresh-clone check: the demo did not use the bundled ffmpeg/ffprobe" >&2
  failed=1
fi

as_new_user 'npm test' >"$work/test.log" 2>&1
test_status=$?
grep -E 'Test Files|Tests  |skipped: ' "$work/test.log"
if [ "$test_status" -ne 0 ]; then
  echo "fresh-clone check: 'npm test' failed; its last lines:" >&2
  tail -60 "$work/test.log" >&2
  failed=1
fi

if [ "$failed" -eq 0 ]; then
  echo "fresh-clone check: passed in ${SECONDS}s"
else
  echo "fresh-clone check: FAILED after ${SECONDS}s" >&2
fi
exit "$failed"
