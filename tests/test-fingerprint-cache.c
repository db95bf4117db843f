/* test-fingerprint-cache.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The hashes that fingerprints are made of are kept from one run to the
 * next, in the workflow's bookkeeping folder, and trusted only while a
 * file's size, times, inode and device are unchanged. Each run here is a
 * new process, as each `skele run` is, so that nothing is remembered but
 * what was saved; inotify tells which files it opened to hash them again.
 */

#define G_LOG_DOMAIN "test-fingerprint-cache"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sk-project.h"
#include "sk-runner.h"
#include "sk-test-util.h"

/* The input of the first step, and the size of what it outputs. A run
 * that has nothing to do opens the input and the pickle only to hash them,
 * which it should not need to do: nothing else of the run reads them.
 */
#define DATA_SIZE (4 * 1024 * 1024)
#define PAYLOAD_SIZE (1024 * 1024)

/* The hashes of a file changed less than two seconds before they were
 * made are not trusted; a test waits this long for its files to settle.
 */
#define SETTLE_USEC (2200 * 1000)

#define RUN_TIMEOUT_USEC ((guint64) 120 * G_USEC_PER_SEC * SK_TEST_WAIT_SCALE)

static const char process_json[] =
  "{\n"
  "  \"process_name\": \"fingerprint cache\",\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"load\", \"priors\": [], \"run\": true,\n"
  "           \"input\": {\"text\": \"load\", \"files\": [\"data.bin\"]}},\n"
  "    \"2\": {\"name\": \"double\", \"priors\": [\"1\"], \"run\": true,\n"
  "           \"input\": {\"text\": \"double\", \"files\": []}},\n"
  "    \"3\": {\"name\": \"report\", \"priors\": [\"2\"], \"run\": true,\n"
  "           \"input\": {\"text\": \"report\", \"files\": []}}\n"
  "  }\n"
  "}\n";

/* "v1" becomes "v2" when a test edits a script: the same size. */
#define LOAD_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": \"v1\",\n" \
  "                       \"payload\": \"x\" * " G_STRINGIFY (PAYLOAD_SIZE) "}"
#define STEP_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": \"v1\"}"

typedef struct
{
  char *folder;
  char *result;
} Workflow;

typedef struct
{
  guint     succeeded;
  guint     up_to_date;
  guint     failed;
  gboolean  data_opened;
  gboolean  pickle_opened;
  char     *ran;
} Figures;

static char *python_path;

static void
figures_clear (Figures *figures)
{
  g_clear_pointer (&figures->ran, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Figures, figures_clear)

static void
write_data (const char *path,
            char        fill)
{
  g_autofree char *data = g_malloc (DATA_SIZE);
  g_autoptr(GError) error = NULL;

  memset (data, fill, DATA_SIZE);
  g_file_set_contents (path, data, DATA_SIZE, &error);
  g_assert_no_error (error);
}

static Workflow *
workflow_new (void)
{
  Workflow *wf = g_new0 (Workflow, 1);
  g_autofree char *data = NULL;

  wf->folder = sk_test_make_tmp_dir ("fingerprint-cache");
  wf->result = g_strconcat (wf->folder, ".result", NULL);

  sk_test_write_text (wf->folder, "process.json", process_json);
  sk_test_write_step (wf->folder, "load", LOAD_COMPUTE);
  sk_test_write_step (wf->folder, "double", STEP_COMPUTE);
  sk_test_write_step (wf->folder, "report", STEP_COMPUTE);
  data = g_build_filename (wf->folder, "load", "data.bin", NULL);
  write_data (data, 'a');

  return wf;
}

static void
workflow_free (Workflow *wf)
{
  sk_test_remove_tree (wf->folder);
  g_unlink (wf->result);
  g_free (wf->folder);
  g_free (wf->result);
  g_free (wf);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Workflow, workflow_free)

static char *
workflow_path (Workflow   *wf,
               const char *relative)
{
  return g_build_filename (wf->folder, relative, NULL);
}

/* In the subprocess ------------------------------------------------------- */

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Runs the workflow that $SK_TEST_CACHE_FOLDER names, as `skele run` does,
 * and writes what the run did to $SK_TEST_CACHE_RESULT.
 */
static void
run_in_subprocess (void)
{
  const char *folder_path = g_getenv ("SK_TEST_CACHE_FOLDER");
  const char *result_path = g_getenv ("SK_TEST_CACHE_RESULT");
  g_autoptr(GFile) folder = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkRunner) runner = sk_runner_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const char *sandbox = g_getenv ("SKELE_SANDBOX");
  SkRunStats stats = { 0 };

  g_assert_nonnull (folder_path);
  g_assert_nonnull (result_path);

  folder = g_file_new_for_path (folder_path);
  project = sk_project_load (folder, &error);
  g_assert_no_error (error);

  sk_runner_set_python (runner, python_path);
  if (sandbox != NULL && sandbox[0] != '\0')
    {
      SkSandboxPolicy policy;

      g_assert_true (sk_sandbox_policy_from_string (sandbox, &policy));
      sk_runner_set_sandbox_policy (runner, policy);
    }

  sk_runner_run_async (runner, project, NULL, NULL, run_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (sk_runner_run_finish (runner, result, &stats, &error));
  g_assert_no_error (error);

  text = g_strdup_printf ("%u %u %u\n", stats.succeeded, stats.up_to_date, stats.failed);
  g_file_set_contents (result_path, text, -1, &error);
  g_assert_no_error (error);
}

/* In the test ------------------------------------------------------------- */

static int
watch_opening (int         watch,
               Workflow   *wf,
               const char *relative)
{
  g_autofree char *path = g_build_filename (wf->folder, relative, NULL);

  /* A file that is not there yet cannot be opened to be hashed. */
  return inotify_add_watch (watch, path, IN_OPEN);
}

/* Runs the workflow in a new process and tells what the run did: which
 * steps ran, sorted by key, and whether the input or the first step's
 * pickle were opened.
 */
static void
run_fresh (Workflow *wf,
           Figures  *figures)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  char events[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  int watch, data, pickle;
  ssize_t length;
  int matched;

  figures_clear (figures);
  g_unlink (wf->result);
  g_setenv ("SK_TEST_CACHE_FOLDER", wf->folder, TRUE);
  g_setenv ("SK_TEST_CACHE_RESULT", wf->result, TRUE);
  g_setenv ("SK_TEST_CACHE_PYTHON", python_path, TRUE);

  watch = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  g_assert_cmpint (watch, >=, 0);
  data = watch_opening (watch, wf, "load/data.bin");
  pickle = watch_opening (watch, wf, "load/load.pkl");

  g_test_trap_subprocess (NULL, RUN_TIMEOUT_USEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();

  figures->data_opened = FALSE;
  figures->pickle_opened = FALSE;
  while ((length = read (watch, events, sizeof events)) > 0)
    {
      for (char *p = events; p < events + length; )
        {
          const struct inotify_event *event = (const struct inotify_event *) p;

          if ((event->mask & IN_OPEN) != 0 && event->wd == data)
            figures->data_opened = TRUE;
          if ((event->mask & IN_OPEN) != 0 && event->wd == pickle)
            figures->pickle_opened = TRUE;
          p += sizeof (struct inotify_event) + event->len;
        }
    }
  close (watch);

  g_file_get_contents (wf->result, &text, NULL, &error);
  g_assert_no_error (error);
  matched = sscanf (text, "%u %u %u", &figures->succeeded, &figures->up_to_date,
                    &figures->failed);
  g_assert_cmpint (matched, ==, 3);
  g_assert_cmpuint (figures->failed, ==, 0);

  figures->ran = sk_test_take_runs (wf->folder);
}

/* Waits until files changed before now are old enough to be trusted. */
static void
settle (void)
{
  g_usleep (SETTLE_USEC);
}

/* Runs the workflow once, and again once its outputs have settled, so that
 * every hash it needs is saved and can be trusted.
 */
static void
warm_up (Workflow *wf)
{
  g_auto(Figures) figures = { 0 };

  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "double load report");
  g_assert_cmpuint (figures.succeeded, ==, 3);
  /* Before a step had a result, there was nothing worth saving. */
  g_assert_false (sk_test_exists (wf->folder, ".skele/hashes"));

  settle ();
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_cmpuint (figures.up_to_date, ==, 3);
}

/* Replaces @old_text with @new_text, of the same length, in the file at
 * @path, writing in place so that the file keeps its inode and size, then
 * gives the file back its modification time.
 */
static void
overwrite_in_place (const char *path,
                    const char *old_text,
                    const char *new_text)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf before, after;
  struct timespec times[2];
  char *found = NULL;
  gsize length;
  FILE *file;

  g_assert_cmpuint (strlen (old_text), ==, strlen (new_text));
  g_assert_cmpint (g_stat (path, &before), ==, 0);
  g_file_get_contents (path, &contents, &length, &error);
  g_assert_no_error (error);
  /* A pickle holds zero bytes: no string function finds it. */
  for (gsize i = 0; found == NULL && i + strlen (old_text) <= length; i++)
    if (memcmp (contents + i, old_text, strlen (old_text)) == 0)
      found = contents + i;
  g_assert_nonnull (found);
  memcpy (found, new_text, strlen (new_text));

  file = fopen (path, "r+b");
  g_assert_nonnull (file);
  g_assert_cmpuint (fwrite (contents, 1, length, file), ==, length);
  g_assert_cmpint (fclose (file), ==, 0);

  times[0] = before.st_atim;
  times[1] = before.st_mtim;
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);

  /* Only the change time tells. */
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpint (after.st_size, ==, before.st_size);
  g_assert_cmpint (after.st_mtim.tv_sec, ==, before.st_mtim.tv_sec);
  g_assert_cmpint (after.st_mtim.tv_nsec, ==, before.st_mtim.tv_nsec);
  g_assert_cmpuint (after.st_ino, ==, before.st_ino);
}

/* Tests ------------------------------------------------------------------- */

static void
test_unchanged (void)
{
  g_autoptr(Workflow) wf = NULL;
  g_auto(Figures) figures = { 0 };
  g_autofree char *cache = NULL;
  g_autofree char *script = NULL;
  g_autofree char *data = NULL;
  g_autofree char *pickle = NULL;

  if (g_test_subprocess ())
    {
      run_in_subprocess ();
      return;
    }

  wf = workflow_new ();
  warm_up (wf);

  /* Nothing is read again: not the input, not the pickle. */
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_cmpuint (figures.up_to_date, ==, 3);
  g_assert_false (figures.data_opened);
  g_assert_false (figures.pickle_opened);

  /* The hashes are kept in the workflow's bookkeeping folder, by path. */
  cache = sk_test_read_text (wf->folder, ".skele/hashes");
  script = workflow_path (wf, "load/load.py");
  data = workflow_path (wf, "load/data.bin");
  pickle = workflow_path (wf, "load/load.pkl");
  sk_test_assert_contains (cache, script);
  sk_test_assert_contains (cache, data);
  sk_test_assert_contains (cache, pickle);

  /* A run that reads nothing new writes nothing either. */
  {
    GStatBuf before, after;
    g_autofree char *path = workflow_path (wf, ".skele/hashes");

    g_assert_cmpint (g_stat (path, &before), ==, 0);
    run_fresh (wf, &figures);
    g_assert_cmpint (g_stat (path, &after), ==, 0);
    g_assert_cmpuint (before.st_ino, ==, after.st_ino);
    g_assert_cmpint (before.st_mtim.tv_nsec, ==, after.st_mtim.tv_nsec);
    g_assert_false (figures.data_opened);
  }
}

/* A script changed in place to the same size, its modification time set
 * back: only its change time differs.
 */
static void
test_edited_in_place (void)
{
  g_autoptr(Workflow) wf = NULL;
  g_auto(Figures) figures = { 0 };
  g_autofree char *script = NULL;

  if (g_test_subprocess ())
    {
      run_in_subprocess ();
      return;
    }

  wf = workflow_new ();
  warm_up (wf);

  script = workflow_path (wf, "double/double.py");
  overwrite_in_place (script, "\"v1\"", "\"v2\"");

  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "double report");
  g_assert_cmpuint (figures.succeeded, ==, 2);
  g_assert_cmpuint (figures.up_to_date, ==, 1);

  /* The new hash is trusted in turn once it has settled. */
  settle ();
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_cmpuint (figures.up_to_date, ==, 3);
}

/* A pickle changed in the same way is not taken for the step's result. */
static void
test_pickle_edited (void)
{
  g_autoptr(Workflow) wf = NULL;
  g_auto(Figures) figures = { 0 };
  g_autofree char *pickle = NULL;

  if (g_test_subprocess ())
    {
      run_in_subprocess ();
      return;
    }

  wf = workflow_new ();
  warm_up (wf);

  pickle = workflow_path (wf, "load/load.pkl");
  overwrite_in_place (pickle, "xxxx", "yyyy");

  run_fresh (wf, &figures);
  g_assert_true (g_str_has_prefix (figures.ran, "load") ||
                 strstr (figures.ran, " load") != NULL);
}

/* An input replaced by another file of the same size and modification
 * time, renamed over it: the inode differs.
 */
static void
test_replaced (void)
{
  g_autoptr(Workflow) wf = NULL;
  g_auto(Figures) figures = { 0 };
  g_autofree char *data = NULL;
  g_autofree char *replacement = NULL;
  struct timespec times[2];
  GStatBuf before, after;

  if (g_test_subprocess ())
    {
      run_in_subprocess ();
      return;
    }

  wf = workflow_new ();
  warm_up (wf);

  data = workflow_path (wf, "load/data.bin");
  replacement = workflow_path (wf, "load/data.bin.new");
  g_assert_cmpint (g_stat (data, &before), ==, 0);
  write_data (replacement, 'b');
  times[0] = before.st_atim;
  times[1] = before.st_mtim;
  g_assert_cmpint (utimensat (AT_FDCWD, replacement, times, 0), ==, 0);
  g_assert_cmpint (g_rename (replacement, data), ==, 0);

  g_assert_cmpint (g_stat (data, &after), ==, 0);
  g_assert_cmpint (after.st_size, ==, before.st_size);
  g_assert_cmpint (after.st_mtim.tv_sec, ==, before.st_mtim.tv_sec);
  g_assert_cmpint (after.st_mtim.tv_nsec, ==, before.st_mtim.tv_nsec);
  g_assert_cmpuint (after.st_ino, !=, before.st_ino);

  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "double load report");
}

/* Replaces @old_text, once, in the saved hashes. */
static void
edit_cache (Workflow   *wf,
            const char *old_text,
            const char *new_text)
{
  g_autofree char *cache = sk_test_read_text (wf->folder, ".skele/hashes");
  g_autoptr(GString) edited = g_string_new (cache);
  char *found = strstr (edited->str, old_text);
  gsize at;

  g_assert_nonnull (found);
  at = found - edited->str;
  g_string_erase (edited, at, strlen (old_text));
  g_string_insert (edited, at, new_text);
  sk_test_write_text (wf->folder, ".skele/hashes", edited->str);
}

static void
test_corrupt (void)
{
  g_autoptr(Workflow) wf = NULL;
  g_auto(Figures) figures = { 0 };
  g_autofree char *cache = NULL;
  g_autofree char *script = NULL;
  g_autofree char *changed = NULL;
  g_auto(GStrv) lines = NULL;
  const char *script_line = NULL;
  const char * const damaged[] = {
    "",
    "skele-hashes 1\n",
    "not the hashes of anything\n\377\376\n",
    "skele-hashes 1\n0123\t-\t1\t2\n",
  };

  if (g_test_subprocess ())
    {
      run_in_subprocess ();
      return;
    }

  wf = workflow_new ();
  warm_up (wf);

  /* A hash changed by hand, without the checksum at the end: were it
   * trusted, the step would seem changed and run again.
   */
  cache = sk_test_read_text (wf->folder, ".skele/hashes");
  script = workflow_path (wf, "load/load.py");
  lines = g_strsplit (cache, "\n", -1);
  for (guint i = 0; lines[i] != NULL && script_line == NULL; i++)
    if (g_str_has_suffix (lines[i], script))
      script_line = lines[i];
  g_assert_nonnull (script_line);
  changed = g_strdup (script_line);
  changed[0] = changed[0] == '0' ? '1' : '0';
  edit_cache (wf, script_line, changed);

  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_cmpuint (figures.up_to_date, ==, 3);
  g_assert_true (figures.data_opened);

  /* The run saved the hashes anew, and they are trusted again. */
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_false (figures.data_opened);

  /* Cut short, empty, or not the hashes at all: ignored. */
  for (guint i = 0; i < G_N_ELEMENTS (damaged); i++)
    {
      sk_test_write_text (wf->folder, ".skele/hashes", damaged[i]);
      run_fresh (wf, &figures);
      g_assert_cmpstr (figures.ran, ==, "");
      g_assert_cmpuint (figures.up_to_date, ==, 3);
      g_assert_true (figures.data_opened);
    }

  /* A folder in place of the file is neither read nor replaced. */
  {
    g_autofree char *path = workflow_path (wf, ".skele/hashes");

    g_assert_cmpint (g_unlink (path), ==, 0);
    g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
    run_fresh (wf, &figures);
    g_assert_cmpstr (figures.ran, ==, "");
    g_assert_cmpuint (figures.up_to_date, ==, 3);
    g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
  }
}

/* A file hashed within the same second as it changed could change again
 * without its times showing it, so that hash is not trusted next time.
 */
static void
test_racy (void)
{
  g_autoptr(Workflow) wf = NULL;
  g_auto(Figures) figures = { 0 };
  g_autofree char *data = NULL;
  struct timespec times[2];
  gint64 written, elapsed;

  if (g_test_subprocess ())
    {
      run_in_subprocess ();
      return;
    }

  wf = workflow_new ();
  data = workflow_path (wf, "load/data.bin");

  /* A file whose modification time is ahead of the clock is as recent. */
  {
    GStatBuf st;

    g_assert_cmpint (g_stat (data, &st), ==, 0);
    times[0] = st.st_atim;
    times[1].tv_sec = st.st_mtim.tv_sec + 3600;
    times[1].tv_nsec = 0;
    g_assert_cmpint (utimensat (AT_FDCWD, data, times, 0), ==, 0);
  }
  settle ();
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "double load report");
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_true (figures.data_opened);
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_true (figures.data_opened);

  /* Written again just now, with the same bytes: a run that hashes it
   * within two seconds does not vouch for it, so the next run reads it
   * again, though nothing about it changed since.
   */
  write_data (data, 'a');
  written = g_get_real_time ();
  run_fresh (wf, &figures);
  elapsed = g_get_real_time () - written;
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_true (figures.data_opened);
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  if (elapsed < 2 * G_USEC_PER_SEC)
    g_assert_true (figures.data_opened);
  else
    g_test_message ("The first run took %.1f s; a hash made that late is trusted",
                    elapsed / (double) G_USEC_PER_SEC);

  /* Once it has settled, a hash of it is trusted. */
  settle ();
  run_fresh (wf, &figures);
  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_false (figures.data_opened);

  if (elapsed >= 2 * G_USEC_PER_SEC)
    g_test_skip ("The runs were too slow to show a hash made right after a change");
}

/* The saved hashes keep only the files that the workflow still reads. */
static void
test_pruned (void)
{
  g_autoptr(Workflow) wf = NULL;
  g_auto(Figures) figures = { 0 };
  g_autofree char *cache = NULL;
  g_autofree char *script = NULL;
  g_autofree char *pickle = NULL;
  g_autofree char *kept = NULL;
  char *end;

  if (g_test_subprocess ())
    {
      run_in_subprocess ();
      return;
    }

  wf = workflow_new ();
  warm_up (wf);

  script = workflow_path (wf, "report/report.py");
  pickle = workflow_path (wf, "report/report.pkl");
  cache = sk_test_read_text (wf->folder, ".skele/hashes");
  sk_test_assert_contains (cache, script);
  sk_test_assert_contains (cache, pickle);
  g_clear_pointer (&cache, g_free);

  /* The last step leaves the workflow; its folder stays. */
  kept = g_strdup (process_json);
  end = strstr (kept, ",\n    \"3\"");
  g_assert_nonnull (end);
  strcpy (end, "\n  }\n}\n");
  sk_test_write_text (wf->folder, "process.json", kept);

  run_fresh (wf, &figures);
  g_assert_cmpstr (figures.ran, ==, "");
  g_assert_cmpuint (figures.up_to_date, ==, 2);

  cache = sk_test_read_text (wf->folder, ".skele/hashes");
  g_assert_null (strstr (cache, script));
  g_assert_null (strstr (cache, pickle));
  sk_test_assert_contains (cache, "load/load.py");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *python3 = g_find_program_in_path ("python3");
  int status;

  g_test_init (&argc, &argv, NULL);

  if (python3 == NULL)
    {
      g_test_skip ("python3 is not installed");
      return g_test_run ();
    }
  /* The interpreter is part of the fingerprints: every run uses the one
   * found once, without each subprocess starting Python to find it.
   */
  if (g_test_subprocess ())
    python_path = g_strdup (g_getenv ("SK_TEST_CACHE_PYTHON"));
  else
    python_path = sk_test_find_python ();

  g_test_add_func ("/fingerprint-cache/unchanged", test_unchanged);
  g_test_add_func ("/fingerprint-cache/edited-in-place", test_edited_in_place);
  g_test_add_func ("/fingerprint-cache/pickle-edited", test_pickle_edited);
  g_test_add_func ("/fingerprint-cache/replaced", test_replaced);
  g_test_add_func ("/fingerprint-cache/corrupt", test_corrupt);
  g_test_add_func ("/fingerprint-cache/racy", test_racy);
  g_test_add_func ("/fingerprint-cache/pruned", test_pruned);

  status = g_test_run ();
  g_free (python_path);
  return status;
}
