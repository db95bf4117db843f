/* sk-llm-client.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-llm.h"

G_BEGIN_DECLS

#define SK_TYPE_LLM_CLIENT (sk_llm_client_get_type())

G_DECLARE_FINAL_TYPE (SkLlmClient, sk_llm_client, SK, LLM_CLIENT, GObject)

SkLlmClient   *sk_llm_client_new                (SkLlmProvider         provider,
                                                 const char           *base_url,
                                                 const char           *model,
                                                 const char           *api_key);
SkLlmProvider  sk_llm_client_get_provider       (SkLlmClient          *self);
const char    *sk_llm_client_get_base_url       (SkLlmClient          *self);
const char    *sk_llm_client_get_model          (SkLlmClient          *self);
double         sk_llm_client_get_idle_timeout   (SkLlmClient          *self);
void           sk_llm_client_set_idle_timeout   (SkLlmClient          *self,
                                                 double                seconds);
double         sk_llm_client_get_reply_timeout  (SkLlmClient          *self);
void           sk_llm_client_set_reply_timeout  (SkLlmClient          *self,
                                                 double                seconds);
guint          sk_llm_client_get_max_retries    (SkLlmClient          *self);
void           sk_llm_client_set_max_retries    (SkLlmClient          *self,
                                                 guint                 max_retries);
guint          sk_llm_client_get_max_tokens     (SkLlmClient          *self);
void           sk_llm_client_set_max_tokens     (SkLlmClient          *self,
                                                 guint                 max_tokens);

void           sk_llm_client_chat_async         (SkLlmClient          *self,
                                                 const char           *system,
                                                 GPtrArray            *messages,
                                                 GPtrArray            *tools,
                                                 SkLlmEventFunc        event_func,
                                                 gpointer              event_data,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
SkLlmResponse *sk_llm_client_chat_finish        (SkLlmClient          *self,
                                                 GAsyncResult         *result,
                                                 SkLlmResponse       **partial,
                                                 GError              **error);

void           sk_llm_client_list_models_async  (SkLlmClient          *self,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
char         **sk_llm_client_list_models_finish (SkLlmClient          *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);

G_END_DECLS
