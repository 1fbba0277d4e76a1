#!/usr/bin/env bash
# Runs one of p2's headless applications (the publisher, the director) in an Equinox made of the
# bundles in one folder, as the Eclipse build and the install test do:
#   scripts/eclipse-p2.sh BUNDLES_DIR APPLICATION [ARGUMENT...]
# e.g. scripts/eclipse-p2.sh eclipse/repository/target/p2/plugins org.eclipse.equinox.p2.director \
#        -repository jar:file:/path/companion4j-eclipse.zip!/ -installIU dev.companion4j.eclipse.feature.feature.group \
#        -destination ECLIPSE_DIR -profile PROFILE
# Exits with the application's status. Runs on ECLIPSE_JAVA_HOME (default Temurin 25): the bundles
# need Java 21 or newer (docs/eclipse-internals.md).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/eclipse-p2.sh BUNDLES_DIR APPLICATION [ARGUMENT...]" >&2; exit 2; }
plugins=$(cd "$1" && pwd)
application=$2
shift 2
java=${ECLIPSE_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
framework=$(ls "$plugins"/org.eclipse.osgi-[0-9]*.jar 2>/dev/null | head -1) || true
[ -n "$framework" ] && [ -x "$java" ] || { echo "eclipse-p2.sh: needs $java and org.eclipse.osgi in $plugins" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/companion4j-p2.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The bundles p2 needs started (Declarative Services, the registry, the framework's manipulator);
# the rest start lazily.
bundles=
extensions=
for jar in "$plugins"/*.jar; do
  [ "$jar" = "$framework" ] && continue
  # A fragment of the framework itself: an extension, on the framework's own class path.
  case $(basename "$jar") in org.eclipse.osgi.compatibility.state-[0-9]*) extensions=reference:file:$jar; continue ;; esac
  case $(basename "$jar") in
    org.apache.felix.scr-[0-9]*|org.eclipse.equinox.common-[0-9]*) start=@2:start ;;
    org.eclipse.core.runtime-[0-9]*|org.eclipse.equinox.app-[0-9]*) start=@4:start ;;
    # Services of their components, which Felix SCR only sees in started bundles.
    org.eclipse.equinox.frameworkadmin.equinox-[0-9]*|org.eclipse.equinox.simpleconfigurator.manipulator-[0-9]*) start=@4:start ;;
    *) start= ;;
  esac
  bundles+=${bundles:+,}reference:file:$jar$start
done
mkdir -p "$work/configuration"
cat >"$work/configuration/config.ini" <<INI
osgi.bundles=$bundles
osgi.framework.extensions=$extensions
osgi.bundles.defaultStartLevel=4
# The publisher (1.6.800) uses the JDK's XML parser without importing its packages.
org.osgi.framework.bootdelegation=javax.xml.*,org.xml.sax,org.xml.sax.*,org.w3c.dom,org.w3c.dom.*
INI
# EclipseStarter's own main leaves the framework running once the application has returned (and
# a publisher application returns on a thread of its own): this one stops it and exits with the
# application's status. Like Eclipse's launcher it loads the framework in a class loader with a
# public addURL, which Equinox needs for a framework extension. Bounded: Equinox waits for ever
# for an application that never registers.
cat >"$work/P2.java" <<'JAVA'
import java.net.URL;
import java.net.URLClassLoader;
public class P2 {
  static final class Loader extends URLClassLoader {
    Loader(URL framework) { super(new URL[] {framework}, null); }
    @Override public void addURL(URL url) { super.addURL(url); }
  }
  public static void main(String[] args) throws Exception {
    Loader loader = new Loader(java.net.URI.create(System.getProperty("p2.framework")).toURL());
    Thread.currentThread().setContextClassLoader(loader);
    Object status = loader.loadClass("org.eclipse.core.runtime.adaptor.EclipseStarter")
        .getMethod("run", String[].class, Runnable.class).invoke(null, args, null);
    System.exit(status instanceof Integer code ? code : 0);
  }
}
JAVA
timeout --kill-after=10 "${ECLIPSE_P2_TIMEOUT:-600}" "$java" -Duser.home="$HOME" -Djava.io.tmpdir="${TMPDIR:-/tmp}" \
  -Dp2.framework="file:$framework" "$work/P2.java" \
  -configuration "file:$work/configuration/" -data "$work/workspace" -consoleLog \
  -application "$application" "$@"
