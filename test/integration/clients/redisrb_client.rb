# Drives redis-rb's Sentinel support against a Sentinel fleet: a client
# created with sentinels: and role: :master asks the Sentinels for the
# master on every (re)connection and checks its ROLE.
#
# Usage: ruby redisrb_client.rb MASTER_NAME SECONDS HOST:PORT [HOST:PORT ...]
#
# For SECONDS (a bound, so the loop always ends by itself) it repeats, about
# twenty times a second:
#   - SENTINEL GET-MASTER-ADDR-BY-NAME / SLAVES on the first Sentinel that
#     answers, printing a line when the answer changes:
#       "discover_master 127.0.0.1:6379" or "discover_master error ...",
#       "discover_slaves 127.0.0.1:6380,127.0.0.1:6381" (sorted);
#   - INCR counter through the Sentinel-managed client, pipelined with
#     CONFIG GET port so the line names the server that took the write:
#       "write ok PORT VALUE" or "write err TYPE: MESSAGE";
#   - after a write that follows a gap of more than 250 ms since the
#     previous successful write: "gap MILLISECONDS".
# The first line is "redis-rb VERSION". Output is flushed line by line.
require "redis"

TIMEOUTS = { connect_timeout: 0.5, read_timeout: 0.5, write_timeout: 0.5 }.freeze

def say(line)
  $stdout.puts(line)
  $stdout.flush
end

# sentinel_ask runs the block on the first Sentinel that answers it.
def sentinel_ask(sentinels)
  last = nil
  sentinels.each do |s|
    client = Redis.new(host: s[:host], port: s[:port], reconnect_attempts: 0, **TIMEOUTS)
    begin
      return yield(client)
    rescue Redis::BaseError => e
      last = e
    ensure
      client.close
    end
  end
  raise last || Redis::CannotConnectError, "no Sentinel answered"
end

abort "usage: ruby redisrb_client.rb MASTER_NAME SECONDS HOST:PORT..." if ARGV.size < 3
name = ARGV[0]
seconds = Float(ARGV[1])
sentinels = ARGV[2..].map do |a|
  host, _, port = a.rpartition(":")
  { host: host, port: Integer(port) }
end
say("redis-rb #{Redis::VERSION}")

master = Redis.new(host: name, sentinels: sentinels, role: :master, reconnect_attempts: 0, **TIMEOUTS)
last = {}
last_ok = nil
deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  line = begin
    host, port = sentinel_ask(sentinels) { |c| c.sentinel("get-master-addr-by-name", name) }
    "discover_master #{host}:#{port}"
  rescue Redis::BaseError => e
    "discover_master error #{e.class}: #{e.message}"
  end
  say(line) if last[:m] != line
  last[:m] = line
  line = begin
    slaves = sentinel_ask(sentinels) { |c| c.sentinel("slaves", name) }
    "discover_slaves " + slaves.map { |s| "#{s['ip']}:#{s['port']}" }.sort.join(",")
  rescue Redis::BaseError => e
    "discover_slaves error #{e.class}: #{e.message}"
  end
  say(line) if last[:s] != line
  last[:s] = line
  begin
    value, conf = master.pipelined do |p|
      p.incr("counter")
      p.config(:get, "port")
    end
    now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    say("write ok #{conf['port']} #{value}")
    say("gap #{((now - last_ok) * 1000).to_i}") if last_ok && now - last_ok > 0.25
    last_ok = now
  rescue Redis::BaseError => e
    say("write err #{e.class}: #{e.message.lines.first&.strip}")
  end
  sleep 0.05
end
say("done")
