// A scripted ACP agent for the transport's tests: what it does with a prompt depends on the
// prompt's text (see AcpTransportTest).
import { spawn } from "node:child_process";
import readline from "node:readline";

const out = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const waiting = new Map();
// With FAKE_AGENT_LOGIN set, sessions need `authenticate` with that method first.
let loggedIn = process.env.FAKE_AGENT_LOGIN === undefined;
let nextId = 1000;
// The MCP servers the last session/new named, for the prompt "mcp servers".
let mcpServers = [];

function request(method, params) {
  const id = nextId++;
  out({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

function say(sessionId, text) {
  out({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
  });
}

async function prompt(id, { sessionId, prompt }) {
  const text = prompt[0].text;
  if (text === "bad line") {
    process.stdout.write("this is not json\n");
    say(sessionId, "after the bad line");
  } else if (text === "huge line") {
    process.stdout.write("x".repeat(33 * 1024 * 1024) + "\n");
    say(sessionId, "after the huge line");
  } else if (text === "exit") {
    process.exit(3);
  } else if (text === "answer and exit") {
    say(sessionId, "last words");
    out({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } });
    process.exit(0);
  } else if (text === "mcp servers") {
    say(sessionId, JSON.stringify(mcpServers));
  } else if (text === "unknown request") {
    const reply = await request("craft/drainMidTurnQueue", { sessionId });
    say(sessionId, "the client answered " + JSON.stringify(reply.error ?? reply.result));
  } else if (text === "unknown update") {
    out({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId, update: { sessionUpdate: "something_new", detail: 1 } },
    });
    say(sessionId, "after the unknown update");
  } else if (text === "child") {
    // A child that keeps this agent alive after its input ends, and ignores polite signals.
    const child = spawn("sh", ["-c", "trap '' TERM INT HUP; sleep 300"], { stdio: "ignore" });
    say(sessionId, "child " + child.pid);
  } else if (text === "permission") {
    const reply = await request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId: "t1", title: "Write a.txt", kind: "edit", status: "pending" },
      options: [
        { optionId: "yes", name: "Allow", kind: "allow_once" },
        { optionId: "no", name: "Reject", kind: "reject_once" },
      ],
    });
    say(sessionId, "outcome " + JSON.stringify(reply.result?.outcome));
  } else if (text.startsWith("read ")) {
    const reply = await request("fs/read_text_file", { sessionId, path: text.slice(5) });
    say(sessionId, "read " + JSON.stringify(reply.error ?? reply.result));
  } else if (text.startsWith("write ")) {
    const reply = await request("fs/write_text_file", { sessionId, path: text.slice(6), content: "agent text" });
    say(sessionId, "wrote " + JSON.stringify(reply.error ?? reply.result));
  } else {
    say(sessionId, "echo: " + text);
  }
  out({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } });
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined) {
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  } else if (m.method === "initialize") {
    const authMethods = [{ id: "key", name: "API key" }, { id: "oauth", name: "Log in" }];
    out({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods } });
  } else if (m.method === "authenticate") {
    loggedIn = m.params.methodId === process.env.FAKE_AGENT_LOGIN;
    out(loggedIn
      ? { jsonrpc: "2.0", id: m.id, result: {} }
      : { jsonrpc: "2.0", id: m.id, error: { code: -32000, message: "Authentication failed" } });
  } else if (m.method === "session/new") {
    mcpServers = m.params.mcpServers;
    out(loggedIn
      ? { jsonrpc: "2.0", id: m.id, result: { sessionId: "s1" } }
      : { jsonrpc: "2.0", id: m.id, error: { code: -32000, message: "Authentication required" } });
  } else if (m.method === "session/prompt") {
    prompt(m.id, m.params);
  } else if (m.id !== undefined) {
    out({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no " + m.method } });
  }
});
