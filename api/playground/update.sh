#!/bin/sh
# Fetches the GraphiQL playground's scripts and styles from the npm registry at the pinned
# versions below into assets/, with their licences, and writes assets/SHA256SUMS. The server
# embeds assets/ (go:embed) and serves it under /playground/assets/, so the playground needs
# no CDN. To change a version: edit it here, run this script, run the tests, commit.
set -eu
cd "$(dirname "$0")"

GRAPHIQL=4.1.2
REACT=18.2.0
EXPLORER=4.0.6

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "graphiql@$GRAPHIQL" "react@$REACT" "react-dom@$REACT" "@graphiql/plugin-explorer@$EXPLORER" >/dev/null)
for pkg in "graphiql-$GRAPHIQL" "react-$REACT" "react-dom-$REACT" "graphiql-plugin-explorer-$EXPLORER"; do
	mkdir -p "$tmp/$pkg"
	tar xzf "$tmp/$pkg.tgz" -C "$tmp/$pkg"
done

find assets -type f ! -name 'starkgraph-*' -delete
cp "$tmp/react-$REACT/package/umd/react.production.min.js" "assets/react-$REACT.min.js"
cp "$tmp/react-$REACT/package/LICENSE" "assets/react-$REACT.LICENSE.txt"
cp "$tmp/react-dom-$REACT/package/umd/react-dom.production.min.js" "assets/react-dom-$REACT.min.js"
cp "$tmp/react-dom-$REACT/package/LICENSE" "assets/react-dom-$REACT.LICENSE.txt"
# The source-map comment would make browser tools ask for a map we do not ship.
sed '/^\/\/# sourceMappingURL=/d' "$tmp/graphiql-$GRAPHIQL/package/graphiql.min.js" >"assets/graphiql-$GRAPHIQL.min.js"
cp "$tmp/graphiql-$GRAPHIQL/package/graphiql.min.css" "assets/graphiql-$GRAPHIQL.min.css"
cp "$tmp/graphiql-$GRAPHIQL/package/LICENSE" "assets/graphiql-$GRAPHIQL.LICENSE.txt"
cp "$tmp/graphiql-plugin-explorer-$EXPLORER/package/dist/index.umd.js" "assets/graphiql-plugin-explorer-$EXPLORER.umd.js"
cp "$tmp/graphiql-plugin-explorer-$EXPLORER/package/dist/style.css" "assets/graphiql-plugin-explorer-$EXPLORER.css"
if [ -f "$tmp/graphiql-plugin-explorer-$EXPLORER/package/LICENSE" ]; then
	cp "$tmp/graphiql-plugin-explorer-$EXPLORER/package/LICENSE" "assets/graphiql-plugin-explorer-$EXPLORER.LICENSE.txt"
fi

(cd assets && sha256sum -- *.js *.css | grep -v ' starkgraph-' >SHA256SUMS)
echo "assets updated:"
cat assets/SHA256SUMS
