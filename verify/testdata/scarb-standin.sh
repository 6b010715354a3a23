#!/bin/sh
# A stand-in for scarb, for tests only: it speaks scarb's command line for `--version` and
# `[--offline] build`. Installed as DIR/<version>/bin/scarb (the asdf layout), it reports
# <version> and "builds" by copying DIR/<version>/class.json, a real contract class put
# there by the test, to target/dev/<package>_<contract>.contract_class.json, where the
# package is Scarb.toml's name and the contract the module after #[starknet::contract].
# Markers in the sources change what it does:
#   STANDIN_COMPILE_ERROR  fail as a compile error does, with scarb's kind of words
#   STANDIN_CHANGE_FELT    write the class with the first Sierra felt changed
#   STANDIN_SLEEP=N        take N seconds to build
#   STANDIN_PRINT_ENV      fail, printing the environment it was given
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
version=$(basename "$here")

if [ "${1:-}" = "--version" ]; then
	echo "scarb $version (0000000 2024-01-01)"
	echo "cairo: $version (https://crates.io/crates/cairo-lang-compiler/$version)"
	echo "sierra: 1.6.0"
	exit 0
fi
[ "${1:-}" = "--offline" ] && shift
if [ "${1:-}" != "build" ]; then
	echo "error: no such command: \`${1:-}\`" >&2
	exit 2
fi
if [ ! -f Scarb.toml ]; then
	echo "error: could not find \`Scarb.toml\` in \`$(pwd)\` or any parent directory" >&2
	exit 1
fi
pkg=$(sed -n 's/^name *= *"\([A-Za-z0-9_]*\)".*/\1/p' Scarb.toml | head -n 1)
sources=$(find src -name '*.cairo' | sort)
echo "   Compiling $pkg v0.1.0 ($(pwd)/Scarb.toml)"

if grep -q STANDIN_PRINT_ENV $sources; then
	env
	exit 1
fi
if grep -q STANDIN_COMPILE_ERROR $sources; then
	echo "error: Identifier not found."
	echo " --> $(echo "$sources" | head -n 1):3:9"
	echo "        undefined_thing"
	echo "        ^*************^"
	echo ""
	echo "error: could not compile \`$pkg\` due to previous error" >&2
	exit 1
fi
secs=$(cat $sources | sed -n 's/.*STANDIN_SLEEP=\([0-9]*\).*/\1/p' | head -n 1)
if [ -n "$secs" ]; then
	sleep "$secs"
fi

contract=$(cat $sources | grep -A 1 'starknet::contract' | sed -n 's/.*mod \([A-Za-z0-9_]*\).*/\1/p' | head -n 1)
mkdir -p target/dev
out="target/dev/${pkg}_${contract}.contract_class.json"
if grep -q STANDIN_CHANGE_FELT $sources; then
	awk 'f == 1 { sub(/"0x[0-9a-fA-F]*"/, "\"0x1234\""); f = 2 } /"sierra_program": \[/ && f == 0 { f = 1 } { print }' "$here/class.json" >"$out"
else
	cp "$here/class.json" "$out"
fi
echo "    Finished \`dev\` profile target(s) in 0 seconds"
