/* sk-sandbox.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sandbox that confines the coding agent's commands and the steps the
 * runner starts: bubblewrap, or Flatpak's own from inside a Flatpak.
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
void        sk_sandbox_probe_in_background (void);
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

/**
 * SkSandboxPolicy:
 * @SK_SANDBOX_POLICY_REQUIRED: steps run only in a sandbox; without one,
 *   the run is refused
 * @SK_SANDBOX_POLICY_WHEN_AVAILABLE: steps run in a sandbox where there is
 *   one, and without one, with a warning, where there is none
 * @SK_SANDBOX_POLICY_OFF: steps run without a sandbox
 *
 * Whether the runner confines the steps it runs.
 */
typedef enum
{
  SK_SANDBOX_POLICY_REQUIRED,
  SK_SANDBOX_POLICY_WHEN_AVAILABLE,
  SK_SANDBOX_POLICY_OFF,
} SkSandboxPolicy;

gboolean    sk_sandbox_policy_from_string (const char       *text,
                                           SkSandboxPolicy  *policy);
const char *sk_sandbox_policy_to_string   (SkSandboxPolicy   policy);

/**
 * SkSandboxMounts:
 * @workflow_dir: the workflow's folder, visible read-only
 * @writable: (element-type filename) (nullable): folders inside it that
 *   may be changed
 * @read_only: (element-type filename) (nullable): more files and folders
 *   to make visible read-only, at the same paths as outside
 * @cwd: the folder the program starts in
 * @network: whether the program may use the network
 * @forward_fd: a file descriptor above 2 that the program inherits, or 0
 *
 * What a program in the sandbox sees of the user's files.
 */
typedef struct
{
  const char *workflow_dir;
  GPtrArray  *writable;
  GPtrArray  *read_only;
  const char *cwd;
  gboolean    network;
  int         forward_fd;
  gboolean    nested_namespaces;
} SkSandboxMounts;

GPtrArray  *sk_sandbox_wrap              (SkSandboxKind           kind,
                                          const char             *program,
                                          const SkSandboxMounts  *mounts,
                                          const char * const     *extra_env,
                                          const char * const     *argv,
                                          char                 ***env);

#define SK_TYPE_SANDBOX (sk_sandbox_get_type ())

/**
 * SkSandbox:
 *
 * The sandbox that the runner starts a run's steps in, with what the
 * run's interpreter needs to be visible inside it.
 */
typedef struct _SkSandbox SkSandbox;

GType            sk_sandbox_get_type           (void) G_GNUC_CONST;
SkSandbox       *sk_sandbox_new_for_steps      (SkSandboxPolicy   policy,
                                                const char       *python,
                                                char            **warning,
                                                GError          **error);
SkSandbox       *sk_sandbox_ref                (SkSandbox        *self);
void             sk_sandbox_unref              (SkSandbox        *self);
gboolean         sk_sandbox_is_confined        (SkSandbox        *self);
SkSandboxKind    sk_sandbox_get_kind           (SkSandbox        *self);
const char      *sk_sandbox_get_python         (SkSandbox        *self);
void             sk_sandbox_add_python_paths   (SkSandbox        *self,
                                                GPtrArray        *read_only);
GPtrArray       *sk_sandbox_wrap_python        (SkSandbox        *self,
                                                const SkSandboxMounts *mounts,
                                                const char * const *argv,
                                                char           ***env);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkSandbox, sk_sandbox_unref)

gboolean         sk_sandbox_is_prepared        (const char          *python);
void             sk_sandbox_prepare_async      (const char          *python,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean         sk_sandbox_prepare_finish     (GAsyncResult        *result,
                                                GError             **error);

G_END_DECLS
