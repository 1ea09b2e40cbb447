#!/usr/bin/env bash
# mk.sh <name> <include dir of copy> : copies include/gpuprim as <dir>/<name>/ with every gpuprim renamed <name>
set -e
name=$1; src=$2; dst=$PWD/inc_$name
rm -rf $dst; mkdir -p $dst
cp -r $src/gpuprim $dst/$name
up=$(echo $name | tr a-z A-Z)
find $dst -type f | xargs sed -i -e "s/gpuprim/$name/g" -e "s/GPUPRIM/$up/g"
