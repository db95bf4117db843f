/* sk-harness.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-harness"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>

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

/* Puts the interpreter in the sandbox, when there is one; the process then
 * gets the sandbox's own environment.
 */
static gboolean
spawn_python (SkProcess              *process,
              SkSandbox              *sandbox,
              const SkSandboxMounts  *mounts,
              const char * const     *argv,
              GError                **error)
{
  g_autoptr(GPtrArray) wrapped = NULL;
  g_auto(GStrv) env = NULL;

  wrapped = sk_sandbox_wrap_python (sandbox, mounts, argv, &env);
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
