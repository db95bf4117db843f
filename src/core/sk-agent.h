/* sk-agent.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-agent-tools.h"
#include "sk-agent-context.h"
#include "sk-llm-client.h"
#include "sk-project.h"

G_BEGIN_DECLS

#define SK_AGENT_ERROR (sk_agent_error_quark ())

/**
 * SkAgentError:
 * @SK_AGENT_ERROR_BUDGET: the agent used all its replies without finishing
 * @SK_AGENT_ERROR_NO_KEY: the step has no key, so it has no folder
 * @SK_AGENT_ERROR_PROMPT: a prompt template could not be used
 * @SK_AGENT_ERROR_NO_TASK: the step has no task to write code from
 *
 * Why the coding agent stopped without finishing.
 */
typedef enum
{
  SK_AGENT_ERROR_BUDGET,
  SK_AGENT_ERROR_NO_KEY,
  SK_AGENT_ERROR_PROMPT,
  SK_AGENT_ERROR_NO_TASK,
} SkAgentError;

#define SK_AGENT_DEFAULT_MAX_STEPS 30

#define SK_TYPE_AGENT (sk_agent_get_type())

G_DECLARE_FINAL_TYPE (SkAgent, sk_agent, SK, AGENT, GObject)

GQuark       sk_agent_error_quark         (void);

SkAgent     *sk_agent_new                 (SkLlmClient          *client,
                                           SkProject            *project,
                                           SkNode               *node);
SkNode      *sk_agent_get_node            (SkAgent              *self);
void         sk_agent_set_max_steps       (SkAgent              *self,
                                           guint                 max_steps);
void         sk_agent_set_python          (SkAgent              *self,
                                           const char           *python);
void         sk_agent_set_scope           (SkAgent              *self,
                                           SkAgentContextScope        scope);
void         sk_agent_set_sandbox         (SkAgent              *self,
                                           SkSandboxKind         kind,
                                           gboolean              allow_unsandboxed,
                                           gboolean              allow_network);
void         sk_agent_set_reviewer        (SkAgent              *self,
                                           SkLlmClient          *reviewer);
void         sk_agent_set_text_tools      (SkAgent              *self,
                                           gboolean              text_tools);
void         sk_agent_set_failure         (SkAgent              *self,
                                           const char           *error_text,
                                           const char           *traceback,
                                           const char           *stderr_tail,
                                           guint                 attempt,
                                           guint                 max_attempts);

guint        sk_agent_get_steps           (SkAgent              *self);
void         sk_agent_get_usage           (SkAgent              *self,
                                           guint64              *prompt_tokens,
                                           guint64              *completion_tokens);

void         sk_agent_run_async           (SkAgent              *self,
                                           GCancellable         *cancellable,
                                           GAsyncReadyCallback   callback,
                                           gpointer              user_data);
char        *sk_agent_run_finish          (SkAgent              *self,
                                           GAsyncResult         *result,
                                           GError              **error);

G_END_DECLS
