# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs a workflow exported from Skele-Code as a Jupyter notebook.

The notebook's setup cell writes this module, run_workflow.py,
skele_harness.py, the plans and the input files into its working folder
and makes a Notebook; then each step's cell calls Notebook.run_step() with
the step's script, which is written into the step's folder and run through
the harness exactly as run_workflow.py runs it, control flow included.

Unlike run_workflow.py, a notebook stops where something needs a person:
a step that fails, has no code, or is an approval gate that APPROVE does
not name raises an exception that names the step, so that the cells after
it do not run and `jupyter nbconvert --execute` exits with an error.

Only the standard library is used.
"""

import json
import os
import types

import run_workflow


class StepFailed(Exception):
    """A step failed or has no code."""


class WaitsForApproval(Exception):
    """The notebook reached an approval gate that APPROVE does not name."""


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if text is None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    with open(path, "wb") as handle:
        handle.write(data)


def _inner_gates(folder, relative=""):
    """The approval gates of the sub-workflows in @folder, at any depth,
    as (key, name, path of the step folder)."""
    try:
        with open(os.path.join(folder, run_workflow.PLAN), "r", encoding="utf-8") as handle:
            plan = json.load(handle)
    except (OSError, ValueError):
        return []
    gates = []
    for entry in plan.get("steps", []):
        if entry.get("approval"):
            gates.append((entry["key"], entry.get("name") or entry["key"],
                          os.path.join(folder, entry["key"])))
        if entry.get("workflow"):
            gates += _inner_gates(os.path.join(folder, entry["workflow"]))
    return gates


def _gate_state(step_folder):
    path = os.path.join(step_folder, run_workflow.BOOKKEEPING, "state.json")
    try:
        with open(path, "r", encoding="utf-8") as handle:
            return json.load(handle).get("state")
    except (OSError, ValueError, AttributeError):
        return None


class Notebook:
    """The run of the workflow in @folder that the notebook's cells make,
    one step at a time, in the order of its plan."""

    def __init__(self, folder, approve=()):
        self.folder = os.path.abspath(folder)
        self.options = types.SimpleNamespace(approve=set(), timeout=None, verbose=True)
        self.workflow = run_workflow.Workflow(self.folder, self.options)
        self.workflow.select()
        self.workflow.gates = []

        approve = set(approve or ())
        gates = self.workflow.gate_keys()
        for key in sorted(approve - gates):
            raise ValueError(f"APPROVE names “{key}”, which is not the key of an approval gate "
                             "of this workflow or of its sub-workflows. Its gates are: "
                             + (", ".join(sorted(gates)) or "none") + ".")
        self.options.approve = approve

    def _approval_message(self, name, key):
        return (f"“{name}” waits for approval, so the notebook stops here. Look at what it "
                "receives (the reports of the steps above), then approve it in the first "
                f"cell with APPROVE = {{\"{key}\"}} and run the notebook again from the top.")

    def run_step(self, key, script=None, scripts=None):
        """Writes the script of the step @key (or, for a sub-workflow, the
        scripts in @scripts by path) and runs the step."""
        __tracebackhide__ = True  # IPython shows the step's failure, not this frame.
        workflow = self.workflow
        step = workflow.by_key[key]

        if scripts is None:
            _write(workflow.step_file(key, run_workflow.SCRIPT_SUFFIX), script)
        else:
            for relative, text in scripts.items():
                _write(os.path.join(self.folder, relative), text)

        if not step.selected:
            print(f"– “{step.name}” is not marked to run in the workflow, so the notebook "
                  "leaves it out.", flush=True)
            return

        # A gate inside a sub-workflow says that it waits in its state.
        inner = _inner_gates(os.path.join(self.folder, step.workflow)) if step.workflow else []
        for _, _, folder in inner:
            try:
                os.unlink(os.path.join(folder, run_workflow.BOOKKEEPING, "state.json"))
            except OSError:
                pass

        workflow.run_step(step)

        if step in workflow.gates:
            raise WaitsForApproval(self._approval_message(step.name, step.key))
        if step.state == run_workflow.FAILED:
            for inner_key, inner_name, folder in inner:
                if _gate_state(folder) == run_workflow.AWAITING_APPROVAL:
                    raise WaitsForApproval(self._approval_message(inner_name, inner_key))
        if step.state in (run_workflow.FAILED, run_workflow.NO_CODE):
            raise StepFailed(f"The step “{step.name}” ({step.key}) failed: {step.message}")
