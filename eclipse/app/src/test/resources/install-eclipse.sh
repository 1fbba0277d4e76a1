#!/usr/bin/env bash
# Installs with p2 an Eclipse IDE as a user has one, from the IDE's bundles in BUNDLES_DIR (the
# build's, without the companion plugin): a p2 profile, simpleconfigurator's bundles.info and a
# config.ini written by p2's director, as Eclipse's own packages are made:
#   install-eclipse.sh P2_TOOL_DIR BUNDLES_DIR WORK_DIR    (the Eclipse goes to WORK_DIR/eclipse)
# What a product definition gives Eclipse's packages is given by a feature's p2.inf: the default
# configuration unit that installs every bundle, the start levels of the bundles that Eclipse
# starts itself, the application, and a Java runtime unit (the installing JDK's Java SE versions
# and packages) for the bundles' execution environments.
set -euo pipefail
tool=$1 bundles=$2 work=$3
p2=${ECLIPSE_P2_SCRIPT:?ECLIPSE_P2_SCRIPT names scripts/eclipse-p2.sh}
java=${ECLIPSE_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
src=$work/source
mkdir -p "$src/plugins" "$src/features/ide"
for jar in "$bundles"/*.jar; do
  case $(basename "$jar") in companion4j-eclipse-plugin-*) ;; *) ln -s "$jar" "$src/plugins/" ;; esac
done
ln -s "$tool"/org.eclipse.equinox.simpleconfigurator-[0-9]*.jar "$src/plugins/"

symbolic_name() {
  unzip -p "$1" META-INF/MANIFEST.MF | tr -d '\r' | sed -n '/^Bundle-SymbolicName:/,/^[A-Za-z-]*:/p' \
    | sed '$d' | sed 's/^ //' | tr -d '\n' | sed 's/^Bundle-SymbolicName: *//; s/;.*//'
}
{
  echo '<feature id="ide" version="1.0.0" label="Eclipse IDE">'
  for jar in "$src"/plugins/*.jar; do echo "  <plugin id=\"$(symbolic_name "$jar")\" version=\"0.0.0\"/>"; done
  echo '</feature>'
} >"$src/features/ide/feature.xml"

n=0
require() { echo "requires.$n.namespace=org.eclipse.equinox.p2.iu"; echo "requires.$n.name=$1"; echo "requires.$n.range=0.0.0"; }
unit() { # ID: the head of a unit providing ID
  echo "units.$n.id=$1"; echo "units.$n.version=1.0.0"
  echo "units.$n.provides.0.namespace=org.eclipse.equinox.p2.iu"; echo "units.$n.provides.0.name=$1"; echo "units.$n.provides.0.version=1.0.0"
  echo "units.$n.touchpoint.id=org.eclipse.equinox.p2.osgi"; echo "units.$n.touchpoint.version=1.0.0"
}
fragment_of() { # HOST_NAMESPACE HOST_NAME HOST_RANGE: a configuration unit; p2 applies one to each bundle
  echo "units.$n.hostRequirements.0.namespace=$1"; echo "units.$n.hostRequirements.0.name=$2"; echo "units.$n.hostRequirements.0.range=$3"
  echo "units.$n.hostRequirements.0.greedy=false"
  echo "units.$n.requires.0.namespace=$1"; echo "units.$n.requires.0.name=$2"; echo "units.$n.requires.0.range=$3"
  echo "units.$n.requires.0.greedy=false"
  echo "units.$n.instructions.install=installBundle(bundle:\${artifact});"
  echo "units.$n.instructions.uninstall=uninstallBundle(bundle:\${artifact});"
}
{
  # Every bundle is installed into bundles.info (Eclipse's tooling.osgi.bundle.default).
  unit tooling.osgi.bundle.default; fragment_of org.eclipse.equinox.p2.eclipse.type bundle "[1.0.0,2.0.0)"
  require tooling.osgi.bundle.default; n=$((n+1))
  for started in org.eclipse.equinox.simpleconfigurator:1 org.apache.felix.scr:2 org.eclipse.equinox.common:2 \
      org.eclipse.equinox.event:2 org.apache.aries.spifly.dynamic.bundle:2 org.eclipse.core.runtime:4; do
    unit "start.${started%:*}"; fragment_of osgi.bundle "${started%:*}" 0.0.0
    echo "units.$n.instructions.configure=setStartLevel(startLevel:${started#*:});markStarted(started:true);"
    require "start.${started%:*}"; n=$((n+1))
  done
  unit ide.application
  echo "units.$n.instructions.configure=setProgramProperty(propName:eclipse.application,propValue:org.eclipse.ui.ide.workbench);setProgramProperty(propName:osgi.bundles.defaultStartLevel,propValue:4);"
  require ide.application; n=$((n+1))
  unit a.jre.javase
  k=1
  provide() { echo "units.$n.provides.$k.namespace=$1"; echo "units.$n.provides.$k.name=$2"; echo "units.$n.provides.$k.version=$3"; k=$((k+1)); }
  for v in 1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7 1.8 $(seq 9 "$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')"); do
    provide osgi.ee JavaSE "$v"
  done
  for ee in JavaSE/compact1:1.8 JavaSE/compact2:1.8 JavaSE/compact3:1.8 OSGi/Minimum:1.0 OSGi/Minimum:1.1 OSGi/Minimum:1.2 JRE:1.0 JRE:1.1; do
    provide osgi.ee "${ee%:*}" "${ee#*:}"
  done
  for package in $("$java" --list-modules | sed 's/@.*//' | while read -r m; do
      "$java" --describe-module "$m" | awk '$1 == "exports" && NF == 2 { print $2 }'; done | sort -u); do
    provide java.package "$package" 0.0.0
  done
  require a.jre.javase
} >"$src/features/ide/p2.inf"

"$p2" "$tool" org.eclipse.equinox.p2.publisher.FeaturesAndBundlesPublisher -source "$src" \
  -metadataRepository "file:$work/repository" -artifactRepository "file:$work/repository" -publishArtifacts
"$p2" "$tool" org.eclipse.equinox.p2.director -repository "file:$work/repository" -installIU ide.feature.group \
  -destination "$work/eclipse" -profile user -p2.os linux -p2.ws gtk -p2.arch x86_64
