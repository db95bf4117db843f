/* sk-runner.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-runner"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-agent.h"
#include "sk-harness.h"
#include "sk-run-record.h"
#include "sk-runner-private.h"

/* The runner object, its settings and its API. A run in progress lives in
 * sk-runner-run.c.
 */

G_DEFINE_FINAL_TYPE (SkRunner, sk_runner, G_TYPE_OBJECT)

G_DEFINE_QUARK (sk-runner-error-quark, sk_runner_error)

enum {
  PROP_0,
  PROP_JOBS,
  PROP_TIMEOUT,
  PROP_IN_MEMORY,
  PROP_FORCE,
  PROP_PYTHON,
  PROP_LOG_LIMIT,
  N_PROPS
};

enum {
  NODE_STATE_CHANGED,
  AGENT_PROGRESS,
  NOTICE,
  STEP_OUTPUT,
  AGENT_TRANSIENT,
  PROCESSES,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

void
_sk_runner_emit_processes (SkRunner   *self,
                           const char *mode,
                           const char *reason)
{
  g_signal_emit (self, signals [PROCESSES], 0, mode, reason);
}

void
_sk_runner_emit_node_state_changed (SkRunner    *self,
                                    SkNode      *node,
                                    SkNodeState  state)
{
  g_signal_emit (self, signals [NODE_STATE_CHANGED], 0, node, state);
}

void
_sk_runner_emit_agent_progress (SkRunner   *self,
                                SkNode     *node,
                                const char *message)
{
  g_signal_emit (self, signals [AGENT_PROGRESS], 0, node, message);
}

void
_sk_runner_emit_notice (SkRunner   *self,
                        const char *message)
{
  g_signal_emit (self, signals [NOTICE], 0, message);
}

/* Whether anyone listens to a step's output as it comes: a loud step then
 * costs no copy of what it prints beyond its logs. */
gboolean
_sk_runner_follows_output (SkRunner *self)
{
  return g_signal_has_handler_pending (self, signals [STEP_OUTPUT], 0, TRUE);
}

void
_sk_runner_emit_step_output (SkRunner   *self,
                             const char *key,
                             const char *text)
{
  g_signal_emit (self, signals [STEP_OUTPUT], 0, key, text);
}

void
_sk_runner_emit_agent_transient (SkRunner   *self,
                                 SkNode     *node,
                                 const char *message)
{
  g_signal_emit (self, signals [AGENT_TRANSIENT], 0, node, message);
}

/* GObject ---------------------------------------------------------------- */

static void
sk_runner_finalize (GObject *object)
{
  SkRunner *self = (SkRunner *)object;

  g_clear_pointer (&self->python, g_free);
  g_clear_pointer (&self->approve, g_strfreev);
  g_clear_pointer (&self->inputs, json_array_unref);
  g_clear_pointer (&self->inputs_fingerprint, g_free);
  g_clear_pointer (&self->input_reads, g_strfreev);
  g_clear_object (&self->agent);

  G_OBJECT_CLASS (sk_runner_parent_class)->finalize (object);
}

static void
sk_runner_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  SkRunner *self = SK_RUNNER (object);

  switch (prop_id)
    {
    case PROP_JOBS:
      g_value_set_uint (value, self->jobs);
      break;

    case PROP_TIMEOUT:
      g_value_set_double (value, self->timeout);
      break;

    case PROP_IN_MEMORY:
      g_value_set_boolean (value, self->in_memory);
      break;

    case PROP_FORCE:
      g_value_set_boolean (value, self->force);
      break;

    case PROP_PYTHON:
      g_value_set_string (value, self->python);
      break;

    case PROP_LOG_LIMIT:
      g_value_set_uint64 (value, self->log_limit);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_runner_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  SkRunner *self = SK_RUNNER (object);

  switch (prop_id)
    {
    case PROP_JOBS:
      sk_runner_set_jobs (self, g_value_get_uint (value));
      break;

    case PROP_TIMEOUT:
      sk_runner_set_timeout (self, g_value_get_double (value));
      break;

    case PROP_IN_MEMORY:
      sk_runner_set_in_memory (self, g_value_get_boolean (value));
      break;

    case PROP_FORCE:
      sk_runner_set_force (self, g_value_get_boolean (value));
      break;

    case PROP_PYTHON:
      sk_runner_set_python (self, g_value_get_string (value));
      break;

    case PROP_LOG_LIMIT:
      sk_runner_set_log_limit (self, g_value_get_uint64 (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_runner_class_init (SkRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_runner_finalize;
  object_class->get_property = sk_runner_get_property;
  object_class->set_property = sk_runner_set_property;

  properties [PROP_JOBS] =
    g_param_spec_uint ("jobs", NULL, NULL, 0, 1024, 0,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_TIMEOUT] =
    g_param_spec_double ("timeout", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_IN_MEMORY] =
    g_param_spec_boolean ("in-memory", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_FORCE] =
    g_param_spec_boolean ("force", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_PYTHON] =
    g_param_spec_string ("python", NULL, NULL, NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_LOG_LIMIT] =
    g_param_spec_uint64 ("log-limit", NULL, NULL, 0, G_MAXUINT64, 1024 * 1024,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkRunner::node-state-changed:
   * @self: a #SkRunner
   * @node: the node
   * @state: its new #SkNodeState
   *
   * Emitted on the main context each time a node of the run changes state.
   */
  signals [NODE_STATE_CHANGED] =
    g_signal_new ("node-state-changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, SK_TYPE_NODE, G_TYPE_INT);

  /**
   * SkRunner::agent-progress:
   * @node: the node the coding agent works on
   * @message: what it is doing, in plain language
   *
   * Emitted on the main context while the coding agent writes or repairs a
   * node's script.
   */
  signals [AGENT_PROGRESS] =
    g_signal_new ("agent-progress",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, SK_TYPE_NODE, G_TYPE_STRING);

  /**
   * SkRunner::notice:
   * @message: something the user should know about the run, in plain
   *   language, such as that its steps run without a sandbox
   *
   * Emitted on the main context when a run starts.
   */
  signals [NOTICE] =
    g_signal_new ("notice",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkRunner::step-output:
   * @self: a #SkRunner
   * @key: the key of the step that is running
   * @text: what it printed since the last emission, on its standard output
   *   or error, as valid UTF-8; a piece of at most 64 KiB, not always
   *   whole lines
   *
   * Emitted on the main context while a step runs, as its output comes, so
   * that it can be shown live. Nothing is kept for it: the step's logs hold
   * the whole output. Steps of the in-memory mode share one process and do
   * not emit it.
   */
  signals [STEP_OUTPUT] =
    g_signal_new ("step-output",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * SkRunner::agent-transient:
   * @self: a #SkRunner
   * @node: the node the coding agent works on
   * @message: what it is waiting for, such as a request it sends again
   *
   * Emitted on the main context for a passing line of the coding agent:
   * the next #SkRunner::agent-progress line, or the next passing one,
   * replaces it. The agent's last line for a node is never a passing one.
   */
  /**
   * SkRunner::processes:
   * @self: a #SkRunner
   * @mode: how the steps of the isolated mode get their processes:
   *   `"fork-server"` (forked by one Python started for the run) or
   *   `"spawn"` (one Python started for each)
   * @reason: (nullable): why they are spawned although forking was asked
   *
   * Emitted on the main context when a run starts its first step in a
   * process of its own.
   */
  signals [PROCESSES] =
    g_signal_new ("processes",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  signals [AGENT_TRANSIENT] =
    g_signal_new ("agent-transient",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, SK_TYPE_NODE, G_TYPE_STRING);
}

static void
sk_runner_init (SkRunner *self)
{
  self->sandbox_policy = SK_SANDBOX_POLICY_REQUIRED;
  self->fork_server = TRUE;
  self->log_limit = 1024 * 1024;
  self->repair_attempts = 2;
  self->agent_max_steps = SK_AGENT_DEFAULT_MAX_STEPS;
  self->require_sandbox = TRUE;
}

SkRunner *
sk_runner_new (void)
{
  return g_object_new (SK_TYPE_RUNNER, NULL);
}

/**
 * sk_runner_get_jobs:
 * @self: a #SkRunner
 *
 * Returns: how many nodes run at once; 0 means one per processor
 */
guint
sk_runner_get_jobs (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), 0);

  return self->jobs;
}

void
sk_runner_set_jobs (SkRunner *self,
                    guint     jobs)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  if (self->jobs != jobs)
    {
      self->jobs = jobs;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_JOBS]);
    }
}

/**
 * sk_runner_get_timeout:
 * @self: a #SkRunner
 *
 * Returns: the longest a node may run, in seconds; 0 means no limit
 */
double
sk_runner_get_timeout (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), 0);

  return self->timeout;
}

void
sk_runner_set_timeout (SkRunner *self,
                       double    seconds)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  if (self->timeout != seconds)
    {
      self->timeout = MAX (seconds, 0);
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TIMEOUT]);
    }
}

gboolean
sk_runner_get_in_memory (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), FALSE);

  return self->in_memory;
}

/**
 * sk_runner_set_in_memory:
 * @self: a #SkRunner
 * @in_memory: whether to run all nodes in one Python worker
 *
 * In the in-memory mode one Python process runs the nodes one after the
 * other and hands outputs to successors without pickling; save() is not
 * called, so the next run cannot reuse these results.
 */
void
sk_runner_set_in_memory (SkRunner *self,
                         gboolean  in_memory)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  in_memory = !!in_memory;
  if (self->in_memory != in_memory)
    {
      self->in_memory = in_memory;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_IN_MEMORY]);
    }
}

gboolean
sk_runner_get_fork_server (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), FALSE);

  return self->fork_server;
}

/**
 * sk_runner_set_fork_server:
 * @self: a #SkRunner
 * @fork_server: whether steps that run in a process of their own are
 *   forked from one Python started for the run
 *
 * Forking saves each step the start of an interpreter; the step still gets
 * a process, a session and, in a sandbox, the permissions of its own. It is
 * the default, and where it cannot work steps are spawned one by one.
 */
void
sk_runner_set_fork_server (SkRunner *self,
                           gboolean  fork_server)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  self->fork_server = !!fork_server;
}

gboolean
sk_runner_get_force (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), FALSE);

  return self->force;
}

void
sk_runner_set_force (SkRunner *self,
                     gboolean  force)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  force = !!force;
  if (self->force != force)
    {
      self->force = force;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_FORCE]);
    }
}

/**
 * sk_runner_get_approve:
 * @self: a #SkRunner
 *
 * Returns: (nullable) (array zero-terminated=1): the keys of the approval
 *   gates that runs approve when they reach them
 */
const char * const *
sk_runner_get_approve (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), NULL);

  return (const char * const *) self->approve;
}

/**
 * sk_runner_set_approve:
 * @self: a #SkRunner
 * @keys: (nullable) (array zero-terminated=1): keys of approval gates
 *
 * Approves the gates named by @keys up front, as `skele run --approve`
 * does: a run that reaches one keeps the decision and goes on.
 */
void
sk_runner_set_approve (SkRunner           *self,
                       const char * const *keys)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  g_strfreev (self->approve);
  self->approve = g_strdupv ((char **) keys);
}

/*
 * _sk_runner_set_inputs:
 * @self: the runner of a sub-workflow
 * @inputs: (transfer full): `[{"key", "path"}]`, the outputs of the
 *   parent step's priors
 * @fingerprint: what they depend on, which the first steps' fingerprints
 *   cover
 * @reads: (transfer full): the folders the steps read them from
 */
void
_sk_runner_set_inputs (SkRunner   *self,
                       JsonArray  *inputs,
                       const char *fingerprint,
                       GStrv       reads)
{
  g_clear_pointer (&self->inputs, json_array_unref);
  g_free (self->inputs_fingerprint);
  g_strfreev (self->input_reads);
  self->inputs = inputs;
  self->inputs_fingerprint = g_strdup (fingerprint);
  self->input_reads = reads;
}

/**
 * sk_runner_get_sandbox_policy:
 * @self: a #SkRunner
 *
 * Returns: whether the steps run in a sandbox; by default they must
 */
SkSandboxPolicy
sk_runner_get_sandbox_policy (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), SK_SANDBOX_POLICY_REQUIRED);

  return self->sandbox_policy;
}

/**
 * sk_runner_set_sandbox_policy:
 * @self: a #SkRunner
 * @policy: whether the steps must, may or must not run in a sandbox
 *
 * In a sandbox a step sees the workflow and may change only its own
 * folder; the rest of the user's files and the network are hidden unless
 * the workflow or the step allows them (sk_project_get_network(),
 * sk_node_get_network(), sk_node_get_read_paths()).
 */
void
sk_runner_set_sandbox_policy (SkRunner        *self,
                              SkSandboxPolicy  policy)
{
  g_return_if_fail (SK_IS_RUNNER (self));
  g_return_if_fail (policy <= SK_SANDBOX_POLICY_OFF);

  self->sandbox_policy = policy;
}

/**
 * sk_runner_get_python:
 * @self: a #SkRunner
 *
 * Returns: (nullable): the interpreter set on the runner, or %NULL to use
 *   the workflow's own setting or `python3`
 */
const char *
sk_runner_get_python (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), NULL);

  return self->python;
}

void
sk_runner_set_python (SkRunner   *self,
                      const char *python)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  if (python != NULL && python[0] == '\0')
    python = NULL;

  if (g_strcmp0 (self->python, python) != 0)
    {
      g_free (self->python);
      self->python = g_strdup (python);
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PYTHON]);
    }
}

guint64
sk_runner_get_log_limit (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), 0);

  return self->log_limit;
}

/**
 * sk_runner_set_log_limit:
 * @self: a #SkRunner
 * @bytes: the most of each output stream kept in a node's logs
 */
void
sk_runner_set_log_limit (SkRunner *self,
                         guint64   bytes)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  if (self->log_limit != bytes)
    {
      self->log_limit = bytes;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LOG_LIMIT]);
    }
}

char *
_sk_runner_find_python (SkRunner   *self,
                        SkProject  *project,
                        GError    **error)
{
  const char *python = self->python;
  char *path;

  if (python == NULL)
    python = sk_project_get_python (project);
  if (python == NULL)
    python = "python3";

  if (g_path_is_absolute (python))
    path = g_file_test (python, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup (python) : NULL;
  else
    path = g_find_program_in_path (python);

  if (path == NULL)
    g_set_error (error, SK_RUNNER_ERROR, SK_RUNNER_ERROR_NO_PYTHON,
                 _("The Python interpreter “%s” was not found. Install Python 3, or choose "
                   "another interpreter."), python);

  return path;
}

/* What sk_runner_script_has_code() found in a script, kept while nothing
 * the kernel says of the file changes; a script changed within the last two
 * seconds may change again without its times showing it, and is read. */
typedef struct
{
  GStatBuf st;
  gboolean has_code;
} ScriptAnswer;

G_LOCK_DEFINE_STATIC (script_answers);
static GHashTable *script_answers;

#define SCRIPT_ANSWER_SETTLED_USEC (2 * G_USEC_PER_SEC)

static gboolean
same_file_state (const GStatBuf *a,
                 const GStatBuf *b)
{
  return a->st_size == b->st_size && a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
         a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec &&
         a->st_mode == b->st_mode;
}

static gboolean
script_answer_lookup (const char     *path,
                      const GStatBuf *st,
                      gboolean       *has_code)
{
  ScriptAnswer *answer;
  gboolean found = FALSE;

  G_LOCK (script_answers);
  answer = script_answers != NULL ? g_hash_table_lookup (script_answers, path) : NULL;
  if (answer != NULL && same_file_state (&answer->st, st))
    {
      *has_code = answer->has_code;
      found = TRUE;
    }
  G_UNLOCK (script_answers);

  return found;
}

static gboolean
script_answer_known (const char *path)
{
  gboolean known;

  G_LOCK (script_answers);
  known = script_answers != NULL && g_hash_table_contains (script_answers, path);
  G_UNLOCK (script_answers);

  return known;
}

static void
script_answer_store (const char     *path,
                     const GStatBuf *st,
                     gboolean        has_code)
{
  gint64 changed = MAX ((gint64) st->st_mtim.tv_sec * G_USEC_PER_SEC + st->st_mtim.tv_nsec / 1000,
                        (gint64) st->st_ctim.tv_sec * G_USEC_PER_SEC + st->st_ctim.tv_nsec / 1000);
  ScriptAnswer *answer;

  if (!S_ISREG (st->st_mode) || g_get_real_time () - changed < SCRIPT_ANSWER_SETTLED_USEC)
    return;

  answer = g_new (ScriptAnswer, 1);
  answer->st = *st;
  answer->has_code = has_code;

  G_LOCK (script_answers);
  if (script_answers == NULL)
    script_answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_replace (script_answers, g_strdup (path), answer);
  G_UNLOCK (script_answers);
}

/**
 * sk_runner_script_has_code:
 * @script: (nullable): a step's script
 *
 * A script that is missing, empty or only spaces and blank lines is no code
 * yet: running it could only fail, and the coding agent writes it as it
 * writes a missing one. A script that cannot be read counts as code, so
 * that running it tells why. This reads the file up to its first character
 * that is not a space.
 *
 * Returns: whether @script holds code
 */
gboolean
sk_runner_script_has_code (GFile *script)
{
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  guint8 buffer[4096];
  gssize n;

  g_return_val_if_fail (script == NULL || G_IS_FILE (script), FALSE);

  if (script == NULL)
    return FALSE;

  if (g_file_peek_path (script) != NULL)
    return sk_runner_script_path_has_code (g_file_peek_path (script));

  stream = g_file_read (script, NULL, &error);
  if (stream == NULL)
    return !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  while ((n = g_input_stream_read (G_INPUT_STREAM (stream), buffer, sizeof buffer, NULL, NULL)) > 0)
    for (gssize i = 0; i < n; i++)
      if (!g_ascii_isspace (buffer[i]))
        return TRUE;

  return n < 0;
}

/**
 * sk_runner_script_path_has_code:
 * @path: (nullable): a step's script, a local file
 *
 * sk_runner_script_has_code() for a file named by its path.
 *
 * Returns: whether @path holds code
 */
gboolean
sk_runner_script_path_has_code (const char *path)
{
  gboolean has_code = FALSE;
  guint8 buffer[4096];
  GStatBuf st;
  gssize n;
  int fd;

  if (path == NULL)
    return FALSE;

  /* A run asks this of every step, more than once: the file is read
   * without waiting on a FIFO, and read again only when it changed. A
   * file not seen before is opened at once, which looks its path up once
   * instead of twice. */
  if (script_answer_known (path))
    {
      if (g_stat (path, &st) != 0)
        return errno != ENOENT;
      if (script_answer_lookup (path, &st, &has_code))
        return has_code;
    }

  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    return errno != ENOENT;
  if (fstat (fd, &st) != 0)
    {
      close (fd);
      return TRUE;
    }

  while (!has_code && (n = read (fd, buffer, sizeof buffer)) > 0)
    for (gssize i = 0; i < n && !has_code; i++)
      has_code = !g_ascii_isspace (buffer[i]);

  close (fd);
  if (n >= 0)
    script_answer_store (path, &st, has_code);
  return has_code || n < 0;
}

/**
 * sk_runner_fingerprint:
 * @self: a #SkRunner
 * @project: a valid workflow
 * @node: a node of @project
 *
 * The fingerprint covers what a node's result depends on: its script, its
 * task text, the contents of its input files, the interpreter and, through
 * their fingerprints, everything upstream. This reads files; a run computes
 * the fingerprints in a thread.
 *
 * Returns: (transfer full) (nullable): the node's fingerprint in
 *   hexadecimal, or %NULL when the workflow has a cycle
 */
char *
sk_runner_fingerprint (SkRunner  *self,
                       SkProject *project,
                       SkNode    *node)
{
  g_autofree char *python = NULL;

  g_return_val_if_fail (SK_IS_RUNNER (self), NULL);
  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  python = _sk_runner_find_python (self, project, NULL);
  return sk_run_record_fingerprint (project, node, python);
}

/**
 * sk_runner_run_async:
 * @self: a #SkRunner
 * @project: a workflow with a folder
 * @nodes: (nullable) (element-type SkNode): the nodes to run; %NULL for the
 *   nodes marked to run
 * @cancellable: (nullable): stops the run and its processes
 * @callback: called when the run has finished
 * @user_data: data for @callback
 *
 * Runs the nodes in dependency order, independent nodes in parallel, each in
 * a Python process of its own (or all in one worker in the in-memory mode).
 * Nodes whose inputs did not change since a successful run are not run again
 * unless #SkRunner:force is set. Results are written into the nodes and
 * their folders; saving them into process.json is the caller's, as
 * SkWorkspace does after a run.
 */
static void
run_async (SkRunner            *self,
           SkProject           *project,
           GPtrArray           *nodes,
           gboolean             generate_only,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (SK_IS_RUNNER (self));
  g_return_if_fail (SK_IS_PROJECT (project));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, run_async);

  /* A stopped run still saves what the nodes that finished produced
   * before it reports the stop.
   */
  g_task_set_check_cancellable (task, FALSE);

  if (sk_project_get_folder (project) == NULL)
    {
      g_task_return_new_error (task, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                               _("Save the workflow in a folder before running it."));
      return;
    }

  if (!sk_project_check (project, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (generate_only && self->agent == NULL)
    {
      g_task_return_new_error (task, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                               _("No coding agent is set up: choose a server and a model in "
                                 "Preferences, or set SKELE_LLM_MODEL."));
      return;
    }

  _sk_runner_run_start (self, project, nodes, generate_only, cancellable,
                        g_steal_pointer (&task));
}

void
sk_runner_run_async (SkRunner            *self,
                     SkProject           *project,
                     GPtrArray           *nodes,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  run_async (self, project, nodes, FALSE, cancellable, callback, user_data);
}

/**
 * sk_runner_generate_async:
 * @nodes: (nullable) (element-type SkNode): the nodes to write code for;
 *   %NULL for every node of @project
 *
 * Lets the coding agent (#SkRunner:agent, which must be set) write the
 * script of each node that has none, in dependency order so that a node's
 * priors have their code first, without running anything. Finish with
 * sk_runner_run_finish(): @stats then counts the scripts written
 * (succeeded), the agent's failures, and the nodes that already had code
 * (up to date).
 */
void
sk_runner_generate_async (SkRunner            *self,
                          SkProject           *project,
                          GPtrArray           *nodes,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  run_async (self, project, nodes, TRUE, cancellable, callback, user_data);
}

/**
 * sk_runner_set_agent:
 * @agent: (nullable): the model that writes missing scripts and repairs
 *   failed ones; %NULL runs without a coding agent
 */
void
sk_runner_set_agent (SkRunner    *self,
                     SkLlmClient *agent)
{
  g_return_if_fail (SK_IS_RUNNER (self));
  g_return_if_fail (agent == NULL || SK_IS_LLM_CLIENT (agent));

  g_set_object (&self->agent, agent);
  self->model_source = SK_SETTING_SOURCE_DEFAULT;
}

SkLlmClient *
sk_runner_get_agent (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), NULL);

  return self->agent;
}

/**
 * sk_runner_set_agent_options:
 * @repair_attempts: how many times a failed script is repaired and run again
 * @max_steps: how many replies the agent may use for one script
 * @require_sandbox: refuse the agent's commands when no sandbox is available
 * @review_commands: have the model review each command before it runs
 * @allow_network: let the agent's commands use the network
 */
void
sk_runner_set_agent_options (SkRunner *self,
                             guint     repair_attempts,
                             guint     max_steps,
                             gboolean  require_sandbox,
                             gboolean  review_commands,
                             gboolean  allow_network)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  self->repair_attempts = repair_attempts;
  self->agent_max_steps = MAX (max_steps, 1);
  self->require_sandbox = !!require_sandbox;
  self->review_commands = !!review_commands;
  self->allow_network = !!allow_network;
}

/**
 * sk_runner_set_agent_settings:
 * @self: a #SkRunner
 * @settings: the coding agent's settings
 * @error: return location for a #GError
 *
 * Gives @self a coding agent with @settings: the client, the repair
 * attempts, the reply budget and the sandbox, reviewer and network choices.
 *
 * Returns: %FALSE with %SK_LLM_ERROR_NOT_CONFIGURED when no model is set
 *   or the server address is not one, leaving @self as it was
 */
gboolean
sk_runner_set_agent_settings (SkRunner               *self,
                              const SkAgentSettings  *settings,
                              GError                **error)
{
  g_autoptr(SkLlmClient) client = NULL;

  g_return_val_if_fail (SK_IS_RUNNER (self), FALSE);
  g_return_val_if_fail (settings != NULL, FALSE);

  client = sk_agent_settings_create_client (settings, error);
  if (client == NULL)
    return FALSE;

  sk_runner_set_agent (self, client);
  self->model_source = sk_agent_settings_get_source (settings, SK_AGENT_SETTING_MODEL);
  sk_runner_set_agent_options (self, settings->repair_attempts, settings->max_steps,
                               settings->require_sandbox, settings->review_commands,
                               settings->allow_network);
  return TRUE;
}

/**
 * sk_runner_run_finish:
 * @self: a #SkRunner
 * @result: the #GAsyncResult passed to the callback
 * @stats: (out caller-allocates) (optional): what the run did
 * @error: return location for a #GError
 *
 * A run that finished is a success even when nodes failed: @stats counts
 * them. It fails when the workflow is invalid, Python is missing, the
 * results could not be saved, or with %G_IO_ERROR_CANCELLED when it was
 * stopped. The results were saved, if at all, before the run returned.
 *
 * Returns: %TRUE if the run went through
 */
gboolean
sk_runner_run_finish (SkRunner      *self,
                      GAsyncResult  *result,
                      SkRunStats    *stats,
                      GError       **error)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (stats != NULL)
    _sk_runner_run_get_stats (G_TASK (result), stats);

  return g_task_propagate_boolean (G_TASK (result), error);
}
