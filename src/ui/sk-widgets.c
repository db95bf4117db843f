/* sk-widgets.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gtk/gtk.h>

#include "sk-canvas.h"
#include "sk-code-cell.h"
#include "sk-input-cell.h"
#include "sk-output-cell.h"
#include "sk-widgets.h"
#include "sk-ui-resources.h"

/**
 * sk_widgets_init:
 *
 * Registers the window's resources and types. The application and the widget
 * tests call it once after GTK is initialised; referencing the resource here
 * also keeps the static library's resource object from being dropped.
 */
void
sk_widgets_init (void)
{
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      GtkCssProvider *provider;

      (void) sk_ui_get_resource ();

      provider = gtk_css_provider_new ();
      gtk_css_provider_load_from_resource (provider, "/io/github/skelecode/SkeleCode/style.css");
      gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                  GTK_STYLE_PROVIDER (provider),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      g_object_unref (provider);

      g_type_ensure (SK_TYPE_CANVAS);
      g_type_ensure (SK_TYPE_CODE_CELL);
      g_type_ensure (SK_TYPE_INPUT_CELL);
      g_type_ensure (SK_TYPE_OUTPUT_CELL);

      g_once_init_leave (&initialized, 1);
    }
}
