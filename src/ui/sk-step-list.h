/* sk-step-list.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_STEP_LIST (sk_step_list_get_type ())

G_DECLARE_FINAL_TYPE (SkStepList, sk_step_list, SK, STEP_LIST, GtkWidget)

GtkWidget         *sk_step_list_new            (void);
SkProject         *sk_step_list_get_project    (SkStepList        *self);
void               sk_step_list_set_project    (SkStepList        *self,
                                                SkProject         *project);
GtkSelectionModel *sk_step_list_get_selection  (SkStepList        *self);
void               sk_step_list_set_selection  (SkStepList        *self,
                                                GtkSelectionModel *selection);
gboolean           sk_step_list_has_focus      (SkStepList        *self);

G_END_DECLS
