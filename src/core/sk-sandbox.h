/* sk-sandbox.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sandbox that confines the coding agent's commands: bubblewrap, or
 * Flatpak's own from inside a Flatpak.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * SkSandboxKind:
 * @SK_SANDBOX_AUTO: the best sandbox available here, as sk_sandbox_probe()
 *   finds it
 * @SK_SANDBOX_BWRAP: bubblewrap
 * @SK_SANDBOX_FLATPAK: `flatpak-spawn --sandbox`, from inside a Flatpak
 * @SK_SANDBOX_NONE: no sandbox; commands run only when
 *   sk_agent_tools_set_allow_unsandboxed() allows it
 *
 * What confines the commands that the agent runs.
 */
typedef enum
{
  SK_SANDBOX_AUTO,
  SK_SANDBOX_BWRAP,
  SK_SANDBOX_FLATPAK,
  SK_SANDBOX_NONE,
} SkSandboxKind;

gboolean    sk_sandbox_probe             (SkSandboxKind   *kind,
                                          char           **reason);
gboolean    sk_sandbox_choose            (SkSandboxKind    wanted,
                                          gboolean         allow_unsandboxed,
                                          SkSandboxKind   *kind,
                                          const char     **program,
                                          GError         **error);
GPtrArray  *sk_sandbox_command_arguments (SkSandboxKind    kind,
                                          const char      *program,
                                          const char      *workflow_dir,
                                          const char      *node_dir,
                                          GPtrArray       *read_only_paths,
                                          gboolean         allow_network,
                                          const char      *command_line,
                                          char          ***env);

G_END_DECLS
