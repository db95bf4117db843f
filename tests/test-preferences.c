/* test-preferences.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include <adwaita.h>

#include "sk-preferences-window.h"
#include "sk-ui.h"

static gpointer
template_child (gpointer    widget,
                GType       type,
                const char *name)
{
  return gtk_widget_get_template_child (GTK_WIDGET (widget), type, name);
}

/* Each row changes its setting at once, and a setting changed elsewhere shows
 * in its row. */
static void
test_preferences_bindings (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  SkPreferencesWindow *window;
  GtkAdjustment *jobs;
  GtkAdjustment *timeout;
  AdwEntryRow *python;
  g_autofree char *chosen = NULL;

  g_settings_reset (settings, "jobs");
  g_settings_reset (settings, "timeout");
  g_settings_reset (settings, "python");

  window = sk_preferences_window_new (settings);
  g_object_ref_sink (window);
  gtk_window_present (GTK_WINDOW (window));

  jobs = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "jobs_adjustment");
  timeout = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "timeout_adjustment");
  python = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "python_row");

  g_assert_cmpfloat (gtk_adjustment_get_value (jobs), ==, 2);
  g_assert_cmpfloat (gtk_adjustment_get_value (timeout), ==, 0);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (python)), ==, "");

  gtk_adjustment_set_value (jobs, 4);
  g_assert_cmpuint (g_settings_get_uint (settings, "jobs"), ==, 4);

  gtk_adjustment_set_value (timeout, 90);
  g_assert_cmpuint (g_settings_get_uint (settings, "timeout"), ==, 90);

  gtk_editable_set_text (GTK_EDITABLE (python), "/usr/bin/python3");
  chosen = g_settings_get_string (settings, "python");
  g_assert_cmpstr (chosen, ==, "/usr/bin/python3");

  /* The adjustment keeps the setting inside the schema's range. */
  gtk_adjustment_set_value (jobs, 1000);
  g_assert_cmpuint (g_settings_get_uint (settings, "jobs"), ==, 64);

  g_settings_set_uint (settings, "timeout", 15);
  g_assert_cmpfloat (gtk_adjustment_get_value (timeout), ==, 15);

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return 0;
    }
  adw_init ();
  sk_ui_init ();

  g_test_add_func ("/preferences/bindings", test_preferences_bindings);

  return g_test_run ();
}
