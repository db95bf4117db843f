/* sk-agent-key.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The coding agent's API keys, kept in the desktop keyring under the
 * server's dialect and address.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-llm.h"

G_BEGIN_DECLS

char    *sk_agent_key_normalize_url (SkLlmProvider         provider,
                                     const char           *base_url);
void     sk_agent_key_store_async   (SkLlmProvider         provider,
                                     const char           *base_url,
                                     const char           *api_key,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data);
gboolean sk_agent_key_store_finish  (GAsyncResult         *result,
                                     GError              **error);
void     sk_agent_key_lookup_async  (SkLlmProvider         provider,
                                     const char           *base_url,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data);
char    *sk_agent_key_lookup_finish (GAsyncResult         *result,
                                     GError              **error);
char    *sk_agent_key_lookup_sync   (SkLlmProvider         provider,
                                     const char           *base_url,
                                     GCancellable         *cancellable,
                                     GError              **error);
void     sk_agent_key_clear_async   (SkLlmProvider         provider,
                                     const char           *base_url,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data);
gboolean sk_agent_key_clear_finish  (GAsyncResult         *result,
                                     GError              **error);

G_END_DECLS
