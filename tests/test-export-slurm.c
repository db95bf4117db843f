/* test-export-slurm.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Snakemake export on a real Slurm cluster (DESIGN §11): the example
 * workflow, exported, runs with `snakemake --profile profiles/slurm-7`,
 * every step as a Slurm job of its own, to the same files as `skele run`.
 *
 * The cluster is one machine: tests/slurm-local.sh starts a private
 * munged, slurmctld and slurmd, with their state in a temporary folder and
 * on ports of their own, and stops them again. That needs root and
 * Debian's slurm-wlm, slurm-client, munge and snakemake, which
 * build-aux/install-deps.sh installs. Without them the test fails and says
 * so; with SKELE_TESTS_ALLOW_MISSING_TOOLS=1 in the environment it skips
 * instead.
 *
 * The cluster is stopped by a watcher of its own, in a session of its own,
 * which waits for the end of its standard input: that comes when the test
 * closes it, and also when the test ends in a failed assertion or is
 * killed, so that no daemons are left behind.
 */

#define G_LOG_DOMAIN "test-export-slurm"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "sk-test-util.h"

static const char *skele_bin;
static const char *examples_dir;

typedef struct
{
  int    status;
  char  *out;
  char  *err;
} Result;

static void
result_clear (Result *result)
{
  g_clear_pointer (&result->out, g_free);
  g_clear_pointer (&result->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Result, result_clear)

/* The cluster of one test: its tool, its folder and ports, and the watcher
 * that stops it. */
typedef struct
{
  char        *tool;
  char        *top;
  char        *dir;
  char        *conf;
  char        *ctld_port;
  char        *slurmd_port;
  GSubprocess *watcher;
} Cluster;

static GSubprocessLauncher *
new_launcher (Cluster           *cluster,
              GSubprocessFlags   flags)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (flags);
  g_autofree char *user = NULL;

  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "LANGUAGE");
  /* The exported workflow must not need anything of the build's. */
  g_subprocess_launcher_unsetenv (launcher, "PYTHONPATH");
  if (cluster != NULL)
    {
      g_subprocess_launcher_setenv (launcher, "SLURM_LOCAL_DIR", cluster->dir, TRUE);
      g_subprocess_launcher_setenv (launcher, "SLURM_LOCAL_CTLD_PORT", cluster->ctld_port, TRUE);
      g_subprocess_launcher_setenv (launcher, "SLURM_LOCAL_SLURMD_PORT", cluster->slurmd_port,
                                    TRUE);
      /* Leave /etc/slurm alone: the clients are told the configuration. */
      g_subprocess_launcher_setenv (launcher, "SLURM_LOCAL_LINK_ETC", "0", TRUE);
      g_subprocess_launcher_setenv (launcher, "SLURM_CONF", cluster->conf, TRUE);
    }
  /* Snakemake's Slurm support fails without USER (TESTING.md). */
  user = g_strdup (g_get_user_name ());
  g_subprocess_launcher_setenv (launcher, "USER", user, FALSE);
  return launcher;
}

/* In the child: it ends when the test does, so that a test that fails
 * leaves no Snakemake behind that waits for a cluster that is gone. */
static void
end_with_test (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

/* Runs @argv (NULL-terminated) in @cwd, with the cluster's environment
 * when @cluster is not %NULL. */
static void
run_argv (Result             *result,
          Cluster            *cluster,
          const char         *cwd,
          const char * const *argv)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;

  result_clear (result);
  launcher = new_launcher (cluster, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                    G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, end_with_test, NULL, NULL);
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &result->out, &result->err, &error);
  g_assert_no_error (error);
  result->status = g_subprocess_get_if_exited (process)
                   ? g_subprocess_get_exit_status (process) : -1;
}

static void
assert_status (Result *result,
               int     expected)
{
  if (result->status != expected)
    g_error ("The command exited with %d instead of %d.\nstdout:\n%s\nstderr:\n%s",
             result->status, expected, result->out, result->err);
}

/* Copies the folder @from to @to, as a person copies a workflow. */
static void
copy_folder (const char *from,
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
          copy_folder (source, target);
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

/* Orders an array of strings, for g_ptr_array_sort(). */
static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

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

/* Adds to @files the paths, below @root, of the files that the steps in
 * the folder @relative hold: everything but the bookkeeping, the tests,
 * Python's caches, Snakemake's folder and, in a workflow's own folder, the
 * files of the workflow and of its export. */
static void
list_step_files (const char *root,
                 const char *relative,
                 GPtrArray  *files)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  g_autofree char *plan = g_build_filename (path, "plan.json", NULL);
  g_autofree char *process = g_build_filename (path, "process.json", NULL);
  gboolean workflow_folder = g_file_test (plan, G_FILE_TEST_EXISTS) ||
                             g_file_test (process, G_FILE_TEST_EXISTS);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (relative, name, NULL);
      g_autofree char *child_path = g_build_filename (root, child, NULL);

      if (g_str_equal (name, ".skele") || g_str_equal (name, "test") ||
          g_str_equal (name, "__pycache__") || g_str_equal (name, ".snakemake"))
        continue;
      if (workflow_folder && (is_workflow_file (name) || g_str_equal (name, "profiles")))
        continue;

      if (g_file_test (child_path, G_FILE_TEST_IS_DIR))
        list_step_files (root, child, files);
      else
        g_ptr_array_add (files, g_steal_pointer (&child));
    }
}

static char *
joined_step_files (const char *root)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  list_step_files (root, "", files);
  g_ptr_array_sort (files, compare_strings);
  g_ptr_array_add (files, NULL);
  return g_strjoinv ("\n", (char **) files->pdata);
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

/* The steps left the same files, byte for byte, in the workflow that
 * `skele run` ran and in the export that Snakemake ran; @expected names
 * some that must be among them. */
static void
assert_same_outputs (const char         *ran,
                     const char         *exported,
                     const char * const *expected)
{
  g_autofree char *ran_files = joined_step_files (ran);
  g_autofree char *exported_files = joined_step_files (exported);
  g_auto(GStrv) files = g_strsplit (ran_files, "\n", -1);

  g_assert_cmpstr (exported_files, ==, ran_files);
  for (guint i = 0; expected[i] != NULL; i++)
    g_assert_true (g_strv_contains ((const char * const *) files, expected[i]));

  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autoptr(GBytes) want = read_bytes (ran, files[i]);
      g_autoptr(GBytes) got = read_bytes (exported, files[i]);

      if (!g_bytes_equal (want, got))
        g_error ("%s differs between `skele run` and Snakemake on Slurm.", files[i]);
    }
}

/* A TCP port on the loopback that nothing listens on now, so that the
 * cluster cannot collide with one that someone else runs. */
static char *
free_port (void)
{
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GError) error = NULL;
  guint16 port = g_socket_listener_add_any_inet_port (listener, NULL, &error);

  g_assert_no_error (error);
  g_socket_listener_close (listener);
  return g_strdup_printf ("%u", port);
}

static const char * const needed_programs[] = {
  "snakemake", "munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol",
  "sinfo", "scancel",
};

/* Whether this machine can run a cluster; fails or skips the test when it
 * cannot. */
static gboolean
can_run_cluster (void)
{
  g_autoptr(GString) missing = g_string_new (NULL);
  const char *allow = g_getenv ("SKELE_TESTS_ALLOW_MISSING_TOOLS");

  for (guint i = 0; i < G_N_ELEMENTS (needed_programs); i++)
    {
      g_autofree char *path = g_find_program_in_path (needed_programs[i]);

      if (path == NULL)
        g_string_append_printf (missing, " %s", needed_programs[i]);
    }

  if (missing->len > 0)
    {
      if (g_strcmp0 (allow, "1") == 0)
        g_test_skip_printf ("not installed:%s, and SKELE_TESTS_ALLOW_MISSING_TOOLS=1",
                            missing->str);
      else
        g_test_fail_printf ("not installed:%s. Run build-aux/install-deps.sh, or set "
                            "SKELE_TESTS_ALLOW_MISSING_TOOLS=1 to skip what needs them",
                            missing->str);
      return FALSE;
    }

  if (getuid () != 0)
    {
      if (g_strcmp0 (allow, "1") == 0)
        g_test_skip ("a Slurm cluster needs root, and SKELE_TESTS_ALLOW_MISSING_TOOLS=1");
      else
        g_test_fail_printf ("a Slurm cluster needs root (slurmd runs the jobs as their "
                            "users): run the test as root after build-aux/install-deps.sh, "
                            "or set SKELE_TESTS_ALLOW_MISSING_TOOLS=1 to skip it");
      return FALSE;
    }

  return TRUE;
}

static void
cluster_setup (Cluster       *cluster,
               gconstpointer  data)
{
  cluster->tool = g_test_build_filename (G_TEST_DIST, "slurm-local.sh", NULL);
  cluster->top = sk_test_make_tmp_dir ("export-slurm");
  /* munged wants every folder above its socket open to all. */
  g_assert_cmpint (g_chmod (cluster->top, 0755), ==, 0);
  cluster->dir = g_build_filename (cluster->top, "cluster", NULL);
  cluster->conf = g_build_filename (cluster->dir, "etc", "slurm.conf", NULL);
  cluster->ctld_port = free_port ();
  do
    {
      g_free (cluster->slurmd_port);
      cluster->slurmd_port = free_port ();
    }
  while (g_str_equal (cluster->slurmd_port, cluster->ctld_port));
}

/* Starts the cluster, after its watcher. */
static void
cluster_start (Cluster *cluster)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *log = g_build_filename (cluster->top, "stop.log", NULL);
  g_auto(Result) result = { 0 };
  const char *watcher_argv[] = {
    "setsid", "sh", "-c", "cat >/dev/null; exec \"$0\" stop", cluster->tool, NULL
  };
  const char *start_argv[] = { cluster->tool, "start", NULL };

  /* The watcher writes to a file, which it can still do when the test is
   * gone. */
  launcher = new_launcher (cluster, G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                    G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_set_stdout_file_path (launcher, log);
  cluster->watcher = g_subprocess_launcher_spawnv (launcher, watcher_argv, &error);
  g_assert_no_error (error);

  run_argv (&result, cluster, NULL, start_argv);
  assert_status (&result, 0);
  sk_test_assert_contains (result.out, "cluster ready");
}

static void
cluster_teardown (Cluster       *cluster,
                  gconstpointer  data)
{
  if (cluster->watcher != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *status_out = NULL;
      g_auto(Result) result = { 0 };
      const char *status_argv[] = { cluster->tool, "status", NULL };

      /* The end of its input tells the watcher to stop the cluster. */
      g_output_stream_close (g_subprocess_get_stdin_pipe (cluster->watcher), NULL, &error);
      g_assert_no_error (error);
      g_subprocess_wait_check (cluster->watcher, NULL, &error);
      g_assert_no_error (error);
      g_clear_object (&cluster->watcher);

      run_argv (&result, cluster, NULL, status_argv);
      g_assert_cmpint (result.status, ==, 3);
      g_assert_null (strstr (result.out, ": running"));
    }

  sk_test_remove_tree (cluster->top);
  g_free (cluster->tool);
  g_free (cluster->top);
  g_free (cluster->dir);
  g_free (cluster->conf);
  g_free (cluster->ctld_port);
  g_free (cluster->slurmd_port);
}

static const char * const example_steps[] = {
  "load_sales", "monthly_totals", "revenue_by_region", "revenue_chart", "sales_report",
  "region_sheets", "flag_weak_region", "confirm_balance", "region_review",
};

/* The example, exported before it ever ran, runs on the cluster with the
 * export's profile, each step as a Slurm job, to the files of `skele run`. */
static void
test_sales_report (Cluster       *cluster,
                   gconstpointer  data)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *out = g_build_filename (cluster->top, "out", NULL);
  g_autofree char *copy = g_build_filename (cluster->top, "copy", NULL);
  g_autofree char *snakefile = NULL;
  g_autofree char *output = NULL;
  g_autofree char *python = g_find_program_in_path ("/usr/bin/python3");
  g_auto(Result) result = { 0 };
  const char *snakemake_argv[] = {
    "snakemake", "--profile", "profiles/slurm-7", "--max-status-checks-per-second", "1", NULL
  };
  const char * const expected[] = {
    "sales_report/report.md", "revenue_chart/revenue_chart.svg",
    "region_sheets/items/3/west_sales.csv", "load_sales/load_sales.pkl", NULL
  };
  const char *p;
  guint submitted = 0;
  gint64 started;

  if (!can_run_cluster ())
    return;
  g_assert_nonnull (python);

  /* A workflow that never ran has no quick steps to keep off the cluster. */
  {
    const char *export_argv[] = {
      skele_bin, "export", example, "--format", "snakemake", "-o", out, NULL
    };

    run_argv (&result, NULL, NULL, export_argv);
    assert_status (&result, 0);
  }
  snakefile = sk_test_read_text (out, "Snakefile");
  sk_test_assert_contains (snakefile, "\nlocalrules:\n    all\n\n");

  cluster_start (cluster);

  started = g_get_monotonic_time ();
  run_argv (&result, cluster, out, snakemake_argv);
  g_test_message ("Snakemake ran the example on Slurm in %.1f s.",
                  (g_get_monotonic_time () - started) / 1e6);
  assert_status (&result, 0);
  output = g_strconcat (result.out, result.err, NULL);

  for (p = strstr (output, "submitted with SLURM jobid"); p != NULL;
       p = strstr (p + 1, "submitted with SLURM jobid"))
    submitted++;
  g_assert_cmpuint (submitted, ==, G_N_ELEMENTS (example_steps));
  for (guint i = 0; i < G_N_ELEMENTS (example_steps); i++)
    {
      g_autofree char *rule = g_strdup_printf ("rule %s:", example_steps[i]);
      g_autofree char *logs = g_strdup_printf (".snakemake/slurm_logs/rule_%s",
                                               example_steps[i]);
      g_autofree char *folder = g_build_filename (out, logs, NULL);
      g_autoptr(GDir) dir = NULL;
      const char *name;
      guint n_logs = 0;

      sk_test_assert_contains (output, rule);
      dir = g_dir_open (folder, 0, NULL);
      if (dir == NULL)
        g_error ("Snakemake kept no Slurm log in %s.\n%s", logs, output);
      while ((name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".log"))
          n_logs++;
      g_assert_cmpuint (n_logs, ==, 1);
    }
  sk_test_assert_contains (output, "10 of 10 steps (100%) done");

  copy_folder (example, copy);
  {
    const char *run_argv_[] = { skele_bin, "run", copy, "--python", python, NULL };

    run_argv (&result, NULL, NULL, run_argv_);
    assert_status (&result, 0);
  }
  assert_same_outputs (copy, out, expected);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  skele_bin = g_getenv ("SKELE_BIN");
  examples_dir = g_getenv ("SKELE_EXAMPLES_DIR");
  if (skele_bin == NULL || examples_dir == NULL)
    {
      g_test_skip ("SKELE_BIN and SKELE_EXAMPLES_DIR are not set; run the tests with meson test");
      return g_test_run ();
    }

  g_test_add ("/export-slurm/sales-report", Cluster, NULL,
              cluster_setup, test_sales_report, cluster_teardown);

  return g_test_run ();
}
