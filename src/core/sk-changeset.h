/* sk-changeset.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <glib-object.h>

#include "sk-history.h"
#include "sk-project.h"

G_BEGIN_DECLS

/**
 * SkChangeKind:
 * @SK_CHANGE_ADDED: a step was added
 * @SK_CHANGE_REMOVED: a step was removed
 * @SK_CHANGE_RENAMED: a step was renamed
 * @SK_CHANGE_TASK_CHANGED: a step's task changed, so its code will be rewritten
 * @SK_CHANGE_DESCRIPTION_CHANGED: a step's description changed
 * @SK_CHANGE_CONNECTED: a step now needs the results of another
 * @SK_CHANGE_DISCONNECTED: a step no longer needs the results of another
 * @SK_CHANGE_RUN_CHANGED: whether a step runs changed
 * @SK_CHANGE_PROCESS_CHANGED: the workflow's name or description changed
 */
typedef enum
{
  SK_CHANGE_ADDED,
  SK_CHANGE_REMOVED,
  SK_CHANGE_RENAMED,
  SK_CHANGE_TASK_CHANGED,
  SK_CHANGE_DESCRIPTION_CHANGED,
  SK_CHANGE_CONNECTED,
  SK_CHANGE_DISCONNECTED,
  SK_CHANGE_RUN_CHANGED,
  SK_CHANGE_PROCESS_CHANGED,
} SkChangeKind;

/**
 * SkChange:
 * @kind: what changed
 * @step_id: (nullable): the identifier of the step that changed; for a
 *   connection, the step that needs the other; %NULL for a change of the
 *   workflow itself
 * @other_id: (nullable): for a connection, the identifier of the prior
 * @name: (nullable): the step's name (as proposed, or as it was for a
 *   removed step); for %SK_CHANGE_PROCESS_CHANGED, the member that changed,
 *   "name" or "description"
 * @other_name: (nullable): for a connection, the prior's name
 * @old_text: (nullable): the text before the change: the old name, task,
 *   description, or "true" or "false" for %SK_CHANGE_RUN_CHANGED
 * @new_text: (nullable): the text after the change
 *
 * One change of a #SkChangeset, from the difference between the workflow
 * as it was when the changeset was made and the changeset's copy of it.
 */
typedef struct
{
  SkChangeKind  kind;
  char         *step_id;
  char         *other_id;
  char         *name;
  char         *other_name;
  char         *old_text;
  char         *new_text;
} SkChange;

#define SK_TYPE_CHANGE (sk_change_get_type ())
#define SK_TYPE_CHANGESET (sk_changeset_get_type())

GType        sk_change_get_type       (void) G_GNUC_CONST;
SkChange    *sk_change_copy           (const SkChange *change);
void         sk_change_free           (SkChange       *change);
char        *sk_change_describe       (const SkChange *change);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkChange, sk_change_free)

G_DECLARE_FINAL_TYPE (SkChangeset, sk_changeset, SK, CHANGESET, GObject)

SkChangeset *sk_changeset_new                (SkProject          *project);
SkProject   *sk_changeset_get_project        (SkChangeset        *self);
SkProject   *sk_changeset_get_scratch        (SkChangeset        *self);
SkNode      *sk_changeset_resolve_step       (SkChangeset        *self,
                                              const char         *step,
                                              GError            **error);

gboolean     sk_changeset_add_step           (SkChangeset        *self,
                                              const char         *name,
                                              const char         *task,
                                              const char         *description,
                                              const char * const *priors,
                                              char              **out_id,
                                              GError            **error);
gboolean     sk_changeset_remove_step        (SkChangeset        *self,
                                              const char         *step,
                                              GError            **error);
gboolean     sk_changeset_rename_step        (SkChangeset        *self,
                                              const char         *step,
                                              const char         *name,
                                              GError            **error);
gboolean     sk_changeset_set_task           (SkChangeset        *self,
                                              const char         *step,
                                              const char         *text,
                                              GError            **error);
gboolean     sk_changeset_set_description    (SkChangeset        *self,
                                              const char         *step,
                                              const char         *text,
                                              GError            **error);
gboolean     sk_changeset_connect            (SkChangeset        *self,
                                              const char         *from,
                                              const char         *to,
                                              GError            **error);
gboolean     sk_changeset_disconnect         (SkChangeset        *self,
                                              const char         *from,
                                              const char         *to,
                                              GError            **error);
gboolean     sk_changeset_set_run            (SkChangeset        *self,
                                              const char         *step,
                                              gboolean            run,
                                              GError            **error);
gboolean     sk_changeset_set_process        (SkChangeset        *self,
                                              const char         *name,
                                              const char         *description,
                                              GError            **error);

gboolean     sk_changeset_is_empty           (SkChangeset        *self);
GPtrArray   *sk_changeset_get_changes        (SkChangeset        *self);
char        *sk_changeset_describe           (SkChangeset        *self);

void         sk_changeset_set_step_accepted  (SkChangeset        *self,
                                              const char         *id,
                                              gboolean            accepted);
gboolean     sk_changeset_get_step_accepted  (SkChangeset        *self,
                                              const char         *id);

gboolean     sk_changeset_apply              (SkChangeset        *self,
                                              SkHistory          *history,
                                              GError            **error);

G_END_DECLS
