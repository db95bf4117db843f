/* sk-test-util.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sk-test-util.h"

/* Removes @path and everything below it. A link is removed, never followed. */
void
sk_test_remove_tree (const char *path)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return;

  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          sk_test_remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    {
      g_unlink (path);
    }
}

/* Makes a new folder named skele-NAME-XXXXXX in the temporary folder. */
char *
sk_test_make_tmp_dir (const char *name)
{
  g_autofree char *template_name = g_strdup_printf ("skele-%s-XXXXXX", name);
  g_autoptr(GError) error = NULL;
  char *path = g_dir_make_tmp (template_name, &error);

  g_assert_no_error (error);
  g_assert_nonnull (path);
  return path;
}

/* Writes @text to @relative below @folder, making the folders it needs. */
void
sk_test_write_text (const char *folder,
                    const char *relative,
                    const char *text)
{
  g_autofree char *path = g_build_filename (folder, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* Returns the contents of @relative below @folder, or %NULL when it cannot
 * be read, so that tests can check for files that must not be there.
 */
char *
sk_test_read_text (const char *folder,
                   const char *relative)
{
  g_autofree char *path = g_build_filename (folder, relative, NULL);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;

  return contents;
}

gboolean
sk_test_exists (const char *folder,
                const char *relative)
{
  g_autofree char *path = g_build_filename (folder, relative, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Writes KEY/KEY.py below @folder from @template_text, in which @KEY@,
 * @PRE@ and @COMPUTE@ stand for @key, @pre and @compute. A %NULL @pre adds
 * nothing to preprocess().
 */
void
sk_test_write_script (const char *folder,
                      const char *template_text,
                      const char *key,
                      const char *pre,
                      const char *compute)
{
  GString *text = g_string_new (template_text);
  g_autofree char *relative = g_strdup_printf ("%s/%s.py", key, key);

  g_string_replace (text, "@KEY@", key, 0);
  g_string_replace (text, "@PRE@", pre != NULL ? pre : "    pass", 0);
  g_string_replace (text, "@COMPUTE@", compute, 0);
  sk_test_write_text (folder, relative, text->str);
  g_string_free (text, TRUE);
}

/* Writes KEY/KEY.py below @folder from SK_TEST_SCRIPT_TEMPLATE, with
 * @compute as the body of compute() and nothing added to preprocess(). */
void
sk_test_write_step (const char *folder,
                    const char *key,
                    const char *compute)
{
  sk_test_write_script (folder, SK_TEST_SCRIPT_TEMPLATE, key, NULL, compute);
}

/* Orders an array of strings, for g_ptr_array_sort() and qsort(). */
int
sk_test_compare_strings (gconstpointer a,
                         gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The journals of every step folder below @folder that hold @name. */
static GPtrArray *
find_notes (const char *folder,
            const char *name)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *key;

  while (dir != NULL && (key = g_dir_read_name (dir)) != NULL)
    {
      char *path = sk_test_note_path (folder, key, name);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        g_ptr_array_add (paths, path);
      else
        g_free (path);
    }

  return paths;
}

/* Every test script appends its key to its journal runs.log. Returns the
 * keys written in any step folder since the last call, sorted (the order of
 * parallel steps varies) and separated by spaces.
 */
char *
sk_test_take_runs (const char *folder)
{
  g_autoptr(GPtrArray) paths = find_notes (folder, "runs.log");
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *contents = NULL;
      g_auto(GStrv) lines = NULL;

      g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
      g_unlink (path);
      lines = g_strsplit (contents, "\n", -1);
      for (guint j = 0; lines[j] != NULL; j++)
        if (lines[j][0] != '\0')
          g_ptr_array_add (keys, g_strdup (lines[j]));
    }
  g_ptr_array_sort (keys, sk_test_compare_strings);
  g_ptr_array_add (keys, NULL);

  return g_strjoinv (" ", (char **) keys->pdata);
}

/**
 * sk_test_note_path:
 * @folder: a workflow folder
 * @key: a step's key
 * @name: a journal's name, as the step gave it to note()
 *
 * Returns: (transfer full): where the journal @name of the step @key is
 */
char *
sk_test_note_path (const char *folder,
                   const char *key,
                   const char *name)
{
  return g_build_filename (folder, key, SK_TEST_JOURNAL, name, NULL);
}

/**
 * sk_test_has_note:
 * @folder: a workflow folder
 * @name: the name a step gave note()
 *
 * Returns: whether a step of @folder wrote the note @name
 */
gboolean
sk_test_has_note (const char *folder,
                  const char *name)
{
  g_autofree char *text = sk_test_read_note (folder, name);

  return text != NULL;
}

/**
 * sk_test_read_note:
 * @folder: a workflow folder
 * @name: a journal's name, as a step gave it to note()
 *
 * Returns: (transfer full) (nullable): the journal @name, found in any
 *   step folder, or %NULL when no step wrote it; several steps writing the
 *   same one are a mistake of the test
 */
char *
sk_test_read_note (const char *folder,
                   const char *name)
{
  g_autoptr(GPtrArray) paths = find_notes (folder, name);
  char *contents = NULL;

  if (paths->len == 0)
    return NULL;
  if (paths->len > 1)
    g_error ("More than one step wrote the journal “%s”.", name);

  g_assert_true (g_file_get_contents (g_ptr_array_index (paths, 0), &contents, NULL, NULL));
  return contents;
}

/* Reads "START END" from the journal KEY.times that a sleeping step wrote. */
void
sk_test_read_interval (const char *folder,
                       const char *key,
                       double     *start,
                       double     *end)
{
  g_autofree char *name = g_strconcat (key, ".times", NULL);
  g_autofree char *path = sk_test_note_path (folder, key, name);
  g_autofree char *text = NULL;
  char *rest;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  *start = g_ascii_strtod (text, &rest);
  *end = g_ascii_strtod (rest, NULL);
  g_assert_cmpfloat (*end, >, *start);
}

/**
 * sk_test_parse_json:
 * @text: JSON text, which must be valid
 *
 * Returns: (transfer full): the root of @text
 */
JsonNode *
sk_test_parse_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (json_parser_get_root (parser));

  return json_node_ref (json_parser_get_root (parser));
}

/**
 * sk_test_parse_object:
 * @text: JSON text, which must be one object
 *
 * Returns: (transfer full): the object @text holds
 */
JsonObject *
sk_test_parse_object (const char *text)
{
  g_autoptr(JsonNode) root = sk_test_parse_json (text);

  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_object_ref (json_node_get_object (root));
}

void
sk_test_assert_contains (const char *haystack,
                         const char *needle)
{
  if (haystack == NULL || strstr (haystack, needle) == NULL)
    g_error ("“%s” does not contain “%s”", haystack != NULL ? haystack : "(null)", needle);
}

/* A killed process whose parent is gone waits for init to collect it; until
 * then it is a zombie, which runs no code any more.
 */
static gboolean
is_zombie (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *contents = NULL;
  const char *end;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return FALSE;

  end = strrchr (contents, ')');
  return end != NULL && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
}

gboolean
sk_test_process_gone (pid_t pid)
{
  /* Allow the kernel a brief moment to finish off a killed process. */
  for (guint i = 0; i < 100; i++)
    {
      if ((kill (pid, 0) != 0 && errno == ESRCH) || is_zombie (pid))
        return TRUE;
      g_usleep (20 * G_TIME_SPAN_MILLISECOND);
    }

  return FALSE;
}

/* Whether @path is @folder or inside it. */
static gboolean
is_within (const char *path,
           const char *folder)
{
  gsize length = strlen (folder);

  return strncmp (path, folder, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

/* The arguments of the process @pid, or %NULL when it is gone or not ours
 * to look at.
 */
static GStrv
process_arguments (const char *pid)
{
  g_autofree char *path = g_build_filename ("/proc", pid, "cmdline", NULL);
  g_autofree char *contents = NULL;
  GPtrArray *arguments;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, NULL))
    return NULL;

  arguments = g_ptr_array_new ();
  for (gsize at = 0; at < length; at += strlen (contents + at) + 1)
    g_ptr_array_add (arguments, g_strdup (contents + at));
  g_ptr_array_add (arguments, NULL);

  return (GStrv) g_ptr_array_free (arguments, FALSE);
}

/* Lists the live processes, other than this one, that work in @folder or
 * name it among their arguments; @tag, when given, must be one of their
 * arguments too. A process in a sandbox is found as well: bubblewrap shows
 * a step its folder at the same path, so the link to its working folder
 * reads the same from outside, and its pid there is its pid here.
 */
static GArray *
find_processes (const char *folder,
                const char *tag)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  g_autofree char *real = realpath (folder, NULL);
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (pid_t));
  const char *name;

  g_assert_nonnull (proc);
  if (real == NULL)
    real = g_strdup (folder);

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *cwd_link = NULL;
      g_autofree char *cwd = NULL;
      g_auto(GStrv) arguments = NULL;
      gboolean found = FALSE;
      gboolean tagged = tag == NULL;
      char *end;
      pid_t pid = (pid_t) g_ascii_strtoll (name, &end, 10);

      if (*end != '\0' || pid <= 0 || pid == getpid () || is_zombie (pid))
        continue;

      cwd_link = g_build_filename ("/proc", name, "cwd", NULL);
      cwd = g_file_read_link (cwd_link, NULL);
      found = cwd != NULL && (is_within (cwd, folder) || is_within (cwd, real));

      arguments = process_arguments (name);
      for (guint i = 0; arguments != NULL && arguments[i] != NULL; i++)
        {
          found = found || strstr (arguments[i], folder) != NULL || strstr (arguments[i], real) != NULL;
          tagged = tagged || g_str_equal (arguments[i], tag);
        }

      if (found && tagged)
        g_array_append_val (pids, pid);
    }

  return pids;
}

/**
 * sk_test_processes_gone_in:
 * @folder: a workflow folder
 *
 * Waits up to thirty seconds for every process that works in @folder, or
 * names it among its arguments, to end: the steps' processes, whose
 * process ids the tests cannot learn from a sandboxed step, and what they
 * started with the template's sleeper(), which carries @folder in its
 * arguments wherever it goes. Those left over are listed in the test's log.
 *
 * Returns: whether none is left
 */
gboolean
sk_test_processes_gone_in (const char *folder)
{
  g_autoptr(GArray) pids = NULL;

  /* A killed process is gone in milliseconds, but a machine busy with
   * other tests may take seconds to tear down its namespaces. */
  for (guint i = 0; i < 1500; i++)
    {
      g_clear_pointer (&pids, g_array_unref);
      pids = find_processes (folder, NULL);
      if (pids->len == 0)
        return TRUE;
      g_usleep (20 * G_TIME_SPAN_MILLISECOND);
    }

  for (guint i = 0; i < pids->len; i++)
    {
      g_autofree char *pid = g_strdup_printf ("%d", (int) g_array_index (pids, pid_t, i));
      g_autofree char *stat_path = g_build_filename ("/proc", pid, "stat", NULL);
      g_autofree char *stat = NULL;
      g_auto(GStrv) arguments = process_arguments (pid);
      g_autofree char *line = arguments != NULL ? g_strjoinv (" ", arguments) : NULL;

      g_file_get_contents (stat_path, &stat, NULL, NULL);
      g_test_message ("Process %s is left in %s (%s): %.300s", pid, folder,
                      stat != NULL ? g_strstrip (stat) : "?", line != NULL ? line : "?");
    }

  return FALSE;
}

/**
 * sk_test_find_process:
 * @folder: a workflow folder
 * @tag: one of the process's arguments, as given to the template's
 *   sleeper()
 *
 * Finds a process that a step started, by its arguments, as the step
 * cannot tell its process id from inside a sandbox.
 *
 * Returns: the process's id here, or 0 when there is none
 */
pid_t
sk_test_find_process (const char *folder,
                      const char *tag)
{
  g_autoptr(GArray) pids = find_processes (folder, tag);

  return pids->len > 0 ? g_array_index (pids, pid_t, 0) : 0;
}

/* Returns the absolute path of the interpreter that `python3` from PATH
 * runs. Where `python3` is a pyenv shim, every start through the shim costs
 * most of a second; the interpreter itself starts at once.
 */
char *
sk_test_find_python (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  const char *argv[] = { "python3", "-c", "import sys; print(sys.executable)", NULL };
  char *path;
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  path = g_strdup (g_strstrip (out));
  g_assert_true (g_path_is_absolute (path));

  return path;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

/**
 * sk_test_median:
 * @values: (array length=n): measurements; they are sorted in place
 * @n: how many there are, at least one
 *
 * Returns: the median of @values
 */
double
sk_test_median (double *values,
                guint   n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/**
 * sk_test_env_uint:
 * @name: an environment variable
 * @fallback: the value when @name is unset or not a number from 1 to @max
 * @max: the largest accepted value
 *
 * Returns: the positive number @name holds, or @fallback
 */
guint
sk_test_env_uint (const char *name,
                  guint       fallback,
                  guint       max)
{
  const char *value = g_getenv (name);
  guint64 number;
  char *end;

  if (value == NULL || value[0] == '\0')
    return fallback;

  number = g_ascii_strtoull (value, &end, 10);
  if (*end != '\0' || number == 0 || number > max)
    {
      g_printerr ("Ignoring %s=%s: expected a number from 1 to %u.\n", name, value, max);
      return fallback;
    }

  return (guint) number;
}

/**
 * sk_test_timeout_cb:
 * @user_data: a #gboolean to set
 *
 * A #GSourceFunc for SK_TEST_WAIT_UNTIL() that records that time ran out.
 *
 * Returns: %G_SOURCE_REMOVE
 */
gboolean
sk_test_timeout_cb (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/**
 * sk_test_write_spec_process:
 * @folder: a workflow folder
 * @name: the workflow's name
 * @spec: the steps, one "ID NAME [PRIOR…]" per line, each optionally
 *   followed by " | " and the step's "skele" member as JSON
 *
 * Writes process.json in @folder. Every step is marked to run and its key
 * is its name.
 */
void
sk_test_write_spec_process (const char *folder,
                            const char *name,
                            const char *spec)
{
  sk_test_write_spec_process_full (folder, name, spec, FALSE);
}

/**
 * sk_test_write_spec_process_full:
 * @folder: a workflow folder
 * @name: the workflow's name
 * @spec: as for sk_test_write_spec_process()
 * @with_tasks: whether each step's task ("input.text") is its name
 *
 * Writes process.json in @folder, as sk_test_write_spec_process() does.
 */
void
sk_test_write_spec_process_full (const char *folder,
                                 const char *name,
                                 const char *spec,
                                 gboolean    with_tasks)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = g_strsplit (spec, "\n", -1);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "process_name");
  json_builder_add_string_value (builder, name);
  json_builder_set_member_name (builder, "nodes");
  json_builder_begin_object (builder);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (lines[i], " | ", 2);
      g_auto(GStrv) words = NULL;

      if (parts[0] == NULL || parts[0][0] == '\0')
        continue;

      words = g_strsplit (parts[0], " ", -1);
      json_builder_set_member_name (builder, words[0]);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, words[1]);
      json_builder_set_member_name (builder, "priors");
      json_builder_begin_array (builder);
      for (guint j = 2; words[j] != NULL; j++)
        json_builder_add_string_value (builder, words[j]);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "run");
      json_builder_add_boolean_value (builder, TRUE);
      if (with_tasks)
        {
          json_builder_set_member_name (builder, "input");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "text");
          json_builder_add_string_value (builder, words[1]);
          json_builder_end_object (builder);
        }
      if (parts[1] != NULL)
        {
          json_builder_set_member_name (builder, "skele");
          json_builder_add_value (builder, sk_test_parse_json (parts[1]));
        }
      json_builder_end_object (builder);
    }

  json_builder_end_object (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  text = json_to_string (root, TRUE);
  sk_test_write_text (folder, "process.json", text);
}

/**
 * sk_test_need_skele:
 * @skele_bin: (out) (optional): where to keep $SKELE_BIN, the
 *   command-line program
 * @examples_dir: (out) (optional): where to keep $SKELE_EXAMPLES_DIR, the
 *   examples
 *
 * Reads what meson test tells the tests that run skele. Without it, the
 * test is skipped.
 *
 * Returns: whether both are set
 */
gboolean
sk_test_need_skele (const char **skele_bin,
                    const char **examples_dir)
{
  const char *bin = g_getenv ("SKELE_BIN");
  const char *examples = g_getenv ("SKELE_EXAMPLES_DIR");

  if (skele_bin != NULL)
    *skele_bin = bin;
  if (examples_dir != NULL)
    *examples_dir = examples;
  if (bin != NULL && examples != NULL)
    return TRUE;

  g_test_skip ("SKELE_BIN and SKELE_EXAMPLES_DIR are not set; run the tests with meson test");
  return FALSE;
}

/**
 * sk_test_missing_tool:
 * @program: the program that is not installed
 *
 * Fails the test for want of @program, so that CI cannot pass by skipping
 * what it cannot run, or skips it with SKELE_TESTS_ALLOW_MISSING_TOOLS=1
 * in the environment, for machines where it cannot be had.
 */
void
sk_test_missing_tool (const char *program)
{
  if (g_strcmp0 (g_getenv ("SKELE_TESTS_ALLOW_MISSING_TOOLS"), "1") == 0)
    g_test_skip_printf ("%s is not installed, and SKELE_TESTS_ALLOW_MISSING_TOOLS=1", program);
  else
    g_test_fail_printf ("%s is not installed: run build-aux/install-deps.sh, or set "
                        "SKELE_TESTS_ALLOW_MISSING_TOOLS=1 to skip what needs it", program);
}

void
sk_test_result_clear (SkTestResult *result)
{
  g_clear_pointer (&result->out, g_free);
  g_clear_pointer (&result->err, g_free);
}

/**
 * sk_test_new_launcher:
 * @flags: how the program's standard streams are connected
 * @run_flags: how it runs
 *
 * Returns: (transfer full): a launcher whose programs run under a UTF-8 C
 *   locale, untranslated, so that their messages read as the tests expect
 */
GSubprocessLauncher *
sk_test_new_launcher (GSubprocessFlags flags,
                      SkTestRunFlags   run_flags)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (flags);

  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "LANGUAGE");
  if ((run_flags & SK_TEST_RUN_NO_PYTHONPATH) != 0)
    g_subprocess_launcher_unsetenv (launcher, "PYTHONPATH");

  return launcher;
}

/**
 * sk_test_exit_status:
 * @process: a process that has ended
 *
 * Returns: its exit status, or minus the signal that ended it
 */
int
sk_test_exit_status (GSubprocess *process)
{
  if (!g_subprocess_get_if_exited (process))
    return -g_subprocess_get_term_sig (process);

  return g_subprocess_get_exit_status (process);
}

/**
 * sk_test_run_launcher:
 * @result: where to keep what the program did; what it held is freed
 * @launcher: a launcher that pipes the standard output and error, as
 *   sk_test_new_launcher() makes them, with the environment and working
 *   folder the program needs
 * @run_flags: with %SK_TEST_RUN_BINARY, the output need not be UTF-8
 * @argv: the program and its arguments, %NULL-terminated
 *
 * Runs @argv to its end.
 */
void
sk_test_run_launcher (SkTestResult        *result,
                      GSubprocessLauncher *launcher,
                      SkTestRunFlags       run_flags,
                      const char * const  *argv)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;

  sk_test_result_clear (result);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  if ((run_flags & SK_TEST_RUN_BINARY) != 0)
    {
      g_autoptr(GBytes) out = NULL;
      g_autoptr(GBytes) err = NULL;

      g_subprocess_communicate (process, NULL, NULL, &out, &err, &error);
      g_assert_no_error (error);
      result->out = g_strndup (g_bytes_get_data (out, NULL), g_bytes_get_size (out));
      result->err = g_strndup (g_bytes_get_data (err, NULL), g_bytes_get_size (err));
    }
  else
    {
      g_subprocess_communicate_utf8 (process, NULL, NULL, &result->out, &result->err, &error);
      g_assert_no_error (error);
    }
  result->status = sk_test_exit_status (process);
}

/**
 * sk_test_run_launcher_valist:
 * @result: where to keep what the program did
 * @launcher: as for sk_test_run_launcher()
 * @run_flags: as for sk_test_run_launcher()
 * @prefix: the program and its first arguments, %NULL-terminated
 * @args: the arguments after @prefix, up to a %NULL
 *
 * Runs @prefix followed by @args to its end.
 */
void
sk_test_run_launcher_valist (SkTestResult        *result,
                             GSubprocessLauncher *launcher,
                             SkTestRunFlags       run_flags,
                             const char * const  *prefix,
                             va_list              args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *arg;

  for (guint i = 0; prefix[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) prefix[i]);
  for (arg = va_arg (args, const char *); arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) arg);
  g_ptr_array_add (argv, NULL);

  sk_test_run_launcher (result, launcher, run_flags, (const char * const *) argv->pdata);
}

/**
 * sk_test_run_valist:
 * @result: where to keep what the program did
 * @run_flags: how it runs
 * @cwd: (nullable): the folder to run it in, or %NULL for the test's
 * @prefix: the program and its first arguments, %NULL-terminated
 * @args: the arguments after @prefix, up to a %NULL
 *
 * Runs @prefix followed by @args to its end, from a launcher of
 * sk_test_new_launcher().
 */
void
sk_test_run_valist (SkTestResult       *result,
                    SkTestRunFlags      run_flags,
                    const char         *cwd,
                    const char * const *prefix,
                    va_list             args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;

  launcher = sk_test_new_launcher (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                   G_SUBPROCESS_FLAGS_STDERR_PIPE, run_flags);
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  sk_test_run_launcher_valist (result, launcher, run_flags, prefix, args);
}

/**
 * sk_test_run_skele:
 * @result: where to keep what skele did
 * @run_flags: how it runs
 * @...: its arguments, up to a %NULL
 *
 * Runs the command-line program that $SKELE_BIN names, as
 * sk_test_run_valist() does.
 */
void
sk_test_run_skele (SkTestResult   *result,
                   SkTestRunFlags  run_flags,
                   ...)
{
  const char *skele_bin = g_getenv ("SKELE_BIN");
  va_list args;

  g_assert_nonnull (skele_bin);
  va_start (args, run_flags);
  sk_test_run_valist (result, run_flags, NULL, SK_TEST_STRV (skele_bin), args);
  va_end (args);
}

/* A failed check shows what the program said. */
void
sk_test_assert_status (SkTestResult *result,
                       int           expected)
{
  if (result->status != expected)
    g_error ("The command exited with %d instead of %d.\nstdout:\n%s\nstderr:\n%s",
             result->status, expected, result->out, result->err);
}

/* Copies the folder @from to @to, as a person copies a workflow: every
 * file, byte for byte, and every folder below it. */
void
sk_test_copy_folder (const char *from,
                     const char *to)
{
  g_autoptr(GDir) dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0755), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *source = g_build_filename (from, name, NULL);
      g_autofree char *target = g_build_filename (to, name, NULL);

      if (g_file_test (source, G_FILE_TEST_IS_DIR))
        {
          sk_test_copy_folder (source, target);
        }
      else
        {
          g_autofree char *contents = NULL;
          gsize length = 0;
          g_autoptr(GError) error = NULL;

          g_file_get_contents (source, &contents, &length, &error);
          g_assert_no_error (error);
          g_file_set_contents (target, contents, length, &error);
          g_assert_no_error (error);
        }
    }
}

static GBytes *
read_bytes (const char *folder,
            const char *relative)
{
  g_autofree char *path = g_build_filename (folder, relative, NULL);
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GError) error = NULL;

  mapped = g_mapped_file_new (path, FALSE, &error);
  if (mapped == NULL)
    g_error ("%s cannot be read: %s", path, error->message);
  return g_mapped_file_get_bytes (mapped);
}

/* Asserts that @relative holds the same bytes below @expected_folder and
 * below @actual_folder; both must be there. */
void
sk_test_assert_same_file (const char *expected_folder,
                          const char *actual_folder,
                          const char *relative)
{
  g_autoptr(GBytes) expected = read_bytes (expected_folder, relative);
  g_autoptr(GBytes) actual = read_bytes (actual_folder, relative);

  if (!g_bytes_equal (expected, actual))
    g_error ("%s differs between %s and %s.", relative, expected_folder, actual_folder);
}

/* The files of a workflow and of its exports that no step makes. */
static const char * const workflow_files[] = {
  "process.json", "plan.json", "workflow.json", "Snakefile", "config.yaml", "LOSSES.md",
  "README.md", "run_workflow.py", "skele_harness.py",
};

static gboolean
is_workflow_file (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (workflow_files); i++)
    if (g_str_equal (name, workflow_files[i]))
      return TRUE;

  return FALSE;
}

static void
add_files (const char     *root,
           const char     *relative,
           SkTestSkipFunc  skip,
           GPtrArray      *files)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (relative, name, NULL);
      g_autofree char *child_path = g_build_filename (root, child, NULL);

      if (skip != NULL && skip (path, name))
        continue;

      if (g_file_test (child_path, G_FILE_TEST_IS_DIR))
        add_files (root, child, skip, files);
      else
        g_ptr_array_add (files, g_steal_pointer (&child));
    }
}

/**
 * sk_test_list_files:
 * @root: a folder
 * @skip: (nullable): whether to leave out an entry, and all below it; it
 *   is given the path of the folder that holds the entry and its name
 *
 * Returns: (transfer full) (element-type utf8): the paths, below @root,
 *   of the files in it and in its folders, sorted
 */
GPtrArray *
sk_test_list_files (const char     *root,
                    SkTestSkipFunc  skip)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);

  add_files (root, "", skip, files);
  g_ptr_array_sort (files, sk_test_compare_strings);
  return files;
}

/* Whether @name in @folder is none of the steps' files: their bookkeeping,
 * tests, Python's caches, Snakemake's folder or, in a workflow's own
 * folder, the files of the workflow and of its export. */
static gboolean
is_no_step_file (const char *folder,
                 const char *name)
{
  g_autofree char *plan = NULL;
  g_autofree char *process = NULL;

  if (g_str_equal (name, ".skele") || g_str_equal (name, "test") ||
      g_str_equal (name, "__pycache__") || g_str_equal (name, ".snakemake"))
    return TRUE;
  if (!is_workflow_file (name) && !g_str_equal (name, "profiles"))
    return FALSE;

  plan = g_build_filename (folder, "plan.json", NULL);
  process = g_build_filename (folder, "process.json", NULL);
  return g_file_test (plan, G_FILE_TEST_EXISTS) || g_file_test (process, G_FILE_TEST_EXISTS);
}

/**
 * sk_test_list_step_files:
 * @root: a workflow folder, or the folder of its export
 *
 * Lists the files that the steps of @root and of its sub-workflows made
 * or hold: not their bookkeeping (.skele), tests, Python's caches or
 * Snakemake's folder, nor in a workflow's own folder process.json,
 * plan.json and the other files of the workflow and of its exports.
 *
 * Returns: (transfer full): their paths below @root, sorted, one a line
 */
char *
sk_test_list_step_files (const char *root)
{
  g_autoptr(GPtrArray) files = sk_test_list_files (root, is_no_step_file);

  g_ptr_array_add (files, NULL);
  return g_strjoinv ("\n", (char **) files->pdata);
}

/**
 * sk_test_assert_same_outputs:
 * @ran: the workflow that `skele run` ran
 * @exported: its export, run by the exported program
 * @expected: some files, below both, that must be among the steps' files
 *
 * Asserts that the steps left the same files, byte for byte, in both
 * (sk_test_list_step_files()).
 */
void
sk_test_assert_same_outputs (const char         *ran,
                             const char         *exported,
                             const char * const *expected)
{
  g_autofree char *ran_files = sk_test_list_step_files (ran);
  g_autofree char *exported_files = sk_test_list_step_files (exported);
  g_auto(GStrv) files = g_strsplit (ran_files, "\n", -1);

  g_assert_cmpstr (exported_files, ==, ran_files);
  for (guint i = 0; expected[i] != NULL; i++)
    g_assert_true (g_strv_contains ((const char * const *) files, expected[i]));

  for (guint i = 0; files[i] != NULL; i++)
    sk_test_assert_same_file (ran, exported, files[i]);
}

/**
 * sk_test_bench_script:
 * @number: the step's number, from 1, for its report and its value
 * @key: the step's key
 * @priors: the keys of the steps before it
 *
 * A trivial step script that follows the node contract, for the benchmarks:
 * it reports one line, gives {"value": @number} and pickles it, and its
 * __main__ block runs it outside the harness, reading its priors' pickles.
 *
 * Returns: (transfer full): the script's text
 */
char *
sk_test_bench_script (guint               number,
                      const char         *key,
                      const char * const *priors)
{
  GString *script = g_string_new (NULL);

  g_string_append_printf (script,
                          "\"\"\"Step %u of the benchmark workflow.\"\"\"\n"
                          "import os\n"
                          "import pickle\n"
                          "\n"
                          "KEY = \"%s\"\n"
                          "SUMMARY = KEY + \"_summary.txt\"\n"
                          "PRIORS = [",
                          number, key);
  for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
    g_string_append_printf (script, "%s\"%s\"", j > 0 ? ", " : "", priors[j]);

  g_string_append_printf (script,
                          "]\n"
                          "\n"
                          "state = {}\n"
                          "\n"
                          "\n"
                          "def preprocess(prior_outputs):\n"
                          "    state[\"local\"] = {\"priors\": sorted(prior_outputs)}\n"
                          "    with open(SUMMARY, \"w\", encoding=\"utf-8\") as handle:\n"
                          "        handle.write(\"Report the number of step %u.\\n\")\n"
                          "    return True\n"
                          "\n"
                          "\n"
                          "def compute():\n"
                          "    state[\"output\"] = {\"task_status\": \"success\", \"value\": %u}\n"
                          "    with open(SUMMARY, \"a\", encoding=\"utf-8\") as handle:\n"
                          "        handle.write(\"Done: success.\\n\")\n"
                          "\n"
                          "\n"
                          "def save():\n"
                          "    with open(KEY + \".pkl\", \"wb\") as handle:\n"
                          "        pickle.dump(state[\"output\"], handle)\n"
                          "\n"
                          "\n"
                          "if __name__ == \"__main__\":\n"
                          "    prior_outputs = {}\n"
                          "    for prior in PRIORS:\n"
                          "        path = os.path.join(\"..\", prior, prior + \".pkl\")\n"
                          "        try:\n"
                          "            with open(path, \"rb\") as handle:\n"
                          "                prior_outputs[prior] = pickle.load(handle)\n"
                          "        except (OSError, pickle.UnpicklingError):\n"
                          "            prior_outputs[prior] = {}\n"
                          "    if preprocess(prior_outputs):\n"
                          "        compute()\n"
                          "        save()\n",
                          number, number);

  return g_string_free (script, FALSE);
}

/**
 * sk_test_take_option:
 * @argc: the program's argument count
 * @argv: its arguments
 * @option: an option of the test's own, such as `--spawn-steps`
 *
 * Takes @option out of the arguments before g_test_init() reads them, so
 * that the suite can run one program in several ways.
 *
 * Returns: whether @option was given
 */
gboolean
sk_test_take_option (int        *argc,
                     char      **argv,
                     const char *option)
{
  gboolean found = FALSE;
  int kept = 1;

  for (int i = 1; i < *argc; i++)
    {
      if (g_str_equal (argv[i], option))
        found = TRUE;
      else
        argv[kept++] = argv[i];
    }
  argv[kept] = NULL;
  *argc = kept;

  return found;
}

/**
 * sk_test_print_load_average:
 * @label: how the line starts, with the padding of the benchmark's columns
 * @when: when it is read, such as "before"
 *
 * Prints the machine's load average, which a benchmark's figures are read
 * against.
 */
void
sk_test_print_load_average (const char *label,
                            const char *when)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) fields = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &contents, NULL, NULL))
    return;

  fields = g_strsplit (g_strstrip (contents), " ", 4);
  if (g_strv_length (fields) >= 3)
    g_print ("%s%s %s %s (1, 5, 15 min, %s)\n", label, fields[0], fields[1], fields[2], when);
}

/**
 * sk_test_bench_write_file:
 * @path: where to write
 * @contents: what
 * @length: its length, or -1 when it ends with a nul
 *
 * Writes a file of a benchmark's workflow; a benchmark reports a failure
 * and stops rather than asserting.
 *
 * Returns: whether the file was written
 */
gboolean
sk_test_bench_write_file (const char *path,
                          const char *contents,
                          gssize      length)
{
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (path, contents, length, &error))
    {
      g_printerr ("Could not write %s: %s\n", path, error->message);
      return FALSE;
    }

  return TRUE;
}
