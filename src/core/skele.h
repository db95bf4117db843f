/* skele.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* The core's public API in one header, for the window and the command line.
 * Its headers are listed in core_headers in src/core/meson.build. */

#include <glib.h>

G_BEGIN_DECLS

#define SKELE_INSIDE
# include "sk-types.h"
# include "sk-agent-context.h"
# include "sk-agent-key.h"
# include "sk-agent-settings.h"
# include "sk-agent-text-calls.h"
# include "sk-agent-tools.h"
# include "sk-agent.h"
# include "sk-changeset.h"
# include "sk-chat-agent.h"
# include "sk-chat-context.h"
# include "sk-chat-log.h"
# include "sk-chat-session.h"
# include "sk-control-flow.h"
# include "sk-export.h"
# include "sk-history.h"
# include "sk-json.h"
# include "sk-layout.h"
# include "sk-llm-client.h"
# include "sk-llm.h"
# include "sk-node.h"
# include "sk-process.h"
# include "sk-project.h"
# include "sk-prompt-template.h"
# include "sk-prompts.h"
# include "sk-runner.h"
# include "sk-sandbox.h"
# include "sk-script-file.h"
# include "sk-settings.h"
# include "sk-step-folder.h"
# include "sk-subworkflow.h"
# include "sk-util.h"
# include "sk-workspace.h"
#undef SKELE_INSIDE

G_END_DECLS
