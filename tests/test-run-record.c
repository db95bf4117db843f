/* test-run-record.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fingerprints, records and changed files, without running Python.
 */

#define G_LOG_DOMAIN "test-run-record"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sk-json.h"
#include "sk-project.h"
#include "sk-run-record.h"
#include "sk-step-folder.h"
#include "sk-test-util.h"

typedef struct
{
  char      *folder;
  GFile     *file;
  SkProject *project;
} Workflow;

static Workflow *
workflow_new (void)
{
  Workflow *wf = g_new0 (Workflow, 1);

  wf->folder = sk_test_make_tmp_dir ("run-record");
  wf->file = g_file_new_for_path (wf->folder);
  wf->project = sk_project_new (wf->file);

  return wf;
}

static void
workflow_free (Workflow *wf)
{
  sk_test_remove_tree (wf->folder);
  g_clear_object (&wf->project);
  g_clear_object (&wf->file);
  g_free (wf->folder);
  g_free (wf);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Workflow, workflow_free)

static SkNode *
workflow_add (Workflow   *wf,
              const char *id,
              const char *name,
              const char *prior)
{
  g_autoptr(SkNode) node = sk_node_new (id, name);
  g_autoptr(GError) error = NULL;

  if (prior != NULL)
    sk_node_set_priors (node, SK_TEST_STRV (prior));
  sk_node_set_input_text (node, name);

  sk_project_add_node (wf->project, node, &error);
  g_assert_no_error (error);

  return node;
}

static char *
step_folder (Workflow *wf,
             SkNode   *node)
{
  return g_build_filename (wf->folder, sk_node_get_key (node), NULL);
}

static void
computed_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  SkFingerprints **fingerprints = user_data;
  g_autoptr(GError) error = NULL;

  *fingerprints = sk_fingerprints_compute_finish (result, &error);
  g_assert_no_error (error);
}

static void
fingerprints_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* A fingerprint follows the script, the task text, the input files and,
 * through its prior, everything upstream. */
static void
test_fingerprint (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  SkNode *load = workflow_add (wf, "n1", "load", NULL);
  SkNode *report = workflow_add (wf, "n2", "report", "n1");
  g_autofree char *first = NULL;
  g_autofree char *again = NULL;
  g_autofree char *other_python = NULL;
  g_autofree char *text_changed = NULL;
  g_autofree char *upstream_changed = NULL;
  g_autofree char *input_changed = NULL;
  g_autofree char *load_before = NULL;
  g_autoptr(GPtrArray) order = NULL;
  SkFingerprints *fingerprints = NULL;

  sk_test_write_text (wf->folder, "load/load.py", "print('load')\n");
  sk_test_write_text (wf->folder, "report/report.py", "print('report')\n");
  sk_test_write_text (wf->folder, "report/data.csv", "1,2\n");
  sk_node_set_input_files (report, SK_TEST_STRV ("data.csv"));

  first = sk_run_record_fingerprint (wf->project, report, "/usr/bin/python3");
  again = sk_run_record_fingerprint (wf->project, report, "/usr/bin/python3");
  g_assert_nonnull (first);
  g_assert_cmpuint (strlen (first), ==, 64);
  g_assert_cmpstr (first, ==, again);

  other_python = sk_run_record_fingerprint (wf->project, report, "/opt/python3");
  g_assert_cmpstr (first, !=, other_python);

  /* The threaded computation gives the same fingerprints, in order. */
  order = sk_project_topological_order (wf->project, NULL);
  g_assert_cmpuint (order->len, ==, 2);
  sk_fingerprints_compute_async (sk_fingerprints_new (wf->project, order, "/usr/bin/python3"),
                                 NULL, computed_cb, &fingerprints);
  SK_TEST_WAIT_UNTIL (fingerprints != NULL, 10000);
  g_assert_cmpstr (sk_fingerprints_get (fingerprints, 1), ==, first);
  load_before = g_strdup (sk_fingerprints_get (fingerprints, 0));
  g_clear_pointer (&fingerprints, sk_fingerprints_free);

  sk_node_set_input_text (report, "report, differently");
  text_changed = sk_run_record_fingerprint (wf->project, report, "/usr/bin/python3");
  g_assert_cmpstr (text_changed, !=, first);
  sk_node_set_input_text (report, "report");

  sk_test_write_text (wf->folder, "report/data.csv", "1,2,3\n");
  input_changed = sk_run_record_fingerprint (wf->project, report, "/usr/bin/python3");
  g_assert_cmpstr (input_changed, !=, first);

  sk_test_write_text (wf->folder, "load/load.py", "print('load, differently')\n");
  upstream_changed = sk_run_record_fingerprint (wf->project, report, "/usr/bin/python3");
  g_assert_cmpstr (upstream_changed, !=, input_changed);

  g_free (again);
  again = sk_run_record_fingerprint (wf->project, load, "/usr/bin/python3");
  g_assert_cmpstr (again, !=, load_before);
}

/* A record is usable when it tells of a success in isolated mode, the
 * pickle is there and the fingerprint matches. */
static void
test_record (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  SkNode *node = workflow_add (wf, "n1", "load", NULL);
  g_autofree char *folder = step_folder (wf, node);
  g_autofree char *record_path = sk_step_folder_build_path (folder, "load", SK_STEP_FILE_RECORD);
  g_autoptr(JsonObject) record = NULL;
  g_autoptr(JsonNode) keys = json_from_string ("{\"value\": \"int\"}", NULL);
  g_autoptr(GError) error = NULL;
  SkRunRecord fields = {
    .status = "success",
    .fingerprint = "abc",
    .seconds = 0.5,
    .output_keys = keys,
  };

  g_assert_null (sk_run_record_read (folder, "load"));

  sk_node_set_output_text (node, "Loaded 3 rows.");
  sk_node_set_output_files (node, SK_TEST_STRV ("out/rows.csv", "plot.png"));
  g_assert_true (sk_run_record_write (folder, node, &fields, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (record_path, G_FILE_TEST_IS_REGULAR));

  record = sk_run_record_read (folder, "load");
  g_assert_nonnull (record);
  g_assert_cmpstr (sk_json_get_string (record, "status"), ==, "success");
  g_assert_cmpstr (sk_json_get_string (record, "mode"), ==, "isolated");
  g_assert_cmpstr (sk_json_get_string (record, "fingerprint"), ==, "abc");
  g_assert_nonnull (sk_json_get_object (record, "output_keys"));
  g_assert_null (sk_json_get_string (record, "error"));

  /* Without its pickle, a success is of no use to successors; a pickle
   * written after the record is not the one the record vouches for. */
  g_assert_false (sk_run_record_is_usable (record, folder, "load", "abc"));
  sk_test_write_text (wf->folder, "load/load.pkl", "pickle");
  g_assert_false (sk_run_record_is_usable (record, folder, "load", "abc"));
  g_assert_true (sk_run_record_write (folder, node, &fields, &error));
  g_clear_pointer (&record, json_object_unref);
  record = sk_run_record_read (folder, "load");
  g_assert_true (sk_run_record_is_usable (record, folder, "load", "abc"));
  g_assert_true (sk_run_record_is_usable (record, folder, "load", NULL));
  g_assert_false (sk_run_record_is_usable (record, folder, "load", "abd"));
  g_assert_false (sk_run_record_is_usable (NULL, folder, "load", NULL));

  /* The outputs come back from the record. */
  sk_node_set_output_text (node, "");
  sk_node_set_output_files (node, SK_TEST_STRV (NULL));
  sk_run_record_restore_outputs (record, node);
  g_assert_cmpstr (sk_node_get_output_text (node), ==, "Loaded 3 rows.");
  g_assert_cmpstrv (sk_node_get_output_files (node), SK_TEST_STRV ("out/rows.csv", "plot.png"));

  /* The in-memory mode saves no pickle, so its records are never reused;
   * neither is a failure. */
  fields.in_memory = TRUE;
  g_assert_true (sk_run_record_write (folder, node, &fields, NULL));
  g_clear_pointer (&record, json_object_unref);
  record = sk_run_record_read (folder, "load");
  g_assert_cmpstr (sk_json_get_string (record, "mode"), ==, "in-memory");
  g_assert_false (sk_run_record_is_usable (record, folder, "load", "abc"));

  fields.in_memory = FALSE;
  fields.status = "failed";
  fields.error = "It broke.";
  fields.detail = "Traceback";
  g_assert_true (sk_run_record_write (folder, node, &fields, NULL));
  g_clear_pointer (&record, json_object_unref);
  record = sk_run_record_read (folder, "load");
  g_assert_cmpstr (sk_json_get_string (record, "error"), ==, "It broke.");
  g_assert_cmpstr (sk_json_get_string (record, "detail"), ==, "Traceback");
  g_assert_false (sk_run_record_is_usable (record, folder, "load", "abc"));
}

/* The changed files leave out the step's own files, its inputs and its
 * bookkeeping; a summary counts only when it was written again. */
static void
test_changed_files (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  SkNode *node = workflow_add (wf, "n1", "load", NULL);
  g_autofree char *folder = step_folder (wf, node);
  g_autoptr(GHashTable) snapshot = NULL;
  g_auto(GStrv) files = NULL;
  g_autofree char *summary = NULL;

  sk_test_write_text (wf->folder, "load/load.py", "print('load')\n");
  sk_test_write_text (wf->folder, "load/old.txt", "old\n");
  sk_test_write_text (wf->folder, "load/input.csv", "1\n");
  sk_test_write_text (wf->folder, "load/load_summary.txt", "An earlier run.\n");

  snapshot = sk_run_record_snapshot_folder (folder);
  g_assert_true (g_hash_table_contains (snapshot, "old.txt"));
  g_assert_null (sk_run_record_read_summary (folder, "load", snapshot, NULL));

  sk_test_write_text (wf->folder, "load/load.pkl", "pickle");
  sk_test_write_text (wf->folder, "load/input.csv", "1,2\n");
  sk_test_write_text (wf->folder, "load/out/rows.csv", "rows\n");
  sk_test_write_text (wf->folder, "load/b.txt", "b\n");
  sk_test_write_text (wf->folder, "load/.skele/stdout.log", "printed\n");
  sk_test_write_text (wf->folder, "load/test/test_load.py", "def test(): pass\n");
  sk_test_write_text (wf->folder, "load/__pycache__/load.pyc", "cache");

  files = sk_run_record_changed_files (folder, "load", SK_TEST_STRV ("input.csv"), snapshot);
  g_assert_cmpstrv (files, SK_TEST_STRV ("b.txt", "out/rows.csv"));

  sk_test_write_text (wf->folder, "load/load_summary.txt", "Loaded three rows, as asked.\n\n");
  summary = sk_run_record_read_summary (folder, "load", snapshot, NULL);
  g_assert_cmpstr (summary, ==, "Loaded three rows, as asked.");
}

/* Inputs that are not regular files are not read, which would never end:
 * the fingerprint says so and names the file.
 */
static void
test_not_regular (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  SkNode *load = workflow_add (wf, "n1", "load", NULL);
  SkNode *zero = workflow_add (wf, "n2", "zero", NULL);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  g_autoptr(SkFingerprints) fingerprints = NULL;
  g_autofree char *fifo = g_build_filename (wf->folder, "load", "pipe", NULL);
  g_autofree char *link = g_build_filename (wf->folder, "zero", "zero", NULL);

  sk_node_set_input_files (load, SK_TEST_STRV ("pipe"));
  sk_node_set_input_files (zero, SK_TEST_STRV ("zero"));
  sk_test_write_text (wf->folder, "load/load.py", "print('load')\n");
  sk_test_write_text (wf->folder, "zero/zero.py", "print('zero')\n");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", link), ==, 0);

  g_ptr_array_add (order, load);
  g_ptr_array_add (order, zero);
  fingerprints = sk_fingerprints_new (wf->project, order, NULL);
  sk_fingerprints_compute (fingerprints);

  g_assert_nonnull (sk_fingerprints_get (fingerprints, 0));
  sk_test_assert_contains (sk_fingerprints_get_problem (fingerprints, 0), "“pipe”");
  sk_test_assert_contains (sk_fingerprints_get_problem (fingerprints, 1), "“zero”");
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

/* Hashing large inputs stops soon after the run is stopped. */
static void
test_cancel_large (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  SkNode *load = workflow_add (wf, "n1", "load", NULL);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(SkFingerprints) fingerprints = NULL;
  g_autoptr(GError) error = NULL;
  const char *names[] = { "a.bin", "b.bin", "c.bin", "d.bin", NULL };
  GAsyncResult *result = NULL;
  gint64 start;
  double elapsed;

  /* Sparse files just under the size beyond which files are not read:
   * reading all four takes many seconds.
   */
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (wf->folder, "load", names[i], NULL);
      int fd;

      sk_test_write_text (wf->folder, "load/load.py", "print('load')\n");
      fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (ftruncate (fd, (G_GINT64_CONSTANT (1) << 30) - 4096), ==, 0);
      close (fd);
    }
  sk_node_set_input_files (load, names);

  g_ptr_array_add (order, load);
  start = g_get_monotonic_time ();
  g_timeout_add (100, cancel_cb, cancellable);
  sk_fingerprints_compute_async (sk_fingerprints_new (wf->project, order, NULL),
                                 cancellable, fingerprints_cb, &result);
  SK_TEST_WAIT_UNTIL (result != NULL, 120 * 1000);
  elapsed = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;

  fingerprints = sk_fingerprints_compute_finish (result, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (fingerprints);
  g_assert_cmpfloat (elapsed, <, 3);
  g_object_unref (result);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/run-record/fingerprint", test_fingerprint);
  g_test_add_func ("/run-record/record", test_record);
  g_test_add_func ("/run-record/changed-files", test_changed_files);
  g_test_add_func ("/run-record/not-regular", test_not_regular);
  g_test_add_func ("/run-record/cancel-large", test_cancel_large);

  return g_test_run ();
}
