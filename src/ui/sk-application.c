/* sk-application.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "skele-code"

#include "config.h"

#include <stdlib.h>

#include <glib/gi18n.h>

#include "sk-application.h"
#include "sk-preferences-window.h"
#include "skele.h"
#include "sk-widgets.h"
#include "sk-window.h"

#define EXAMPLE_NAME "sales-report"

struct _SkApplication
{
  AdwApplication  parent_instance;

  GSettings      *settings;
};

G_DEFINE_FINAL_TYPE (SkApplication, sk_application, ADW_TYPE_APPLICATION)

SkApplication *
sk_application_new (void)
{
  return g_object_new (SK_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/skelecode/SkeleCode",
                       NULL);
}

/**
 * sk_application_get_settings:
 * @self: a #SkApplication
 *
 * Returns: (transfer none): the application's settings
 */
GSettings *
sk_application_get_settings (SkApplication *self)
{
  g_return_val_if_fail (SK_IS_APPLICATION (self), NULL);

  return self->settings;
}

static SkWindow *
find_window_for (SkApplication *self,
                 GFile         *folder)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    {
      GFile *shown;

      if (!SK_IS_WINDOW (l->data))
        continue;

      shown = sk_window_get_folder (l->data);
      if (folder == NULL ? shown == NULL : (shown != NULL && g_file_equal (shown, folder)))
        return l->data;
    }

  return NULL;
}

static SkWindow *
new_window (SkApplication *self)
{
  return sk_window_new (self);
}

/* Opens @file in the window that shows nothing yet, or in a new one. */
static void
open_in_window (SkApplication *self,
                GFile         *file,
                gboolean       create)
{
  g_autoptr(GFile) folder = NULL;
  SkWindow *window;

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY || create)
    folder = g_object_ref (file);
  else
    folder = g_file_get_parent (file);

  window = find_window_for (self, folder);
  if (window == NULL)
    {
      window = find_window_for (self, NULL);
      if (window == NULL)
        window = new_window (self);
      sk_window_open (window, folder, create);
    }

  gtk_window_present (GTK_WINDOW (window));
}

static void
sk_application_activate (GApplication *app)
{
  SkApplication *self = SK_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    window = GTK_WINDOW (new_window (self));

  gtk_window_present (window);
}

static void
sk_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  SkApplication *self = SK_APPLICATION (app);

  for (int i = 0; i < n_files; i++)
    {
      g_autoptr(GFile) process = g_file_get_child (files[i], "process.json");
      gboolean is_dir = g_file_query_file_type (files[i], G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY;
      gboolean exists = g_file_query_exists (files[i], NULL);

      /* A folder without a workflow, or a path that does not exist yet,
       * becomes a new workflow: that is how "skele-code FOLDER" starts one. */
      if (!exists || (is_dir && !g_file_query_exists (process, NULL)))
        open_in_window (self, files[i], TRUE);
      else
        open_in_window (self, files[i], FALSE);
    }
}

static GFile *
find_example_source (void)
{
  const char *candidates[3];

  candidates[0] = g_getenv ("SKELE_EXAMPLES_DIR");
  candidates[1] = EXAMPLES_DIR;
  candidates[2] = EXAMPLES_SOURCE_DIR;

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *path = NULL;

      if (candidates[i] == NULL || candidates[i][0] == '\0')
        continue;

      path = g_build_filename (candidates[i], EXAMPLE_NAME, "process.json", NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_file_new_build_filename (candidates[i], EXAMPLE_NAME, NULL);
    }

  return NULL;
}

/**
 * sk_application_dup_example:
 * @self: a #SkApplication
 *
 * Finds the user's own copy of the bundled example workflow, making it first
 * when there is none: the installed example is read-only, and running it
 * writes results beside its scripts.
 *
 * Returns: (transfer full) (nullable): the copy's folder, or %NULL if the
 *   example is not installed or could not be copied
 */
GFile *
sk_application_dup_example (SkApplication *self)
{
  g_autoptr(GFile) source = find_example_source ();
  g_autoptr(GFile) copy = NULL;
  g_autoptr(GFile) process = NULL;
  g_autoptr(GError) error = NULL;

  if (source == NULL)
    return NULL;

  copy = g_file_new_build_filename (g_get_user_data_dir (), "skele-code", "examples", EXAMPLE_NAME, NULL);
  process = g_file_get_child (copy, "process.json");
  if (g_file_query_exists (process, NULL))
    return g_steal_pointer (&copy);

  if (!sk_step_folder_copy_workflow (source, copy, &error))
    {
      g_debug ("Could not copy the example: %s", error->message);
      return NULL;
    }

  return g_steal_pointer (&copy);
}

static void
new_action (GSimpleAction *action,
            GVariant      *parameter,
            gpointer       user_data)
{
  SkApplication *self = user_data;
  SkWindow *window = find_window_for (self, NULL);

  if (window == NULL)
    window = new_window (self);
  gtk_window_present (GTK_WINDOW (window));
  sk_window_choose_new (window);
}

static void
open_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SkApplication *self = user_data;
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (!SK_IS_WINDOW (active))
    active = GTK_WINDOW (new_window (self));
  gtk_window_present (active);
  sk_window_choose_open (SK_WINDOW (active));
}

static void
open_example_action (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  SkApplication *self = user_data;
  g_autoptr(GFile) example = sk_application_dup_example (self);
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (example == NULL)
    {
      if (SK_IS_WINDOW (active))
        sk_window_show_toast (SK_WINDOW (active), _("The example workflow is not installed"));
      return;
    }

  open_in_window (self, example, FALSE);
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SkApplication *self = user_data;
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (self)));

  /* Each window asks about its own unsaved changes before it closes. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  SkApplication *self = user_data;
  static const char *developers[] = { "The Skele-Code developers", NULL };
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  adw_show_about_window (window,
                         "application-name", _("Skele-Code"),
                         "application-icon", APP_ID,
                         "developer-name", _("The Skele-Code developers"),
                         "developers", developers,
                         "version", PACKAGE_VERSION,
                         "website", "https://github.com/skelecode/skele-code",
                         "issue-url", "https://github.com/skelecode/skele-code/issues",
                         "copyright", "© 2026 The Skele-Code developers",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "comments", _("Draw a workflow as a graph of plain-language steps; "
                                       "a coding agent writes each step’s code, and the "
                                       "workflow runs without it."),
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
present_preferences (SkApplication *self,
                     const char    *page)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  SkPreferencesWindow *preferences = sk_preferences_window_new (self->settings);

  if (page != NULL)
    adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (preferences), page);
  gtk_window_set_transient_for (GTK_WINDOW (preferences), window);
  gtk_window_present (GTK_WINDOW (preferences));
}

static void
preferences_action (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  present_preferences (user_data, NULL);
}

/* Offered where a step needs a coding agent that is not set up. */
static void
agent_preferences_action (GSimpleAction *action,
                          GVariant      *parameter,
                          gpointer       user_data)
{
  present_preferences (user_data, "agent");
}

static void
help_launched_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(SkApplication) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  GtkWindow *window;

  if (g_app_info_launch_default_for_uri_finish (result, &error))
    return;

  /* GIO's own words ("Operation not supported") do not say what to do. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    message = g_strdup (_("The help cannot be shown: no help viewer is installed. Install Yelp "
                          "(the “yelp” package) to read it."));
  else
    message = g_strdup_printf (_("The help cannot be shown: %s"), error->message);

  window = gtk_application_get_active_window (GTK_APPLICATION (self));
  if (SK_IS_WINDOW (window))
    sk_window_show_toast (SK_WINDOW (window), message);
  else
    g_message ("%s", message);
}

static void
help_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SkApplication *self = user_data;
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  g_autoptr(GAppLaunchContext) context = NULL;

  if (window != NULL)
    context = G_APP_LAUNCH_CONTEXT (gdk_display_get_app_launch_context (gtk_widget_get_display (GTK_WIDGET (window))));
  g_app_info_launch_default_for_uri_async ("help:skele-code", context, NULL,
                                           help_launched_cb, g_object_ref (self));
}

static const GActionEntry app_actions[] = {
  { "new", new_action },
  { "open", open_action },
  { "open-example", open_example_action },
  { "quit", quit_action },
  { "about", about_action },
  { "preferences", preferences_action },
  { "agent-preferences", agent_preferences_action },
  { "help", help_action },
};

static void
sk_application_startup (GApplication *app)
{
  SkApplication *self = SK_APPLICATION (app);
  GSettingsSchema *schema;
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.new", { "<Control>n", NULL } },
    { "app.open", { "<Control>o", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "app.help", { "F1", NULL } },
    { "app.preferences", { "<Control>comma", NULL } },
    { "win.save", { "<Control>s", NULL } },
    { "win.generate-code", { "<Control>g", NULL } },
    { "win.save-as", { "<Control><Shift>s", NULL } },
    { "win.export", { "<Control><Shift>e", NULL } },
    { "win.close", { "<Control>w", NULL } },
    { "win.undo", { "<Control>z", NULL } },
    { "win.redo", { "<Control><Shift>z", "<Control>y", NULL } },
    { "win.run", { "F5", "<Control>r", NULL } },
    { "win.stop", { "<Shift>F5", NULL } },
    { "win.arrange", { "<Control><Shift>l", NULL } },
    { "win.edit-process", { "<Control>e", NULL } },
    { "win.show-step-list", { "F9", NULL } },
    { "win.toggle-chat", { "<Control><Shift>c", NULL } },
    { "win.zoom-in", { "<Control>plus", "<Control>equal", NULL } },
    { "win.zoom-out", { "<Control>minus", NULL } },
    { "win.zoom-reset", { "<Control>0", NULL } },
    { "win.zoom-fit", { "<Control>1", NULL } },
  };

  G_APPLICATION_CLASS (sk_application_parent_class)->startup (app);

  /* Without its schema GSettings aborts; say what to do instead. */
  schema = g_settings_schema_source_lookup (g_settings_schema_source_get_default (), SK_SETTINGS_SCHEMA_ID, TRUE);
  if (schema == NULL)
    {
      g_printerr (_("The settings schema %s is not installed. Install Skele-Code with "
                    "“meson install”, or run it from the build folder with "
                    "GSETTINGS_SCHEMA_DIR=BUILD/data.\n"), SK_SETTINGS_SCHEMA_ID);
      exit (EXIT_FAILURE);
    }
  g_settings_schema_unref (schema);

  sk_widgets_init ();
  g_set_application_name (_("Skele-Code"));
  gtk_window_set_default_icon_name (APP_ID);

  self->settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action, accels[i].accels);
}

static void
sk_application_dispose (GObject *object)
{
  SkApplication *self = SK_APPLICATION (object);

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (sk_application_parent_class)->dispose (object);
}

static void
sk_application_class_init (SkApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = sk_application_dispose;

  app_class->activate = sk_application_activate;
  app_class->open = sk_application_open;
  app_class->startup = sk_application_startup;
}

static void
sk_application_init (SkApplication *self)
{
}
