#!/usr/bin/env bash
# Runs sbt. The launcher jar is fetched through Maven into .cache/ on first use,
# so that a machine with Java and Maven needs nothing else installed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SBT_VERSION="$(sed -n 's/^sbt.version=//p' "$ROOT/project/build.properties")"
CACHE="$ROOT/.cache"
JAR="$CACHE/sbt-launch-$SBT_VERSION.jar"
if [ ! -f "$JAR" ]; then
  mkdir -p "$CACHE"
  mvn -q -B dependency:copy -Dartifact="org.scala-sbt:sbt-launch:$SBT_VERSION" -DoutputDirectory="$CACHE"
fi
exec java -Xms512m -Xmx4g -Xss4m -XX:+UseParallelGC \
  -Dsbt.server.forcestart=false -Dsbt.supershell=false -Dsbt.color=false -Dsbt.ci=true \
  -jar "$JAR" "$@"
