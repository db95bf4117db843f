/* sk-harness.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-harness"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>

#include "sk-core-resources.h"
#include "sk-harness.h"
#include "sk-json.h"
#include "sk-process.h"
#include "sk-sandbox.h"
#include "sk-step-folder.h"

/* The harness, src/python/skele_harness.py, runs node scripts for the
 * runner. This file starts it, tells it what to run and hands back what it
 * reports; it decides nothing about a run, and reports through callbacks
 * and GAsyncResults so that the runner stays the only one that does.
 */

#define HARNESS_RESOURCE "/io/github/skelecode/SkeleCode/python/skele_harness.py"
#define TAIL_LIMIT (4 * 1024)

/* The harness's report in isolated mode, written into the step's
 * bookkeeping folder and read once the process is done.
 */

/* The file descriptor on which the in-memory worker writes its results. */
#define WORKER_RESULTS_FD 3

/**
 * sk_harness_get_path:
 * @error: return location for a #GError
 *
 * The harness is compiled into the program, so that an installed, an
 * uninstalled and a sandboxed build all run the same code. It is written
 * once into the user's cache folder under a name that changes with its
 * contents.
 *
 * Returns: (transfer full): the path of the harness script
 */
char *
sk_harness_get_path (GError **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *checksum = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *basename = NULL;
  g_autofree char *path = NULL;
  gsize size;
  const char *data;

  bytes = g_resource_lookup_data (sk_core_get_resource (), HARNESS_RESOURCE,
                                  G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return NULL;

  data = g_bytes_get_data (bytes, &size);
  checksum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, size);
  folder = g_build_filename (g_get_user_cache_dir (), PACKAGE_NAME, "harness", NULL);
  basename = g_strdup_printf ("skele_harness-%.16s.py", checksum);
  path = g_build_filename (folder, basename, NULL);

  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&path);

  if (g_mkdir_with_parents (folder, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("The folder “%s” could not be created: %s"),
                   folder, g_strerror (saved_errno));
      return NULL;
    }

  if (!g_file_set_contents_full (path, data, size, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error))
    return NULL;

  return g_steal_pointer (&path);
}

/**
 * sk_harness_read_tail:
 * @path: a log file
 *
 * The in-memory worker writes a node's logs itself; this reads the end of
 * one for an error message.
 *
 * Returns: (transfer full) (nullable): the last few kilobytes of @path,
 *   or %NULL when it cannot be read
 */
char *
sk_harness_read_tail (const char *path)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  gsize start;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &contents, &length, NULL))
    return NULL;

  start = length > TAIL_LIMIT ? length - TAIL_LIMIT : 0;
  return g_strdup (contents + start);
}

/* Bytecode caches would show up among the node's output files. */
static void
set_python_environment (SkProcess *process)
{
  sk_process_setenv (process, "PYTHONDONTWRITEBYTECODE", "1");
  sk_process_setenv (process, "PYTHONUNBUFFERED", "1");
  sk_process_setenv (process, "PYTHONIOENCODING", "utf-8");
}

/* Specs ------------------------------------------------------------------ */

typedef struct
{
  char           *key;
  SkHarnessPrior  source;
} Prior;

struct _SkHarnessSpec
{
  char    *workflow_folder;
  char    *step_folder;
  char    *key;
  char    *report_path;
  char    *stdout_path;
  char    *stderr_path;
  guint64  log_limit;
  GArray  *priors;
  JsonObject *extra;
};

static void
prior_clear (gpointer data)
{
  Prior *prior = data;

  g_free (prior->key);
}

/**
 * sk_harness_spec_new:
 * @workflow_folder: the path of the workflow's folder
 * @step_folder: the path of the node's folder
 * @key: the node's key
 * @log_limit: the most of each output stream kept in the node's logs
 *
 * Returns: (transfer full): a spec without priors
 */
SkHarnessSpec *
sk_harness_spec_new (const char *workflow_folder,
                     const char *step_folder,
                     const char *key,
                     guint64     log_limit)
{
  SkHarnessSpec *self;

  g_return_val_if_fail (workflow_folder != NULL, NULL);
  g_return_val_if_fail (step_folder != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  self = g_new0 (SkHarnessSpec, 1);
  self->workflow_folder = g_strdup (workflow_folder);
  self->step_folder = g_strdup (step_folder);
  self->key = g_strdup (key);
  self->report_path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_RESULT);
  self->stdout_path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_STDOUT);
  self->stderr_path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_STDERR);
  self->log_limit = log_limit;
  self->priors = g_array_new (FALSE, FALSE, sizeof (Prior));
  g_array_set_clear_func (self->priors, prior_clear);
  self->extra = json_object_new ();

  return self;
}

void
sk_harness_spec_free (SkHarnessSpec *self)
{
  if (self == NULL)
    return;

  g_free (self->workflow_folder);
  g_free (self->step_folder);
  g_free (self->key);
  g_free (self->report_path);
  g_free (self->stdout_path);
  g_free (self->stderr_path);
  g_array_unref (self->priors);
  json_object_unref (self->extra);
  g_free (self);
}

/**
 * sk_harness_spec_add_prior:
 * @self: a spec
 * @key: the key of one of the node's priors
 * @source: where the harness finds its outputs
 *
 * Adds a prior; the node receives its priors in the order they are added.
 */
void
sk_harness_spec_add_prior (SkHarnessSpec  *self,
                           const char     *key,
                           SkHarnessPrior  source)
{
  Prior prior;

  g_return_if_fail (self != NULL);
  g_return_if_fail (key != NULL);

  prior.key = g_strdup (key);
  prior.source = source;
  g_array_append_val (self->priors, prior);
}

/**
 * sk_harness_spec_set_member:
 * @self: a spec
 * @name: a member of the spec the harness reads, such as `command`
 * @value: (transfer full): its value
 *
 * Sets what the harness is asked beyond running the node with its priors:
 * the commands and members of the control flow that skele_harness.py
 * describes.
 */
void
sk_harness_spec_set_member (SkHarnessSpec *self,
                            const char    *name,
                            JsonNode      *value)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);
  g_return_if_fail (value != NULL);

  json_object_set_member (self->extra, name, value);
}

/**
 * sk_harness_spec_set_command:
 * @self: a spec
 * @command: `run`, `branch`, `items`, `join` or `save`
 *
 * Asks the harness for something other than running the node. The
 * commands other than `run` keep their report and logs apart from the
 * node's own, which they must not replace.
 */
void
sk_harness_spec_set_command (SkHarnessSpec *self,
                             const char    *command)
{
  g_autofree char *bookkeeping = NULL;
  g_autofree char *report = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_return_if_fail (self != NULL);
  g_return_if_fail (command != NULL);

  json_object_set_string_member (self->extra, "command", command);
  if (g_str_equal (command, "run"))
    return;

  bookkeeping = sk_step_folder_build_path (self->step_folder, self->key, SK_STEP_FILE_BOOKKEEPING);
  report = g_strconcat (command, ".result.json", NULL);
  out = g_strconcat (command, ".stdout.log", NULL);
  err = g_strconcat (command, ".stderr.log", NULL);
  g_free (self->report_path);
  self->report_path = g_build_filename (bookkeeping, report, NULL);
  g_free (self->stdout_path);
  self->stdout_path = g_build_filename (bookkeeping, out, NULL);
  g_free (self->stderr_path);
  self->stderr_path = g_build_filename (bookkeeping, err, NULL);
}

const char *
sk_harness_spec_get_step_folder (SkHarnessSpec *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->step_folder;
}

static const char *
prior_source_name (SkHarnessPrior source)
{
  switch (source)
    {
    case SK_HARNESS_PRIOR_FILE: return "file";
    case SK_HARNESS_PRIOR_MEMORY: return "memory";
    case SK_HARNESS_PRIOR_NONE:
    default: return "none";
    }
}

static void
add_extra_member (JsonObject  *object,
                  const char  *name,
                  JsonNode    *value,
                  gpointer     user_data)
{
  JsonBuilder *builder = user_data;

  json_builder_set_member_name (builder, name);
  json_builder_add_value (builder, json_node_copy (value));
}

/* The spec as the harness reads it: one line of JSON. */
static char *
spec_to_string (SkHarnessSpec *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "workflow");
  json_builder_add_string_value (builder, self->workflow_folder);
  json_builder_set_member_name (builder, "key");
  json_builder_add_string_value (builder, self->key);
  json_builder_set_member_name (builder, "folder");
  json_builder_add_string_value (builder, self->step_folder);
  json_builder_set_member_name (builder, "result");
  json_builder_add_string_value (builder, self->report_path);
  json_builder_set_member_name (builder, "stdout_log");
  json_builder_add_string_value (builder, self->stdout_path);
  json_builder_set_member_name (builder, "stderr_log");
  json_builder_add_string_value (builder, self->stderr_path);
  json_builder_set_member_name (builder, "log_limit");
  json_builder_add_int_value (builder, (gint64) self->log_limit);

  json_builder_set_member_name (builder, "priors");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->priors->len; i++)
    {
      Prior *prior = &g_array_index (self->priors, Prior, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "key");
      json_builder_add_string_value (builder, prior->key);
      json_builder_set_member_name (builder, "source");
      json_builder_add_string_value (builder, prior_source_name (prior->source));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_object_foreach_member (self->extra, add_extra_member, builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return sk_json_to_data (root, FALSE, NULL);
}

/* The logs and the report go into the bookkeeping folder; a report left by
 * an earlier run must not pass for this one's. The logs are removed rather
 * than truncated, so that a link left in their place is replaced and the
 * file it points to is not touched.
 */
static void
prepare_bookkeeping (SkHarnessSpec *self)
{
  g_autofree char *folder = g_path_get_dirname (self->report_path);

  g_mkdir_with_parents (folder, 0755);
  g_unlink (self->report_path);
  g_unlink (self->stdout_path);
  g_unlink (self->stderr_path);
}

/* Isolated mode ---------------------------------------------------------- */

struct _SkHarnessLaunch
{
  GObject     parent_instance;

  SkProcess  *process;
  char       *report_path;
  JsonObject *report;
  gboolean    sandboxed;
};

G_DEFINE_FINAL_TYPE (SkHarnessLaunch, sk_harness_launch, G_TYPE_OBJECT)

static void
sk_harness_launch_finalize (GObject *object)
{
  SkHarnessLaunch *self = (SkHarnessLaunch *) object;

  g_clear_object (&self->process);
  g_clear_pointer (&self->report_path, g_free);
  g_clear_pointer (&self->report, json_object_unref);

  G_OBJECT_CLASS (sk_harness_launch_parent_class)->finalize (object);
}

static void
sk_harness_launch_class_init (SkHarnessLaunchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_harness_launch_finalize;
}

static void
sk_harness_launch_init (SkHarnessLaunch *self)
{
}

/* Loads the harness, given as the first argument, through the import
 * system, so that its compiled form in the cache folder is used rather than
 * compiling it at every start; the harness then sees the arguments it
 * would see if run as a script. Steps' own bytecode stays unwritten.
 */
static const char harness_boot[] =
  "import importlib.util, sys\n"
  "sys.argv = sys.argv[1:]\n"
  "spec = importlib.util.spec_from_file_location('skele_harness', sys.argv[0])\n"
  "harness = importlib.util.module_from_spec(spec)\n"
  "sys.modules['skele_harness'] = harness\n"
  "spec.loader.exec_module(harness)\n"
  "sys.exit(harness.main(sys.argv))\n";

/**
 * sk_harness_precompile:
 * @harness: the path of the harness, from sk_harness_get_path()
 * @python: the interpreter that will run it
 *
 * Compiles the harness once for @python into the cache folder, where steps
 * in a sandbox cannot write it themselves; later starts load the compiled
 * form. A stamp beside the harness says it was done. Failing costs only
 * the compilation at each start.
 */
void
sk_harness_precompile (const char *harness,
                       const char *python)
{
  g_autofree char *digest = NULL;
  g_autofree char *stamp = NULL;
  int status = 0;
  const char *argv[] = {
    python, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], doraise=True)",
    harness, NULL
  };

  g_return_if_fail (harness != NULL);
  g_return_if_fail (python != NULL);

  digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, python, -1);
  stamp = g_strdup_printf ("%s.compiled-%.16s", harness, digest);
  if (g_file_test (stamp, G_FILE_TEST_EXISTS))
    return;

  if (g_spawn_sync (NULL, (char **) argv, NULL,
                    G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                    NULL, NULL, NULL, NULL, &status, NULL) &&
      g_spawn_check_wait_status (status, NULL))
    g_file_set_contents (stamp, "", 0, NULL);
}

/* Puts the interpreter in the sandbox, when there is one; the process then
 * gets the sandbox's own environment. @argv is the interpreter, the
 * harness and its arguments.
 */
static gboolean
spawn_python (SkProcess              *process,
              SkSandbox              *sandbox,
              const SkSandboxMounts  *mounts,
              const char * const     *argv,
              GError                **error)
{
  g_autoptr(GPtrArray) booted = g_ptr_array_new ();
  g_autoptr(GPtrArray) wrapped = NULL;
  g_auto(GStrv) env = NULL;

  g_ptr_array_add (booted, (char *) argv[0]);
  g_ptr_array_add (booted, (char *) "-c");
  g_ptr_array_add (booted, (char *) harness_boot);
  for (guint i = 1; argv[i] != NULL; i++)
    g_ptr_array_add (booted, (char *) argv[i]);
  g_ptr_array_add (booted, NULL);

  wrapped = sk_sandbox_wrap_python (sandbox, mounts, (const char * const *) booted->pdata, &env);
  if (env != NULL)
    sk_process_set_environ (process, (const char * const *) env);
  set_python_environment (process);

  return sk_process_spawn (process, (const char * const *) wrapped->pdata, error);
}

/**
 * sk_harness_launch_spawn:
 * @sandbox: the sandbox to start the interpreter in, which also names it
 * @mounts: what the node may see and change in the sandbox
 * @harness: the path of the harness, from sk_harness_get_path()
 * @spec: the node to run
 * @error: return location for a #GError
 *
 * Starts the harness on one node, in a process group of its own and in the
 * node's folder. Its output goes into the node's logs, up to the spec's
 * limit, and its end is kept for error messages.
 *
 * Returns: (transfer full) (nullable): the running launch, or %NULL when
 *   Python could not be started
 */
SkHarnessLaunch *
sk_harness_launch_spawn (SkSandbox              *sandbox,
                         const SkSandboxMounts  *mounts,
                         const char             *harness,
                         SkHarnessSpec          *spec,
                         GError                **error)
{
  g_autoptr(SkHarnessLaunch) self = NULL;
  g_autofree char *spec_text = NULL;
  const char *argv[5];

  g_return_val_if_fail (sandbox != NULL, NULL);
  g_return_val_if_fail (mounts != NULL, NULL);
  g_return_val_if_fail (harness != NULL, NULL);
  g_return_val_if_fail (spec != NULL, NULL);

  prepare_bookkeeping (spec);
  spec_text = spec_to_string (spec);

  self = g_object_new (SK_TYPE_HARNESS_LAUNCH, NULL);
  self->report_path = g_strdup (spec->report_path);
  self->sandboxed = sk_sandbox_is_confined (sandbox);
  self->process = sk_process_new ();
  sk_process_set_cwd (self->process, spec->step_folder);
  sk_process_set_log_file (self->process, SK_PROCESS_STDOUT, spec->stdout_path, spec->log_limit);
  sk_process_set_log_file (self->process, SK_PROCESS_STDERR, spec->stderr_path, spec->log_limit);
  sk_process_set_capture (self->process, 0, TAIL_LIMIT);

  argv[0] = sk_sandbox_get_python (sandbox);
  argv[1] = harness;
  argv[2] = "run";
  argv[3] = spec_text;
  argv[4] = NULL;

  if (!spawn_python (self->process, sandbox, mounts, argv, error))
    return NULL;

  return g_steal_pointer (&self);
}

/**
 * sk_harness_launch_set_output_func:
 * @self: a running launch
 * @func: (nullable): called with the node's output as it comes, or %NULL
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Follows the node's standard output and error while it runs, as
 * sk_process_set_output_func() does; the logs are written all the same.
 */
void
sk_harness_launch_set_output_func (SkHarnessLaunch     *self,
                                   SkProcessOutputFunc  func,
                                   gpointer             user_data,
                                   GDestroyNotify       destroy)
{
  g_return_if_fail (SK_IS_HARNESS_LAUNCH (self));

  sk_process_set_output_func (self->process, func, user_data, destroy);
}

static void
launch_wait_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SkHarnessLaunch *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  gboolean done;

  done = sk_process_wait_finish (SK_PROCESS (object), result, &error);

  /* A launch that was stopped may still have reported. */
  g_clear_pointer (&self->report, json_object_unref);
  self->report = sk_json_read_object (self->report_path, NULL);

  if (!done)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * sk_harness_launch_wait_async:
 * @self: a launch
 * @cancellable: (nullable): kills the process group when it fires
 * @callback: called when the process has exited, its output is read and
 *   its report, if any, is loaded
 * @user_data: data for @callback
 *
 * What the node's script left running in its group is killed when the
 * harness exits; output held open by anything else is read for a short
 * grace only.
 */
void
sk_harness_launch_wait_async (SkHarnessLaunch     *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (SK_IS_HARNESS_LAUNCH (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  /* The cancellable goes to the process, which reports the cancellation
   * only once it is done, so that the report can still be read.
   */
  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, sk_harness_launch_wait_async);
  sk_process_wait_async (self->process, cancellable, launch_wait_cb, task);
}

/**
 * sk_harness_launch_wait_finish:
 * @self: a launch
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the process is done, %FALSE with
 *   %G_IO_ERROR_CANCELLED when it was stopped; either way
 *   sk_harness_launch_get_report() says what the harness reported
 */
gboolean
sk_harness_launch_wait_finish (SkHarnessLaunch  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  g_return_val_if_fail (SK_IS_HARNESS_LAUNCH (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * sk_harness_launch_kill:
 * @self: a launch
 *
 * Kills the harness and everything the node's script started in its group.
 */
void
sk_harness_launch_kill (SkHarnessLaunch *self)
{
  g_return_if_fail (SK_IS_HARNESS_LAUNCH (self));

  sk_process_kill (self->process);
}

/**
 * sk_harness_launch_get_report:
 * @self: a launch that is done
 *
 * Returns: (transfer full) (nullable): what the harness reported of the
 *   node, or %NULL when it reported nothing
 */
JsonObject *
sk_harness_launch_get_report (SkHarnessLaunch *self)
{
  g_return_val_if_fail (SK_IS_HARNESS_LAUNCH (self), NULL);

  return self->report != NULL ? json_object_ref (self->report) : NULL;
}

/**
 * sk_harness_launch_get_stderr_tail:
 * @self: a launch that is done
 *
 * Returns: (transfer full): the end of the node's error output, as valid
 *   UTF-8
 */
char *
sk_harness_launch_get_stderr_tail (SkHarnessLaunch *self)
{
  g_return_val_if_fail (SK_IS_HARNESS_LAUNCH (self), NULL);

  return sk_process_get_tail (self->process, SK_PROCESS_STDERR);
}

/**
 * sk_harness_launch_describe_end:
 * @self: a launch that is done
 *
 * Returns: (transfer full): how Python ended, for a node whose harness
 *   reported nothing
 */
char *
sk_harness_launch_describe_end (SkHarnessLaunch *self)
{
  int signum;

  g_return_val_if_fail (SK_IS_HARNESS_LAUNCH (self), NULL);

  signum = sk_process_get_term_sig (self->process);

  /* Bubblewrap tells a signal that ended the program in it as an exit
   * status of 128 and the signal's number, as shells do. */
  if (signum == 0 && self->sandboxed && sk_process_get_if_exited (self->process) &&
      sk_process_get_exit_status (self->process) > 128 &&
      sk_process_get_exit_status (self->process) < 128 + 65)
    signum = sk_process_get_exit_status (self->process) - 128;

  if (signum != 0)
    return g_strdup_printf (_("Python stopped unexpectedly (signal %d) before the step could "
                              "report a result."), signum);

  if (sk_process_get_if_exited (self->process))
    return g_strdup_printf (_("Python exited with status %d before the step could report a "
                              "result."), sk_process_get_exit_status (self->process));

  return g_strdup (_("The step ended without reporting a result."));
}

/* In-memory worker ------------------------------------------------------- */

struct _SkHarnessWorker
{
  GObject             parent_instance;

  SkProcess          *process;
  GDataInputStream   *results;
  SkHarnessReplyFunc  reply_func;
  gpointer            user_data;
  GTask              *closing_task;

  guint               reading : 1;
  guint               exited : 1;
};

G_DEFINE_FINAL_TYPE (SkHarnessWorker, sk_harness_worker, G_TYPE_OBJECT)

static void
sk_harness_worker_finalize (GObject *object)
{
  SkHarnessWorker *self = (SkHarnessWorker *) object;

  g_clear_object (&self->process);
  g_clear_object (&self->results);
  g_clear_object (&self->closing_task);

  G_OBJECT_CLASS (sk_harness_worker_parent_class)->finalize (object);
}

static void
sk_harness_worker_class_init (SkHarnessWorkerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_harness_worker_finalize;
}

static void
sk_harness_worker_init (SkHarnessWorker *self)
{
}

static void
worker_maybe_closed (SkHarnessWorker *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->closing_task == NULL || self->reading || !self->exited)
    return;

  task = g_steal_pointer (&self->closing_task);
  g_task_return_boolean (task, TRUE);
}

static void worker_read_next (SkHarnessWorker *self);

static void
worker_line_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SkHarnessWorker) self = user_data;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(JsonObject) reply = NULL;
  g_autofree char *line = NULL;
  gsize length;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result,
                                                    &length, NULL);
  self->reading = FALSE;

  /* Once closing, what is left is read only to see the worker out. */
  if (self->closing_task != NULL)
    {
      if (line != NULL)
        worker_read_next (self);
      else
        worker_maybe_closed (self);
      return;
    }

  if (line == NULL)
    {
      /* The worker died: whatever it held in memory is gone. */
      if (self->reply_func != NULL)
        self->reply_func (self, NULL, self->user_data);
      return;
    }

  /* A line that is not a result reads as a result that says nothing. */
  parser = json_parser_new ();
  if (json_parser_load_from_data (parser, line, length, NULL) &&
      JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    reply = json_object_ref (json_node_get_object (json_parser_get_root (parser)));
  else
    reply = json_object_new ();

  if (self->reply_func != NULL)
    self->reply_func (self, reply, self->user_data);

  /* The reply may have ended the run, and closed the worker. */
  if (self->closing_task == NULL)
    worker_read_next (self);
}

/* Each read in flight holds a reference on the worker. */
static void
worker_read_next (SkHarnessWorker *self)
{
  self->reading = TRUE;
  g_data_input_stream_read_line_async (self->results, G_PRIORITY_DEFAULT, NULL,
                                       worker_line_cb, g_object_ref (self));
}

/**
 * sk_harness_worker_spawn:
 * @sandbox: the sandbox to start the interpreter in, which also names it
 * @mounts: what the nodes may see and change in the sandbox
 * @harness: the path of the harness, from sk_harness_get_path()
 * @workflow_folder: the workflow's folder
 * @reply_func: called with each result the worker reports
 * @user_data: data for @reply_func
 * @error: return location for a #GError
 *
 * Starts the in-memory worker, in a process group of its own and in the
 * workflow's folder. Its own output goes into the workflow's worker log;
 * the nodes' output goes into their logs.
 *
 * Returns: (transfer full) (nullable): the running worker, or %NULL when
 *   Python could not be started
 */
SkHarnessWorker *
sk_harness_worker_spawn (SkSandbox             *sandbox,
                         const SkSandboxMounts *mounts,
                         const char          *harness,
                         GFile               *workflow_folder,
                         SkHarnessReplyFunc   reply_func,
                         gpointer             user_data,
                         GError             **error)
{
  g_autoptr(SkHarnessWorker) self = NULL;
  g_autoptr(GInputStream) results = NULL;
  g_autoptr(GFile) log_file = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *log_folder = NULL;
  g_autofree char *workflow = NULL;
  g_autofree char *fd_text = NULL;
  SkSandboxMounts worker_mounts;
  const char *argv[5];
  int fds[2];

  g_return_val_if_fail (sandbox != NULL, NULL);
  g_return_val_if_fail (mounts != NULL, NULL);
  g_return_val_if_fail (harness != NULL, NULL);
  g_return_val_if_fail (G_IS_FILE (workflow_folder), NULL);
  g_return_val_if_fail (reply_func != NULL, NULL);

  workflow = g_file_get_path (workflow_folder);
  log_file = sk_step_folder_get_worker_log (workflow_folder);
  log_path = g_file_get_path (log_file);
  log_folder = g_path_get_dirname (log_path);
  g_mkdir_with_parents (log_folder, 0755);

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, error))
    return NULL;

  self = g_object_new (SK_TYPE_HARNESS_WORKER, NULL);
  self->reply_func = reply_func;
  self->user_data = user_data;
  self->process = sk_process_new ();
  sk_process_set_cwd (self->process, workflow);
  sk_process_set_stdin_pipe (self->process, TRUE);
  sk_process_set_merge_stderr (self->process, TRUE);
  /* The interruption is for the step, not for the sandbox around it. */
  sk_process_set_ignore_interrupt (self->process, TRUE);
  /* What the steps print through Python's streams goes into their own
   * logs; the worker's log takes only what bypasses them (a subprocess, a
   * write to the file descriptor), which must not fill the disk either.
   */
  sk_process_set_log_file (self->process, SK_PROCESS_STDOUT, log_path, 16 * 1024 * 1024);
  sk_process_set_capture (self->process, 0, 0);
  sk_process_take_fd (self->process, fds[1], WORKER_RESULTS_FD);

  fd_text = g_strdup_printf ("%d", WORKER_RESULTS_FD);
  worker_mounts = *mounts;
  worker_mounts.forward_fd = WORKER_RESULTS_FD;
  argv[0] = sk_sandbox_get_python (sandbox);
  argv[1] = harness;
  argv[2] = "worker";
  argv[3] = fd_text;
  argv[4] = NULL;

  if (!spawn_python (self->process, sandbox, &worker_mounts, argv, error))
    {
      close (fds[0]);
      return NULL;
    }

  results = g_unix_input_stream_new (fds[0], TRUE);
  self->results = g_data_input_stream_new (results);
  g_data_input_stream_set_newline_type (self->results, G_DATA_STREAM_NEWLINE_TYPE_LF);
  worker_read_next (self);

  return g_steal_pointer (&self);
}

/**
 * sk_harness_worker_send:
 * @self: a worker
 * @spec: the node to run
 * @error: return location for a #GError
 *
 * Asks the worker to run one node; its result comes back through the
 * worker's reply function. The worker runs one node at a time.
 *
 * Returns: %TRUE when the worker took the node
 */
gboolean
sk_harness_worker_send (SkHarnessWorker  *self,
                        SkHarnessSpec    *spec,
                        GError          **error)
{
  GOutputStream *input;
  g_autofree char *spec_text = NULL;
  g_autofree char *line = NULL;

  g_return_val_if_fail (SK_IS_HARNESS_WORKER (self), FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);
  g_return_val_if_fail (self->closing_task == NULL, FALSE);

  prepare_bookkeeping (spec);
  spec_text = spec_to_string (spec);
  line = g_strconcat (spec_text, "\n", NULL);
  input = sk_process_get_stdin_pipe (self->process);

  return g_output_stream_write_all (input, line, strlen (line), NULL, NULL, error) &&
         g_output_stream_flush (input, NULL, error);
}

/**
 * sk_harness_worker_interrupt:
 * @self: a worker
 *
 * The harness turns the interruption into KeyboardInterrupt inside the
 * node's code, which keeps the worker and the outputs it holds alive.
 */
void
sk_harness_worker_interrupt (SkHarnessWorker *self)
{
  g_return_if_fail (SK_IS_HARNESS_WORKER (self));

  sk_process_signal (self->process, SIGINT);
}

/**
 * sk_harness_worker_kill:
 * @self: a worker
 *
 * Kills the worker and its process group; the outputs it held are lost.
 * This only sends a signal, so it may be called from any thread.
 */
void
sk_harness_worker_kill (SkHarnessWorker *self)
{
  g_return_if_fail (SK_IS_HARNESS_WORKER (self));

  sk_process_kill (self->process);
}

static void
worker_exited_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(SkHarnessWorker) self = user_data;

  sk_process_wait_finish (SK_PROCESS (object), result, NULL);
  self->exited = TRUE;
  worker_maybe_closed (self);
}

/**
 * sk_harness_worker_close_async:
 * @self: a worker
 * @callback: called once the worker has exited
 * @user_data: data for @callback
 *
 * Closing its input ends the worker; the wait makes sure that no process
 * outlives the run. The reply function is not called any more.
 */
void
sk_harness_worker_close_async (SkHarnessWorker     *self,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (SK_IS_HARNESS_WORKER (self));
  g_return_if_fail (self->closing_task == NULL);

  self->reply_func = NULL;
  self->user_data = NULL;
  self->closing_task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (self->closing_task, sk_harness_worker_close_async);

  g_output_stream_close (sk_process_get_stdin_pipe (self->process), NULL, NULL);
  sk_process_wait_async (self->process, NULL, worker_exited_cb, g_object_ref (self));
}

gboolean
sk_harness_worker_close_finish (SkHarnessWorker  *self,
                                GAsyncResult     *result,
                                GError          **error)
{
  g_return_val_if_fail (SK_IS_HARNESS_WORKER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Fork server ------------------------------------------------------------ */

/* The largest request the server reads; a spec is a few hundred bytes.
 * Its replies are a line of numbers. */
#define SERVER_MESSAGE_LIMIT (1024 * 1024)
#define REPLY_LIMIT 4096
#define SERVER_READY_TIMEOUT_MS 20000

struct _SkHarnessServer
{
  GObject      parent_instance;

  SkProcess   *process;
  GMutex       lock;
  int          socket_fd;
  guint        watch_id;
  GHashTable  *launches;
  guint64      next_id;

  char        *workflow_dir;
  GPtrArray   *writable;
  GPtrArray   *read_only;
  gboolean     network;
  gboolean     narrow;
};

G_DEFINE_FINAL_TYPE (SkHarnessServer, sk_harness_server, G_TYPE_OBJECT)

/* What a launch's process needs to signal its group through the server. */
typedef struct
{
  SkHarnessServer *server;
  guint64          id;
} ServerChild;

static void
server_child_free (gpointer data)
{
  ServerChild *child = data;

  g_object_unref (child->server);
  g_free (child);
}

static gboolean
server_send (SkHarnessServer *self,
             const char      *text,
             const int       *fds,
             guint            n_fds)
{
  struct msghdr message = { 0 };
  struct iovec iov;
  union {
    char           buffer[CMSG_SPACE (2 * sizeof (int))];
    struct cmsghdr align;
  } control;
  gboolean sent;

  iov.iov_base = (void *) text;
  iov.iov_len = strlen (text);
  message.msg_iov = &iov;
  message.msg_iovlen = 1;

  if (n_fds > 0)
    {
      struct cmsghdr *header;

      g_assert (n_fds <= 2);
      memset (&control, 0, sizeof control);
      message.msg_control = control.buffer;
      message.msg_controllen = CMSG_SPACE (n_fds * sizeof (int));
      header = CMSG_FIRSTHDR (&message);
      header->cmsg_level = SOL_SOCKET;
      header->cmsg_type = SCM_RIGHTS;
      header->cmsg_len = CMSG_LEN (n_fds * sizeof (int));
      memcpy (CMSG_DATA (header), fds, n_fds * sizeof (int));
    }

  g_mutex_lock (&self->lock);
  sent = self->socket_fd >= 0 &&
         sendmsg (self->socket_fd, &message, MSG_NOSIGNAL) == (ssize_t) iov.iov_len;
  g_mutex_unlock (&self->lock);

  return sent;
}

/* Called from any thread, as SkProcess cancels from wherever it is asked. */
static void
server_child_signal (int      signum,
                     gpointer user_data)
{
  ServerChild *child = user_data;
  g_autofree char *text = NULL;

  text = g_strdup_printf ("{\"op\": \"signal\", \"id\": %" G_GUINT64_FORMAT ", \"signal\": %d}",
                          child->id, signum);
  server_send (child->server, text, NULL, 0);
}

static void
server_close_socket (SkHarnessServer *self)
{
  g_clear_handle_id (&self->watch_id, g_source_remove);

  g_mutex_lock (&self->lock);
  if (self->socket_fd >= 0)
    close (self->socket_fd);
  self->socket_fd = -1;
  g_mutex_unlock (&self->lock);
}

/* The server is gone, and its children with it: they die with their
 * parent. Their ends are told as a kill, which is what happened. */
static void
server_lost (SkHarnessServer *self)
{
  g_autoptr(GHashTable) launches = g_steal_pointer (&self->launches);
  GHashTableIter iter;
  SkProcess *process;

  self->launches = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_object_unref);
  server_close_socket (self);

  g_hash_table_iter_init (&iter, launches);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    sk_process_set_exited (process, SIGKILL, FALSE);
}

static gboolean
server_reply_cb (int          fd,
                 GIOCondition condition,
                 gpointer     user_data)
{
  SkHarnessServer *self = user_data;
  char buffer[REPLY_LIMIT];

  g_object_ref (self);
  for (;;)
    {
      g_autoptr(JsonNode) root = NULL;
      JsonObject *reply;
      ssize_t n;
      gint64 id;

      n = recv (fd, buffer, sizeof buffer - 1, MSG_DONTWAIT);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        break;
      if (n <= 0)
        {
          self->watch_id = 0;
          server_lost (self);
          g_object_unref (self);
          return G_SOURCE_REMOVE;
        }

      buffer[n] = '\0';
      root = json_from_string (buffer, NULL);
      if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
        continue;

      reply = json_node_get_object (root);
      if (!json_object_has_member (reply, "status"))
        continue;

      id = json_object_get_int_member (reply, "id");
      {
        g_autoptr(SkProcess) process = NULL;
        gpointer key = NULL;

        if (g_hash_table_steal_extended (self->launches, &id, &key, (gpointer *) &process))
          {
            g_free (key);
            /* The server is the reaper of what the step left, and killed it. */
            sk_process_set_exited (process, (int) json_object_get_int_member (reply, "status"),
                                   TRUE);
          }
      }
    }

  g_object_unref (self);
  return G_SOURCE_CONTINUE;
}

/**
 * sk_harness_server_stop:
 * @self: a fork server
 *
 * Ends the server; the steps it still runs end with it, and are told as
 * killed. Launches that outlive it cannot signal it any more.
 */
void
sk_harness_server_stop (SkHarnessServer *self)
{
  g_return_if_fail (SK_IS_HARNESS_SERVER (self));

  server_lost (self);
  if (self->process != NULL)
    sk_process_kill (self->process);
}

static void
sk_harness_server_dispose (GObject *object)
{
  SkHarnessServer *self = (SkHarnessServer *) object;

  sk_harness_server_stop (self);

  G_OBJECT_CLASS (sk_harness_server_parent_class)->dispose (object);
}

static void
sk_harness_server_finalize (GObject *object)
{
  SkHarnessServer *self = (SkHarnessServer *) object;

  g_clear_object (&self->process);
  g_clear_pointer (&self->launches, g_hash_table_unref);
  g_clear_pointer (&self->workflow_dir, g_free);
  g_clear_pointer (&self->writable, g_ptr_array_unref);
  g_clear_pointer (&self->read_only, g_ptr_array_unref);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (sk_harness_server_parent_class)->finalize (object);
}

static void
sk_harness_server_class_init (SkHarnessServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sk_harness_server_dispose;
  object_class->finalize = sk_harness_server_finalize;
}

static void
sk_harness_server_init (SkHarnessServer *self)
{
  g_mutex_init (&self->lock);
  self->socket_fd = -1;
  self->launches = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_object_unref);
  self->writable = g_ptr_array_new_with_free_func (g_free);
  self->read_only = g_ptr_array_new_with_free_func (g_free);
}

static void
add_string_array (JsonBuilder *builder,
                  const char  *name,
                  GPtrArray   *paths)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; paths != NULL && i < paths->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (paths, i));
  json_builder_end_array (builder);
}

static void
copy_paths (GPtrArray *to,
            GPtrArray *from)
{
  for (guint i = 0; from != NULL && i < from->len; i++)
    g_ptr_array_add (to, g_strdup (g_ptr_array_index (from, i)));
}

/* Waits for the server's first word, which says whether it can keep the
 * steps apart; the run goes on only once it is known. */
static gboolean
server_wait_ready (SkHarnessServer  *self,
                   GError          **error)
{
  g_autoptr(JsonNode) root = NULL;
  struct pollfd poll_fd = { .fd = self->socket_fd, .events = POLLIN };
  char buffer[256];
  ssize_t n = -1;
  int polled;

  do
    polled = poll (&poll_fd, 1, SERVER_READY_TIMEOUT_MS);
  while (polled < 0 && errno == EINTR);

  if (polled > 0)
    do
      n = recv (self->socket_fd, buffer, sizeof buffer - 1, 0);
    while (n < 0 && errno == EINTR);

  if (n > 0)
    {
      buffer[n] = '\0';
      root = json_from_string (buffer, NULL);
    }

  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root) &&
      json_object_get_boolean_member_with_default (json_node_get_object (root), "ready", FALSE))
    return TRUE;

  if (n > 0 && self->narrow)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                         _("the steps cannot be kept apart inside one sandbox on this system"));
  else
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                         _("the process that starts the steps did not start"));
  return FALSE;
}

/**
 * sk_harness_server_spawn:
 * @sandbox: the sandbox of the run
 * @mounts: what all the steps that the server may start may see and
 *   change; each step takes back, in its own process, what it may not
 * @harness: the path of the harness, from sk_harness_get_path()
 * @error: return location for a #GError
 *
 * Starts the fork server of the isolated mode: one Python, started once,
 * that forks a process for each step, so that steps stay apart without an
 * interpreter's start-up each. It works where the sandbox is bubblewrap,
 * whose namespace each child can narrow, or where there is no sandbox.
 * Waits until the server is ready.
 *
 * Returns: (transfer full) (nullable): the server, or %NULL with
 *   %G_IO_ERROR_NOT_SUPPORTED and the reason when steps have to be
 *   started one process each
 */
SkHarnessServer *
sk_harness_server_spawn (SkSandbox              *sandbox,
                         const SkSandboxMounts  *mounts,
                         const char             *harness,
                         GError                **error)
{
  g_autoptr(SkHarnessServer) self = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *config = NULL;
  g_autofree char *fd_text = NULL;
  SkSandboxMounts server_mounts;
  const char *argv[6];
  int fds[2];

  g_return_val_if_fail (sandbox != NULL, NULL);
  g_return_val_if_fail (mounts != NULL, NULL);
  g_return_val_if_fail (harness != NULL, NULL);

#ifndef __linux__
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("steps are forked only on Linux"));
  return NULL;
#endif

  if (sk_sandbox_get_kind (sandbox) == SK_SANDBOX_FLATPAK)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("inside Flatpak each step needs a sandbox of its own"));
      return NULL;
    }

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "%s", g_strerror (saved_errno));
      return NULL;
    }

  self = g_object_new (SK_TYPE_HARNESS_SERVER, NULL);
  self->socket_fd = fds[0];
  self->workflow_dir = g_strdup (mounts->workflow_dir);
  self->narrow = sk_sandbox_is_confined (sandbox);
  self->network = mounts->network;
  copy_paths (self->writable, mounts->writable);
  copy_paths (self->read_only, mounts->read_only);

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "narrow");
  json_builder_add_boolean_value (builder, self->narrow);
  json_builder_set_member_name (builder, "network");
  json_builder_add_boolean_value (builder, self->network);
  add_string_array (builder, "writable", self->writable);
  add_string_array (builder, "read_only", self->read_only);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  config = sk_json_to_data (root, FALSE, NULL);

  self->process = sk_process_new ();
  sk_process_set_cwd (self->process, mounts->workflow_dir);
  sk_process_set_ignore_interrupt (self->process, TRUE);
  sk_process_set_capture (self->process, 0, TAIL_LIMIT);
  sk_process_take_fd (self->process, fds[1], WORKER_RESULTS_FD);

  fd_text = g_strdup_printf ("%d", WORKER_RESULTS_FD);
  server_mounts = *mounts;
  server_mounts.forward_fd = WORKER_RESULTS_FD;
  server_mounts.nested_namespaces = self->narrow;
  argv[0] = sk_sandbox_get_python (sandbox);
  argv[1] = harness;
  argv[2] = "serve";
  argv[3] = fd_text;
  argv[4] = config;
  argv[5] = NULL;

  if (!spawn_python (self->process, sandbox, &server_mounts, argv, error))
    return NULL;

  if (!server_wait_ready (self, error))
    return NULL;

  self->watch_id = g_unix_fd_add (self->socket_fd, G_IO_IN | G_IO_HUP | G_IO_ERR,
                                  server_reply_cb, self);
  return g_steal_pointer (&self);
}

static gboolean
path_in (GPtrArray  *paths,
         const char *path)
{
  for (guint i = 0; i < paths->len; i++)
    if (g_strcmp0 (g_ptr_array_index (paths, i), path) == 0)
      return TRUE;

  return FALSE;
}

static gboolean
path_under_any (GPtrArray  *roots,
                const char *path)
{
  for (guint i = 0; i < roots->len; i++)
    {
      const char *root = g_ptr_array_index (roots, i);
      gsize length = strlen (root);

      if (strncmp (path, root, length) == 0 && (path[length] == '\0' || path[length] == '/'))
        return TRUE;
    }

  return FALSE;
}

/* Whether a child of the server can be given exactly @mounts. */
static gboolean
server_covers (SkHarnessServer       *self,
               const SkSandboxMounts *mounts)
{
  if (!self->narrow)
    return TRUE;

  if (g_strcmp0 (mounts->workflow_dir, self->workflow_dir) != 0 ||
      (mounts->network && !self->network))
    return FALSE;

  for (guint i = 0; mounts->writable != NULL && i < mounts->writable->len; i++)
    if (!path_under_any (self->writable, g_ptr_array_index (mounts->writable, i)))
      return FALSE;

  for (guint i = 0; mounts->read_only != NULL && i < mounts->read_only->len; i++)
    if (!path_in (self->read_only, g_ptr_array_index (mounts->read_only, i)))
      return FALSE;

  return TRUE;
}

/**
 * sk_harness_launch_fork:
 * @server: a running fork server
 * @mounts: what the node may see and change
 * @spec: the node to run
 * @error: return location for a #GError
 *
 * Runs one node in a process forked by @server, which behaves as one from
 * sk_harness_launch_spawn(): a session of its own, the node's logs, its
 * report, and its group killed when it ends or is stopped.
 *
 * Returns: (transfer full) (nullable): the running launch, or %NULL with
 *   %G_IO_ERROR_NOT_SUPPORTED when the server cannot give the node what it
 *   may do, or has stopped; the node can then be spawned
 */
SkHarnessLaunch *
sk_harness_launch_fork (SkHarnessServer       *server,
                        const SkSandboxMounts *mounts,
                        SkHarnessSpec         *spec,
                        GError               **error)
{
  g_autoptr(SkHarnessLaunch) self = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *spec_text = NULL;
  g_autofree char *request = NULL;
  g_autofree char *mark = NULL;
  ServerChild *child;
  int out[2];
  int err[2];
  int sent[2];
  guint64 id;

  g_return_val_if_fail (SK_IS_HARNESS_SERVER (server), NULL);
  g_return_val_if_fail (mounts != NULL, NULL);
  g_return_val_if_fail (spec != NULL, NULL);

  if (server->socket_fd < 0 || !server_covers (server, mounts))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "The fork server cannot start this step.");
      return NULL;
    }

  prepare_bookkeeping (spec);
  spec_text = spec_to_string (spec);
  mark = sk_process_new_mark ();
  id = ++server->next_id;

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "op");
  json_builder_add_string_value (builder, "run");
  json_builder_set_member_name (builder, "id");
  json_builder_add_int_value (builder, (gint64) id);
  json_builder_set_member_name (builder, "cwd");
  json_builder_add_string_value (builder, spec->step_folder);
  json_builder_set_member_name (builder, "spec");
  json_builder_add_string_value (builder, spec_text);
  json_builder_set_member_name (builder, "mark");
  json_builder_add_string_value (builder, mark);
  json_builder_set_member_name (builder, "network");
  json_builder_add_boolean_value (builder, mounts->network);
  add_string_array (builder, "writable", mounts->writable);
  add_string_array (builder, "read_only", mounts->read_only);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  request = sk_json_to_data (root, FALSE, NULL);

  if (strlen (request) >= SERVER_MESSAGE_LIMIT)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "The step's description is too long for the fork server.");
      return NULL;
    }

  if (!g_unix_open_pipe (out, FD_CLOEXEC, error))
    return NULL;
  if (!g_unix_open_pipe (err, FD_CLOEXEC, error))
    {
      close (out[0]);
      close (out[1]);
      return NULL;
    }

  sent[0] = out[1];
  sent[1] = err[1];
  if (!server_send (server, request, sent, 2))
    {
      close (out[0]);
      close (out[1]);
      close (err[0]);
      close (err[1]);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "The fork server has stopped.");
      return NULL;
    }
  close (out[1]);
  close (err[1]);

  self = g_object_new (SK_TYPE_HARNESS_LAUNCH, NULL);
  self->report_path = g_strdup (spec->report_path);
  self->process = sk_process_new ();
  sk_process_set_log_file (self->process, SK_PROCESS_STDOUT, spec->stdout_path, spec->log_limit);
  sk_process_set_log_file (self->process, SK_PROCESS_STDERR, spec->stderr_path, spec->log_limit);
  sk_process_set_capture (self->process, 0, TAIL_LIMIT);

  child = g_new0 (ServerChild, 1);
  child->server = g_object_ref (server);
  child->id = id;
  sk_process_attach (self->process, mark, out[0], err[0], server_child_signal, child,
                     server_child_free);
  g_hash_table_insert (server->launches, g_memdup2 (&id, sizeof id), g_object_ref (self->process));

  return g_steal_pointer (&self);
}
