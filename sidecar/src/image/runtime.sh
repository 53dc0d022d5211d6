#!/usr/bin/env bash
# Builds the root file system of the Tally image's base without a registry or a Docker
# daemon: a Java runtime linked with jlink from the JDK running the build, the shared
# libraries it needs (found with ldd, copied from this machine), a passwd/group with the
# non-root user 65532, and an empty /tmp. Jib adds the application on top (-Pimage).
#
# Usage: runtime.sh OUT_DIR [JAVA_HOME]   (JAVA_HOME "none": an empty OUT_DIR, for a base
#        image from a registry that brings its own Java: -Dimage.from=... -Dimage.jdk=none)
# Needs: Linux, a JDK 17+ with jmods (Debian's openjdk-17-jdk-headless has them), ldd.
set -euo pipefail
out=${1:?usage: runtime.sh OUT_DIR [JAVA_HOME]}
jdk=${2:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}}
if [ "$jdk" = none ]; then
  rm -rf "$out" && mkdir -p "$out"
  echo "runtime.sh: no runtime; the base image brings Java"
  exit 0
fi
modules=java.base,java.management,java.naming,java.net.http,java.sql,jdk.jfr,jdk.unsupported,jdk.crypto.ec

[ -d "$jdk/jmods" ] || { echo "runtime.sh: $jdk has no jmods (install the JDK's jmods, e.g. openjdk-17-jdk-headless)" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out/opt" "$out/etc" "$out/tmp"

"$jdk/bin/jlink" --module-path "$jdk/jmods" --add-modules "$modules" \
  --strip-debug --no-man-pages --no-header-files --compress=2 \
  --output "$out/opt/java"

# The certificate store: Debian's JDK links it to /etc/ssl/certs/java/cacerts.
cacerts=$(readlink -f "$jdk/lib/security/cacerts")
rm -f "$out/opt/java/lib/security/cacerts"
cp "$cacerts" "$out/opt/java/lib/security/cacerts"

# Every shared library an ELF file of the runtime needs, at the same path as here.
find "$out/opt/java" -type f \( -name '*.so' -o -perm -u+x \) -print0 |
  xargs -0 -r ldd 2>/dev/null |
  grep -oE '(/[^ ]+\.so[^ ]*)' | sort -u |
  while read -r lib; do
    case "$lib" in "$out"/*) continue ;; esac
    mkdir -p "$out$(dirname "$lib")"
    cp -L "$lib" "$out$lib"
  done
# glibc resolves host names itself (files, dns are built in since 2.34); say so explicitly.
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$out/etc/nsswitch.conf"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$out/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$out/etc/group"
mkdir -p "$out/home/nonroot"

# A record of what went in, for the image's users and for reproducibility checks.
{
  echo "jdk: $("$jdk/bin/java" -version 2>&1 | head -1)"
  echo "modules: $modules"
  echo "libraries:"
  (cd "$out" && { find lib lib64 usr -type f 2>/dev/null || true; } | sort | while read -r f; do
    pkg=$(dpkg -S "/$f" 2>/dev/null | cut -d: -f1 | head -1 || true)
    echo "  /$f ${pkg:-?} $(sha256sum "$f" | cut -c1-16)"
  done)
} > "$out/opt/java/tally-runtime.txt"
echo "runtime.sh: $(du -sh "$out" | cut -f1) in $out"
