/* sk-application.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SK_TYPE_APPLICATION (sk_application_get_type())

G_DECLARE_FINAL_TYPE (SkApplication, sk_application, SK, APPLICATION, AdwApplication)

SkApplication *sk_application_new          (void);
GSettings     *sk_application_get_settings (SkApplication *self);
GFile         *sk_application_dup_example  (SkApplication *self);

G_END_DECLS
