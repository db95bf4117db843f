/* sk-window-permissions.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sk-window-private.h"

/* A workflow can ask, in its file, for more than the sandbox gives a step:
 * the network, or folders outside the workflow. The file may come from
 * anyone, so before its steps first run with such access, the window says
 * in plain words what they will get and asks. What the user allowed is
 * kept in the settings, per workflow folder, never in the workflow.
 */

#define GRANTS_KEY "granted-permissions"
#define MAX_LISTED 8

/* Each permission the run needs, as a line: "KEY network", "KEY read PATH"
 * or "* network" for the whole workflow. */
static GPtrArray *
needed_permissions (SkProject *project,
                    GPtrArray *nodes)
{
  GPtrArray *needed = g_ptr_array_new_with_free_func (g_free);

  if (sk_project_get_network (project))
    g_ptr_array_add (needed, g_strdup ("* network"));

  for (guint i = 0; i < nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (nodes, i);
      g_auto(GStrv) reads = sk_node_get_read_paths (node);

      if (sk_node_get_network (node))
        g_ptr_array_add (needed, g_strconcat (sk_node_get_key (node), " network", NULL));
      for (guint j = 0; reads[j] != NULL; j++)
        g_ptr_array_add (needed, g_strconcat (sk_node_get_key (node), " read ", reads[j], NULL));
    }

  return needed;
}

static char *
folder_path (SkWindow *self)
{
  GFile *folder = sk_project_get_folder (sk_workspace_get_project (self->workspace));

  return folder != NULL ? g_file_get_path (folder) : NULL;
}

static char **
granted_permissions (SkWindow   *self,
                     const char *folder)
{
  g_autoptr(GVariant) grants = NULL;
  char **granted = NULL;

  if (self->settings == NULL || folder == NULL)
    return NULL;

  grants = g_settings_get_value (self->settings, GRANTS_KEY);
  if (!g_variant_lookup (grants, folder, "^as", &granted))
    return NULL;

  return granted;
}

static void
grant_permissions (SkWindow  *self,
                   GPtrArray *needed)
{
  g_autofree char *folder = folder_path (self);
  g_auto(GStrv) granted = granted_permissions (self, folder);
  g_autoptr(GVariant) grants = NULL;
  g_autoptr(GStrvBuilder) lines = g_strv_builder_new ();
  g_auto(GStrv) all = NULL;
  GVariantBuilder builder;
  GVariantIter iter;
  const char *other;
  GVariant *value;

  if (self->settings == NULL || folder == NULL)
    return;

  if (granted != NULL)
    g_strv_builder_addv (lines, (const char **) granted);
  for (guint i = 0; i < needed->len; i++)
    if (granted == NULL || !g_strv_contains ((const char * const *) granted,
                                             g_ptr_array_index (needed, i)))
      g_strv_builder_add (lines, g_ptr_array_index (needed, i));
  all = g_strv_builder_end (lines);

  grants = g_settings_get_value (self->settings, GRANTS_KEY);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{sas}"));
  g_variant_iter_init (&iter, grants);
  while (g_variant_iter_next (&iter, "{&s@as}", &other, &value))
    {
      if (!g_str_equal (other, folder))
        g_variant_builder_add (&builder, "{s@as}", other, value);
      g_variant_unref (value);
    }
  g_variant_builder_add (&builder, "{s^as}", folder, all);
  g_settings_set_value (self->settings, GRANTS_KEY, g_variant_builder_end (&builder));
}

/* The permissions that the user has not allowed yet, in plain words, or
 * NULL when there are none. */
static char *
describe_new_permissions (SkWindow  *self,
                          GPtrArray *nodes,
                          GPtrArray *needed)
{
  SkProject *project = sk_workspace_get_project (self->workspace);
  g_autofree char *folder = folder_path (self);
  g_auto(GStrv) granted = granted_permissions (self, folder);
  g_autoptr(GString) text = g_string_new (NULL);
  guint listed = 0;
  guint more = 0;

  for (guint i = 0; i < needed->len; i++)
    {
      const char *line = g_ptr_array_index (needed, i);
      g_autofree char *key = NULL;
      const char *rest;
      SkNode *node = NULL;

      if (granted != NULL && g_strv_contains ((const char * const *) granted, line))
        continue;

      /* A long list would push the buttons off the screen. */
      if (listed == MAX_LISTED)
        {
          more++;
          continue;
        }
      listed++;

      rest = strchr (line, ' ') + 1;
      key = g_strndup (line, rest - 1 - line);
      for (guint j = 0; j < nodes->len && node == NULL; j++)
        if (g_str_equal (sk_node_get_key (g_ptr_array_index (nodes, j)), key))
          node = g_ptr_array_index (nodes, j);

      if (text->len > 0)
        g_string_append_c (text, '\n');

      if (node == NULL)
        /* Translators: %s is the name of a workflow */
        g_string_append_printf (text, _("• Every step of “%s” may use the network."),
                                sk_project_get_name (project));
      else if (g_str_equal (rest, "network"))
        /* Translators: %s is the name of a step */
        g_string_append_printf (text, _("• “%s” may use the network."), sk_node_get_name (node));
      else
        /* Translators: the first %s is the name of a step, the second a folder */
        g_string_append_printf (text, _("• “%s” may read %s."), sk_node_get_name (node),
                                rest + strlen ("read "));
    }

  if (more > 0)
    g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "\n• And %u more.",
                                               "\n• And %u more.", more), more);

  return text->len > 0 ? g_string_free (g_steal_pointer (&text), FALSE) : NULL;
}

typedef struct
{
  SkWindow  *self;
  GPtrArray *nodes;
  GPtrArray *needed;
} Request;

static void
request_free (Request *request)
{
  g_object_unref (request->self);
  g_ptr_array_unref (request->nodes);
  g_ptr_array_unref (request->needed);
  g_free (request);
}

static void
response_cb (AdwMessageDialog *dialog,
             const char       *response,
             gpointer          user_data)
{
  Request *request = user_data;

  if (g_str_equal (response, "allow"))
    {
      grant_permissions (request->self, request->needed);
      _sk_window_start_work (request->self, request->nodes, FALSE);
    }

  request_free (request);
}

/**
 * _sk_window_check_permissions:
 * @self: the window
 * @nodes: the steps about to run
 *
 * Asks the user, once per workflow folder and permission, whether the
 * steps may have the access the workflow asks for beyond the sandbox's.
 * When the user allows it, the run starts again from
 * _sk_window_start_work().
 *
 * Returns: %TRUE when the run may start now, %FALSE when the user is being
 *   asked
 */
gboolean
_sk_window_check_permissions (SkWindow  *self,
                              GPtrArray *nodes)
{
  g_autoptr(GPtrArray) needed = NULL;
  g_autofree char *list = NULL;
  Request *request;
  GtkWidget *dialog;

  needed = needed_permissions (sk_workspace_get_project (self->workspace), nodes);
  if (needed->len == 0)
    return TRUE;

  list = describe_new_permissions (self, nodes, needed);
  if (list == NULL)
    return TRUE;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Allow More Access?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("Steps run in a sandbox that shows them only this workflow. "
                                    "This workflow asks for more:\n\n%s\n\nAllow this only if you "
                                    "trust where the workflow comes from. You can change it in "
                                    "each step’s task."),
                                  list);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "allow", _("_Allow and Run"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "allow",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  request = g_new0 (Request, 1);
  request->self = g_object_ref (self);
  request->nodes = g_ptr_array_ref (nodes);
  request->needed = g_steal_pointer (&needed);
  g_signal_connect (dialog, "response", G_CALLBACK (response_cb), request);
  gtk_window_present (GTK_WINDOW (dialog));

  return FALSE;
}
