/* sk-agent-tools.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The coding agent's tools: reading and writing files inside the workflow,
 * and running commands in a sandbox, confined to one step's folder.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-agent-text-calls.h"
#include "sk-llm.h"
#include "sk-sandbox.h"

G_BEGIN_DECLS

#define SK_AGENT_TOOLS_ERROR (sk_agent_tools_error_quark ())

/**
 * SkAgentToolsError:
 * @SK_AGENT_TOOLS_ERROR_OUTSIDE: a path leads outside the folders the agent
 *   may use
 * @SK_AGENT_TOOLS_ERROR_NOT_FOUND: a folder does not exist
 * @SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS: a path or a text tool call is
 *   malformed
 * @SK_AGENT_TOOLS_ERROR_UNKNOWN_TOOL: the tool is not run here
 * @SK_AGENT_TOOLS_ERROR_NO_SANDBOX: a command was refused because no sandbox
 *   is available and running without one is not allowed
 * @SK_AGENT_TOOLS_ERROR_FAILED: something else went wrong
 */
typedef enum
{
  SK_AGENT_TOOLS_ERROR_OUTSIDE,
  SK_AGENT_TOOLS_ERROR_NOT_FOUND,
  SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
  SK_AGENT_TOOLS_ERROR_UNKNOWN_TOOL,
  SK_AGENT_TOOLS_ERROR_NO_SANDBOX,
  SK_AGENT_TOOLS_ERROR_FAILED,
} SkAgentToolsError;

/* The tools' names, as the model calls them. */
#define SK_AGENT_TOOL_LIST_DIR      "list_dir"
#define SK_AGENT_TOOL_READ_FILE     "read_file"
#define SK_AGENT_TOOL_WRITE_FILE    "write_file"
#define SK_AGENT_TOOL_DELETE_FILE   "delete_file"
#define SK_AGENT_TOOL_RUN_COMMAND   "run_command"
#define SK_AGENT_TOOL_TASK_COMPLETE "task_complete"

#define SK_TYPE_AGENT_TOOLS (sk_agent_tools_get_type ())

G_DECLARE_FINAL_TYPE (SkAgentTools, sk_agent_tools, SK, AGENT_TOOLS, GObject)

GQuark        sk_agent_tools_error_quark            (void);

SkAgentTools *sk_agent_tools_new                    (const char           *workflow_dir,
                                                     const char           *node_dir,
                                                     GError              **error);

const char   *sk_agent_tools_get_workflow_dir       (SkAgentTools         *self);
const char   *sk_agent_tools_get_node_dir           (SkAgentTools         *self);

void          sk_agent_tools_set_sandbox            (SkAgentTools         *self,
                                                     SkSandboxKind         kind);
SkSandboxKind sk_agent_tools_get_sandbox            (SkAgentTools         *self);
void          sk_agent_tools_set_allow_unsandboxed  (SkAgentTools         *self,
                                                     gboolean              allow);
void          sk_agent_tools_set_allow_network      (SkAgentTools         *self,
                                                     gboolean              allow);
void          sk_agent_tools_set_command_timeout    (SkAgentTools         *self,
                                                     double                seconds);
void          sk_agent_tools_set_output_limit       (SkAgentTools         *self,
                                                     gsize                 bytes);
void          sk_agent_tools_add_read_only_path     (SkAgentTools         *self,
                                                     const char           *path);

char         *sk_agent_tools_resolve_path           (SkAgentTools         *self,
                                                     const char           *path,
                                                     gboolean              for_write,
                                                     GError              **error);

GPtrArray    *sk_agent_tools_get_definitions        (void);
char         *sk_agent_tools_describe_call          (const SkLlmToolCall  *call);

void          sk_agent_tools_call_async             (SkAgentTools         *self,
                                                     const SkLlmToolCall  *call,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
char         *sk_agent_tools_call_finish            (SkAgentTools         *self,
                                                     GAsyncResult         *result,
                                                     gboolean             *is_error,
                                                     GError              **error);

G_END_DECLS
