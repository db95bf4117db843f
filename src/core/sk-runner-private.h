/* sk-runner-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-runner.h"
#include "sk-sandbox.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

struct _SkRunner
{
  GObject  parent_instance;

  char    *python;
  double   timeout;
  guint64  log_limit;
  guint    jobs;

  SkLlmClient *agent;
  SkSettingSource model_source;
  guint    repair_attempts;
  guint    agent_max_steps;
  guint    require_sandbox : 1;
  guint    review_commands : 1;
  guint    allow_network : 1;

  SkSandboxPolicy sandbox_policy;
  GStrv    approve;

  /* Of the runner of a sub-workflow: what its first steps receive as
   * prior_outputs["inputs"], what that depends on, and the folders of the
   * parent's steps it is read from. */
  JsonArray *inputs;
  char    *inputs_fingerprint;
  GStrv    input_reads;

  guint    in_memory : 1;
  guint    force : 1;
  guint    fork_server : 1;
};

/* sk-runner.c */
char *_sk_runner_find_python             (SkRunner      *self,
                                          SkProject     *project,
                                          GError       **error);
void  _sk_runner_emit_node_state_changed (SkRunner      *self,
                                          SkNode        *node,
                                          SkNodeState    state);
void  _sk_runner_emit_agent_progress     (SkRunner      *self,
                                          SkNode        *node,
                                          const char    *message);
void  _sk_runner_emit_notice             (SkRunner      *self,
                                          const char    *message);
void  _sk_runner_emit_processes          (SkRunner      *self,
                                          const char    *mode,
                                          const char    *reason);
gboolean _sk_runner_follows_output      (SkRunner      *self);
void  _sk_runner_emit_step_output        (SkRunner      *self,
                                          const char    *key,
                                          const char    *text);
void  _sk_runner_emit_agent_transient    (SkRunner      *self,
                                          SkNode        *node,
                                          const char    *message);

void  _sk_runner_set_inputs              (SkRunner      *self,
                                          JsonArray     *inputs,
                                          const char    *fingerprint,
                                          GStrv          reads);

/* sk-runner-run.c */
void  _sk_runner_run_start               (SkRunner      *self,
                                          SkProject     *project,
                                          GPtrArray     *nodes,
                                          gboolean       generate_only,
                                          GCancellable  *cancellable,
                                          GTask         *task);
void  _sk_runner_run_get_stats           (GTask         *task,
                                          SkRunStats    *stats);

G_END_DECLS
