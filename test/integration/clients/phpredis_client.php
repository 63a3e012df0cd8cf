<?php
/*
 * Drives phpredis's RedisSentinel against a Sentinel fleet, the way PHP
 * applications use it: phpredis has no failover client, so the script asks
 * the Sentinels for the master (getMasterAddrByName), connects to it, checks
 * its ROLE, and on any error drops the connection and asks again.
 *
 * Usage: php phpredis_client.php MASTER_NAME SECONDS HOST:PORT [HOST:PORT ...]
 *
 * For SECONDS (a bound, so the loop always ends by itself) it repeats, about
 * twenty times a second:
 *   - getMasterAddrByName / slaves on the first Sentinel that answers,
 *     printing a line when the answer changes:
 *       "discover_master 127.0.0.1:6379" or "discover_master error MESSAGE",
 *       "discover_slaves 127.0.0.1:6380,127.0.0.1:6381" (sorted);
 *   - INCR counter on the master, pipelined with CONFIG GET port so the
 *     line names the server that took the write:
 *       "write ok PORT VALUE" or "write err TYPE: MESSAGE";
 *   - after a write that follows a gap of more than 250 ms since the
 *     previous successful write: "gap MILLISECONDS".
 * The first line is "phpredis VERSION". Output is flushed line by line, since
 * the Go test reads it while the script runs.
 */

const TIMEOUT = 0.5;

function say($line) {
    echo $line, "\n";
    flush();
}

/* sentinelAsk runs $fn on the first Sentinel that answers it. */
function sentinelAsk(array $addrs, callable $fn) {
    $last = null;
    foreach ($addrs as [$host, $port]) {
        try {
            $s = new RedisSentinel($host, $port, TIMEOUT, null, 0, TIMEOUT);
            $r = $fn($s);
            if ($r !== false && $r !== null) {
                return $r;
            }
            $last = new RuntimeException("no answer from $host:$port");
        } catch (Exception $e) {
            $last = $e;
        }
    }
    throw $last ?? new RuntimeException("no Sentinel");
}

if ($argc < 4) {
    fwrite(STDERR, "usage: php phpredis_client.php MASTER_NAME SECONDS HOST:PORT...\n");
    exit(2);
}
$name = $argv[1];
$seconds = (float)$argv[2];
$addrs = [];
foreach (array_slice($argv, 3) as $a) {
    $i = strrpos($a, ':');
    $addrs[] = [substr($a, 0, $i), (int)substr($a, $i + 1)];
}
say("phpredis " . phpversion("redis"));

$last = [];
$master = null;
$lastOK = null;
$deadline = hrtime(true) + (int)($seconds * 1e9);
while (hrtime(true) < $deadline) {
    try {
        [$host, $port] = sentinelAsk($addrs, fn($s) => $s->getMasterAddrByName($name));
        $line = "discover_master $host:$port";
    } catch (Exception $e) {
        $host = null;
        $line = "discover_master error " . $e->getMessage();
    }
    if (($last['m'] ?? null) !== $line) {
        say($line);
        $last['m'] = $line;
    }
    try {
        $slaves = sentinelAsk($addrs, fn($s) => $s->slaves($name));
        $list = array_map(fn($r) => $r['ip'] . ':' . $r['port'], $slaves);
        sort($list);
        $line = "discover_slaves " . implode(',', $list);
    } catch (Exception $e) {
        $line = "discover_slaves error " . $e->getMessage();
    }
    if (($last['s'] ?? null) !== $line) {
        say($line);
        $last['s'] = $line;
    }
    try {
        if ($host === null) {
            throw new RuntimeException("no master address");
        }
        if ($master === null || $master[0] !== "$host:$port") {
            $r = new Redis();
            $r->connect($host, (int)$port, TIMEOUT);
            $r->setOption(Redis::OPT_READ_TIMEOUT, TIMEOUT);
            $role = $r->role();
            if (!is_array($role) || $role[0] !== 'master') {
                $r->close();
                throw new RuntimeException("$host:$port has role " . json_encode($role));
            }
            $master = ["$host:$port", $r];
        }
        $reply = $master[1]->multi(Redis::PIPELINE)->incr('counter')->config('GET', 'port')->exec();
        if (!is_array($reply) || $reply[0] === false) {
            throw new RuntimeException("pipeline failed: " . json_encode($reply) . " " . $master[1]->getLastError());
        }
        $now = hrtime(true);
        say("write ok " . $reply[1]['port'] . " " . $reply[0]);
        if ($lastOK !== null && $now - $lastOK > 250e6) {
            say("gap " . (int)(($now - $lastOK) / 1e6));
        }
        $lastOK = $now;
    } catch (Exception $e) {
        say("write err " . get_class($e) . ": " . $e->getMessage());
        $master = null;
    }
    usleep(50000);
}
say("done");
