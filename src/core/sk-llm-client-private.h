/* sk-llm-client-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What sk-llm-client.c (the object, exchanges and chat),
 * sk-llm-client-errors.c (HTTP errors and the retry policy) and
 * sk-llm-client-models.c (listing models) share.
 */

#pragma once

#include <libsoup/soup.h>

#include "sk-llm-client.h"

G_BEGIN_DECLS

#define SK_LLM_CLIENT_READ_SIZE (64 * 1024)

struct _SkLlmClient
{
  GObject        parent_instance;

  SkLlmProvider  provider;
  char          *base_url;
  char          *model;
  char          *api_key;
  double         idle_timeout;
  double         reply_timeout;
  guint          max_retries;
  guint          max_tokens;

  SoupSession   *session;
};

/* One HTTP exchange: the request, the watchdogs and the body read so far. */
typedef struct
{
  SkLlmClient   *client;
  SoupMessage   *message;
  GCancellable  *cancellable;
  gulong         cancelled_id;
  GCancellable  *user_cancellable;
  GSource       *idle_source;
  GSource       *deadline_source;
  gboolean       timed_out;
  gboolean       deadline_passed;
  GInputStream  *input;
  GByteArray    *body;
} SkLlmExchange;

typedef void (*SkLlmBodyReadyFunc) (GTask  *task,
                                    GBytes *body,
                                    GError *error);

/* sk-llm-client.c */
char    *_sk_llm_client_endpoint               (SkLlmClient         *self,
                                                const char          *what);
void     _sk_llm_client_add_auth_headers       (SkLlmClient         *self,
                                                SoupMessage         *message);
void     _sk_llm_client_exchange_start         (SkLlmExchange       *exchange,
                                                SkLlmClient         *client,
                                                SoupMessage         *message,
                                                GCancellable        *user_cancellable);
void     _sk_llm_client_exchange_touch         (SkLlmExchange       *exchange);
void     _sk_llm_client_exchange_stop_watchdog (SkLlmExchange       *exchange);
void     _sk_llm_client_exchange_clear         (SkLlmExchange       *exchange);
void     _sk_llm_client_exchange_read_body     (GTask               *task,
                                                SkLlmExchange       *exchange,
                                                SkLlmBodyReadyFunc   ready);

/* sk-llm-client-errors.c */
GError  *_sk_llm_client_http_error             (SkLlmClient         *self,
                                                SoupMessage         *message,
                                                GBytes              *body,
                                                guint                attempt,
                                                double              *retry_delay);
GError  *_sk_llm_client_transport_error        (SkLlmExchange       *exchange,
                                                GError              *error,
                                                const char          *url);
double   _sk_llm_client_retry_delay            (SkLlmClient         *self,
                                                guint                attempt,
                                                const GError        *error);

G_END_DECLS
