/* sk-run-record.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-run-record"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sk-json.h"
#include "sk-run-record.h"
#include "sk-step-folder.h"
#include "sk-util.h"

/* What the runner keeps of a node's last run, and what it compares to
 * decide whether the node has to run again. Everything here works on plain
 * data — paths, keys, a node — and knows nothing of a run in progress.
 */

#define SUMMARY_LIMIT (64 * 1024)
#define READ_CHUNK (64 * 1024)

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

/* What one node's fingerprint covers, copied out of the model. */
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

struct _SkFingerprints
{
  GPtrArray *jobs;
  char      *python;
};

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

/**
 * sk_fingerprints_new:
 * @project: a workflow with a folder
 * @order: (element-type SkNode): nodes of @project, every prior before its
 *   successors
 * @python: (nullable): the path of the interpreter the nodes run with
 *
 * Copies what the fingerprints of @order cover: the scripts' and input
 * files' paths, the task texts, and which of the nodes are priors of which.
 * Nothing is read from disk yet.
 *
 * Returns: (transfer full): the fingerprints to compute
 */
SkFingerprints *
sk_fingerprints_new (SkProject  *project,
                     GPtrArray  *order,
                     const char *python)
{
  g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);
  SkFingerprints *self;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (order != NULL, NULL);

  self = g_new0 (SkFingerprints, 1);
  self->jobs = g_ptr_array_new_full (order->len, fingerprint_job_free);
  self->python = g_strdup (python);

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
      g_ptr_array_add (self->jobs, job);
    }

  return self;
}

void
sk_fingerprints_free (SkFingerprints *self)
{
  if (self == NULL)
    return;

  g_ptr_array_unref (self->jobs);
  g_free (self->python);
  g_free (self);
}

/**
 * sk_fingerprints_compute:
 * @self: fingerprints from sk_fingerprints_new()
 *
 * Reads the scripts and input files and computes each fingerprint. It may
 * run in any thread.
 */
void
sk_fingerprints_compute (SkFingerprints *self)
{
  g_return_if_fail (self != NULL);

  for (guint i = 0; i < self->jobs->len; i++)
    {
      FingerprintJob *job = g_ptr_array_index (self->jobs, i);
      g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
      g_autofree char *script_hash = NULL;

      checksum_string (checksum, "version", "skele-fingerprint-1");
      checksum_string (checksum, "python", self->python != NULL ? self->python : "");

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
          FingerprintJob *prior = g_ptr_array_index (self->jobs,
                                                     g_array_index (job->priors, guint, j));

          checksum_string (checksum, "prior", prior->key);
          checksum_string (checksum, "fingerprint", prior->fingerprint);
        }

      g_free (job->fingerprint);
      job->fingerprint = g_strdup (g_checksum_get_string (checksum));
    }
}

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  SkFingerprints *self = task_data;

  sk_fingerprints_compute (self);
  g_task_return_pointer (task, self, (GDestroyNotify) sk_fingerprints_free);
}

/**
 * sk_fingerprints_compute_async:
 * @self: (transfer full): fingerprints from sk_fingerprints_new()
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the fingerprints are computed
 * @user_data: data for @callback
 *
 * Computes the fingerprints in a thread, since hashing scripts and input
 * files can take a while. sk_fingerprints_compute_finish() gives @self
 * back.
 */
void
sk_fingerprints_compute_async (SkFingerprints      *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (self != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_fingerprints_compute_async);
  /* The thread always runs, and hands @self on with its result. */
  g_task_set_task_data (task, self, NULL);
  g_task_run_in_thread (task, compute_thread);
}

/**
 * sk_fingerprints_compute_finish:
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the computed fingerprints, or %NULL when the
 *   computation was cancelled
 */
SkFingerprints *
sk_fingerprints_compute_finish (GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_fingerprints_compute_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * sk_fingerprints_get:
 * @self: computed fingerprints
 * @position: the position of a node in the order they were made from
 *
 * Returns: (nullable): the node's fingerprint in hexadecimal
 */
const char *
sk_fingerprints_get (SkFingerprints *self,
                     guint           position)
{
  FingerprintJob *job;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (position < self->jobs->len, NULL);

  job = g_ptr_array_index (self->jobs, position);
  return job->fingerprint;
}

/**
 * sk_run_record_fingerprint:
 * @project: a valid workflow
 * @node: a node of @project
 * @python: (nullable): the path of the interpreter the node runs with
 *
 * The fingerprint covers what a node's result depends on: its script, its
 * task text, the contents of its input files, the interpreter and, through
 * their fingerprints, everything upstream. This reads files in the calling
 * thread.
 *
 * Returns: (transfer full) (nullable): the node's fingerprint in
 *   hexadecimal, or %NULL when the workflow has a cycle
 */
char *
sk_run_record_fingerprint (SkProject  *project,
                           SkNode     *node,
                           const char *python)
{
  g_autoptr(GPtrArray) order = NULL;
  g_autoptr(GPtrArray) ancestors = NULL;
  g_autoptr(GHashTable) needed = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) needed_order = g_ptr_array_new ();
  g_autoptr(SkFingerprints) fingerprints = NULL;

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

  fingerprints = sk_fingerprints_new (project, needed_order, python);
  sk_fingerprints_compute (fingerprints);

  return g_strdup (sk_fingerprints_get (fingerprints, needed_order->len - 1));
}

/* Records ---------------------------------------------------------------- */

/**
 * sk_run_record_read:
 * @step_folder: the path of a step's folder
 * @key: the step's key
 *
 * A node's last record says whether it succeeded and on which inputs.
 *
 * Returns: (transfer full) (nullable): the record, or %NULL when there is
 *   none that can be read
 */
JsonObject *
sk_run_record_read (const char *step_folder,
                    const char *key)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (step_folder != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_RECORD);
  return sk_json_read_object (path, NULL);
}

static gboolean
has_pickle (const char *step_folder,
            const char *key)
{
  g_autofree char *path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_PICKLE);

  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

/**
 * sk_run_record_is_usable:
 * @record: (nullable): a record from sk_run_record_read()
 * @step_folder: the path of the step's folder
 * @key: the step's key
 * @fingerprint: (nullable): the step's fingerprint now, or %NULL to accept
 *   any
 *
 * Returns: whether the run that made @record succeeded, saved its outputs
 *   and, when @fingerprint is given, ran on the same inputs
 */
gboolean
sk_run_record_is_usable (JsonObject *record,
                         const char *step_folder,
                         const char *key,
                         const char *fingerprint)
{
  g_return_val_if_fail (step_folder != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  if (record == NULL || g_strcmp0 (sk_json_get_string (record, "status"), "success") != 0)
    return FALSE;

  /* The in-memory mode does not save outputs, so a pickle beside its record
   * belongs to an earlier run.
   */
  if (g_strcmp0 (sk_json_get_string (record, "mode"), "isolated") != 0)
    return FALSE;

  if (!has_pickle (step_folder, key))
    return FALSE;

  return fingerprint == NULL ||
         g_strcmp0 (sk_json_get_string (record, "fingerprint"), fingerprint) == 0;
}

/**
 * sk_run_record_write:
 * @step_folder: the path of the step's folder
 * @node: the step, whose output text and files go into the record
 * @record: what else the record says
 * @error: return location for a #GError
 *
 * Writes the step's record, replacing the earlier one whole.
 *
 * Returns: %TRUE if the record was written
 */
gboolean
sk_run_record_write (const char         *step_folder,
                     SkNode             *node,
                     const SkRunRecord  *record,
                     GError            **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *bookkeeping = NULL;
  g_autofree char *path = NULL;
  g_autofree char *finished = NULL;
  const char * const *files;
  const char *key;

  g_return_val_if_fail (step_folder != NULL, FALSE);
  g_return_val_if_fail (SK_IS_NODE (node), FALSE);
  g_return_val_if_fail (record != NULL, FALSE);

  key = sk_node_get_key (node);
  finished = g_date_time_format_iso8601 (now);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, record->status);
  json_builder_set_member_name (builder, "fingerprint");
  json_builder_add_string_value (builder, record->fingerprint);
  json_builder_set_member_name (builder, "mode");
  json_builder_add_string_value (builder, record->in_memory ? "in-memory" : "isolated");
  json_builder_set_member_name (builder, "finished");
  json_builder_add_string_value (builder, finished);
  json_builder_set_member_name (builder, "seconds");
  json_builder_add_double_value (builder, record->seconds);
  if (record->error != NULL)
    {
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, record->error);
    }
  if (record->detail != NULL)
    {
      json_builder_set_member_name (builder, "detail");
      json_builder_add_string_value (builder, record->detail);
    }
  if (record->output_keys != NULL)
    {
      json_builder_set_member_name (builder, "output_keys");
      json_builder_add_value (builder, json_node_copy (record->output_keys));
    }

  /* A copy of what the run wrote into process.json, which a run that was
   * killed before saving the workflow would otherwise lose.
   */
  json_builder_set_member_name (builder, "output_text");
  json_builder_add_string_value (builder, sk_node_get_output_text (node));
  json_builder_set_member_name (builder, "output_files");
  json_builder_begin_array (builder);
  files = sk_node_get_output_files (node);
  for (guint i = 0; files[i] != NULL; i++)
    json_builder_add_string_value (builder, files[i]);
  json_builder_end_array (builder);

  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  bookkeeping = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_BOOKKEEPING);
  g_mkdir_with_parents (bookkeeping, 0755);
  path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_RECORD);

  /* Renamed into place, so that a crash never leaves half a record. */
  return sk_json_write_atomic (path, root, FALSE, error);
}

/**
 * sk_run_record_restore_outputs:
 * @record: a record from sk_run_record_read()
 * @node: the step it belongs to
 *
 * Puts back the outputs of the run that made @record, in case the workflow
 * file was not saved after it. A record without them changes nothing.
 */
void
sk_run_record_restore_outputs (JsonObject *record,
                               SkNode     *node)
{
  const char *text = sk_json_get_string (record, "output_text");
  JsonArray *files = sk_json_get_array (record, "output_files");
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) strv = NULL;

  g_return_if_fail (SK_IS_NODE (node));

  if (text == NULL || files == NULL)
    return;

  builder = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (files); i++)
    {
      JsonNode *element = json_array_get_element (files, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (element));
    }
  strv = g_strv_builder_end (builder);

  sk_node_set_output_text (node, text);
  sk_node_set_output_files (node, (const char * const *) strv);
}

/* Output files ----------------------------------------------------------- */

/* A file counts as changed when its size or time changed. */
static char *
file_stamp (const GStatBuf *st)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ":%ld",
                          (gint64) st->st_size, (gint64) st->st_mtime,
                          (long) st->st_mtim.tv_nsec);
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

      if (sk_step_folder_is_bookkeeping (name) || g_lstat (child, &st) != 0)
        continue;

      if (S_ISDIR (st.st_mode))
        scan_folder (root, child_relative, entries, depth + 1);
      else if (S_ISREG (st.st_mode))
        g_hash_table_insert (entries, g_steal_pointer (&child_relative), file_stamp (&st));
    }
}

/**
 * sk_run_record_snapshot_folder:
 * @step_folder: the path of a step's folder
 *
 * Notes the size and time of every file in the step's folder, leaving out
 * the folders that never hold its results.
 *
 * Returns: (transfer full) (element-type utf8 utf8): the relative paths of
 *   the files, each mapped to its stamp
 */
GHashTable *
sk_run_record_snapshot_folder (const char *step_folder)
{
  GHashTable *entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_return_val_if_fail (step_folder != NULL, entries);

  scan_folder (step_folder, NULL, entries, 0);
  return entries;
}

/**
 * sk_run_record_changed_files:
 * @step_folder: the path of a step's folder
 * @key: the step's key
 * @inputs: the step's input files
 * @snapshot: the folder as sk_run_record_snapshot_folder() saw it before
 *   the step ran
 *
 * Returns: (transfer full): the files the step wrote or changed, sorted,
 *   without its script, pickle, summary and inputs
 */
GStrv
sk_run_record_changed_files (const char         *step_folder,
                             const char         *key,
                             const char * const *inputs,
                             GHashTable         *snapshot)
{
  g_autoptr(GHashTable) after = NULL;
  GPtrArray *names;
  GHashTableIter iter;
  gpointer name, stamp;

  g_return_val_if_fail (step_folder != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (snapshot != NULL, NULL);

  after = sk_run_record_snapshot_folder (step_folder);
  names = g_ptr_array_new_with_free_func (g_free);

  g_hash_table_iter_init (&iter, after);
  while (g_hash_table_iter_next (&iter, &name, &stamp))
    {
      const char *before = g_hash_table_lookup (snapshot, name);

      if (sk_step_folder_is_own_file (key, name) ||
          (inputs != NULL && g_strv_contains (inputs, name)))
        continue;

      if (before == NULL || !g_str_equal (before, stamp))
        g_ptr_array_add (names, g_strdup (name));
    }

  return sk_util_sorted_strv (names);
}

/**
 * sk_run_record_read_summary:
 * @step_folder: the path of a step's folder
 * @key: the step's key
 * @snapshot: the folder as sk_run_record_snapshot_folder() saw it before
 *   the step ran
 *
 * Returns: (transfer full) (nullable): the summary the step wrote, as
 *   valid UTF-8 and cut to a size the window can show, or %NULL when it
 *   wrote none
 */
char *
sk_run_record_read_summary (const char *step_folder,
                            const char *key,
                            GHashTable *snapshot)
{
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *stamp = NULL;
  const char *before;
  gsize length;
  GStatBuf st;

  g_return_val_if_fail (step_folder != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (snapshot != NULL, NULL);

  name = sk_step_folder_relative_path (key, SK_STEP_FILE_SUMMARY);
  path = g_build_filename (step_folder, name, NULL);

  if (g_stat (path, &st) != 0)
    return NULL;

  /* A summary that the script did not rewrite belongs to an earlier run. */
  stamp = file_stamp (&st);
  before = g_hash_table_lookup (snapshot, name);
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
