"""SpeculatorArena's participant client: submit an engine directory, follow its evaluation, read the board.

    python3 -m speculatorarena.client submit --task qwen3-8b --split dev --engine my-engine/ \\
        --speculator org/repo@<commit> --method "EAGLE-3 k=4" --kind eagle3 [--profile smoke] [--wait]
    python3 -m speculatorarena.client status <id>
    python3 -m speculatorarena.client watch <id>
    python3 -m speculatorarena.client budget
    python3 -m speculatorarena.client board [--task qwen3-8b]

The token and the arena's address come from SPECULATORARENA_TOKEN and SPECULATORARENA_URL. Python 3.9 or later,
standard library only. Exit codes: 0 done (scored above 0), 1 ended without a score, 2 bad arguments,
3 engine directory refused, 4 the arena refused the request, 5 the arena unreachable or failing.
"""

import argparse
import base64
import codecs
import gzip
import http.client
import io
import json
import os
import re
import socket
import stat
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Callable, Dict, List, Optional, Tuple

# Versioned with the arena: its release (package.json) and the protocol this client was made for.
__version__ = "0.1.0"
PROTOCOL_VERSION = "1"
CLIENT_VERSION = __version__ + "+protocol." + PROTOCOL_VERSION
USER_AGENT = "speculatorarena-python/" + CLIENT_VERSION

# The protocol's values the client checks before sending (GET /api/protocol serves them).
TASKS = ("qwen3-8b", "qwen35-27b")
SPLITS = ("dev", "test")
KINDS = ("ngram", "suffix", "draft", "eagle3", "mtp", "other")
PROFILES = ("full", "smoke", "ci", "redteam")
PROFILE_PASSES = {"full": 3, "smoke": 3, "ci": 3, "redteam": 3}
METHOD_MAX_CHARS = 60
INLINE_MAX_CHARS = 2800000
MAX_UNPACKED_BYTES = 200 * 1024 * 1024
MAX_FILES = 10000
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
TOKEN_PREFIX = "spa_"
DEFAULT_URL = "http://localhost:3000"

EXIT_OK = 0
EXIT_NOT_SCORED = 1
EXIT_USAGE = 2
EXIT_ENGINE = 3
EXIT_REFUSED = 4
EXIT_UNREACHABLE = 5

FINAL_STATUSES = ("scored", "failed", "void", "cancelled")
STATUS_MEANING = {
    "queued": "waiting for a GPU slot",
    "fetching": "fetching and sealing the speculator and the engine",
    "running": "the timed passes: the candidate, then the stock engine",
    "checking": "the lossless checks, both engines restarted",
    "scored": "finished and scored",
    "failed": "ended by the submission's own fault, charged",
    "void": "ended by the arena's fault, refunded",
    "cancelled": "cancelled",
}
ERROR_HINTS = {
    "unauthorized": "check SPECULATORARENA_TOKEN: it must be the token the operators gave you",
    "forbidden": "this token's account may not do that",
    "budget_exhausted": "see what is left with `budget`; a void evaluation is refunded",
    "rate_limited": "wait a minute before trying again",
    "not_found": "check the id: `submit` prints it",
    "invalid_request": "fix the field it names",
}


class ClientError(Exception):
    """A failure reported in one message, ending the client with its exit code."""

    def __init__(self, code, message):
        Exception.__init__(self, message)
        self.code = code


def say(text=""):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def note(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


# The engine directory, packed as the arena reads it.


def pack_engine(directory):
    # type: (str) -> Tuple[str, int, int]
    """Packs an engine directory as the arena will read it: files and folders only (what a link inside the
    directory points to is packed in its place), checked against the protocol before anything is sent: launch.sh
    at its top, a file, executable; no link leaving the directory or looping; nothing that is neither a file nor a
    folder; the arena's size limits. Returns the base64 .tar.gz, the number of files and the bytes unpacked."""

    def refuse(message):
        return ClientError(EXIT_ENGINE, "engine directory %s: %s" % (directory, message))

    if not os.path.exists(directory):
        raise refuse("does not exist")
    if not os.path.isdir(directory):
        raise refuse("is not a directory")
    root = os.path.realpath(directory)
    entries = []  # type: List[Tuple[str, str, int, bytes]]
    total = [0]

    def walk(real_dir, shown, ancestors):
        for name in sorted(os.listdir(real_dir)):
            path = name if not shown else shown + "/" + name
            full = os.path.join(real_dir, name)
            info = os.lstat(full)
            real = full
            if stat.S_ISLNK(info.st_mode):
                real = os.path.realpath(full)
                if not os.path.exists(real):
                    raise refuse('"%s" is a broken link' % path)
                if real != root and not real.startswith(root + os.sep):
                    raise refuse(
                        '"%s" is a link to %s, outside the directory: the arena reads only what the directory '
                        "holds (copy it in)" % (path, real)
                    )
                info = os.stat(real)
            if len(name.encode("utf-8")) > MAX_NAME_BYTES:
                raise refuse('"%s": a name longer than %d bytes' % (path, MAX_NAME_BYTES))
            if len(path.encode("utf-8")) > MAX_PATH_BYTES:
                raise refuse('"%s…": a path longer than %d bytes' % (path[:60], MAX_PATH_BYTES))
            if stat.S_ISDIR(info.st_mode):
                if real in ancestors:
                    raise refuse('"%s" is a link to a folder that holds it (a loop)' % path)
                entries.append((path, "dir", 0o755, b""))
                walk(real, path, ancestors | {real})
            elif stat.S_ISREG(info.st_mode):
                total[0] += info.st_size
                if total[0] > MAX_UNPACKED_BYTES:
                    raise refuse("holds more than %d MiB; weights belong in the speculator" % (MAX_UNPACKED_BYTES >> 20))
                with open(real, "rb") as handle:
                    entries.append((path, "file", stat.S_IMODE(info.st_mode), handle.read()))
            else:
                raise refuse('"%s" is neither a file nor a folder (a socket, a pipe or a device)' % path)
            if len(entries) > MAX_FILES:
                raise refuse("holds more than %d files and folders" % MAX_FILES)

    walk(root, "", {root})
    launch = [e for e in entries if e[0] == "launch.sh"]
    if not launch:
        raise refuse("has no launch.sh at its top: the arena runs `launch.sh serve` from the engine directory")
    if launch[0][1] != "file":
        raise refuse("launch.sh is a folder: it must be a file")
    if not launch[0][2] & 0o100:
        raise refuse("launch.sh is not executable: run chmod +x %s" % os.path.join(directory, "launch.sh"))

    buffer = io.BytesIO()
    now = int(time.time())
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, kind, mode, data in entries:
            info = tarfile.TarInfo(path)
            info.mtime = now
            info.mode = mode
            if kind == "dir":
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    inline = base64.b64encode(gzip.compress(buffer.getvalue(), 9)).decode("ascii")
    if len(inline) > INLINE_MAX_CHARS:
        raise refuse(
            "packs to {:,} base64 characters, more than the {:,} an inline engine may have: leave weights out "
            "(the speculator is fetched from the Hub) or submit a repository".format(len(inline), INLINE_MAX_CHARS)
        )
    files = len([e for e in entries if e[1] == "file"])
    return inline, files, total[0]


# The arena's API.


class Arena:
    """The arena's public API, as curl and the submit page speak it; every failure becomes a ClientError."""

    def __init__(self, url, token):
        # type: (str, Optional[str]) -> None
        self.url = url
        self.token = token

    def request(self, method, path, body=None, auth=True):
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if auth:
            headers["Authorization"] = "Bearer " + require_token(self.token, self.url)
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                text = response.read().decode("utf-8")
                return json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            raise refusal(error.code, error.read().decode("utf-8", "replace"))
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            reason = getattr(error, "reason", error)
            raise ClientError(
                EXIT_UNREACHABLE,
                "cannot reach the arena at %s (%s): is SPECULATORARENA_URL right?" % (self.url, reason),
            )


def refusal(status, text):
    # type: (int, str) -> ClientError
    code, message = "HTTP %d" % status, text[:200]
    try:
        error = json.loads(text)["error"]
        code, message = error["code"], error["message"]
    except (ValueError, KeyError, TypeError):
        pass
    if status >= 500:
        return ClientError(
            EXIT_UNREACHABLE,
            "the arena failed on its side (%d %s: %s); nothing was charged, try again later" % (status, code, message),
        )
    hint = ERROR_HINTS.get(code)
    return ClientError(
        EXIT_REFUSED,
        "the arena refused the request (%d %s): %s%s" % (status, code, message, "; " + hint if hint else ""),
    )


def require_token(token, url):
    # type: (Optional[str], str) -> str
    if not token:
        raise ClientError(
            EXIT_USAGE,
            "SPECULATORARENA_TOKEN is not set: export SPECULATORARENA_TOKEN=%s... (the token the operators gave you; "
            "see %s/guide#token)" % (TOKEN_PREFIX, url),
        )
    if not token.startswith(TOKEN_PREFIX):
        raise ClientError(
            EXIT_USAGE,
            "SPECULATORARENA_TOKEN is not an arena token: arena tokens start with %s (see %s/guide#token)"
            % (TOKEN_PREFIX, url),
        )
    return token


# The event stream.


class EventStreamParser:
    """The WHATWG event-stream grammar over bytes in any chunks: CRLF, LF or CR line ends, a leading BOM, comments,
    `id`, `event`, `data` and `retry`; an event is dispatched at a blank line when it has data."""

    def __init__(self):
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.line = ""
        self.after_cr = False
        self.started = False
        self.data = []  # type: List[str]
        self.event = ""
        self.event_id = None  # type: Optional[str]
        self.last_event_id = ""
        self.retry = None  # type: Optional[float]

    def push(self, chunk, final=False):
        # type: (bytes, bool) -> List[Tuple[Optional[str], str, str]]
        text = self.decoder.decode(chunk, final)
        if not self.started and text:
            self.started = True
            if text[0] == "\ufeff":
                text = text[1:]
        out = []  # type: List[Tuple[Optional[str], str, str]]
        start = 0
        i = 0
        while i < len(text):
            c = text[i]
            if c == "\n" or c == "\r":
                if c == "\n" and self.after_cr and i == start and self.line == "":
                    self.after_cr = False
                    start = i + 1
                    i += 1
                    continue
                self.end_line(self.line + text[start:i], out)
                self.line = ""
                self.after_cr = c == "\r"
                if c == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
                    i += 1
                    self.after_cr = False
                start = i + 1
            i += 1
        if start < len(text):
            self.line += text[start:]
            self.after_cr = False
        return out

    def end_line(self, line, out):
        if line == "":
            if self.data:
                out.append((self.event_id, self.event or "message", "\n".join(self.data)))
            self.data, self.event, self.event_id = [], "", None
            return
        if line.startswith(":"):
            return
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self.data.append(value)
        elif field == "event":
            self.event = value
        elif field == "id" and "\0" not in value:
            self.last_event_id = value
            self.event_id = value
        elif field == "retry" and value.isdigit():
            self.retry = int(value) / 1000.0


def follow_events(url, on_event, is_final, on_reconnect, max_attempts=8, idle_timeout=45.0):
    # type: (str, Callable[[Optional[str], str, object], None], Callable[[str], bool], Callable[[str, str], None], int, float) -> int
    """Follows the event stream to its final event, resuming a dropped connection, a silent one, or a 5xx with
    Last-Event-ID so every event arrives once and in order. Returns how many times it reconnected."""
    last_event_id = ""
    retry = 2.0
    failures = 0
    reconnects = 0
    while True:
        headers = {"Accept": "text/event-stream", "User-Agent": USER_AGENT, "Cache-Control": "no-cache"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        delivered = False
        why = "the stream ended before its final event"
        try:
            response = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=idle_timeout)
        except urllib.error.HTTPError as error:
            if 400 <= error.code < 500:
                raise refusal(error.code, error.read().decode("utf-8", "replace"))
            why = "HTTP %d" % error.code
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            why = str(getattr(error, "reason", error))
        else:
            parser = EventStreamParser()
            try:
                with response:
                    while True:
                        line = response.readline()
                        events = parser.push(line, final=not line)
                        if parser.retry is not None:
                            retry = parser.retry
                        for event_id, event, data in events:
                            if event_id is not None:
                                # progress is a numbered event: a connection that only opens with the state has not
                                last_event_id = event_id
                                delivered = True
                            try:
                                payload = json.loads(data)
                            except ValueError:
                                payload = None
                            on_event(event_id, event, payload)
                            if is_final(event):
                                return reconnects
                        if not line:
                            break
            except socket.timeout:
                why = "no data for %d s" % idle_timeout
            except (OSError, http.client.HTTPException, ValueError) as error:
                why = "%s: %s" % (type(error).__name__, error) if str(error) else type(error).__name__
        failures = 0 if delivered else failures + 1
        if failures >= max_attempts:
            raise ClientError(
                EXIT_UNREACHABLE, "the event stream failed %d times in a row (last: %s)" % (failures, why)
            )
        reconnects += 1
        on_reconnect(why, last_event_id)
        time.sleep(min(retry, 1.0) if delivered else retry * min(failures, 5))


def watch(arena, submission_id):
    # type: (Arena, str) -> Tuple[str, Optional[str]]
    """Prints the evaluation's progress, one line per pass as it ends, until it ends; returns its status and reason."""
    state = {"status": "unknown", "reason": None, "phase": None, "engine": None, "passes": None, "seen": 0}

    def on_event(event_id, event, data):
        if event_id is not None:
            seq = int(event_id)
            if seq <= state["seen"]:
                return
            state["seen"] = seq
        if not isinstance(data, dict):
            return
        if event == "state":
            # the current state opens every connection; the status events that follow it tell the story in order
            state["passes"] = PROFILE_PASSES.get(data.get("profile"))
        elif event == "status":
            status, reason = data.get("status", state["status"]), data.get("reason")
            if (status, reason) == (state["status"], state["reason"]):
                return
            state["status"], state["reason"] = status, reason
            meaning = STATUS_MEANING.get(status, "")
            say("status %s%s" % (status, ": " + reason if reason else " — " + meaning))
        elif event == "phase" and data.get("phase") != state["phase"]:
            state["phase"] = data.get("phase")
            say("phase %s" % state["phase"])
        elif event == "engine":
            key = (data.get("engine"), data.get("state"))
            if key != state["engine"]:
                state["engine"] = key
                detail = data.get("detail")
                say("  %s engine %s%s" % (key[0], key[1], ": " + detail if detail else ""))
        elif event == "pass-ended":
            passes = state["passes"]
            failed = data.get("failed") or 0
            say(
                "  %-9s %-4s pass %d%s: %.1f tok/s, %d requests%s"
                % (
                    data.get("engine"),
                    data.get("workload"),
                    int(data.get("pass", 0)) + 1,
                    "/%d" % passes if passes else "",
                    float(data.get("speed") or 0),
                    int(data.get("requests") or 0),
                    ", %d failed" % failed if failed else "",
                )
            )
        elif event == "log" and data.get("level") in ("warn", "error"):
            say("  %s: %s" % (data.get("level"), data.get("message")))

    def is_final(event):
        return event == "status" and state["status"] in FINAL_STATUSES

    def on_reconnect(why, last_event_id):
        note("the event stream dropped (%s); resuming after event %s" % (why, last_event_id or "0"))

    url = "%s/api/submissions/%s/events" % (arena.url, urllib.parse.quote(submission_id, safe=""))
    follow_events(url, on_event, is_final, on_reconnect)
    return state["status"], state["reason"]


# What the commands print.


def fixed(value, digits):
    return "–" if value is None else ("%." + str(digits) + "f") % value


def print_submission(view, url):
    e = view.get("evaluation")
    solution = view.get("solution") or {}
    speculator = view.get("speculator")
    say(
        "submission %s: %s · %s · profile %s · %s (%s)"
        % (view["id"], view["task_id"], view["split"], view["profile"], solution.get("method") or "(no method)",
           solution.get("kind"))
    )
    say("  speculator %s · engine %s" % (
        "%s@%s" % (speculator["uri"], speculator["revision"]) if speculator else "none", view["engine"]["source"]))
    if not e:
        say("  no evaluation")
        return
    meaning = STATUS_MEANING.get(e["status"], "")
    say("evaluation %s: %s%s%s" % (e["id"], e["status"], " (%s)" % e["phase"] if e.get("phase") else "",
                                   " — " + meaning if meaning else ""))
    if e.get("refunded"):
        say("  refunded: it does not count against your budget")
    result = e.get("result") if isinstance(e.get("result"), dict) else None
    if e["status"] == "scored" or result:
        score = e.get("specscore")
        say("  SpecScore %s%s" % ("none" if score is None else "%.3f" % score, ": " + e["reason"] if e.get("reason") else ""))
    elif e.get("reason"):
        say("  reason: %s" % e["reason"])
    if result:
        ratios = result.get("ratios") or {}
        parts = []
        for workload in ("solo", "team", "busy"):
            entry = ratios.get(workload) or {}
            passes = ", ".join("%.2f" % p for p in entry.get("passes") or []) or "–"
            parts.append("%s %s× (passes %s)" % (workload, fixed(entry.get("ratio"), 2), passes))
        say("  " + " · ".join(parts))
        for gate in result.get("gates") or []:
            say("  %s  %-31s %-24s limit %s" % ("pass" if gate.get("pass") else "FAIL", gate.get("check"),
                                                 gate.get("measured"), gate.get("limit")))
    if e.get("log_tail"):
        say("  the engine's last log lines:")
        for line in e["log_tail"].split("\n"):
            say("    " + line)
    say("page: %s/evaluations/%s" % (url, e["id"]))


def print_board(board):
    say("%s board (protocol %s)" % (board["task_id"], board["protocol_version"]))
    for title, rows in (("participants", board["participants"]), ("references", board["references"]),
                        ("runs under test profiles (never ranked)", board["profiled"][:10])):
        if not rows:
            say("%s: none yet" % title)
            continue
        say("%s:" % title)
        say("  %-9s %6s  %5s %5s %5s  %-7s  who · solution" % ("#", "score", "solo", "team", "busy", "gate"))
        for r in rows:
            rank = str(r["rank"]) if r["rank"] is not None else "%s/%s" % (r["split"], r["profile"])
            gate = "–" if r["lossless"] is None else ("passed" if r["lossless"] else "failed: %s" % (r["reason"] or ""))
            who = "%s · %s %s%s" % (r["account"], r["method"] or "(no method)", r["kind"],
                                    " · " + r["speculator"]["uri"] if r["speculator"] else "")
            ratios = r["ratios"]
            say("  %-9s %6s  %5s %5s %5s  %-7s  %s" % (rank, fixed(r["specscore"], 3), fixed(ratios["solo"], 2),
                                                       fixed(ratios["team"], 2), fixed(ratios["busy"], 2), gate, who))


# The commands.


def speculator_arg(value):
    uri, _, revision = value.rpartition("@")
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$", uri or ""):
        raise argparse.ArgumentTypeError('must be a Hugging Face repository and commit: "org/repo@<commit>"')
    if not re.match(r"^[0-9a-f]{40}$", revision):
        raise argparse.ArgumentTypeError("must name an exact commit after @: 40 lowercase hex characters")
    return {"uri": uri, "revision": revision}


def method_arg(value):
    value = value.strip()
    if len(value) > METHOD_MAX_CHARS:
        raise argparse.ArgumentTypeError("must be at most %d characters" % METHOD_MAX_CHARS)
    return value


def id_arg(value):
    if not re.match(r"^[A-Za-z0-9_-]{1,64}$", value):
        raise argparse.ArgumentTypeError('"%s" is not a submission id' % value)
    return value


def parser():
    top = argparse.ArgumentParser(
        prog="python3 -m speculatorarena.client",
        description="SpeculatorArena's participant client (token and URL from SPECULATORARENA_TOKEN and "
        "SPECULATORARENA_URL).",
        epilog="exit codes: 0 done (scored above 0), 1 ended without a score, 2 bad arguments, 3 engine directory "
        "refused, 4 the arena refused the request, 5 the arena unreachable or failing",
    )
    top.add_argument("--version", action="version", version="%(prog)s " + CLIENT_VERSION)
    verbs = top.add_subparsers(dest="command", metavar="command")
    verbs.required = True
    submit = verbs.add_parser("submit", help="pack and check an engine directory, submit it")
    submit.add_argument("--task", required=True, choices=TASKS)
    submit.add_argument("--split", default="dev", choices=SPLITS)
    submit.add_argument("--engine", required=True, metavar="DIR", help="the engine directory (launch.sh at its top)")
    submit.add_argument("--speculator", type=speculator_arg, metavar="org/repo@<commit>")
    submit.add_argument("--method", type=method_arg, metavar="TEXT", help="the board's name for it")
    submit.add_argument("--kind", default="other", choices=KINDS)
    submit.add_argument("--profile", choices=PROFILES, help="a test profile: quick, labelled, never ranked")
    submit.add_argument("--wait", action="store_true", help="follow the evaluation to its end")
    status = verbs.add_parser("status", help="an evaluation's state, its gates and its SpecScore")
    status.add_argument("id", type=id_arg)
    status.add_argument("--json", action="store_true")
    watch_verb = verbs.add_parser("watch", help="follow an evaluation live until it ends")
    watch_verb.add_argument("id", type=id_arg)
    budget = verbs.add_parser("budget", help="the evaluations your token has left")
    budget.add_argument("--json", action="store_true")
    board = verbs.add_parser("board", help="a task's board")
    board.add_argument("--task", choices=TASKS)
    board.add_argument("--json", action="store_true")
    local = verbs.add_parser("local", help="the local kit (in kit.tar.gz): run what the arena runs, here")
    local.add_argument("rest", nargs=argparse.REMAINDER)
    return top


def check_protocol(arena):
    try:
        served = arena.request("GET", "/api/protocol", auth=False)
    except ClientError:
        return
    version = (served or {}).get("version")
    if version and version != PROTOCOL_VERSION:
        note("note: this client was made for protocol %s; the arena is at protocol %s (download the current one: "
             "%s/client.py)" % (PROTOCOL_VERSION, version, arena.url))


def watch_to_end(arena, submission_id):
    status, reason = watch(arena, submission_id)
    if arena.token:
        view = arena.request("GET", "/api/submissions/%s" % urllib.parse.quote(submission_id, safe=""))
        print_submission(view, arena.url)
        e = view.get("evaluation") or {}
        return EXIT_OK if e.get("status") == "scored" and (e.get("specscore") or 0) > 0 else EXIT_NOT_SCORED
    say("ended %s%s" % (status, ": " + reason if reason else ""))
    return EXIT_OK if status == "scored" and not reason else EXIT_NOT_SCORED


def run(args, arena):
    if args.command == "submit":
        require_token(arena.token, arena.url)
        inline, files, unpacked = pack_engine(args.engine)
        check_protocol(arena)
        note("engine {}: {} files, {:,} bytes unpacked, {:,} base64 characters".format(
            args.engine, files, unpacked, len(inline)))
        body = {"task_id": args.task, "split": args.split, "engine": {"inline": inline},
                "solution": {"kind": args.kind}}
        if args.method:
            body["solution"]["method"] = args.method
        if args.speculator:
            body["speculator"] = args.speculator
        if args.profile:
            body["profile"] = args.profile
        created = arena.request("POST", "/api/submissions", body)
        say("submitted %s: %s/evaluations/%s" % (created["id"], arena.url, created["id"]))
        return watch_to_end(arena, created["id"]) if args.wait else EXIT_OK
    if args.command == "status":
        view = arena.request("GET", "/api/submissions/%s" % urllib.parse.quote(args.id, safe=""))
        if args.json:
            say(json.dumps(view, indent=2))
        else:
            print_submission(view, arena.url)
        return EXIT_OK
    if args.command == "watch":
        return watch_to_end(arena, args.id)
    if args.command == "budget":
        body = arena.request("GET", "/api/budget")
        if args.json:
            say(json.dumps(body, indent=2))
            return EXIT_OK
        say("account %s" % body["account"])
        for line in body["budget"]:
            left = "unlimited" if line["limit"] is None else "%d of %d left" % (line["remaining"], line["limit"])
            say("  %-11s %-4s %s (%d used)" % (line["taskId"], line["split"], left, line["used"]))
        return EXIT_OK
    if args.command == "board":
        boards = [arena.request("GET", "/api/board?task=%s" % task, auth=False) for task in
                  ([args.task] if args.task else TASKS)]
        if args.json:
            say(json.dumps(boards[0] if len(boards) == 1 else boards, indent=2))
        else:
            for board in boards:
                print_board(board)
        return EXIT_OK
    if args.command == "local":
        try:
            from . import local
        except ImportError:
            raise ClientError(EXIT_USAGE, "the local kit comes in the kit: curl -sL %s/kit.tar.gz | tar xz" % arena.url)
        return local.main(args.rest)
    raise ClientError(EXIT_USAGE, "unknown command %s" % args.command)


def main(argv=None):
    # type: (Optional[List[str]]) -> int
    args = parser().parse_args(argv)
    url = os.environ.get("SPECULATORARENA_URL", DEFAULT_URL).rstrip("/")
    if not re.match(r"^https?://[^/\s]+", url):
        note("speculatorarena: SPECULATORARENA_URL must be the arena's address, such as https://speculatorarena.com")
        return EXIT_USAGE
    token = os.environ.get("SPECULATORARENA_TOKEN", "").strip() or None
    try:
        return run(args, Arena(url, token))
    except ClientError as error:
        note("speculatorarena: %s" % error)
        return error.code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
