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

/* A file is hashed again only when something the kernel says of it has
 * changed since it was hashed: its size, its modification and change times
 * to the nanosecond, its inode or its device. Writing to a file, replacing
 * it or setting its modification time back each change one of them, and the
 * change time cannot be set at all. The hashes are kept in the process,
 * shared by the threads that compute fingerprints, and in the workflow's
 * bookkeeping folder from one run to the next, as make and Snakemake keep
 * timestamps, so that a run with nothing to do hashes no script, input or
 * pickle again.
 */
typedef struct
{
  gint64   size;
  gint64   mtime;
  gint64   mtime_nsec;
  gint64   ctime;
  gint64   ctime_nsec;
  guint64  inode;
  guint64  device;
  gboolean racy;
  char    *hash;
} FileHash;

/* A file changed again within the tick of the file system's clock in which
 * it was hashed keeps its times, so a hash made less than this long after
 * the file last changed is not trusted the next time: the file is read
 * again, as Git does with its racy entries. Two seconds cover the coarsest
 * clocks in use (FAT's) and a little drift of a network file system's.
 */
#define RACY_USEC (2 * G_USEC_PER_SEC)

/* The saved hashes of a workflow, in its own bookkeeping folder. */
#define HASH_CACHE_NAME SK_STEP_BOOKKEEPING_NAME G_DIR_SEPARATOR_S "hashes"
#define HASH_CACHE_HEADER "skele-hashes 1\n"
#define HASH_CACHE_END "end\t"
#define HASH_CACHE_LIMIT (64 * 1024 * 1024)
#define HASH_CACHE_FIELDS 10

G_LOCK_DEFINE_STATIC (file_hashes);
static GHashTable *file_hashes;

static void
file_hash_free (gpointer data)
{
  FileHash *file_hash = data;

  g_free (file_hash->hash);
  g_free (file_hash);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FileHash, file_hash_free)

static FileHash *
file_hash_new (const GStatBuf *st,
               const char     *hash,
               gboolean        racy)
{
  FileHash *file_hash = g_new0 (FileHash, 1);

  file_hash->size = st->st_size;
  file_hash->mtime = st->st_mtim.tv_sec;
  file_hash->mtime_nsec = st->st_mtim.tv_nsec;
  file_hash->ctime = st->st_ctim.tv_sec;
  file_hash->ctime_nsec = st->st_ctim.tv_nsec;
  file_hash->inode = st->st_ino;
  file_hash->device = st->st_dev;
  file_hash->racy = racy;
  file_hash->hash = g_strdup (hash);

  return file_hash;
}

static FileHash *
file_hash_copy (const FileHash *file_hash)
{
  FileHash *copy = g_memdup2 (file_hash, sizeof *file_hash);

  copy->hash = g_strdup (file_hash->hash);
  return copy;
}

static gboolean
file_hash_equal (const FileHash *a,
                 const FileHash *b)
{
  return a->size == b->size &&
         a->mtime == b->mtime && a->mtime_nsec == b->mtime_nsec &&
         a->ctime == b->ctime && a->ctime_nsec == b->ctime_nsec &&
         a->inode == b->inode && a->device == b->device &&
         a->racy == b->racy && g_str_equal (a->hash, b->hash);
}

/* Whether @file_hash may stand for the file that @st describes. */
static gboolean
file_hash_is_valid (const FileHash *file_hash,
                    const GStatBuf *st)
{
  return !file_hash->racy &&
         file_hash->size == (gint64) st->st_size &&
         file_hash->mtime == (gint64) st->st_mtim.tv_sec &&
         file_hash->mtime_nsec == (gint64) st->st_mtim.tv_nsec &&
         file_hash->ctime == (gint64) st->st_ctim.tv_sec &&
         file_hash->ctime_nsec == (gint64) st->st_ctim.tv_nsec &&
         file_hash->inode == (guint64) st->st_ino &&
         file_hash->device == (guint64) st->st_dev;
}

/* Whether the file that @st describes changed, by the file system's clock,
 * too shortly before @hashed_at (microseconds of the real time) for its
 * times to tell a later change; a time in the future counts as well.
 */
static gboolean
is_racy (const GStatBuf *st,
         gint64          hashed_at)
{
  gint64 modified = (gint64) st->st_mtim.tv_sec * G_USEC_PER_SEC + st->st_mtim.tv_nsec / 1000;
  gint64 changed = (gint64) st->st_ctim.tv_sec * G_USEC_PER_SEC + st->st_ctim.tv_nsec / 1000;

  return hashed_at - MAX (modified, changed) < RACY_USEC;
}

static GHashTable *
hash_table_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, file_hash_free);
}

/* Returns a copy of the hash kept for the file that @st describes, in this
 * process or else in @saved, a workflow's saved hashes, or %NULL when none
 * can be trusted. A saved one is kept in the process from then on.
 */
static FileHash *
lookup_hash (const char     *path,
             const GStatBuf *st,
             GHashTable     *saved)
{
  FileHash *found = NULL;
  FileHash *cached;

  G_LOCK (file_hashes);
  if (file_hashes == NULL)
    file_hashes = hash_table_new ();

  cached = g_hash_table_lookup (file_hashes, path);
  if (cached != NULL && file_hash_is_valid (cached, st))
    {
      found = file_hash_copy (cached);
    }
  else if (saved != NULL &&
           (cached = g_hash_table_lookup (saved, path)) != NULL &&
           file_hash_is_valid (cached, st))
    {
      found = file_hash_copy (cached);
      g_hash_table_replace (file_hashes, g_strdup (path), file_hash_copy (cached));
    }
  G_UNLOCK (file_hashes);

  return found;
}

/* Hashes the regular file at @path, which @st describes, following links,
 * so that an input may live anywhere; what is not a regular file, such as
 * a FIFO or a device, would never end and is not read at all. The file is
 * opened without blocking, which a FIFO without a writer would otherwise do.
 *
 * Returns: (transfer full) (nullable): the file's hash, with what the file
 *   was like when it was read
 */
static FileHash *
hash_stat_file (const char     *path,
                const GStatBuf *st,
                GHashTable     *saved,
                GCancellable   *cancellable,
                FileState      *state)
{
  g_autoptr(GChecksum) checksum = NULL;
  guchar buffer[READ_CHUNK];
  FileHash *found;
  GStatBuf opened;
  gint64 hashed_at;
  gint64 total = 0;
  ssize_t n;
  int fd;

  if (!S_ISREG (st->st_mode))
    {
      *state = FILE_NOT_REGULAR;
      return NULL;
    }

  if ((found = lookup_hash (path, st, saved)) != NULL)
    {
      *state = FILE_HASHED;
      return found;
    }

  *state = FILE_MISSING;

  /* Taken before reading: a change while the file is read is a change
   * after this time.
   */
  hashed_at = g_get_real_time ();

  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    return NULL;

  /* The file may have been replaced since @st was taken. */
  if (fstat (fd, &opened) != 0)
    {
      close (fd);
      return NULL;
    }

  if (!S_ISREG (opened.st_mode))
    {
      close (fd);
      *state = FILE_NOT_REGULAR;
      return NULL;
    }

  *state = FILE_HASHED;

  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  if (opened.st_size > HASH_LIMIT)
    {
      g_autofree char *stamp = g_strdup_printf ("large:%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT
                                                ":%ld:%" G_GUINT64_FORMAT,
                                                (gint64) opened.st_size,
                                                (gint64) opened.st_mtime,
                                                (long) opened.st_mtim.tv_nsec,
                                                (guint64) opened.st_ino);

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

  found = file_hash_new (&opened, g_checksum_get_string (checksum), is_racy (&opened, hashed_at));

  G_LOCK (file_hashes);
  g_hash_table_replace (file_hashes, g_strdup (path), file_hash_copy (found));
  G_UNLOCK (file_hashes);

  return found;
}

/* As hash_stat_file(), for a file not looked at yet. */
static FileHash *
hash_file (const char   *path,
           GHashTable   *saved,
           GCancellable *cancellable,
           FileState    *state)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    {
      *state = FILE_MISSING;
      return NULL;
    }

  return hash_stat_file (path, &st, saved, cancellable, state);
}

/* Saved hashes ----------------------------------------------------------- */

/* Reads the file at @path whole, if it is a regular file of a sane size
 * and not a link: it is only ever written by hash_cache_save().
 */
static char *
read_small_file (const char *path,
                 gsize      *length)
{
  g_autofree char *data = NULL;
  GStatBuf st;
  gsize done = 0;
  int fd;

  fd = g_open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    return NULL;

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > HASH_CACHE_LIMIT)
    {
      close (fd);
      return NULL;
    }

  data = g_malloc (st.st_size + 1);
  while (done < (gsize) st.st_size)
    {
      ssize_t n = read (fd, data + done, st.st_size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += n;
    }
  close (fd);

  data[done] = '\0';
  *length = done;
  return g_steal_pointer (&data);
}

static gboolean
parse_signed (const char *text,
              gint64     *value)
{
  return g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, value, NULL);
}

static gboolean
parse_unsigned (const char *text,
                guint64    *value)
{
  return g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, value, NULL);
}

/* As g_checksum_get_string() writes it: 64 lowercase hexadecimal digits. */
static gboolean
is_sha256 (const char *text)
{
  guint i;

  for (i = 0; g_ascii_isdigit (text[i]) || (text[i] >= 'a' && text[i] <= 'f'); i++)
    ;
  return i == 64 && text[i] == '\0';
}

/* One line of the saved hashes: the hash, "racy" or "-", the size, the
 * modification and change times in seconds and nanoseconds, the inode, the
 * device and, last, since it may hold tabs, the path.
 */
static gboolean
parse_entry (const char *line,
             GHashTable *entries)
{
  g_auto(GStrv) fields = g_strsplit (line, "\t", HASH_CACHE_FIELDS);
  FileHash *file_hash;
  gint64 numbers[5];
  guint64 inode, device;

  if (g_strv_length (fields) != HASH_CACHE_FIELDS || !is_sha256 (fields[0]) ||
      (!g_str_equal (fields[1], "racy") && !g_str_equal (fields[1], "-")) ||
      !g_path_is_absolute (fields[9]))
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    if (!parse_signed (fields[2 + i], &numbers[i]))
      return FALSE;

  if (!parse_unsigned (fields[7], &inode) || !parse_unsigned (fields[8], &device))
    return FALSE;

  file_hash = g_new0 (FileHash, 1);
  file_hash->hash = g_strdup (fields[0]);
  file_hash->racy = g_str_equal (fields[1], "racy");
  file_hash->size = numbers[0];
  file_hash->mtime = numbers[1];
  file_hash->mtime_nsec = numbers[2];
  file_hash->ctime = numbers[3];
  file_hash->ctime_nsec = numbers[4];
  file_hash->inode = inode;
  file_hash->device = device;
  g_hash_table_replace (entries, g_strdup (fields[9]), file_hash);

  return TRUE;
}

/* Reads the hashes that runs of a workflow saved. The file ends with the
 * checksum of what comes before, so that one cut short by a crash, changed
 * by hand or damaged otherwise is noticed; then, as when it is missing or
 * of another version, it is ignored and the files are read again.
 *
 * Returns: (transfer full): the saved hashes by path, perhaps none, and
 *   in @found whether there was a file at all
 */
static GHashTable *
hash_cache_load (const char *path,
                 gboolean   *found)
{
  g_autoptr(GHashTable) entries = hash_table_new ();
  g_autoptr(GChecksum) checksum = NULL;
  g_autofree char *data = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  const char *end;
  gsize length = 0;
  gsize body;

  *found = FALSE;
  if ((data = read_small_file (path, &length)) == NULL)
    return g_steal_pointer (&entries);

  *found = TRUE;

  if (!g_str_has_prefix (data, HASH_CACHE_HEADER) || data[length - 1] != '\n')
    return g_steal_pointer (&entries);

  /* The last line holds the checksum. */
  data[length - 1] = '\0';
  end = strrchr (data, '\n');
  if (end == NULL || !g_str_has_prefix (end + 1, HASH_CACHE_END) ||
      !is_sha256 (end + 1 + strlen (HASH_CACHE_END)))
    return g_steal_pointer (&entries);

  body = end + 1 - data;
  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (checksum, (const guchar *) data, body);
  if (!g_str_equal (g_checksum_get_string (checksum), end + 1 + strlen (HASH_CACHE_END)))
    return g_steal_pointer (&entries);

  /* The entries lie between the header and the last line. */
  text = g_strndup (data + strlen (HASH_CACHE_HEADER), body - strlen (HASH_CACHE_HEADER));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i][0] != '\0' && !parse_entry (lines[i], entries))
        {
          g_hash_table_remove_all (entries);
          break;
        }
    }

  return g_steal_pointer (&entries);
}

static gboolean
hash_tables_equal (GHashTable *a,
                   GHashTable *b)
{
  GHashTableIter iter;
  gpointer path, value;

  if (g_hash_table_size (a) != g_hash_table_size (b))
    return FALSE;

  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &path, &value))
    {
      FileHash *other = g_hash_table_lookup (b, path);

      if (other == NULL || !file_hash_equal (value, other))
        return FALSE;
    }

  return TRUE;
}

/* Writes @entries as the saved hashes of the workflow at @root, whole or
 * not at all: the file is renamed into place. It is not flushed to the
 * disk, since a file lost in a crash only costs reading the files again.
 * Nothing is said of a failure, for the same reason.
 */
static void
hash_cache_save (const char *root,
                 GHashTable *entries)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GString) text = g_string_new (HASH_CACHE_HEADER);
  g_autofree char *folder = g_build_filename (root, SK_STEP_BOOKKEEPING_NAME, NULL);
  g_autofree char *path = g_build_filename (root, HASH_CACHE_NAME, NULL);
  g_autofree char *temporary = NULL;
  GHashTableIter iter;
  gpointer key, value;
  GStatBuf st;
  gsize done = 0;
  int fd;

  g_hash_table_iter_init (&iter, entries);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *file = key;
      FileHash *file_hash = value;

      /* Each entry is one line. */
      if (strchr (file, '\n') != NULL)
        continue;

      g_string_append_printf (text,
                              "%s\t%s\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT
                              "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT
                              "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%s\n",
                              file_hash->hash, file_hash->racy ? "racy" : "-",
                              file_hash->size, file_hash->mtime, file_hash->mtime_nsec,
                              file_hash->ctime, file_hash->ctime_nsec,
                              file_hash->inode, file_hash->device, file);
    }

  g_checksum_update (checksum, (const guchar *) text->str, text->len);
  g_string_append_printf (text, HASH_CACHE_END "%s\n", g_checksum_get_string (checksum));

  /* As for a step's bookkeeping folder, a link in its place would have the
   * file written somewhere else.
   */
  if (g_mkdir (folder, 0755) != 0 && errno != EEXIST)
    return;
  if (g_lstat (folder, &st) != 0 || !S_ISDIR (st.st_mode))
    return;

  temporary = g_build_filename (folder, "hashes.XXXXXX", NULL);
  fd = g_mkstemp_full (temporary, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    return;

  while (done < text->len)
    {
      ssize_t n = write (fd, text->str + done, text->len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += n;
    }

  if (close (fd) != 0 || done < text->len || g_rename (temporary, path) != 0)
    {
      g_debug ("The hashes of %s were not saved", root);
      g_unlink (temporary);
    }
}

/* What one node's fingerprint covers, copied out of the model. */
typedef struct
{
  char   *key;
  char   *script_path;
  char   *pickle_path;
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
  char      *root;
  char      *cache_path;
  gboolean   complete;
};

static void
fingerprint_job_free (gpointer data)
{
  FingerprintJob *job = data;

  g_free (job->key);
  g_free (job->script_path);
  g_free (job->pickle_path);
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
  if (sk_project_get_folder (project) != NULL)
    {
      self->root = g_file_get_path (sk_project_get_folder (project));
      self->cache_path = self->root != NULL ? g_build_filename (self->root, HASH_CACHE_NAME, NULL)
                                            : NULL;
    }
  /* Only a computation over the whole workflow knows which of the saved
   * hashes are no longer needed.
   */
  self->complete = order->len == sk_project_get_n_nodes (project);

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
      if (folder != NULL && g_file_peek_path (folder) != NULL)
        job->pickle_path = sk_step_folder_build_path (g_file_peek_path (folder), job->key,
                                                      SK_STEP_FILE_PICKLE);
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
  g_free (self->root);
  g_free (self->cache_path);
  g_free (self);
}

/* Hashes the file at @path, noting in @asked what is known of it now. */
static char *
hash_asked_file (const char   *path,
                 GHashTable   *saved,
                 GHashTable   *asked,
                 GCancellable *cancellable,
                 FileState    *state)
{
  FileHash *file_hash = hash_file (path, saved, cancellable, state);
  char *hash;

  if (file_hash == NULL)
    return NULL;

  hash = g_strdup (file_hash->hash);
  g_hash_table_replace (asked, g_strdup (path), file_hash);
  return hash;
}

/* Saves the hashes of the files asked for this time: a computation over
 * the whole workflow keeps only those, so that the saved hashes do not grow
 * with files that no step reads any more; one over some of its steps adds
 * them to the others. Nothing is written when nothing changed.
 */
static void
update_saved_hashes (SkFingerprints *self,
                     GHashTable     *saved,
                     GHashTable     *asked)
{
  GHashTableIter iter;
  gpointer path, value;
  gboolean changed = FALSE;

  if (self->complete)
    {
      if (!hash_tables_equal (asked, saved))
        hash_cache_save (self->root, asked);
      return;
    }

  g_hash_table_iter_init (&iter, asked);
  while (g_hash_table_iter_next (&iter, &path, &value))
    {
      FileHash *before = g_hash_table_lookup (saved, path);

      if (before == NULL || !file_hash_equal (before, value))
        {
          g_hash_table_replace (saved, g_strdup (path), file_hash_copy (value));
          changed = TRUE;
        }
    }

  if (changed)
    hash_cache_save (self->root, saved);
}

/* Returns %FALSE when @cancellable stopped the computation, which leaves
 * the fingerprints unset.
 */
static gboolean
compute (SkFingerprints *self,
         GCancellable   *cancellable)
{
  g_autoptr(GHashTable) saved = NULL;
  g_autoptr(GHashTable) asked = hash_table_new ();
  gboolean had_saved = FALSE;
  gboolean has_results = FALSE;

  saved = self->cache_path != NULL ? hash_cache_load (self->cache_path, &had_saved)
                                   : hash_table_new ();

  for (guint i = 0; i < self->jobs->len; i++)
    {
      FingerprintJob *job = g_ptr_array_index (self->jobs, i);
      g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
      g_autofree char *script_hash = NULL;
      FileState state = FILE_MISSING;

      checksum_string (checksum, "version", "skele-fingerprint-1");
      checksum_string (checksum, "python", self->python != NULL ? self->python : "");

      if (job->script_path != NULL)
        script_hash = hash_asked_file (job->script_path, saved, asked, cancellable, &state);
      if (state == FILE_CANCELLED)
        return FALSE;
      checksum_string (checksum, "script", script_hash != NULL ? script_hash : "missing");
      checksum_string (checksum, "text", job->input_text);

      g_clear_pointer (&job->problem, g_free);
      for (guint j = 0; job->input_paths[j] != NULL; j++)
        {
          g_autofree char *hash = hash_asked_file (job->input_paths[j], saved, asked,
                                                   cancellable, &state);

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

  /* Before a step is found up to date its pickle is checked against its
   * record. Hashing the pickles here, off the main thread, lets that check
   * find them in the process, and saves their hashes for the next run.
   */
  for (guint i = 0; self->complete && i < self->jobs->len; i++)
    {
      FingerprintJob *job = g_ptr_array_index (self->jobs, i);
      g_autofree char *hash = NULL;
      FileState state = FILE_MISSING;

      if (job->pickle_path != NULL)
        hash = hash_asked_file (job->pickle_path, saved, asked, cancellable, &state);
      if (state == FILE_CANCELLED)
        return FALSE;
      has_results = has_results || hash != NULL;
    }

  /* Opening a workflow that never ran leaves its folder as it was: until a
   * step has a result, no step can be up to date, and there is nothing to
   * save the reading of.
   */
  if (self->cache_path != NULL && (had_saved || has_results))
    update_saved_hashes (self, saved, asked);

  return TRUE;
}

/**
 * sk_fingerprints_compute:
 * @self: fingerprints from sk_fingerprints_new()
 *
 * Hashes the scripts and input files and computes each fingerprint. A
 * file is read only when it changed since a run of the workflow last
 * hashed it: the hashes are kept in the workflow's `.skele/hashes`, which
 * this updates. When @self covers the whole workflow, the steps' pickles
 * are hashed too, for sk_run_record_is_usable(). It may run in any thread.
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
  g_autoptr(FileHash) file_hash = NULL;
  JsonObject *pickle = sk_json_get_object (record, "pickle");
  const char *expected = sk_json_get_string (pickle, "checksum");
  FileState state;
  GStatBuf st;

  if (pickle == NULL || expected == NULL || !json_object_has_member (pickle, "size"))
    return FALSE;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode) ||
      (gint64) st.st_size != json_object_get_int_member (pickle, "size"))
    return FALSE;

  /* Read again only when it changed since it was last hashed. */
  file_hash = hash_stat_file (path, &st, NULL, NULL, &state);
  return file_hash != NULL && g_str_equal (file_hash->hash, expected);
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
  g_autoptr(FileHash) pickle = NULL;
  const char * const *files;
  const char *key;

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
      pickle = hash_file (pickle_path, NULL, NULL, &state);
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
  if (pickle != NULL)
    {
      json_builder_set_member_name (builder, "pickle");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "size");
      json_builder_add_int_value (builder, pickle->size);
      json_builder_set_member_name (builder, "checksum");
      json_builder_add_string_value (builder, pickle->hash);
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
