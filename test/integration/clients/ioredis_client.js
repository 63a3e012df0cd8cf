#!/usr/bin/env node
// Drives ioredis's Sentinel support against a Sentinel fleet.
//
// Usage: node ioredis_client.js MODULE MASTER_NAME SECONDS HOST:PORT [HOST:PORT ...]
//
// MODULE is the package to load from node_modules ("ioredis" for 5.x, or
// "ioredis6", an npm alias of ioredis 6). Two clients are made with
// { sentinels, name }: a master client with failoverDetector: true and a
// role: "slave" client. For SECONDS (a bound, so the script always ends by
// itself) it repeats, about twenty times a second:
//   - INCR counter on the master client, pipelined with CONFIG GET port so
//     the line names the server that took the write:
//       "write ok PORT VALUE" or "write err MESSAGE";
//   - GET counter on the replica client: "read ok PORT VALUE" / "read err ...".
// Client events are printed as "event master|replica NAME [DETAIL]", and the
// failover detector's own traffic (it subscribes to +switch-master on the
// Sentinels) as "detector subscribe HOST:PORT", "detector message CHANNEL
// PAYLOAD" and "detector disconnect". The first line is "MODULE VERSION".
// A client that ioredis ends on its own is reconnected, with a "workaround"
// line (see the "end" handler).
"use strict";

const [mod, name, secondsArg, ...addrs] = process.argv.slice(2);
if (!mod || !name || !secondsArg || addrs.length === 0) {
  console.error("usage: node ioredis_client.js MODULE MASTER_NAME SECONDS HOST:PORT...");
  process.exit(2);
}
const Redis = require(mod);
const { FailoverDetector } = require(`${mod}/built/connectors/SentinelConnector/FailoverDetector`);

const say = (line) => process.stdout.write(line + "\n");
say(`${mod} ${require(`${mod}/package.json`).version}`);

// Print what the failover detector subscribes to and receives, without
// changing what it does.
const subscribe = FailoverDetector.prototype.subscribe;
FailoverDetector.prototype.subscribe = function () {
  for (const s of this.sentinels) {
    say(`detector subscribe ${s.address.host}:${s.address.port}`);
    s.client.on("message", (channel, message) => say(`detector message ${channel} ${message}`));
  }
  return subscribe.apply(this, arguments);
};
const disconnect = FailoverDetector.prototype.disconnect;
FailoverDetector.prototype.disconnect = function () {
  say("detector disconnect");
  return disconnect.apply(this, arguments);
};

const sentinels = addrs.map((a) => {
  const i = a.lastIndexOf(":");
  return { host: a.slice(0, i), port: Number(a.slice(i + 1)) };
});
const common = {
  sentinels,
  name,
  connectTimeout: 500,
  commandTimeout: 1000,
  sentinelCommandTimeout: 1000,
  maxRetriesPerRequest: 1,
  retryStrategy: () => 100,
  sentinelRetryStrategy: () => 100,
};
const master = new Redis({ ...common, failoverDetector: true });
const replica = new Redis({ ...common, role: "slave" });

let stopping = false;
for (const [label, c] of [["master", master], ["replica", replica]]) {
  for (const ev of ["connect", "ready", "close", "reconnecting", "failoverSubscribed"]) {
    c.on(ev, () => say(`event ${label} ${ev}`));
  }
  for (const ev of ["error", "sentinelError"]) {
    c.on(ev, (err) => say(`event ${label} ${ev} ${err && err.message}`));
  }
  // ioredis (5.11 and 6.0 alike) gives up for good when the failover
  // detector fires while the Sentinel connector is between attempts (in its
  // "All sentinels are unreachable. Retrying from scratch" wait or inside a
  // resolve): the connector's connect() then throws "Connection is closed."
  // and the client ends. That is a client bug, whatever the Sentinel; an
  // application would reconnect, and so does this script, saying so.
  c.on("end", () => {
    say(`event ${label} end`);
    if (!stopping) {
      say(`workaround ${label} ended by ioredis, calling connect() again`);
      c.connect().catch((err) => say(`event ${label} connect failed ${err && err.message}`));
    }
  });
}

// portOf extracts the port from a CONFIG GET port reply, whichever shape
// (flat array, object or Map) the client produced.
function portOf(reply) {
  if (Array.isArray(reply)) return reply[1];
  if (reply instanceof Map) return reply.get("port");
  if (reply && typeof reply === "object") return reply.port;
  return String(reply);
}

async function through(client, ...cmd) {
  const res = await client.pipeline().call(...cmd).call("config", "get", "port").exec();
  for (const [err] of res) {
    if (err) throw err;
  }
  return [portOf(res[1][1]), res[0][1]];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const deadline = Date.now() + Number(secondsArg) * 1000;
  while (Date.now() < deadline) {
    try {
      const [port, value] = await through(master, "incr", "counter");
      say(`write ok ${port} ${value}`);
    } catch (err) {
      say(`write err ${err.message}`);
    }
    try {
      const [port, value] = await through(replica, "get", "counter");
      say(`read ok ${port} ${value}`);
    } catch (err) {
      say(`read err ${err.message}`);
    }
    await sleep(50);
  }
  stopping = true;
  master.disconnect();
  replica.disconnect();
  say("done");
}

main().catch((err) => {
  say(`fatal ${err && err.stack}`);
  process.exit(1);
});
