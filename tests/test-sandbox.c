/* test-sandbox.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "test-sandbox"

#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sk-sandbox.h"
#include "sk-test-util.h"

/* Every step runs in the same sandbox as the coding agent's commands: it
 * sees the workflow, changes only its own folder, and reaches neither the
 * rest of the user's files, nor the network, nor the program's secrets,
 * unless the workflow allows it. These tests run `skele run` as a user
 * would, with steps that try what a hostile step would, and read what each
 * attempt gave from a file the step writes into its own folder.
 */

static const char *skele_bin;
static char *python_path;

/* The step tries each thing it is asked to and writes what happened, one
 * "NAME: yes" or "NAME: no (reason)" per line, to attempts.txt in its own
 * folder. */
static const char probe_script[] =
  "import os\n"
  "import pickle\n"
  "import socket\n"
  "\n"
  "KEY = '@KEY@'\n"
  "FOLDER = os.path.dirname(os.path.abspath(__file__))\n"
  "WORKFLOW = os.path.dirname(FOLDER)\n"
  "state = {}\n"
  "\n"
  "\n"
  "def attempt(name, action):\n"
  "    try:\n"
  "        action()\n"
  "        return name + ': yes'\n"
  "    except Exception as error:\n"
  "        return name + ': no (' + type(error).__name__ + ')'\n"
  "\n"
  "\n"
  "def read(path):\n"
  "    with open(path) as f:\n"
  "        f.read()\n"
  "\n"
  "\n"
  "def write(path):\n"
  "    with open(path, 'a') as f:\n"
  "        f.write('written by ' + KEY)\n"
  "\n"
  "\n"
  "def connect():\n"
  "    socket.create_connection(('127.0.0.1', @PORT@), timeout=5).close()\n"
  "\n"
  "\n"
  "def no_secret():\n"
  "    if 'SKELE_LLM_API_KEY' in os.environ:\n"
  "        raise RuntimeError('the secret was there')\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    lines = [\n"
  "        attempt('read workflow', lambda: read(os.path.join(WORKFLOW, 'process.json'))),\n"
  "        attempt('read outside', lambda: read('@OUTSIDE@/secret.txt')),\n"
  "        attempt('read input', lambda: read('@OUTSIDE@/input.csv')),\n"
  "        attempt('read home', lambda: read('@HOME@/secret.txt')),\n"
  "        attempt('write own', lambda: write(os.path.join(FOLDER, 'own.txt'))),\n"
  "        attempt('write other', lambda: write(os.path.join(WORKFLOW, 'other', 'other.pkl'))),\n"
  "        attempt('write workflow', lambda: write(os.path.join(WORKFLOW, 'process.json'))),\n"
  "        attempt('write outside', lambda: write('@OUTSIDE@/secret.txt')),\n"
  "        attempt('network', connect),\n"
  "        attempt('no secret', no_secret),\n"
  "    ]\n"
  "    with open(os.path.join(FOLDER, 'attempts.txt'), 'w') as f:\n"
  "        f.write('\\n'.join(lines) + '\\n')\n"
  "    with open(os.path.join(FOLDER, KEY + '_summary.txt'), 'w') as f:\n"
  "        f.write('probe\\n')\n"
  "    state['output'] = {'task_status': 'success'}\n"
  "\n"
  "\n"
  "def save():\n"
  "    with open(os.path.join(FOLDER, KEY + '.pkl'), 'wb') as f:\n"
  "        pickle.dump(state['output'], f)\n";

typedef struct
{
  char   *root;
  char   *workflow;
  char   *outside;
  char   *home;
  int     listener;
  guint16 port;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  struct sockaddr_in address = { 0 };
  socklen_t length = sizeof address;

  f->root = sk_test_make_tmp_dir ("skele-sandbox");
  f->workflow = g_build_filename (f->root, "workflow", NULL);
  f->outside = g_build_filename (f->root, "outside", NULL);
  f->home = g_build_filename (f->root, "home", NULL);
  g_assert_cmpint (g_mkdir_with_parents (f->workflow, 0755), ==, 0);
  sk_test_write_text (f->outside, "secret.txt", "not for steps\n");
  sk_test_write_text (f->outside, "input.csv", "a,b\n1,2\n");
  sk_test_write_text (f->home, "secret.txt", "not for steps either\n");

  /* A server on this machine's loopback, which a step without the network
   * cannot reach: in its own network namespace, 127.0.0.1 is its own. */
  f->listener = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (f->listener, >=, 0);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (bind (f->listener, (struct sockaddr *) &address, sizeof address), ==, 0);
  g_assert_cmpint (listen (f->listener, 16), ==, 0);
  g_assert_cmpint (getsockname (f->listener, (struct sockaddr *) &address, &length), ==, 0);
  f->port = ntohs (address.sin_port);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  close (f->listener);
  sk_test_remove_tree (f->root);
  g_free (f->root);
  g_free (f->workflow);
  g_free (f->outside);
  g_free (f->home);
}

/* Writes a workflow of two steps, "probe" (marked to run) and "other"
 * (with a result of its own), with @probe_skele as probe's "skele" member
 * and @process_skele as the workflow's. */
static void
write_workflow (Fixture    *f,
                const char *probe_skele,
                const char *process_skele)
{
  g_autofree char *json = NULL;
  g_autofree char *port = g_strdup_printf ("%u", f->port);
  g_autofree char *script = NULL;
  g_autofree char *input = g_build_filename (f->outside, "input.csv", NULL);
  g_autoptr(GString) text = g_string_new (probe_script);

  g_string_replace (text, "@KEY@", "probe", 0);
  g_string_replace (text, "@PORT@", port, 0);
  g_string_replace (text, "@OUTSIDE@", f->outside, 0);
  g_string_replace (text, "@HOME@", f->home, 0);
  script = g_string_free (g_steal_pointer (&text), FALSE);

  json = g_strdup_printf ("{\"process_name\": \"sandbox\", %s%s%s"
                          "\"nodes\": {"
                          "\"1\": {\"name\": \"probe\", \"priors\": [], \"run\": true,"
                          "        \"input\": {\"text\": \"try things\", \"files\": [\"%s\"]}%s%s},"
                          "\"2\": {\"name\": \"other\", \"priors\": [], \"run\": false,"
                          "        \"input\": {\"text\": \"keep a result\"}}}}",
                          process_skele != NULL ? "\"skele\": " : "",
                          process_skele != NULL ? process_skele : "",
                          process_skele != NULL ? ", " : "",
                          input,
                          probe_skele != NULL ? ", \"skele\": " : "",
                          probe_skele != NULL ? probe_skele : "");
  sk_test_write_text (f->workflow, "process.json", json);
  sk_test_write_text (f->workflow, "probe/probe.py", script);
  sk_test_write_text (f->workflow, "other/other.py", "state = {}\n");
  sk_test_write_text (f->workflow, "other/other.pkl", "the other step's result");
}

/* Runs `skele run` on the workflow, with a secret in the environment and
 * HOME set to the fixture's, and returns its exit status. */
static int
run_skele (Fixture     *f,
           const char  *path,
           const char  *python,
           const char * const *extra_args,
           char       **errors)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int status = 0;

  env = g_environ_setenv (env, "SKELE_LLM_API_KEY", "sk-test-secret", TRUE);
  env = g_environ_setenv (env, "HOME", f->home, TRUE);
  env = g_environ_unsetenv (env, "SKELE_SANDBOX");
  if (path != NULL)
    env = g_environ_setenv (env, "PATH", path, TRUE);

  g_ptr_array_add (argv, (gpointer) skele_bin);
  g_ptr_array_add (argv, (gpointer) "run");
  g_ptr_array_add (argv, f->workflow);
  g_ptr_array_add (argv, (gpointer) "--no-agent");
  g_ptr_array_add (argv, (gpointer) "--python");
  g_ptr_array_add (argv, (gpointer) python);
  for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra_args[i]);
  g_ptr_array_add (argv, NULL);

  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT,
                               NULL, NULL, NULL, errors, &status, &error));
  g_assert_no_error (error);
  g_test_message ("%s", *errors);

  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static char *
attempts (Fixture *f)
{
  g_autofree char *text = sk_test_read_text (f->workflow, "probe/attempts.txt");

  g_assert_nonnull (text);
  return g_steal_pointer (&text);
}

static void
assert_confined (Fixture    *f,
                 const char *lines)
{
  g_autofree char *other = sk_test_read_text (f->workflow, "other/other.pkl");
  g_autofree char *secret = sk_test_read_text (f->outside, "secret.txt");
  g_autofree char *json = sk_test_read_text (f->workflow, "process.json");

  sk_test_assert_contains (lines, "read workflow: yes");
  sk_test_assert_contains (lines, "read outside: no");
  sk_test_assert_contains (lines, "read home: no");
  sk_test_assert_contains (lines, "write own: yes");
  sk_test_assert_contains (lines, "write other: no");
  sk_test_assert_contains (lines, "write workflow: no");
  sk_test_assert_contains (lines, "no secret: yes");

  /* What the step tried to change is as it was. Where nothing outside the
   * workflow is shown, a write there lands in the sandbox's own empty
   * folders, and is gone with it. */
  g_assert_cmpstr (other, ==, "the other step's result");
  g_assert_cmpstr (secret, ==, "not for steps\n");
  g_assert_null (strstr (json, "written by"));
}

static gboolean
have_sandbox (void)
{
  g_autofree char *reason = NULL;

  if (sk_sandbox_probe (NULL, &reason))
    return TRUE;

  g_test_skip_printf ("no sandbox can be made here: %s", reason);
  return FALSE;
}

static void
test_confined (Fixture       *f,
               gconstpointer  data)
{
  gboolean in_memory = GPOINTER_TO_INT (data);
  g_autofree char *errors = NULL;
  g_autofree char *lines = NULL;

  if (!have_sandbox ())
    return;

  write_workflow (f, NULL, NULL);
  g_assert_cmpint (run_skele (f, NULL, python_path,
                              in_memory ? SK_TEST_STRV ("--in-memory") : NULL, &errors), ==, 0);

  lines = attempts (f);
  assert_confined (f, lines);
  sk_test_assert_contains (lines, "network: no");
  /* Listed as an input, the file outside the workflow is readable. */
  sk_test_assert_contains (lines, "read input: yes");
  g_assert_null (strstr (errors, "without a sandbox"));
}

/* What a step is allowed beyond the defaults it has, and only that. */
static void
test_permissions (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *errors = NULL;
  g_autofree char *lines = NULL;
  g_autofree char *skele = NULL;

  if (!have_sandbox ())
    return;

  skele = g_strdup_printf ("{\"network\": true, \"read\": [\"%s\"]}", f->outside);
  write_workflow (f, skele, NULL);
  g_assert_cmpint (run_skele (f, NULL, python_path, NULL, &errors), ==, 0);

  lines = attempts (f);
  sk_test_assert_contains (lines, "network: yes");
  sk_test_assert_contains (lines, "read outside: yes");
  sk_test_assert_contains (lines, "write outside: no");
  sk_test_assert_contains (lines, "write other: no");
  sk_test_assert_contains (lines, "read home: no");

  /* The network may also be the whole workflow's. */
  write_workflow (f, NULL, "{\"network\": true}");
  g_clear_pointer (&errors, g_free);
  g_assert_cmpint (run_skele (f, NULL, python_path, SK_TEST_STRV ("--force"), &errors), ==, 0);
  g_clear_pointer (&lines, g_free);
  lines = attempts (f);
  sk_test_assert_contains (lines, "network: yes");
  sk_test_assert_contains (lines, "read outside: no");
}

/* A permission that cannot be read is refused when the workflow is
 * checked, before anything runs. */
static void
test_bad_permissions (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *errors = NULL;

  write_workflow (f, "{\"network\": \"yes\", \"read\": [\"relative/path\"]}", NULL);
  g_assert_cmpint (run_skele (f, NULL, python_path, NULL, &errors), ==, 2);
  sk_test_assert_contains (errors, "“skele.network” must be true or false");
  sk_test_assert_contains (errors, "“skele.read” must be a list of absolute paths");
  g_assert_false (sk_test_exists (f->workflow, "probe/attempts.txt"));
}

/* An interpreter kept in the home folder is visible in the sandbox, and
 * the home folder around it is not. */
static void
test_python_in_home (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *venv = g_build_filename (f->home, "venv", NULL);
  g_autofree char *venv_python = g_build_filename (venv, "bin", "python", NULL);
  g_autofree char *errors = NULL;
  g_autofree char *lines = NULL;
  const char *argv[] = { python_path, "-m", "venv", "--without-pip", venv, NULL };
  int status = 0;

  if (!have_sandbox ())
    return;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip ("Python cannot make a virtual environment here");
      return;
    }

  write_workflow (f, NULL, NULL);
  g_assert_cmpint (run_skele (f, NULL, venv_python, NULL, &errors), ==, 0);

  lines = attempts (f);
  assert_confined (f, lines);
}

/* Where no sandbox can be made, the steps do not run unless the user lets
 * them, and then they are told so once. */
static void
test_no_sandbox (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *errors = NULL;
  g_autofree char *lines = NULL;
  const char *warning = "Steps run without a sandbox";
  const char *second;

  write_workflow (f, NULL, NULL);

  /* Without bubblewrap on the way to programs, there is no sandbox. */
  g_assert_cmpint (run_skele (f, "/nonexistent", python_path, NULL, &errors), ==, 1);
  sk_test_assert_contains (errors, "cannot be confined safely");
  sk_test_assert_contains (errors, "Install bubblewrap");
  g_assert_false (sk_test_exists (f->workflow, "probe/attempts.txt"));

  g_clear_pointer (&errors, g_free);
  g_assert_cmpint (run_skele (f, "/nonexistent", python_path,
                              SK_TEST_STRV ("--sandbox", "when-available"), &errors), ==, 0);
  sk_test_assert_contains (errors, warning);
  second = strstr (errors, warning) + strlen (warning);
  g_assert_null (strstr (second, warning));
  lines = attempts (f);
  sk_test_assert_contains (lines, "write other: yes");

  g_clear_pointer (&errors, g_free);
  g_assert_cmpint (run_skele (f, NULL, python_path,
                              SK_TEST_STRV ("--sandbox", "sometimes"), &errors), ==, 2);
  sk_test_assert_contains (errors, "--sandbox is one of");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  skele_bin = g_getenv ("SKELE_BIN");
  g_assert_nonnull (skele_bin);
  python_path = sk_test_find_python ();

  g_test_add ("/sandbox/confined", Fixture, GINT_TO_POINTER (FALSE),
              fixture_set_up, test_confined, fixture_tear_down);
  g_test_add ("/sandbox/confined-in-memory", Fixture, GINT_TO_POINTER (TRUE),
              fixture_set_up, test_confined, fixture_tear_down);
  g_test_add ("/sandbox/permissions", Fixture, NULL,
              fixture_set_up, test_permissions, fixture_tear_down);
  g_test_add ("/sandbox/bad-permissions", Fixture, NULL,
              fixture_set_up, test_bad_permissions, fixture_tear_down);
  g_test_add ("/sandbox/python-in-home", Fixture, NULL,
              fixture_set_up, test_python_in_home, fixture_tear_down);
  g_test_add ("/sandbox/no-sandbox", Fixture, NULL,
              fixture_set_up, test_no_sandbox, fixture_tear_down);

  return g_test_run ();
}
