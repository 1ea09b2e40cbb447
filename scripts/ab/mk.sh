#!/usr/bin/env bash
# mk.sh <name> <include dir holding gpuprim/> <dest dir>: copies <include dir>/gpuprim to
# <dest dir>/<name>/ with every "gpuprim" renamed <name> and "GPUPRIM" renamed <NAME> (namespaces,
# include paths, macros), so that two gpuprim trees can be linked into one program. Used by build.sh.
set -euo pipefail
[ $# = 3 ] || { echo "usage: mk.sh <name> <include dir holding gpuprim/> <dest dir>" >&2; exit 2; }
name=$1 src=$2 dst=$3
[[ $name =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "mk.sh: bad name '$name'" >&2; exit 2; }
[ -d "$src/gpuprim" ] || { echo "mk.sh: no $src/gpuprim" >&2; exit 1; }
rm -rf "$dst"
mkdir -p "$dst"
cp -r "$src/gpuprim" "$dst/$name"
up=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
find "$dst" -type f -print0 | xargs -0 sed -i -e "s/gpuprim/$name/g" -e "s/GPUPRIM/$up/g"
