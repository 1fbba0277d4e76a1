/**
 * What the companion and its peers exchange on the wire, free of any server or client library: the
 * one decoder of server-sent events and the one line splitter, used by the daemon client, the
 * bridge and the tests alike.
 */
module dev.companion4j.wire {
  exports dev.companion4j.wire;
}
