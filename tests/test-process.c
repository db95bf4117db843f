/* test-process.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Spawns small shell commands through SkProcess: capture, logs, exit,
 * signals, timeout, leftovers and cancellation.
 */

#define G_LOG_DOMAIN "test-process"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <glib-unix.h>

#include "sk-process.h"
#include "sk-test-util.h"

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Wait;

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->ok = sk_process_wait_finish (SK_PROCESS (object), result, &wait->error);
  wait->done = TRUE;
}

/* Waits for @process, failing the test after a minute; returns how long
 * the wait took, in seconds.
 */
static double
wait_for (SkProcess    *process,
          GCancellable *cancellable,
          gboolean     *ok,
          GError      **error)
{
  Wait wait = { 0 };
  gint64 start = g_get_monotonic_time ();

  sk_process_wait_async (process, cancellable, wait_cb, &wait);
  SK_TEST_WAIT_UNTIL (wait.done, 60 * 1000);

  *ok = wait.ok;
  if (wait.error != NULL)
    g_propagate_error (error, wait.error);

  return (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
}

static void
run_ok (SkProcess  *process,
        const char *script)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = FALSE;

  g_assert_true (sk_process_spawn (process, SK_TEST_STRV ("/bin/sh", "-c", script), &error));
  g_assert_no_error (error);
  wait_for (process, NULL, &ok, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

static void
assert_captured (SkProcess       *process,
                 SkProcessOutput  output,
                 const char      *expected)
{
  g_autofree char *text = sk_process_get_captured (process, output);

  g_assert_cmpstr (text, ==, expected);
}

static pid_t
parse_pid (const char *text)
{
  gint64 pid = g_ascii_strtoll (text, NULL, 10);

  g_assert_cmpint (pid, >, 1);
  return (pid_t) pid;
}

static void
test_capture (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autofree char *tail = NULL;

  run_ok (process, "echo out; echo err >&2; echo more; exit 3");

  assert_captured (process, SK_PROCESS_STDOUT, "out\nmore\n");
  assert_captured (process, SK_PROCESS_STDERR, "err\n");
  g_assert_cmpuint (sk_process_get_total (process, SK_PROCESS_STDOUT), ==, 9);
  g_assert_cmpuint (sk_process_get_total (process, SK_PROCESS_STDERR), ==, 4);
  tail = sk_process_get_tail (process, SK_PROCESS_STDERR);
  g_assert_cmpstr (tail, ==, "err\n");

  g_assert_true (sk_process_get_if_exited (process));
  g_assert_cmpint (sk_process_get_exit_status (process), ==, 3);
  g_assert_cmpint (sk_process_get_term_sig (process), ==, 0);
  g_assert_false (sk_process_get_timed_out (process));
  g_assert_nonnull (sk_process_get_subprocess (process));
  g_assert_null (sk_process_get_stdin_pipe (process));
}

typedef struct
{
  GString *out;
  GString *err;
  gboolean destroyed;
} Followed;

static void
follow_cb (SkProcess       *process,
           SkProcessOutput  output,
           const guint8    *data,
           gsize            size,
           gpointer         user_data)
{
  Followed *followed = user_data;

  g_string_append_len (output == SK_PROCESS_STDOUT ? followed->out : followed->err,
                       (const char *) data, size);
}

static void
follow_destroy (gpointer user_data)
{
  ((Followed *) user_data)->destroyed = TRUE;
}

/* The output is given as it is read, before the process ends, and still
 * goes whole into the logs and the capture. */
static void
test_follow_output (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = sk_test_make_tmp_dir ("process-follow");
  g_autofree char *log_path = g_build_filename (dir, "stdout.log", NULL);
  g_autofree char *log = NULL;
  Followed followed = { g_string_new (NULL), g_string_new (NULL), FALSE };
  Wait wait = { 0 };

  sk_process_set_log_file (process, SK_PROCESS_STDOUT, log_path, 1024);
  sk_process_set_output_func (process, follow_cb, &followed, follow_destroy);
  g_assert_true (sk_process_spawn (process,
                                   SK_TEST_STRV ("/bin/sh", "-c", "echo first; sleep 2; echo err >&2; echo last"),
                                   &error));
  g_assert_no_error (error);

  sk_process_wait_async (process, NULL, wait_cb, &wait);
  SK_TEST_WAIT_UNTIL (followed.out->len > 0 || wait.done, 60 * 1000);
  g_assert_false (wait.done);
  g_assert_cmpstr (followed.out->str, ==, "first\n");

  SK_TEST_WAIT_UNTIL (wait.done, 60 * 1000);
  g_assert_true (wait.ok);
  g_assert_cmpstr (followed.out->str, ==, "first\nlast\n");
  g_assert_cmpstr (followed.err->str, ==, "err\n");
  assert_captured (process, SK_PROCESS_STDOUT, "first\nlast\n");
  g_assert_true (g_file_get_contents (log_path, &log, NULL, NULL));
  g_assert_cmpstr (log, ==, "first\nlast\n");

  sk_process_set_output_func (process, NULL, NULL, NULL);
  g_assert_true (followed.destroyed);

  g_string_free (followed.out, TRUE);
  g_string_free (followed.err, TRUE);
  sk_test_remove_tree (dir);
}

static void
test_merge (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();

  sk_process_set_merge_stderr (process, TRUE);
  run_ok (process, "echo one; echo two >&2; echo three");

  assert_captured (process, SK_PROCESS_STDOUT, "one\ntwo\nthree\n");
  assert_captured (process, SK_PROCESS_STDERR, "");
  g_assert_cmpuint (sk_process_get_total (process, SK_PROCESS_STDERR), ==, 0);
  g_assert_cmpint (sk_process_get_exit_status (process), ==, 0);
}

static void
test_environment (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autofree char *folder = sk_test_make_tmp_dir ("process-env");
  g_autofree char *physical = NULL;
  g_autofree char *expected = NULL;
  const char *path = g_getenv ("PATH");
  g_autofree char *path_env = g_strconcat ("PATH=", path != NULL ? path : "/usr/bin:/bin", NULL);
  const char *env[] = { path_env, "SK_ONE=one", NULL };

  physical = realpath (folder, NULL);
  sk_process_set_cwd (process, physical);
  sk_process_set_environ (process, env);
  sk_process_setenv (process, "SK_TWO", "two");
  run_ok (process, "pwd; echo \"$SK_ONE $SK_TWO [$HOME]\"");

  expected = g_strdup_printf ("%s\none two []\n", physical);
  assert_captured (process, SK_PROCESS_STDOUT, expected);

  sk_test_remove_tree (folder);
}

static void
test_input (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(SkProcess) empty = sk_process_new ();
  g_autoptr(SkProcess) with_fd = sk_process_new ();
  g_autoptr(GError) error = NULL;
  GOutputStream *input;
  gboolean ok = FALSE;
  char buffer[64] = { 0 };
  gssize n;
  int fds[2];

  /* A pipe to write to. */
  sk_process_set_stdin_pipe (process, TRUE);
  g_assert_true (sk_process_spawn (process, SK_TEST_STRV ("cat"), &error));
  g_assert_no_error (error);
  input = sk_process_get_stdin_pipe (process);
  g_assert_nonnull (input);
  g_assert_true (g_output_stream_write_all (input, "hello\n", 6, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (input, NULL, &error));
  g_assert_no_error (error);
  wait_for (process, NULL, &ok, &error);
  g_assert_true (ok);
  assert_captured (process, SK_PROCESS_STDOUT, "hello\n");

  /* Without one, the input is empty and nothing waits for it. */
  run_ok (empty, "cat");
  assert_captured (empty, SK_PROCESS_STDOUT, "");

  /* A descriptor passed on: once the process is gone, the read end sees
   * the end, as the program keeps no copy of the write end.
   */
  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, &error));
  sk_process_take_fd (with_fd, fds[1], 3);
  run_ok (with_fd, "echo through >&3");
  n = read (fds[0], buffer, sizeof buffer - 1);
  g_assert_cmpint (n, ==, strlen ("through\n"));
  g_assert_cmpstr (buffer, ==, "through\n");
  g_assert_cmpint (read (fds[0], buffer, sizeof buffer), ==, 0);
  close (fds[0]);
}

static void
test_spawn_failure (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(GError) error = NULL;

  g_assert_false (sk_process_spawn (process, SK_TEST_STRV ("/nonexistent/program"), &error));
  g_assert_nonnull (error);
}

static void
test_log_file (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autofree char *folder = sk_test_make_tmp_dir ("process-log");
  g_autofree char *out_path = g_build_filename (folder, "out.log", NULL);
  g_autofree char *err_path = g_build_filename (folder, "err.log", NULL);
  g_autofree char *text = NULL;

  /* An old log is replaced. */
  sk_test_write_text (folder, "out.log", "old contents that are long enough to see");

  sk_process_set_log_file (process, SK_PROCESS_STDOUT, out_path, 10);
  sk_process_set_log_file (process, SK_PROCESS_STDERR, err_path, 1000);
  run_ok (process, "printf '0123456789abcdef'; printf 'more' >&2");

  text = sk_test_read_text (folder, "out.log");
  g_assert_cmpstr (text, ==, "0123456789\n[output truncated]\n");
  g_clear_pointer (&text, g_free);
  text = sk_test_read_text (folder, "err.log");
  g_assert_cmpstr (text, ==, "more");

  /* The log's limit does not limit what is kept in memory. */
  assert_captured (process, SK_PROCESS_STDOUT, "0123456789abcdef");
  g_assert_cmpuint (sk_process_get_total (process, SK_PROCESS_STDOUT), ==, 16);

  sk_test_remove_tree (folder);
}

/* Output within the limit is not cut. */
static void
test_log_file_exact (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autofree char *folder = sk_test_make_tmp_dir ("process-log-exact");
  g_autofree char *path = g_build_filename (folder, "out.log", NULL);
  g_autofree char *text = NULL;

  sk_process_set_log_file (process, SK_PROCESS_STDOUT, path, 4);
  run_ok (process, "printf 'abc'");

  text = sk_test_read_text (folder, "out.log");
  g_assert_cmpstr (text, ==, "abc");

  sk_test_remove_tree (folder);
}

static void
test_head_tail (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(SkProcess) small = sk_process_new ();
  g_autoptr(SkProcess) tail_only = sk_process_new ();
  g_autofree char *text = NULL;
  g_autofree char *tail = NULL;
  const char *note;
  const char *note_end;
  guint64 total = 0;
  guint64 cut;

  for (guint i = 1; i <= 20000; i++)
    total += g_snprintf (NULL, 0, "%u\n", i);

  sk_process_set_capture (process, 100, 100);
  run_ok (process, "seq 1 20000");

  g_assert_cmpuint (sk_process_get_total (process, SK_PROCESS_STDOUT), ==, total);
  text = sk_process_get_captured (process, SK_PROCESS_STDOUT);
  g_assert_true (g_str_has_prefix (text, "1\n2\n3\n"));
  g_assert_true (g_str_has_suffix (text, "19999\n20000\n"));
  g_assert_cmpuint (strlen (text), <, 200 + 300);

  /* Cut at line ends, and what is shown and what was cut add up to the
   * whole output.
   */
  note = strstr (text, "[… ");
  g_assert_nonnull (note);
  g_assert_true (note[-1] == '\n');
  sk_test_assert_contains (note, "bytes of output cut here: the output is limited to 200 bytes.");
  cut = g_ascii_strtoull (note + strlen ("[… "), NULL, 10);
  note_end = strchr (note, '\n') + 1;
  g_assert_cmpuint ((note - text) + strlen (note_end) + cut, ==, total);

  tail = sk_process_get_tail (process, SK_PROCESS_STDOUT);
  g_assert_cmpuint (strlen (tail), ==, 100);
  g_assert_true (g_str_has_suffix (tail, "19999\n20000\n"));
  g_clear_pointer (&tail, g_free);

  /* Output that fits the head and the tail together is kept whole, and its
   * tail reaches back into the head.
   */
  sk_process_set_capture (small, 4, 4);
  run_ok (small, "printf abcdef");
  assert_captured (small, SK_PROCESS_STDOUT, "abcdef");
  tail = sk_process_get_tail (small, SK_PROCESS_STDOUT);
  g_assert_cmpstr (tail, ==, "cdef");
  g_clear_pointer (&tail, g_free);

  /* The default keeps the end only; what is cut is made valid UTF-8. */
  run_ok (tail_only, "seq 1 20000; printf 'caf\\303\\251 \\377'");
  tail = sk_process_get_tail (tail_only, SK_PROCESS_STDOUT);
  g_assert_cmpuint (strlen (tail), <=, 4096 + 3);
  g_assert_true (g_utf8_validate (tail, -1, NULL));
  g_assert_true (g_str_has_suffix (tail, "20000\ncafé \xef\xbf\xbd"));
}

static void
test_signals (void)
{
  g_autoptr(SkProcess) term = sk_process_new ();
  g_autoptr(SkProcess) killed = sk_process_new ();
  g_autoptr(GError) error = NULL;
  gboolean ok = FALSE;
  double elapsed;

  g_assert_true (sk_process_spawn (term, SK_TEST_STRV ("sleep", "100"), &error));
  sk_process_signal (term, SIGTERM);
  elapsed = wait_for (term, NULL, &ok, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpfloat (elapsed, <, 10);
  g_assert_false (sk_process_get_if_exited (term));
  g_assert_cmpint (sk_process_get_exit_status (term), ==, -1);
  g_assert_cmpint (sk_process_get_term_sig (term), ==, SIGTERM);
  g_assert_false (sk_process_get_timed_out (term));

  /* Signalling a process that is done does nothing. */
  sk_process_signal (term, SIGTERM);

  g_assert_true (sk_process_spawn (killed, SK_TEST_STRV ("sleep", "100"), &error));
  sk_process_kill (killed);
  wait_for (killed, NULL, &ok, &error);
  g_assert_true (ok);
  g_assert_cmpint (sk_process_get_term_sig (killed), ==, SIGKILL);
}

/* The timeout kills the whole group: a grandchild too. */
static void
test_timeout (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean ok = FALSE;
  double elapsed;

  sk_process_set_timeout (process, 1);
  g_assert_true (sk_process_spawn (process, SK_TEST_STRV ("/bin/sh", "-c",
                                                          "sleep 100 & echo $!; sleep 100"),
                                   &error));
  elapsed = wait_for (process, NULL, &ok, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpfloat (elapsed, <, 10);
  g_assert_true (sk_process_get_timed_out (process));
  g_assert_cmpint (sk_process_get_term_sig (process), ==, SIGKILL);

  text = sk_process_get_captured (process, SK_PROCESS_STDOUT);
  g_assert_true (sk_test_process_gone (parse_pid (text)));
}

/* A limit too long for a GLib timeout is no limit, not an immediate one. */
static void
test_timeout_unlimited (void)
{
  const double limits[] = { 0, 5e6, 1e300, INFINITY };

  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      g_autoptr(SkProcess) process = sk_process_new ();

      sk_process_set_timeout (process, limits[i]);
      run_ok (process, "sleep 0.2; echo done");
      assert_captured (process, SK_PROCESS_STDOUT, "done\n");
      g_assert_false (sk_process_get_timed_out (process));
    }
}

/* What the leader leaves running in its group is stopped when it exits,
 * and does not keep the wait going.
 */
static void
test_leftover (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean ok = FALSE;
  double elapsed;

  g_assert_true (sk_process_spawn (process, SK_TEST_STRV ("/bin/sh", "-c",
                                                          "sleep 100 & echo $!"),
                                   &error));
  elapsed = wait_for (process, NULL, &ok, &error);
  g_assert_true (ok);
  g_assert_cmpfloat (elapsed, <, 10);
  g_assert_cmpint (sk_process_get_exit_status (process), ==, 0);

  text = sk_process_get_captured (process, SK_PROCESS_STDOUT);
  g_assert_true (sk_test_process_gone (parse_pid (text)));
}

/* A grandchild that left the group, by a session of its own, and holds the
 * output open, is still killed when the leader exits: it carries the mark
 * of the spawn in its environment.
 */
static void
test_escaped_grandchild (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *setsid = g_find_program_in_path ("setsid");
  g_autofree char *text = NULL;
  gboolean ok = FALSE;
  double elapsed;
  pid_t pid;

  if (setsid == NULL)
    {
      g_test_skip ("setsid is not installed");
      return;
    }

  g_assert_true (sk_process_spawn (process,
                                   SK_TEST_STRV ("/bin/sh", "-c",
                                                 "setsid sh -c 'echo $$ >&2; exec sleep 100' & "
                                                 "sleep 1; echo hi"),
                                   &error));
  elapsed = wait_for (process, NULL, &ok, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpfloat (elapsed, <, 10);
  assert_captured (process, SK_PROCESS_STDOUT, "hi\n");
  g_assert_cmpint (sk_process_get_exit_status (process), ==, 0);

  text = sk_process_get_captured (process, SK_PROCESS_STDERR);
  pid = parse_pid (text);
  if (!sk_test_process_gone (pid))
    {
      kill (pid, SIGKILL);
      g_assert_not_reached ();
    }
}

/* A daemon forks twice, and its middle process exits, so that it is
 * re-parented away from the leader in a session of its own; it is killed
 * all the same, and the wait does not linger for its output.
 */
static void
test_daemon (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *setsid = g_find_program_in_path ("setsid");
  g_autofree char *folder = sk_test_make_tmp_dir ("process-daemon");
  g_autofree char *pid_path = g_build_filename (folder, "daemon.pid", NULL);
  g_autofree char *script = NULL;
  g_autofree char *text = NULL;
  gboolean ok = FALSE;
  double elapsed;
  pid_t pid;

  if (setsid == NULL)
    {
      g_test_skip ("setsid is not installed");
      return;
    }

  script = g_strdup_printf ("( setsid sh -c 'echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 600' & ); "
                            "while [ ! -s %s ]; do sleep 0.05; done; cat %s",
                            pid_path, pid_path, pid_path, pid_path, pid_path);
  g_assert_true (sk_process_spawn (process, SK_TEST_STRV ("/bin/sh", "-c", script), &error));
  elapsed = wait_for (process, NULL, &ok, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpfloat (elapsed, <, 10);

  text = sk_process_get_captured (process, SK_PROCESS_STDOUT);
  pid = parse_pid (text);
  if (!sk_test_process_gone (pid))
    {
      kill (pid, SIGKILL);
      g_assert_not_reached ();
    }

  sk_test_remove_tree (folder);
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(SkProcess) early = sk_process_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  gboolean ok = TRUE;
  double elapsed;

  g_assert_true (sk_process_spawn (process, SK_TEST_STRV ("sleep", "100"), &error));
  g_timeout_add (200, cancel_cb, cancellable);
  elapsed = wait_for (process, cancellable, &ok, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (ok);
  g_assert_cmpfloat (elapsed, <, 10);

  /* The process is gone when the wait reports the cancellation. */
  g_assert_cmpint (sk_process_get_term_sig (process), ==, SIGKILL);

  /* A cancellable that has fired already kills at once. */
  g_clear_error (&error);
  g_assert_true (sk_process_spawn (early, SK_TEST_STRV ("sleep", "100"), &error));
  elapsed = wait_for (early, cancellable, &ok, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpfloat (elapsed, <, 10);
  g_assert_cmpint (sk_process_get_term_sig (early), ==, SIGKILL);
}

/* A second wait, after the first, completes at once. */
static void
test_wait_again (void)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(GError) error = NULL;
  gboolean ok = FALSE;

  run_ok (process, "echo once");
  wait_for (process, NULL, &ok, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  assert_captured (process, SK_PROCESS_STDOUT, "once\n");
}

/* The process keeps itself alive while it runs: dropping it neither stops
 * it nor loses what it writes to its log.
 */
static void
test_dropped (void)
{
  g_autofree char *folder = sk_test_make_tmp_dir ("process-dropped");
  g_autofree char *path = g_build_filename (folder, "out.log", NULL);
  SkProcess *process = sk_process_new ();
  g_autoptr(GError) error = NULL;

  g_object_add_weak_pointer (G_OBJECT (process), (gpointer *) &process);
  sk_process_set_log_file (process, SK_PROCESS_STDOUT, path, 1000);
  g_assert_true (sk_process_spawn (process, SK_TEST_STRV ("/bin/sh", "-c", "sleep 0.2; echo late"),
                                   &error));
  g_object_unref (process);
  g_assert_nonnull (process);

  SK_TEST_WAIT_UNTIL (process == NULL, 60 * 1000);
  g_assert_true (sk_test_exists (folder, "out.log"));
  {
    g_autofree char *text = sk_test_read_text (folder, "out.log");

    g_assert_cmpstr (text, ==, "late\n");
  }

  sk_test_remove_tree (folder);
}

/* The helper that test_parent_death() kills: it spawns `sleep 1000`
 * through SkProcess, writes the sleep's number into @pid_path and waits.
 */
static int
spawn_and_wait (const char *pid_path)
{
  g_autoptr(SkProcess) process = sk_process_new ();
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;
  const char *pid;

  if (!sk_process_spawn (process, SK_TEST_STRV ("sleep", "1000"), &error) ||
      (pid = g_subprocess_get_identifier (sk_process_get_subprocess (process))) == NULL ||
      !g_file_set_contents (pid_path, pid, -1, &error))
    return 1;

  g_main_loop_run (loop);
  return 0;
}

/* A process outlives nothing: when the program that spawned it is killed,
 * without a chance to clean up, the process is killed too.
 */
static void
test_parent_death (void)
{
#ifdef __linux__
  g_autofree char *folder = sk_test_make_tmp_dir ("process-parent-death");
  g_autofree char *pid_path = g_build_filename (folder, "pid", NULL);
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", NULL);
  g_autoptr(GSubprocess) helper = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean gone;
  pid_t pid;

  g_assert_nonnull (self_path);
  helper = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error,
                             self_path, "--spawn-and-wait", pid_path, NULL);
  g_assert_no_error (error);

  /* Nothing wakes the main loop when the helper writes the file, so a wait on
   * the main loop would always last its whole time limit: poll instead. */
  for (guint i = 0; i < 3000 && !g_file_test (pid_path, G_FILE_TEST_EXISTS); i++)
    g_usleep (10 * 1000);
  g_assert_true (g_file_test (pid_path, G_FILE_TEST_EXISTS));
  text = sk_test_read_text (folder, "pid");
  pid = parse_pid (text);
  g_assert_false (sk_test_process_gone (pid));

  g_subprocess_force_exit (helper);
  g_assert_true (g_subprocess_wait (helper, NULL, &error));
  g_assert_no_error (error);

  gone = sk_test_process_gone (pid);
  if (!gone)
    kill (pid, SIGKILL);
  g_assert_true (gone);

  sk_test_remove_tree (folder);
#else
  g_test_skip ("Only Linux kills a process when its parent dies");
#endif
}

/* What a program killed outright left running is stopped by the next:
 * a process marked by a spawner that is gone. */
static void
test_kill_orphans (void)
{
  g_autoptr(GSubprocess) orphan = NULL;
  g_autoptr(GSubprocess) kept = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *orphan_mark = NULL;
  g_autofree char *kept_mark = NULL;
  pid_t gone_pid, orphan_pid, kept_pid;

  /* A number that no process has any more. */
  gone_pid = fork ();
  if (gone_pid == 0)
    _exit (0);
  g_assert_cmpint (gone_pid, >, 0);
  g_assert_cmpint (waitpid (gone_pid, NULL, 0), ==, gone_pid);
  orphan_mark = g_strdup_printf ("SKELE_PROCESS_%d_0123456789abcdef", (int) gone_pid);
  kept_mark = g_strdup_printf ("SKELE_PROCESS_%d_0123456789abcdef", (int) getpid ());

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_setenv (launcher, orphan_mark, "1", TRUE);
  orphan = g_subprocess_launcher_spawn (launcher, &error, "sleep", "60", NULL);
  g_assert_no_error (error);
  g_subprocess_launcher_unsetenv (launcher, orphan_mark);
  g_subprocess_launcher_setenv (launcher, kept_mark, "1", TRUE);
  kept = g_subprocess_launcher_spawn (launcher, &error, "sleep", "60", NULL);
  g_assert_no_error (error);
  orphan_pid = (pid_t) g_ascii_strtoll (g_subprocess_get_identifier (orphan), NULL, 10);
  kept_pid = (pid_t) g_ascii_strtoll (g_subprocess_get_identifier (kept), NULL, 10);

  sk_process_kill_orphans ();

  g_assert_true (g_subprocess_wait (orphan, NULL, &error));
  g_assert_true (g_subprocess_get_if_signaled (orphan));
  g_assert_cmpint (g_subprocess_get_term_sig (orphan), ==, SIGKILL);
  g_assert_cmpint (kill (kept_pid, 0), ==, 0);
  g_assert_cmpint (orphan_pid, >, 0);

  g_subprocess_force_exit (kept);
  g_assert_true (g_subprocess_wait (kept, NULL, &error));
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 3 && g_str_equal (argv[1], "--spawn-and-wait"))
    return spawn_and_wait (argv[2]);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/process/capture", test_capture);
  g_test_add_func ("/process/merge", test_merge);
  g_test_add_func ("/process/follow-output", test_follow_output);
  g_test_add_func ("/process/environment", test_environment);
  g_test_add_func ("/process/input", test_input);
  g_test_add_func ("/process/spawn-failure", test_spawn_failure);
  g_test_add_func ("/process/log-file", test_log_file);
  g_test_add_func ("/process/log-file-exact", test_log_file_exact);
  g_test_add_func ("/process/head-tail", test_head_tail);
  g_test_add_func ("/process/signals", test_signals);
  g_test_add_func ("/process/timeout", test_timeout);
  g_test_add_func ("/process/timeout-unlimited", test_timeout_unlimited);
  g_test_add_func ("/process/leftover", test_leftover);
  g_test_add_func ("/process/escaped-grandchild", test_escaped_grandchild);
  g_test_add_func ("/process/daemon", test_daemon);
  g_test_add_func ("/process/cancel", test_cancel);
  g_test_add_func ("/process/wait-again", test_wait_again);
  g_test_add_func ("/process/dropped", test_dropped);
  g_test_add_func ("/process/parent-death", test_parent_death);
  g_test_add_func ("/process/kill-orphans", test_kill_orphans);

  return g_test_run ();
}
