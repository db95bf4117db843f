/* test-cli-flow.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The control flow of DESIGN §10 from the command line: `skele run` at an
 * approval gate, `skele approve`, `skele run --approve`, conditions in the
 * exit status, and the "Failed: …" text that process.json keeps.
 */

#define G_LOG_DOMAIN "test-cli-flow"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sk-test-util.h"

/* The absolute path of `python3` from PATH, given to skele through
 * SKELE_PYTHON: a pyenv shim costs most of a second at every start. */
static char *python_path;
static const char *skele_bin;

#define DEFAULT_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": KEY}\n" \
  "    report(\"done \" + KEY)"

/* "prepare" feeds the gate, which "publish" needs. */
static const char gate_spec[] =
  "1 prepare\n"
  "2 gate 1 | {\"approval\": true}\n"
  "3 publish 2";

/* Helpers ----------------------------------------------------------------- */

static void
write_script (const char *folder,
              const char *key,
              const char *pre,
              const char *compute)
{
  sk_test_write_script (folder, SK_TEST_SCRIPT_TEMPLATE, key, pre != NULL ? pre : "    pass",
                        compute != NULL ? compute : DEFAULT_COMPUTE);
}

static void
write_scripts (const char *folder,
               const char *keys)
{
  g_auto(GStrv) list = g_strsplit (keys, " ", -1);

  for (guint i = 0; list[i] != NULL; i++)
    write_script (folder, list[i], NULL, NULL);
}

/* Writes process.json with the nodes in @spec, one "ID NAME [PRIOR…]" per
 * line, optionally followed by " | " and the node's "skele" member as JSON.
 * Every node is marked to run, its key is its name, and so is its task.
 */
static void
write_process (const char *folder,
               const char *spec)
{
  sk_test_write_spec_process_full (folder, "cli flow test", spec, TRUE);
}

/* A workflow folder with the gate of gate_spec and its scripts. */
static char *
make_gate_workflow (void)
{
  char *dir = sk_test_make_tmp_dir ("cli-flow");

  write_process (dir, gate_spec);
  write_scripts (dir, "prepare gate publish");
  return dir;
}

static void
assert_runs (const char *folder,
             const char *expected)
{
  g_autofree char *runs = sk_test_take_runs (folder);

  g_assert_cmpstr (runs, ==, expected);
}

/* Runs skele with the arguments up to NULL. */
static void
run_skele (SkTestResult *result,
           ...)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  va_list args;

  /* skele's messages are checked in their untranslated UTF-8 form. */
  launcher = sk_test_new_launcher (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                   G_SUBPROCESS_FLAGS_STDERR_PIPE, SK_TEST_RUN_DEFAULT);
  g_subprocess_launcher_setenv (launcher, "SKELE_PYTHON", python_path, TRUE);
  va_start (args, result);
  sk_test_run_launcher_valist (result, launcher, SK_TEST_RUN_DEFAULT, SK_TEST_STRV (skele_bin),
                               args);
  va_end (args);
}

/* Parses --events json output: every line must be one JSON object. */
static GPtrArray *
parse_events (const char *out)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  guint n = g_strv_length (lines);

  g_assert_cmpuint (n, >=, 2);
  g_assert_cmpstr (lines[n - 1], ==, "");

  for (guint i = 0; i + 1 < n; i++)
    {
      JsonObject *event = sk_test_parse_object (lines[i]);

      g_assert_nonnull (json_object_get_string_member (event, "event"));
      g_ptr_array_add (events, event);
    }

  return events;
}

static JsonObject *
find_event (GPtrArray  *events,
            const char *name)
{
  JsonObject *found = NULL;

  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);

      if (g_str_equal (json_object_get_string_member (event, "event"), name))
        {
          g_assert_null (found);
          found = event;
        }
    }

  g_assert_nonnull (found);
  return found;
}

/* The node @key of @folder's process.json, as skele left it. */
static JsonObject *
read_node (const char *folder,
           const char *key)
{
  g_autofree char *text = sk_test_read_text (folder, "process.json");
  g_autoptr(JsonObject) root = NULL;
  JsonObject *nodes;
  GList *members;
  JsonObject *found = NULL;

  g_assert_nonnull (text);
  root = sk_test_parse_object (text);
  nodes = json_object_get_object_member (root, "nodes");
  members = json_object_get_members (nodes);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonObject *candidate = json_object_get_object_member (nodes, l->data);

      if (g_str_equal (json_object_get_string_member (candidate, "name"), key))
        found = json_object_ref (candidate);
    }
  g_list_free (members);

  g_assert_nonnull (found);
  return found;
}

static char *
output_text (const char *folder,
             const char *key)
{
  g_autoptr(JsonObject) node = read_node (folder, key);
  JsonObject *output;

  if (!json_object_has_member (node, "output"))
    return g_strdup ("");

  output = json_object_get_object_member (node, "output");
  return g_strdup (json_object_get_string_member_with_default (output, "text", ""));
}

/* Tests ------------------------------------------------------------------- */

static void
test_gate_wait (void)
{
  g_autofree char *dir = make_gate_workflow ();
  g_autofree char *approve_line = NULL;
  g_autofree char *run_line = NULL;
  g_auto(SkTestResult) result = { 0 };

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 3);
  g_assert_cmpstr (result.out, ==, "");
  sk_test_assert_contains (result.err, "“gate” waits for approval");
  approve_line = g_strdup_printf ("skele approve %s gate [--deny] [--note TEXT]", dir);
  run_line = g_strdup_printf ("skele run %s\n", dir);
  sk_test_assert_contains (result.err, approve_line);
  sk_test_assert_contains (result.err, run_line);
  assert_runs (dir, "prepare");
  g_assert_false (sk_test_exists (dir, "publish/publish.pkl"));

  /* Running again without a decision stops at the same gate. */
  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 3);
  assert_runs (dir, "");

  sk_test_remove_tree (dir);
}

static void
test_gate_approve (void)
{
  g_autofree char *dir = make_gate_workflow ();
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) approval = NULL;
  g_autoptr(JsonObject) record = NULL;
  g_auto(SkTestResult) result = { 0 };

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 3);
  assert_runs (dir, "prepare");
  text = sk_test_read_text (dir, "gate/.skele/record.json");
  record = sk_test_parse_object (text);
  g_clear_pointer (&text, g_free);

  run_skele (&result, "approve", dir, "gate", "--note", "the totals look right", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "Approved by ");
  sk_test_assert_contains (result.err, "the totals look right");

  text = sk_test_read_text (dir, "gate/.skele/approval.json");
  g_assert_nonnull (text);
  approval = sk_test_parse_object (text);
  g_assert_cmpstr (json_object_get_string_member (approval, "decision"), ==, "approved");
  g_assert_cmpstr (json_object_get_string_member (approval, "note"), ==, "the totals look right");
  g_assert_cmpstr (json_object_get_string_member (approval, "fingerprint"), ==,
                   json_object_get_string_member (record, "fingerprint"));
  g_assert_cmpstr (json_object_get_string_member (approval, "by"), !=, "");
  g_assert_nonnull (json_object_get_string_member (approval, "at"));

  /* The run goes on from the gate. */
  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "2 succeeded, 0 failed");
  assert_runs (dir, "gate publish");
  g_assert_true (sk_test_exists (dir, "publish/publish.pkl"));

  sk_test_remove_tree (dir);
}

static void
test_gate_deny (void)
{
  g_autofree char *dir = make_gate_workflow ();
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) approval = NULL;
  g_auto(SkTestResult) result = { 0 };

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 3);
  assert_runs (dir, "prepare");

  run_skele (&result, "approve", dir, "gate", "--deny", "--note", "not this month", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "Denied by ");
  text = sk_test_read_text (dir, "gate/.skele/approval.json");
  approval = sk_test_parse_object (text);
  g_assert_cmpstr (json_object_get_string_member (approval, "decision"), ==, "denied");

  /* A denied gate is skipped, which is not a failure. */
  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "Denied by ");
  assert_runs (dir, "");
  g_assert_false (sk_test_exists (dir, "gate/gate.pkl"));
  g_assert_false (sk_test_exists (dir, "publish/publish.pkl"));

  /* A denial can be taken back while the gate's inputs are the same:
   * approving it then runs the gate and what needs it. */
  run_skele (&result, "approve", dir, "gate", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "Approved by ");
  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 0);
  assert_runs (dir, "gate publish");

  sk_test_remove_tree (dir);
}

static void
test_approve_errors (void)
{
  g_autofree char *dir = make_gate_workflow ();
  g_autofree char *missing = NULL;
  g_auto(SkTestResult) result = { 0 };

  /* No run waits at the gate yet. */
  run_skele (&result, "approve", dir, "gate", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "No run is waiting at “gate”");
  g_assert_false (sk_test_exists (dir, "gate/.skele/approval.json"));

  run_skele (&result, "approve", dir, "nowhere", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“nowhere”");

  run_skele (&result, "approve", dir, "prepare", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“prepare” is not an approval gate");
  g_assert_false (sk_test_exists (dir, "prepare/.skele/approval.json"));

  run_skele (&result, "approve", dir, NULL);
  sk_test_assert_status (&result, 2);

  /* Once the run went past the gate, nothing waits there any more. */
  run_skele (&result, "run", dir, "--approve", "gate", NULL);
  sk_test_assert_status (&result, 0);
  run_skele (&result, "approve", dir, "gate", "--deny", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "No run is waiting at “gate”");

  missing = g_build_filename (dir, "no such workflow", NULL);
  run_skele (&result, "approve", missing, "gate", NULL);
  sk_test_assert_status (&result, 2);
  assert_runs (dir, "gate prepare publish");

  sk_test_remove_tree (dir);
}

static void
test_run_approve (void)
{
  g_autofree char *dir = make_gate_workflow ();
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) approval = NULL;
  g_auto(SkTestResult) result = { 0 };

  run_skele (&result, "run", dir, "--approve", "gate", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "3 succeeded, 0 failed");
  assert_runs (dir, "gate prepare publish");
  text = sk_test_read_text (dir, "gate/.skele/approval.json");
  g_assert_nonnull (text);
  approval = sk_test_parse_object (text);
  g_assert_cmpstr (json_object_get_string_member (approval, "decision"), ==, "approved");

  sk_test_remove_tree (dir);
}

static void
test_run_approve_invalid (void)
{
  g_autofree char *dir = make_gate_workflow ();
  g_auto(SkTestResult) result = { 0 };

  run_skele (&result, "run", dir, "--approve", "prepare", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“prepare”, which is not an approval gate");

  run_skele (&result, "run", dir, "--approve", "gate", "--approve", "nowhere", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“nowhere”");

  /* Nothing ran. */
  assert_runs (dir, "");
  g_assert_false (sk_test_exists (dir, "gate/.skele/approval.json"));

  sk_test_remove_tree (dir);
}

static void
test_events (void)
{
  g_autofree char *dir = make_gate_workflow ();
  g_autoptr(GPtrArray) events = NULL;
  g_auto(SkTestResult) result = { 0 };
  JsonObject *waiting;
  JsonObject *finished;
  JsonArray *approve;

  run_skele (&result, "run", dir, "--events", "json", NULL);
  sk_test_assert_status (&result, 3);
  events = parse_events (result.out);

  waiting = find_event (events, "waiting");
  g_assert_cmpstr (json_object_get_string_member (waiting, "reason"), ==, "approval");
  g_assert_cmpstr (json_object_get_string_member (waiting, "id"), ==, "2");
  g_assert_cmpstr (json_object_get_string_member (waiting, "key"), ==, "gate");
  g_assert_cmpstr (json_object_get_string_member (waiting, "name"), ==, "gate");
  approve = json_object_get_array_member (waiting, "approve");
  g_assert_cmpuint (json_array_get_length (approve), ==, 4);
  g_assert_cmpstr (json_array_get_string_element (approve, 0), ==, "skele");
  g_assert_cmpstr (json_array_get_string_element (approve, 1), ==, "approve");
  g_assert_cmpstr (json_array_get_string_element (approve, 2), ==, dir);
  g_assert_cmpstr (json_array_get_string_element (approve, 3), ==, "gate");

  finished = find_event (events, "finished");
  g_assert_true (g_ptr_array_index (events, events->len - 1) == finished);
  g_assert_cmpint (json_object_get_int_member (finished, "succeeded"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (finished, "failed"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (finished, "awaiting_approval"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (finished, "held"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (finished, "exit_status"), ==, 3);
  assert_runs (dir, "prepare");

  sk_test_remove_tree (dir);
}

/* A run in the in-memory mode that stops at a gate keeps the outputs
 * before it, so that an isolated run goes on from the gate. */
static void
test_in_memory_then_isolated (void)
{
  g_autofree char *dir = make_gate_workflow ();
  g_auto(SkTestResult) result = { 0 };

  run_skele (&result, "run", dir, "--in-memory", NULL);
  sk_test_assert_status (&result, 3);
  assert_runs (dir, "prepare");

  run_skele (&result, "approve", dir, "gate", NULL);
  sk_test_assert_status (&result, 0);

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "1 up to date");
  assert_runs (dir, "gate publish");

  sk_test_remove_tree (dir);
}

/* A branch not taken is no failure; a condition that raises is. */
static void
test_conditions_status (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli-flow");
  g_autofree char *text = NULL;
  g_auto(SkTestResult) result = { 0 };

  write_process (dir,
                 "1 score\n"
                 "2 high 1 | {\"when\": {\"1\": \"output['value'] == 'score'\"}}\n"
                 "3 low 1 | {\"when\": {\"1\": \"default\"}}");
  write_scripts (dir, "score high low");

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "2 succeeded, 0 failed, 1 skipped");
  assert_runs (dir, "high score");

  write_process (dir,
                 "1 score\n"
                 "2 high 1 | {\"when\": {\"1\": \"output['x'] > 1\"}}\n"
                 "3 low 1 | {\"when\": {\"1\": \"default\"}}");
  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 1);
  assert_runs (dir, "low");
  text = output_text (dir, "high");
  sk_test_assert_contains (text, "Failed: The condition output['x'] > 1 on the connection from "
                                 "“score” could not be evaluated: KeyError: 'x'");

  sk_test_remove_tree (dir);
}

/* A condition that is not Python is a problem of the workflow: validate
 * names it, and run refuses to start rather than fail at the condition. */
static void
test_condition_syntax (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli-flow");
  g_auto(SkTestResult) result = { 0 };

  write_process (dir,
                 "1 score\n"
                 "2 high 1 | {\"when\": {\"1\": \"output['value'] ==\"}}\n"
                 "3 low 1 | {\"when\": {\"1\": \"default\"}}");
  write_scripts (dir, "score high low");

  run_skele (&result, "validate", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "The condition from “score” to “high” is not Python: "
                                       "invalid syntax.");

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "is not Python");
  assert_runs (dir, "");

  sk_test_remove_tree (dir);
}

/* A sub-workflow folder that is a link back to the workflow itself, or to
 * one that holds it, would run itself forever: validation refuses it, and
 * so does run, before anything starts. */
static void
test_subworkflow_cycle (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli-flow");
  g_autofree char *link = g_build_filename (dir, "again", NULL);
  g_autofree char *deeper = g_build_filename (dir, "inner", NULL);
  g_autofree char *up = g_build_filename (dir, "inner", "up", NULL);
  g_auto(SkTestResult) result = { 0 };

  write_process (dir,
                 "1 start\n"
                 "2 loop 1 | {\"workflow\": \"again\"}");
  write_scripts (dir, "start");
  g_assert_cmpint (symlink (".", link), ==, 0);

  run_skele (&result, "validate", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“again” leads back to this workflow");

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“again” leads back to this workflow");
  assert_runs (dir, "");

  /* Two levels: the inner workflow's sub-workflow leads back up. */
  g_unlink (link);
  write_process (dir,
                 "1 start\n"
                 "2 loop 1 | {\"workflow\": \"inner\"}");
  write_process (deeper, "1 round | {\"workflow\": \"up\"}");
  g_assert_cmpint (symlink ("..", up), ==, 0);

  run_skele (&result, "validate", deeper, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“up” leads back to this workflow");

  /* The outer workflow is sound; its step fails, once, saying why. */
  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, "“up” leads back to this workflow");
  g_assert_null (strstr (result.err, "failed: “loop” in the workflow"));

  sk_test_remove_tree (dir);
}

static void
test_failed_text (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli-flow");
  g_autofree char *text = NULL;
  g_autofree char *good = NULL;
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 good\n2 bad");
  write_script (dir, "good", NULL, NULL);
  write_script (dir, "bad", NULL,
                "    report(\"dividing the totals\")\n"
                "    state[\"output\"] = {\"task_status\": \"success\", \"value\": 1 / 0}");

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 1);

  text = output_text (dir, "bad");
  sk_test_assert_contains (text, "dividing the totals\n"
                                 "Failed: ZeroDivisionError: division by zero in compute()");
  good = output_text (dir, "good");
  sk_test_assert_contains (good, "done good");
  g_assert_null (strstr (good, "Failed:"));

  sk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *python3 = g_find_program_in_path ("python3");
  int status;

  g_test_init (&argc, &argv, NULL);

  skele_bin = g_getenv ("SKELE_BIN");
  if (skele_bin == NULL || python3 == NULL)
    {
      g_test_skip ("SKELE_BIN is not set or python3 is not installed");
      return g_test_run ();
    }
  python_path = sk_test_find_python ();

  g_test_add_func ("/cli-flow/gate/wait", test_gate_wait);
  g_test_add_func ("/cli-flow/run/condition-syntax", test_condition_syntax);
  g_test_add_func ("/cli-flow/run/subworkflow-cycle", test_subworkflow_cycle);
  g_test_add_func ("/cli-flow/gate/approve", test_gate_approve);
  g_test_add_func ("/cli-flow/gate/deny", test_gate_deny);
  g_test_add_func ("/cli-flow/gate/in-memory-then-isolated", test_in_memory_then_isolated);
  g_test_add_func ("/cli-flow/approve/errors", test_approve_errors);
  g_test_add_func ("/cli-flow/run/approve", test_run_approve);
  g_test_add_func ("/cli-flow/run/approve-invalid", test_run_approve_invalid);
  g_test_add_func ("/cli-flow/run/events", test_events);
  g_test_add_func ("/cli-flow/run/conditions", test_conditions_status);
  g_test_add_func ("/cli-flow/run/failed-text", test_failed_text);

  status = g_test_run ();
  g_free (python_path);
  return status;
}
