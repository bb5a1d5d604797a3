#!/usr/bin/env python3
"""The engine container's launcher: PID 1 of the evaluation pod's engine container (lib/pods/engine-container/README.md).

It connects to the pod agent's Unix socket (ARENA_LAUNCHER_SOCKET, in the volume the two containers share), says who
it is, then does only what the agent asks, one JSON object per line each way:

  start       run argv with the environment the agent built (PATH and LD_LIBRARY_PATH are this image's own) in its
              own session; its output comes back as lines, its end as an exit
  signal      signal a start's process group (SIGTERM, then SIGKILL: protocol section 7)
  kill-all    SIGKILL every other process of the container and wait until none is left (PID 1 of a PID namespace
              signals all of them with kill(-1), whatever session or group they made), then empty the folders an
              engine may leave files in (ARENA_LAUNCHER_CLEAR: its /tmp, /dev/shm, its scratch) and remove the
              System V shared memory, semaphores and queues its uid owns (protocol section 4)
  copy-plugin copy the sealed plugin/ into a start's scratch (links and special files refused)
  mkdir       make a folder the engines may write
  device      the device's memory, read from outside the engines: NVML, or the simulated engine's file

Runs with `python3 -I -S` (nothing of PYTHON*, no user or site packages: what an engine's plugin/ installs never
loads here) and makes itself non-dumpable first, so that the engines, which share its uid, can neither ptrace it nor
read its memory or file descriptors; as its PID namespace's init it gets no signal it has no handler for (it handles
SIGCHLD only), so they cannot stop or kill it either. When the agent's connection closes (the agent ended or died),
it kills everything and exits: the container, and every engine process, ends with the agent. Standard library only.
"""

import ctypes
import errno
import json
import os
import selectors
import signal
import socket
import stat
import subprocess
import sys
import time

SOCKET = os.environ.get("ARENA_LAUNCHER_SOCKET", "/arena/exchange/launcher.sock")
CLEAR = [d for d in os.environ.get("ARENA_LAUNCHER_CLEAR", "/tmp:/dev/shm").split(":") if d]
WAIT_SECONDS = float(os.environ.get("ARENA_LAUNCHER_WAIT_SECONDS", "1800"))
FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"
LINE_MAX = 16384
KILL_TIMEOUT_SECONDS = 60.0
PR_SET_DUMPABLE = 4


def say(text):
    print(f"launcher: {text}", flush=True)


def search_path(name):
    """This image's own PATH or LD_LIBRARY_PATH: absolute entries only (an empty one is the working directory)."""
    entries = [e for e in os.environ.get(name, "").split(":") if e.startswith("/")]
    return ":".join(entries) if entries else None


IMAGE_PATH = search_path("PATH") or FALLBACK_PATH
IMAGE_LIBRARY_PATH = search_path("LD_LIBRARY_PATH")


def undumpable():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class NvmlMemory(ctypes.Structure):
    """nvmlMemory_v2_t: used excludes the driver's reserved memory, as nvidia-smi's memory.used does."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("total", ctypes.c_ulonglong),
        ("reserved", ctypes.c_ulonglong),
        ("free", ctypes.c_ulonglong),
        ("used", ctypes.c_ulonglong),
    ]


class Nvml:
    def __init__(self):
        self.lib = None

    def check(self, code, what):
        if code != 0:
            message = "unknown error"
            try:
                self.lib.nvmlErrorString.restype = ctypes.c_char_p
                message = self.lib.nvmlErrorString(code).decode()
            except Exception:
                pass
            raise RuntimeError(f"{what}: NVML error {code} ({message})")

    def read(self):
        """The first device's memory as nvidia-smi's --query-gpu=memory.used,memory.total prints it, in MiB."""
        if self.lib is None:
            self.lib = ctypes.CDLL("libnvidia-ml.so.1")
            self.check(self.lib.nvmlInit_v2(), "nvmlInit_v2")
        handle = ctypes.c_void_p()
        self.check(self.lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)), "nvmlDeviceGetHandleByIndex_v2")
        memory = NvmlMemory()
        memory.version = ctypes.sizeof(NvmlMemory) | (2 << 24)
        self.check(self.lib.nvmlDeviceGetMemoryInfo_v2(handle, ctypes.byref(memory)), "nvmlDeviceGetMemoryInfo_v2")
        # rounded to the MiB, as nvidia-smi prints them (measured on an H200: 10767 of 143771 MiB for both)
        return f"{round(memory.used / 1048576)}, {round(memory.total / 1048576)}"


class Start:
    def __init__(self, start_id, name, process):
        self.id = start_id
        self.name = name
        self.process = process
        self.pid = process.pid
        self.partial = {"o": b"", "e": b""}
        self.open = 2
        self.exited = False


class Launcher:
    def __init__(self, connection):
        self.connection = connection
        self.selector = selectors.DefaultSelector()
        self.starts = {}
        self.by_pid = {}
        self.inbox = b""
        self.nvml = Nvml()
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        # nothing an engine sends may interrupt the launcher: no handler, so as init it never receives them
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        self.selector.register(self.wake_read, selectors.EVENT_READ, ("wake", None))
        self.selector.register(connection, selectors.EVENT_READ, ("agent", None))

    def send(self, message):
        self.connection.sendall((json.dumps(message) + "\n").encode())

    def reply(self, request, ok, **fields):
        self.send({"t": "reply", "id": request.get("id"), "ok": ok, **fields})

    # --- output and exits -------------------------------------------------------------------------------------

    def line(self, start, stream, raw):
        text = raw.decode(errors="replace")
        if len(text) > LINE_MAX:
            text = text[:LINE_MAX] + "…"
        print(f"{start.name} {text}", flush=True)
        self.send({"t": "line", "id": start.id, "s": stream, "text": text})

    def read_pipe(self, start, stream, fd, until_empty):
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                if start.partial[stream]:
                    self.line(start, stream, start.partial[stream])
                    start.partial[stream] = b""
                self.selector.unregister(fd)
                os.close(fd)
                start.open -= 1
                return
            lines = (start.partial[stream] + chunk).split(b"\n")
            start.partial[stream] = lines.pop()
            for raw in lines:
                self.line(start, stream, raw)
            if not until_empty:
                return

    def drain(self, start):
        for key in list(self.selector.get_map().values()):
            kind, data = key.data
            if kind == "pipe" and data[0] is start:
                self.read_pipe(start, data[1], key.fd, True)
        for stream in ("o", "e"):
            if start.partial[stream]:
                self.line(start, stream, start.partial[stream])
                start.partial[stream] = b""

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            start = self.by_pid.pop(pid, None)
            if start is None:
                continue
            start.exited = True
            # what the engine wrote before it ended comes before its exit, as a local engine's does
            self.drain(start)
            if os.WIFSIGNALED(status):
                exit = {"code": None, "signal": signal.Signals(os.WTERMSIG(status)).name}
            else:
                exit = {"code": os.WEXITSTATUS(status), "signal": None}
            self.send({"t": "exit", "id": start.id, **exit})

    def others(self):
        return [name for name in os.listdir("/proc") if name.isdigit() and int(name) != os.getpid()]

    # --- requests ---------------------------------------------------------------------------------------------

    def op_start(self, request):
        env = {str(k): str(v) for k, v in (request.get("env") or {}).items()}
        env["PATH"] = IMAGE_PATH
        if IMAGE_LIBRARY_PATH:
            env["LD_LIBRARY_PATH"] = IMAGE_LIBRARY_PATH
        else:
            env.pop("LD_LIBRARY_PATH", None)
        cwd = request["cwd"]
        os.makedirs(cwd, mode=0o700, exist_ok=True)
        try:
            process = subprocess.Popen(
                [str(a) for a in request["argv"]],
                env=env,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as error:
            code = errno.errorcode.get(error.errno or 0, type(error).__name__)
            self.reply(request, False, error=f"spawn {code}", code=code)
            return
        start = Start(request["id"], str(request.get("name") or request["id"]), process)
        self.starts[start.id] = start
        self.by_pid[start.pid] = start
        for stream, pipe in (("o", process.stdout), ("e", process.stderr)):
            fd = os.dup(pipe.fileno())
            pipe.close()
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ, ("pipe", (start, stream)))
        self.reply(request, True, pid=start.pid)

    def op_signal(self, request):
        start = self.starts.get(request.get("start"))
        number = {"SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL}.get(request.get("signal"))
        if start is None or number is None:
            self.reply(request, False, error="no such start or signal")
            return
        try:
            os.killpg(start.pid, number)
        except (ProcessLookupError, PermissionError):
            pass
        self.reply(request, True)

    def kill_all(self):
        """SIGKILL to every other process of the PID namespace, until none is left; how many were found."""
        found = 0
        deadline = time.monotonic() + KILL_TIMEOUT_SECONDS
        while True:
            left = self.others()
            if not left:
                return found
            found = max(found, len(left))
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.reap()
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(left)} processes outlived SIGKILL for {KILL_TIMEOUT_SECONDS:.0f} s")
            time.sleep(0.02)

    def clear(self, folders, remove):
        removed = remove_ipc()
        for folder in folders:
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                removed += remove_tree(os.path.join(folder, name))
        for path in remove:
            removed += remove_tree(path)
        return removed

    def op_kill_all(self, request):
        if os.getpid() != 1:
            self.reply(request, False, error="the launcher is not PID 1 of its container")
            return
        try:
            killed = self.kill_all()
        except RuntimeError as error:
            self.reply(request, False, error=str(error))
            return
        for start in list(self.starts.values()):
            self.drain(start)
        removed = 0
        if request.get("clear", True):
            removed = self.clear(CLEAR, [str(p) for p in request.get("remove") or []])
        self.reply(request, True, killed=killed, removed=removed)

    def op_copy_plugin(self, request):
        source, destination = request["source"], request["destination"]
        try:
            info = os.lstat(source)
        except FileNotFoundError:
            self.reply(request, True, status="none")
            return
        if not stat.S_ISDIR(info.st_mode):
            self.reply(request, True, status="refused", why="plugin is not a directory")
            return
        remove_tree(destination)
        os.makedirs(os.path.dirname(destination), mode=0o700, exist_ok=True)
        try:
            files = copy_plugin(source, destination)
        except PluginRefused as refused:
            self.reply(request, True, status="refused", why=str(refused))
            return
        self.reply(request, True, status="copied", files=files)

    def op_mkdir(self, request):
        os.makedirs(request["path"], mode=0o700, exist_ok=True)
        self.reply(request, True)

    def op_device(self, request):
        try:
            if request.get("file"):
                try:
                    with open(request["file"]) as f:
                        text = f.read()
                except FileNotFoundError:
                    text = None
            else:
                text = self.nvml.read()
        except Exception as error:
            self.reply(request, False, error=str(error))
            return
        self.reply(request, True, text=text)

    def handle(self, request):
        op = request.get("op")
        handler = {
            "start": self.op_start,
            "signal": self.op_signal,
            "kill-all": self.op_kill_all,
            "copy-plugin": self.op_copy_plugin,
            "mkdir": self.op_mkdir,
            "device": self.op_device,
        }.get(op)
        if handler is None:
            self.reply(request, False, error=f"unknown op {op!r}")
            return
        try:
            handler(request)
        except (KeyError, TypeError, ValueError, OSError) as error:
            self.reply(request, False, error=f"{type(error).__name__}: {error}")

    def run(self):
        while True:
            for key, _ in self.selector.select():
                # an earlier event of this batch may have closed this one's pipe (an exit drains its engine's pipes),
                # and a start since may have reused its number: such an event is stale
                if self.selector.get_map().get(key.fd) is not key:
                    continue
                kind, data = key.data
                if kind == "wake":
                    try:
                        while os.read(self.wake_read, 4096):
                            pass
                    except BlockingIOError:
                        pass
                    self.reap()
                elif kind == "pipe":
                    self.read_pipe(data[0], data[1], key.fd, False)
                else:
                    chunk = self.connection.recv(65536)
                    if not chunk:
                        return
                    lines = (self.inbox + chunk).split(b"\n")
                    self.inbox = lines.pop()
                    for raw in lines:
                        if not raw.strip():
                            continue
                        try:
                            request = json.loads(raw)
                        except ValueError:
                            say(f"not a request: {raw[:200]!r}")
                            continue
                        if isinstance(request, dict):
                            self.handle(request)


class PluginRefused(Exception):
    pass


def copy_plugin(source, destination):
    """plugin/ as lib/pods/agent/plugin-copy.ts copies it: folders and regular files only, the owner may write."""
    files = 0

    def walk(here, there):
        nonlocal files
        os.mkdir(there, 0o755)
        for name in sorted(os.listdir(here)):
            path = os.path.join(here, name)
            info = os.lstat(path)
            shown = "plugin/" + os.path.relpath(path, source)
            if stat.S_ISDIR(info.st_mode):
                walk(path, os.path.join(there, name))
            elif stat.S_ISREG(info.st_mode):
                target = os.path.join(there, name)
                with open(path, "rb") as src, open(target, "wb") as dst:
                    while True:
                        chunk = src.read(1 << 20)
                        if not chunk:
                            break
                        dst.write(chunk)
                os.chmod(target, (info.st_mode & 0o755) | 0o600)
                files += 1
            elif stat.S_ISLNK(info.st_mode):
                raise PluginRefused(f"{shown} is a link; links are not allowed")
            else:
                raise PluginRefused(f"{shown} is not a regular file or a directory")

    walk(source, destination)
    return files


# /proc/sysvipc's tables: the id's column and the owner's, per kind, and the call that removes one (IPC_RMID is 0)
SYSV_IPC = {"shm": (1, 7, "shmctl"), "sem": (1, 4, "semctl"), "msg": (1, 7, "msgctl")}


def remove_ipc():
    """Removes the System V shared memory, semaphores and queues this uid owns: the pod's containers share an IPC
    namespace, and what an engine left there would outlive it. How many went."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return 0
    removed = 0
    for kind, (id_column, uid_column, call) in SYSV_IPC.items():
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                rows = [line.split() for line in f.read().splitlines()[1:]]
        except OSError:
            continue
        for row in rows:
            if len(row) > uid_column and int(row[uid_column]) == os.getuid():
                args = (int(row[id_column]), 0, 0) if kind == "sem" else (int(row[id_column]), 0, None)
                if getattr(libc, call)(*args) == 0:
                    removed += 1
    return removed


def remove_tree(path):
    """Removes a file or a folder and all in it (links are removed, never followed); 1 when something went."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return 0
    if stat.S_ISDIR(info.st_mode):
        try:
            os.chmod(path, 0o700)
        except OSError:
            pass
        for name in os.listdir(path):
            remove_tree(os.path.join(path, name))
        os.rmdir(path)
    else:
        os.unlink(path)
    return 1


def connect():
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(SOCKET)
            return connection
        except OSError:
            connection.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def main():
    sealed = undumpable()
    connection = connect()
    launcher = Launcher(connection)
    say(f"connected to the pod agent (pid {os.getpid()}, uid {os.getuid()}, non-dumpable: {sealed})")
    launcher.send(
        {
            "t": "hello",
            "pid": os.getpid(),
            "uid": os.getuid(),
            "gid": os.getgid(),
            "undumpable": sealed,
            "python": sys.version.split()[0],
        }
    )
    try:
        launcher.run()
    finally:
        # the agent is gone: nothing of the engines may outlive it
        if os.getpid() == 1:
            try:
                launcher.kill_all()
            except RuntimeError as error:
                say(str(error))
            launcher.clear(CLEAR, [])
        say("the pod agent's connection closed: exiting")


if __name__ == "__main__":
    main()
