/* sk-process.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-process"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
# include <sys/prctl.h>
#endif

#include <glib/gstdio.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>

#include "sk-process.h"

#define READ_CHUNK (64 * 1024)
#define DRAIN_GRACE_MS 1000
#define DEFAULT_TAIL_SIZE (4 * 1024)
#define PID_PIPE_MIN_FD 256

/* One output stream of the process: copied into a log file up to a limit,
 * and kept in memory as its beginning and its end, each bounded, so that a
 * process that prints without end costs no memory.
 */
typedef struct
{
  SkProcess    *process;
  GInputStream *stream;

  char         *log_path;
  int           log_fd;
  guint64       log_limit;
  guint64       written;

  GByteArray   *head;
  guint8       *tail;
  guint64       tail_count;
  guint64       total;
  guint8       *buffer;

  guint         truncated : 1;
} Output;

struct _SkProcess
{
  GObject              parent_instance;

  /* Set up before the spawn. */
  GSubprocessLauncher *launcher;
  double               timeout;
  gsize                head_size;
  gsize                tail_size;
  SkProcessOutputFunc  output_func;
  gpointer             output_data;
  GDestroyNotify       output_destroy;

  /* While running. */
  GSubprocess         *subprocess;
  GMainContext        *context;
  GCancellable        *io_cancellable;
  GSource             *timeout_source;
  GSource             *drain_source;
  GPtrArray           *waiters;
  Output               outputs[2];
  char                *mark;
  pid_t                pgid;

  /* A process started by someone else, such as a fork server, that this
   * one only reads and is told the end of. */
  SkProcessSignalFunc  signal_func;
  gpointer             signal_data;
  GDestroyNotify       signal_destroy;
  int                  wait_status;
  guint                pending_reads;
  int                  exited;

  guint                stdin_pipe : 1;
  guint                merge_stderr : 1;
  guint                ignore_interrupt : 1;
  guint                spawned : 1;
  guint                attached : 1;
  guint                done : 1;
  guint                timed_out : 1;
};

G_DEFINE_FINAL_TYPE (SkProcess, sk_process, G_TYPE_OBJECT)

/* A wait_async() call: its task, and the handler that kills the group when
 * its cancellable fires.
 */
typedef struct
{
  GTask        *task;
  GCancellable *cancellable;
  gulong        cancelled_id;
} Waiter;

static void
waiter_free (Waiter *waiter)
{
  if (waiter->cancelled_id != 0)
    g_cancellable_disconnect (waiter->cancellable, waiter->cancelled_id);
  g_clear_object (&waiter->cancellable);
  g_clear_object (&waiter->task);
  g_free (waiter);
}

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
output_clear (Output *output)
{
  g_clear_object (&output->stream);
  g_clear_pointer (&output->log_path, g_free);
  if (output->log_fd >= 0)
    close (output->log_fd);
  output->log_fd = -1;
  g_clear_pointer (&output->head, g_byte_array_unref);
  g_clear_pointer (&output->tail, g_free);
  g_clear_pointer (&output->buffer, g_free);
}

static void
sk_process_finalize (GObject *object)
{
  SkProcess *self = (SkProcess *) object;

  sk_process_set_output_func (self, NULL, NULL, NULL);
  clear_source (&self->timeout_source);
  clear_source (&self->drain_source);
  g_clear_pointer (&self->waiters, g_ptr_array_unref);
  output_clear (&self->outputs[SK_PROCESS_STDOUT]);
  output_clear (&self->outputs[SK_PROCESS_STDERR]);
  g_clear_object (&self->io_cancellable);
  g_clear_object (&self->subprocess);
  g_clear_object (&self->launcher);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->mark, g_free);
  if (self->signal_destroy != NULL)
    self->signal_destroy (self->signal_data);

  G_OBJECT_CLASS (sk_process_parent_class)->finalize (object);
}

static void
sk_process_class_init (SkProcessClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_process_finalize;
}

static void
sk_process_init (SkProcess *self)
{
  self->launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  self->waiters = g_ptr_array_new_with_free_func ((GDestroyNotify) waiter_free);
  self->tail_size = DEFAULT_TAIL_SIZE;
  self->outputs[SK_PROCESS_STDOUT].log_fd = -1;
  self->outputs[SK_PROCESS_STDERR].log_fd = -1;
}

/* Process groups ---------------------------------------------------------- */

/* What the child's setup needs, filled in before the fork. */
typedef struct
{
  int      pid_fd;
  pid_t    parent;
  gboolean ignore_interrupt;
} ChildSetup;

/* Runs in the child between fork and exec, where only async-signal-safe
 * calls are allowed. The child tells its number through a pipe: the
 * subprocess's identifier is gone as soon as it is reaped, which a quick
 * process may be before sk_process_spawn() returns.
 *
 * On Linux the child is killed when this program dies, however it dies, so
 * that a step does not run on past its time limit unwatched. The death
 * signal is tied to the thread that forked; spawns happen on the main
 * context's thread, which lives as long as the program. A parent that died
 * before the request was made is noticed by the child's new parent.
 */
static void
child_setup (gpointer user_data)
{
  const ChildSetup *setup = user_data;
  pid_t pid = getpid ();

  /* A session of its own, not only a process group: the step then has no
   * controlling terminal through which it could type into the user's shell.
   */
  if (setsid () < 0)
    setpgid (0, 0);

  if (setup->ignore_interrupt)
    signal (SIGINT, SIG_IGN);

#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != setup->parent)
    kill (pid, SIGKILL);
#endif

  if (write (setup->pid_fd, &pid, sizeof pid) < 0)
    {
      /* The parent falls back on the identifier. */
    }
}

static pid_t
read_child_pid (int          fd,
                GSubprocess *subprocess)
{
  const char *identifier;
  pid_t pid = 0;

  if (read (fd, &pid, sizeof pid) == sizeof pid && pid > 0)
    return pid;

  identifier = g_subprocess_get_identifier (subprocess);
  return identifier != NULL ? (pid_t) g_ascii_strtoll (identifier, NULL, 10) : 0;
}

/* Signals what is left of the group. The leader's identifier may be gone,
 * so the group is named by the number noted at spawn time; no new process
 * is given that number while the group still has members.
 */
static void
kill_group (pid_t pgid,
            int   signum)
{
  if (pgid > 0)
    kill (-pgid, signum);
}

/* Descendants that left the group ---------------------------------------- */

/* A process can leave the group, and be re-parented away from the one that
 * started it, by starting a session of its own (a daemon forks twice and
 * calls setsid()); neither the group nor the process tree then reaches it.
 * What it keeps is its environment: each spawn puts a variable of its own
 * in the child's, every descendant inherits it unless it deliberately
 * clears its environment, and when the leader exits the processes that
 * carry it are killed. This needs no privilege, tells apart the processes
 * of steps running side by side, and costs one pass over /proc.
 */
#define MARK_PREFIX "SKELE_PROCESS_"
#define MARK_PASSES 10

#ifdef __linux__
static gboolean
environ_has_entry (const char *environ_text,
                   gsize       length,
                   const char *entry)
{
  const char *end = environ_text + length;

  gsize entry_length = strlen (entry);

  for (const char *p = environ_text; p < end; )
    {
      gsize n = strnlen (p, end - p);

      if (n == entry_length && memcmp (p, entry, n) == 0)
        return TRUE;
      p += n + 1;
    }

  return FALSE;
}

/* Kills every process carrying @entry that @killed does not hold yet, and
 * returns how many it found.
 */
static guint
kill_marked_pass (const char *entry,
                  GHashTable *killed)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  pid_t self_pid = getpid ();
  const char *name;
  guint found = 0;

  if (proc == NULL)
    return 0;

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *environ_text = NULL;
      gsize length = 0;
      guint64 number;
      pid_t pid;

      if (!g_ascii_string_to_unsigned (name, 10, 1, G_MAXINT, &number, NULL))
        continue;
      pid = (pid_t) number;
      if (pid == self_pid || g_hash_table_contains (killed, GINT_TO_POINTER (pid)))
        continue;

      /* Another user's processes cannot be read, and cannot be ours. */
      path = g_strdup_printf ("/proc/%d/environ", (int) pid);
      if (!g_file_get_contents (path, &environ_text, &length, NULL))
        continue;

      if (environ_has_entry (environ_text, length, entry))
        {
          kill (pid, SIGKILL);
          g_hash_table_add (killed, GINT_TO_POINTER (pid));
          found++;
        }
    }

  return found;
}
#endif

#ifdef __linux__
/* Whether @environ_text marks a process spawned by a program that is gone:
 * "SKELE_PROCESS_PID_…" where PID no longer runs. A number given to another
 * process since reads as alive, which errs on the side of leaving be. */
static gboolean
environ_has_orphan_mark (const char *environ_text,
                         gsize       length)
{
  const char *end = environ_text + length;

  for (const char *p = environ_text; p < end; p += strnlen (p, end - p) + 1)
    {
      guint64 owner;
      char *after;

      if (strncmp (p, MARK_PREFIX, MIN ((gsize) (end - p), strlen (MARK_PREFIX))) != 0)
        continue;

      owner = g_ascii_strtoull (p + strlen (MARK_PREFIX), &after, 10);
      if (after == p + strlen (MARK_PREFIX) || *after != '_' || owner == 0 || owner > G_MAXINT)
        continue;

      if (kill ((pid_t) owner, 0) != 0 && errno == ESRCH)
        return TRUE;
    }

  return FALSE;
}
#endif

/**
 * sk_process_kill_orphans:
 *
 * Kills what a program killed outright (kill -9) left running: processes
 * that it spawned, or that they started, whose program is gone. Such a
 * program could not stop them itself, and a sandbox that was starting at
 * that moment may not have learnt that its parent died. It looks only at
 * this user's processes that carry a mark of sk_process_spawn().
 */
void
sk_process_kill_orphans (void)
{
#ifdef __linux__
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  pid_t self_pid = getpid ();
  const char *name;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *environ_text = NULL;
      gsize length = 0;
      guint64 number;

      if (!g_ascii_string_to_unsigned (name, 10, 1, G_MAXINT, &number, NULL) ||
          (pid_t) number == self_pid)
        continue;

      path = g_strdup_printf ("/proc/%d/environ", (int) number);
      if (g_file_get_contents (path, &environ_text, &length, NULL) &&
          environ_has_orphan_mark (environ_text, length))
        {
          g_debug ("Killing process %d, left by a program that was killed", (int) number);
          kill ((pid_t) number, SIGKILL);
        }
    }
#endif
}

/* Passes are repeated while they find something new, since a process may
 * fork between being found and being killed.
 */
static void
kill_marked (const char *mark)
{
#ifdef __linux__
  g_autoptr(GHashTable) killed = NULL;
  g_autofree char *entry = NULL;

  if (mark == NULL)
    return;

  entry = g_strconcat (mark, "=1", NULL);
  killed = g_hash_table_new (NULL, NULL);
  for (guint pass = 0; pass < MARK_PASSES; pass++)
    {
      if (kill_marked_pass (entry, killed) == 0)
        break;
    }
#endif
}

/* Setting up ------------------------------------------------------------- */

/**
 * sk_process_new:
 *
 * Creates a process to set up and spawn. Its input is empty unless
 * sk_process_set_stdin_pipe() asks for a pipe, and its environment is the
 * program's own unless sk_process_set_environ() replaces it.
 *
 * Returns: (transfer full): a new #SkProcess
 */
SkProcess *
sk_process_new (void)
{
  return g_object_new (SK_TYPE_PROCESS, NULL);
}

/**
 * sk_process_set_cwd:
 * @cwd: (nullable): the folder to run in, or %NULL for the program's own
 */
void
sk_process_set_cwd (SkProcess  *self,
                    const char *cwd)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);

  g_subprocess_launcher_set_cwd (self->launcher, cwd);
}

/**
 * sk_process_set_environ:
 * @env: (array zero-terminated=1): the whole environment of the process
 */
void
sk_process_set_environ (SkProcess          *self,
                        const char * const *env)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);

  g_subprocess_launcher_set_environ (self->launcher, (char **) env);
}

/**
 * sk_process_setenv:
 * @name: the variable's name
 * @value: its value
 *
 * Sets one variable of the process's environment, keeping the others.
 */
void
sk_process_setenv (SkProcess  *self,
                   const char *name,
                   const char *value)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);
  g_return_if_fail (name != NULL);
  g_return_if_fail (value != NULL);

  g_subprocess_launcher_setenv (self->launcher, name, value, TRUE);
}

/**
 * sk_process_take_fd:
 * @source_fd: a file descriptor of this program, which the process takes
 * @target_fd: the number it has in the process
 *
 * Passes a file descriptor on, such as the write end of a pipe. The
 * program's copy is closed once the process is spawned.
 */
void
sk_process_take_fd (SkProcess *self,
                    int        source_fd,
                    int        target_fd)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);

  g_subprocess_launcher_take_fd (self->launcher, source_fd, target_fd);
}

/**
 * sk_process_set_stdin_pipe:
 * @stdin_pipe: whether the process reads a pipe, written through
 *   sk_process_get_stdin_pipe(), rather than an empty input
 */
void
sk_process_set_stdin_pipe (SkProcess *self,
                           gboolean   stdin_pipe)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);

  self->stdin_pipe = !!stdin_pipe;
}

/**
 * sk_process_set_merge_stderr:
 * @merge: whether the standard error goes into the standard output
 *
 * Merged, both are read as %SK_PROCESS_STDOUT, in the order written.
 */
void
sk_process_set_merge_stderr (SkProcess *self,
                             gboolean   merge)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);

  self->merge_stderr = !!merge;
}

/**
 * sk_process_set_ignore_interrupt:
 * @ignore: whether the program starts with SIGINT ignored
 *
 * An ignored signal stays ignored across exec, so a launcher that would
 * die of SIGINT (bubblewrap does) lets it reach a program in it that
 * handles it itself, as the harness does; sk_process_signal() sends it to
 * the whole group.
 */
void
sk_process_set_ignore_interrupt (SkProcess *self,
                                 gboolean   ignore)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);

  self->ignore_interrupt = !!ignore;
}

/**
 * sk_process_set_log_file:
 * @output: which output
 * @path: (nullable): the file to copy it into, replaced at spawn time, or
 *   %NULL for none; a link there is not followed, and no log is written
 * @limit: how many bytes of it the file keeps
 *
 * Output beyond @limit is not written; the file ends with a note that it
 * was cut.
 */
void
sk_process_set_log_file (SkProcess       *self,
                         SkProcessOutput  output,
                         const char      *path,
                         guint64          limit)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);
  g_return_if_fail (output == SK_PROCESS_STDOUT || output == SK_PROCESS_STDERR);

  g_free (self->outputs[output].log_path);
  self->outputs[output].log_path = g_strdup (path);
  self->outputs[output].log_limit = limit;
}

/**
 * sk_process_set_capture:
 * @head_size: how many bytes of the beginning of each output to keep
 * @tail_size: how many bytes of its end to keep
 *
 * By default, the last 4 KiB of each output are kept, and no beginning.
 */
void
sk_process_set_capture (SkProcess *self,
                        gsize      head_size,
                        gsize      tail_size)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);

  self->head_size = head_size;
  self->tail_size = tail_size;
}

/**
 * sk_process_set_timeout:
 * @seconds: how long the process may run, or 0 for no limit
 *
 * When the time is up the process group is killed, and
 * sk_process_get_timed_out() says so. A limit too long for a GLib timeout
 * (about 49 days), infinity included, is no limit.
 */
void
sk_process_set_timeout (SkProcess *self,
                        double     seconds)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->launcher != NULL);

  self->timeout = seconds;
}

/**
 * sk_process_set_output_func:
 * @self: a #SkProcess
 * @func: (nullable): called with each piece of output as it is read, or
 *   %NULL to stop
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when @func is replaced
 *
 * Lets a caller follow the output while the process runs, such as to show
 * it live. Nothing is buffered for @func: it sees each read once, and what
 * it keeps is its own affair. The logs and the captured head and tail are
 * the same with or without it. It may be set before or after the spawn;
 * output read before it was set is not given to it.
 */
void
sk_process_set_output_func (SkProcess           *self,
                            SkProcessOutputFunc  func,
                            gpointer             user_data,
                            GDestroyNotify       destroy)
{
  GDestroyNotify old_destroy;
  gpointer old_data;

  g_return_if_fail (SK_IS_PROCESS (self));

  old_destroy = self->output_destroy;
  old_data = self->output_data;

  self->output_func = func;
  self->output_data = user_data;
  self->output_destroy = destroy;

  if (old_destroy != NULL)
    old_destroy (old_data);
}

/* Reading the output ------------------------------------------------------ */

static void
output_write_log (Output       *output,
                  const guint8 *data,
                  gsize         size)
{
  static const char note[] = "\n[output truncated]\n";

  if (output->log_fd < 0)
    return;

  if (output->written < output->log_limit)
    {
      gsize room = MIN (size, output->log_limit - output->written);
      gsize done = 0;

      while (done < room)
        {
          ssize_t n = write (output->log_fd, data + done, room - done);

          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            break;
          done += n;
        }

      output->written += room;
    }

  if (output->written >= output->log_limit && size > 0 && !output->truncated)
    {
      output->truncated = TRUE;
      if (write (output->log_fd, note, sizeof note - 1) < 0)
        {
          /* The note is a courtesy; the log already holds what fits. */
        }
    }
}

static void
output_take (SkProcess    *self,
             Output       *output,
             const guint8 *data,
             gsize         len)
{
  gsize to_head = MIN (len, self->head_size - output->head->len);

  output->total += len;
  g_byte_array_append (output->head, data, to_head);
  data += to_head;
  len -= to_head;

  if (len >= self->tail_size)
    {
      output->tail_count += len - self->tail_size;
      data += len - self->tail_size;
      len = self->tail_size;
    }

  while (len > 0)
    {
      gsize position = output->tail_count % self->tail_size;
      gsize n = MIN (len, self->tail_size - position);

      memcpy (output->tail + position, data, n);
      data += n;
      len -= n;
      output->tail_count += n;
    }
}

/* Appends the kept end of @output, oldest byte first. */
static void
output_append_tail (SkProcess *self,
                    Output    *output,
                    GString   *string)
{
  if (self->tail_size == 0)
    return;

  if (output->tail_count <= self->tail_size)
    {
      g_string_append_len (string, (const char *) output->tail, output->tail_count);
    }
  else
    {
      gsize position = output->tail_count % self->tail_size;

      g_string_append_len (string, (const char *) output->tail + position,
                           self->tail_size - position);
      g_string_append_len (string, (const char *) output->tail, position);
    }
}

static void
complete_waiter (SkProcess *self,
                 Waiter    *waiter)
{
  if (waiter->cancelled_id != 0)
    {
      g_cancellable_disconnect (waiter->cancellable, waiter->cancelled_id);
      waiter->cancelled_id = 0;
    }

  if (!g_task_return_error_if_cancelled (waiter->task))
    g_task_return_boolean (waiter->task, TRUE);
}

static void
maybe_done (SkProcess *self)
{
  g_autoptr(GPtrArray) waiters = NULL;

  if (!g_atomic_int_get (&self->exited) || self->pending_reads > 0 || self->done)
    return;

  self->done = TRUE;
  clear_source (&self->timeout_source);
  clear_source (&self->drain_source);

  /* The logs are complete: whoever reads them next sees all of it. */
  for (guint i = 0; i < G_N_ELEMENTS (self->outputs); i++)
    {
      Output *output = &self->outputs[i];

      if (output->log_fd >= 0)
        close (output->log_fd);
      output->log_fd = -1;
      g_clear_pointer (&output->buffer, g_free);
    }

  waiters = g_steal_pointer (&self->waiters);
  self->waiters = g_ptr_array_new_with_free_func ((GDestroyNotify) waiter_free);
  for (guint i = 0; i < waiters->len; i++)
    complete_waiter (self, g_ptr_array_index (waiters, i));
}

static void start_read (SkProcess *self,
                        Output    *output);

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Output *output = user_data;
  SkProcess *self = output->process;
  gssize n;

  g_assert (SK_IS_PROCESS (self));

  n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);

  if (n <= 0)
    {
      self->pending_reads--;
      maybe_done (self);
      output->process = NULL;
      g_object_unref (self);
      return;
    }

  output_write_log (output, output->buffer, n);
  output_take (self, output, output->buffer, n);
  if (self->output_func != NULL)
    self->output_func (self, output == &self->outputs[SK_PROCESS_STDOUT] ? SK_PROCESS_STDOUT
                                                                         : SK_PROCESS_STDERR,
                       output->buffer, n, self->output_data);
  g_input_stream_read_async (output->stream, output->buffer, READ_CHUNK, G_PRIORITY_DEFAULT,
                             self->io_cancellable, read_cb, output);
}

/* Each read in flight holds a reference on the process, so that the
 * buffers it fills outlive it.
 */
static void
start_read (SkProcess *self,
            Output    *output)
{
  output->process = g_object_ref (self);
  self->pending_reads++;
  g_input_stream_read_async (output->stream, output->buffer, READ_CHUNK, G_PRIORITY_DEFAULT,
                             self->io_cancellable, read_cb, output);
}

/* Running ---------------------------------------------------------------- */

/* The group of an attached process may live in another process namespace,
 * where only the one that started it can name it. */
static void
signal_group (SkProcess *self,
              int        signum)
{
  if (self->attached)
    {
      if (self->signal_func != NULL)
        self->signal_func (signum, self->signal_data);
    }
  else
    {
      kill_group (self->pgid, signum);
    }
}

static GSource *
attach_timeout (SkProcess   *self,
                guint        msec,
                GSourceFunc  func)
{
  GSource *source = g_timeout_source_new (msec);

  g_source_set_callback (source, func, self, NULL);
  g_source_attach (source, self->context);

  return source;
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  SkProcess *self = user_data;

  /* Something that left the group still holds the output open. */
  g_clear_pointer (&self->drain_source, g_source_unref);
  g_cancellable_cancel (self->io_cancellable);

  return G_SOURCE_REMOVE;
}

static gboolean
timeout_cb (gpointer user_data)
{
  SkProcess *self = user_data;

  g_clear_pointer (&self->timeout_source, g_source_unref);
  self->timed_out = TRUE;
  signal_group (self, SIGKILL);

  return G_SOURCE_REMOVE;
}

static void
leader_exited (SkProcess *self,
               gboolean   reaped)
{
  g_atomic_int_set (&self->exited, TRUE);
  clear_source (&self->timeout_source);

  /* Processes the leader started and left running would keep the output
   * pipes open, and with them the wait, until they end on their own. Those
   * that left the group are found by their mark; one that also cleared its
   * environment is out of reach, and is not waited for beyond a short grace.
   */
  signal_group (self, SIGKILL);
  if (!reaped)
    kill_marked (self->mark);
  if (self->pending_reads > 0 && self->drain_source == NULL)
    self->drain_source = attach_timeout (self, DRAIN_GRACE_MS, drain_timeout_cb);

  maybe_done (self);
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(SkProcess) self = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  leader_exited (self, FALSE);
}

static char *
new_mark (void)
{
  return g_strdup_printf (MARK_PREFIX "%d_%08x%08x", (int) getpid (),
                          g_random_int (), g_random_int ());
}

static void
start_outputs (SkProcess    *self,
               GInputStream *streams[2])
{
  self->spawned = TRUE;
  self->context = g_main_context_ref_thread_default ();
  self->io_cancellable = g_cancellable_new ();

  for (guint i = 0; i < G_N_ELEMENTS (self->outputs); i++)
    {
      Output *output = &self->outputs[i];

      if (streams[i] == NULL)
        continue;

      output->stream = g_object_ref (streams[i]);
      output->head = g_byte_array_sized_new (self->head_size);
      output->tail = g_malloc (self->tail_size);
      output->buffer = g_malloc (READ_CHUNK);
      if (output->log_path != NULL)
        output->log_fd = g_open (output->log_path,
                                 O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
      start_read (self, output);
    }
}

static void
start_timeout (SkProcess *self)
{
  double milliseconds;

  /* GLib counts the delay in milliseconds in a guint; a longer limit would
   * overflow into a tiny one.
   */
  milliseconds = self->timeout * 1000;
  if (milliseconds > 0 && milliseconds < G_MAXUINT)
    self->timeout_source = attach_timeout (self, (guint) milliseconds, timeout_cb);
}

/**
 * sk_process_spawn:
 * @argv: (array zero-terminated=1): the program and its arguments
 * @error: return location for a #GError
 *
 * Starts the process as the leader of a process group of its own, with a
 * variable named `SKELE_PROCESS_…` in its environment that marks its
 * descendants, and starts reading its output. Everything the process reports comes back in
 * the thread-default main context of this call.
 *
 * Returns: %TRUE when the process started
 */
gboolean
sk_process_spawn (SkProcess           *self,
                  const char * const  *argv,
                  GError             **error)
{
  GSubprocessFlags flags = G_SUBPROCESS_FLAGS_STDOUT_PIPE;
  GInputStream *streams[2];
  ChildSetup setup;
  int pid_pipe[2];
  int high_fd;

  g_return_val_if_fail (SK_IS_PROCESS (self), FALSE);
  g_return_val_if_fail (self->launcher != NULL, FALSE);
  g_return_val_if_fail (argv != NULL && argv[0] != NULL, FALSE);

  if (self->stdin_pipe)
    flags |= G_SUBPROCESS_FLAGS_STDIN_PIPE;
  flags |= self->merge_stderr ? G_SUBPROCESS_FLAGS_STDERR_MERGE : G_SUBPROCESS_FLAGS_STDERR_PIPE;
  g_subprocess_launcher_set_flags (self->launcher, flags);

  if (!g_unix_open_pipe (pid_pipe, FD_CLOEXEC, error))
    return FALSE;

  /* Out of the way of the descriptors given with take_fd(), which the child
   * gets before its setup runs.
   */
  high_fd = fcntl (pid_pipe[1], F_DUPFD_CLOEXEC, PID_PIPE_MIN_FD);
  if (high_fd >= 0)
    {
      close (pid_pipe[1]);
      pid_pipe[1] = high_fd;
    }
  /* The child gets its own copy of @setup, which stays valid on this
   * stack until the spawn returns.
   */
  setup.pid_fd = pid_pipe[1];
  setup.parent = getpid ();
  setup.ignore_interrupt = self->ignore_interrupt;
  g_subprocess_launcher_set_child_setup (self->launcher, child_setup, &setup, NULL);

  self->mark = new_mark ();
  g_subprocess_launcher_setenv (self->launcher, self->mark, "1", TRUE);

  /* The spawn returns once the child has run its setup and exec'd. */
  self->subprocess = g_subprocess_launcher_spawnv (self->launcher, argv, error);
  close (pid_pipe[1]);

  /* The launcher holds the descriptors given with take_fd() until it is
   * finalized; the ends this program keeps must see the process close them.
   */
  g_clear_object (&self->launcher);

  if (self->subprocess == NULL)
    {
      close (pid_pipe[0]);
      return FALSE;
    }

  self->pgid = read_child_pid (pid_pipe[0], self->subprocess);
  close (pid_pipe[0]);

  streams[SK_PROCESS_STDOUT] = g_subprocess_get_stdout_pipe (self->subprocess);
  streams[SK_PROCESS_STDERR] = g_subprocess_get_stderr_pipe (self->subprocess);
  start_outputs (self, streams);

  g_subprocess_wait_async (self->subprocess, NULL, wait_cb, g_object_ref (self));
  start_timeout (self);

  return TRUE;
}

/**
 * sk_process_new_mark:
 *
 * Returns: (transfer full): a name for the environment variable that marks
 *   the descendants of a process given to sk_process_attach()
 */
char *
sk_process_new_mark (void)
{
  return new_mark ();
}

/**
 * sk_process_attach:
 * @mark: the variable set to `1` in the process's environment, from
 *   sk_process_new_mark()
 * @stdout_fd: (transfer full): the read end of the process's output
 * @stderr_fd: (transfer full): the read end of its error output
 * @signal_func: sends a signal to the process's group, from any thread
 * @user_data: data for @signal_func
 * @destroy: (nullable): frees @user_data
 *
 * Follows a process that was started by someone else, such as a fork
 * server, as if sk_process_spawn() had started it: its output is read and
 * logged, its time limit kept, and sk_process_set_exited() tells its end.
 *
 * Returns: %TRUE
 */
gboolean
sk_process_attach (SkProcess           *self,
                   const char          *mark,
                   int                  stdout_fd,
                   int                  stderr_fd,
                   SkProcessSignalFunc  signal_func,
                   gpointer             user_data,
                   GDestroyNotify       destroy)
{
  g_autoptr(GInputStream) out = NULL;
  g_autoptr(GInputStream) err = NULL;
  GInputStream *streams[2];

  g_return_val_if_fail (SK_IS_PROCESS (self), FALSE);
  g_return_val_if_fail (!self->spawned, FALSE);
  g_return_val_if_fail (mark != NULL, FALSE);
  g_return_val_if_fail (signal_func != NULL, FALSE);

  g_clear_object (&self->launcher);
  self->attached = TRUE;
  self->mark = g_strdup (mark);
  self->signal_func = signal_func;
  self->signal_data = user_data;
  self->signal_destroy = destroy;

  streams[SK_PROCESS_STDOUT] = out = g_unix_input_stream_new (stdout_fd, TRUE);
  streams[SK_PROCESS_STDERR] = err = g_unix_input_stream_new (stderr_fd, TRUE);
  start_outputs (self, streams);
  start_timeout (self);

  return TRUE;
}

/**
 * sk_process_set_exited:
 * @wait_status: how the process ended, as waitpid() tells it
 * @reaped: whether whoever started it has already killed every descendant
 *   it left, so that they need not be looked for by their mark
 *
 * Tells an attached process's end; what it left running in its group is
 * killed, as for a spawned one.
 */
void
sk_process_set_exited (SkProcess *self,
                       int        wait_status,
                       gboolean   reaped)
{
  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->attached);

  if (g_atomic_int_get (&self->exited))
    return;

  self->wait_status = wait_status;
  leader_exited (self, reaped);
}

static void
wait_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  SkProcess *self = user_data;

  /* This may run in any thread: it only sends a signal. The wait then
   * completes in its own context and reports the cancellation.
   */
  if (!g_atomic_int_get (&self->exited))
    signal_group (self, SIGKILL);
}

/**
 * sk_process_wait_async:
 * @cancellable: (nullable): kills the process group when it fires
 * @callback: called when the process has exited and its output is read
 *
 * Waits for the process to exit, and for its output to be read to the end.
 * What the process left running is killed when it exits: its group, and
 * the descendants that left the group but kept the environment variable
 * each spawn marks them with; output held open by anything else is read
 * for a short grace only.
 */
void
sk_process_wait_async (SkProcess           *self,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Waiter *waiter;

  g_return_if_fail (SK_IS_PROCESS (self));
  g_return_if_fail (self->spawned);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_process_wait_async);

  waiter = g_new0 (Waiter, 1);
  waiter->task = g_object_ref (task);

  if (self->done)
    {
      complete_waiter (self, waiter);
      waiter_free (waiter);
      return;
    }

  if (cancellable != NULL)
    {
      waiter->cancellable = g_object_ref (cancellable);
      waiter->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (wait_cancelled_cb),
                                                    self, NULL);
    }
  g_ptr_array_add (self->waiters, waiter);
}

/**
 * sk_process_wait_finish:
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the process is done, %FALSE with
 *   %G_IO_ERROR_CANCELLED when the wait was cancelled (the process group
 *   was killed then)
 */
gboolean
sk_process_wait_finish (SkProcess     *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (SK_IS_PROCESS (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_process_wait_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * sk_process_signal:
 * @signum: the signal
 *
 * Sends @signum to the process group, while its leader runs.
 */
void
sk_process_signal (SkProcess *self,
                   int        signum)
{
  g_return_if_fail (SK_IS_PROCESS (self));

  if (self->attached)
    {
      if (!g_atomic_int_get (&self->exited))
        signal_group (self, signum);
      return;
    }

  if (self->subprocess == NULL || g_atomic_int_get (&self->exited) ||
      g_subprocess_get_identifier (self->subprocess) == NULL)
    return;

  if (kill (-self->pgid, signum) != 0)
    kill (self->pgid, signum);
}

/**
 * sk_process_kill:
 *
 * Kills the process group, while its leader runs.
 */
void
sk_process_kill (SkProcess *self)
{
  sk_process_signal (self, SIGKILL);
}

/* Results ---------------------------------------------------------------- */

/**
 * sk_process_get_subprocess:
 *
 * Returns: (transfer none) (nullable): the process, once spawned
 */
GSubprocess *
sk_process_get_subprocess (SkProcess *self)
{
  g_return_val_if_fail (SK_IS_PROCESS (self), NULL);

  return self->subprocess;
}

/**
 * sk_process_get_stdin_pipe:
 *
 * Returns: (transfer none) (nullable): the process's input, when
 *   sk_process_set_stdin_pipe() asked for a pipe
 */
GOutputStream *
sk_process_get_stdin_pipe (SkProcess *self)
{
  g_return_val_if_fail (SK_IS_PROCESS (self), NULL);

  if (self->subprocess == NULL || !self->stdin_pipe)
    return NULL;

  return g_subprocess_get_stdin_pipe (self->subprocess);
}

/**
 * sk_process_get_timed_out:
 *
 * Returns: whether the process was killed because its time was up
 */
gboolean
sk_process_get_timed_out (SkProcess *self)
{
  g_return_val_if_fail (SK_IS_PROCESS (self), FALSE);

  return self->timed_out;
}

/**
 * sk_process_get_if_exited:
 *
 * Returns: whether the process exited on its own, rather than by a signal
 */
gboolean
sk_process_get_if_exited (SkProcess *self)
{
  g_return_val_if_fail (SK_IS_PROCESS (self), FALSE);

  if (!g_atomic_int_get (&self->exited))
    return FALSE;

  if (self->attached)
    return WIFEXITED (self->wait_status);

  return g_subprocess_get_if_exited (self->subprocess);
}

/**
 * sk_process_get_exit_status:
 *
 * Returns: the exit status, or -1 when the process did not exit on its own
 */
int
sk_process_get_exit_status (SkProcess *self)
{
  g_return_val_if_fail (SK_IS_PROCESS (self), -1);

  if (!sk_process_get_if_exited (self))
    return -1;

  if (self->attached)
    return WEXITSTATUS (self->wait_status);

  return g_subprocess_get_exit_status (self->subprocess);
}

/**
 * sk_process_get_term_sig:
 *
 * Returns: the signal that ended the process, or 0 when none did
 */
int
sk_process_get_term_sig (SkProcess *self)
{
  g_return_val_if_fail (SK_IS_PROCESS (self), 0);

  if (!g_atomic_int_get (&self->exited))
    return 0;

  if (self->attached)
    return WIFSIGNALED (self->wait_status) ? WTERMSIG (self->wait_status) : 0;

  if (!g_subprocess_get_if_signaled (self->subprocess))
    return 0;

  return g_subprocess_get_term_sig (self->subprocess);
}

/**
 * sk_process_get_total:
 * @output: which output
 *
 * Returns: how many bytes of @output were read, kept or not
 */
guint64
sk_process_get_total (SkProcess       *self,
                      SkProcessOutput  output)
{
  g_return_val_if_fail (SK_IS_PROCESS (self), 0);
  g_return_val_if_fail (output == SK_PROCESS_STDOUT || output == SK_PROCESS_STDERR, 0);

  return self->outputs[output].total;
}

/**
 * sk_process_get_tail:
 * @output: which output
 *
 * Returns: (transfer full): the last bytes of @output, up to the tail size
 *   of sk_process_set_capture(), as valid UTF-8
 */
char *
sk_process_get_tail (SkProcess       *self,
                     SkProcessOutput  output)
{
  g_autoptr(GString) text = g_string_new (NULL);
  Output *out;

  g_return_val_if_fail (SK_IS_PROCESS (self), NULL);
  g_return_val_if_fail (output == SK_PROCESS_STDOUT || output == SK_PROCESS_STDERR, NULL);

  out = &self->outputs[output];

  /* While nothing is cut, the end may lie partly in the head. */
  if (out->head != NULL && out->tail_count <= self->tail_size)
    g_string_append_len (text, (const char *) out->head->data, out->head->len);
  output_append_tail (self, out, text);
  if (text->len > self->tail_size)
    g_string_erase (text, 0, text->len - self->tail_size);

  return g_utf8_make_valid (text->str, text->len);
}

/**
 * sk_process_get_captured:
 * @output: which output
 *
 * Puts together what was kept of @output: all of it when it fits the sizes
 * of sk_process_set_capture(), or else its beginning and its end, each cut
 * at a line's end where there is one, with a note between them of how much
 * was left out.
 *
 * Returns: (transfer full): the kept output, as valid UTF-8
 */
char *
sk_process_get_captured (SkProcess       *self,
                         SkProcessOutput  output)
{
  g_autoptr(GString) raw = g_string_new (NULL);
  Output *out;

  g_return_val_if_fail (SK_IS_PROCESS (self), NULL);
  g_return_val_if_fail (output == SK_PROCESS_STDOUT || output == SK_PROCESS_STDERR, NULL);

  out = &self->outputs[output];
  if (out->head == NULL)
    return g_strdup ("");

  if (out->tail_count <= self->tail_size)
    {
      g_string_append_len (raw, (const char *) out->head->data, out->head->len);
      output_append_tail (self, out, raw);
    }
  else
    {
      g_autoptr(GString) tail = g_string_sized_new (self->tail_size);
      gsize head_len = out->head->len;
      const char *newline;
      guint64 cut;

      output_append_tail (self, out, tail);

      /* Cut at line ends where there are any, so that no line is shown in
       * part.
       */
      while (head_len > 0 && out->head->data[head_len - 1] != '\n')
        head_len--;
      if (head_len == 0)
        head_len = out->head->len;
      newline = memchr (tail->str, '\n', tail->len);
      if (newline != NULL && (gsize) (newline - tail->str) + 1 < tail->len)
        g_string_erase (tail, 0, newline - tail->str + 1);

      cut = out->total - head_len - tail->len;
      g_string_append_len (raw, (const char *) out->head->data, head_len);
      if (raw->len > 0 && raw->str[raw->len - 1] != '\n')
        g_string_append_c (raw, '\n');
      g_string_append_printf (raw, "[… %" G_GUINT64_FORMAT " bytes of output cut here: the output "
                              "is limited to %" G_GSIZE_FORMAT " bytes. Print less, or write long "
                              "output to a file and read parts of it with read_file.]\n",
                              cut, self->head_size + self->tail_size);
      g_string_append_len (raw, tail->str, tail->len);
    }

  return g_utf8_make_valid (raw->str, raw->len);
}
