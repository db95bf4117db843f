/* sk-properties-dialog.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_PROPERTIES_DIALOG (sk_properties_dialog_get_type())

G_DECLARE_FINAL_TYPE (SkPropertiesDialog, sk_properties_dialog, SK, PROPERTIES_DIALOG, AdwWindow)

SkPropertiesDialog *sk_properties_dialog_new   (SkProject           *project,
                                                SkNode              *node,
                                                SkHistory           *history);
gboolean            sk_properties_dialog_apply (SkPropertiesDialog  *self,
                                                GError             **error);

G_END_DECLS
