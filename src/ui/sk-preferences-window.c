/* sk-preferences-window.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-preferences-window"

#include "config.h"

#include "sk-preferences-window.h"

struct _SkPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  GSettings            *settings;

  GtkAdjustment        *jobs_adjustment;
  GtkAdjustment        *timeout_adjustment;
  AdwEntryRow          *python_row;
};

G_DEFINE_FINAL_TYPE (SkPreferencesWindow, sk_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

/**
 * sk_preferences_window_new:
 * @settings: the application's settings
 *
 * Returns: (transfer full): a window whose rows change @settings at once
 */
SkPreferencesWindow *
sk_preferences_window_new (GSettings *settings)
{
  SkPreferencesWindow *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (SK_TYPE_PREFERENCES_WINDOW, NULL);
  self->settings = g_object_ref (settings);

  g_settings_bind (settings, "jobs", self->jobs_adjustment, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "timeout", self->timeout_adjustment, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "python", self->python_row, "text", G_SETTINGS_BIND_DEFAULT);

  return self;
}

static void
sk_preferences_window_dispose (GObject *object)
{
  SkPreferencesWindow *self = SK_PREFERENCES_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), SK_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (sk_preferences_window_parent_class)->dispose (object);
}

static void
sk_preferences_window_class_init (SkPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_preferences_window_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/skelecode/SkeleCode/sk-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, jobs_adjustment);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, timeout_adjustment);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, python_row);
}

static void
sk_preferences_window_init (SkPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
