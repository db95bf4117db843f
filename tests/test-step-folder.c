/* test-step-folder.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>

#include "sk-step-folder.h"
#include "sk-test-util.h"

typedef struct
{
  char  *dir;
  GFile *folder;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = sk_test_make_tmp_dir ("step-folder");
  f->folder = g_file_new_for_path (f->dir);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  sk_test_remove_tree (f->dir);
  g_clear_object (&f->folder);
  g_clear_pointer (&f->dir, g_free);
}

/* The layout is the on-disk contract of the design document; a change here
 * breaks every workflow already written. */
static void
test_layout (void)
{
  static const struct {
    SkStepFile  file;
    const char *path;
  } expected[] = {
    { SK_STEP_FILE_SCRIPT, "load_sales.py" },
    { SK_STEP_FILE_PICKLE, "load_sales.pkl" },
    { SK_STEP_FILE_SUMMARY, "load_sales_summary.txt" },
    { SK_STEP_FILE_TEST, "test/test_load_sales.py" },
    { SK_STEP_FILE_TEST_FOLDER, "test" },
    { SK_STEP_FILE_BOOKKEEPING, ".skele" },
    { SK_STEP_FILE_RECORD, ".skele/record.json" },
    { SK_STEP_FILE_RESULT, ".skele/result.json" },
    { SK_STEP_FILE_STDOUT, ".skele/stdout.log" },
    { SK_STEP_FILE_STDERR, ".skele/stderr.log" },
    { SK_STEP_FILE_AGENT_LOG, ".skele/agent.log" },
    { SK_STEP_FILE_PREVIOUS_FOLDER, ".skele/previous" },
    { SK_STEP_FILE_PREVIOUS_SCRIPT, ".skele/previous/load_sales.py" },
  };
  g_autoptr(GFile) workflow = g_file_new_for_path ("/tmp/wf");

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *relative = sk_step_folder_relative_path ("load_sales", expected[i].file);
      g_autofree char *built = sk_step_folder_build_path ("/tmp/wf/load_sales", "load_sales", expected[i].file);
      g_autofree char *full = g_build_filename ("/tmp/wf/load_sales", expected[i].path, NULL);
      g_autoptr(GFile) file = sk_step_folder_get_file (workflow, "load_sales", expected[i].file);
      g_autofree char *file_path = g_file_get_path (file);

      g_assert_cmpstr (relative, ==, expected[i].path);
      g_assert_cmpstr (built, ==, full);
      g_assert_cmpstr (file_path, ==, full);
    }

  {
    g_autoptr(GFile) worker_log = sk_step_folder_get_worker_log (workflow);
    g_autofree char *path = g_file_get_path (worker_log);

    g_assert_cmpstr (path, ==, "/tmp/wf/.skele/worker.log");
  }
}

static void
test_bookkeeping (void)
{
  g_assert_true (sk_step_folder_is_bookkeeping (".skele"));
  g_assert_true (sk_step_folder_is_bookkeeping ("__pycache__"));
  g_assert_true (sk_step_folder_is_bookkeeping ("test"));
  g_assert_false (sk_step_folder_is_bookkeeping ("chart.svg"));
  g_assert_false (sk_step_folder_is_bookkeeping ("results"));

  g_assert_true (sk_step_folder_is_own_file ("totals", "totals.py"));
  g_assert_true (sk_step_folder_is_own_file ("totals", "totals.pkl"));
  g_assert_true (sk_step_folder_is_own_file ("totals", "totals_summary.txt"));
  g_assert_false (sk_step_folder_is_own_file ("totals", "other.py"));
  g_assert_false (sk_step_folder_is_own_file ("totals", "sub/totals.py"));
}

/* A renamed step keeps its code, results, tests and the script kept aside,
 * all under the new key; a file that is not named after the key stays as
 * it is. */
static void
test_rename (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = NULL;

  sk_test_write_text (f->dir, "old/old.py", "print('old')\n");
  sk_test_write_text (f->dir, "old/old.pkl", "pickle");
  sk_test_write_text (f->dir, "old/old_summary.txt", "summary");
  sk_test_write_text (f->dir, "old/test/test_old.py", "def test(): pass\n");
  sk_test_write_text (f->dir, "old/.skele/previous/old.py", "print('older')\n");
  sk_test_write_text (f->dir, "old/chart.svg", "<svg/>");

  g_assert_true (sk_step_folder_rename (f->folder, "old", "new", &error));
  g_assert_no_error (error);

  g_assert_false (sk_test_exists (f->dir, "old"));
  script = sk_test_read_text (f->dir, "new/new.py");
  g_assert_cmpstr (script, ==, "print('old')\n");
  g_assert_true (sk_test_exists (f->dir, "new/new.pkl"));
  g_assert_true (sk_test_exists (f->dir, "new/new_summary.txt"));
  g_assert_true (sk_test_exists (f->dir, "new/test/test_new.py"));
  g_assert_true (sk_test_exists (f->dir, "new/.skele/previous/new.py"));
  g_assert_true (sk_test_exists (f->dir, "new/chart.svg"));
  g_assert_false (sk_test_exists (f->dir, "new/old.py"));

  /* And back, as an undo does. */
  g_assert_true (sk_step_folder_rename (f->folder, "new", "old", &error));
  g_assert_no_error (error);
  g_assert_true (sk_test_exists (f->dir, "old/old.py"));
  g_assert_true (sk_test_exists (f->dir, "old/test/test_old.py"));
  g_assert_false (sk_test_exists (f->dir, "new"));
}

/* Another step's folder is never overwritten, and a step without a folder
 * needs nothing. */
static void
test_rename_refused (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *theirs = NULL;

  sk_test_write_text (f->dir, "mine/mine.py", "mine\n");
  sk_test_write_text (f->dir, "theirs/theirs.py", "theirs\n");

  g_assert_false (sk_step_folder_rename (f->folder, "mine", "theirs", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_true (sk_test_exists (f->dir, "mine/mine.py"));
  theirs = sk_test_read_text (f->dir, "theirs/theirs.py");
  g_assert_cmpstr (theirs, ==, "theirs\n");
  g_clear_error (&error);

  g_assert_true (sk_step_folder_rename (f->folder, "nowhere", "somewhere", &error));
  g_assert_no_error (error);
  g_assert_false (sk_test_exists (f->dir, "somewhere"));
}

static void
test_put_aside (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *copied = NULL;

  sk_test_write_text (f->dir, "step/step.py", "first\n");
  g_assert_true (sk_step_folder_put_aside_script (f->folder, "step", &error));
  g_assert_no_error (error);
  g_assert_false (sk_test_exists (f->dir, "step/step.py"));
  kept = sk_test_read_text (f->dir, "step/.skele/previous/step.py");
  g_assert_cmpstr (kept, ==, "first\n");

  /* A newer script replaces the copy kept before it. */
  sk_test_write_text (f->dir, "step/step.py", "second\n");
  g_assert_true (sk_step_folder_put_aside_script (f->folder, "step", &error));
  g_clear_pointer (&kept, g_free);
  kept = sk_test_read_text (f->dir, "step/.skele/previous/step.py");
  g_assert_cmpstr (kept, ==, "second\n");

  /* Nothing to put aside is no failure. */
  g_assert_true (sk_step_folder_put_aside_script (f->folder, "step", &error));
  g_assert_no_error (error);

  /* A repair keeps a copy and leaves the script in place. */
  sk_test_write_text (f->dir, "step/step.py", "third\n");
  g_assert_true (sk_step_folder_copy_to_previous (f->folder, "step", &error));
  g_assert_no_error (error);
  g_assert_true (sk_test_exists (f->dir, "step/step.py"));
  copied = sk_test_read_text (f->dir, "step/.skele/previous/step.py");
  g_assert_cmpstr (copied, ==, "third\n");

  /* A copy of a script that is not there fails and says so. */
  g_assert_false (sk_step_folder_copy_to_previous (f->folder, "absent", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

/* The recovery copy lives outside the workflow, is readable by the user
 * alone, and each workflow folder has its own. */
static void
test_recovery (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GFile) other = g_file_get_child (f->folder, "other");
  g_autoptr(GFile) recovery = sk_step_folder_get_recovery_file (f->folder);
  g_autoptr(GFile) other_recovery = sk_step_folder_get_recovery_file (other);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_file_get_path (recovery);
  g_autofree char *contents = NULL;
  GStatBuf st;
  gsize length = 0;

  g_assert_false (g_file_equal (recovery, other_recovery));
  g_assert_false (g_file_has_prefix (recovery, f->folder));
  g_assert_null (sk_step_folder_read_recovery (f->folder, NULL));

  g_assert_true (sk_step_folder_write_recovery (f->folder, "{\"nodes\": {}}", 13, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  contents = sk_step_folder_read_recovery (f->folder, &length);
  g_assert_cmpstr (contents, ==, "{\"nodes\": {}}");
  g_assert_cmpuint (length, ==, 13);
  g_assert_null (sk_step_folder_read_recovery (other, NULL));

  sk_step_folder_delete_recovery (f->folder);
  g_assert_false (g_file_query_exists (recovery, NULL));
}

/* A copy carries the scripts and files, never the run records or caches. */
static void
test_copy_workflow (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *copy_dir = sk_test_make_tmp_dir ("step-folder-copy");
  g_autoptr(GFile) copy = g_file_new_for_path (copy_dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *script = NULL;

  sk_test_write_text (f->dir, "process.json", "{}");
  sk_test_write_text (f->dir, "a/a.py", "print(1)\n");
  sk_test_write_text (f->dir, "a/data/input.csv", "x\n1\n");
  sk_test_write_text (f->dir, "a/.skele/record.json", "{}");
  sk_test_write_text (f->dir, "a/__pycache__/a.cpython-311.pyc", "cache");
  sk_test_write_text (f->dir, ".skele/worker.log", "log");

  g_assert_true (sk_step_folder_copy_workflow (f->folder, copy, &error));
  g_assert_no_error (error);

  script = sk_test_read_text (copy_dir, "a/a.py");
  g_assert_cmpstr (script, ==, "print(1)\n");
  g_assert_true (sk_test_exists (copy_dir, "process.json"));
  g_assert_true (sk_test_exists (copy_dir, "a/data/input.csv"));
  g_assert_false (sk_test_exists (copy_dir, "a/.skele"));
  g_assert_false (sk_test_exists (copy_dir, "a/__pycache__"));
  g_assert_false (sk_test_exists (copy_dir, ".skele"));

  sk_test_remove_tree (copy_dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/step-folder/layout", test_layout);
  g_test_add_func ("/step-folder/bookkeeping", test_bookkeeping);
  g_test_add ("/step-folder/rename", Fixture, NULL, fixture_set_up, test_rename, fixture_tear_down);
  g_test_add ("/step-folder/rename-refused", Fixture, NULL, fixture_set_up, test_rename_refused, fixture_tear_down);
  g_test_add ("/step-folder/put-aside", Fixture, NULL, fixture_set_up, test_put_aside, fixture_tear_down);
  g_test_add ("/step-folder/recovery", Fixture, NULL, fixture_set_up, test_recovery, fixture_tear_down);
  g_test_add ("/step-folder/copy-workflow", Fixture, NULL, fixture_set_up, test_copy_workflow, fixture_tear_down);

  return g_test_run ();
}
