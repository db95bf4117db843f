/* sk-template.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SK_TEMPLATE_ERROR (sk_template_error_quark ())

/**
 * SkTemplateError:
 * @SK_TEMPLATE_ERROR_UNBALANCED: a section starts without an end, ends
 *   without a start, or crosses another section
 *
 * Why a template could not be rendered.
 */
typedef enum
{
  SK_TEMPLATE_ERROR_UNBALANCED,
} SkTemplateError;

GQuark   sk_template_error_quark (void);

char    *sk_template_render      (const char  *template_text,
                                  GHashTable  *values,
                                  GError     **error);
char   **sk_template_get_tags    (const char  *template_text,
                                  GError     **error);

G_END_DECLS
