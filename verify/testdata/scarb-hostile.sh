#!/bin/bash
# A hostile stand-in for scarb, for the sandbox's test only: it does what build-time code
# of a submitted project (a Cairo plugin, a procedural macro) could do. For a source marked
# STANDIN_HOSTILE it tries each thing below, reports each as "ATTEMPT <name>: ok <what>" or
# "ATTEMPT <name>: failed <why>", and fails the build. The targets are in the marked source,
# as words KEY=VALUE on the marker's line:
#   planted=FILE    a file outside the job to read      plantdir=DIR  a directory to write into
#   jobs=DIR        the worker's job directories          pid=N         a process of the worker's user
#   api=HOST:PORT   a listener on 127.0.0.1               outside=HOST:PORT  one on another address
#   nonce=WORD      names the files written to /tmp and /var/tmp
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--version" ]; then
	echo "scarb $(basename "$here") (0000000 2024-01-01)"
	exit 0
fi
line=$(grep -rh STANDIN_HOSTILE src 2>/dev/null | head -n 1)
if [ -z "$line" ]; then
	echo "error: the hostile stand-in builds only sources marked STANDIN_HOSTILE" >&2
	exit 1
fi
arg() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
planted=$(arg planted) plantdir=$(arg plantdir) jobs=$(arg jobs) pid=$(arg pid)
api=$(arg api) outside=$(arg outside) nonce=$(arg nonce)

report() { # name, then the command; its first line of output says what it got or why not
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "ATTEMPT $name: ok $(echo "$out" | head -n 1)"
	else
		echo "ATTEMPT $name: failed $(echo "$out" | tail -n 1)"
	fi
}
connect() { # host:port: open a TCP connection and say hello
	timeout 3 bash -c 'exec 5<>"/dev/tcp/${1%:*}/${1##*:}" && echo hello-from-build >&5 && echo connected' _ "$1"
}
report read-shadow head -c 40 /etc/shadow
report read-planted cat "$planted"
report read-environment sh -c "tr '\\0' '\\n' </proc/$pid/environ | grep STARKGRAPH_TEST_SECRET"
report list-jobs sh -c "ls -A '$jobs' | tr '\\n' ' ' | grep ."
report list-root sh -c "ls -A /root | tr '\\n' ' ' | grep ."
report write-tmp sh -c "echo hostile >/tmp/starkgraph-hostile-$nonce && echo /tmp/starkgraph-hostile-$nonce"
report write-var-tmp sh -c "echo hostile >/var/tmp/starkgraph-hostile-$nonce && echo /var/tmp/starkgraph-hostile-$nonce"
report write-planted-dir sh -c "echo hostile >'$plantdir/hostile-$nonce' && echo '$plantdir/hostile-$nonce'"
report connect-api connect "$api"
report connect-outside connect "$outside"
report connect-internet connect 1.1.1.1:443
# Last, and with builtins only after it: once the processes are at their limit, nothing
# more can be forked. Each process is a copy of sh blocked on opening a FIFO (no exec, to
# keep it quick); opening the FIFO for writing releases them all.
fifo="fork-fifo-$nonce"
mkfifo "$fifo"
sh -c 'i=0; while [ $i -lt 512 ]; do (: <"$2") >/dev/null 2>&1 & i=$((i + 1)); echo $i >"$1"; done' _ "fork-count-$nonce" "$fifo" 2>/dev/null
read -r forked <"fork-count-$nonce" || forked=0
if [ "$forked" -ge 512 ]; then
	echo "ATTEMPT fork-512: ok $forked processes"
else
	echo "ATTEMPT fork-512: failed after $forked processes"
fi
exec 6<>"$fifo"
exec 6>&-
echo "error: hostile stand-in: done"
exit 1
