/* sk-preferences-window.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SK_TYPE_PREFERENCES_WINDOW (sk_preferences_window_get_type())

G_DECLARE_FINAL_TYPE (SkPreferencesWindow, sk_preferences_window, SK, PREFERENCES_WINDOW, AdwPreferencesWindow)

SkPreferencesWindow *sk_preferences_window_new             (GSettings           *settings);

/* For the tests. */
const char          *_sk_preferences_window_get_last_toast (SkPreferencesWindow *self);

G_END_DECLS
