/* sk-runner.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-agent-settings.h"
#include "sk-llm-client.h"
#include "sk-project.h"
#include "sk-sandbox.h"

G_BEGIN_DECLS

#define SK_RUNNER_ERROR (sk_runner_error_quark ())

typedef enum
{
  SK_RUNNER_ERROR_NO_PYTHON,
  SK_RUNNER_ERROR_WORKER,
  SK_RUNNER_ERROR_NO_SANDBOX,
} SkRunnerError;

/**
 * SkRunStats:
 * @succeeded: nodes whose script succeeded
 * @failed: nodes that failed
 * @skipped: nodes whose preprocess() declined to run
 * @up_to_date: nodes that did not need to run again
 * @cancelled: nodes that were stopped or never started
 * @seconds: the run's wall-clock time
 * @no_code: nodes that have no code yet and no coding agent to write it
 * @waiting: nodes that were not run because a node they need, directly or
 *   through others, has no code yet; they are shown as skipped
 * @awaiting_approval: approval gates the run stopped before (DESIGN §10)
 * @held: nodes that were not run because they need, directly or through
 *   others, a gate that waits for approval; they are shown as skipped
 *
 * What a run did, counted over the nodes that were asked to run. Each node
 * is counted once.
 */
typedef struct
{
  guint  succeeded;
  guint  failed;
  guint  skipped;
  guint  up_to_date;
  guint  cancelled;
  double seconds;
  guint  no_code;
  guint  waiting;
  guint  awaiting_approval;
  guint  held;
} SkRunStats;

#define SK_TYPE_RUNNER (sk_runner_get_type())

G_DECLARE_FINAL_TYPE (SkRunner, sk_runner, SK, RUNNER, GObject)

GQuark      sk_runner_error_quark     (void);

SkRunner   *sk_runner_new             (void);
guint       sk_runner_get_jobs        (SkRunner             *self);
void        sk_runner_set_jobs        (SkRunner             *self,
                                       guint                 jobs);
double      sk_runner_get_timeout     (SkRunner             *self);
void        sk_runner_set_timeout     (SkRunner             *self,
                                       double                seconds);
gboolean    sk_runner_get_fork_server (SkRunner             *self);
void        sk_runner_set_fork_server (SkRunner             *self,
                                       gboolean              fork_server);
gboolean    sk_runner_get_in_memory   (SkRunner             *self);
void        sk_runner_set_in_memory   (SkRunner             *self,
                                       gboolean              in_memory);
gboolean    sk_runner_get_force       (SkRunner             *self);
void        sk_runner_set_force       (SkRunner             *self,
                                       gboolean              force);
const char *sk_runner_get_python      (SkRunner             *self);
void        sk_runner_set_python      (SkRunner             *self,
                                       const char           *python);
SkSandboxPolicy sk_runner_get_sandbox_policy (SkRunner       *self);
void        sk_runner_set_sandbox_policy (SkRunner          *self,
                                          SkSandboxPolicy    policy);
guint64     sk_runner_get_log_limit   (SkRunner             *self);
void        sk_runner_set_log_limit   (SkRunner             *self,
                                       guint64               bytes);

const char * const *sk_runner_get_approve (SkRunner         *self);
void        sk_runner_set_approve     (SkRunner             *self,
                                       const char * const   *keys);

void        sk_runner_set_agent       (SkRunner             *self,
                                       SkLlmClient          *agent);
SkLlmClient *sk_runner_get_agent      (SkRunner             *self);
gboolean    sk_runner_set_agent_settings (SkRunner              *self,
                                          const SkAgentSettings *settings,
                                          GError               **error);
void        sk_runner_set_agent_options (SkRunner           *self,
                                       guint                 repair_attempts,
                                       guint                 max_steps,
                                       gboolean              require_sandbox,
                                       gboolean              review_commands,
                                       gboolean              allow_network);

gboolean    sk_runner_script_has_code (GFile                *script);
gboolean    sk_runner_script_path_has_code (const char       *path);

char       *sk_runner_fingerprint     (SkRunner             *self,
                                       SkProject            *project,
                                       SkNode               *node);

void        sk_runner_run_async       (SkRunner             *self,
                                       SkProject            *project,
                                       GPtrArray            *nodes,
                                       GCancellable         *cancellable,
                                       GAsyncReadyCallback   callback,
                                       gpointer              user_data);
void        sk_runner_generate_async  (SkRunner             *self,
                                       SkProject            *project,
                                       GPtrArray            *nodes,
                                       GCancellable         *cancellable,
                                       GAsyncReadyCallback   callback,
                                       gpointer              user_data);
gboolean    sk_runner_run_finish      (SkRunner             *self,
                                       GAsyncResult         *result,
                                       SkRunStats           *stats,
                                       GError              **error);

G_END_DECLS
