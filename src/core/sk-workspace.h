/* sk-workspace.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-history.h"
#include "sk-project.h"
#include "sk-runner.h"

G_BEGIN_DECLS

/* Lines of the coding agent's progress kept per step. */
#define SK_WORKSPACE_MAX_AGENT_LINES 200

#define SK_WORKSPACE_ERROR (sk_workspace_error_quark ())

/**
 * SkWorkspaceError:
 * @SK_WORKSPACE_ERROR_BUSY: a run is under way
 * @SK_WORKSPACE_ERROR_SAVE: the workflow could not be saved
 * @SK_WORKSPACE_ERROR_FOLDER: a folder cannot take the workflow
 */
typedef enum
{
  SK_WORKSPACE_ERROR_BUSY,
  SK_WORKSPACE_ERROR_SAVE,
  SK_WORKSPACE_ERROR_FOLDER,
} SkWorkspaceError;

/**
 * SkRunOptions:
 * @jobs: steps at once; negative for the settings' value
 * @timeout: seconds per step, 0 for none; negative for the settings' value
 * @python: (nullable): the interpreter; %NULL for the settings' choice
 * @provider: (nullable): the coding agent's server kind, over the settings
 * @base_url: (nullable): the coding agent's server, over the settings
 * @model: (nullable): the coding agent's model, over the settings
 * @force: run steps that are up to date again
 * @in_memory: run every step in one Python process
 * @no_agent: never call the coding agent
 * @strict: a coding agent that is set up wrongly stops the run, rather than
 *   letting it go on without the agent with a #SkWorkspace::message
 * @sandbox: an #SkSandboxPolicy for the steps; negative for the one that
 *   `SKELE_SANDBOX` or the settings give
 * @approve: (nullable): keys of approval gates to approve when the run
 *   reaches them, as `skele run --approve` does
 *
 * What a caller asks of one run beyond the settings the window and the
 * command line share. sk_run_options_init() sets every field to "as the
 * settings say".
 */
typedef struct
{
  int          jobs;
  double       timeout;
  const char  *python;
  const char  *provider;
  const char  *base_url;
  const char  *model;
  gboolean     force;
  gboolean     in_memory;
  gboolean     no_agent;
  gboolean     strict;
  int          sandbox;
  const char * const *approve;
} SkRunOptions;

/**
 * SkRunReport:
 * @stats: what the runner did
 * @missing_before: steps asked for that had no script when the run started
 * @missing_after: those that still have none
 * @had_agent: whether a coding agent took part
 * @generated: whether the run only wrote code
 *
 * What a run did, for the caller to tell the user.
 */
typedef struct
{
  SkRunStats  stats;
  guint       missing_before;
  guint       missing_after;
  gboolean    had_agent;
  gboolean    generated;
} SkRunReport;

#define SK_TYPE_WORKSPACE (sk_workspace_get_type ())

G_DECLARE_FINAL_TYPE (SkWorkspace, sk_workspace, SK, WORKSPACE, GObject)

GQuark       sk_workspace_error_quark        (void);
void         sk_run_options_init             (SkRunOptions         *options);

SkWorkspace *sk_workspace_new                (SkProject            *project,
                                              GSettings            *settings);
SkWorkspace *sk_workspace_create             (GFile                *folder,
                                              GSettings            *settings,
                                              GError              **error);
SkWorkspace *sk_workspace_load               (GFile                *folder,
                                              GSettings            *settings,
                                              GError              **error);
void         sk_workspace_load_async         (GFile                *folder,
                                              GSettings            *settings,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
SkWorkspace *sk_workspace_load_finish        (GAsyncResult         *result,
                                              GError              **error);
void         sk_workspace_close              (SkWorkspace          *self);

SkProject   *sk_workspace_get_project        (SkWorkspace          *self);
SkHistory   *sk_workspace_get_history        (SkWorkspace          *self);
SkRunner    *sk_workspace_get_runner         (SkWorkspace          *self);
void         sk_workspace_set_follow_output  (SkWorkspace          *self,
                                              gboolean              follow);
GFile       *sk_workspace_get_folder         (SkWorkspace          *self);
GSettings   *sk_workspace_get_settings       (SkWorkspace          *self);

gboolean     sk_workspace_save               (SkWorkspace          *self,
                                              GError              **error);
gboolean     sk_workspace_save_as            (SkWorkspace          *self,
                                              GFile                *folder,
                                              GError              **error);

gboolean     sk_workspace_get_autosave       (SkWorkspace          *self);
void         sk_workspace_set_autosave       (SkWorkspace          *self,
                                              gboolean              autosave);
guint        sk_workspace_get_autosave_delay (SkWorkspace          *self);
void         sk_workspace_set_autosave_delay (SkWorkspace          *self,
                                              guint                 milliseconds);
char        *sk_workspace_take_recovery      (SkWorkspace          *self);
gboolean     sk_workspace_recover            (SkWorkspace          *self,
                                              const char           *data,
                                              GError              **error);
void         sk_workspace_discard_recovery   (SkWorkspace          *self);

GPtrArray   *sk_workspace_get_agent_log      (SkWorkspace          *self,
                                              SkNode               *node);

gboolean     sk_workspace_get_running        (SkWorkspace          *self);
gboolean     sk_workspace_get_generating     (SkWorkspace          *self);
GPtrArray   *sk_workspace_get_run_nodes      (SkWorkspace          *self);
void         sk_workspace_restore_states     (SkWorkspace          *self);
char        *sk_workspace_find_python        (SkWorkspace          *self);
gboolean     sk_workspace_check_agent        (SkWorkspace          *self,
                                              const SkRunOptions   *options,
                                              GError              **error);
guint        sk_workspace_count_missing_scripts (SkWorkspace       *self,
                                              GPtrArray            *nodes);
GPtrArray   *sk_workspace_get_nodes_without_code (SkWorkspace      *self);
void         sk_workspace_run_async          (SkWorkspace          *self,
                                              GPtrArray            *nodes,
                                              const SkRunOptions   *options,
                                              gboolean              generate,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
gboolean     sk_workspace_run_finish         (SkWorkspace          *self,
                                              GAsyncResult         *result,
                                              SkRunReport          *report,
                                              GError              **error);
void         sk_workspace_stop               (SkWorkspace          *self);

G_END_DECLS
