/* sk-workspace-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-workspace.h"

G_BEGIN_DECLS

struct _SkWorkspace
{
  GObject       parent_instance;

  SkProject    *project;
  SkHistory    *history;
  SkRunner     *runner;
  GSettings    *settings;

  /* Each step's key as last seen, so that a rename knows the old one. */
  GHashTable   *keys;
  /* SkNode → GPtrArray of the coding agent's progress lines. */
  GHashTable   *agent_logs;
  /* The steps whose log ends with a passing line, which the next one
   * replaces. */
  GHashTable   *agent_transient;
  /* What the runner has told once already, such as a missing sandbox. */
  GHashTable   *notices;

  GTask        *run_task;
  GCancellable *run_cancellable;
  GCancellable *caller_cancellable;
  gulong        caller_cancelled_id;

  guint         autosave_delay;
  guint         recovery_id;

  guint         autosave : 1;
  guint         closed : 1;
};

void _sk_workspace_emit_message     (SkWorkspace *self,
                                     const char  *message,
                                     gboolean     about_agent);
void _sk_workspace_clear_agent_logs (SkWorkspace *self,
                                     GPtrArray   *nodes);
void _sk_workspace_notify_running   (SkWorkspace *self);
void _sk_workspace_emit_run_started (SkWorkspace *self,
                                     const char  *agent);

G_END_DECLS
