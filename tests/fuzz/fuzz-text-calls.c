/* fuzz-text-calls.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parses an arbitrary reply for the fenced `tool` blocks of models without
 * native tool calls.
 */

#include "config.h"

#include "sk-agent-text-calls.h"

#include "fuzz-common.h"

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
  g_autofree char *reply = g_strndup ((const char *) data, size);
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GError) error = NULL;

  calls = sk_agent_text_calls_parse (reply, &error);
  g_assert ((calls == NULL) == (error != NULL));

  return 0;
}
