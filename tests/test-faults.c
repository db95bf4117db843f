/* test-faults.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "test-faults"

#include "config.h"

#include "sk-project.h"
#include "sk-test-util.h"

/* Killing skele, or a save, at a random moment must never leave a workflow
 * that does not load, results that are vouched for but incomplete, or a
 * next run that goes wrong. The moments are random but reproducible from
 * the test's seed (`-seed`). */

#define CHAIN_LENGTH 6
#define SAVE_NODES   10000

static const char *skele_bin;
static char *python_path;
static char *self_path;

/* Each step checks its prior's pickle and adds one to its number, so a
 * truncated or missing prior shows as a failure or a wrong number. */
#define CHAIN_COMPUTE \
  "    priors = state[\"local\"][\"priors\"]\n" \
  "    value = 0\n" \
  "    for output in priors.values():\n" \
  "        if output.get(\"task_status\") != \"success\":\n" \
  "            state[\"output\"] = {\"task_status\": \"failed\", \"error_log\": \"prior missing\"}\n" \
  "            return\n" \
  "        value = output[\"value\"]\n" \
  "    time.sleep(0.05)\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": value + 1,\n" \
  "                       \"padding\": \"x\" * 200000}\n" \
  "    report(\"value \" + str(value + 1))"

static void
write_chain (const char *dir)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(SkProject) project = sk_project_new (folder);
  g_autoptr(GError) error = NULL;

  sk_project_set_name (project, "chain");
  for (guint i = 1; i <= CHAIN_LENGTH; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *prior = g_strdup_printf ("%u", i - 1);
      g_autofree char *name = g_strdup_printf ("step%u", i);
      g_autoptr(SkNode) node = sk_node_new (id, name);

      if (i > 1)
        sk_node_set_priors (node, SK_TEST_STRV (prior));
      sk_node_set_run (node, TRUE);
      sk_project_add_node (project, node, &error);
      g_assert_no_error (error);
      sk_test_write_script (dir, SK_TEST_SCRIPT_TEMPLATE, name, NULL, CHAIN_COMPUTE);
    }

  g_assert_true (sk_project_save (project, &error));
  g_assert_no_error (error);
}

static GSubprocess *
spawn (const char * const *argv)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_setenv (launcher, "SKELE_PYTHON", python_path, TRUE);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  return process;
}

static int
wait_status (GSubprocess *process)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_wait (process, NULL, &error));
  g_assert_no_error (error);
  return g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process) : -1;
}

static void
assert_loads (const char *dir,
              guint       n_nodes)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;

  project = sk_project_load (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, n_nodes);
}

/* kill -9 of `skele run --force` at random moments: after each, the
 * workflow loads, and a run to the end gives the right numbers. */
static void
test_kill_run (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("faults");
  guint rounds = sk_test_env_uint ("SKELE_FAULT_ROUNDS", 20, 10000);
  const char *run_force[] = { skele_bin, "run", dir, "--force", NULL };
  const char *run[] = { skele_bin, "run", dir, NULL };

  write_chain (dir);

  for (guint round = 0; round < rounds; round++)
    {
      g_autoptr(GSubprocess) process = spawn (run_force);
      guint delay_ms = g_test_rand_int_range (0, 800);

      /* Only skele is killed: the step it runs dies with it, and what a
       * sandbox that was just starting may leave is stopped by the next
       * run before anything runs again (sk_process_kill_orphans()). */
      g_usleep (delay_ms * 1000);
      g_subprocess_force_exit (process);
      wait_status (process);

      assert_loads (dir, CHAIN_LENGTH);

      /* What the interrupted run left is either complete or run again. */
      {
        g_autoptr(GSubprocess) again = spawn (run);
        g_autofree char *last = NULL;

        g_assert_cmpint (wait_status (again), ==, 0);
        last = sk_test_read_text (dir, "step6/step6_summary.txt");
        sk_test_assert_contains (last, "value 6");
      }
      assert_loads (dir, CHAIN_LENGTH);
      g_assert_true (sk_test_processes_gone_in (dir));
    }

  sk_test_remove_tree (dir);
}

/* The child side of test_kill_save(): saves a large workflow again and
 * again until it is killed. */
static int
save_forever (const char *dir)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(SkProject) project = sk_project_load (folder, NULL);

  if (project == NULL)
    return 1;

  for (guint i = 0; ; i++)
    {
      g_autofree char *text = g_strdup_printf ("round %u", i);

      sk_node_set_input_text (sk_project_get_node (project, "1"), text);
      if (!sk_project_save (project, NULL))
        return 1;
    }
}

/* kill -9 while a 10,000-step workflow is being saved: the file is always
 * the old one or the new one, never cut short. */
static void
test_kill_save (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("faults-save");
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(SkProject) project = sk_project_new (folder);
  g_autoptr(GError) error = NULL;
  guint rounds = sk_test_env_uint ("SKELE_FAULT_ROUNDS", 10, 10000);
  const char *argv[] = { self_path, "--save-forever", dir, NULL };

  for (guint i = 1; i <= SAVE_NODES; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *name = g_strdup_printf ("step %u", i);
      g_autoptr(SkNode) node = sk_node_new (id, name);

      sk_node_set_input_text (node, "a task of a few words that every step has");
      sk_project_add_node (project, node, &error);
      g_assert_no_error (error);
    }
  g_assert_true (sk_project_save (project, &error));
  g_assert_no_error (error);

  for (guint round = 0; round < rounds; round++)
    {
      g_autoptr(GSubprocess) process = spawn (argv);

      g_usleep ((200 + g_test_rand_int_range (0, 1500)) * 1000);
      g_subprocess_force_exit (process);
      wait_status (process);

      assert_loads (dir, SAVE_NODES);
    }

  sk_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && g_str_equal (argv[1], "--save-forever"))
    return save_forever (argv[2]);

  g_test_init (&argc, &argv, NULL);

  self_path = g_canonicalize_filename (argv[0], NULL);
  skele_bin = g_getenv ("SKELE_BIN");
  python_path = sk_test_find_python ();
  if (skele_bin == NULL || python_path == NULL)
    {
      g_test_skip ("skele or Python is missing");
      return g_test_run ();
    }

  g_test_add_func ("/faults/kill-run", test_kill_run);
  g_test_add_func ("/faults/kill-save", test_kill_save);

  return g_test_run ();
}
