/* test-agent-tools.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib.h>

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  return g_test_run ();
}
