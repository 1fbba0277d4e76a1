/**
 * What the companion and its peers exchange on the wire, free of any server or client library: the
 * one decoder of server-sent events, the one line splitter, and the one validation of JSON request
 * bodies (with the one check that a path is absolute), used by the engine, the daemon client, the
 * bridge, the editor API and the tests alike; and the one strict UTF-8 decoding.
 */
module dev.companion4j.wire {
  exports dev.companion4j.wire;

  requires transitive tools.jackson.databind;
}
