/* sk-prompt-template.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

#define SK_PROMPT_TEMPLATE_ERROR (sk_prompt_template_error_quark ())

/**
 * SkPromptTemplateError:
 * @SK_PROMPT_TEMPLATE_ERROR_UNBALANCED: a section starts without an end, ends
 *   without a start, or crosses another section
 *
 * Why a template could not be rendered.
 */
typedef enum
{
  SK_PROMPT_TEMPLATE_ERROR_UNBALANCED,
} SkPromptTemplateError;

GQuark sk_prompt_template_error_quark (void);

char  *sk_prompt_template_render      (const char  *template_text,
                                       GHashTable  *values,
                                       GError     **error);
char **sk_prompt_template_get_tags    (const char  *template_text,
                                       GError     **error);

G_END_DECLS
