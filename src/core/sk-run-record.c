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

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-json.h"
#include "sk-control-flow.h"
#include "sk-run-record.h"
#include "sk-step-folder.h"
#include "sk-util.h"

/* What the runner keeps of a node's last run, and what it compares to
 * decide whether the node has to run again. Everything here works on plain
 * data — paths, keys, a node — and knows nothing of a run in progress.
 */

#define SUMMARY_LIMIT (64 * 1024)
#define READ_CHUNK (64 * 1024)

/* Files larger than this are known by their size, time and inode alone:
 * reading them whole at every run would cost more than it tells.
 */
#define HASH_LIMIT (G_GINT64_CONSTANT (1) << 30)

/* What hash_file() found at a path. */
typedef enum
{
  FILE_HASHED,
  FILE_MISSING,
  FILE_NOT_REGULAR,
  FILE_CANCELLED,
} FileState;

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

/* Hashes the regular file at @path, following links, so that an input
 * may live anywhere; what is not a regular file, such as a FIFO or a
 * device, would never end and is not read at all. The file is opened
 * without blocking, which a FIFO without a writer would otherwise do.
 */
static char *
hash_file (const char   *path,
           GCancellable *cancellable,
           FileState    *state)
{
  g_autoptr(GChecksum) checksum = NULL;
  guchar buffer[READ_CHUNK];
  FileHash *cached;
  GStatBuf st;
  gint64 total = 0;
  ssize_t n;
  int fd;

  *state = FILE_MISSING;

  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    {
      GStatBuf lst;

      /* Opening a socket fails, but it is there all the same. */
      if (g_stat (path, &lst) == 0 && !S_ISREG (lst.st_mode))
        *state = FILE_NOT_REGULAR;
      return NULL;
    }

  if (fstat (fd, &st) != 0)
    {
      close (fd);
      return NULL;
    }

  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      *state = FILE_NOT_REGULAR;
      return NULL;
    }

  *state = FILE_HASHED;

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
  if (st.st_size > HASH_LIMIT)
    {
      g_autofree char *stamp = g_strdup_printf ("large:%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT
                                                ":%ld:%" G_GUINT64_FORMAT,
                                                (gint64) st.st_size, (gint64) st.st_mtime,
                                                (long) st.st_mtim.tv_nsec, (guint64) st.st_ino);

      g_checksum_update (checksum, (const guchar *) stamp, strlen (stamp));
    }
  else
    {
      /* Bounded, in case the file grows while it is read. */
      while (total < HASH_LIMIT && (n = read (fd, buffer, sizeof buffer)) != 0)
        {
          if (n < 0)
            {
              if (errno == EINTR)
                continue;
              close (fd);
              *state = FILE_MISSING;
              return NULL;
            }

          if (g_cancellable_is_cancelled (cancellable))
            {
              close (fd);
              *state = FILE_CANCELLED;
              return NULL;
            }

          g_checksum_update (checksum, buffer, n);
          total += n;
        }
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
  char   *foreach;
  char   *foreach_prior;
  char   *fingerprint;
  char   *item_base;
  char   *problem;
} FingerprintJob;

struct _SkFingerprints
{
  GPtrArray *jobs;
  char      *python;
  char      *inputs;
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
  g_free (job->foreach);
  g_free (job->foreach_prior);
  g_free (job->item_base);
  g_free (job->fingerprint);
  g_free (job->problem);
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
      {
        const char *foreach_prior_id = NULL;
        const char *foreach_path = NULL;

        if (sk_node_get_foreach (node, &foreach_prior_id, &foreach_path))
          {
            SkNode *foreach_prior = sk_project_get_node (project, foreach_prior_id);

            job->foreach = g_strconcat (foreach_prior_id, " ", foreach_path, NULL);
            if (foreach_prior != NULL)
              job->foreach_prior = g_strdup (sk_node_get_key (foreach_prior));
          }
      }
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
  g_free (self->inputs);
  g_free (self);
}

/* Returns %FALSE when @cancellable stopped the computation, which leaves
 * the fingerprints unset.
 */
static gboolean
compute (SkFingerprints *self,
         GCancellable   *cancellable)
{
  for (guint i = 0; i < self->jobs->len; i++)
    {
      FingerprintJob *job = g_ptr_array_index (self->jobs, i);
      g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
      g_autofree char *script_hash = NULL;
      FileState state = FILE_MISSING;

      checksum_string (checksum, "version", "skele-fingerprint-1");
      checksum_string (checksum, "python", self->python != NULL ? self->python : "");

      if (job->script_path != NULL)
        script_hash = hash_file (job->script_path, cancellable, &state);
      if (state == FILE_CANCELLED)
        return FALSE;
      checksum_string (checksum, "script", script_hash != NULL ? script_hash : "missing");
      checksum_string (checksum, "text", job->input_text);

      g_clear_pointer (&job->problem, g_free);
      for (guint j = 0; job->input_paths[j] != NULL; j++)
        {
          g_autofree char *hash = hash_file (job->input_paths[j], cancellable, &state);

          if (state == FILE_CANCELLED)
            return FALSE;

          if (state == FILE_NOT_REGULAR && job->problem == NULL)
            job->problem = g_strdup_printf (_("The input file “%s” is not a regular file, such as "
                                              "a pipe or a device, which cannot be read to the "
                                              "end. List only regular files as inputs."),
                                            job->input_names[j]);

          checksum_string (checksum, "file", job->input_names[j]);
          checksum_string (checksum, "hash",
                           hash != NULL ? hash
                           : state == FILE_NOT_REGULAR ? "not a regular file" : "missing");
        }

      if (job->foreach != NULL)
        checksum_string (checksum, "foreach", job->foreach);
      if (self->inputs != NULL && job->priors->len == 0)
        checksum_string (checksum, "inputs", self->inputs);

      /* A for-each step's items do not depend on the whole list they come
       * from, only on their own element of it, which the runner adds. */
      if (job->foreach != NULL)
        {
          g_autoptr(GChecksum) base = g_checksum_copy (checksum);

          for (guint j = 0; j < job->priors->len; j++)
            {
              FingerprintJob *prior = g_ptr_array_index (self->jobs,
                                                         g_array_index (job->priors, guint, j));

              checksum_string (base, "prior", prior->key);
              if (g_strcmp0 (prior->key, job->foreach_prior) != 0)
                checksum_string (base, "fingerprint", prior->fingerprint);
            }
          g_free (job->item_base);
          job->item_base = g_strdup (g_checksum_get_string (base));
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

  return TRUE;
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

  compute (self, NULL);
}

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  SkFingerprints *self = task_data;

  if (!compute (self, cancellable))
    {
      sk_fingerprints_free (self);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The run was stopped."));
      return;
    }

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
 * back. @cancellable is checked between the pieces of each file, so that a
 * stopped run does not wait for large inputs to be read.
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
  /* The thread always runs, and hands @self on with its result or frees it. */
  g_task_set_task_data (task, self, NULL);
  g_task_run_in_thread (task, compute_thread);
}

/**
 * sk_fingerprints_compute_finish:
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the computed fingerprints, or %NULL with
 *   %G_IO_ERROR_CANCELLED when the computation was cancelled
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
 * sk_fingerprints_set_inputs:
 * @self: fingerprints from sk_fingerprints_new()
 * @inputs: (nullable): the fingerprint of what the steps without priors
 *   receive from outside the workflow, as the first steps of a
 *   sub-workflow do
 */
void
sk_fingerprints_set_inputs (SkFingerprints *self,
                            const char     *inputs)
{
  g_return_if_fail (self != NULL);

  g_free (self->inputs);
  self->inputs = g_strdup (inputs);
}

/**
 * sk_fingerprints_get_item_base:
 * @self: computed fingerprints
 * @position: the position of a for-each step in the order they were made
 *   from
 *
 * Returns: (nullable): what the fingerprint of each item of the step is
 *   made from besides its own element: everything the step's fingerprint
 *   covers except the list it runs over; %NULL for other steps
 */
const char *
sk_fingerprints_get_item_base (SkFingerprints *self,
                               guint           position)
{
  FingerprintJob *job;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (position < self->jobs->len, NULL);

  job = g_ptr_array_index (self->jobs, position);
  return job->item_base;
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
 * sk_fingerprints_get_problem:
 * @self: computed fingerprints
 * @position: the position of a node in the order they were made from
 *
 * An input that is not a regular file, such as a FIFO or a device, is not
 * read; the node cannot run on it.
 *
 * Returns: (nullable): why the node cannot run on its inputs, in plain
 *   language, or %NULL when it can
 */
const char *
sk_fingerprints_get_problem (SkFingerprints *self,
                             guint           position)
{
  FingerprintJob *job;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (position < self->jobs->len, NULL);

  job = g_ptr_array_index (self->jobs, position);
  return job->problem;
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

/* A link in place of the step's folder or of its bookkeeping folder would
 * let the runner write, or read back, a file outside the workflow. Only the
 * last component is checked: the workflow itself may live behind a link.
 */
static gboolean
check_real_folder (const char  *path,
                   gboolean     may_be_missing,
                   GError     **error)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT && may_be_missing)
        return TRUE;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("The folder %s cannot be used: %s"), path, g_strerror (saved_errno));
      return FALSE;
    }

  if (S_ISLNK (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   _("%s is a link to another place. Skele-Code keeps a step’s files only in "
                     "real folders inside the workflow; replace the link with a folder."),
                   path);
      return FALSE;
    }

  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                   _("%s is not a folder. Move the file away and run the step again."), path);
      return FALSE;
    }

  return TRUE;
}

static gboolean
check_folders (const char  *step_folder,
               const char  *key,
               GError     **error)
{
  g_autofree char *bookkeeping = sk_step_folder_build_path (step_folder, key,
                                                            SK_STEP_FILE_BOOKKEEPING);

  return check_real_folder (step_folder, TRUE, error) &&
         check_real_folder (bookkeeping, TRUE, error);
}

/**
 * sk_run_record_withdraw:
 * @step_folder: the path of the step's folder
 * @key: the step's key
 * @error: return location for a #GError
 *
 * Deletes the step's record before the step runs again, so that a run
 * that is killed halfway never leaves a record of success beside outputs
 * it had begun to replace. The bookkeeping folder is created, and the step's
 * folder and bookkeeping folder must be real folders, not links.
 *
 * Returns: %TRUE when the step has no record any more and may run
 */
gboolean
sk_run_record_withdraw (const char  *step_folder,
                        const char  *key,
                        GError     **error)
{
  g_autofree char *bookkeeping = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (step_folder != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  if (!check_folders (step_folder, key, error))
    return FALSE;

  bookkeeping = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_BOOKKEEPING);
  if (g_mkdir_with_parents (bookkeeping, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("The folder %s could not be created: %s"),
                   bookkeeping, g_strerror (saved_errno));
      return FALSE;
    }

  path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_RECORD);
  if (g_unlink (path) != 0 && errno != ENOENT)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("The step’s earlier result %s could not be removed: %s"),
                   path, g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}

/* What identifies the pickle a successful run left: its size, checked
 * first since it costs nothing, and its checksum.
 */
static gboolean
pickle_matches (JsonObject *record,
                const char *step_folder,
                const char *key)
{
  g_autofree char *path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_PICKLE);
  g_autofree char *hash = NULL;
  JsonObject *pickle = sk_json_get_object (record, "pickle");
  const char *expected = sk_json_get_string (pickle, "checksum");
  FileState state;
  GStatBuf st;

  if (pickle == NULL || expected == NULL || !json_object_has_member (pickle, "size"))
    return FALSE;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode) ||
      (gint64) st.st_size != json_object_get_int_member (pickle, "size"))
    return FALSE;

  hash = hash_file (path, NULL, &state);
  return hash != NULL && g_str_equal (hash, expected);
}

/**
 * sk_run_record_is_usable:
 * @record: (nullable): a record from sk_run_record_read()
 * @step_folder: the path of the step's folder
 * @key: the step's key
 * @fingerprint: (nullable): the step's fingerprint now, or %NULL to accept
 *   any
 *
 * Returns: whether the run that made @record succeeded, its outputs are
 *   still the ones it saved and, when @fingerprint is given, it ran on the
 *   same inputs
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

  if (fingerprint != NULL &&
      g_strcmp0 (sk_json_get_string (record, "fingerprint"), fingerprint) != 0)
    return FALSE;

  /* A pickle that was cut short, by a full disk or a run killed while it
   * was written, or changed since, must not reach the successors.
   */
  return pickle_matches (record, step_folder, key);
}

/**
 * sk_run_record_write:
 * @step_folder: the path of the step's folder
 * @node: the step, whose output text and files go into the record
 * @record: what else the record says
 * @error: return location for a #GError
 *
 * Writes the step's record, replacing the earlier one whole. Call it once
 * the step's outputs are complete: a successful record in isolated mode
 * notes the size and checksum of the pickle as it is now, and
 * sk_run_record_is_usable() accepts only that pickle.
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
  g_autofree char *pickle_path = NULL;
  g_autofree char *pickle_hash = NULL;
  const char * const *files;
  const char *key;
  GStatBuf st;

  g_return_val_if_fail (step_folder != NULL, FALSE);
  g_return_val_if_fail (SK_IS_NODE (node), FALSE);
  g_return_val_if_fail (record != NULL, FALSE);

  key = sk_node_get_key (node);
  finished = g_date_time_format_iso8601 (now);

  if (!check_folders (step_folder, key, error))
    return FALSE;

  if (!record->in_memory && g_strcmp0 (record->status, "success") == 0)
    {
      FileState state;

      pickle_path = sk_step_folder_build_path (step_folder, key, SK_STEP_FILE_PICKLE);
      if (g_stat (pickle_path, &st) == 0)
        pickle_hash = hash_file (pickle_path, NULL, &state);
    }

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
  if (pickle_hash != NULL)
    {
      json_builder_set_member_name (builder, "pickle");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "size");
      json_builder_add_int_value (builder, (gint64) st.st_size);
      json_builder_set_member_name (builder, "checksum");
      json_builder_add_string_value (builder, pickle_hash);
      json_builder_end_object (builder);
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
  if (g_mkdir_with_parents (bookkeeping, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("The folder %s could not be created: %s"),
                   bookkeeping, g_strerror (saved_errno));
      return FALSE;
    }
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
 * @error: return location for a #GError
 *
 * The summary is read only as a regular file in the step's folder: a link
 * there could show a file from anywhere as the step's output.
 *
 * Returns: (transfer full) (nullable): the summary the step wrote, as
 *   valid UTF-8 and cut to a size the window can show, or %NULL when it
 *   wrote none, or with @error set when it is a link or not a regular file
 */
char *
sk_run_record_read_summary (const char  *step_folder,
                            const char  *key,
                            GHashTable  *snapshot,
                            GError     **error)
{
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *stamp = NULL;
  const char *before;
  gsize length = 0;
  GStatBuf st;
  int fd;

  g_return_val_if_fail (step_folder != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (snapshot != NULL, NULL);

  name = sk_step_folder_relative_path (key, SK_STEP_FILE_SUMMARY);
  path = g_build_filename (step_folder, name, NULL);

  if (g_lstat (path, &st) != 0)
    return NULL;

  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("The summary %s is a link or not a regular file, so it was not read. "
                     "Write the summary as a file in the step’s folder."),
                   name);
      return NULL;
    }

  /* A summary that the script did not rewrite belongs to an earlier run. */
  stamp = file_stamp (&st);
  before = g_hash_table_lookup (snapshot, name);
  if (before != NULL && g_str_equal (before, stamp))
    return NULL;

  /* The link may have been put in place since the check above. */
  fd = g_open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ELOOP)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                     _("The summary %s is a link or not a regular file, so it was not read. "
                       "Write the summary as a file in the step’s folder."),
                     name);
      return NULL;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("The summary %s is a link or not a regular file, so it was not read. "
                     "Write the summary as a file in the step’s folder."),
                   name);
      return NULL;
    }

  contents = g_malloc (SUMMARY_LIMIT + 1);
  while (length < SUMMARY_LIMIT)
    {
      ssize_t n = read (fd, contents + length, SUMMARY_LIMIT - length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      length += n;
    }
  close (fd);
  contents[length] = '\0';

  if (!g_utf8_validate (contents, length, NULL))
    {
      char *valid = g_utf8_make_valid (contents, length);

      g_free (contents);
      contents = valid;
    }

  g_strchomp (contents);
  return g_steal_pointer (&contents);
}
