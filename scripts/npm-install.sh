#!/bin/sh
# npm install with the project's flags, tried three times: a registry connection reset mid-download
# (ECONNRESET) fails a whole install, and setup on a fresh machine downloads hundreds of packages.
# Arguments are passed on to npm install.
attempt=1
while :; do
  npm install --no-audit --no-fund --loglevel=error "$@" && exit 0
  if [ "$attempt" -ge 3 ]; then
    echo "npm install failed $attempt times: check the network or the registry, then run make setup again" >&2
    exit 1
  fi
  echo "npm install failed (attempt $attempt of 3): trying again in 10 s" >&2
  attempt=$((attempt + 1))
  sleep 10
done
