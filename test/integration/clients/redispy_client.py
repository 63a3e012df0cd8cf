#!/usr/bin/env python3
"""Drives redis-py's redis.sentinel.Sentinel against a Sentinel fleet.

Usage: redispy_client.py MASTER_NAME SECONDS HOST:PORT [HOST:PORT ...]

For SECONDS (a bound, so the loop always ends by itself) it repeats, about
twenty times a second:
  - discover_master / discover_slaves, printing a line when the answer
    changes:  "discover_master 127.0.0.1:6379" or "discover_master error ...",
              "discover_slaves 127.0.0.1:6380,127.0.0.1:6381" (sorted);
  - INCR counter through master_for, pipelined with CONFIG GET port so the
    line names the server that took the write:
              "write ok PORT VALUE" or "write err TYPE: MESSAGE";
  - GET counter through slave_for, likewise:
              "read ok PORT VALUE" or "read err TYPE: MESSAGE".
The first line is "redis-py VERSION". Every line is flushed at once, since
the Go test reads the output while the script runs.
"""
import sys
import time

import redis
from redis.sentinel import Sentinel

TIMEOUTS = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}


def say(line):
    """say prints one line and flushes it."""
    print(line, flush=True)


def through(client, command, *args):
    """through runs command and CONFIG GET port on one connection of client
    and returns (port, reply)."""
    pipe = client.pipeline(transaction=False)
    pipe.execute_command(command, *args)
    pipe.config_get("port")
    reply, conf = pipe.execute()
    return conf["port"], reply


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    name, seconds = sys.argv[1], float(sys.argv[2])
    addrs = [(h, int(p)) for h, p in (a.rsplit(":", 1) for a in sys.argv[3:])]
    say("redis-py %s" % redis.__version__)
    sentinel = Sentinel(addrs, sentinel_kwargs=dict(TIMEOUTS), **TIMEOUTS)
    master = sentinel.master_for(name, **TIMEOUTS)
    replica = sentinel.slave_for(name, **TIMEOUTS)
    last = {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            host, port = sentinel.discover_master(name)
            line = "discover_master %s:%s" % (host, port)
        except redis.RedisError as e:
            line = "discover_master error %s: %s" % (type(e).__name__, e)
        if last.get("m") != line:
            say(line)
            last["m"] = line
        try:
            slaves = sentinel.discover_slaves(name)
            line = "discover_slaves " + ",".join(sorted("%s:%s" % s for s in slaves))
        except redis.RedisError as e:
            line = "discover_slaves error %s: %s" % (type(e).__name__, e)
        if last.get("s") != line:
            say(line)
            last["s"] = line
        try:
            port, value = through(master, "INCR", "counter")
            say("write ok %s %s" % (port, value))
        except redis.RedisError as e:
            say("write err %s: %s" % (type(e).__name__, e))
        try:
            port, value = through(replica, "GET", "counter")
            if isinstance(value, bytes):
                value = value.decode()
            say("read ok %s %s" % (port, value))
        except redis.RedisError as e:
            say("read err %s: %s" % (type(e).__name__, e))
        time.sleep(0.05)
    say("done")


if __name__ == "__main__":
    main()
