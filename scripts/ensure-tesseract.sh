#!/usr/bin/env bash
# The ocr scorer reads renders with Debian's tesseract-ocr (pytesseract finds the binary).
# Install it when it is missing and we can (root on Debian/Ubuntu); otherwise say in one
# line what to install.
set -euo pipefail
if command -v tesseract >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing tesseract-ocr for the ocr scorer's tests (apt-get install -y tesseract-ocr)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tesseract-ocr >/dev/null
  exit 0
fi
echo "note: no tesseract: the ocr scorer's tests will fail; install Debian's tesseract-ocr (apt-get install tesseract-ocr)" >&2
