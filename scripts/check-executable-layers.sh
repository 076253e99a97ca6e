#!/bin/bash
# The executable's folders hold a layering the compiler cannot (they are one module):
# Shared/ uses nothing from App/ or Tools/, and App/ (the kiosk) uses nothing from Tools/ (the
# subcommands); Tools/ may use both. A type, function or constant declared at the top level of a
# folder is looked for, as a whole word outside comments, in the folders that must not use it.
# Prints each use and exits 1 when there is one. Run from the package root.
set -euo pipefail
src=Sources/KioskCards

declared() { # the names declared at the top level of the files under $1
  grep -rhoE '^((public|package|private|fileprivate|internal|final|indirect) )*(struct|enum|class|protocol|typealias|actor|func|let|var) [A-Za-z_][A-Za-z0-9_]*' "$1" |
    awk '{ print $NF }' | sort -u
}

uses() { # the lines under $2 (outside comments) naming any of the words in file $1
  [ -s "$1" ] || return 0
  grep -rnwF -f "$1" "$2" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|\*)' || true
}

words=$(mktemp)
trap 'rm -f "$words"' EXIT
found=0
check() { # $1 the folder whose names, $2 the folder that must not use them
  declared "$src/$1" >"$words"
  local hits
  hits=$(uses "$words" "$src/$2")
  if [ -n "$hits" ]; then
    echo "$hits"
    echo "check-executable-layers: $2/ uses what $1/ declares (above); move the shared piece to $src/Shared/" >&2
    found=1
  fi
}
check Tools App
check Tools Shared
check App Shared
exit $found
