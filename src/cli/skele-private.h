/* skele-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the command line's files share: exit statuses, the agent options
 * and opening a workflow with its errors printed.
 */

#pragma once

#include "skele.h"

G_BEGIN_DECLS

#define EXIT_NODE_FAILED 1
#define EXIT_MODEL_FAILED 1
#define EXIT_INVALID 2
#define EXIT_AT_GATE 3
#define EXIT_INTERRUPTED 130

/* The server and model of the coding agent, which the chat agent uses too,
 * as every command that asks a model takes them. */
typedef struct
{
  char *provider;
  char *base_url;
  char *model;
} AgentOptions;

void         skele_agent_options_clear    (AgentOptions    *agent);
void         skele_print_problem          (const SkProblem *problem);
SkWorkspace *skele_load_checked_workspace (const char      *path,
                                           const char      *refusal);

/* skele-chat.c */
int          skele_command_chat           (int              argc,
                                           char           **argv);
int          skele_command_draft          (int              argc,
                                           char           **argv);

/* skele-export.c */
int          skele_command_export         (int              argc,
                                           char           **argv);
int          skele_command_import         (int              argc,
                                           char           **argv);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AgentOptions, skele_agent_options_clear)

G_END_DECLS
