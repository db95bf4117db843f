# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs Skele-Code node scripts for the runner.

The runner does not rely on a script's ``__main__`` block. It starts this
harness, which imports the script, builds ``prior_outputs``, calls
``preprocess`` -> ``compute`` -> ``save`` and reports a machine-readable result.

Two modes:

``run SPEC``
    Runs one node in this process (the isolated mode). SPEC is a JSON object;
    the result is written atomically to ``SPEC["result"]``.

``worker FD``
    Stays alive for a whole run (the in-memory mode). Reads one JSON spec per
    line on standard input and writes one JSON result per line to file
    descriptor FD. Outputs stay in this process and are handed to successors
    without pickling; ``save()`` is not called.

``serve FD CONFIG``
    Stays alive for a whole run (the fork server of the isolated mode).
    Receives one request per message on the socket FD, with the write ends
    of the step's output and error pipes, and forks a child that runs that
    one node as ``run`` would, in a session of its own: each node still has
    a process of its own, without the start-up of an interpreter. It
    answers ``{"id", "pid"}`` when the child started and ``{"id",
    "status"}`` (as waitpid() tells it) when it ended, after killing what
    was left in its group. CONFIG says what the sandbox lets all the nodes
    of the run do; each child then takes back what its node may not do.

A spec holds ``workflow`` (the workflow folder), ``key`` (the node's key),
``priors`` (a list of ``{"key": ..., "source": "file" | "memory" | "none"}``)
and, for the worker, ``stdout_log``, ``stderr_log`` and ``log_limit``. Its
``command`` says what to do (DESIGN §10 for the control flow):

``run`` (the default)
    Runs the node. With ``item`` (``{"prior", "path", "index"}``) it runs
    one item of a for-each in ``folder``, with ``state["item"]`` and
    ``state["item_index"]`` set before ``preprocess``.
``branch``
    Tries the conditions in ``branches`` (``[{"key", "expr"}]``, in the
    order of the workflow's nodes) on the output of the prior ``prior`` and
    reports the one taken.
``items``
    Reports how many elements the list at ``path`` in the output of
    ``prior`` has, and a checksum of each.
``join``
    Puts the outputs of ``count`` items together as the node's output.
``collect``
    Puts the outputs of a sub-workflow's last steps, pickled at the paths
    in ``outputs``, together as the node's output.

A spec with ``inputs`` (``[{"key", "path"}]``) is for a first step of a
sub-workflow: ``prior_outputs["inputs"]`` holds those outputs by key.

Only the standard library is used, so any Python 3 can run it.
"""

import importlib.util
import io
import json
import os
import signal
import sys
import time

# pickle and traceback are imported where they are needed: a node without
# priors needs no pickle, and only a failure needs a traceback. Each costs
# milliseconds at every start, and the isolated mode starts once per node.

# The layout of a step folder. These names mirror src/core/sk-step-folder.c,
# the only C code that spells them: the step KEY lives in the folder KEY of
# the workflow, its script is KEY.py and its outputs are pickled in KEY.pkl.
# The runner passes the paths of the logs and of the report in the spec.
SCRIPT_SUFFIX = ".py"
PICKLE_SUFFIX = ".pkl"

MAX_ERROR_TEXT = 2000


def _step_folder(workflow, key):
    return os.path.join(workflow, key)


def _step_file(workflow, key, suffix):
    return os.path.join(_step_folder(workflow, key), key + suffix)


class NodeFailure(Exception):
    """A failure described in plain language, without a traceback."""


def _short(text):
    text = str(text)
    if len(text) > MAX_ERROR_TEXT:
        text = text[:MAX_ERROR_TEXT] + "…"
    return text


def _describe_exception(exc):
    name = type(exc).__name__
    message = str(exc)
    return f"{name}: {message}" if message else name


def _format_traceback(exc):
    """Formats @exc's traceback without the harness's own frames, which would
    only distract from the node's code."""
    import traceback

    summary = traceback.TracebackException.from_exception(exc)
    here = os.path.abspath(__file__)
    frames = [f for f in summary.stack if os.path.abspath(f.filename) != here]
    summary.stack = traceback.StackSummary.from_list(frames)
    return "".join(summary.format())


def _describe_types(output):
    types = {}
    for key, value in output.items():
        types[str(key)] = type(value).__name__
    return types


def _load_pickle(path):
    import pickle

    try:
        with open(path, "rb") as handle:
            value = pickle.load(handle)
    except FileNotFoundError:
        return {}
    except Exception:  # A damaged pickle means the prior did not complete.
        return {}
    return value if isinstance(value, dict) else {}


def _prior_output(spec, memory, key, source):
    if source == "memory" and key in memory:
        return memory[key]
    if source in ("file", "memory"):
        return _load_pickle(_step_file(spec["workflow"], key, PICKLE_SUFFIX))
    return {}


def _inputs(spec):
    """What the step of a sub-workflow receives from the steps before the
    parent's step: their outputs by key, read from their pickles."""
    inputs = {}
    for entry in spec.get("inputs", []):
        path = entry.get("path")
        inputs[entry["key"]] = _load_pickle(path) if path else {}
    return inputs


def _prior_outputs(spec, memory):
    outputs = {}
    if "inputs" in spec:
        outputs["inputs"] = _inputs(spec)
    workflow = spec["workflow"]
    for prior in spec.get("priors", []):
        key = prior["key"]
        source = prior.get("source", "none")
        if source == "memory" and key in memory:
            outputs[key] = memory[key]
        elif source in ("file", "memory"):
            outputs[key] = _load_pickle(_step_file(workflow, key, PICKLE_SUFFIX))
        else:
            outputs[key] = {}
    return outputs


def _import_script(path, key):
    module_name = "skele_node_" + key
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise NodeFailure(f"The script {os.path.basename(path)} could not be loaded.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise NodeFailure(
            f"The script has a syntax error on line {exc.lineno}: {exc.msg}."
        ) from exc
    return module


def _require(module, name):
    function = getattr(module, name, None)
    if not callable(function):
        raise NodeFailure(
            f"The script has no {name}() function; every node script needs "
            "preprocess(), compute() and save()."
        )
    return function


def _item_memory_key(key, index):
    return f"{key}/items/{index}"


def _item_folder(workflow, key, index):
    return os.path.join(_step_folder(workflow, key), "items", str(index))


def _find_list(output, path, prior):
    """Returns the list at the dotted @path in @output, or raises a
    NodeFailure that says where the path stops."""
    value = output
    walked = []
    for part in path.split("."):
        walked.append(part)
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise NodeFailure(
                f"The output of “{prior}” has nothing at “{'.'.join(walked)}”, "
                "so there is no list to run this step for each of."
            )
    if isinstance(value, (list, tuple)):
        return list(value)
    raise NodeFailure(
        f"“{path}” in the output of “{prior}” is a {type(value).__name__}, "
        "not a list, so there is nothing to run this step for each of."
    )


def _find_item(spec, memory):
    item = spec["item"]
    source = "none"
    for prior in spec.get("priors", []):
        if prior["key"] == item["prior"]:
            source = prior.get("source", "none")
    output = _prior_output(spec, memory, item["prior"], source)
    elements = _find_list(output, item["path"], item["prior"])
    index = int(item["index"])
    if index >= len(elements):
        raise NodeFailure(f"Item {index + 1} is no longer in the list of “{item['prior']}”.")
    return elements[index]


def _checksum(value):
    import hashlib
    import pickle

    try:
        data = pickle.dumps(value, protocol=4)
    except Exception:  # Anything that cannot be pickled is told apart by its text.
        data = repr(value).encode("utf-8", "replace")
    return hashlib.sha256(data).hexdigest()


def list_items(spec, memory=None):
    """The "items" command: how many elements a for-each runs over, with a
    checksum of each, so that an unchanged item needs no new run."""
    result = {"status": "failed", "error": None}
    try:
        output = _prior_output(spec, memory or {}, spec["prior"], spec.get("source", "none"))
        elements = _find_list(output, spec["path"], spec["prior"])
        result["count"] = len(elements)
        result["checksums"] = [_checksum(element) for element in elements]
        result["status"] = "success"
    except NodeFailure as exc:
        result["error"] = str(exc)
    except Exception as exc:
        result["error"] = _short(_describe_exception(exc))
    return result


def evaluate_branches(spec, memory=None):
    """The "branch" command: tries each successor's condition on the prior's
    output in order; the first true one is taken, "default" when none is.
    A condition that raises is reported for its own successor and counts as
    not true for the others."""
    import builtins

    result = {"status": "success", "taken": None, "errors": {}}
    output = _prior_output(spec, memory or {}, spec["prior"], spec.get("source", "none"))
    default = None
    for branch in spec.get("branches", []):
        expr = branch["expr"]
        if expr.strip() == "default":
            if default is None:
                default = branch["key"]
            continue
        try:
            value = eval(expr, {"__builtins__": builtins}, {"output": output})
        except BaseException as exc:  # A condition may raise anything.
            result["errors"][branch["key"]] = _short(_describe_exception(exc))
            continue
        if value and result["taken"] is None:
            result["taken"] = branch["key"]
    if result["taken"] is None:
        result["taken"] = default
    return result


def join_items(spec, memory=None):
    """The "join" command: the for-each step's output is the list of its
    items' outputs, in order."""
    key = spec["key"]
    in_memory = memory is not None
    result = {"status": "failed", "error": None, "output_keys": {}}
    items = []
    for index in range(int(spec["count"])):
        if in_memory and _item_memory_key(key, index) in memory:
            items.append(memory[_item_memory_key(key, index)])
        else:
            path = os.path.join(_item_folder(spec["workflow"], key, index), key + PICKLE_SUFFIX)
            items.append(_load_pickle(path))
    output = {"task_status": "success", "items": items}
    result["output_keys"] = _describe_types(output)
    try:
        if in_memory:
            memory[key] = output
        else:
            import pickle

            path = _step_file(spec["workflow"], key, PICKLE_SUFFIX)
            temporary = path + ".tmp"
            with open(temporary, "wb") as handle:
                pickle.dump(output, handle)
            os.replace(temporary, path)
        result["status"] = "success"
    except Exception as exc:
        result["error"] = _short(_describe_exception(exc))
    return result


def collect_outputs(spec, memory=None):
    """The "collect" command: the output of a step that stands for a
    sub-workflow holds the outputs of the sub-workflow's last steps."""
    key = spec["key"]
    result = {"status": "failed", "error": None, "output_keys": {}}
    output = {"task_status": "success"}
    for entry in spec.get("outputs", []):
        path = entry.get("path")
        output[entry["key"]] = _load_pickle(path) if path else {}
    result["output_keys"] = _describe_types(output)
    try:
        import pickle

        path = _step_file(spec["workflow"], key, PICKLE_SUFFIX)
        temporary = path + ".tmp"
        with open(temporary, "wb") as handle:
            pickle.dump(output, handle)
        os.replace(temporary, path)
        if memory is not None:
            memory[key] = output
        result["status"] = "success"
    except Exception as exc:
        result["error"] = _short(_describe_exception(exc))
    return result


def save_outputs(spec, memory):
    """The "save" command of the worker: pickles the outputs it holds, so
    that a run that stops at an approval gate can go on later from them."""
    import pickle

    saved = []
    for key in spec.get("keys", []):
        if key not in memory:
            continue
        path = _step_file(spec["workflow"], key, PICKLE_SUFFIX)
        try:
            temporary = path + ".tmp"
            with open(temporary, "wb") as handle:
                pickle.dump(memory[key], handle)
            os.replace(temporary, path)
            saved.append(key)
        except Exception:  # An output that cannot be pickled stays unsaved.
            pass
    return {"status": "success", "saved": saved}


def dispatch(spec, memory=None):
    command = spec.get("command", "run")
    if command == "branch":
        return evaluate_branches(spec, memory)
    if command == "items":
        return list_items(spec, memory)
    if command == "join":
        return join_items(spec, memory)
    if command == "collect":
        return collect_outputs(spec, memory)
    if command == "save" and memory is not None:
        return save_outputs(spec, memory)
    return run_node(spec, memory)


def run_node(spec, memory=None):
    """Runs one node and returns its result dictionary."""
    key = spec["key"]
    folder = spec.get("folder") or _step_folder(spec["workflow"], key)
    script = _step_file(spec["workflow"], key, SCRIPT_SUFFIX)
    item = spec.get("item")
    memory_key = _item_memory_key(key, item["index"]) if item is not None else key
    in_memory = memory is not None
    result = {"status": "failed", "error": None, "traceback": None, "output_keys": {}}
    started = time.monotonic()

    saved_cwd = os.getcwd()
    saved_path = list(sys.path)
    module_name = "skele_node_" + key
    phase = None
    try:
        os.chdir(folder)
        sys.path.insert(0, os.path.dirname(script))
        if item is not None:
            sys.path.insert(0, folder)
        module = _import_script(script, key)
        preprocess = _require(module, "preprocess")
        compute = _require(module, "compute")
        save = _require(module, "save")
        state = getattr(module, "state", None)
        if not isinstance(state, dict):
            raise NodeFailure("The script has no module-level dictionary named state.")

        if item is not None:
            state["item"] = _find_item(spec, memory or {})
            state["item_index"] = int(item["index"])

        phase = "preprocess"
        if not preprocess(_prior_outputs(spec, memory or {})):
            result["status"] = "skipped"
            return result

        phase = "compute"
        compute()
        phase = None
        state = getattr(module, "state", state)
        output = state.get("output") if isinstance(state, dict) else None
        if not isinstance(output, dict):
            raise NodeFailure('compute() did not put a dictionary in state["output"].')

        result["output_keys"] = _describe_types(output)
        status = output.get("task_status")
        if status != "success":
            reason = output.get("error_log") or f"task_status is {status!r}"
            raise NodeFailure(f"The step reported that it failed: {_short(reason)}")

        if in_memory:
            memory[memory_key] = output
        else:
            phase = "save"
            save()
            phase = None
        result["status"] = "success"
    except NodeFailure as exc:
        result["error"] = str(exc)
        if exc.__cause__ is not None:
            result["traceback"] = _format_traceback(exc.__cause__)
    except KeyboardInterrupt:
        result["error"] = "The step was interrupted."
    except SystemExit as exc:
        result["error"] = f"The script called exit({exc.code!r}) instead of returning."
    except BaseException as exc:  # Node code may raise anything; report it all.
        where = f" in {phase}()" if phase is not None else ""
        result["error"] = _short(_describe_exception(exc)) + where
        result["traceback"] = _format_traceback(exc)
    finally:
        sys.modules.pop(module_name, None)
        sys.path[:] = saved_path
        os.chdir(saved_cwd)
        result["duration"] = time.monotonic() - started
    return result


# Files the harness writes in the bookkeeping folder are created afresh and
# never through a link, which could point anywhere outside the workflow.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _create(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
    return open(fd, "w", encoding="utf-8", errors="replace")


def _write_json_atomically(path, value):
    temporary = path + ".tmp"
    with _create(temporary) as handle:
        json.dump(value, handle)
    os.replace(temporary, path)


class _BoundedLog(io.TextIOBase):
    """Keeps a node's printed output in a file, up to a size limit."""

    def __init__(self, path, limit):
        self._handle = _create(path)
        self._limit = limit
        self._written = 0
        self._truncated = False

    def writable(self):
        return True

    def write(self, text):
        if self._written < self._limit:
            room = self._limit - self._written
            piece = text[:room]
            self._handle.write(piece)
            self._written += len(piece)
        if self._written >= self._limit and len(text) > 0 and not self._truncated:
            self._truncated = True
            self._handle.write("\n[output truncated]\n")
        return len(text)

    def flush(self):
        if not self._handle.closed:
            self._handle.flush()

    def close(self):
        self.flush()
        self._handle.close()
        super().close()


def _interrupt_handler(running):
    def handler(signum, frame):
        if running[0]:
            raise KeyboardInterrupt
    return handler


def worker(fd):
    results = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
    memory = {}
    running = [False]
    signal.signal(signal.SIGINT, _interrupt_handler(running))

    # Node code that reads standard input must not swallow the runner's
    # commands, so they are read from a copy and standard input is emptied.
    commands = os.fdopen(os.dup(0), "r", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, "r", encoding="utf-8")

    real_stdout, real_stderr = sys.stdout, sys.stderr
    for line in commands:
        line = line.strip()
        if not line:
            continue
        spec = json.loads(line)
        limit = int(spec.get("log_limit", 1 << 20))
        out = _BoundedLog(spec["stdout_log"], limit)
        err = _BoundedLog(spec["stderr_log"], limit)
        sys.stdout, sys.stderr = out, err
        try:
            running[0] = True
            result = dispatch(spec, memory)
        finally:
            running[0] = False
            sys.stdout, sys.stderr = real_stdout, real_stderr
            out.close()
            err.close()
        if spec.get("command", "run") == "run" and result["status"] != "success":
            item = spec.get("item")
            memory.pop(spec["key"] if item is None else _item_memory_key(spec["key"], item["index"]), None)
        result["key"] = spec["key"]
        results.write(json.dumps(result) + "\n")
    return 0


# Linux's constants, for the fork server's children to narrow the sandbox
# they share; the values are part of the kernel's interface.
_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY = 1
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
# Flags a remount must keep, since those of an inherited mount are locked:
# nosuid, nodev, noexec, noatime and nodiratime, which statvfs() tells with
# the same values, and relatime, which it tells with another.
_MS_KEPT = 2 | 4 | 8 | 1024 | 2048
_ST_RELATIME = 4096
_MS_RELATIME = 1 << 21
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_CAPBSET_DROP = 24
_CAPABILITY_VERSION_3 = 0x20080522
_SERVER_MESSAGE = 1 << 20


def _libc():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                           ctypes.c_ulong, ctypes.c_void_p]
    return libc


def _check(result, what):
    if result != 0:
        import ctypes
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _write_proc(name, text):
    with open(f"/proc/self/{name}", "w", encoding="ascii") as handle:
        handle.write(text)


def _covered(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _narrow(libc, shared, request):
    """Takes back, in a namespace of the child's own, what the shared sandbox
    lets other nodes do: their folders become read-only, the files only
    they read are hidden, and the network goes unless this node has it."""
    uid, gid = os.geteuid(), os.getegid()
    flags = _CLONE_NEWUSER | _CLONE_NEWNS
    if shared.get("network") and not request.get("network"):
        flags |= _CLONE_NEWNET
    _check(libc.unshare(flags), "unshare")
    _write_proc("setgroups", "deny")
    _write_proc("uid_map", f"{uid} {uid} 1")
    _write_proc("gid_map", f"{gid} {gid} 1")

    writable = request.get("writable", [])
    shared_writable = shared.get("writable", [])
    for path in writable:
        if path not in shared_writable:
            _check(libc.mount(path.encode(), path.encode(), None, _MS_BIND | _MS_REC, None),
                   f"bind {path}")
    for path in shared_writable:
        if path in writable or not os.path.exists(path):
            continue
        flags = os.statvfs(path).f_flag
        kept = flags & _MS_KEPT | (_MS_RELATIME if flags & _ST_RELATIME else 0)
        _check(libc.mount(None, path.encode(), None,
                          _MS_BIND | _MS_REMOUNT | _MS_RDONLY | kept, None),
               f"read-only {path}")

    read_only = request.get("read_only", [])
    for path in dict.fromkeys(shared.get("read_only", [])):
        if path in read_only or _covered(path, writable) or not os.path.exists(path):
            continue
        if os.path.isdir(path):
            _check(libc.mount(b"none", path.encode(), b"tmpfs", _MS_RDONLY, b"size=4k"),
                   f"hide {path}")
        else:
            _check(libc.mount(b"/dev/null", path.encode(), None, _MS_BIND, None),
                   f"hide {path}")

    # The capabilities the new namespace gave would let the step undo all
    # of this; it keeps none, as in the sandbox it was given.
    _drop_capabilities(libc)


def _drop_capabilities(libc):
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    for capability in range(64):
        libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)
    _check(libc.capset(ctypes.byref(Header(_CAPABILITY_VERSION_3, 0)), (Data * 2)()),
           "capset")
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("CapEff:") and int(line.split()[1], 16) != 0:
                raise OSError(1, "capabilities are left")


def _become_child(libc, server, wakeup, request, fds, shared):
    """What a fresh interpreter would have been given, in the forked child."""
    os.setsid()
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN if request.get("ignore_interrupt")
                  else signal.default_int_handler)
    if libc is not None:
        # The step dies with the server, as a spawned one dies with the runner.
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != request["_server"]:
            os._exit(1)
        # A daemon the step forks without starting a program keeps the
        # server's environment, without the mark that finds it; as the
        # step's reaper it is found among the step's children instead.
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    server.close()
    for fd in wakeup:
        os.close(fd)
    os.dup2(fds[0], 1)
    os.dup2(fds[1], 2)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.environ[request["mark"]] = "1"
    os.chdir(request["cwd"])
    if shared.get("narrow"):
        _narrow(libc, shared, request)


def _children():
    pids = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as handle:
                pids.update(int(pid) for pid in handle.read().split())
    except OSError:
        pass
    return pids


def _kill_children(spare=()):
    """Kills this process's children but @spare, and the orphans they leave,
    which come back to it as their reaper; repeated while there are new."""
    for _ in range(10):
        pids = _children() - set(spare)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass


def _exit_child(code):
    """Ends a forked step as an interpreter's exit would, as far as code can
    tell: its threads are waited for, then its exit functions run. Tearing
    the interpreter down, which takes longer than many steps, is left out;
    the step's process ends with it anyway."""
    try:
        import atexit
        threading = sys.modules.get("threading")
        if threading is not None and hasattr(threading, "_shutdown"):
            threading._shutdown()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        _kill_children()
        os._exit(code)


def _probe_narrowing(libc, shared):
    """Whether a child can narrow the shared sandbox here, and why not."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _narrow(libc, shared, {"writable": [], "read_only": [],
                                   "network": shared.get("network")})
        except BaseException as exc:  # Anything here means it cannot be used.
            sys.stderr.write(f"{exc}\n")
            sys.stderr.flush()
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status == 0


def serve(fd, config):
    """The fork server; returns the spec of a node in a child, None when the
    runner closed the socket."""
    import socket
    import select
    import array
    import gc
    import pickle  # noqa: F401  Imported once here, for every child.

    shared = json.loads(config)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=fd)
    try:
        libc = _libc()
    except OSError:
        libc = None

    def send(message):
        try:
            server.send(json.dumps(message).encode())
        except OSError:
            pass

    if shared.get("narrow") and (libc is None or not _probe_narrowing(libc, shared)):
        send({"ready": False})
        return None
    send({"ready": True})

    wakeup = os.pipe()
    os.set_blocking(wakeup[0], False)
    os.set_blocking(wakeup[1], False)
    signal.set_wakeup_fd(wakeup[1])
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    children = {}
    me = os.getpid()
    # What the server holds is shared with every child; it is moved out of
    # the collector's way so that collecting does not copy it.
    gc.freeze()
    # What a step that was killed left behind comes back here.
    if libc is not None:
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

    def reap():
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            ident = children.pop(pid, None)
            if ident is None:
                continue
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            # Any other child is an orphan of a step that ended.
            _kill_children(spare=children)
            send({"id": ident, "status": status})

    try:
        while True:
            ready, _, _ = select.select([server, wakeup[0]], [], [])
            if wakeup[0] in ready:
                try:
                    os.read(wakeup[0], 4096)
                except BlockingIOError:
                    pass
                reap()
            if server not in ready:
                continue
            fds = array.array("i")
            message, ancillary, _, _ = server.recvmsg(
                _SERVER_MESSAGE, socket.CMSG_LEN(2 * fds.itemsize))
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
            if not message:
                return None
            request = json.loads(message)
            if request.get("op") == "signal":
                for pid, ident in children.items():
                    if ident != request["id"]:
                        continue
                    try:
                        os.killpg(pid, request["signal"])
                    except ProcessLookupError:
                        # Just forked, the child has no session yet, nor
                        # anything started in it.
                        try:
                            os.kill(pid, request["signal"])
                        except OSError:
                            pass
                    except OSError:
                        pass
                continue
            if len(fds) != 2:
                for extra in fds:
                    os.close(extra)
                send({"id": request.get("id"), "status": 127 << 8})
                continue
            request["_server"] = me
            sys.stdout.flush()
            sys.stderr.flush()
            try:
                pid = os.fork()
            except OSError as exc:
                for child_fd in fds:
                    os.close(child_fd)
                sys.stderr.write(f"A step could not be started: {exc}\n")
                send({"id": request["id"], "status": 127 << 8})
                continue
            if pid == 0:
                try:
                    _become_child(libc, server, wakeup, request, list(fds), shared)
                except BaseException as exc:  # The node must not run unconfined.
                    sys.stderr.write(f"The step could not be started: {exc}\n")
                    sys.stderr.flush()
                    os._exit(126)
                return request["spec"]
            for child_fd in fds:
                os.close(child_fd)
            children[pid] = request["id"]
            send({"id": request["id"], "pid": pid})
    finally:
        if os.getpid() == me:
            for pid in children:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass


def run_one(spec_text):
    spec = json.loads(spec_text)
    result = dispatch(spec)
    sys.stdout.flush()
    sys.stderr.flush()
    _write_json_atomically(spec["result"], result)
    return 0


def check_conditions(expressions):
    """The "check" mode: the syntax errors of conditions, without running
    anything; each is compiled as an expression."""
    errors = []
    for entry in expressions:
        try:
            compile(entry["expr"], "<condition>", "eval")
        except SyntaxError as exc:
            errors.append({"node": entry["node"], "prior": entry["prior"], "error": exc.msg})
        except (ValueError, TypeError) as exc:
            errors.append({"node": entry["node"], "prior": entry["prior"], "error": str(exc)})
    return errors


def main(argv):
    if len(argv) == 3 and argv[1] == "run":
        return run_one(argv[2])
    if len(argv) == 4 and argv[1] == "serve":
        spec_text = serve(int(argv[2]), argv[3])
        if spec_text is None:
            return 0
        sys.argv[1:] = ["run", spec_text]
        code = 1
        try:
            code = run_one(spec_text)
        finally:
            _exit_child(code)
    if len(argv) == 3 and argv[1] == "worker":
        return worker(int(argv[2]))
    if len(argv) == 2 and argv[1] == "check":
        print(json.dumps(check_conditions(json.load(sys.stdin))))
        return 0
    print("usage: skele_harness.py run SPEC | worker FD | serve FD CONFIG | check",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
