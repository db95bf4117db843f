/* sk-window-open.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-window-open"

#include "config.h"

#include <glib/gi18n.h>

#include "sk-window-private.h"

#define MAX_RECENT 6

/* Recent workflows */

void
_sk_window_add_to_recent (SkWindow *self)
{
  g_autoptr(GFile) file = g_file_get_child (sk_window_get_folder (self), SK_PROJECT_FILE_NAME);
  g_autofree char *uri = g_file_get_uri (file);

  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
}

static int
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *time_a = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *time_b = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  return g_date_time_compare (time_b, time_a);
}

void
_sk_window_fill_recent_list (SkWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  GtkWidget *child;
  guint shown = 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent_list))) != NULL)
    gtk_list_box_remove (self->recent_list, child);

  items = g_list_sort (items, compare_recent);
  for (GList *l = items; l != NULL && shown < MAX_RECENT; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr(GFile) file = NULL;
      g_autoptr(GFile) folder = NULL;
      g_autofree char *name = NULL;
      g_autofree char *path = NULL;
      GtkWidget *row;

      if (!g_str_has_suffix (uri, "/" SK_PROJECT_FILE_NAME) || !gtk_recent_info_exists (info))
        continue;

      file = g_file_new_for_uri (uri);
      folder = g_file_get_parent (file);
      name = g_file_get_basename (folder);
      path = g_file_get_path (folder);

      row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), path);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      g_object_set_data_full (G_OBJECT (row), "folder", g_object_ref (folder), g_object_unref);
      gtk_list_box_append (self->recent_list, row);
      shown++;
    }

  gtk_widget_set_visible (GTK_WIDGET (self->recent_list), shown > 0);
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

void
_sk_window_recent_row_activated_cb (SkWindow      *self,
                                    GtkListBoxRow *row)
{
  GFile *folder = g_object_get_data (G_OBJECT (row), "folder");

  if (folder != NULL)
    sk_window_open (self, folder, FALSE);
}

/* Opening */

void
_sk_window_show_error_page (SkWindow   *self,
                            const char *message)
{
  adw_status_page_set_description (self->error_page, message);
  gtk_spinner_stop (self->loading_spinner);
  gtk_stack_set_visible_child_name (self->stack, "error");
}

static void
recover_response_cb (AdwMessageDialog *dialog,
                     const char       *response,
                     SkWindow         *self)
{
  const char *data = g_object_get_data (G_OBJECT (dialog), "data");
  g_autoptr(GError) error = NULL;

  if (self->workspace == NULL)
    return;

  if (g_strcmp0 (response, "recover") != 0)
    {
      sk_workspace_discard_recovery (self->workspace);
      return;
    }

  if (!sk_workspace_recover (self->workspace, data, &error))
    sk_window_show_toast (self, error->message);
}

static void
offer_recovery (SkWindow *self)
{
  g_autofree char *saved = sk_workspace_take_recovery (self->workspace);
  AdwMessageDialog *dialog;

  if (saved == NULL)
    return;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self),
                                                       _("Recover Unsaved Changes?"),
                                                       _("Skele-Code closed before the last changes to this workflow were saved.")));
  adw_message_dialog_add_responses (dialog,
                                    "discard", _("_Discard"),
                                    "recover", _("_Recover"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "recover", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "recover");
  adw_message_dialog_set_close_response (dialog, "recover");
  g_object_set_data_full (G_OBJECT (dialog), "data", g_steal_pointer (&saved), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (recover_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(SkWindow) self = user_data;
  g_autoptr(SkWorkspace) workspace = NULL;
  g_autoptr(GError) error = NULL;

  workspace = sk_workspace_load_finish (result, &error);
  if (g_cancellable_is_cancelled (self->cancellable))
    return;

  if (workspace == NULL)
    {
      _sk_window_show_error_page (self, error->message);
      return;
    }

  _sk_window_set_workspace (self, workspace);
  sk_workspace_restore_states (workspace);
  offer_recovery (self);
}

/**
 * sk_window_open:
 * @self: a #SkWindow
 * @folder: a workflow folder
 * @create: whether to start a new, empty workflow in @folder
 *
 * Shows the workflow in @folder. Loading happens in a worker thread, so a
 * large workflow does not freeze the window; a workflow that cannot be read
 * is reported and left untouched on disk.
 */
void
sk_window_open (SkWindow *self,
                GFile    *folder,
                gboolean  create)
{
  g_return_if_fail (SK_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (folder));

  if (_sk_window_is_running (self))
    {
      sk_window_show_toast (self, _("Stop the run before opening another workflow"));
      return;
    }

  g_set_object (&self->opening, folder);

  if (create)
    {
      g_autoptr(SkWorkspace) workspace = NULL;
      g_autoptr(GError) error = NULL;

      /* A folder the user already has is not written to before they make
       * a workflow in it; a new one is made at once, with its file. */
      if (g_file_query_file_type (folder, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
        {
          g_autoptr(SkProject) project = sk_project_new (folder);
          g_autofree char *name = g_file_get_basename (folder);

          sk_project_set_name (project, name);
          sk_project_set_modified (project, FALSE);
          workspace = sk_workspace_new (project, self->settings);
        }
      else
        workspace = sk_workspace_create (folder, self->settings, &error);
      if (workspace == NULL)
        {
          _sk_window_show_error_page (self, error->message);
          return;
        }
      _sk_window_set_workspace (self, workspace);
      return;
    }

  gtk_stack_set_visible_child_name (self->stack, "loading");
  gtk_spinner_start (self->loading_spinner);

  sk_workspace_load_async (folder, self->settings, self->cancellable, load_cb, g_object_ref (self));
}

/* File choosers */

typedef void (*FolderChosen) (SkWindow *self,
                              GFile    *folder);

static SkWindow *
open_chosen (SkWindow *self,
             GFile    *folder,
             gboolean  create)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  SkWindow *target = self;

  /* A window keeps its workflow; another workflow opens in a new window. */
  if (self->workspace != NULL)
    {
      target = sk_window_new (SK_APPLICATION (app));
      gtk_window_present (GTK_WINDOW (target));
    }

  sk_window_open (target, folder, create);
  return target;
}

/**
 * _sk_window_open_in_window:
 * @self: a #SkWindow
 * @folder: a workflow folder
 *
 * Opens @folder in @self, or in a new window when @self shows a workflow.
 *
 * Returns: (transfer none): the window that shows it
 */
SkWindow *
_sk_window_open_in_window (SkWindow *self,
                           GFile    *folder)
{
  return open_chosen (self, folder, FALSE);
}

static void
folder_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    SkWindow        *self)
{
  FolderChosen chosen = (FolderChosen) g_object_get_data (G_OBJECT (dialog), "sk-chosen");
  g_autoptr(GFile) folder = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);

  if (folder != NULL)
    chosen (self, folder);
}

/* A workflow is a folder, so every chooser of the window picks one. */
void
_sk_window_choose_folder (SkWindow     *self,
                          const char   *title,
                          const char   *accept,
                          gboolean      create_folders,
                          FolderChosen  chosen)
{
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                         accept, _("_Cancel"));
  gtk_file_chooser_set_create_folders (GTK_FILE_CHOOSER (chooser), create_folders);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_object_set_data (G_OBJECT (chooser), "sk-chosen", (gpointer) chosen);
  g_signal_connect_object (chooser, "response", G_CALLBACK (folder_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
new_folder_chosen (SkWindow *self,
                   GFile    *folder)
{
  g_autoptr(GFile) process = g_file_get_child (folder, SK_PROJECT_FILE_NAME);

  if (g_file_query_exists (process, NULL))
    {
      sk_window_show_toast (self, _("That folder already holds a workflow, so it was opened instead"));
      open_chosen (self, folder, FALSE);
      return;
    }

  open_chosen (self, folder, TRUE);
}

/**
 * sk_window_choose_new:
 * @self: a #SkWindow
 *
 * Asks for a folder and starts a new workflow in it.
 */
void
sk_window_choose_new (SkWindow *self)
{
  g_return_if_fail (SK_IS_WINDOW (self));

  _sk_window_choose_folder (self, _("Choose a Folder for the New Workflow"), _("_Create"), TRUE, new_folder_chosen);
}

static void
open_folder_chosen (SkWindow *self,
                    GFile    *folder)
{
  g_autoptr(GFile) process = g_file_get_child (folder, SK_PROJECT_FILE_NAME);

  if (!g_file_query_exists (process, NULL))
    {
      g_autofree char *name = g_file_get_basename (folder);
      g_autofree char *message = g_strdup_printf (_("“%s” holds no workflow (no process.json). Choose a workflow folder, or start a new workflow."), name);

      sk_window_show_toast (self, message);
      return;
    }

  open_chosen (self, folder, FALSE);
}

/**
 * sk_window_choose_open:
 * @self: a #SkWindow
 *
 * Asks for a workflow folder and opens it.
 */
void
sk_window_choose_open (SkWindow *self)
{
  g_return_if_fail (SK_IS_WINDOW (self));

  _sk_window_choose_folder (self, _("Open Workflow"), _("_Open"), FALSE, open_folder_chosen);
}

/* Saving */

/**
 * sk_window_save:
 * @self: a #SkWindow
 *
 * Saves the workflow, telling the user what went wrong if it could not be
 * saved. The last good process.json is never lost: saving is atomic.
 *
 * Returns: %TRUE if the workflow was saved
 */
gboolean
sk_window_save (SkWindow *self)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (SK_IS_WINDOW (self), FALSE);

  if (self->workspace == NULL)
    return FALSE;

  if (!sk_workspace_save (self->workspace, &error))
    {
      g_autofree char *message = g_strdup_printf (_("The workflow could not be saved: %s"), error->message);

      sk_window_show_toast (self, message);
      return FALSE;
    }

  _sk_window_add_to_recent (self);
  _sk_window_update_title (self);

  return TRUE;
}

/**
 * _sk_window_save_as:
 * @self: a #SkWindow
 * @folder: the folder chosen
 *
 * Saves the workflow with its steps' files into @folder and goes on there.
 */
void
_sk_window_save_as (SkWindow *self,
                    GFile    *folder)
{
  g_autoptr(GError) error = NULL;

  if (self->workspace == NULL)
    return;

  if (!sk_workspace_save_as (self->workspace, folder, &error))
    {
      g_autofree char *message = NULL;

      if (error->domain == SK_WORKSPACE_ERROR)
        message = g_strdup (error->message);
      else
        message = g_strdup_printf (_("The workflow could not be saved: %s"), error->message);
      sk_window_show_toast (self, message);
      return;
    }

  _sk_window_add_to_recent (self);
  _sk_window_update_title (self);
  sk_window_show_toast (self, _("Saved"));
}

/* Closing */

static void
close_response_cb (AdwMessageDialog *dialog,
                   const char       *response,
                   SkWindow         *self)
{
  if (g_str_equal (response, "save"))
    {
      if (!sk_window_save (self))
        return;
    }
  else if (g_str_equal (response, "discard"))
    {
      if (self->workspace != NULL)
        sk_workspace_discard_recovery (self->workspace);
    }
  else
    return;

  /* The dialog lives until its response is emitted, after the window is
   * gone. As a transient child destroyed with its parent it keeps pointing
   * at the freed window and touches it when it is finalized, so it lets go
   * of the window first. */
  gtk_window_set_transient_for (GTK_WINDOW (dialog), NULL);
  gtk_window_destroy (GTK_WINDOW (dialog));

  self->close_confirmed = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

/**
 * _sk_window_confirm_close:
 * @self: a #SkWindow
 *
 * Asks what to do with unsaved changes before the window closes.
 *
 * Returns: %TRUE when the window may close now
 */
gboolean
_sk_window_confirm_close (SkWindow *self)
{
  SkProject *project = _sk_window_project (self);
  AdwMessageDialog *dialog;
  g_autofree char *body = NULL;

  if (project == NULL || !sk_project_get_modified (project) || self->close_confirmed)
    return TRUE;

  body = g_strdup_printf (_("“%s” has changes that are not saved yet."), sk_project_get_name (project));
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Save Changes?"), body));
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "save");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (close_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));

  return FALSE;
}
