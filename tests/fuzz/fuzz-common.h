/* fuzz-common.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every fuzz target shares: a warning or a critical from GLib is a
 * finding, so it aborts and libFuzzer keeps the input.
 */

#pragma once

#include <glib.h>

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);
int LLVMFuzzerInitialize   (int          *argc,
                            char       ***argv);

#include <stdio.h>
#include <stdlib.h>

/* GLib stops on a fatal message with SIGTRAP, which libFuzzer does not
 * catch; abort() makes it save the input. */
static inline GLogWriterOutput
sk_fuzz_log_writer (GLogLevelFlags   log_level,
                    const GLogField *fields,
                    gsize            n_fields,
                    gpointer         user_data)
{
  g_autofree char *line = NULL;

  if ((log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) == 0)
    return G_LOG_WRITER_HANDLED;

  line = g_log_writer_format_fields (log_level, fields, n_fields, FALSE);
  fprintf (stderr, "%s\n", line);
  abort ();
}

static inline void
sk_fuzz_init (void)
{
  g_log_set_writer_func (sk_fuzz_log_writer, NULL, NULL);
}
