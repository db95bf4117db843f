/* sk-runner.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-runner"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <json-glib/json-glib.h>

#include "sk-agent.h"
#include "sk-core-resources.h"
#include "sk-runner.h"

#define HARNESS_RESOURCE "/io/github/skelecode/SkeleCode/python/skele_harness.py"
#define SUMMARY_LIMIT (64 * 1024)
#define TAIL_LIMIT (4 * 1024)
#define READ_CHUNK (64 * 1024)
#define WORKER_GRACE_SECONDS 3
#define DRAIN_GRACE_MS 1000

struct _SkRunner
{
  GObject  parent_instance;

  char    *python;
  double   timeout;
  guint64  log_limit;
  guint    jobs;

  SkLlmClient *agent;
  guint    repair_attempts;
  guint    agent_max_steps;
  guint    require_sandbox : 1;
  guint    review_commands : 1;
  guint    allow_network : 1;

  guint    in_memory : 1;
  guint    force : 1;
  guint    save_results : 1;
};

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
  PROP_SAVE_RESULTS,
  N_PROPS
};

enum {
  NODE_STATE_CHANGED,
  AGENT_PROGRESS,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

typedef struct _Run Run;
typedef struct _NodeRun NodeRun;

/* Copies a process's output into a log file up to a limit, keeping the end
 * of it in memory for error messages.
 */
typedef struct
{
  NodeRun      *node_run;
  GInputStream *stream;
  int           fd;
  guint64       written;
  guint64       limit;
  GString      *tail;
  guint         truncated : 1;
} LogSink;

struct _NodeRun
{
  Run          *run;
  SkNode       *node;
  GFile        *folder;
  char         *folder_path;
  char         *fingerprint;
  GPtrArray    *successors;
  GHashTable   *snapshot;
  GSubprocess  *process;
  GCancellable *io_cancellable;
  LogSink      *sinks[2];
  char         *result_path;
  char         *stdout_path;
  char         *stderr_path;
  JsonObject   *result;
  gint64        started;
  pid_t         pgid;
  guint         timeout_id;
  guint         drain_id;
  guint         pending_priors;
  guint         pending_ops;
  SkNodeState   final_state;

  /* The coding agent at work on the node, and the failure it repairs. */
  SkAgent      *agent;
  guint         repairs;
  char         *failure_text;
  char         *failure_detail;

  guint         selected : 1;
  guint         started_running : 1;
  guint         timed_out : 1;
  guint         finished : 1;
  guint         code_changed : 1;
  guint         upstream_changed : 1;
};

struct _Run
{
  SkRunner     *runner;
  SkProject    *project;
  GTask        *task;
  GCancellable *cancellable;
  GHashTable   *node_runs;
  GPtrArray    *order;
  GQueue        ready;
  char         *python;
  char         *harness;
  SkRunStats    stats;
  gint64        started;
  gulong        cancelled_id;
  guint         running;
  guint         remaining;
  guint         jobs;

  /* The in-memory worker and the node it is running. */
  GSubprocess      *worker;
  pid_t             worker_pgid;
  GOutputStream    *worker_input;
  GDataInputStream *worker_results;
  NodeRun          *worker_node;
  guint             worker_kill_id;
  char             *worker_failure;
  GTask            *closing_task;
  guint             reader_active : 1;
  guint             worker_exited : 1;

  guint         in_memory : 1;
  guint         force : 1;
  guint         completing : 1;
  guint         generate_only : 1;
};

static void schedule (Run *run);
static void finish_node (NodeRun *node_run);
static void node_run_maybe_done (NodeRun *node_run);
static gboolean start_node (NodeRun *node_run);
static void start_agent (NodeRun    *node_run,
                         const char *traceback,
                         const char *stderr_tail);

static void
set_state (Run         *run,
           SkNode      *node,
           SkNodeState  state)
{
  sk_node_set_state (node, state);
  g_signal_emit (run->runner, signals [NODE_STATE_CHANGED], 0, node, state);
}

static void
log_sink_free (LogSink *sink)
{
  if (sink == NULL)
    return;

  g_clear_object (&sink->stream);
  if (sink->fd >= 0)
    close (sink->fd);
  g_string_free (sink->tail, TRUE);
  g_free (sink);
}

/* Clears what one run of the node's script left: its process, logs and
 * result. */
static void
node_run_clear_process (NodeRun *node_run)
{
  g_clear_handle_id (&node_run->timeout_id, g_source_remove);
  g_clear_handle_id (&node_run->drain_id, g_source_remove);
  g_clear_object (&node_run->io_cancellable);
  g_clear_pointer (&node_run->sinks[0], log_sink_free);
  g_clear_pointer (&node_run->sinks[1], log_sink_free);
  g_clear_object (&node_run->process);
  g_clear_pointer (&node_run->snapshot, g_hash_table_unref);
  g_clear_pointer (&node_run->result_path, g_free);
  g_clear_pointer (&node_run->stdout_path, g_free);
  g_clear_pointer (&node_run->stderr_path, g_free);
  g_clear_pointer (&node_run->result, json_object_unref);
}

static void
node_run_free (NodeRun *node_run)
{
  node_run_clear_process (node_run);
  g_clear_object (&node_run->node);
  g_clear_object (&node_run->folder);
  g_clear_pointer (&node_run->folder_path, g_free);
  g_clear_pointer (&node_run->fingerprint, g_free);
  g_clear_pointer (&node_run->successors, g_ptr_array_unref);
  if (node_run->agent != NULL)
    g_signal_handlers_disconnect_by_data (node_run->agent, node_run);
  g_clear_object (&node_run->agent);
  g_clear_pointer (&node_run->failure_text, g_free);
  g_clear_pointer (&node_run->failure_detail, g_free);
  g_free (node_run);
}

static void
run_free (Run *run)
{
  g_clear_handle_id (&run->worker_kill_id, g_source_remove);
  if (run->cancelled_id != 0)
    g_cancellable_disconnect (run->cancellable, run->cancelled_id);
  g_queue_clear (&run->ready);
  g_clear_pointer (&run->node_runs, g_hash_table_unref);
  g_clear_pointer (&run->order, g_ptr_array_unref);
  g_clear_object (&run->worker_input);
  g_clear_object (&run->worker_results);
  g_clear_object (&run->worker);
  g_clear_object (&run->cancellable);
  g_clear_object (&run->project);
  g_clear_object (&run->runner);
  g_clear_pointer (&run->python, g_free);
  g_clear_pointer (&run->harness, g_free);
  g_clear_pointer (&run->worker_failure, g_free);
  g_free (run);
}

static void
kill_process_group (GSubprocess *process,
                    int          signum)
{
  const char *identifier;
  gint64 pid;

  if (process == NULL || (identifier = g_subprocess_get_identifier (process)) == NULL)
    return;

  pid = g_ascii_strtoll (identifier, NULL, 10);
  if (pid > 0)
    {
      /* Each node runs in its own process group, so that the processes its
       * script started are stopped with it.
       */
      if (kill (-(pid_t) pid, signum) != 0)
        kill ((pid_t) pid, signum);
    }
}

static pid_t
process_pid (GSubprocess *process)
{
  const char *identifier = g_subprocess_get_identifier (process);

  return identifier != NULL ? (pid_t) g_ascii_strtoll (identifier, NULL, 10) : 0;
}

/* Stops what is left of a process group after its leader has exited. The
 * leader's identifier is gone by then, so the group is named by the number
 * noted at spawn time; no new process is given that number while the group
 * still has members.
 */
static void
kill_leftovers (pid_t pgid)
{
  if (pgid > 0)
    kill (-pgid, SIGKILL);
}

static void
child_setup (gpointer user_data)
{
  setpgid (0, 0);
}

/* Harness ---------------------------------------------------------------- */

/**
 * sk_runner_get_harness_path:
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
sk_runner_get_harness_path (GError **error)
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

/* Fingerprints ----------------------------------------------------------- */

static void
checksum_string (GChecksum  *checksum,
                 const char *label,
                 const char *value)
{
  g_checksum_update (checksum, (const guchar *) label, strlen (label) + 1);
  g_checksum_update (checksum, (const guchar *) value, strlen (value) + 1);
}

/* Input files are hashed again only when their size, time or inode
 * changed, so that a window that runs a workflow repeatedly reads large
 * inputs once. The cache is shared by the threads that compute fingerprints.
 */
typedef struct
{
  gint64  size;
  gint64  mtime;
  gint64  mtime_nsec;
  guint64 inode;
  char   *hash;
} FileHash;

G_LOCK_DEFINE_STATIC (file_hashes);
static GHashTable *file_hashes;

static void
file_hash_free (gpointer data)
{
  FileHash *file_hash = data;

  g_free (file_hash->hash);
  g_free (file_hash);
}

static char *
hash_file (const char *path)
{
  g_autoptr(GChecksum) checksum = NULL;
  guchar buffer[READ_CHUNK];
  FileHash *cached;
  GStatBuf st;
  ssize_t n;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return NULL;

  if (fstat (fd, &st) != 0)
    {
      close (fd);
      return NULL;
    }

  G_LOCK (file_hashes);
  if (file_hashes == NULL)
    file_hashes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, file_hash_free);
  cached = g_hash_table_lookup (file_hashes, path);
  if (cached != NULL &&
      cached->size == st.st_size &&
      cached->mtime == st.st_mtime &&
      cached->mtime_nsec == st.st_mtim.tv_nsec &&
      cached->inode == st.st_ino)
    {
      char *hash = g_strdup (cached->hash);

      G_UNLOCK (file_hashes);
      close (fd);
      return hash;
    }
  G_UNLOCK (file_hashes);

  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  while ((n = read (fd, buffer, sizeof buffer)) != 0)
    {
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          close (fd);
          return NULL;
        }

      g_checksum_update (checksum, buffer, n);
    }
  close (fd);

  cached = g_new0 (FileHash, 1);
  cached->size = st.st_size;
  cached->mtime = st.st_mtime;
  cached->mtime_nsec = st.st_mtim.tv_nsec;
  cached->inode = st.st_ino;
  cached->hash = g_strdup (g_checksum_get_string (checksum));

  G_LOCK (file_hashes);
  g_hash_table_insert (file_hashes, g_strdup (path), cached);
  G_UNLOCK (file_hashes);

  return g_strdup (g_checksum_get_string (checksum));
}

/* What a node's fingerprint covers, copied out of the model so that the
 * hashing can run in a thread without touching GObjects.
 */
typedef struct
{
  char   *key;
  char   *script_path;
  char   *input_text;
  GStrv   input_names;
  GStrv   input_paths;
  GArray *priors;
  char   *fingerprint;
} FingerprintJob;

typedef struct
{
  GPtrArray *jobs;
  char      *python;
} FingerprintWork;

static void
fingerprint_job_free (gpointer data)
{
  FingerprintJob *job = data;

  g_free (job->key);
  g_free (job->script_path);
  g_free (job->input_text);
  g_strfreev (job->input_names);
  g_strfreev (job->input_paths);
  g_array_unref (job->priors);
  g_free (job->fingerprint);
  g_free (job);
}

static void
fingerprint_work_free (gpointer data)
{
  FingerprintWork *work = data;

  g_ptr_array_unref (work->jobs);
  g_free (work->python);
  g_free (work);
}

/* @order must list every prior before its successors. */
static FingerprintWork *
fingerprint_work_new (SkProject  *project,
                      GPtrArray  *order,
                      const char *python)
{
  g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);
  FingerprintWork *work = g_new0 (FingerprintWork, 1);

  work->jobs = g_ptr_array_new_full (order->len, fingerprint_job_free);
  work->python = g_strdup (python);

  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      g_autoptr(GFile) folder = sk_project_get_node_folder (project, node);
      g_autoptr(GFile) script = sk_project_get_node_script (project, node);
      g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (project, node);
      g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
      g_autoptr(GStrvBuilder) paths = g_strv_builder_new ();
      const char * const *files = sk_node_get_input_files (node);
      FingerprintJob *job = g_new0 (FingerprintJob, 1);

      job->key = g_strdup (sk_node_get_key (node));
      job->script_path = script != NULL ? g_file_get_path (script) : NULL;
      job->input_text = g_strdup (sk_node_get_input_text (node));

      for (guint j = 0; files[j] != NULL && folder != NULL; j++)
        {
          g_autoptr(GFile) file = g_path_is_absolute (files[j])
                                  ? g_file_new_for_path (files[j])
                                  : g_file_resolve_relative_path (folder, files[j]);
          g_autofree char *path = g_file_get_path (file);

          g_strv_builder_add (names, files[j]);
          g_strv_builder_add (paths, path);
        }
      job->input_names = g_strv_builder_end (names);
      job->input_paths = g_strv_builder_end (paths);

      job->priors = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint j = 0; j < priors->len; j++)
        {
          gpointer value;

          if (g_hash_table_lookup_extended (index, g_ptr_array_index (priors, j), NULL, &value))
            {
              guint position = GPOINTER_TO_UINT (value);

              g_array_append_val (job->priors, position);
            }
        }

      g_hash_table_insert (index, node, GUINT_TO_POINTER (i));
      g_ptr_array_add (work->jobs, job);
    }

  return work;
}

static void
fingerprint_work_run (FingerprintWork *work)
{
  for (guint i = 0; i < work->jobs->len; i++)
    {
      FingerprintJob *job = g_ptr_array_index (work->jobs, i);
      g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
      g_autofree char *script_hash = NULL;

      checksum_string (checksum, "version", "skele-fingerprint-1");
      checksum_string (checksum, "python", work->python != NULL ? work->python : "");

      if (job->script_path != NULL)
        script_hash = hash_file (job->script_path);
      checksum_string (checksum, "script", script_hash != NULL ? script_hash : "missing");
      checksum_string (checksum, "text", job->input_text);

      for (guint j = 0; job->input_paths[j] != NULL; j++)
        {
          g_autofree char *hash = hash_file (job->input_paths[j]);

          checksum_string (checksum, "file", job->input_names[j]);
          checksum_string (checksum, "hash", hash != NULL ? hash : "missing");
        }

      for (guint j = 0; j < job->priors->len; j++)
        {
          FingerprintJob *prior = g_ptr_array_index (work->jobs,
                                                     g_array_index (job->priors, guint, j));

          checksum_string (checksum, "prior", prior->key);
          checksum_string (checksum, "fingerprint", prior->fingerprint);
        }

      job->fingerprint = g_strdup (g_checksum_get_string (checksum));
    }
}

static char *find_python (SkRunner   *self,
                          SkProject  *project,
                          GError    **error);

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
  g_autoptr(GPtrArray) order = NULL;
  g_autoptr(GPtrArray) ancestors = NULL;
  g_autoptr(GHashTable) needed = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) needed_order = g_ptr_array_new ();
  g_autofree char *python = NULL;
  FingerprintWork *work;
  FingerprintJob *last;
  char *result;

  g_return_val_if_fail (SK_IS_RUNNER (self), NULL);
  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  if ((order = sk_project_topological_order (project, NULL)) == NULL)
    return NULL;

  ancestors = sk_project_get_ancestors (project, node);
  for (guint i = 0; i < ancestors->len; i++)
    g_hash_table_add (needed, g_ptr_array_index (ancestors, i));

  /* The node comes last: it is after all of its ancestors in the order. */
  for (guint i = 0; i < order->len; i++)
    {
      if (g_hash_table_contains (needed, g_ptr_array_index (order, i)))
        g_ptr_array_add (needed_order, g_ptr_array_index (order, i));
    }
  g_ptr_array_add (needed_order, node);

  python = find_python (self, project, NULL);
  work = fingerprint_work_new (project, needed_order, python);
  fingerprint_work_run (work);
  last = g_ptr_array_index (work->jobs, work->jobs->len - 1);
  result = g_steal_pointer (&last->fingerprint);
  fingerprint_work_free (work);

  return result;
}

/* Records ---------------------------------------------------------------- */

static char *
skele_path (const char *folder_path,
            const char *name)
{
  return g_build_filename (folder_path, ".skele", name, NULL);
}

static JsonObject *
read_json_object (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (!json_parser_load_from_file (parser, path, NULL))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;

  return json_object_ref (json_node_get_object (root));
}

static const char *
object_get_string (JsonObject *object,
                   const char *member)
{
  JsonNode *node;

  if (object == NULL || (node = json_object_get_member (object, member)) == NULL)
    return NULL;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

/* A node's last record says whether it succeeded and on which inputs. */
static JsonObject *
read_record (const char *folder_path)
{
  g_autofree char *path = skele_path (folder_path, "record.json");

  return read_json_object (path);
}

static gboolean
has_pickle (const char *folder_path,
            const char *key)
{
  g_autofree char *basename = g_strconcat (key, ".pkl", NULL);
  g_autofree char *path = g_build_filename (folder_path, basename, NULL);

  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

static gboolean
record_is_usable (JsonObject *record,
                  const char *folder_path,
                  const char *key,
                  const char *fingerprint)
{
  if (record == NULL || g_strcmp0 (object_get_string (record, "status"), "success") != 0)
    return FALSE;

  /* The in-memory mode does not save outputs, so a pickle beside its record
   * belongs to an earlier run.
   */
  if (g_strcmp0 (object_get_string (record, "mode"), "isolated") != 0)
    return FALSE;

  if (!has_pickle (folder_path, key))
    return FALSE;

  return fingerprint == NULL || g_strcmp0 (object_get_string (record, "fingerprint"), fingerprint) == 0;
}

static void
write_record (NodeRun    *node_run,
              const char *status,
              const char *error_text,
              const char *detail)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *path = skele_path (node_run->folder_path, "record.json");
  g_autofree char *skele_folder = NULL;
  g_autofree char *temporary = NULL;
  g_autofree char *finished = NULL;
  const char * const *files;
  g_autofree char *text = NULL;
  JsonNode *keys = NULL;

  if (node_run->result != NULL)
    keys = json_object_get_member (node_run->result, "output_keys");

  finished = g_date_time_format_iso8601 (now);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, status);
  json_builder_set_member_name (builder, "fingerprint");
  json_builder_add_string_value (builder, node_run->fingerprint);
  json_builder_set_member_name (builder, "mode");
  json_builder_add_string_value (builder, node_run->run->in_memory ? "in-memory" : "isolated");
  json_builder_set_member_name (builder, "finished");
  json_builder_add_string_value (builder, finished);
  json_builder_set_member_name (builder, "seconds");
  json_builder_add_double_value (builder,
                                 (g_get_monotonic_time () - node_run->started) / (double) G_USEC_PER_SEC);
  if (error_text != NULL)
    {
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, error_text);
    }
  if (detail != NULL)
    {
      json_builder_set_member_name (builder, "detail");
      json_builder_add_string_value (builder, detail);
    }
  if (keys != NULL)
    {
      json_builder_set_member_name (builder, "output_keys");
      json_builder_add_value (builder, json_node_copy (keys));
    }

  /* A copy of what the run wrote into process.json, which a run that was
   * killed before saving the workflow would otherwise lose.
   */
  json_builder_set_member_name (builder, "output_text");
  json_builder_add_string_value (builder, sk_node_get_output_text (node_run->node));
  json_builder_set_member_name (builder, "output_files");
  json_builder_begin_array (builder);
  files = sk_node_get_output_files (node_run->node);
  for (guint i = 0; files[i] != NULL; i++)
    json_builder_add_string_value (builder, files[i]);
  json_builder_end_array (builder);

  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);

  /* The record is bookkeeping: a crash that loses it only means the node
   * runs again. So it is renamed into place, which keeps it whole, but not
   * flushed to disk, which would make every node wait for the disk.
   */
  skele_folder = g_build_filename (node_run->folder_path, ".skele", NULL);
  g_mkdir_with_parents (skele_folder, 0755);
  temporary = g_strconcat (path, ".tmp", NULL);
  if (g_file_set_contents_full (temporary, text, -1, G_FILE_SET_CONTENTS_NONE, 0644, NULL))
    g_rename (temporary, path);
}

/* Puts back the outputs of the run that made @record, in case the workflow
 * file was not saved after it.
 */
static void
restore_outputs (SkNode     *node,
                 JsonObject *record)
{
  const char *text = object_get_string (record, "output_text");
  JsonNode *files = json_object_get_member (record, "output_files");
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) strv = NULL;

  if (text == NULL || files == NULL || !JSON_NODE_HOLDS_ARRAY (files))
    return;

  builder = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (json_node_get_array (files)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (files), i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (element));
    }
  strv = g_strv_builder_end (builder);

  sk_node_set_output_text (node, text);
  sk_node_set_output_files (node, (const char * const *) strv);
}

/* Output files ----------------------------------------------------------- */

static gboolean
is_bookkeeping (const char *name)
{
  return g_str_equal (name, ".skele") ||
         g_str_equal (name, "__pycache__") ||
         g_str_equal (name, "test") ||
         g_str_equal (name, "tests");
}

static void
scan_folder (const char *root,
             const char *relative,
             GHashTable *entries,
             guint       depth)
{
  g_autofree char *path = relative != NULL ? g_build_filename (root, relative, NULL) : g_strdup (root);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (depth > 8 || (dir = g_dir_open (path, 0, NULL)) == NULL)
    return;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child_relative = relative != NULL ? g_build_filename (relative, name, NULL)
                                                         : g_strdup (name);
      g_autofree char *child = g_build_filename (root, child_relative, NULL);
      GStatBuf st;

      if (is_bookkeeping (name) || g_lstat (child, &st) != 0)
        continue;

      if (S_ISDIR (st.st_mode))
        scan_folder (root, child_relative, entries, depth + 1);
      else if (S_ISREG (st.st_mode))
        g_hash_table_insert (entries, g_steal_pointer (&child_relative),
                             g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ":%ld",
                                              (gint64) st.st_size, (gint64) st.st_mtime,
                                              (long) st.st_mtim.tv_nsec));
    }
}

static GHashTable *
snapshot_folder (const char *folder_path)
{
  GHashTable *entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  scan_folder (folder_path, NULL, entries, 0);
  return entries;
}

/* g_ptr_array_sort() passes pointers to the elements, not the elements. */
static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static GStrv
changed_files (NodeRun *node_run)
{
  g_autoptr(GHashTable) after = snapshot_folder (node_run->folder_path);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  const char *key = sk_node_get_key (node_run->node);
  const char * const *inputs = sk_node_get_input_files (node_run->node);
  g_autofree char *script = g_strconcat (key, ".py", NULL);
  g_autofree char *pickle = g_strconcat (key, ".pkl", NULL);
  g_autofree char *summary = g_strconcat (key, "_summary.txt", NULL);
  GHashTableIter iter;
  gpointer name, stamp;

  g_hash_table_iter_init (&iter, after);
  while (g_hash_table_iter_next (&iter, &name, &stamp))
    {
      const char *before = g_hash_table_lookup (node_run->snapshot, name);

      if (g_str_equal (name, script) || g_str_equal (name, pickle) ||
          g_str_equal (name, summary) || g_strv_contains (inputs, name))
        continue;

      if (before == NULL || !g_str_equal (before, stamp))
        g_ptr_array_add (names, name);
    }

  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    g_strv_builder_add (builder, *(const char **) &g_ptr_array_index (names, i));

  return g_strv_builder_end (builder);
}

static char *
read_summary (NodeRun *node_run)
{
  g_autofree char *basename = g_strconcat (sk_node_get_key (node_run->node), "_summary.txt", NULL);
  g_autofree char *path = g_build_filename (node_run->folder_path, basename, NULL);
  g_autofree char *contents = NULL;
  g_autofree char *stamp = NULL;
  const char *before;
  gsize length;
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    return NULL;

  /* A summary that the script did not rewrite belongs to an earlier run. */
  stamp = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ":%ld",
                           (gint64) st.st_size, (gint64) st.st_mtime, (long) st.st_mtim.tv_nsec);
  before = g_hash_table_lookup (node_run->snapshot, basename);
  if (before != NULL && g_str_equal (before, stamp))
    return NULL;

  if (!g_file_get_contents (path, &contents, &length, NULL))
    return NULL;

  if (length > SUMMARY_LIMIT)
    {
      contents[SUMMARY_LIMIT] = '\0';
      length = SUMMARY_LIMIT;
    }

  if (!g_utf8_validate (contents, length, NULL))
    {
      char *valid = g_utf8_make_valid (contents, length);

      g_free (contents);
      contents = valid;
    }

  g_strchomp (contents);
  return g_steal_pointer (&contents);
}

/* Finishing a node ------------------------------------------------------- */

static const char *
state_status (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_SUCCEEDED: return "success";
    case SK_NODE_STATE_SKIPPED: return "skipped";
    case SK_NODE_STATE_CANCELLED: return "cancelled";
    default: return "failed";
    }
}

static char *
compose_detail (const char *traceback,
                LogSink    *stderr_sink)
{
  GString *detail = g_string_new (NULL);

  if (traceback != NULL && traceback[0] != '\0')
    g_string_append (detail, traceback);

  if (stderr_sink != NULL && stderr_sink->tail->len > 0)
    {
      if (detail->len > 0)
        g_string_append (detail, "\n");
      g_string_append (detail, _("End of the error output:"));
      g_string_append_c (detail, '\n');
      g_string_append_len (detail, stderr_sink->tail->str, stderr_sink->tail->len);
    }

  if (detail->len == 0)
    {
      g_string_free (detail, TRUE);
      return NULL;
    }

  if (!g_utf8_validate (detail->str, detail->len, NULL))
    {
      char *valid = g_utf8_make_valid (detail->str, detail->len);

      g_string_free (detail, TRUE);
      return valid;
    }

  return g_string_free (detail, FALSE);
}

static void
complete_node (NodeRun     *node_run,
               SkNodeState  state,
               const char  *error_text,
               const char  *detail)
{
  Run *run = node_run->run;

  g_assert (!node_run->finished);

  node_run->finished = TRUE;
  node_run->final_state = state;

  if (node_run->started_running)
    {
      g_auto(GStrv) files = changed_files (node_run);
      g_autofree char *summary = read_summary (node_run);

      sk_node_set_output_text (node_run->node, summary != NULL ? summary : "");
      sk_node_set_output_files (node_run->node, (const char * const *) files);
      write_record (node_run, state_status (state), error_text, detail);
    }
  else if (state == SK_NODE_STATE_FAILED)
    {
      /* An earlier successful record would let successors read a pickle
       * that no longer matches this node.
       */
      write_record (node_run, state_status (state), error_text, detail);
    }

  sk_node_set_error (node_run->node, error_text, detail);

  switch (state)
    {
    case SK_NODE_STATE_SUCCEEDED: run->stats.succeeded++; break;
    case SK_NODE_STATE_SKIPPED: run->stats.skipped++; break;
    case SK_NODE_STATE_UP_TO_DATE: run->stats.up_to_date++; break;
    case SK_NODE_STATE_CANCELLED: run->stats.cancelled++; break;
    default: run->stats.failed++; break;
    }

  /* Writing code runs nothing: a node keeps showing whether it ran. */
  if (!run->generate_only)
    set_state (run, node_run->node, state);
  else if (state == SK_NODE_STATE_SUCCEEDED)
    set_state (run, node_run->node, SK_NODE_STATE_IDLE);
  else if (state != SK_NODE_STATE_UP_TO_DATE)
    set_state (run, node_run->node, state);

  for (guint i = 0; i < node_run->successors->len; i++)
    {
      NodeRun *next = g_ptr_array_index (node_run->successors, i);

      if (node_run->code_changed || node_run->upstream_changed)
        next->upstream_changed = TRUE;

      g_assert (next->pending_priors > 0);
      if (--next->pending_priors == 0)
        g_queue_push_tail (&run->ready, next);
    }

  g_assert (run->remaining > 0);
  run->remaining--;
}

/* Turns the harness's report, or its absence, into the node's state. */
/* The coding agent ---------------------------------------------------- */

static void
agent_progress_cb (SkAgent    *agent,
                   const char *message,
                   NodeRun    *node_run)
{
  g_signal_emit (node_run->run->runner, signals [AGENT_PROGRESS], 0, node_run->node, message);
}

static void
agent_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  NodeRun *node_run = user_data;
  Run *run = node_run->run;
  g_autoptr(GError) error = NULL;
  g_autofree char *summary = NULL;

  summary = sk_agent_run_finish (SK_AGENT (object), result, &error);
  g_signal_handlers_disconnect_by_data (object, node_run);
  g_clear_object (&node_run->agent);
  run->running--;

  if (summary == NULL)
    {
      g_autofree char *message = NULL;
      SkNodeState state = SK_NODE_STATE_FAILED;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          state = SK_NODE_STATE_CANCELLED;
          message = g_strdup (_("The run was stopped while the coding agent was at work."));
        }
      else if (node_run->failure_text != NULL)
        message = g_strdup_printf (_("%s The coding agent could not repair it: %s"),
                                   node_run->failure_text, error->message);
      else
        message = g_strdup_printf (_("The coding agent could not write this step’s code: %s"),
                                   error->message);

      complete_node (node_run, state, message, node_run->failure_detail);
      schedule (run);
      return;
    }

  g_signal_emit (run->runner, signals [AGENT_PROGRESS], 0, node_run->node, summary);

  node_run->code_changed = TRUE;
  g_free (node_run->fingerprint);
  node_run->fingerprint = sk_runner_fingerprint (run->runner, run->project, node_run->node);

  if (run->generate_only)
    complete_node (node_run, SK_NODE_STATE_SUCCEEDED, NULL, NULL);
  else
    start_node (node_run);

  schedule (run);
}

static void
start_agent (NodeRun    *node_run,
             const char *traceback,
             const char *stderr_tail)
{
  Run *run = node_run->run;
  SkRunner *self = run->runner;
  g_autoptr(SkAgent) agent = sk_agent_new (self->agent, run->project, node_run->node);

  sk_agent_set_python (agent, run->python);
  sk_agent_set_max_steps (agent, self->agent_max_steps);
  sk_agent_set_sandbox (agent, SK_SANDBOX_AUTO, !self->require_sandbox, self->allow_network);
  if (self->review_commands)
    sk_agent_set_reviewer (agent, self->agent);
  if (node_run->repairs > 0)
    sk_agent_set_failure (agent, node_run->failure_text, traceback, stderr_tail,
                          node_run->repairs, self->repair_attempts);

  node_run->agent = g_object_ref (agent);
  g_signal_connect (agent, "progress", G_CALLBACK (agent_progress_cb), node_run);

  run->running++;
  sk_node_set_error (node_run->node, NULL, NULL);
  set_state (run, node_run->node, SK_NODE_STATE_WRITING_CODE);
  sk_agent_run_async (agent, run->cancellable, agent_done_cb, node_run);
}

/* Clears what the failed run of @node_run left, and lets the agent repair
 * the script; the slot of the run stays taken.
 */
static void
start_repair (NodeRun    *node_run,
              const char *traceback_text,
              const char *stderr_tail)
{
  Run *run = node_run->run;
  /* The traceback lives in the result that is cleared below. */
  g_autofree char *traceback = g_strdup (traceback_text);

  node_run_clear_process (node_run);
  node_run->started_running = FALSE;
  node_run->timed_out = FALSE;
  node_run->pending_ops = 0;

  run->running--;
  start_agent (node_run, traceback, stderr_tail);
}

static void
finish_node (NodeRun *node_run)
{
  Run *run = node_run->run;
  g_autofree char *error_text = NULL;
  g_autofree char *detail = NULL;
  const char *status = object_get_string (node_run->result, "status");
  const char *traceback = object_get_string (node_run->result, "traceback");
  SkNodeState state;

  g_clear_handle_id (&node_run->timeout_id, g_source_remove);
  g_clear_handle_id (&node_run->drain_id, g_source_remove);

  if (node_run->timed_out)
    {
      state = SK_NODE_STATE_FAILED;
      error_text = g_strdup_printf (_("The step took longer than %g seconds and was stopped."),
                                    sk_runner_get_timeout (run->runner));
    }
  else if (g_cancellable_is_cancelled (run->cancellable))
    {
      state = SK_NODE_STATE_CANCELLED;
      error_text = g_strdup (_("The run was stopped before this step finished."));
    }
  else if (g_strcmp0 (status, "success") == 0)
    {
      state = SK_NODE_STATE_SUCCEEDED;
    }
  else if (g_strcmp0 (status, "skipped") == 0)
    {
      state = SK_NODE_STATE_SKIPPED;
    }
  else if (status != NULL)
    {
      const char *message = object_get_string (node_run->result, "error");

      state = SK_NODE_STATE_FAILED;
      error_text = g_strdup (message != NULL ? message : _("The step failed."));
    }
  else if (run->in_memory && run->worker_failure != NULL)
    {
      state = SK_NODE_STATE_FAILED;
      error_text = g_strdup (run->worker_failure);
    }
  else
    {
      GSubprocess *process = node_run->process;

      state = SK_NODE_STATE_FAILED;
      if (process != NULL && g_subprocess_get_if_signaled (process))
        error_text = g_strdup_printf (_("Python stopped unexpectedly (signal %d) before the "
                                        "step could report a result."),
                                      g_subprocess_get_term_sig (process));
      else if (process != NULL && g_subprocess_get_if_exited (process))
        error_text = g_strdup_printf (_("Python exited with status %d before the step could "
                                        "report a result."),
                                      g_subprocess_get_exit_status (process));
      else
        error_text = g_strdup (_("The step ended without reporting a result."));
    }

  if (state == SK_NODE_STATE_FAILED)
    detail = compose_detail (traceback, node_run->sinks[1]);

  if (state == SK_NODE_STATE_FAILED && run->runner->agent != NULL &&
      node_run->repairs < run->runner->repair_attempts &&
      !g_cancellable_is_cancelled (run->cancellable))
    {
      g_autofree char *stderr_tail = NULL;

      if (node_run->sinks[1] != NULL && node_run->sinks[1]->tail->len > 0)
        stderr_tail = g_utf8_make_valid (node_run->sinks[1]->tail->str, node_run->sinks[1]->tail->len);

      /* The repaired script runs again in the same slot. */
      node_run->repairs++;
      g_free (node_run->failure_text);
      node_run->failure_text = g_strdup (error_text);
      g_free (node_run->failure_detail);
      node_run->failure_detail = g_strdup (detail);
      start_repair (node_run, traceback, stderr_tail);
      return;
    }

  run->running--;
  complete_node (node_run, state, error_text, detail);
  schedule (run);
}

/* Log capture ------------------------------------------------------------ */

static void
log_sink_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  LogSink *sink = user_data;
  NodeRun *node_run = sink->node_run;
  g_autoptr(GBytes) bytes = NULL;
  const char *data;
  gsize size;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, NULL);
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      node_run->pending_ops--;
      node_run_maybe_done (node_run);
      return;
    }

  data = g_bytes_get_data (bytes, &size);

  if (sink->written < sink->limit)
    {
      gsize room = MIN (size, sink->limit - sink->written);
      gsize done = 0;

      while (done < room)
        {
          ssize_t n = write (sink->fd, data + done, room - done);

          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            break;
          done += n;
        }

      sink->written += room;
    }

  if (sink->written >= sink->limit && size > 0 && !sink->truncated)
    {
      static const char note[] = "\n[output truncated]\n";

      sink->truncated = TRUE;
      if (write (sink->fd, note, sizeof note - 1) < 0)
        {
          /* The note is a courtesy; the log already holds what fits. */
        }
    }

  g_string_append_len (sink->tail, data, size);
  if (sink->tail->len > TAIL_LIMIT)
    g_string_erase (sink->tail, 0, sink->tail->len - TAIL_LIMIT);

  g_input_stream_read_bytes_async (sink->stream, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   node_run->io_cancellable, log_sink_read_cb, sink);
}

static LogSink *
log_sink_new (NodeRun      *node_run,
              GInputStream *stream,
              const char   *path,
              guint64       limit)
{
  LogSink *sink = g_new0 (LogSink, 1);

  sink->node_run = node_run;
  sink->stream = stream != NULL ? g_object_ref (stream) : NULL;
  sink->fd = path != NULL ? g_open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  sink->limit = limit;
  sink->tail = g_string_new (NULL);

  return sink;
}

static void
log_sink_start (LogSink *sink)
{
  sink->node_run->pending_ops++;
  g_input_stream_read_bytes_async (sink->stream, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   sink->node_run->io_cancellable, log_sink_read_cb, sink);
}

/* Reads the tail of a log file the in-memory worker wrote itself. */
static void
log_sink_load_tail (LogSink    *sink,
                    const char *path)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  if (g_file_get_contents (path, &contents, &length, NULL))
    {
      gsize start = length > TAIL_LIMIT ? length - TAIL_LIMIT : 0;

      g_string_assign (sink->tail, contents + start);
    }
}

/* Isolated mode ---------------------------------------------------------- */

static void
node_run_maybe_done (NodeRun *node_run)
{
  if (node_run->pending_ops == 0 && !node_run->finished)
    {
      node_run->result = read_json_object (node_run->result_path);
      finish_node (node_run);
    }
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  NodeRun *node_run = user_data;

  node_run->drain_id = 0;
  g_cancellable_cancel (node_run->io_cancellable);
  return G_SOURCE_REMOVE;
}

static void
process_wait_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  NodeRun *node_run = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);

  /* Processes the script started and left running would keep the output
   * pipes open, and with them the node, until they end on their own. Those
   * that left the group, by starting a session of their own, are not waited
   * for beyond a short grace.
   */
  kill_leftovers (node_run->pgid);
  node_run->pending_ops--;
  if (node_run->pending_ops > 0 && node_run->drain_id == 0)
    node_run->drain_id = g_timeout_add (DRAIN_GRACE_MS, drain_timeout_cb, node_run);
  node_run_maybe_done (node_run);
}

static void worker_fail (Run        *run,
                         const char *message);

/* Node code that ignores KeyboardInterrupt, or is stuck outside Python, has
 * to be stopped with the worker; the outputs the worker held are lost.
 */
static gboolean
worker_kill_cb (gpointer user_data)
{
  Run *run = user_data;

  run->worker_kill_id = 0;
  worker_fail (run, _("A step did not stop when its time was up, so the in-memory worker was "
                      "stopped; the steps after it could not run."));
  return G_SOURCE_REMOVE;
}

static gboolean
node_timeout_cb (gpointer user_data)
{
  NodeRun *node_run = user_data;
  Run *run = node_run->run;

  node_run->timeout_id = 0;
  node_run->timed_out = TRUE;

  if (run->in_memory)
    {
      /* The harness turns SIGINT into KeyboardInterrupt inside the node's
       * code, which keeps the worker and the outputs it holds alive.
       */
      kill_process_group (run->worker, SIGINT);
      if (run->worker_kill_id == 0)
        run->worker_kill_id = g_timeout_add_seconds (WORKER_GRACE_SECONDS, worker_kill_cb, run);
    }
  else
    {
      kill_process_group (node_run->process, SIGKILL);
    }

  return G_SOURCE_REMOVE;
}

static JsonNode *
build_spec (NodeRun *node_run)
{
  Run *run = node_run->run;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (run->project, node_run->node);
  g_autoptr(GFile) workflow = NULL;
  g_autofree char *workflow_path = NULL;

  workflow_path = g_file_get_path (sk_project_get_folder (run->project));

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "workflow");
  json_builder_add_string_value (builder, workflow_path);
  json_builder_set_member_name (builder, "key");
  json_builder_add_string_value (builder, sk_node_get_key (node_run->node));
  json_builder_set_member_name (builder, "result");
  json_builder_add_string_value (builder, node_run->result_path);
  json_builder_set_member_name (builder, "stdout_log");
  json_builder_add_string_value (builder, node_run->stdout_path);
  json_builder_set_member_name (builder, "stderr_log");
  json_builder_add_string_value (builder, node_run->stderr_path);
  json_builder_set_member_name (builder, "log_limit");
  json_builder_add_int_value (builder, (gint64) sk_runner_get_log_limit (run->runner));

  json_builder_set_member_name (builder, "priors");
  json_builder_begin_array (builder);
  for (guint i = 0; i < priors->len; i++)
    {
      SkNode *prior = g_ptr_array_index (priors, i);
      NodeRun *prior_run = g_hash_table_lookup (run->node_runs, prior);
      const char *source = "none";

      /* A prior that did not complete in this run reaches the node as {},
       * even when an older pickle of it exists.
       */
      if (prior_run != NULL && prior_run->selected)
        {
          if (prior_run->final_state == SK_NODE_STATE_SUCCEEDED)
            source = run->in_memory ? "memory" : "file";
          else if (prior_run->final_state == SK_NODE_STATE_UP_TO_DATE)
            source = "file";
        }
      else
        {
          g_autoptr(GFile) folder = sk_project_get_node_folder (run->project, prior);
          g_autofree char *folder_path = folder != NULL ? g_file_get_path (folder) : NULL;
          g_autoptr(JsonObject) record = folder_path != NULL ? read_record (folder_path) : NULL;

          if (folder_path != NULL &&
              record_is_usable (record, folder_path, sk_node_get_key (prior), NULL))
            source = "file";
        }

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "key");
      json_builder_add_string_value (builder, sk_node_get_key (prior));
      json_builder_set_member_name (builder, "source");
      json_builder_add_string_value (builder, source);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static char *
spec_to_string (JsonNode *spec)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, spec);
  return json_generator_to_data (generator, NULL);
}

static GSubprocessLauncher *
new_launcher (GSubprocessFlags flags)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (flags);

  /* Bytecode caches would show up among the node's output files. */
  g_subprocess_launcher_setenv (launcher, "PYTHONDONTWRITEBYTECODE", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "PYTHONUNBUFFERED", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "PYTHONIOENCODING", "utf-8", TRUE);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);

  return launcher;
}

static gboolean
start_isolated (NodeRun  *node_run,
                GError  **error)
{
  Run *run = node_run->run;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(JsonNode) spec = build_spec (node_run);
  g_autofree char *spec_text = spec_to_string (spec);
  guint64 limit = sk_runner_get_log_limit (run->runner);

  launcher = new_launcher (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, node_run->folder_path);

  node_run->io_cancellable = g_cancellable_new ();
  node_run->process = g_subprocess_launcher_spawn (launcher, error,
                                                   run->python, run->harness, "run", spec_text,
                                                   NULL);
  if (node_run->process == NULL)
    return FALSE;

  node_run->pgid = process_pid (node_run->process);

  node_run->sinks[0] = log_sink_new (node_run, g_subprocess_get_stdout_pipe (node_run->process),
                                     node_run->stdout_path, limit);
  node_run->sinks[1] = log_sink_new (node_run, g_subprocess_get_stderr_pipe (node_run->process),
                                     node_run->stderr_path, limit);
  log_sink_start (node_run->sinks[0]);
  log_sink_start (node_run->sinks[1]);

  node_run->pending_ops++;
  g_subprocess_wait_async (node_run->process, NULL, process_wait_cb, node_run);

  return TRUE;
}

/* In-memory mode --------------------------------------------------------- */

static void worker_read_next (Run *run);

static void
return_after_worker (Run *run)
{
  GTask *task;

  if (run->closing_task == NULL || run->reader_active || !run->worker_exited)
    return;

  task = g_steal_pointer (&run->closing_task);
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
worker_fail (Run        *run,
             const char *message)
{
  if (run->worker_failure == NULL)
    run->worker_failure = g_strdup (message);

  kill_process_group (run->worker, SIGKILL);
  g_clear_object (&run->worker_input);
}

static void
worker_result_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *line = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  NodeRun *node_run = run->worker_node;
  gsize length;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result,
                                                    &length, NULL);
  run->reader_active = FALSE;
  g_clear_handle_id (&run->worker_kill_id, g_source_remove);

  if (run->completing)
    {
      if (line != NULL)
        worker_read_next (run);
      else
        return_after_worker (run);
      return;
    }

  if (line == NULL)
    {
      /* The worker died: whatever it held in memory is gone. */
      worker_fail (run, _("The Python worker of the in-memory mode stopped unexpectedly."));
    }
  else if (node_run != NULL && json_parser_load_from_data (parser, line, length, NULL) &&
           JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      node_run->result = json_object_ref (json_node_get_object (json_parser_get_root (parser)));
    }

  if (node_run != NULL)
    {
      run->worker_node = NULL;
      log_sink_load_tail (node_run->sinks[1], node_run->stderr_path);
      finish_node (node_run);
    }

  if (line != NULL && run->worker_results != NULL && !run->completing)
    worker_read_next (run);
}

static void
worker_read_next (Run *run)
{
  run->reader_active = TRUE;
  g_data_input_stream_read_line_async (run->worker_results, G_PRIORITY_DEFAULT, NULL,
                                       worker_result_cb, run);
}

static gboolean
ensure_worker (Run     *run,
               GError **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GInputStream) results = NULL;
  g_autofree char *skele_folder = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *workflow = NULL;
  int fds[2];

  if (run->worker != NULL)
    return TRUE;

  workflow = g_file_get_path (sk_project_get_folder (run->project));
  skele_folder = g_build_filename (workflow, ".skele", NULL);
  g_mkdir_with_parents (skele_folder, 0755);
  log_path = g_build_filename (skele_folder, "worker.log", NULL);

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, error))
    return FALSE;

  launcher = new_launcher (G_SUBPROCESS_FLAGS_STDIN_PIPE);
  g_subprocess_launcher_set_cwd (launcher, workflow);
  g_subprocess_launcher_set_stdout_file_path (launcher, log_path);
  g_subprocess_launcher_set_stderr_file_path (launcher, log_path);
  g_subprocess_launcher_take_fd (launcher, fds[1], 3);

  run->worker = g_subprocess_launcher_spawn (launcher, error,
                                             run->python, run->harness, "worker", "3", NULL);
  if (run->worker == NULL)
    {
      close (fds[0]);
      return FALSE;
    }

  run->worker_pgid = process_pid (run->worker);

  /* The launcher holds the write end until it is finalized. */
  g_clear_object (&launcher);

  run->worker_input = g_object_ref (g_subprocess_get_stdin_pipe (run->worker));
  results = g_unix_input_stream_new (fds[0], TRUE);
  run->worker_results = g_data_input_stream_new (results);
  g_data_input_stream_set_newline_type (run->worker_results, G_DATA_STREAM_NEWLINE_TYPE_LF);
  worker_read_next (run);

  return TRUE;
}

static gboolean
start_in_memory (NodeRun  *node_run,
                 GError  **error)
{
  Run *run = node_run->run;
  g_autoptr(JsonNode) spec = NULL;
  g_autofree char *spec_text = NULL;
  g_autofree char *line = NULL;

  if (run->worker_failure != NULL)
    {
      g_set_error_literal (error, SK_RUNNER_ERROR, SK_RUNNER_ERROR_WORKER, run->worker_failure);
      return FALSE;
    }

  if (!ensure_worker (run, error))
    return FALSE;

  spec = build_spec (node_run);
  spec_text = spec_to_string (spec);
  line = g_strconcat (spec_text, "\n", NULL);

  node_run->sinks[1] = log_sink_new (node_run, NULL, NULL, 0);
  run->worker_node = node_run;

  if (!g_output_stream_write_all (run->worker_input, line, strlen (line), NULL, NULL, error) ||
      !g_output_stream_flush (run->worker_input, NULL, error))
    {
      run->worker_node = NULL;
      worker_fail (run, _("The Python worker of the in-memory mode stopped unexpectedly."));
      return FALSE;
    }

  return TRUE;
}

/* Scheduling ------------------------------------------------------------- */

static gboolean
start_node (NodeRun *node_run)
{
  Run *run = node_run->run;
  g_autoptr(GFile) script = sk_project_get_node_script (run->project, node_run->node);
  g_autoptr(JsonObject) record = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *skele_folder = NULL;
  double milliseconds;
  gboolean started;

  node_run->started = g_get_monotonic_time ();

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      complete_node (node_run, SK_NODE_STATE_CANCELLED,
                     _("The run was stopped before this step started."), NULL);
      return FALSE;
    }

  if (run->in_memory && run->worker_failure != NULL)
    {
      complete_node (node_run, SK_NODE_STATE_CANCELLED, run->worker_failure, NULL);
      return FALSE;
    }

  if (run->generate_only)
    {
      if (run->runner->agent != NULL && script != NULL && !g_file_query_exists (script, NULL))
        {
          start_agent (node_run, NULL, NULL);
          return TRUE;
        }
      complete_node (node_run, SK_NODE_STATE_UP_TO_DATE, NULL, NULL);
      return FALSE;
    }

  if (script != NULL && !g_file_query_exists (script, NULL) && run->runner->agent != NULL &&
      !node_run->code_changed)
    {
      start_agent (node_run, NULL, NULL);
      return TRUE;
    }

  if (script == NULL || !g_file_query_exists (script, NULL))
    {
      g_autofree char *message = NULL;

      message = g_strdup_printf (_("This step has no code yet: %s/%s.py does not exist."),
                                 sk_node_get_key (node_run->node),
                                 sk_node_get_key (node_run->node));
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  record = read_record (node_run->folder_path);
  if (!run->force && !node_run->upstream_changed &&
      record_is_usable (record, node_run->folder_path, sk_node_get_key (node_run->node),
                        node_run->fingerprint))
    {
      restore_outputs (node_run->node, record);
      complete_node (node_run, SK_NODE_STATE_UP_TO_DATE, NULL, NULL);
      return FALSE;
    }

  skele_folder = g_build_filename (node_run->folder_path, ".skele", NULL);
  g_mkdir_with_parents (skele_folder, 0755);
  node_run->result_path = skele_path (node_run->folder_path, "result.json");
  node_run->stdout_path = skele_path (node_run->folder_path, "stdout.log");
  node_run->stderr_path = skele_path (node_run->folder_path, "stderr.log");
  g_unlink (node_run->result_path);

  node_run->snapshot = snapshot_folder (node_run->folder_path);
  node_run->started_running = TRUE;

  sk_node_set_error (node_run->node, NULL, NULL);
  set_state (run, node_run->node, SK_NODE_STATE_RUNNING);
  run->running++;

  if (run->in_memory)
    started = start_in_memory (node_run, &error);
  else
    started = start_isolated (node_run, &error);

  if (!started)
    {
      g_autofree char *message = g_strdup_printf (_("Python could not be started: %s"),
                                                  error->message);

      run->running--;
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  /* GLib counts the delay in milliseconds in a guint, about 49 days; a
   * longer limit, infinity included, is no limit in practice, and converting
   * it would overflow into a tiny one.
   */
  milliseconds = sk_runner_get_timeout (run->runner) * 1000;
  if (milliseconds > 0 && milliseconds < G_MAXUINT)
    node_run->timeout_id = g_timeout_add ((guint) milliseconds, node_timeout_cb, node_run);

  return TRUE;
}

static void
worker_closed_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Run *run = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  kill_leftovers (run->worker_pgid);
  run->worker_exited = TRUE;
  return_after_worker (run);
}

static void
complete_run (Run *run)
{
  GTask *task = run->task;

  run->completing = TRUE;
  run->stats.seconds = (g_get_monotonic_time () - run->started) / (double) G_USEC_PER_SEC;
  run->task = NULL;

  if (run->worker != NULL)
    {
      /* Closing its input ends the worker; wait so that no process outlives
       * the run.
       */
      g_clear_object (&run->worker_input);
      g_output_stream_close (g_subprocess_get_stdin_pipe (run->worker), NULL, NULL);
      run->closing_task = task;
      g_subprocess_wait_async (run->worker, NULL, worker_closed_cb, run);
      return;
    }

  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
schedule (Run *run)
{
  if (run->completing)
    return;

  for (;;)
    {
      NodeRun *node_run;

      /* The in-memory worker runs one node at a time. */
      if (run->running >= (run->in_memory ? 1 : run->jobs))
        break;

      node_run = g_queue_pop_head (&run->ready);
      if (node_run == NULL)
        break;

      start_node (node_run);
    }

  if (run->remaining == 0 && run->running == 0)
    complete_run (run);
}

static void
cancelled_cb (GCancellable *cancellable,
              Run          *run)
{
  GHashTableIter iter;
  gpointer value;

  /* Called from the thread that cancelled; signals are safe to send from
   * any thread, and the processes' exits come back on the main context.
   */
  g_hash_table_iter_init (&iter, run->node_runs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      NodeRun *node_run = value;

      if (node_run->process != NULL && !node_run->finished)
        kill_process_group (node_run->process, SIGKILL);
    }

  if (run->worker != NULL)
    kill_process_group (run->worker, SIGKILL);
}

/* GObject ---------------------------------------------------------------- */

static void
sk_runner_finalize (GObject *object)
{
  SkRunner *self = (SkRunner *)object;

  g_clear_pointer (&self->python, g_free);
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

    case PROP_SAVE_RESULTS:
      g_value_set_boolean (value, self->save_results);
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

    case PROP_SAVE_RESULTS:
      sk_runner_set_save_results (self, g_value_get_boolean (value));
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
  properties [PROP_SAVE_RESULTS] =
    g_param_spec_boolean ("save-results", NULL, NULL, TRUE,
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
}

static void
sk_runner_init (SkRunner *self)
{
  self->log_limit = 1024 * 1024;
  self->save_results = TRUE;
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

gboolean
sk_runner_get_save_results (SkRunner *self)
{
  g_return_val_if_fail (SK_IS_RUNNER (self), FALSE);

  return self->save_results;
}

/**
 * sk_runner_set_save_results:
 * @self: a #SkRunner
 * @save_results: whether to write the results into process.json at the end
 */
void
sk_runner_set_save_results (SkRunner *self,
                            gboolean  save_results)
{
  g_return_if_fail (SK_IS_RUNNER (self));

  save_results = !!save_results;
  if (self->save_results != save_results)
    {
      self->save_results = save_results;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SAVE_RESULTS]);
    }
}

static char *
find_python (SkRunner   *self,
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

static void
fingerprint_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  fingerprint_work_run (task_data);
  g_task_return_boolean (task, TRUE);
}

static void
fingerprints_ready_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Run *run = user_data;
  FingerprintWork *work = g_task_get_task_data (G_TASK (result));

  g_task_propagate_boolean (G_TASK (result), NULL);

  for (guint i = 0; i < run->order->len; i++)
    {
      NodeRun *node_run = g_hash_table_lookup (run->node_runs, g_ptr_array_index (run->order, i));
      FingerprintJob *job = g_ptr_array_index (work->jobs, i);

      if (node_run == NULL)
        continue;

      node_run->fingerprint = g_strdup (job->fingerprint);
      if (node_run->pending_priors == 0)
        g_queue_push_tail (&run->ready, node_run);
    }

  schedule (run);
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
 * unless #SkRunner:force is set. Results are written into the nodes, their
 * folders and, when #SkRunner:save-results is set, process.json.
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
  g_autoptr(GPtrArray) selection = NULL;
  g_autoptr(GHashTable) selected = NULL;
  g_autoptr(GTask) hashing = NULL;
  Run *run;

  g_return_if_fail (SK_IS_RUNNER (self));
  g_return_if_fail (SK_IS_PROJECT (project));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, run_async);

  /* A stopped run still returns normally, so that sk_runner_run_finish()
   * saves what the nodes that finished produced before reporting the stop.
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

  run = g_new0 (Run, 1);
  run->generate_only = !!generate_only;
  run->runner = g_object_ref (self);
  run->project = g_object_ref (project);
  run->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  run->node_runs = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) node_run_free);
  run->started = g_get_monotonic_time ();
  run->in_memory = self->in_memory;
  run->force = self->force;
  run->jobs = self->jobs > 0 ? self->jobs : MAX (1, g_get_num_processors ());
  g_queue_init (&run->ready);
  g_task_set_task_data (task, run, (GDestroyNotify) run_free);

  if ((run->python = find_python (self, project, &error)) == NULL ||
      (run->harness = sk_runner_get_harness_path (&error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  run->order = sk_project_topological_order (project, &error);
  if (run->order == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (nodes != NULL)
    selection = g_ptr_array_ref (nodes);
  else if (generate_only)
    selection = g_ptr_array_ref (run->order);
  else
    selection = sk_project_select_nodes (project, NULL, NULL, NULL, NULL);

  selected = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < selection->len; i++)
    g_hash_table_add (selected, g_ptr_array_index (selection, i));

  for (guint i = 0; i < run->order->len; i++)
    {
      SkNode *node = g_ptr_array_index (run->order, i);
      g_autoptr(GFile) folder = sk_project_get_node_folder (project, node);
      NodeRun *node_run;

      if (!g_hash_table_contains (selected, node))
        continue;

      node_run = g_new0 (NodeRun, 1);
      node_run->run = run;
      node_run->node = g_object_ref (node);
      node_run->folder = g_object_ref (folder);
      node_run->folder_path = g_file_get_path (folder);
      node_run->successors = g_ptr_array_new ();
      node_run->selected = TRUE;
      node_run->final_state = SK_NODE_STATE_QUEUED;
      g_hash_table_insert (run->node_runs, node, node_run);
      run->remaining++;
    }

  /* Link each selected node to its selected priors; the others are read
   * from their last saved results.
   */
  for (guint i = 0; i < run->order->len; i++)
    {
      SkNode *node = g_ptr_array_index (run->order, i);
      NodeRun *node_run = g_hash_table_lookup (run->node_runs, node);
      g_autoptr(GPtrArray) priors = NULL;

      if (node_run == NULL)
        continue;

      priors = sk_project_get_prior_nodes (project, node);
      for (guint j = 0; j < priors->len; j++)
        {
          NodeRun *prior_run = g_hash_table_lookup (run->node_runs, g_ptr_array_index (priors, j));

          if (prior_run != NULL)
            {
              g_ptr_array_add (prior_run->successors, node_run);
              node_run->pending_priors++;
            }
        }

      if (generate_only)
        {
          g_autoptr(GFile) script = sk_project_get_node_script (project, node);

          if (script != NULL && g_file_query_exists (script, NULL))
            continue;
        }

      sk_node_set_error (node, NULL, NULL);
      set_state (run, node, SK_NODE_STATE_QUEUED);
    }

  run->cancelled_id = g_cancellable_connect (run->cancellable, G_CALLBACK (cancelled_cb), run, NULL);
  run->task = g_steal_pointer (&task);

  /* Hashing scripts and input files can take a while; it happens in a
   * thread, on a copy of what it needs, and the run goes on when it is done.
   */
  hashing = g_task_new (NULL, NULL, fingerprints_ready_cb, run);
  g_task_set_source_tag (hashing, sk_runner_run_async);
  g_task_set_task_data (hashing, fingerprint_work_new (project, run->order, run->python),
                        fingerprint_work_free);
  g_task_run_in_thread (hashing, fingerprint_thread);
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
 * stopped.
 *
 * Returns: %TRUE if the run went through
 */
gboolean
sk_runner_run_finish (SkRunner      *self,
                      GAsyncResult  *result,
                      SkRunStats    *stats,
                      GError       **error)
{
  GTask *task = G_TASK (result);
  Run *run;

  g_return_val_if_fail (SK_IS_RUNNER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  run = g_task_get_task_data (task);
  if (stats != NULL)
    {
      if (run != NULL)
        *stats = run->stats;
      else
        memset (stats, 0, sizeof *stats);
    }

  if (!g_task_propagate_boolean (task, error))
    return FALSE;

  if (run != NULL && run->runner->save_results && sk_project_get_modified (run->project))
    {
      g_autoptr(GError) save_error = NULL;

      if (!sk_project_save (run->project, &save_error))
        {
          g_set_error (error, SK_RUNNER_ERROR, SK_RUNNER_ERROR_SAVE,
                       _("The run finished, but its results could not be written into the "
                         "workflow: %s"), save_error->message);
          return FALSE;
        }
    }

  if (run != NULL && g_cancellable_is_cancelled (run->cancellable))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The run was stopped."));
      return FALSE;
    }

  return TRUE;
}
