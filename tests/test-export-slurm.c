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
  /* The exported workflow must not need anything of the build's. */
  GSubprocessLauncher *launcher = sk_test_new_launcher (flags, SK_TEST_RUN_NO_PYTHONPATH);
  g_autofree char *user = NULL;

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
run_argv (SkTestResult       *result,
          Cluster            *cluster,
          const char         *cwd,
          const char * const *argv)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;

  launcher = new_launcher (cluster, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                    G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, end_with_test, NULL, NULL);
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  sk_test_run_launcher (result, launcher, SK_TEST_RUN_NO_PYTHONPATH, argv);
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
  g_auto(SkTestResult) result = { 0 };
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
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "cluster ready");
}

static void
cluster_teardown (Cluster       *cluster,
                  gconstpointer  data)
{
  if (cluster->watcher != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_auto(SkTestResult) result = { 0 };
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
  g_auto(SkTestResult) result = { 0 };
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
    sk_test_assert_status (&result, 0);
  }
  snakefile = sk_test_read_text (out, "Snakefile");
  sk_test_assert_contains (snakefile, "\nlocalrules:\n    all\n\n");

  cluster_start (cluster);

  started = g_get_monotonic_time ();
  run_argv (&result, cluster, out, snakemake_argv);
  g_test_message ("Snakemake ran the example on Slurm in %.1f s.",
                  (g_get_monotonic_time () - started) / 1e6);
  sk_test_assert_status (&result, 0);
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

  sk_test_copy_folder (example, copy);
  {
    const char *run_argv_[] = { skele_bin, "run", copy, "--python", python, NULL };

    run_argv (&result, NULL, NULL, run_argv_);
    sk_test_assert_status (&result, 0);
  }
  sk_test_assert_same_outputs (copy, out, expected);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!sk_test_need_skele (&skele_bin, &examples_dir))
    return g_test_run ();

  g_test_add ("/export-slurm/sales-report", Cluster, NULL,
              cluster_setup, test_sales_report, cluster_teardown);

  return g_test_run ();
}
