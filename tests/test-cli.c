/* test-cli.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the real `skele` program on temporary workflows.
 */

#define G_LOG_DOMAIN "test-cli"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sk-project.h"
#include "sk-test-util.h"

/* The absolute path of `python3` from PATH, given to skele through
 * SKELE_PYTHON: a pyenv shim costs most of a second at every start.
 */
static char *python_path;
static const char *skele_bin;

/* The steps' scripts are SK_TEST_SCRIPT_TEMPLATE; unless a test says
 * otherwise, a step gives its key as its value. */
#define DEFAULT_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": KEY}\n" \
  "    report(\"done \" + KEY)"

/* Helpers ----------------------------------------------------------------- */

static void
write_script (const char *folder,
              const char *key,
              const char *pre,
              const char *compute)
{
  sk_test_write_script (folder, SK_TEST_SCRIPT_TEMPLATE, key, pre,
                        compute != NULL ? compute : DEFAULT_COMPUTE);
}

/* Writes process.json with the nodes in @spec, one "ID NAME [PRIOR…]" per
 * line; every node is marked to run and its key is its name.
 */
static void
write_process (const char *folder,
               const char *spec)
{
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  g_autoptr(SkProject) project = sk_project_new (file);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = g_strsplit (spec, "\n", -1);

  sk_project_set_name (project, "cli test");
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) words = g_strsplit (lines[i], " ", -1);
      g_autoptr(SkNode) node = NULL;

      if (g_strv_length (words) < 2)
        continue;

      node = sk_node_new (words[0], words[1]);
      sk_node_set_priors (node, (const char * const *) words + 2);
      sk_node_set_input_text (node, words[1]);
      sk_project_add_node (project, node, &error);
      g_assert_no_error (error);
    }

  sk_project_save (project, &error);
  g_assert_no_error (error);
}

static void
assert_runs (const char *folder,
             const char *expected)
{
  g_autofree char *runs = sk_test_take_runs (folder);

  g_assert_cmpstr (runs, ==, expected);
}

static GSubprocessLauncher *
new_launcher (GSubprocessFlags flags,
              gboolean         fast_python)
{
  /* skele's messages are checked in their untranslated UTF-8 form. */
  GSubprocessLauncher *launcher = sk_test_new_launcher (flags, SK_TEST_RUN_DEFAULT);

  if (fast_python)
    g_subprocess_launcher_setenv (launcher, "SKELE_PYTHON", python_path, TRUE);
  else
    g_subprocess_launcher_unsetenv (launcher, "SKELE_PYTHON");

  return launcher;
}

static void
setenv_pairs (GSubprocessLauncher *launcher,
              const char * const  *env)
{
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (env[i], "=", 2);

      g_subprocess_launcher_setenv (launcher, pair[0], pair[1], TRUE);
    }
}

/* Runs skele with the arguments in @args up to NULL, and the
 * environment variables in @env, each written NAME=VALUE.
 */
static void
run_skele_full (SkTestResult       *result,
                gboolean            fast_python,
                const char * const *env,
                va_list             args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;

  launcher = new_launcher (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                           fast_python);
  setenv_pairs (launcher, env);
  sk_test_run_launcher_valist (result, launcher, SK_TEST_RUN_DEFAULT, SK_TEST_STRV (skele_bin),
                               args);
}

static void
run_skele (SkTestResult *result,
           ...)
{
  va_list args;

  va_start (args, result);
  run_skele_full (result, TRUE, NULL, args);
  va_end (args);
}

static void
run_skele_default_python (SkTestResult *result,
                          ...)
{
  va_list args;

  va_start (args, result);
  run_skele_full (result, FALSE, NULL, args);
  va_end (args);
}

static void
run_skele_env (SkTestResult       *result,
               const char * const *env,
               ...)
{
  va_list args;

  va_start (args, env);
  run_skele_full (result, TRUE, env, args);
  va_end (args);
}

/* Runs skele without SKELE_PYTHON, so that the settings choose. */
static void
run_skele_settings (SkTestResult       *result,
                    const char * const *env,
                    ...)
{
  va_list args;

  va_start (args, env);
  run_skele_full (result, FALSE, env, args);
  va_end (args);
}

/* Parses --events json output: every line must be one JSON object. */
static GPtrArray *
parse_events (const char *out)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  guint n = g_strv_length (lines);

  /* The output ends with a newline, so the last piece is empty. */
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

/* The states that the events gave @key, separated by spaces. */
static char *
event_states (GPtrArray  *events,
              const char *key)
{
  GString *states = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);

      if (!g_str_equal (json_object_get_string_member (event, "event"), "state") ||
          g_strcmp0 (json_object_get_string_member (event, "key"), key) != 0)
        continue;

      if (states->len > 0)
        g_string_append_c (states, ' ');
      g_string_append (states, json_object_get_string_member (event, "state"));
    }

  return g_string_free (states, FALSE);
}

static void
assert_finished (GPtrArray *events,
                 gint64     succeeded,
                 gint64     failed,
                 gint64     skipped,
                 gint64     up_to_date,
                 gint64     cancelled,
                 gint64     status)
{
  JsonObject *last = g_ptr_array_index (events, events->len - 1);
  gboolean seen_processes = FALSE;

  g_assert_cmpstr (json_object_get_string_member (last, "event"), ==, "finished");
  g_assert_cmpint (json_object_get_int_member (last, "succeeded"), ==, succeeded);
  g_assert_cmpint (json_object_get_int_member (last, "failed"), ==, failed);
  g_assert_cmpint (json_object_get_int_member (last, "skipped"), ==, skipped);
  g_assert_cmpint (json_object_get_int_member (last, "up_to_date"), ==, up_to_date);
  g_assert_cmpint (json_object_get_int_member (last, "cancelled"), ==, cancelled);
  g_assert_cmpint (json_object_get_int_member (last, "exit_status"), ==, status);
  g_assert_true (json_object_has_member (last, "seconds"));

  /* Only the last event says the run finished; before it, steps change
   * state, and the first step in a process of its own tells how the steps
   * get theirs, once. */
  for (guint i = 0; i + 1 < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);
      const char *kind = json_object_get_string_member (event, "event");

      if (g_str_equal (kind, "processes"))
        {
          g_assert_false (seen_processes);
          seen_processes = TRUE;
          /* Where the sandbox cannot be narrowed per step, the reason is told. */
          if (!g_str_equal (json_object_get_string_member (event, "mode"), "fork-server"))
            {
              g_assert_cmpstr (json_object_get_string_member (event, "mode"), ==, "spawn");
              g_assert_true (json_object_has_member (event, "reason"));
            }
          continue;
        }
      g_assert_cmpstr (kind, ==, "state");
    }
}

/* Tests ------------------------------------------------------------------- */

static void
test_run_success (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 first\n2 second 1");
  write_script (dir, "first", NULL, NULL);
  write_script (dir, "second", NULL, NULL);

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 0);

  /* Progress goes to stderr only. */
  g_assert_cmpstr (result.out, ==, "");
  sk_test_assert_contains (result.err, "Running 2 steps of “cli test”");
  sk_test_assert_contains (result.err, "Running “first”");
  sk_test_assert_contains (result.err, "“second” succeeded");
  sk_test_assert_contains (result.err, "done second");
  sk_test_assert_contains (result.err, "2 succeeded, 0 failed");
  assert_runs (dir, "first second");
  g_assert_true (sk_test_exists (dir, "second/second.pkl"));

  sk_test_remove_tree (dir);
}

static void
test_run_failure (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 good\n2 bad\n3 after 2");
  write_script (dir, "good", NULL, NULL);
  write_script (dir, "bad", NULL, "    raise ZeroDivisionError(\"no sales in March\")");
  write_script (dir, "after", NULL, NULL);

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 1);
  g_assert_cmpstr (result.out, ==, "");
  sk_test_assert_contains (result.err, "“bad” failed");
  sk_test_assert_contains (result.err, "no sales in March");
  sk_test_assert_contains (result.err, "Traceback");
  sk_test_assert_contains (result.err, "bad/.skele/");
  sk_test_assert_contains (result.err, "2 succeeded, 1 failed");
  assert_runs (dir, "after bad good");

  sk_test_remove_tree (dir);
}

/* A step whose script is only blank lines has no code yet, which is not a
 * failure of the step but still not a finished run; the step that needs it
 * waits. */
static void
test_run_no_code (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autofree char *folder = g_build_filename (dir, "first", NULL);
  g_auto(SkTestResult) result = { 0 };
  g_autoptr(GPtrArray) events = NULL;

  write_process (dir, "1 first\n2 second 1");
  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  sk_test_write_text (dir, "first/first.py", "   \n\n\t\n");
  write_script (dir, "second", NULL, NULL);

  run_skele (&result, "run", dir, "--events", "json", NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, "? “first”: This step has no code yet");
  sk_test_assert_contains (result.err, "– “second”: Not run: it needs “first”, which has no code yet.");
  sk_test_assert_contains (result.err, "1 without code, 1 waiting for code");
  events = parse_events (result.out);
  assert_finished (events, 0, 0, 0, 0, 0, 1);
  assert_runs (dir, "");
  /* The blank script is left as the user wrote it. */
  g_assert_true (sk_test_exists (dir, "first/first.py"));

  sk_test_remove_tree (dir);
}

static void
test_run_invalid_json (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_text (dir, "process.json",
                      "{\n"
                      "  \"process_name\": \"broken\",\n"
                      "  \"nodes\": {\n"
                      "    \"1\": {\"name\": \"a\" \"priors\": []}\n"
                      "  }\n"
                      "}\n");

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "not valid JSON");
  sk_test_assert_contains (result.err, "line 4");
  sk_test_assert_contains (result.err, "column");
  g_assert_cmpstr (result.out, ==, "");

  run_skele (&result, "validate", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "line 4");

  sk_test_remove_tree (dir);
}

static void
test_run_cycle (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 alpha 3\n2 beta 1\n3 gamma 2\n4 free");
  write_script (dir, "alpha", NULL, NULL);
  write_script (dir, "beta", NULL, NULL);
  write_script (dir, "gamma", NULL, NULL);
  write_script (dir, "free", NULL, NULL);

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "circle");
  sk_test_assert_contains (result.err, "alpha");
  sk_test_assert_contains (result.err, "beta");
  sk_test_assert_contains (result.err, "gamma");
  sk_test_assert_contains (result.err, "was not run");
  assert_runs (dir, "");

  run_skele (&result, "validate", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "circle");

  sk_test_remove_tree (dir);
}

static void
test_run_missing_folder (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autofree char *missing = g_build_filename (dir, "no such workflow", NULL);
  g_auto(SkTestResult) result = { 0 };

  run_skele (&result, "run", missing, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "no such workflow");

  /* A folder without process.json is no workflow either. */
  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 2);

  run_skele (&result, "validate", missing, NULL);
  sk_test_assert_status (&result, 2);

  sk_test_remove_tree (dir);
}

static void
test_run_unknown_key (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 first");
  write_script (dir, "first", NULL, NULL);

  run_skele (&result, "run", dir, "--only", "first", "--only", "nowhere", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "nowhere");

  run_skele (&result, "run", dir, "--from", "nowhere", NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "run", dir, "--to", "nowhere", NULL);
  sk_test_assert_status (&result, 2);
  assert_runs (dir, "");

  sk_test_remove_tree (dir);
}

static void
test_bad_options (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 first");
  write_script (dir, "first", NULL, NULL);

  run_skele (&result, "run", dir, "--no-such-option", NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "run", dir, "--jobs", "many", NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "run", dir, "--jobs", "-1", NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "run", dir, "--timeout", "-5", NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "run", dir, "--events", "xml", NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "run", NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "run", dir, dir, NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "frobnicate", dir, NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, "validate", dir, "--no-such-option", NULL);
  sk_test_assert_status (&result, 2);
  run_skele (&result, NULL);
  sk_test_assert_status (&result, 2);
  assert_runs (dir, "");

  run_skele (&result, "--help", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "run FOLDER");
  run_skele (&result, "--version", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "skele ");

  sk_test_remove_tree (dir);
}

static void
test_interrupt (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) stderr_lines = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) err = g_string_new (NULL);
  g_autofree char *started_note = sk_test_note_path (dir, "sleeper", "sleeper.started");
  char *line;

  write_process (dir, "1 sleeper\n2 after 1");
  write_script (dir, "sleeper", NULL, SK_TEST_HANG);
  write_script (dir, "after", NULL, NULL);

  launcher = new_launcher (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                           TRUE);
  process = g_subprocess_launcher_spawn (launcher, &error, skele_bin, "run", dir, NULL);
  g_assert_no_error (error);
  stderr_lines = g_data_input_stream_new (g_subprocess_get_stderr_pipe (process));

  while ((line = g_data_input_stream_read_line_utf8 (stderr_lines, NULL, NULL, &error)) != NULL)
    {
      gboolean started = strstr (line, "Running “sleeper”") != NULL;

      g_string_append_printf (err, "%s\n", line);
      g_free (line);
      if (started)
        break;
    }
  g_assert_no_error (error);
  sk_test_assert_contains (err->str, "Running “sleeper”");

  /* Wait until the script sleeps, so that there is a process to stop. */
  for (guint i = 0; i < 500 && !g_file_test (started_note, G_FILE_TEST_EXISTS); i++)
    g_usleep (10 * G_TIME_SPAN_MILLISECOND);
  g_assert_true (g_file_test (started_note, G_FILE_TEST_EXISTS));

  g_subprocess_send_signal (process, SIGINT);

  while ((line = g_data_input_stream_read_line_utf8 (stderr_lines, NULL, NULL, &error)) != NULL)
    {
      g_string_append_printf (err, "%s\n", line);
      g_free (line);
    }
  g_assert_no_error (error);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);

  if (sk_test_exit_status (process) != 130)
    g_error ("skele exited with %d instead of 130:\n%s", sk_test_exit_status (process), err->str);
  sk_test_assert_contains (err->str, "Stopping the run");
  sk_test_assert_contains (err->str, "“sleeper” was stopped");
  sk_test_assert_contains (err->str, "“after” was stopped");
  g_assert_true (sk_test_processes_gone_in (dir));
  assert_runs (dir, "sleeper");

  sk_test_remove_tree (dir);
}

static void
test_validate (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autofree char *file = NULL;
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 first\n2 second 1\n3 third 2");
  write_script (dir, "first", NULL, NULL);
  write_script (dir, "second", NULL, NULL);

  /* A step without a script yet is a warning: the agent writes it. */
  run_skele (&result, "validate", dir, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "valid");
  sk_test_assert_contains (result.err, "third");

  file = g_build_filename (dir, "process.json", NULL);
  run_skele (&result, "validate", file, NULL);
  sk_test_assert_status (&result, 0);

  /* Nothing ran. */
  assert_runs (dir, "");
  g_assert_false (sk_test_exists (dir, "first/.skele"));

  write_process (dir, "1 first\n2 second 1 9\n3 First");
  run_skele (&result, "validate", dir, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“9”");
  sk_test_assert_contains (result.err, "error:");

  sk_test_remove_tree (dir);
}

static void
test_events (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *states = NULL;
  g_auto(SkTestResult) result = { 0 };
  JsonObject *event = NULL;
  JsonArray *files;

  write_process (dir, "1 maker\n2 branch 1\n3 broken 1\n4 after 3");
  write_script (dir, "maker", NULL,
                "    with open(os.path.join(FOLDER, \"table.csv\"), \"w\") as f:\n"
                "        f.write(\"x\\n\")\n"
                DEFAULT_COMPUTE);
  write_script (dir, "branch", "    return False", NULL);
  write_script (dir, "broken", NULL, "    raise ValueError(\"bad \\\"quoted\\\" value\")");
  write_script (dir, "after", NULL, NULL);

  run_skele (&result, "run", dir, "--events", "json", NULL);
  sk_test_assert_status (&result, 1);
  events = parse_events (result.out);
  assert_finished (events, 2, 1, 1, 0, 0, 1);

  states = event_states (events, "maker");
  g_assert_cmpstr (states, ==, "queued running succeeded");
  g_free (states);
  states = event_states (events, "branch");
  g_assert_cmpstr (states, ==, "queued running skipped");
  g_free (states);
  states = event_states (events, "broken");
  g_assert_cmpstr (states, ==, "queued running failed");
  g_free (states);
  states = event_states (events, "after");
  g_assert_cmpstr (states, ==, "queued running succeeded");
  g_clear_pointer (&states, g_free);

  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *candidate = g_ptr_array_index (events, i);
      const char *key = json_object_get_string_member_with_default (candidate, "key", "");
      const char *state = json_object_get_string_member_with_default (candidate, "state", "");

      if (g_str_equal (key, "maker") && g_str_equal (state, "succeeded"))
        event = candidate;
      if (g_str_equal (key, "broken") && g_str_equal (state, "failed"))
        sk_test_assert_contains (json_object_get_string_member (candidate, "error"),
                                 "bad \"quoted\" value");
    }
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "id"), ==, "1");
  g_assert_cmpstr (json_object_get_string_member (event, "name"), ==, "maker");
  g_assert_cmpstr (json_object_get_string_member (event, "output_text"), ==,
                   "task maker\ndone maker");
  files = json_object_get_array_member (event, "output_files");
  g_assert_cmpuint (json_array_get_length (files), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (files, 0), ==, "table.csv");

  /* Progress still goes to stderr. */
  sk_test_assert_contains (result.err, "Running “maker”");

  /* The second time, the steps that did not succeed run again, and so does
   * the one after the broken step, which got nothing from it; the others
   * have not changed and are up to date.
   */
  g_clear_pointer (&events, g_ptr_array_unref);
  assert_runs (dir, "after branch broken maker");
  run_skele (&result, "run", dir, "--events", "json", NULL);
  sk_test_assert_status (&result, 1);
  events = parse_events (result.out);
  assert_finished (events, 1, 1, 1, 1, 0, 1);
  states = event_states (events, "maker");
  g_assert_cmpstr (states, ==, "queued up-to-date");
  assert_runs (dir, "after branch broken");

  sk_test_remove_tree (dir);
}

static JsonObject *
find_event (GPtrArray  *events,
            const char *key,
            const char *state)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (event, "key", ""), key) == 0 &&
          g_strcmp0 (json_object_get_string_member_with_default (event, "state", ""), state) == 0)
        return event;
    }

  g_error ("No event says that “%s” %s.", key, state);
  return NULL;
}

/* Events are JSON, so neither the character set nor the decimal separator
 * of the user's locale may show in them.
 */
static void
test_events_locale (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autofree char *locales = g_build_filename (dir, "locales", NULL);
  g_autofree char *german = g_build_filename (locales, "de_DE.UTF-8", NULL);
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *locpath = g_strconcat ("LOCPATH=", locales, NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_auto(SkTestResult) result = { 0 };
  const char *ascii_env[] = { "LC_ALL=C", NULL };
  const char *german_env[] = { "LC_ALL=de_DE.UTF-8", locpath, NULL };
  const char *localedef[] = { "localedef", "-i", "de_DE", "-f", "UTF-8", german, NULL };
  JsonObject *event;
  int status;

  write_process (workflow, "1 café");
  write_script (workflow, "caf", NULL,
                "    state[\"output\"] = {\"task_status\": \"success\"}\n"
                "    report(\"prix 3 €\")");

  run_skele_env (&result, ascii_env, "run", workflow, "--events", "json", NULL);
  sk_test_assert_status (&result, 0);
  events = parse_events (result.out);
  assert_finished (events, 1, 0, 0, 0, 0, 0);
  event = find_event (events, "caf", "succeeded");
  g_assert_cmpstr (json_object_get_string_member (event, "name"), ==, "café");
  g_assert_cmpstr (json_object_get_string_member (event, "output_text"), ==,
                   "task caf\nprix 3 €");
  g_clear_pointer (&events, g_ptr_array_unref);

  /* A locale that writes 0,5 for 0.5, made for this test. */
  g_assert_cmpint (g_mkdir_with_parents (locales, 0755), ==, 0);
  if (!g_spawn_sync (NULL, (char **) localedef, NULL,
                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      sk_test_remove_tree (dir);
      g_test_skip ("localedef could not make a German locale");
      return;
    }

  run_skele_env (&result, german_env, "run", workflow, "--force", "--events", "json", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "Finished in");
  events = parse_events (result.out);
  assert_finished (events, 1, 0, 0, 0, 0, 0);
  g_assert_cmpfloat (json_object_get_double_member (g_ptr_array_index (events, events->len - 1),
                                                    "seconds"), >, 0);

  sk_test_remove_tree (dir);
}

static void
test_force_and_selection (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 a\n2 b 1\n3 c 2");
  write_script (dir, "a", NULL, NULL);
  write_script (dir, "b", NULL, NULL);
  write_script (dir, "c", NULL, NULL);

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 0);
  assert_runs (dir, "a b c");

  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "0 succeeded, 0 failed, 0 skipped, 3 up to date");
  assert_runs (dir, "");

  run_skele (&result, "run", dir, "--force", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "3 succeeded");
  assert_runs (dir, "a b c");

  run_skele (&result, "run", dir, "--force", "--only", "b", NULL);
  sk_test_assert_status (&result, 0);
  assert_runs (dir, "b");

  run_skele (&result, "run", dir, "-f", "--from", "b", NULL);
  sk_test_assert_status (&result, 0);
  assert_runs (dir, "b c");

  run_skele (&result, "run", dir, "-f", "--to", "b", NULL);
  sk_test_assert_status (&result, 0);
  assert_runs (dir, "a b");

  sk_test_remove_tree (dir);
}

static void
test_nothing_to_run (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autoptr(GPtrArray) events = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_text (dir, "process.json",
                      "{\"process_name\": \"idle\", \"nodes\": {\"1\": {\"name\": \"a\","
                      " \"priors\": [], \"run\": false,"
                      " \"input\": {\"text\": \"a\", \"files\": []}}}}");
  write_script (dir, "a", NULL, NULL);

  run_skele (&result, "run", dir, "--events", "json", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "No step is marked to run");
  events = parse_events (result.out);
  g_assert_cmpuint (events->len, ==, 1);
  assert_finished (events, 0, 0, 0, 0, 0, 0);
  assert_runs (dir, "");

  /* Asking for it by name runs it. */
  run_skele (&result, "run", dir, "--only", "a", NULL);
  sk_test_assert_status (&result, 0);
  assert_runs (dir, "a");

  sk_test_remove_tree (dir);
}

static void
test_no_python (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autofree char *python = g_build_filename (dir, "no", "python3", NULL);
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 a");
  write_script (dir, "a", NULL, NULL);

  run_skele (&result, "run", dir, "--python", python, NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, python);
  sk_test_assert_contains (result.err, "was not found");
  assert_runs (dir, "");

  sk_test_remove_tree (dir);
}

static void
test_jobs (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };
  double start_a, end_a, start_b, end_b;

  write_process (dir, "1 left\n2 right");
  write_script (dir, "left", NULL, SK_TEST_SLEEP_ONE_SECOND);
  write_script (dir, "right", NULL, SK_TEST_SLEEP_ONE_SECOND);

  run_skele (&result, "run", dir, "--jobs", "1", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_read_interval (dir, "left", &start_a, &end_a);
  sk_test_read_interval (dir, "right", &start_b, &end_b);
  g_assert_true (end_a <= start_b || end_b <= start_a);

  run_skele (&result, "run", dir, "--force", "-j", "2", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_read_interval (dir, "left", &start_a, &end_a);
  sk_test_read_interval (dir, "right", &start_b, &end_b);
  g_assert_cmpfloat (start_a, <, end_b);
  g_assert_cmpfloat (start_b, <, end_a);

  sk_test_remove_tree (dir);
}

static void
test_timeout (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 hang\n2 free");
  write_script (dir, "hang", NULL, SK_TEST_HANG);
  write_script (dir, "free", NULL, NULL);

  run_skele (&result, "run", dir, "--timeout", "1", NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, "“hang” failed");
  sk_test_assert_contains (result.err, "longer than 1 second");
  sk_test_assert_contains (result.err, "1 succeeded, 1 failed");

  g_assert_true (sk_test_exists (dir, "hang/" SK_TEST_JOURNAL "/hang.started"));
  g_assert_true (sk_test_processes_gone_in (dir));

  sk_test_remove_tree (dir);
}

/* skele reads the window's settings, and its options override them: the
 * interpreter and the time limit of Preferences apply to a run from the
 * command line. */
static void
test_settings (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autofree char *config = sk_test_make_tmp_dir ("cli-config");
  g_autofree char *missing = g_build_filename (dir, "no", "python3", NULL);
  g_autofree char *keyfile = g_strdup_printf ("[io/github/skelecode/SkeleCode]\n"
                                              "python='%s'\n"
                                              "timeout=1\n"
                                              "jobs=1\n", missing);
  const char *env[] = { "GSETTINGS_BACKEND=keyfile", NULL, NULL };
  g_autofree char *config_env = g_strconcat ("XDG_CONFIG_HOME=", config, NULL);
  g_auto(SkTestResult) result = { 0 };

  env[1] = config_env;
  write_process (dir, "1 hang\n2 free");
  write_script (dir, "hang", NULL, SK_TEST_HANG);
  write_script (dir, "free", NULL, NULL);
  sk_test_write_text (config, "glib-2.0/settings/keyfile", keyfile);

  run_skele_settings (&result, env, "run", dir, NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, missing);
  sk_test_assert_contains (result.err, "was not found");
  assert_runs (dir, "");

  run_skele_settings (&result, env, "run", dir, "--python", python_path, NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, "longer than 1 second");
  sk_test_assert_contains (result.err, "1 succeeded, 1 failed");

  run_skele_settings (&result, env, "run", dir, "--python", python_path, "--timeout", "2", NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, "longer than 2 seconds");

  sk_test_remove_tree (config);
  sk_test_remove_tree (dir);
}

static void
test_in_memory (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autoptr(GPtrArray) events = NULL;
  g_auto(SkTestResult) result = { 0 };

  write_process (dir, "1 a\n2 b 1");
  write_script (dir, "a", NULL,
                "    state[\"output\"] = {\"task_status\": \"success\",\n"
                "                       \"twice\": lambda x: 2 * x}\n"
                "    report(\"a made a function\")");
  write_script (dir, "b", NULL,
                "    twice = state[\"local\"][\"priors\"][\"a\"][\"twice\"]\n"
                "    state[\"output\"] = {\"task_status\": \"success\"}\n"
                "    report(\"twice 21 is \" + str(twice(21)))");

  run_skele (&result, "run", dir, "--in-memory", "--events", "json", NULL);
  sk_test_assert_status (&result, 0);
  events = parse_events (result.out);
  assert_finished (events, 2, 0, 0, 0, 0, 0);
  sk_test_assert_contains (result.err, "twice 21 is 42");
  g_assert_false (sk_test_exists (dir, "a/a.pkl"));
  g_assert_false (sk_test_exists (dir, "b/b.pkl"));
  assert_runs (dir, "a b");

  /* The in-memory mode saved nothing to reuse. */
  run_skele (&result, "run", dir, "--in-memory", NULL);
  sk_test_assert_status (&result, 0);
  assert_runs (dir, "a b");

  /* Isolated, the lambda has to be pickled, which cannot work. */
  run_skele (&result, "run", dir, NULL);
  sk_test_assert_status (&result, 1);

  sk_test_remove_tree (dir);
}

static void
test_example (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli");
  g_autofree char *workflow = g_build_filename (dir, "sales-report", NULL);
  g_autofree char *source = NULL;
  g_autofree char *svg = NULL;
  g_autofree char *review = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_auto(SkTestResult) result = { 0 };
  const char *examples = g_getenv ("SKELE_EXAMPLES_DIR");

  g_assert_nonnull (examples);
  source = g_build_filename (examples, "sales-report", NULL);
  sk_test_copy_folder (source, workflow);

  /* The default interpreter, python3 from PATH, runs the example. */
  run_skele_default_python (&result, "validate", workflow, NULL);
  sk_test_assert_status (&result, 0);
  run_skele_default_python (&result, "run", workflow, NULL);
  sk_test_assert_status (&result, 0);
  /* Of "flag weak region" and "confirm balance" only the first runs: the
   * weakest region, West, has 18% of the revenue, below the 20% of its
   * condition. */
  sk_test_assert_contains (result.err, "8 succeeded, 0 failed, 1 skipped");

  svg = sk_test_read_text (workflow, "revenue_chart/revenue_chart.svg");
  g_assert_nonnull (svg);
  g_assert_true (g_str_has_prefix (svg, "<?xml") || g_str_has_prefix (svg, "<svg"));
  sk_test_assert_contains (svg, "</svg>");
  g_assert_true (sk_test_exists (workflow, "sales_report/report.md"));

  /* "region sheets" ran once for each of the four regions, and "region
   * review" received their outputs and the finding of the branch taken. */
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *item = g_strdup_printf ("region_sheets/items/%u/region_sheets.pkl", i);

      g_assert_true (sk_test_exists (workflow, item));
    }
  g_assert_false (sk_test_exists (workflow, "region_sheets/items/4"));
  g_assert_true (sk_test_exists (workflow, "region_sheets/items/3/west_sales.csv"));
  g_assert_true (sk_test_exists (workflow, "flag_weak_region/flag_weak_region.pkl"));
  g_assert_false (sk_test_exists (workflow, "confirm_balance/confirm_balance.pkl"));
  review = sk_test_read_text (workflow, "region_review/region_review.md");
  g_assert_nonnull (review);
  sk_test_assert_contains (review, "West is the weak region: it brought in 18.0% of the revenue");
  sk_test_assert_contains (review, "[west_sales.csv](../region_sheets/items/3/west_sales.csv)");

  run_skele_default_python (&result, "run", workflow, "--events", "json", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "8 up to date");
  events = parse_events (result.out);
  assert_finished (events, 0, 0, 1, 8, 0, 0);

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

  g_test_add_func ("/cli/run/success", test_run_success);
  g_test_add_func ("/cli/run/failure", test_run_failure);
  g_test_add_func ("/cli/run/no-code", test_run_no_code);
  g_test_add_func ("/cli/run/invalid-json", test_run_invalid_json);
  g_test_add_func ("/cli/run/cycle", test_run_cycle);
  g_test_add_func ("/cli/run/missing-folder", test_run_missing_folder);
  g_test_add_func ("/cli/run/unknown-key", test_run_unknown_key);
  g_test_add_func ("/cli/bad-options", test_bad_options);
  g_test_add_func ("/cli/run/interrupt", test_interrupt);
  g_test_add_func ("/cli/validate", test_validate);
  g_test_add_func ("/cli/run/events", test_events);
  g_test_add_func ("/cli/run/events-locale", test_events_locale);
  g_test_add_func ("/cli/run/force-and-selection", test_force_and_selection);
  g_test_add_func ("/cli/run/nothing-to-run", test_nothing_to_run);
  g_test_add_func ("/cli/run/no-python", test_no_python);
  g_test_add_func ("/cli/run/jobs", test_jobs);
  g_test_add_func ("/cli/run/timeout", test_timeout);
  g_test_add_func ("/cli/run/settings", test_settings);
  g_test_add_func ("/cli/run/in-memory", test_in_memory);
  g_test_add_func ("/cli/example", test_example);

  status = g_test_run ();
  g_free (python_path);
  return status;
}
