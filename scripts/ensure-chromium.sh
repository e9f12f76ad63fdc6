#!/usr/bin/env bash
# The report's browser tests open the site in Debian's headless chromium (driven by the
# playwright package with executable_path; no browser download). Install it when it is
# missing and we can (root on Debian/Ubuntu); otherwise say in one line what to install.
set -euo pipefail
if [ -n "${SERVESCOPE_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium for the report's browser tests (apt-get install -y chromium)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  exit 0
fi
echo "note: no chromium: the report's browser tests will fail; install Debian's chromium (apt-get install chromium) or set SERVESCOPE_CHROMIUM=/path/to/chrome" >&2
