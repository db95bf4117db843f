/* sk-process.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * SkProcessOutput:
 * @SK_PROCESS_STDOUT: the standard output (and the standard error when
 *   they are merged)
 * @SK_PROCESS_STDERR: the standard error
 */
typedef enum
{
  SK_PROCESS_STDOUT,
  SK_PROCESS_STDERR,
} SkProcessOutput;

#define SK_TYPE_PROCESS (sk_process_get_type ())

G_DECLARE_FINAL_TYPE (SkProcess, sk_process, SK, PROCESS, GObject)

/**
 * SkProcessOutputFunc:
 * @process: the process
 * @output: which of its outputs @data comes from
 * @data: (array length=size): bytes as they were read, in no particular
 *   relation to lines or characters
 * @size: how many, at most 64 KiB
 * @user_data: the data given to sk_process_set_output_func()
 *
 * Called on the context the process was spawned on for each piece of output
 * read, after it went into the log file.
 */
typedef void (*SkProcessOutputFunc) (SkProcess       *process,
                                     SkProcessOutput  output,
                                     const guint8    *data,
                                     gsize            size,
                                     gpointer         user_data);

/**
 * SkProcessSignalFunc:
 * @signum: the signal
 * @user_data: the data given to sk_process_attach()
 *
 * Sends @signum to an attached process's group; called from any thread.
 */
typedef void (*SkProcessSignalFunc) (int       signum,
                                     gpointer  user_data);

/* Setting up, before sk_process_spawn(). */
SkProcess  *sk_process_new               (void);
void        sk_process_set_cwd           (SkProcess           *self,
                                          const char          *cwd);
void        sk_process_set_environ       (SkProcess           *self,
                                          const char * const  *env);
void        sk_process_setenv            (SkProcess           *self,
                                          const char          *name,
                                          const char          *value);
void        sk_process_take_fd           (SkProcess           *self,
                                          int                  source_fd,
                                          int                  target_fd);
void        sk_process_set_stdin_pipe    (SkProcess           *self,
                                          gboolean             stdin_pipe);
void        sk_process_set_merge_stderr  (SkProcess           *self,
                                          gboolean             merge);
void        sk_process_set_ignore_interrupt (SkProcess        *self,
                                          gboolean             ignore);
void        sk_process_set_log_file      (SkProcess           *self,
                                          SkProcessOutput      output,
                                          const char          *path,
                                          guint64              limit);
void        sk_process_set_capture       (SkProcess           *self,
                                          gsize                head_size,
                                          gsize                tail_size);
void        sk_process_set_timeout       (SkProcess           *self,
                                          double               seconds);
void        sk_process_set_output_func   (SkProcess           *self,
                                          SkProcessOutputFunc  func,
                                          gpointer             user_data,
                                          GDestroyNotify       destroy);

/* Running: the process leads a process group of its own, and marks its
 * descendants in their environment, so that what it starts is stopped with
 * it. */
gboolean    sk_process_spawn             (SkProcess           *self,
                                          const char * const  *argv,
                                          GError             **error);
void        sk_process_wait_async        (SkProcess           *self,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
gboolean    sk_process_wait_finish       (SkProcess           *self,
                                          GAsyncResult        *result,
                                          GError             **error);
void        sk_process_signal            (SkProcess           *self,
                                          int                  signum);
void        sk_process_kill              (SkProcess           *self);
void        sk_process_kill_orphans      (void);

/* A process started by someone else, followed as if spawned. */
char       *sk_process_new_mark          (void);
gboolean    sk_process_attach            (SkProcess           *self,
                                          const char          *mark,
                                          int                  stdout_fd,
                                          int                  stderr_fd,
                                          SkProcessSignalFunc  signal_func,
                                          gpointer             user_data,
                                          GDestroyNotify       destroy);
void        sk_process_set_exited        (SkProcess           *self,
                                          int                  wait_status,
                                          gboolean             reaped);

/* Results, after the wait. */
GSubprocess *sk_process_get_subprocess   (SkProcess           *self);
GOutputStream *sk_process_get_stdin_pipe (SkProcess           *self);
gboolean    sk_process_get_timed_out     (SkProcess           *self);
gboolean    sk_process_get_if_exited     (SkProcess           *self);
int         sk_process_get_exit_status   (SkProcess           *self);
int         sk_process_get_term_sig      (SkProcess           *self);
guint64     sk_process_get_total         (SkProcess           *self,
                                          SkProcessOutput      output);
char       *sk_process_get_tail          (SkProcess           *self,
                                          SkProcessOutput      output);
char       *sk_process_get_captured      (SkProcess           *self,
                                          SkProcessOutput      output);

G_END_DECLS
