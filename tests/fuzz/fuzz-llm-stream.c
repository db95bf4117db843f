/* fuzz-llm-stream.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Decodes arbitrary bytes as a streamed reply. The first byte chooses the
 * dialect and the next four the lengths of the chunks the rest is fed in,
 * as the network would split it; then the stream is finished.
 */

#include "config.h"

#include "sk-llm-stream.h"

#include "fuzz-common.h"

#define N_SPLITS 4

static void
on_event (SkLlmEvent  event,
          const char *text,
          gpointer    user_data)
{
  guint *count = user_data;

  /* The decoder promises that nothing but UTF-8 reaches its caller. */
  g_assert (text == NULL || g_utf8_validate (text, -1, NULL));
  (*count)++;
}

static void
assert_utf8 (const char *text)
{
  if (text != NULL && !g_utf8_validate (text, -1, NULL))
    g_error ("The decoder let text that is not UTF-8 through");
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  sk_fuzz_init ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  static const SkLlmProvider dialects[] = {
    SK_LLM_PROVIDER_OPENAI,
    SK_LLM_PROVIDER_OLLAMA,
    SK_LLM_PROVIDER_ANTHROPIC,
  };
  g_autoptr(SkLlmStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  guint8 splits[N_SPLITS];
  guint events = 0;
  gsize offset = 0;
  guint i = 0;
  gboolean ok = TRUE;

  if (size < 1 + N_SPLITS)
    return 0;

  stream = sk_llm_stream_new (dialects[data[0] % G_N_ELEMENTS (dialects)], on_event, &events);
  for (guint j = 0; j < N_SPLITS; j++)
    splits[j] = data[1 + j];
  /* Some chunk must make progress. */
  if ((splits[0] | splits[1] | splits[2] | splits[3]) == 0)
    splits[0] = 1;
  data += 1 + N_SPLITS;
  size -= 1 + N_SPLITS;

  /* A split of 0 feeds an empty chunk, which a read may also return. */
  while (ok && offset < size)
    {
      gsize length = MIN ((gsize) splits[i % N_SPLITS], size - offset);

      i++;
      ok = sk_llm_stream_feed (stream, (const char *) data + offset, length, &error);
      g_assert (ok == (error == NULL));
      offset += length;
    }

  if (ok)
    {
      ok = sk_llm_stream_finish (stream, &error);
      g_assert (ok == (error == NULL));
    }

  /* The caller keeps what arrived before an error too. */
  {
    SkLlmResponse *response = sk_llm_stream_steal_response (stream);

    g_assert (response != NULL);
    g_assert (response->text != NULL);
    assert_utf8 (response->text);
    assert_utf8 (response->reasoning);
    assert_utf8 (response->finish_reason);
    for (guint j = 0; response->tool_calls != NULL && j < response->tool_calls->len; j++)
      {
        SkLlmToolCall *call = g_ptr_array_index (response->tool_calls, j);

        assert_utf8 (call->id);
        assert_utf8 (call->name);
        assert_utf8 (call->arguments);
      }
    sk_llm_response_free (response);
  }

  return 0;
}
