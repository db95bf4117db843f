/* sk-llm-client-errors.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a failed request means to the user, and whether to send it again:
 * the policy of the OpenAI and Anthropic libraries (Retry-After,
 * x-should-retry, exponential backoff with jitter).
 */

#define G_LOG_DOMAIN "sk-llm-client-errors"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-json.h"
#include "sk-llm-client-private.h"
#include "sk-llm-stream.h"

/* Retry-After values above this mean "come back much later": give up. */
#define MAX_RETRY_DELAY_SECONDS 60.0

static char *
body_message (GBytes *body)
{
  gsize size = 0;
  const char *data = body != NULL ? g_bytes_get_data (body, &size) : NULL;
  g_autofree char *valid = NULL;

  if (data == NULL || size == 0)
    return NULL;

  valid = g_utf8_make_valid (data, MIN (size, 300));
  return g_strstrip (g_steal_pointer (&valid));
}

static gboolean
contains_any (const char         *haystack,
              const char * const *needles)
{
  g_autofree char *lower = NULL;

  if (haystack == NULL)
    return FALSE;

  lower = g_ascii_strdown (haystack, -1);
  for (guint i = 0; needles[i] != NULL; i++)
    if (strstr (lower, needles[i]) != NULL)
      return TRUE;

  return FALSE;
}

static double
parse_retry_after (SoupMessageHeaders *headers,
                   gboolean           *present)
{
  const char *value;
  char *end = NULL;
  double seconds;

  *present = FALSE;

  value = soup_message_headers_get_one (headers, "retry-after-ms");
  if (value != NULL)
    {
      seconds = g_ascii_strtod (value, &end) / 1000.0;
      if (end != value && seconds >= 0)
        {
          *present = TRUE;
          return seconds;
        }
    }

  value = soup_message_headers_get_one (headers, "Retry-After");
  if (value == NULL)
    return -1;

  seconds = g_ascii_strtod (value, &end);
  if (end != value && *end == '\0')
    {
      *present = TRUE;
      return seconds;
    }
  else
    {
      g_autoptr(GDateTime) when = soup_date_time_new_from_http_string (value);
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

      if (when == NULL)
        return -1;

      *present = TRUE;
      return MAX (0.0, g_date_time_difference (when, now) / (double) G_USEC_PER_SEC);
    }
}

/* The OpenAI library's backoff: 0.5 s doubling up to 8 s, less up to a
 * quarter, so that clients that failed together do not retry together. */
static double
backoff_delay (guint attempt)
{
  return MIN (0.5 * (1 << MIN (attempt, 4)), 8.0) * (1.0 - 0.25 * g_random_double ());
}

/**
 * _sk_llm_client_http_error:
 * @message: a message whose reply has a failing status
 * @body: (nullable): the reply's body
 * @attempt: how many times the request was sent before, or %G_MAXUINT
 *   when it must not be sent again in any case
 * @retry_delay: (out): seconds to wait before retrying, or a negative value
 *   when the request must not be sent again
 *
 * Returns: (transfer full): the error to report for a reply with a failing
 *   status
 */
GError *
_sk_llm_client_http_error (SkLlmClient *self,
                           SoupMessage *message,
                           GBytes      *body,
                           guint        attempt,
                           double      *retry_delay)
{
  static const char * const context_words[] = {
    "context_length", "context length", "context size", "context window",
    "exceed_context", "too many tokens", "prompt is too long", "maximum context", NULL };
  static const char * const tools_words[] = {
    "does not support tools", "tools are not supported", "tool use is not supported",
    "requires --jinja", "--jinja", "tools param", NULL };
  static const char * const quota_words[] = {
    "insufficient_quota", "quota", "billing", "credit", "spend", NULL };
  static const char * const loading_words[] = { "loading model", "loading", NULL };
  SoupMessageHeaders *headers = soup_message_get_response_headers (message);
  guint status = soup_message_get_status (message);
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *server_message = NULL;
  g_autofree char *type = NULL;
  g_autofree char *code = NULL;
  g_autofree char *all = NULL;
  const char *should_retry;
  gboolean has_retry_after;
  double retry_after;
  gboolean retryable;
  GError *error;

  if (body != NULL && g_bytes_get_size (body) > 0)
    {
      g_autofree char *text = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));

      /* A body nested too deep for json-glib's stack is not an error body. */
      if (sk_json_check_depth (text, -1, SK_JSON_MAX_DEPTH, NULL))
        node = json_from_string (text, NULL);
    }
  if (node == NULL || !sk_llm_stream_extract_error (node, &server_message, &type, &code))
    {
      g_clear_pointer (&server_message, g_free);
      server_message = body_message (body);
    }
  if (server_message == NULL || *server_message == '\0')
    {
      g_free (server_message);
      server_message = g_strdup_printf ("%u %s", status, soup_message_get_reason_phrase (message));
    }

  all = g_strjoin (" ", server_message, type != NULL ? type : "", code != NULL ? code : "", NULL);
  retry_after = parse_retry_after (headers, &has_retry_after);

  if (status == 401 || status == 403)
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_AUTH,
                         "The server refused the API key (%s). Check the key in Preferences, "
                         "or in the SKELE_LLM_API_KEY variable.", server_message);
  else if (status == 402 || (status == 429 && contains_any (all, quota_words)) ||
           (status == 429 && self->provider == SK_LLM_PROVIDER_ANTHROPIC && !has_retry_after))
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_QUOTA,
                         "The account has used up its quota or spending limit (%s). Check the "
                         "plan and billing with the provider.", server_message);
  else if (status == 429)
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_RATE_LIMITED,
                         "The server is limiting how fast requests may come (%s).", server_message);
  else if (status == 404)
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_MODEL_NOT_FOUND,
                         "The server does not know the model “%s” or the address %s (%s). "
                         "Check the model name and the server address in Preferences; "
                         "OpenAI-compatible servers usually end in /v1.",
                         self->model, g_uri_get_path (soup_message_get_uri (message)),
                         server_message);
  else if ((status == 400 || status == 413) && contains_any (all, context_words))
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_CONTEXT_TOO_LONG,
                         "The request is longer than the model can read (%s). Choose a model "
                         "with a larger context, or give the server a larger context size.",
                         server_message);
  else if (status == 400 && contains_any (all, tools_words))
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TOOLS_UNSUPPORTED,
                         "The model or server does not take tool definitions (%s).", server_message);
  else if (status == 503 && contains_any (all, loading_words))
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_LOADING,
                         "The server is still loading the model (%s).", server_message);
  else if (status >= 500)
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_SERVER,
                         "The language model server failed (%u %s: %s).", status,
                         soup_message_get_reason_phrase (message), server_message);
  else
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_BAD_REQUEST,
                         "The server rejected the request (%u: %s).", status, server_message);

  retryable = (status == 408 || status == 409 || status == 429 || status >= 500) &&
              !g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_QUOTA);

  should_retry = soup_message_headers_get_one (headers, "x-should-retry");
  if (g_strcmp0 (should_retry, "true") == 0)
    retryable = TRUE;
  else if (g_strcmp0 (should_retry, "false") == 0)
    retryable = FALSE;

  *retry_delay = -1;
  if (retryable && attempt < self->max_retries)
    {
      if (has_retry_after && retry_after > MAX_RETRY_DELAY_SECONDS)
        {
          g_prefix_error (&error, "The server asks to wait %.0f minutes before trying again. ",
                          ceil (retry_after / 60.0));
          return error;
        }
      if (has_retry_after)
        *retry_delay = retry_after;
      else
        *retry_delay = backoff_delay (attempt);
    }

  return error;
}

/* Turns a transport failure into the error the user sees. */
GError *
_sk_llm_client_transport_error (SkLlmExchange *exchange,
                                GError        *error,
                                const char    *url)
{
  if (exchange->deadline_passed)
    return g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TIMEOUT,
                        _("The server at %s was still sending its reply after %.0f seconds, "
                          "so it was stopped. The model may be repeating itself endlessly; "
                          "try again, or choose another model."),
                        url, exchange->client->reply_timeout);

  if (exchange->timed_out)
    return g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TIMEOUT,
                        "The server at %s sent nothing for %.0f seconds, so the request was "
                        "given up. A model that is still loading or a very slow machine can "
                        "cause this.",
                        url, exchange->client->idle_timeout);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (error);

  return g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_CONNECTION,
                      "Could not reach the language model server at %s: %s. Check that the "
                      "server is running and that its address in Preferences is right.",
                      url, error->message);
}

/**
 * _sk_llm_client_retry_delay:
 * @attempt: how many times the request was sent before
 * @error: why the last attempt failed
 *
 * Decides whether a request that failed in transport (no connection, the
 * watchdog, a reply cut short) is sent again.
 *
 * Returns: the seconds to wait before sending it again, or a negative
 *   value when it must not be
 */
double
_sk_llm_client_retry_delay (SkLlmClient  *self,
                            guint         attempt,
                            const GError *error)
{
  if (error->domain != SK_LLM_ERROR || attempt >= self->max_retries)
    return -1;

  if (error->code != SK_LLM_ERROR_CONNECTION && error->code != SK_LLM_ERROR_TIMEOUT &&
      error->code != SK_LLM_ERROR_INCOMPLETE)
    return -1;

  return backoff_delay (attempt);
}
