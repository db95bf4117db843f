/* sk-settings.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/* The window and the command line read the same settings, so that a
 * workflow runs the same from both. */
#define SK_SETTINGS_SCHEMA_ID "io.github.skelecode.SkeleCode"

GSettings *sk_settings_open_installed (void);
gboolean   sk_settings_has_key        (GSettings  *settings,
                                       const char *key);

G_END_DECLS
