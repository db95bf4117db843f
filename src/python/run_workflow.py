#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs a workflow exported from Skele-Code, without Skele-Code.

    python3 run_workflow.py [--approve KEY] [--only KEY] [--from KEY] [--step KEY]
                            [--timeout SECONDS] [--verbose]

The steps run one after the other, each after the steps it needs, in the
order Skele-Code runs them (plan.json lists them so). Every step goes
through skele_harness.py, the same small program Skele-Code runs its steps
with: it imports the step's script, gives preprocess() the outputs of the
steps before it, read from their pickles, and calls compute() and save().

Each step runs in a Python process of its own, as in Skele-Code's default
mode: a step that crashes, leaks memory or changes global state cannot
harm the others or this program, and its output is kept apart in
KEY/.skele/stdout.log and stderr.log. On Linux that process is forked
from this one, which has imported the harness already, so that no step
waits for Python to start; elsewhere, or when this program has other
threads (in a notebook's kernel), the harness is started anew with the
interpreter that runs this file.

The control flow is carried out as Skele-Code does it: conditions on
connections (the first true one after a step is taken, "default" when none
is, the others are skipped, and a step whose steps before it were all
skipped is skipped too), steps that run for each element of a list (in
KEY/items/N/, their successors receiving {"items": [...]}), approval gates
(the run stops before a gate unless --approve KEY names it) and
sub-workflows (run the same way, their first steps receiving
prior_outputs["inputs"]).

Every run runs every step again: nothing is kept from one run to the next
but the files the steps write. Only the standard library is used.

With --step KEY only that step runs, taking the steps before it as their
own runs left them in KEY/.skele/state.json, which every step's run
writes: that is how the Snakefile of a Snakemake export runs each step as a
job of its own. The exit status then says whether the steps after it may
run.

Exit status: 0 when every step succeeded or was skipped, 1 when a step
failed or has no code, 2 when the command line or the plan is wrong, 3 when
the run stopped before an approval gate, 130 when interrupted.
"""

import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(HERE, "skele_harness.py")
PLAN = "plan.json"

# The layout of a step folder, as in Skele-Code (and in skele_harness.py).
SCRIPT_SUFFIX = ".py"
PICKLE_SUFFIX = ".pkl"
SUMMARY_SUFFIX = "_summary.txt"
BOOKKEEPING = ".skele"
LOG_LIMIT = 1 << 20

EXIT_SUCCESS = 0
EXIT_FAILED = 1
EXIT_INVALID = 2
EXIT_AT_GATE = 3
EXIT_INTERRUPTED = 130

SUCCEEDED = "succeeded"
FAILED = "failed"
SKIPPED = "skipped"
NO_CODE = "no code"
AWAITING_APPROVAL = "awaiting approval"

MAX_ITEMS_IN_REPORT = 50

# What state.json keeps of a step besides its state, message and line.
RECORDED = ("waiting", "held", "held_by", "blocked_by", "branch_taken", "branch_errors",
            "branch_failure")


try:
    # Imported once here, so that each step's process, forked from this
    # one, starts with the harness ready instead of starting Python anew.
    import skele_harness
except ImportError:
    skele_harness = None


def _can_fork():
    """Whether a step's process can be forked from this one: on Linux, with
    the harness imported, and with no other thread, which a fork would
    leave half-way (a notebook's kernel has several)."""
    return (skele_harness is not None and sys.platform.startswith("linux")
            and hasattr(os, "fork") and threading.active_count() == 1)


def _redirect(fd, path, flags):
    handle = os.open(path, flags, 0o644)
    os.dup2(handle, fd)
    os.close(handle)


def _wait_for_exit(pid, timeout):
    """Waits up to @timeout seconds for the child @pid to end, without
    reaping it; returns whether it ended."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is not None:
        try:
            return bool(select.select([pidfd], [], [], timeout)[0])
        finally:
            os.close(pidfd)
    # Without pidfd_open() (Linux before 5.3), it looks now and then.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return True
        time.sleep(0.01)
    return False


def _forked_harness(argv, folder, stdout, stderr, timeout):
    """Runs the harness with @argv in a child process forked from this
    one, in @folder, with its output in @stdout and @stderr, as
    subprocess.run() would run it in a new Python, and returns its exit
    status (negative for a signal). Raises subprocess.TimeoutExpired."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.chdir(folder)
            _redirect(0, os.devnull, os.O_RDONLY)
            _redirect(1, stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            _redirect(2, stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            sys.argv = list(argv)
            status = skele_harness.main(sys.argv)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(status & 0xff)

    try:
        if timeout is not None and not _wait_for_exit(pid, timeout):
            raise subprocess.TimeoutExpired(argv, timeout)
        _, status = os.waitpid(pid, 0)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    return os.waitstatus_to_exitcode(status)


class PlanError(Exception):
    """The plan of a workflow cannot be read."""


def _has_code(path):
    """Whether the script at @path holds anything but blanks."""
    try:
        with open(path, "rb") as handle:
            return handle.read().strip() != b""
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _stamp(path):
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _read_text(path):
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _item_line(text):
    """The line of a report that says what happened: the first line
    describes the task, so the next one, as Skele-Code shows items."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if len(lines) > 1:
        return lines[1]
    return lines[0] if lines else ""


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _tail(path, limit=2000):
    text = _read_text(path).strip()
    return text[-limit:] if len(text) > limit else text


class Step:
    def __init__(self, entry):
        self.key = entry["key"]
        self.name = entry.get("name") or self.key
        self.priors = list(entry.get("priors", []))
        self.run = bool(entry.get("run", True))
        self.approval = bool(entry.get("approval", False))
        self.when = dict(entry.get("when", {}))
        self.branches = list(entry.get("branches", []))
        self.foreach = entry.get("foreach")
        self.workflow = entry.get("workflow")
        self.successors = []

        self.selected = False
        self.state = None
        self.message = None
        self.report = ""
        self.line = ""
        self.waiting = False
        self.held = False
        self.branch_taken = None
        self.branch_errors = {}
        self.branch_failure = None
        self.held_by = None
        self.blocked_by = None


class Workflow:
    """One run of the workflow in @folder, or of a sub-workflow of it."""

    def __init__(self, folder, options, depth=0, inputs=None):
        self.folder = os.path.abspath(folder)
        self.options = options
        self.depth = depth
        self.inputs = inputs

        try:
            with open(os.path.join(self.folder, PLAN), "r", encoding="utf-8") as handle:
                plan = json.load(handle)
            self.name = plan.get("name", "")
            self.steps = [Step(entry) for entry in plan["steps"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise PlanError(f"{os.path.join(self.folder, PLAN)} cannot be read: {exc}") from exc

        self.by_key = {step.key: step for step in self.steps}
        for step in self.steps:
            step.priors = [key for key in step.priors if key in self.by_key]
            for key in step.priors:
                self.by_key[key].successors.append(step)

    # Finding steps ------------------------------------------------------

    def lookup(self, text):
        if text in self.by_key:
            return self.by_key[text]
        for step in self.steps:
            if step.name == text:
                return step
        return None

    def descendants(self, step):
        found = []
        pending = [step]
        while pending:
            for successor in pending.pop().successors:
                if successor not in found:
                    found.append(successor)
                    pending.append(successor)
        return found

    def select(self, only=None, start=None):
        chosen = set()
        if only:
            chosen = {self.lookup(key) for key in only}
        elif start is not None:
            first = self.lookup(start)
            chosen = {first, *self.descendants(first)}
        for step in self.steps:
            step.selected = step in chosen if (only or start is not None) else step.run

    def gate_keys(self):
        """The keys of the approval gates here and in the sub-workflows."""
        keys = set()
        for step in self.steps:
            if step.approval:
                keys.add(step.key)
            if step.workflow:
                try:
                    keys |= Workflow(os.path.join(self.folder, step.workflow), self.options,
                                     self.depth + 1).gate_keys()
                except PlanError:
                    pass
        return keys

    # Paths -------------------------------------------------------------------

    def step_folder(self, key):
        return os.path.join(self.folder, key)

    def step_file(self, key, suffix):
        return os.path.join(self.step_folder(key), key + suffix)

    def show(self, path):
        return os.path.relpath(path, HERE)

    # Output ------------------------------------------------------------------

    def say(self, line):
        print("  " * self.depth + line, flush=True)

    def explain(self, text):
        """Adds detail for a person to the standard error, indented."""
        for line in text.rstrip().splitlines():
            print("  " * self.depth + "    " + line, file=sys.stderr)
        sys.stderr.flush()

    # Results -----------------------------------------------------------------

    def has_output(self, key):
        """Whether the step @key gave its output: in this run, or, for a step
        outside the run, in an earlier run of this folder."""
        step = self.by_key.get(key)
        if step is None:
            return False
        if step.selected:
            return step.state == SUCCEEDED
        state = os.path.join(self.step_folder(key), BOOKKEEPING, "state.json")
        try:
            with open(state, "r", encoding="utf-8") as handle:
                finished = json.load(handle).get("state") == SUCCEEDED
        except (OSError, ValueError, AttributeError):
            return False
        return finished and os.path.isfile(self.step_file(key, PICKLE_SUFFIX))

    def harness(self, folder, spec, name="result"):
        """Runs the harness on @spec in @folder and returns its report."""
        bookkeeping = os.path.join(folder, BOOKKEEPING)
        os.makedirs(bookkeeping, exist_ok=True)
        spec = dict(spec, workflow=self.folder, folder=folder, log_limit=LOG_LIMIT,
                    result=os.path.join(bookkeeping, name + ".json"))
        stdout = os.path.join(bookkeeping, "stdout.log" if name == "result" else name + ".out.log")
        stderr = os.path.join(bookkeeping, "stderr.log" if name == "result" else name + ".err.log")
        _remove(spec["result"])
        argv = [HARNESS, "run", json.dumps(spec)]
        try:
            if _can_fork():
                returncode = _forked_harness(argv, folder, stdout, stderr, self.options.timeout)
            else:
                with open(stdout, "w") as out, open(stderr, "w") as err:
                    returncode = subprocess.run([sys.executable] + argv, cwd=folder,
                                                stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                                timeout=self.options.timeout).returncode
        except subprocess.TimeoutExpired:
            return {"status": "failed",
                    "error": f"The step took longer than {self.options.timeout:g} seconds "
                             "and was stopped."}
        except OSError as exc:
            return {"status": "failed", "error": f"Python could not be started: {exc}"}

        try:
            with open(spec["result"], "r", encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            end = _tail(stderr)
            if returncode < 0:
                error = f"The step was ended by signal {-returncode}."
            else:
                error = f"The step ended with exit status {returncode} without a result."
            return {"status": "failed", "error": error + (f" {end}" if end else "")}

    def spec_for(self, step):
        spec = {"key": step.key,
                "priors": [{"key": key, "source": "file" if self.has_output(key) else "none"}
                           for key in step.priors]}
        if not step.priors and self.inputs is not None:
            spec["inputs"] = self.inputs
        return spec

    # Finishing steps ---------------------------------------------------------

    def finish(self, step, state, message=None, report="", line=None):
        step.state = state
        step.message = message
        step.report = report or ""
        step.line = line if line is not None else _item_line(step.report)

        name = f"“{step.name}”"
        line = step.line
        if state == SUCCEEDED:
            self.say(f"✓ {name} succeeded" + (f": {line}" if line else "."))
        elif state == SKIPPED:
            self.say(f"– {name} skipped: " + (message or "the step decided not to run."))
        elif state == NO_CODE:
            self.say(f"✗ {name} has no code: {message}")
        elif state == AWAITING_APPROVAL:
            self.say(f"‖ {name} waits for approval; the steps after it were not run.")
        else:
            self.say(f"✗ {name} failed: {message}")

        if self.options.verbose and step.report.strip():
            self.explain(step.report)

        # The successors that carry conditions on the step learn which of
        # them is taken, once, from its output.
        if state == SUCCEEDED and step.branches:
            report = self.harness(self.step_folder(step.key),
                                  {"command": "branch", "key": step.key, "prior": step.key,
                                   "source": "file", "branches": step.branches},
                                  name="branch")
            if report.get("status") == "success":
                step.branch_taken = report.get("taken")
                step.branch_errors = report.get("errors") or {}
            else:
                step.branch_failure = report.get("error") or "Python ended without trying them."

        self.record(step)

    def record(self, step):
        """Writes what became of @step to KEY/.skele/state.json: what
        has_output() reads in a later run, and all that the steps after it
        need to know when each step is run on its own (--step)."""
        state = {"state": step.state, "message": step.message, "line": step.line}
        for name in RECORDED:
            state[name] = getattr(step, name)
        bookkeeping = os.path.join(self.step_folder(step.key), BOOKKEEPING)
        path = os.path.join(bookkeeping, "state.json")
        try:
            os.makedirs(bookkeeping, exist_ok=True)
            with open(path + ".new", "w", encoding="utf-8") as handle:
                json.dump(state, handle)
            os.replace(path + ".new", path)
        except OSError as exc:
            self.explain(f"{self.show(path)} could not be written: {exc}")

    def recall(self, step):
        """Takes what became of @step in its own run from its state.json,
        as if it had run in this one. Returns False when there is none."""
        path = os.path.join(self.step_folder(step.key), BOOKKEEPING, "state.json")
        try:
            with open(path, "r", encoding="utf-8") as handle:
                state = json.load(handle)
            step.state = state["state"]
            step.message = state.get("message")
            step.line = state.get("line") or ""
            for name in RECORDED:
                if name in state:
                    setattr(step, name, state[name])
        except (OSError, ValueError, KeyError, TypeError):
            return False
        step.selected = True
        return True

    def fail_with_detail(self, step, folder, report):
        message = report.get("error") or "The step failed."
        self.finish(step, FAILED, message, self.read_summary(step.key, folder, None))
        if report.get("traceback"):
            self.explain(report["traceback"])
        self.explain(f"Its full output is in {self.show(os.path.join(folder, BOOKKEEPING))}/.")

    def read_summary(self, key, folder, before):
        path = os.path.join(folder, key + SUMMARY_SUFFIX)
        if os.path.islink(path) or _stamp(path) is None or _stamp(path) == before:
            return ""
        return _read_text(path)

    # The control flow --------------------------------------------------------

    def in_run(self, key):
        step = self.by_key.get(key)
        return step if step is not None and step.selected else None

    def all_priors_skipped(self, step):
        if not step.priors:
            return False
        for key in step.priors:
            prior = self.in_run(key)
            if prior is None or prior.state != SKIPPED or prior.waiting or prior.held:
                return False
        return True

    def conditions_allow(self, step):
        for key, expr in step.when.items():
            prior = self.in_run(key)
            if prior is None:
                continue
            if prior.state != SUCCEEDED:
                self.finish(step, SKIPPED,
                            f"Not run: the condition on its connection from “{prior.name}” "
                            f"was not tried, as “{prior.name}” gave no output.")
                return False
            if prior.branch_failure is not None:
                self.finish(step, FAILED, f"The conditions after “{prior.name}” could not be "
                                          f"tried: {prior.branch_failure}")
                return False
            if step.key in prior.branch_errors:
                self.finish(step, FAILED,
                            f"The condition {expr} on the connection from “{prior.name}” could "
                            f"not be evaluated: {prior.branch_errors[step.key]}")
                return False
            if prior.branch_taken != step.key:
                taken = self.by_key.get(prior.branch_taken)
                if taken is not None:
                    message = (f"Condition not met: after “{prior.name}”, “{taken.name}” "
                               "was taken.")
                else:
                    message = f"Condition not met: no condition after “{prior.name}” is true."
                self.finish(step, SKIPPED, message)
                return False
        return True

    def gate_allows(self, step):
        if not step.approval or step.key in self.options.approve:
            return True
        self.finish(step, AWAITING_APPROVAL,
                    "This step needs approval before it runs.")
        self.gates.append(step)
        return False

    # Running steps -------------------------------------------------------

    def run_node(self, step):
        folder = self.step_folder(step.key)
        summary = os.path.join(folder, step.key + SUMMARY_SUFFIX)
        before = _stamp(summary)
        _remove(self.step_file(step.key, PICKLE_SUFFIX))
        report = self.harness(folder, self.spec_for(step))
        status = report.get("status")
        if status == "success":
            self.finish(step, SUCCEEDED, None, self.read_summary(step.key, folder, before))
        elif status == "skipped":
            self.finish(step, SKIPPED, None, self.read_summary(step.key, folder, before))
        else:
            self.fail_with_detail(step, folder, report)

    def run_foreach(self, step):
        prior = self.by_key.get(step.foreach.get("prior"))
        path = step.foreach.get("path", "")
        folder = self.step_folder(step.key)

        if prior is None or not self.has_output(prior.key):
            name = prior.name if prior is not None else step.foreach.get("prior")
            self.finish(step, FAILED,
                        f"There is no list to run this step for: “{name}” gave no output.")
            return

        listed = self.harness(folder, {"command": "items", "key": step.key, "prior": prior.key,
                                       "source": "file", "path": path}, name="items")
        if listed.get("status") != "success":
            self.finish(step, FAILED, listed.get("error") or "Python ended without listing "
                                                              "the items.")
            return

        count = int(listed.get("count", 0))
        items = os.path.join(folder, "items")
        if os.path.isdir(items) and not os.path.islink(items):
            for name in os.listdir(items):
                if name.isdigit() and int(name) >= count:
                    shutil.rmtree(os.path.join(items, name), ignore_errors=True)

        ran = skipped = failed = 0
        failure = None
        lines = []
        for index in range(count):
            item = os.path.join(items, str(index))
            os.makedirs(item, exist_ok=True)
            before = _stamp(os.path.join(item, step.key + SUMMARY_SUFFIX))
            _remove(os.path.join(item, step.key + PICKLE_SUFFIX))
            spec = self.spec_for(step)
            spec["item"] = {"prior": prior.key, "path": path, "index": index}
            report = self.harness(item, spec)
            status = report.get("status")
            if status == "success":
                ran += 1
            elif status == "skipped":
                skipped += 1
            else:
                failed += 1
                if failure is None:
                    failure = (f"Item {index + 1} of {count} failed: "
                               f"{report.get('error') or 'it failed.'}")
                    if report.get("traceback"):
                        self.explain(report["traceback"])
                    self.explain(f"Its full output is in "
                                 f"{self.show(os.path.join(item, BOOKKEEPING))}/.")
            if index < MAX_ITEMS_IN_REPORT:
                line = _item_line(self.read_summary(step.key, item, before))
                lines.append(f"Item {index + 1}: {line or status}")
            elif index == MAX_ITEMS_IN_REPORT:
                lines.append(f"… and {count - index} more items.")

        noun = "item" if count == 1 else "items"
        first = f"Ran for each of {count} {noun}: {ran} ran, {skipped} skipped, {failed} failed."
        report = "\n".join([first] + lines) + "\n"
        if failure is not None:
            self.finish(step, FAILED, failure, report, first)
            return

        _remove(self.step_file(step.key, PICKLE_SUFFIX))
        joined = self.harness(folder, {"command": "join", "key": step.key, "count": count},
                              name="join")
        if joined.get("status") != "success":
            self.finish(step, FAILED, "The items’ outputs could not be put together: "
                                      + (joined.get("error") or "Python ended without a report."))
            return
        self.finish(step, SUCCEEDED, None, report, first)

    def run_subflow(self, step):
        relative = step.workflow
        inputs = []
        for key in step.priors:
            entry = {"key": key}
            if self.has_output(key):
                entry["path"] = self.step_file(key, PICKLE_SUFFIX)
            inputs.append(entry)

        self.say(f"Running the workflow in “{relative}” for “{step.name}”…")
        try:
            inner = Workflow(os.path.join(self.folder, relative), self.options,
                             self.depth + 1, inputs)
        except PlanError as exc:
            self.finish(step, FAILED, f"The workflow in “{relative}” could not be read: {exc}")
            return
        inner.select()
        inner.run()

        counts = inner.counts()
        failed = next((s for s in inner.steps if s.selected and s.state in (FAILED, NO_CODE)),
                      None)
        gate = inner.gates[0] if inner.gates else None
        if failed is not None:
            self.finish(step, FAILED, f"“{failed.name}” in the workflow “{relative}” failed: "
                                      f"{failed.message or 'it failed.'}")
            return
        if counts["waiting"] > 0:
            self.finish(step, FAILED, f"Not every step of the workflow “{relative}” could run: "
                                      "some have no code yet.")
            return
        if gate is not None:
            self.finish(step, FAILED, f"“{gate.name}” in the workflow “{relative}” waits for "
                                      f"approval. Run again with --approve {gate.key} to approve "
                                      "it.")
            return

        outputs = []
        lines = []
        for inner_step in inner.steps:
            if inner_step.successors:
                continue
            entry = {"key": inner_step.key}
            if inner.has_output(inner_step.key):
                entry["path"] = inner.step_file(inner_step.key, PICKLE_SUFFIX)
            outputs.append(entry)
            line = _item_line(inner_step.report) or (inner_step.state or "not run")
            lines.append(f"{inner_step.name}: {line}")

        folder = self.step_folder(step.key)
        os.makedirs(folder, exist_ok=True)
        _remove(self.step_file(step.key, PICKLE_SUFFIX))
        collected = self.harness(folder, {"command": "collect", "key": step.key,
                                          "outputs": outputs}, name="collect")
        if collected.get("status") != "success":
            self.finish(step, FAILED, "The outputs of the sub-workflow could not be put "
                                      "together: " + (collected.get("error") or
                                                      "Python ended without a report."))
            return
        first = (f"Ran the workflow in “{relative}”: {counts[SUCCEEDED]} succeeded, "
                 f"{counts[SKIPPED]} skipped, {counts[FAILED]} failed.")
        self.finish(step, SUCCEEDED, None, "\n".join([first] + lines) + "\n", first)

    def run_step(self, step):
        priors = [self.in_run(key) for key in step.priors]
        priors = [prior for prior in priors if prior is not None]
        held_by = next((p.name if p.state == AWAITING_APPROVAL else p.held_by
                        for p in priors if p.state == AWAITING_APPROVAL or p.held), None)
        blocked_by = next((p.name if p.state == NO_CODE else p.blocked_by
                           for p in priors if p.state == NO_CODE or p.waiting), None)
        step.held_by = held_by
        step.blocked_by = blocked_by
        script = self.step_file(step.key, SCRIPT_SUFFIX)

        if held_by is not None:
            step.held = True
            self.finish(step, SKIPPED, f"Not run yet: it needs “{held_by}”, which waits for "
                                       "approval.")
        elif self.all_priors_skipped(step):
            self.finish(step, SKIPPED, "Skipped: every step before it was skipped.")
        elif not self.conditions_allow(step):
            pass
        elif step.workflow:
            if self.gate_allows(step):
                self.run_subflow(step)
        elif blocked_by is not None:
            step.waiting = True
            self.finish(step, SKIPPED, f"Not run: it needs “{blocked_by}”, which has no code yet.")
        elif not _has_code(script):
            where = self.show(script)
            self.finish(step, NO_CODE, f"This step has no code yet: {where} "
                                       + ("is empty." if os.path.exists(script)
                                          else "does not exist."))
        elif not self.gate_allows(step):
            pass
        elif step.foreach:
            self.run_foreach(step)
        else:
            self.run_node(step)

    def run(self):
        self.gates = []
        for step in self.steps:
            step.held_by = step.blocked_by = None
            if step.selected:
                self.run_step(step)

    def counts(self):
        counts = {SUCCEEDED: 0, FAILED: 0, SKIPPED: 0, NO_CODE: 0, AWAITING_APPROVAL: 0,
                  "waiting": 0, "held": 0}
        for step in self.steps:
            if not step.selected or step.state is None:
                continue
            if step.state == SKIPPED and step.waiting:
                counts["waiting"] += 1
            elif step.state == SKIPPED and step.held:
                counts["held"] += 1
            else:
                counts[step.state] += 1
        return counts


def run_one(workflow, options):
    """Runs the step options.step alone, taking the steps before it as
    their own runs left them (their state.json), and says by the exit status
    whether the steps after it can run."""
    step = workflow.by_key.get(options.step)
    if step is None:
        print(f"error: the workflow has no step with the key “{options.step}”.", file=sys.stderr)
        return EXIT_INVALID

    for step_ in workflow.steps:
        step_.selected = False
    for key in step.priors:
        prior = workflow.by_key[key]
        if not workflow.recall(prior):
            print(f"error: “{prior.name}” has not run yet: "
                  f"{workflow.show(os.path.join(workflow.step_folder(key), BOOKKEEPING))}"
                  "/state.json is missing.", file=sys.stderr)
            return EXIT_INVALID
    step.selected = True
    workflow.gates = []
    try:
        workflow.run_step(step)
    except KeyboardInterrupt:
        print("The run was stopped.", file=sys.stderr)
        return EXIT_INTERRUPTED

    if step.state == AWAITING_APPROVAL:
        print(f"“{step.name}” waits for approval. Look at what it receives, then approve it "
              f"and run again:\n    snakemake --config approve={step.key} …", file=sys.stderr)
        return EXIT_AT_GATE
    if step.state in (FAILED, NO_CODE) or step.waiting or step.held:
        return EXIT_FAILED
    return EXIT_SUCCESS


def main(argv):
    parser = argparse.ArgumentParser(
        description="Run the workflow exported from Skele-Code in this folder.")
    parser.add_argument("--approve", action="append", default=[], metavar="KEY",
                        help="approve the approval gate KEY, so that the run goes on past it")
    parser.add_argument("--only", action="append", default=[], metavar="KEY",
                        help="run only this step (may be given more than once)")
    parser.add_argument("--from", dest="start", metavar="KEY",
                        help="run this step and every step after it")
    parser.add_argument("--step", metavar="KEY",
                        help="run only this step, after the steps before it ran in runs of "
                             "their own, as the Snakefile of a Snakemake export does")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop a step that takes longer than this")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="show every step's whole report")
    options = parser.parse_args(argv[1:])

    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")

    try:
        workflow = Workflow(HERE, options)
    except PlanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID

    for text in options.only + ([options.start] if options.start else []):
        if workflow.lookup(text) is None:
            print(f"error: the workflow has no step “{text}”.", file=sys.stderr)
            return EXIT_INVALID
    gates = workflow.gate_keys()
    for key in options.approve:
        if key not in gates:
            print(f"error: --approve names “{key}”, which is not the key of an approval gate "
                  "of this workflow or of its sub-workflows.", file=sys.stderr)
            return EXIT_INVALID
    options.approve = set(options.approve)

    if options.step is not None:
        return run_one(workflow, options)

    workflow.select(options.only, options.start)
    selected = sum(1 for step in workflow.steps if step.selected)
    print(f"Running {selected} step{'' if selected == 1 else 's'} of “{workflow.name}”.",
          flush=True)
    started = time.monotonic()
    try:
        workflow.run()
    except KeyboardInterrupt:
        print("The run was stopped.", file=sys.stderr)
        return EXIT_INTERRUPTED

    counts = workflow.counts()
    print(f"Finished in {time.monotonic() - started:.1f} s: {counts[SUCCEEDED]} succeeded, "
          f"{counts[FAILED]} failed, {counts[SKIPPED]} skipped, {counts[NO_CODE]} without code, "
          f"{counts['waiting']} waiting for code.", flush=True)

    if counts[FAILED] + counts[NO_CODE] + counts["waiting"] > 0:
        return EXIT_FAILED
    if workflow.gates:
        for gate in workflow.gates:
            print(f"“{gate.name}” waits for approval. Look at what it receives, then approve it "
                  f"and run again:\n    python3 run_workflow.py --approve {gate.key}",
                  flush=True)
        return EXIT_AT_GATE
    return EXIT_SUCCESS


if __name__ == "__main__":
    sys.exit(main(sys.argv))
