/* sk-harness.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sk-process.h"
#include "sk-sandbox.h"

G_BEGIN_DECLS

char           *sk_harness_get_path            (GError             **error);
char           *sk_harness_read_tail           (const char          *path);
void            sk_harness_precompile          (const char          *harness,
                                                const char          *python);

/**
 * SkHarnessPrior:
 * @SK_HARNESS_PRIOR_NONE: the prior's outputs reach the node as `{}`
 * @SK_HARNESS_PRIOR_FILE: the prior's outputs are read from its pickle
 * @SK_HARNESS_PRIOR_MEMORY: the in-memory worker holds the prior's outputs
 *
 * Where the harness finds a prior's outputs for a node.
 */
typedef enum
{
  SK_HARNESS_PRIOR_NONE,
  SK_HARNESS_PRIOR_FILE,
  SK_HARNESS_PRIOR_MEMORY,
} SkHarnessPrior;

/**
 * SkHarnessSpec:
 *
 * What the harness needs to run one node: where it is, where its logs and
 * its report go, and where its priors' outputs are.
 */
typedef struct _SkHarnessSpec SkHarnessSpec;

SkHarnessSpec  *sk_harness_spec_new            (const char          *workflow_folder,
                                                const char          *step_folder,
                                                const char          *key,
                                                guint64              log_limit);
void            sk_harness_spec_free           (SkHarnessSpec       *self);
void            sk_harness_spec_add_prior      (SkHarnessSpec       *self,
                                                const char          *key,
                                                SkHarnessPrior       source);

void            sk_harness_spec_set_member     (SkHarnessSpec       *self,
                                                const char          *name,
                                                JsonNode            *value);
void            sk_harness_spec_set_command    (SkHarnessSpec       *self,
                                                const char          *command);
const char     *sk_harness_spec_get_step_folder (SkHarnessSpec      *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkHarnessSpec, sk_harness_spec_free)

/* The isolated mode: one node in a Python process of its own. */
#define SK_TYPE_HARNESS_LAUNCH (sk_harness_launch_get_type ())

G_DECLARE_FINAL_TYPE (SkHarnessLaunch, sk_harness_launch, SK, HARNESS_LAUNCH, GObject)

SkHarnessLaunch *sk_harness_launch_spawn       (SkSandbox           *sandbox,
                                                const SkSandboxMounts *mounts,
                                                const char          *harness,
                                                SkHarnessSpec       *spec,
                                                GError             **error);
void            sk_harness_launch_wait_async   (SkHarnessLaunch     *self,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean        sk_harness_launch_wait_finish  (SkHarnessLaunch     *self,
                                                GAsyncResult        *result,
                                                GError             **error);
void            sk_harness_launch_kill         (SkHarnessLaunch     *self);
void            sk_harness_launch_set_output_func (SkHarnessLaunch  *self,
                                                SkProcessOutputFunc  func,
                                                gpointer             user_data,
                                                GDestroyNotify       destroy);
JsonObject     *sk_harness_launch_get_report   (SkHarnessLaunch     *self);
char           *sk_harness_launch_get_stderr_tail (SkHarnessLaunch  *self);
char           *sk_harness_launch_describe_end (SkHarnessLaunch     *self);

/* The isolated mode without an interpreter's start-up per node: one Python
 * forks a process for each. */
#define SK_TYPE_HARNESS_SERVER (sk_harness_server_get_type ())

G_DECLARE_FINAL_TYPE (SkHarnessServer, sk_harness_server, SK, HARNESS_SERVER, GObject)

SkHarnessServer *sk_harness_server_spawn       (SkSandbox           *sandbox,
                                                const SkSandboxMounts *mounts,
                                                const char          *harness,
                                                GError             **error);
void             sk_harness_server_stop        (SkHarnessServer     *self);
SkHarnessLaunch *sk_harness_launch_fork        (SkHarnessServer     *server,
                                                const SkSandboxMounts *mounts,
                                                SkHarnessSpec       *spec,
                                                GError             **error);

/* The in-memory mode: one Python worker runs the nodes one after another. */
#define SK_TYPE_HARNESS_WORKER (sk_harness_worker_get_type ())

G_DECLARE_FINAL_TYPE (SkHarnessWorker, sk_harness_worker, SK, HARNESS_WORKER, GObject)

/**
 * SkHarnessReplyFunc:
 * @worker: the worker
 * @reply: (nullable): the result of the node sent last, or %NULL when the
 *   worker's results ended because it stopped
 * @user_data: the data given to sk_harness_worker_spawn()
 *
 * Called on the main context for each result the worker reports.
 */
typedef void (*SkHarnessReplyFunc) (SkHarnessWorker *worker,
                                    JsonObject      *reply,
                                    gpointer         user_data);

SkHarnessWorker *sk_harness_worker_spawn       (SkSandbox           *sandbox,
                                                const SkSandboxMounts *mounts,
                                                const char          *harness,
                                                GFile               *workflow_folder,
                                                SkHarnessReplyFunc   reply_func,
                                                gpointer             user_data,
                                                GError             **error);
gboolean        sk_harness_worker_send         (SkHarnessWorker     *self,
                                                SkHarnessSpec       *spec,
                                                GError             **error);
void            sk_harness_worker_interrupt    (SkHarnessWorker     *self);
void            sk_harness_worker_kill         (SkHarnessWorker     *self);
void            sk_harness_worker_close_async  (SkHarnessWorker     *self,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean        sk_harness_worker_close_finish (SkHarnessWorker     *self,
                                                GAsyncResult        *result,
                                                GError             **error);

G_END_DECLS
