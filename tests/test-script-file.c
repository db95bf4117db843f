/* test-script-file.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One step's script on disk: loading, the ordered queue of saves, deletions
 * and moves, changes made by other programs, putting it aside, and errors.
 */

#include "config.h"

#include <string.h>
#include <utime.h>

#include <glib/gstdio.h>

#include "sk-script-file.h"
#include "sk-step-folder.h"
#include "sk-test-util.h"

#define WAIT_MSEC 5000

typedef struct
{
  char         *dir;
  GFile        *folder;
  SkScriptFile *script;
  GPtrArray    *saved;
  GPtrArray    *errors;
  guint         loaded;
  guint         changed;
} Fixture;

static void
loaded_cb (SkScriptFile *script,
           Fixture      *fixture)
{
  fixture->loaded++;
}

static void
changed_cb (SkScriptFile *script,
            Fixture      *fixture)
{
  fixture->changed++;
}

static void
saved_cb (SkScriptFile *script,
          GFile        *file,
          Fixture      *fixture)
{
  g_assert_true (g_file_equal (file, sk_script_file_get_file (script)));
  g_ptr_array_add (fixture->saved, g_file_get_path (file));
}

static void
failed_cb (SkScriptFile *script,
           const GError *error,
           Fixture      *fixture)
{
  g_assert_nonnull (error);
  g_assert_cmpstr (error->message, !=, "");
  g_ptr_array_add (fixture->errors, g_error_copy (error));
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->dir = sk_test_make_tmp_dir ("script-file");
  fixture->folder = g_file_new_for_path (fixture->dir);
  fixture->saved = g_ptr_array_new_with_free_func (g_free);
  fixture->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);

  fixture->script = sk_script_file_new (fixture->folder, "load_sales");
  g_signal_connect (fixture->script, "loaded", G_CALLBACK (loaded_cb), fixture);
  g_signal_connect (fixture->script, "changed-on-disk", G_CALLBACK (changed_cb), fixture);
  g_signal_connect (fixture->script, "saved", G_CALLBACK (saved_cb), fixture);
  g_signal_connect (fixture->script, "failed", G_CALLBACK (failed_cb), fixture);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  /* Nothing may be left to do, or the object outlives the test. */
  SK_TEST_WAIT_UNTIL (!sk_script_file_get_busy (fixture->script), WAIT_MSEC);
  g_assert_finalize_object (fixture->script);
  g_clear_pointer (&fixture->saved, g_ptr_array_unref);
  g_clear_pointer (&fixture->errors, g_ptr_array_unref);
  g_clear_object (&fixture->folder);
  sk_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

/* Checks the contents of one of the step's files; %NULL when it must not
 * exist. */
static void
assert_file (Fixture    *fixture,
             SkStepFile  which,
             const char *expected)
{
  g_autofree char *relative = sk_step_folder_relative_path ("load_sales", which);
  g_autofree char *path = g_build_filename ("load_sales", relative, NULL);
  g_autofree char *contents = sk_test_read_text (fixture->dir, path);

  g_assert_cmpstr (contents, ==, expected);
}

static gboolean
file_is (Fixture    *fixture,
         SkStepFile  which,
         const char *expected)
{
  g_autofree char *relative = sk_step_folder_relative_path ("load_sales", which);
  g_autofree char *path = g_build_filename ("load_sales", relative, NULL);
  g_autofree char *contents = sk_test_read_text (fixture->dir, path);

  return g_strcmp0 (contents, expected) == 0;
}

static void
write_script (Fixture    *fixture,
              const char *text)
{
  sk_test_write_text (fixture->dir, "load_sales/load_sales.py", text);
}

static void
load (Fixture *fixture)
{
  guint loaded = fixture->loaded;

  sk_script_file_load (fixture->script);
  g_assert_true (sk_script_file_get_loading (fixture->script));
  SK_TEST_WAIT_UNTIL (fixture->loaded == loaded + 1, WAIT_MSEC);
  g_assert_false (sk_script_file_get_loading (fixture->script));
}

typedef struct
{
  gboolean  done;
  GError   *error;
} PutAside;

static void
put_aside_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  PutAside *put_aside = user_data;
  gboolean moved;

  moved = sk_script_file_put_aside_finish (SK_SCRIPT_FILE (object), result, &put_aside->error);
  g_assert_true (moved == (put_aside->error == NULL));
  put_aside->done = TRUE;
}

/* Puts the script aside and waits; returns the error, if any. */
static GError *
put_aside (Fixture      *fixture,
           GCancellable *cancellable)
{
  PutAside put_aside = { FALSE, NULL };

  sk_script_file_put_aside_async (fixture->script, cancellable, put_aside_cb, &put_aside);
  if (cancellable != NULL)
    g_cancellable_cancel (cancellable);
  SK_TEST_WAIT_UNTIL (put_aside.done, WAIT_MSEC);

  return put_aside.error;
}

static void
test_load (Fixture       *fixture,
           gconstpointer  data)
{
  g_autofree char *expected = g_build_filename (fixture->dir, "load_sales", "load_sales.py", NULL);
  g_autofree char *path = g_file_get_path (sk_script_file_get_file (fixture->script));

  g_assert_cmpstr (path, ==, expected);
  g_assert_cmpstr (sk_script_file_get_key (fixture->script), ==, "load_sales");
  g_assert_true (sk_script_file_get_workflow_folder (fixture->script) == fixture->folder);

  /* Nothing is read before it is asked for. */
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "");
  g_assert_false (sk_script_file_get_has_script (fixture->script));
  g_assert_false (sk_script_file_get_busy (fixture->script));

  /* A step without a script loads as an empty text. */
  load (fixture);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "");
  g_assert_false (sk_script_file_get_has_script (fixture->script));
  g_assert_false (sk_script_file_get_modified (fixture->script));

  /* The final line end is not part of the text. */
  write_script (fixture, "state = {}\n\ndef compute():\n    pass\n");
  load (fixture);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==,
                   "state = {}\n\ndef compute():\n    pass");
  g_assert_true (sk_script_file_get_has_script (fixture->script));
  g_assert_false (sk_script_file_get_modified (fixture->script));

  /* Loading drops an edit that is not saved. */
  sk_script_file_set_text (fixture->script, "# mine");
  g_assert_true (sk_script_file_get_modified (fixture->script));
  load (fixture);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==,
                   "state = {}\n\ndef compute():\n    pass");
  g_assert_false (sk_script_file_get_modified (fixture->script));

  /* Windows line ends and Latin-9 are read, and written back as UTF-8
   * with "\n". */
  write_script (fixture, "print ('\xe9t\xe9')\r\nx = 1\r\n");
  load (fixture);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "print ('été')\r\nx = 1");
  sk_script_file_set_text (fixture->script, sk_script_file_get_text (fixture->script));
  sk_script_file_save (fixture->script);
  SK_TEST_WAIT_UNTIL (fixture->saved->len == 1, WAIT_MSEC);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, "print ('été')\nx = 1\n");

  sk_script_file_close (fixture->script);
  g_assert_cmpuint (fixture->errors->len, ==, 0);
}

static void
test_save_order (Fixture       *fixture,
                 gconstpointer  data)
{
  gint64 start;

  load (fixture);

  /* An edit is written after a short pause, not at once. */
  start = g_get_monotonic_time ();
  sk_script_file_set_text (fixture->script, "print (1)");
  g_assert_true (sk_script_file_get_modified (fixture->script));
  g_assert_false (sk_script_file_get_busy (fixture->script));
  SK_TEST_WAIT_UNTIL (fixture->saved->len == 1, WAIT_MSEC);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 900 * 1000);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, "print (1)\n");
  g_assert_true (sk_script_file_get_has_script (fixture->script));
  g_assert_false (sk_script_file_get_modified (fixture->script));

  /* Save, save, delete, save: they run in the order asked, and the last
   * one wins. */
  sk_script_file_set_text (fixture->script, "print (2)");
  sk_script_file_save (fixture->script);
  g_assert_true (sk_script_file_get_busy (fixture->script));
  sk_script_file_set_text (fixture->script, "print (3)");
  sk_script_file_save (fixture->script);
  sk_script_file_delete (fixture->script);
  g_assert_false (sk_script_file_get_modified (fixture->script));
  sk_script_file_set_text (fixture->script, "print (4)");
  sk_script_file_save (fixture->script);
  SK_TEST_WAIT_UNTIL (!sk_script_file_get_busy (fixture->script), WAIT_MSEC);
  g_assert_cmpuint (fixture->saved->len, ==, 4);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, "print (4)\n");
  g_assert_true (sk_script_file_get_has_script (fixture->script));
  g_assert_false (sk_script_file_get_modified (fixture->script));

  /* Saving twice without an edit in between writes once. */
  sk_script_file_save (fixture->script);
  g_assert_false (sk_script_file_get_busy (fixture->script));

  /* Deleting everything in a step without code leaves it without code. */
  sk_script_file_delete (fixture->script);
  SK_TEST_WAIT_UNTIL (!sk_script_file_get_busy (fixture->script), WAIT_MSEC);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, NULL);
  g_assert_false (sk_script_file_get_has_script (fixture->script));
  sk_script_file_set_text (fixture->script, "x");
  sk_script_file_set_text (fixture->script, "");
  sk_script_file_save (fixture->script);
  g_assert_false (sk_script_file_get_busy (fixture->script));
  g_assert_false (sk_script_file_get_modified (fixture->script));
  assert_file (fixture, SK_STEP_FILE_SCRIPT, NULL);

  /* An edit pending when its owner lets go is written all the same, though
   * nobody is left to hear of it. */
  sk_script_file_set_text (fixture->script, "# last words");
  g_clear_object (&fixture->script);
  SK_TEST_WAIT_UNTIL (file_is (fixture, SK_STEP_FILE_SCRIPT, "# last words\n"), WAIT_MSEC);

  g_assert_cmpuint (fixture->errors->len, ==, 0);

  /* The teardown wants a script file. */
  fixture->script = sk_script_file_new (fixture->folder, "load_sales");
}

static void
test_external_change (Fixture       *fixture,
                      gconstpointer  data)
{

  write_script (fixture, "print (1)\n");
  load (fixture);
  fixture->changed = 0;
  fixture->loaded = 0;

  /* The coding agent (or another editor) rewrites the script. */
  write_script (fixture, "print (2)\n");
  SK_TEST_WAIT_UNTIL (fixture->changed == 1 && fixture->loaded == 1, WAIT_MSEC);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "print (2)");
  g_assert_true (sk_script_file_get_has_script (fixture->script));

  /* The script disappears. */
  g_assert_cmpint (g_unlink (g_file_peek_path (sk_script_file_get_file (fixture->script))), ==, 0);
  SK_TEST_WAIT_UNTIL (fixture->changed == 2 && fixture->loaded == 2, WAIT_MSEC);
  g_assert_false (sk_script_file_get_has_script (fixture->script));
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "");

  write_script (fixture, "print (3)\n");
  SK_TEST_WAIT_UNTIL (fixture->loaded == 3, WAIT_MSEC);
  g_assert_true (sk_script_file_get_has_script (fixture->script));
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "print (3)");

  /* An edit not yet saved is not replaced by the file; it is saved over
   * it. */
  sk_script_file_set_text (fixture->script, "# mine\nprint (3)");
  write_script (fixture, "print (4)\n");
  SK_TEST_WAIT_UNTIL (fixture->saved->len == 1, WAIT_MSEC);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, "# mine\nprint (3)\n");
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "# mine\nprint (3)");
  g_assert_cmpuint (fixture->loaded, ==, 3);

  /* A check of a script that did not change changes nothing. */
  sk_script_file_check (fixture->script);
  g_usleep (G_USEC_PER_SEC / 2);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (fixture->loaded, ==, 3);

  /* Once closed, the file is no longer watched. */
  sk_script_file_close (fixture->script);
  write_script (fixture, "print (5)\n");
  g_usleep (G_USEC_PER_SEC / 2);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (fixture->loaded, ==, 3);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "# mine\nprint (3)");

  g_assert_cmpuint (fixture->errors->len, ==, 0);
}

static void
test_put_aside (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GFile) previous = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *path = NULL;

  /* The script goes where the step folder's layout says. */
  previous = sk_step_folder_get_file (fixture->folder, "load_sales", SK_STEP_FILE_PREVIOUS_SCRIPT);
  path = g_file_get_path (previous);
  expected = g_build_filename (fixture->dir, "load_sales", ".skele", "previous", "load_sales.py", NULL);
  g_assert_cmpstr (path, ==, expected);

  /* A step without a script has nothing to keep. */
  load (fixture);
  error = put_aside (fixture, NULL);
  g_assert_no_error (error);
  g_assert_false (g_file_query_exists (previous, NULL));

  /* The edit not yet saved goes aside with the script, after the saves
   * already queued. */
  write_script (fixture, "print ('old')\n");
  load (fixture);
  sk_script_file_set_text (fixture->script, "# one\nprint ('old')");
  sk_script_file_save (fixture->script);
  sk_script_file_set_text (fixture->script, "# two\nprint ('old')");
  fixture->loaded = 0;
  error = put_aside (fixture, NULL);
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->saved->len, ==, 2);
  g_assert_cmpuint (fixture->loaded, ==, 1);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, NULL);
  assert_file (fixture, SK_STEP_FILE_PREVIOUS_SCRIPT, "# two\nprint ('old')\n");
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "");
  g_assert_false (sk_script_file_get_has_script (fixture->script));
  g_assert_false (sk_script_file_get_modified (fixture->script));

  /* The coding agent writes a new script, which is noticed; a second time
   * replaces what was put aside before. */
  write_script (fixture, "print ('new')\n");
  sk_script_file_check (fixture->script);
  SK_TEST_WAIT_UNTIL (sk_script_file_get_has_script (fixture->script), WAIT_MSEC);
  error = put_aside (fixture, NULL);
  g_assert_no_error (error);
  assert_file (fixture, SK_STEP_FILE_PREVIOUS_SCRIPT, "print ('new')\n");
  assert_file (fixture, SK_STEP_FILE_SCRIPT, NULL);

  /* A move cancelled while it waits for a save leaves the script where
   * it is. */
  write_script (fixture, "print ('old')\n");
  load (fixture);
  sk_script_file_set_text (fixture->script, "print ('kept')");
  sk_script_file_save (fixture->script);
  cancellable = g_cancellable_new ();
  error = put_aside (fixture, cancellable);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  SK_TEST_WAIT_UNTIL (!sk_script_file_get_busy (fixture->script), WAIT_MSEC);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, "print ('kept')\n");
  g_assert_true (sk_script_file_get_has_script (fixture->script));

  g_assert_cmpuint (fixture->errors->len, ==, 0);
  sk_script_file_close (fixture->script);
}

static void
test_errors (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *step_folder = g_build_filename (fixture->dir, "load_sales", NULL);
  g_autoptr(GError) error = NULL;
  const GError *failure;

  /* A file where the step's folder should be: the save fails, and the
   * text stays, still to be saved. (Plain files are used rather than
   * permissions, which root ignores.) */
  sk_test_write_text (fixture->dir, "load_sales", "not a folder");
  load (fixture);
  g_assert_cmpuint (fixture->errors->len, ==, 1);
  failure = g_ptr_array_index (fixture->errors, 0);
  g_assert_true (g_str_has_prefix (failure->message, "The code could not be read: "));
  g_assert_false (sk_script_file_get_has_script (fixture->script));

  sk_script_file_set_text (fixture->script, "print ('precious')");
  sk_script_file_save (fixture->script);
  SK_TEST_WAIT_UNTIL (fixture->errors->len == 2, WAIT_MSEC);
  SK_TEST_WAIT_UNTIL (!sk_script_file_get_busy (fixture->script), WAIT_MSEC);
  failure = g_ptr_array_index (fixture->errors, 1);
  g_assert_error (failure, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY);
  g_assert_true (g_str_has_prefix (failure->message, "load_sales.py could not be saved: "));
  g_assert_cmpuint (fixture->saved->len, ==, 0);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "print ('precious')");
  g_assert_true (sk_script_file_get_modified (fixture->script));

  /* Putting aside fails too, and reports it, leaving the text alone. */
  error = put_aside (fixture, NULL);
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "print ('precious')");

  /* Once the way is clear, the next edit writes the text. */
  g_assert_cmpint (g_unlink (step_folder), ==, 0);
  sk_script_file_set_text (fixture->script, sk_script_file_get_text (fixture->script));
  sk_script_file_save (fixture->script);
  SK_TEST_WAIT_UNTIL (fixture->saved->len == 1, WAIT_MSEC);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, "print ('precious')\n");
  g_assert_false (sk_script_file_get_modified (fixture->script));

  /* A workflow folder that is gone: the step's folder cannot be made. */
  sk_script_file_close (fixture->script);
  g_clear_object (&fixture->script);
  sk_test_remove_tree (fixture->dir);
  fixture->script = sk_script_file_new (fixture->folder, "load_sales");
  g_signal_connect (fixture->script, "failed", G_CALLBACK (failed_cb), fixture);
  sk_script_file_set_text (fixture->script, "print ('lost?')");
  sk_script_file_save (fixture->script);
  SK_TEST_WAIT_UNTIL (fixture->errors->len == 3, WAIT_MSEC);
  failure = g_ptr_array_index (fixture->errors, 2);
  g_assert_error (failure, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (failure->message, "The step’s folder could not be created: "));
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "print ('lost?')");
  g_assert_true (sk_script_file_get_modified (fixture->script));
}

/* Sets the script's time of last change far back, so that a write shows. */
static void
age_script (Fixture *fixture)
{
  g_autofree char *path = g_build_filename (fixture->dir, "load_sales", "load_sales.py", NULL);
  struct utimbuf times = { 1000000000, 1000000000 };

  g_assert_cmpint (g_utime (path, &times), ==, 0);
}

static gint64
script_mtime (Fixture *fixture)
{
  g_autofree char *path = g_build_filename (fixture->dir, "load_sales", "load_sales.py", NULL);
  GStatBuf buf;

  g_assert_cmpint (g_stat (path, &buf), ==, 0);
  return buf.st_mtime;
}

static void
test_blank (Fixture       *fixture,
            gconstpointer  data)
{
  /* Typing only white space in a step without code, such as Tab pressed
   * to move on, writes nothing; whoever waits for the save hears that it
   * is done. */
  load (fixture);
  sk_script_file_set_text (fixture->script, "\t\t    \n  ");
  sk_script_file_save (fixture->script);
  g_assert_false (sk_script_file_get_busy (fixture->script));
  g_assert_cmpuint (fixture->saved->len, ==, 1);
  g_assert_false (sk_script_file_get_modified (fixture->script));
  g_assert_false (sk_script_file_get_has_script (fixture->script));
  assert_file (fixture, SK_STEP_FILE_SCRIPT, NULL);

  /* A script of white space only is no code. */
  write_script (fixture, "    \n\t\n");
  age_script (fixture);
  load (fixture);
  g_assert_cmpstr (sk_script_file_get_text (fixture->script), ==, "    \n\t");
  g_assert_false (sk_script_file_get_has_script (fixture->script));
  sk_script_file_set_text (fixture->script, "        ");
  sk_script_file_save (fixture->script);
  g_assert_false (sk_script_file_get_busy (fixture->script));
  g_assert_cmpuint (fixture->saved->len, ==, 2);
  g_assert_cmpint (script_mtime (fixture), ==, 1000000000);

  /* Code written into it makes it a script. */
  sk_script_file_set_text (fixture->script, "print (1)");
  sk_script_file_save (fixture->script);
  SK_TEST_WAIT_UNTIL (fixture->saved->len == 3, WAIT_MSEC);
  g_assert_true (sk_script_file_get_has_script (fixture->script));
  assert_file (fixture, SK_STEP_FILE_SCRIPT, "print (1)\n");

  /* An edit undone leaves the file as it was, not even touched. */
  age_script (fixture);
  sk_script_file_set_text (fixture->script, "print (2)");
  sk_script_file_set_text (fixture->script, "print (1)");
  sk_script_file_save (fixture->script);
  g_assert_false (sk_script_file_get_busy (fixture->script));
  g_assert_false (sk_script_file_get_modified (fixture->script));
  g_assert_cmpuint (fixture->saved->len, ==, 4);
  g_assert_cmpint (script_mtime (fixture), ==, 1000000000);

  /* Deleting the code down to white space is written, and leaves the step
   * without code. */
  sk_script_file_set_text (fixture->script, "  ");
  sk_script_file_save (fixture->script);
  SK_TEST_WAIT_UNTIL (fixture->saved->len == 5, WAIT_MSEC);
  assert_file (fixture, SK_STEP_FILE_SCRIPT, "  \n");
  g_assert_false (sk_script_file_get_has_script (fixture->script));

  /* The file monitor finds nothing new in it. */
  sk_script_file_check (fixture->script);
  g_usleep (500 * 1000);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (fixture->changed, ==, 0);

  sk_script_file_close (fixture->script);
  g_assert_cmpuint (fixture->errors->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/script-file/load", test_load);
  ADD ("/script-file/save-order", test_save_order);
  ADD ("/script-file/external-change", test_external_change);
  ADD ("/script-file/put-aside", test_put_aside);
  ADD ("/script-file/errors", test_errors);
  ADD ("/script-file/blank", test_blank);

#undef ADD

  return g_test_run ();
}
