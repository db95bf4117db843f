/* test-step-faults.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "test-step-faults"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sk-project.h"
#include "sk-test-util.h"

/* Steps that misbehave, run through `skele run` as a user runs them, in
 * both execution modes: a full disk, a step that prints a gigabyte, one
 * that leaves a daemon behind, one that kills its parent, one that writes
 * into another step's folder. Each must end with a clear message and
 * nothing lost: process.json loads, finished steps keep their results, and
 * the next run is right.
 */

#define RUN_DEADLINE_S   90
#define TMPFS_SIZE       (4 * 1024 * 1024)
#define LOUD_MAX_RSS_KB  (200 * 1024)
#define LOUD_MAX_FILES   (32 * 1024 * 1024)

static const char *skele_bin;
static char *python_path;
static char *self_path;
static gboolean spawn_steps;

/* How skele runs the steps: one Python process each or one for all, in a
 * sandbox where there is one, or never in one. */
typedef struct
{
  gboolean    in_memory;
  const char *sandbox;
} Mode;

static const Mode isolated = { FALSE, "when-available" };
static const Mode in_memory = { TRUE, "when-available" };
static const Mode isolated_unsandboxed = { FALSE, "off" };
static const Mode in_memory_unsandboxed = { TRUE, "off" };

/* Workflows ---------------------------------------------------------------- */

typedef struct
{
  const char *key;
  const char *prior;
  const char *compute;
  /* Appended to the script, e.g. a save() that replaces the template's. */
  const char *extra;
} Step;

/* A sandbox lets a step change its own folder only, so the steps here
 * write nowhere else: unlike the shared template's, this preprocess() keeps
 * no runs.log. */
#define STEP_PREPROCESS \
  "def preprocess(prior_outputs):\n" \
  "    state[\"local\"] = {\"priors\": prior_outputs}\n" \
  "    report(\"task \" + KEY, fresh=True)\n"

/* One more than the prior's value, which shows a missing or wrong prior. */
#define COMPUTE_VALUE \
  "    value = 0\n" \
  "    for output in state[\"local\"][\"priors\"].values():\n" \
  "        value = output.get(\"value\", -100) if output else -100\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": value + 1}\n" \
  "    report(\"value \" + str(value + 1))\n"

static void
write_workflow (const char *dir,
                const Step *steps,
                guint       n_steps,
                gsize       description_size)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(SkProject) project = sk_project_new (folder);
  g_autoptr(GError) error = NULL;
  g_autofree char *description = g_strnfill (description_size, 'd');

  sk_project_set_name (project, "faults");
  sk_project_set_description (project, description);
  for (guint i = 0; i < n_steps; i++)
    {
      g_autoptr(SkNode) node = sk_node_new (steps[i].key, steps[i].key);
      g_autofree char *template_text = NULL;

      if (steps[i].prior != NULL)
        sk_node_set_priors (node, SK_TEST_STRV (steps[i].prior));
      sk_node_set_run (node, TRUE);
      sk_project_add_node (project, node, &error);
      g_assert_no_error (error);

      template_text = g_strconcat (SK_TEST_SCRIPT_HEAD, STEP_PREPROCESS, SK_TEST_SCRIPT_TAIL,
                                   "\n\n",
                                   steps[i].extra != NULL ? steps[i].extra : "", NULL);
      sk_test_write_script (dir, template_text, steps[i].key, NULL, steps[i].compute);
    }

  g_assert_true (sk_project_save (project, &error));
  g_assert_no_error (error);
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

/* The status of a step's record, or NULL when it has none. */
static char *
record_status (const char *dir,
               const char *key)
{
  g_autofree char *relative = g_strdup_printf ("%s/.skele/record.json", key);
  g_autofree char *text = sk_test_read_text (dir, relative);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (text == NULL || !json_parser_load_from_data (parser, text, -1, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return NULL;

  return g_strdup (json_object_get_string_member_with_default (json_node_get_object (root),
                                                               "status", ""));
}

static void
assert_summary (const char *dir,
                const char *key,
                const char *expected)
{
  g_autofree char *relative = g_strdup_printf ("%s/%s_summary.txt", key, key);
  g_autofree char *text = sk_test_read_text (dir, relative);

  g_assert_nonnull (text);
  sk_test_assert_contains (text, expected);
}

/* Running skele -------------------------------------------------------------- */

typedef struct
{
  gboolean exited;
  int      exit_status;
  int      term_sig;
  char    *out;
  char    *err;
  glong    max_rss_kb;
  double   seconds;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static char *
take_file (int         fd,
           const char *path)
{
  char *text = NULL;

  close (fd);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    text = g_strdup ("");
  g_unlink (path);
  return text;
}

/* Runs `skele run DIR` with progress lines on stderr and events on stdout,
 * and measures its peak memory (with its children's, which wait4() adds)
 * and how long it took. A run past the deadline is killed and fails the
 * test.
 */
static void
run_skele (const char *dir,
           const Mode *mode,
           const char *extra,
           Run        *run)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out_path = NULL;
  g_autofree char *err_path = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  gint64 start = g_get_monotonic_time ();
  g_autofree char *sandbox = g_strconcat ("--sandbox=", mode->sandbox, NULL);
  g_auto(GStrv) extras = extra != NULL ? g_strsplit (extra, " ", -1) : NULL;
  struct rusage usage = { 0 };
  int out_fd, err_fd;
  int status = 0;
  GPid pid;

  out_fd = g_file_open_tmp ("step-faults-out-XXXXXX", &out_path, &error);
  g_assert_no_error (error);
  err_fd = g_file_open_tmp ("step-faults-err-XXXXXX", &err_path, &error);
  g_assert_no_error (error);

  g_ptr_array_add (argv, (char *) skele_bin);
  g_ptr_array_add (argv, (char *) "run");
  g_ptr_array_add (argv, (char *) dir);
  g_ptr_array_add (argv, (char *) "--no-agent");
  g_ptr_array_add (argv, (char *) "--events=json");
  g_ptr_array_add (argv, (char *) "--python");
  g_ptr_array_add (argv, python_path);
  g_ptr_array_add (argv, sandbox);
  if (mode->in_memory)
    g_ptr_array_add (argv, (char *) "--in-memory");
  if (spawn_steps)
    g_ptr_array_add (argv, (char *) "--spawn-steps");
  for (guint i = 0; extras != NULL && extras[i] != NULL; i++)
    g_ptr_array_add (argv, extras[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_async_with_pipes_and_fds (NULL, (const char * const *) argv->pdata, NULL,
                                    G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                    -1, out_fd, err_fd, NULL, NULL, 0,
                                    &pid, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  for (;;)
    {
      pid_t done = wait4 (pid, &status, WNOHANG, &usage);

      if (done == pid)
        break;
      g_assert_true (done == 0 || errno == EINTR);
      if (g_get_monotonic_time () - start > RUN_DEADLINE_S * SK_TEST_WAIT_SCALE * G_USEC_PER_SEC)
        {
          kill (pid, SIGKILL);
          waitpid (pid, &status, 0);
          g_error ("skele run %s did not finish within %d seconds", dir, RUN_DEADLINE_S);
        }
      g_usleep (20 * G_TIME_SPAN_MILLISECOND);
    }

  run->seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
  run->exited = WIFEXITED (status);
  run->exit_status = run->exited ? WEXITSTATUS (status) : -1;
  run->term_sig = WIFSIGNALED (status) ? WTERMSIG (status) : 0;
  run->max_rss_kb = usage.ru_maxrss;
  run->out = take_file (out_fd, out_path);
  run->err = take_file (err_fd, err_path);

  /* Steps are forked or spawned as the test asked; without a sandbox they
   * can always be forked. */
  if (!mode->in_memory && strstr (run->out, "\"event\":\"processes\"") != NULL)
    {
      if (spawn_steps)
        sk_test_assert_contains (run->out, "\"mode\":\"spawn\"");
      else if (g_str_equal (mode->sandbox, "off"))
        sk_test_assert_contains (run->out, "\"mode\":\"fork-server\"");
    }
  g_test_message ("skele run%s %s: status %d, signal %d, %.1f s, %ld KiB\n%s",
                  mode->in_memory ? " --in-memory" : "", sandbox, run->exit_status,
                  run->term_sig, run->seconds, run->max_rss_kb, run->err);
}

/* The last state that the events gave @key, or "" when they gave none. */
static char *
final_state (const Run  *run,
             const char *key)
{
  g_auto(GStrv) lines = g_strsplit (run->out, "\n", -1);
  char *state = g_strdup ("");

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *object;

      if (lines[i][0] != '{' || !json_parser_load_from_data (parser, lines[i], -1, NULL))
        continue;
      object = json_node_get_object (json_parser_get_root (parser));
      if (g_strcmp0 (json_object_get_string_member_with_default (object, "event", ""), "state") == 0 &&
          g_strcmp0 (json_object_get_string_member_with_default (object, "key", ""), key) == 0)
        {
          g_free (state);
          state = g_strdup (json_object_get_string_member_with_default (object, "state", ""));
        }
    }

  return state;
}

static void
assert_state (const Run  *run,
              const char *key,
              const char *expected)
{
  g_autofree char *state = final_state (run, key);

  g_assert_cmpstr (state, ==, expected);
}

static void
assert_message (const Run  *run,
                const char *needle)
{
  g_autofree char *both = g_strconcat (run->err, run->out, NULL);

  sk_test_assert_contains (both, needle);
}

/* A full disk ----------------------------------------------------------------- */

/* The command line that runs the rest of the arguments with a tmpfs of
 * TMPFS_SIZE bytes mounted on @mount_point, visible to them only: bubblewrap
 * needs no privilege where user namespaces are allowed; unshare and mount
 * need root. NULL when neither works here.
 */
static GPtrArray *
tmpfs_wrapper (const char *mount_point)
{
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");
  g_autofree char *unshare = g_find_program_in_path ("unshare");
  g_autofree char *size = g_strdup_printf ("%d", TMPFS_SIZE);

  if (bwrap != NULL)
    {
      GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
      int status = -1;

      g_ptr_array_add (argv, g_strdup (bwrap));
      g_ptr_array_add (argv, g_strdup ("--dev-bind"));
      g_ptr_array_add (argv, g_strdup ("/"));
      g_ptr_array_add (argv, g_strdup ("/"));
      g_ptr_array_add (argv, g_strdup ("--size"));
      g_ptr_array_add (argv, g_strdup (size));
      g_ptr_array_add (argv, g_strdup ("--tmpfs"));
      g_ptr_array_add (argv, g_strdup (mount_point));
      g_ptr_array_add (argv, g_strdup ("--"));
      g_ptr_array_add (argv, g_strdup ("/bin/true"));
      g_ptr_array_add (argv, NULL);
      if (g_spawn_sync (NULL, (char **) argv->pdata, NULL,
                        G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                        NULL, NULL, NULL, NULL, &status, NULL) &&
          g_spawn_check_wait_status (status, NULL))
        {
          g_ptr_array_set_size (argv, argv->len - 2);
          return argv;
        }
      g_ptr_array_unref (argv);
    }

  if (unshare != NULL && geteuid () == 0)
    {
      GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
      int status = -1;

      g_ptr_array_add (argv, g_strdup (unshare));
      g_ptr_array_add (argv, g_strdup ("-m"));
      g_ptr_array_add (argv, g_strdup ("--propagation"));
      g_ptr_array_add (argv, g_strdup ("private"));
      g_ptr_array_add (argv, g_strdup ("/bin/sh"));
      g_ptr_array_add (argv, g_strdup ("-c"));
      g_ptr_array_add (argv, g_strdup ("mount -t tmpfs -o size=\"$1\" tmpfs \"$2\" && shift 2 && "
                                       "exec \"$@\""));
      g_ptr_array_add (argv, g_strdup ("sh"));
      g_ptr_array_add (argv, g_strdup (size));
      g_ptr_array_add (argv, g_strdup (mount_point));
      g_ptr_array_add (argv, g_strdup ("/bin/true"));
      g_ptr_array_add (argv, NULL);
      if (g_spawn_sync (NULL, (char **) argv->pdata, NULL,
                        G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                        NULL, NULL, NULL, NULL, &status, NULL) &&
          g_spawn_check_wait_status (status, NULL))
        {
          g_ptr_array_set_size (argv, argv->len - 2);
          return argv;
        }
      g_ptr_array_unref (argv);
    }

  return NULL;
}

/* The step that fills the disk does so while the marker file "fill-disk"
 * is in the workflow folder. In an isolated run its save() fills it while
 * writing the pickle; in memory save() is not called, so compute() does.
 */
#define FILL_DISK_SAVE \
  "def save():\n" \
  "    with open(os.path.join(FOLDER, KEY + \".pkl\"), \"wb\") as f:\n" \
  "        pickle.dump(state[\"output\"], f)\n" \
  "        if os.path.exists(os.path.join(WORKFLOW, \"fill-disk\")):\n" \
  "            f.write(b\"x\" * (16 << 20))\n"

#define FILL_DISK_COMPUTE \
  COMPUTE_VALUE \
  "    if os.path.exists(os.path.join(WORKFLOW, \"fill-disk\")):\n" \
  "        with open(os.path.join(FOLDER, \"big.fill\"), \"wb\") as f:\n" \
  "            f.write(b\"x\" * (16 << 20))\n"

/* The step that leaves the disk all but full once its results are written:
 * too full for the large process.json, not for its own small files.
 */
#define NEARLY_FILL_DISK \
  "    if os.path.exists(os.path.join(WORKFLOW, \"fill-disk\")):\n" \
  "        st = os.statvfs(WORKFLOW)\n" \
  "        with open(os.path.join(FOLDER, \"filler\"), \"wb\") as f:\n" \
  "            f.write(b\"x\" * (st.f_bavail * st.f_frsize - 48 * 1024))\n"

static void
remove_file (const char *dir,
             const char *relative)
{
  g_autofree char *path = g_build_filename (dir, relative, NULL);

  g_unlink (path);
}

static void
child_full_disk_save (const char *dir,
                      const Mode *mode)
{
  const Step steps[] = {
    { "source", NULL, COMPUTE_VALUE, NULL },
    { "big", "source", mode->in_memory ? FILL_DISK_COMPUTE : COMPUTE_VALUE,
      mode->in_memory ? NULL : FILL_DISK_SAVE },
  };
  g_autofree char *status = NULL;
  g_autofree char *source_pickle = NULL;

  write_workflow (dir, steps, G_N_ELEMENTS (steps), 0);
  sk_test_write_text (dir, "fill-disk", "");

  /* The step fails, saying why, and is not vouched for. */
  {
    g_auto(Run) run = { 0 };

    run_skele (dir, mode, NULL, &run);
    g_assert_true (run.exited);
    g_assert_cmpint (run.exit_status, ==, 1);
    assert_state (&run, "source", "succeeded");
    assert_state (&run, "big", "failed");
    assert_message (&run, "big");
    assert_message (&run, "No space left on device");
  }
  status = record_status (dir, "big");
  g_assert_cmpstr (status, !=, "success");
  g_clear_pointer (&status, g_free);
  status = record_status (dir, "source");
  g_assert_cmpstr (status, ==, "success");
  g_clear_pointer (&status, g_free);
  assert_loads (dir, G_N_ELEMENTS (steps));
  if (!mode->in_memory)
    source_pickle = sk_test_read_text (dir, "source/source.pkl");

  /* On the still full disk, the step is not called up to date. */
  {
    g_auto(Run) run = { 0 };

    run_skele (dir, mode, NULL, &run);
    g_assert_cmpint (run.exit_status, ==, 1);
    assert_state (&run, "big", "failed");
    if (!mode->in_memory)
      {
        g_autofree char *again = sk_test_read_text (dir, "source/source.pkl");

        assert_state (&run, "source", "up-to-date");
        g_assert_nonnull (source_pickle);
        g_assert_cmpstr (again, ==, source_pickle);
      }
  }
  assert_loads (dir, G_N_ELEMENTS (steps));

  /* With room again, the next run is right. */
  remove_file (dir, "fill-disk");
  remove_file (dir, "big/big.pkl");
  remove_file (dir, "big/big.fill");
  {
    g_auto(Run) run = { 0 };

    run_skele (dir, mode, NULL, &run);
    g_assert_cmpint (run.exit_status, ==, 0);
    assert_state (&run, "big", "succeeded");
  }
  assert_summary (dir, "big", "value 2");
  status = record_status (dir, "big");
  g_assert_cmpstr (status, ==, "success");
  assert_loads (dir, G_N_ELEMENTS (steps));
}

static void
child_full_disk_process_json (const char *dir,
                              const Mode *mode)
{
  const Step steps[] = {
    { "source", NULL, COMPUTE_VALUE, NULL },
    { "last", "source", mode->in_memory ? COMPUTE_VALUE NEARLY_FILL_DISK : COMPUTE_VALUE,
      mode->in_memory ? NULL :
      "def save():\n"
      "    with open(os.path.join(FOLDER, KEY + \".pkl\"), \"wb\") as f:\n"
      "        pickle.dump(state[\"output\"], f)\n"
      NEARLY_FILL_DISK },
  };
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *status = NULL;

  /* A workflow whose process.json is too large for the room left. */
  write_workflow (dir, steps, G_N_ELEMENTS (steps), 256 * 1024);
  sk_test_write_text (dir, "fill-disk", "");
  before = sk_test_read_text (dir, "process.json");

  {
    g_auto(Run) run = { 0 };

    run_skele (dir, mode, NULL, &run);
    g_assert_true (run.exited);
    g_assert_cmpint (run.exit_status, !=, 0);
    assert_state (&run, "source", "succeeded");
    assert_state (&run, "last", "succeeded");
    assert_message (&run, "could not be saved");
    assert_message (&run, "No space left on device");
  }

  /* The previous file is kept whole, and the steps' results stand. */
  after = sk_test_read_text (dir, "process.json");
  g_assert_cmpstr (after, ==, before);
  assert_loads (dir, G_N_ELEMENTS (steps));
  status = record_status (dir, "last");
  g_assert_cmpstr (status, ==, "success");
  assert_summary (dir, "last", "value 2");

  /* With room again, the results reach process.json. */
  remove_file (dir, "fill-disk");
  remove_file (dir, "last/filler");
  {
    g_auto(Run) run = { 0 };

    run_skele (dir, mode, NULL, &run);
    g_assert_cmpint (run.exit_status, ==, 0);
  }
  g_clear_pointer (&after, g_free);
  after = sk_test_read_text (dir, "process.json");
  sk_test_assert_contains (after, "value 2");
  assert_loads (dir, G_N_ELEMENTS (steps));
}

/* Runs inside the tmpfs wrapper: everything the case checks happens there,
 * since the tmpfs is visible to it alone. */
static int
full_disk_child (const char *mount_point,
                 const char *which,
                 const char *in_memory_text,
                 const char *sandbox)
{
  g_autofree char *dir = g_build_filename (mount_point, "workflow", NULL);
  Mode variant = { g_str_equal (in_memory_text, "1"), sandbox };
  const Mode *mode = &variant;

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  if (g_str_equal (which, "save"))
    child_full_disk_save (dir, mode);
  else
    child_full_disk_process_json (dir, mode);

  return 0;
}

static void
run_full_disk (const char *which,
               const Mode *mode)
{
  g_autofree char *mount_point = sk_test_make_tmp_dir ("step-faults-tmpfs");
  g_autoptr(GPtrArray) argv = tmpfs_wrapper (mount_point);
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  int status = -1;

  if (argv == NULL)
    {
      g_test_skip ("Neither bubblewrap nor unshare (as root) can mount a small tmpfs here");
      g_rmdir (mount_point);
      return;
    }

  g_ptr_array_add (argv, g_strdup (self_path));
  g_ptr_array_add (argv, g_strdup ("--full-disk"));
  g_ptr_array_add (argv, g_strdup (mount_point));
  g_ptr_array_add (argv, g_strdup (which));
  g_ptr_array_add (argv, g_strdup (mode->in_memory ? "1" : "0"));
  g_ptr_array_add (argv, g_strdup (mode->sandbox));
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("The full disk case failed:\n%s", err);

  g_rmdir (mount_point);
}

/* A step whose save() fills the disk fails with the system's reason, is
 * not vouched for, and leaves the other steps' results alone. */
static void
test_full_disk_save (gconstpointer data)
{
  run_full_disk ("save", data);
}

/* A disk too full for process.json after the run: a clear error, and the
 * previous file kept whole. */
static void
test_full_disk_process_json (gconstpointer data)
{
  run_full_disk ("process-json", data);
}

/* A step that prints a gigabyte -------------------------------------------- */

/* A gibibyte on each output, through Python's streams and past them. */
#define LOUD_COMPUTE \
  "    chunk = (\"x\" * 1023 + \"\\n\") * 1024\n" \
  "    for i in range(512):\n" \
  "        sys.stdout.write(chunk)\n" \
  "        sys.stderr.write(chunk)\n" \
  "    sys.stdout.flush()\n" \
  "    sys.stderr.flush()\n" \
  "    raw = chunk.encode()\n" \
  "    for i in range(512):\n" \
  "        os.write(1, raw)\n" \
  "        os.write(2, raw)\n" \
  COMPUTE_VALUE

static guint64
tree_size (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint64 size = 0;

  if (dir == NULL)
    {
      GStatBuf buf;

      return g_lstat (path, &buf) == 0 ? (guint64) buf.st_size : 0;
    }

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      size += tree_size (child);
    }

  return size;
}

static void
test_loud (gconstpointer data)
{
  const Mode *mode = data;
  g_autofree char *dir = sk_test_make_tmp_dir ("step-faults-loud");
  const Step steps[] = {
    { "source", NULL, COMPUTE_VALUE, NULL },
    { "loud", "source", LOUD_COMPUTE, NULL },
  };
  g_auto(Run) run = { 0 };
  g_autofree char *status = NULL;

  write_workflow (dir, steps, G_N_ELEMENTS (steps), 0);
  run_skele (dir, mode, NULL, &run);

  g_assert_cmpint (run.exit_status, ==, 0);
  assert_state (&run, "loud", "succeeded");
  assert_summary (dir, "loud", "value 2");
  status = record_status (dir, "loud");
  g_assert_cmpstr (status, ==, "success");

  /* The logs are capped, and skele's memory does not grow with them. */
  g_assert_cmpuint (tree_size (dir), <, LOUD_MAX_FILES);
  g_assert_cmpint (run.max_rss_kb, <, LOUD_MAX_RSS_KB);
  g_assert_cmpfloat (run.seconds, <, 60);
  assert_loads (dir, G_N_ELEMENTS (steps));

  sk_test_remove_tree (dir);
}

/* A daemon ------------------------------------------------------------------- */

/* Forks twice and starts a session, so that the daemon is neither in the
 * step's process group nor its child; it writes its number, then touches a
 * file every second for ten minutes.
 */
#define DAEMON_COMPUTE \
  "    pid_path = os.path.join(FOLDER, \"daemon.pid\")\n" \
  "    child = os.fork()\n" \
  "    if child == 0:\n" \
  "        os.setsid()\n" \
  "        if os.fork() != 0:\n" \
  "            os._exit(0)\n" \
  "        with open(pid_path + \".tmp\", \"w\") as f:\n" \
  "            f.write(str(os.getpid()))\n" \
  "        os.rename(pid_path + \".tmp\", pid_path)\n" \
  "        for i in range(600):\n" \
  "            open(os.path.join(FOLDER, \"daemon.alive\"), \"a\").close()\n" \
  "            time.sleep(1)\n" \
  "        os._exit(0)\n" \
  "    os.waitpid(child, 0)\n" \
  "    while not os.path.exists(pid_path):\n" \
  "        time.sleep(0.01)\n" \
  COMPUTE_VALUE

static void
test_daemon (gconstpointer data)
{
  const Mode *mode = data;
  g_autofree char *dir = sk_test_make_tmp_dir ("step-faults-daemon");
  const Step steps[] = {
    { "source", NULL, COMPUTE_VALUE, NULL },
    { "daemon", "source", DAEMON_COMPUTE, NULL },
  };
  g_auto(Run) run = { 0 };
  g_autofree char *text = NULL;
  pid_t pid;

  write_workflow (dir, steps, G_N_ELEMENTS (steps), 0);
  run_skele (dir, mode, NULL, &run);

  /* In a sandbox the number is the one in its PID namespace; without one
   * the process itself is looked at, and killed if it survived.
   */
  if (g_str_equal (mode->sandbox, "off"))
    {
      text = sk_test_read_text (dir, "daemon/daemon.pid");
      g_assert_nonnull (text);
      pid = (pid_t) g_ascii_strtoll (text, NULL, 10);
      g_assert_cmpint (pid, >, 1);
      if (!sk_test_process_gone (pid))
        {
          kill (pid, SIGKILL);
          g_error ("The daemon the step started, process %d, outlived skele", (int) pid);
        }
    }

  /* Either way, it no longer touches its file. */
  g_assert_true (sk_test_exists (dir, "daemon/daemon.alive"));
  remove_file (dir, "daemon/daemon.alive");
  g_usleep (2500 * G_TIME_SPAN_MILLISECOND);
  g_assert_false (sk_test_exists (dir, "daemon/daemon.alive"));

  g_assert_cmpint (run.exit_status, ==, 0);
  assert_state (&run, "daemon", "succeeded");
  assert_summary (dir, "daemon", "value 2");
  assert_loads (dir, G_N_ELEMENTS (steps));

  sk_test_remove_tree (dir);
}

/* A step that kills its parent ----------------------------------------------- */

/* The step kills its parent once: the first time it runs. Without a
 * sandbox its code runs in the harness, or the in-memory worker, whose
 * parent is skele itself; in a sandbox's PID namespace the parent is the
 * namespace's init, which its members cannot kill.
 */
#define KILL_PARENT_COMPUTE \
  "    marker = os.path.join(FOLDER, \"killed\")\n" \
  "    if not os.path.exists(marker):\n" \
  "        with open(marker, \"w\") as f:\n" \
  "            f.write(str(os.getpid()))\n" \
  "        os.kill(os.getppid(), 9)\n" \
  "        time.sleep(5)\n" \
  COMPUTE_VALUE

/* A process the step starts kills the harness, or the in-memory worker. */
#define KILL_HARNESS_COMPUTE \
  "    marker = os.path.join(FOLDER, \"killed\")\n" \
  "    if not os.path.exists(marker):\n" \
  "        with open(marker, \"w\") as f:\n" \
  "            f.write(str(os.getpid()))\n" \
  "        subprocess.run([\"/bin/sh\", \"-c\", \"kill -9 $PPID\"])\n" \
  "        time.sleep(5)\n" \
  COMPUTE_VALUE

static void
run_killer (const Mode *mode,
            const char *compute,
            gboolean    kills_skele)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("step-faults-kill");
  const Step steps[] = {
    { "source", NULL, COMPUTE_VALUE, NULL },
    { "killer", "source", compute, NULL },
    { "after", "killer", COMPUTE_VALUE, NULL },
  };

  write_workflow (dir, steps, G_N_ELEMENTS (steps), 0);

  {
    g_auto(Run) run = { 0 };
    g_autofree char *status = NULL;

    run_skele (dir, mode, NULL, &run);
    g_assert_cmpfloat (run.seconds, <, 30);
    g_assert_true (sk_test_exists (dir, "killer/killed"));

    if (kills_skele && !run.exited)
      {
        g_autofree char *text = sk_test_read_text (dir, "killer/killed");

        /* Nothing can report a SIGKILL of skele itself; its step must not
         * run on without it. */
        g_assert_cmpint (run.term_sig, ==, SIGKILL);
        g_assert_nonnull (text);
        g_assert_true (sk_test_process_gone ((pid_t) g_ascii_strtoll (text, NULL, 10)));
      }
    else if (kills_skele && run.exit_status == 0)
      {
        /* The kill did not reach skele, and the step went on. */
        assert_state (&run, "killer", "succeeded");
      }
    else
      {
        g_assert_true (run.exited);
        g_assert_cmpint (run.exit_status, ==, 1);
        assert_state (&run, "source", "succeeded");
        assert_state (&run, "killer", "failed");
        assert_message (&run, "killer");
        /* The worker's end is reported as such; in a sandbox, bubblewrap
         * reports the signal as status 128 + 9. */
        if (mode->in_memory)
          assert_message (&run, "stopped unexpectedly");
        else if (g_str_equal (mode->sandbox, "off"))
          assert_message (&run, "signal 9");
        else if (strstr (run.err, "signal 9") == NULL)
          assert_message (&run, "status 137");
      }

    status = record_status (dir, "source");
    g_assert_cmpstr (status, ==, "success");
    g_clear_pointer (&status, g_free);
    status = record_status (dir, "killer");
    if (!run.exited || run.exit_status != 0)
      g_assert_cmpstr (status, !=, "success");
  }
  assert_loads (dir, G_N_ELEMENTS (steps));

  {
    g_auto(Run) run = { 0 };

    g_autofree char *state = NULL;

    run_skele (dir, mode, NULL, &run);
    g_assert_cmpint (run.exit_status, ==, 0);
    state = final_state (&run, "after");
    g_assert_true (g_str_equal (state, "succeeded") || g_str_equal (state, "up-to-date"));
  }
  assert_summary (dir, "after", "value 3");
  assert_loads (dir, G_N_ELEMENTS (steps));

  sk_test_remove_tree (dir);
}

static void
test_kill_parent (gconstpointer data)
{
  run_killer (data, KILL_PARENT_COMPUTE, TRUE);
}

static void
test_kill_harness (gconstpointer data)
{
  run_killer (data, KILL_HARNESS_COMPUTE, FALSE);
}

/* A step that writes into another's folder ------------------------------------- */

#define INTRUDER_COMPUTE \
  "    if os.path.exists(os.path.join(WORKFLOW, \"intrude\")):\n" \
  "        with open(\"../victim/victim.pkl\", \"wb\") as f:\n" \
  "            f.write(b\"garbage\")\n" \
  "        with open(\"../victim/victim_summary.txt\", \"w\") as f:\n" \
  "            f.write(\"garbage\")\n" \
  COMPUTE_VALUE

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

/* What a step's folder holds, its bookkeeping left out, as one string. */
static char *
folder_snapshot (const char *folder)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) snapshot = g_string_new (NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (!g_str_equal (name, ".skele"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *text = sk_test_read_text (folder, g_ptr_array_index (names, i));

      g_string_append_printf (snapshot, "%s: %s\n", (char *) g_ptr_array_index (names, i),
                              text != NULL ? text : "(unreadable)");
    }

  return g_string_free (g_steal_pointer (&snapshot), FALSE);
}

static gboolean
reports_no_sandbox (const Run *run)
{
  g_autofree char *both = g_strconcat (run->err, run->out, NULL);
  g_autofree char *lower = g_utf8_strdown (both, -1);

  return strstr (lower, "sandbox") != NULL &&
         (strstr (lower, "no sandbox") != NULL || strstr (lower, "not available") != NULL ||
          strstr (lower, "unavailable") != NULL || strstr (lower, "without a sandbox") != NULL);
}

static void
test_foreign_write (gconstpointer data)
{
  const Mode *mode = data;
  g_autofree char *dir = sk_test_make_tmp_dir ("step-faults-foreign");
  g_autofree char *victim = g_build_filename (dir, "victim", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *status = NULL;
  const Step steps[] = {
    { "victim", NULL, COMPUTE_VALUE, NULL },
    { "intruder", "victim", INTRUDER_COMPUTE, NULL },
  };

  /* The victim's result is saved by a run of its own; in the in-memory
   * mode, the steps of one run share a process and a sandbox, so the
   * intruder then runs alone. */
  write_workflow (dir, steps, G_N_ELEMENTS (steps), 0);
  {
    g_auto(Run) run = { 0 };

    run_skele (dir, &isolated, NULL, &run);
    g_assert_cmpint (run.exit_status, ==, 0);
  }
  before = folder_snapshot (victim);

  sk_test_write_text (dir, "intrude", "");
  {
    g_auto(Run) run = { 0 };

    run_skele (dir, mode, mode->in_memory ? "--force --only=intruder" : "--force", &run);
    if (reports_no_sandbox (&run))
      {
        g_test_skip ("skele run reports that no sandbox is available");
        sk_test_remove_tree (dir);
        return;
      }
    g_assert_cmpint (run.exit_status, ==, 1);
    if (!mode->in_memory)
      assert_state (&run, "victim", "succeeded");
    assert_state (&run, "intruder", "failed");
    assert_message (&run, "intruder");
  }

  /* The other step's files are as it left them, and still vouched for. */
  after = folder_snapshot (victim);
  g_assert_cmpstr (after, ==, before);
  status = record_status (dir, "victim");
  g_assert_cmpstr (status, ==, "success");
  assert_loads (dir, G_N_ELEMENTS (steps));

  sk_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  if (argc == 6 && g_str_equal (argv[1], "--full-disk"))
    {
      skele_bin = g_getenv ("SKELE_BIN");
      python_path = g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE)
        ? g_strdup ("/usr/bin/python3") : sk_test_find_python ();
      return full_disk_child (argv[2], argv[3], argv[4], argv[5]);
    }

  /* The suite runs these tests a second time with steps spawned, the way
   * they are started where they cannot be forked. */
  spawn_steps = sk_test_take_option (&argc, argv, "--spawn-steps");
  g_test_init (&argc, &argv, NULL);

  self_path = g_canonicalize_filename (argv[0], NULL);
  skele_bin = g_getenv ("SKELE_BIN");
  if (skele_bin == NULL)
    {
      g_test_skip ("SKELE_BIN is not set");
      return g_test_run ();
    }
  /* Debian's interpreter, whatever python3 is first on the PATH. */
  python_path = g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE)
    ? g_strdup ("/usr/bin/python3") : sk_test_find_python ();

  g_test_add_data_func ("/step-faults/full-disk/save/isolated", &isolated, test_full_disk_save);
  g_test_add_data_func ("/step-faults/full-disk/save/in-memory", &in_memory, test_full_disk_save);
  g_test_add_data_func ("/step-faults/full-disk/process-json/isolated", &isolated,
                        test_full_disk_process_json);
  g_test_add_data_func ("/step-faults/full-disk/process-json/in-memory", &in_memory,
                        test_full_disk_process_json);
  g_test_add_data_func ("/step-faults/loud/isolated", &isolated, test_loud);
  g_test_add_data_func ("/step-faults/loud/in-memory", &in_memory, test_loud);
  g_test_add_data_func ("/step-faults/daemon/isolated", &isolated, test_daemon);
  g_test_add_data_func ("/step-faults/daemon/in-memory", &in_memory, test_daemon);
  g_test_add_data_func ("/step-faults/daemon/isolated-unsandboxed", &isolated_unsandboxed,
                        test_daemon);
  g_test_add_data_func ("/step-faults/daemon/in-memory-unsandboxed", &in_memory_unsandboxed,
                        test_daemon);
  g_test_add_data_func ("/step-faults/kill-parent/isolated", &isolated, test_kill_parent);
  g_test_add_data_func ("/step-faults/kill-parent/in-memory", &in_memory, test_kill_parent);
  g_test_add_data_func ("/step-faults/kill-parent/isolated-unsandboxed", &isolated_unsandboxed,
                        test_kill_parent);
  g_test_add_data_func ("/step-faults/kill-parent/in-memory-unsandboxed", &in_memory_unsandboxed,
                        test_kill_parent);
  g_test_add_data_func ("/step-faults/kill-harness/isolated", &isolated, test_kill_harness);
  g_test_add_data_func ("/step-faults/kill-harness/in-memory", &in_memory, test_kill_harness);
  g_test_add_data_func ("/step-faults/kill-harness/isolated-unsandboxed", &isolated_unsandboxed,
                        test_kill_harness);
  g_test_add_data_func ("/step-faults/kill-harness/in-memory-unsandboxed", &in_memory_unsandboxed,
                        test_kill_harness);
  g_test_add_data_func ("/step-faults/foreign-write/isolated", &isolated, test_foreign_write);
  g_test_add_data_func ("/step-faults/foreign-write/in-memory", &in_memory, test_foreign_write);

  return g_test_run ();
}
