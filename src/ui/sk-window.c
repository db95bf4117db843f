/* sk-window.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sk-canvas.h"
#include "sk-code-cell-private.h"
#include "sk-step-folder.h"
#include "sk-history.h"
#include "sk-input-cell.h"
#include "sk-agent-key.h"
#include "sk-agent-settings.h"
#include "sk-output-cell.h"
#include "sk-properties-dialog.h"
#include "sk-runner.h"
#include "sk-window-private.h"

#define RECOVERY_DELAY_MS 2000
#define MAX_RECENT 6
/* Lines of the coding agent's progress kept per step. */
#define MAX_AGENT_LINES 200

struct _SkWindow
{
  AdwApplicationWindow  parent_instance;

  GSettings            *settings;
  GFile                *folder;
  SkProject            *project;
  SkHistory            *history;
  SkRunner             *runner;
  GCancellable         *cancellable;
  GCancellable         *run_cancellable;
  GPtrArray            *run_nodes;
  GPtrArray            *pending_run;
  GHashTable           *keys;
  GHashTable           *agent_logs;
  GtkSingleSelection   *step_selection;
  SkNode               *watched_node;
  guint                 recovery_id;
  guint                 missing_scripts;
  char                 *last_toast;
  char                 *last_toast_action;
  guint                 syncing_selection : 1;
  guint                 close_confirmed : 1;
  guint                 generating : 1;
  guint                 pending_generate : 1;

  SkInputCell          *input_cell;
  SkOutputCell         *output_cell;
  SkCodeCell           *code_cell;

  AdwToastOverlay      *toast_overlay;
  AdwWindowTitle       *window_title;
  GtkButton            *run_button;
  GtkButton            *stop_button;
  GtkProgressBar       *progress_bar;
  GtkStack             *stack;
  AdwStatusPage        *error_page;
  GtkSpinner           *loading_spinner;
  GtkListBox           *recent_list;
  GtkPaned             *outer_paned;
  GtkWidget            *step_list_box;
  GtkListView          *step_list;
  GtkLabel             *tokens_label;
  GtkLabel             *step_title;
  GtkWidget            *step_properties_button;
  GtkMenuButton        *step_menu_button;
  GtkStack             *cells_stack;
  GtkBox               *cells_box;
  SkCanvas             *canvas;
  GtkButton            *zoom_button;
  GtkWidget            *canvas_hint;
};

G_DEFINE_FINAL_TYPE (SkWindow, sk_window, ADW_TYPE_APPLICATION_WINDOW)

static void set_project      (SkWindow  *self,
                              SkProject *project);
static void update_actions   (SkWindow  *self);
static void start_work       (SkWindow  *self,
                              GPtrArray *nodes,
                              gboolean   generate);

static void
add_toast (SkWindow   *self,
           const char *message,
           gboolean    offer_preferences)
{
  const char *action_name = offer_preferences ? "app.agent-preferences" : NULL;
  AdwToast *toast;

  g_free (self->last_toast);
  self->last_toast = g_strdup (message);
  g_free (self->last_toast_action);
  self->last_toast_action = g_strdup (action_name);

  toast = adw_toast_new (message);
  adw_toast_set_timeout (toast, 5);
  if (action_name != NULL)
    {
      adw_toast_set_button_label (toast, _("_Preferences"));
      adw_toast_set_action_name (toast, action_name);
      /* A toast with a button stays longer: it asks for a decision. */
      adw_toast_set_timeout (toast, 10);
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* Says that the coding agent is not set up, with a way to set it up. */
static void
show_agent_toast (SkWindow   *self,
                  const char *message)
{
  add_toast (self, message, TRUE);
}

/**
 * sk_window_show_toast:
 * @self: a #SkWindow
 * @message: a sentence for the user
 *
 * Shows @message briefly over the window.
 */
void
sk_window_show_toast (SkWindow   *self,
                      const char *message)
{
  g_return_if_fail (SK_IS_WINDOW (self));

  add_toast (self, message, FALSE);
}

static void
show_message_cb (SkWindow   *self,
                 const char *message)
{
  sk_window_show_toast (self, message);
}

/* Title, actions and recovery */

static void
update_title (SkWindow *self)
{
  g_autofree char *title = NULL;
  g_autofree char *path = NULL;

  if (self->project == NULL)
    {
      adw_window_title_set_title (self->window_title, _("Skele-Code"));
      adw_window_title_set_subtitle (self->window_title, NULL);
      gtk_window_set_title (GTK_WINDOW (self), _("Skele-Code"));
      return;
    }

  if (sk_project_get_modified (self->project))
    title = g_strdup_printf ("• %s", sk_project_get_name (self->project));
  else
    title = g_strdup (sk_project_get_name (self->project));

  path = g_file_get_path (self->folder);
  if (path != NULL)
    {
      const char *home = g_get_home_dir ();

      if (g_str_has_prefix (path, home) && path[strlen (home)] == '/')
        {
          char *shorter = g_strconcat ("~", path + strlen (home), NULL);

          g_free (path);
          path = shorter;
        }
    }

  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, path);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static void
set_action_enabled (SkWindow   *self,
                    const char *name,
                    gboolean    enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  if (action != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

static gboolean
is_running (SkWindow *self)
{
  return self->run_cancellable != NULL;
}

static void
update_actions (SkWindow *self)
{
  gboolean has_project = self->project != NULL;
  gboolean running = is_running (self);

  set_action_enabled (self, "save", has_project);
  set_action_enabled (self, "save-as", has_project);
  set_action_enabled (self, "undo", has_project && sk_history_get_can_undo (self->history));
  set_action_enabled (self, "redo", has_project && sk_history_get_can_redo (self->history));
  set_action_enabled (self, "run", has_project && !running);
  set_action_enabled (self, "run-node", has_project && !running);
  set_action_enabled (self, "run-from", has_project && !running);
  set_action_enabled (self, "run-to", has_project && !running);
  set_action_enabled (self, "stop", running);
  set_action_enabled (self, "generate-code", has_project && !running);
  set_action_enabled (self, "regenerate-code",
                      has_project && !running &&
                      sk_canvas_get_selected_node (self->canvas) != NULL &&
                      sk_code_cell_get_has_script (self->code_cell));
  set_action_enabled (self, "arrange", has_project);
  set_action_enabled (self, "edit-process", has_project);
  set_action_enabled (self, "zoom-in", has_project);
  set_action_enabled (self, "zoom-out", has_project);
  set_action_enabled (self, "zoom-reset", has_project);
  set_action_enabled (self, "zoom-fit", has_project);

  gtk_widget_set_visible (GTK_WIDGET (self->run_button), !running);
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), running);
}

static void
delete_recovery (SkWindow *self)
{
  g_autoptr(GFile) recovery = NULL;

  g_clear_handle_id (&self->recovery_id, g_source_remove);
  if (self->folder == NULL)
    return;

  recovery = sk_step_folder_get_recovery_file (self->folder);
  g_file_delete (recovery, NULL, NULL);
}

static gboolean
write_recovery_cb (gpointer user_data)
{
  SkWindow *self = user_data;
  g_autoptr(GFile) recovery = NULL;
  g_autoptr(GFile) parent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_autofree char *path = NULL;
  gsize length;

  self->recovery_id = 0;
  if (self->project == NULL || !sk_project_get_modified (self->project))
    return G_SOURCE_REMOVE;

  recovery = sk_step_folder_get_recovery_file (self->folder);
  parent = g_file_get_parent (recovery);
  g_file_make_directory_with_parents (parent, NULL, NULL);

  data = sk_project_to_data (self->project, &length);
  path = g_file_get_path (recovery);
  if (!g_file_set_contents_full (path, data, length, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    g_debug ("Could not write the recovery copy: %s", error->message);

  return G_SOURCE_REMOVE;
}

static void
schedule_recovery (SkWindow *self)
{
  if (self->recovery_id != 0)
    return;

  self->recovery_id = g_timeout_add (RECOVERY_DELAY_MS, write_recovery_cb, self);
}

static void
project_modified_cb (SkWindow *self)
{
  update_title (self);

  if (sk_project_get_modified (self->project))
    schedule_recovery (self);
  else
    delete_recovery (self);
}

static void
project_changed_cb (SkWindow *self)
{
  if (sk_project_get_modified (self->project))
    schedule_recovery (self);
}

/* Step folders follow the step's key, which follows its name, so that a
 * renamed step keeps its code, files and results. */
static void
rename_in_folder (GFile      *folder,
                  const char *old_name,
                  const char *new_name)
{
  g_autoptr(GFile) from = g_file_get_child (folder, old_name);
  g_autoptr(GFile) to = g_file_get_child (folder, new_name);

  if (g_file_query_exists (from, NULL) && !g_file_query_exists (to, NULL))
    g_file_move (from, to, G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, NULL);
}

static gboolean
file_mentions (GFile      *file,
               const char *text)
{
  g_autofree char *contents = NULL;

  if (file == NULL || !g_file_load_contents (file, NULL, &contents, NULL, NULL, NULL))
    return FALSE;

  return strstr (contents, text) != NULL;
}

/* Scripts name their own step and the steps they need by key, so a renamed
 * step's code, and that of the steps after it, may still use the old key. */
static gboolean
code_mentions_key (SkWindow   *self,
                   SkNode     *node,
                   const char *key)
{
  g_autoptr(GPtrArray) successors = sk_project_get_successors (self->project, node);
  g_autoptr(GFile) script = sk_project_get_node_script (self->project, node);
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", key);
  g_autofree char *single_quoted = g_strdup_printf ("'%s'", key);

  if (file_mentions (script, quoted) || file_mentions (script, single_quoted))
    return TRUE;

  for (guint i = 0; i < successors->len; i++)
    {
      g_autoptr(GFile) other = sk_project_get_node_script (self->project, g_ptr_array_index (successors, i));

      if (file_mentions (other, quoted) || file_mentions (other, single_quoted))
        return TRUE;
    }

  return FALSE;
}

static void
node_key_changed_cb (SkWindow   *self,
                     GParamSpec *pspec,
                     SkNode     *node)
{
  const char *old_key = g_hash_table_lookup (self->keys, node);
  const char *new_key = sk_node_get_key (node);
  g_autoptr(GFile) from = NULL;
  g_autoptr(GFile) to = NULL;
  g_autoptr(GError) error = NULL;

  if (old_key == NULL || g_strcmp0 (old_key, new_key) == 0 || new_key[0] == '\0')
    goto remember;

  from = g_file_get_child (self->folder, old_key);
  to = g_file_get_child (self->folder, new_key);
  if (!g_file_query_exists (from, NULL))
    goto remember;

  if (g_file_query_exists (to, NULL))
    {
      g_autofree char *message = g_strdup_printf (_("The folder “%s” already exists, so the files of “%s” stay in “%s”"),
                                                  new_key, sk_node_get_name (node), old_key);

      sk_window_show_toast (self, message);
      goto remember;
    }

  if (!g_file_move (from, to, G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, &error))
    {
      g_autofree char *message = g_strdup_printf (_("The step’s folder could not be renamed: %s"), error->message);

      sk_window_show_toast (self, message);
      goto remember;
    }

  {
    const char *suffixes[] = { ".py", ".pkl", "_summary.txt" };
    g_autoptr(GFile) tests = g_file_get_child (to, "test");
    g_autofree char *old_test = g_strdup_printf ("test_%s.py", old_key);
    g_autofree char *new_test = g_strdup_printf ("test_%s.py", new_key);

    for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
      {
        g_autofree char *old_name = g_strconcat (old_key, suffixes[i], NULL);
        g_autofree char *new_name = g_strconcat (new_key, suffixes[i], NULL);

        rename_in_folder (to, old_name, new_name);
      }
    rename_in_folder (tests, old_test, new_test);
  }

  if (code_mentions_key (self, node, old_key))
    {
      g_autofree char *message = g_strdup_printf (_("The code of “%s” or of the steps that need it still uses its old name “%s”. "
                                                    "Change it there, or clear the code to have it written again."),
                                                  sk_node_get_name (node), old_key);

      sk_window_show_toast (self, message);
    }

remember:
  g_hash_table_insert (self->keys, node, g_strdup (new_key));
}

static void
update_tokens_total (SkWindow *self)
{
  g_autofree char *tokens = NULL;
  g_autofree char *text = NULL;
  guint64 read = 0, written = 0;

  if (self->project != NULL)
    sk_project_get_tokens (self->project, &read, &written);

  gtk_widget_set_visible (GTK_WIDGET (self->tokens_label), read > 0 || written > 0);
  if (read == 0 && written == 0)
    return;

  tokens = sk_output_cell_describe_tokens (read, written);
  /* Translators: %s is the tokens the coding agent used for every step of
   * the workflow, as in “1 234 tokens read, 567 written”. */
  text = g_strdup_printf (_("All steps: %s"), tokens);
  gtk_label_set_label (self->tokens_label, text);
}

static void
track_node (SkWindow *self,
            SkNode   *node)
{
  g_hash_table_insert (self->keys, node, g_strdup (sk_node_get_key (node)));
  g_signal_connect_object (node, "notify::key", G_CALLBACK (node_key_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (node, "notify::tokens", G_CALLBACK (update_tokens_total), self, G_CONNECT_SWAPPED);
}

static void
update_hint (SkWindow *self)
{
  gboolean empty = self->project == NULL || g_list_model_get_n_items (G_LIST_MODEL (self->project)) == 0;

  gtk_widget_set_visible (self->canvas_hint, empty);
}

static void
project_items_changed_cb (SkWindow   *self,
                          guint       position,
                          guint       removed,
                          guint       added,
                          GListModel *model)
{
  for (guint i = 0; i < added; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (model, position + i);

      track_node (self, node);
    }

  update_hint (self);
  update_tokens_total (self);
  update_actions (self);
}

static void
node_removed_cb (SkWindow *self,
                 SkNode   *node)
{
  g_signal_handlers_disconnect_by_data (node, self);
  g_hash_table_remove (self->keys, node);
  g_hash_table_remove (self->agent_logs, node);
}

/* The coding agent's progress, kept per step so that selecting a step
 * shows what the agent did for it until the step runs again. */
static GtkStringList *
agent_log_for (SkWindow *self,
               SkNode   *node)
{
  GtkStringList *log = g_hash_table_lookup (self->agent_logs, node);

  if (log == NULL)
    {
      log = gtk_string_list_new (NULL);
      g_hash_table_insert (self->agent_logs, node, log);
    }

  return log;
}

static void
clear_agent_logs (SkWindow  *self,
                  GPtrArray *nodes)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      GtkStringList *log = g_hash_table_lookup (self->agent_logs, g_ptr_array_index (nodes, i));

      if (log != NULL)
        gtk_string_list_splice (log, 0, g_list_model_get_n_items (G_LIST_MODEL (log)), NULL);
    }
}

static void
runner_agent_progress_cb (SkWindow   *self,
                          SkNode     *node,
                          const char *message)
{
  GtkStringList *log = agent_log_for (self, node);
  guint n_lines;

  gtk_string_list_append (log, message);
  n_lines = g_list_model_get_n_items (G_LIST_MODEL (log));
  if (n_lines > MAX_AGENT_LINES)
    gtk_string_list_splice (log, 0, n_lines - MAX_AGENT_LINES, NULL);
}

/* The selected step */

static void
update_step_header (SkWindow *self)
{
  SkNode *node = sk_canvas_get_selected_node (self->canvas);
  g_autoptr(GMenu) menu = NULL;

  gtk_widget_set_sensitive (self->step_properties_button, node != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->step_menu_button), node != NULL);

  if (node == NULL)
    {
      gtk_label_set_text (self->step_title, _("No step selected"));
      gtk_menu_button_set_menu_model (self->step_menu_button, NULL);
      return;
    }

  gtk_label_set_text (self->step_title, sk_node_get_name (node));

  menu = g_menu_new ();
  {
    g_autoptr(GMenuItem) run_node = g_menu_item_new (_("_Run This Step"), NULL);
    g_autoptr(GMenuItem) run_from = g_menu_item_new (_("Run _From Here"), NULL);
    g_autoptr(GMenuItem) run_to = g_menu_item_new (_("Run _To Here"), NULL);
    const char *id = sk_node_get_id (node);

    g_menu_item_set_action_and_target (run_node, "win.run-node", "s", id);
    g_menu_item_set_action_and_target (run_from, "win.run-from", "s", id);
    g_menu_item_set_action_and_target (run_to, "win.run-to", "s", id);
    g_menu_append_item (menu, run_node);
    g_menu_append_item (menu, run_from);
    g_menu_append_item (menu, run_to);
  }
  gtk_menu_button_set_menu_model (self->step_menu_button, G_MENU_MODEL (menu));
}

static void
selected_name_cb (SkWindow *self)
{
  update_step_header (self);
}

static void
canvas_selected_node_cb (SkWindow *self)
{
  SkNode *node = sk_canvas_get_selected_node (self->canvas);

  if (self->watched_node != NULL)
    g_signal_handlers_disconnect_by_func (self->watched_node, selected_name_cb, self);
  g_set_object (&self->watched_node, node);
  if (node != NULL)
    g_signal_connect_object (node, "notify::name", G_CALLBACK (selected_name_cb), self, G_CONNECT_SWAPPED);

  g_object_set (self->input_cell, "node", node, NULL);
  g_object_set (self->output_cell, "node", node, NULL);
  sk_output_cell_set_agent_log (self->output_cell,
                                node != NULL ? G_LIST_MODEL (agent_log_for (self, node)) : NULL);
  g_object_set (self->code_cell, "node", node, NULL);
  gtk_stack_set_visible_child_name (self->cells_stack, node != NULL ? "cells" : "empty");
  update_step_header (self);
  update_actions (self);

  if (self->step_selection != NULL && !self->syncing_selection)
    {
      guint position = GTK_INVALID_LIST_POSITION;
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->project));

      for (guint i = 0; node != NULL && i < n; i++)
        {
          g_autoptr(SkNode) item = g_list_model_get_item (G_LIST_MODEL (self->project), i);

          if (item == node)
            {
              position = i;
              break;
            }
        }

      self->syncing_selection = TRUE;
      gtk_single_selection_set_selected (self->step_selection, position);
      self->syncing_selection = FALSE;
    }
}

static void
step_selection_cb (SkWindow *self)
{
  SkNode *node;

  if (self->syncing_selection)
    return;

  node = gtk_single_selection_get_selected_item (self->step_selection);
  self->syncing_selection = TRUE;
  sk_canvas_select_node (self->canvas, node);
  if (node != NULL)
    sk_canvas_scroll_to_node (self->canvas, node);
  self->syncing_selection = FALSE;
}

static void
step_list_activate_cb (SkWindow *self,
                       guint     position)
{
  g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), position);

  if (node == NULL)
    return;

  sk_canvas_select_node (self->canvas, node);
  sk_canvas_scroll_to_node (self->canvas, node);
  sk_input_cell_focus_task (self->input_cell);
}

static const char *
state_icon_name (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_STALE:
      return "view-refresh-symbolic";
    case SK_NODE_STATE_QUEUED:
      return "content-loading-symbolic";
    case SK_NODE_STATE_RUNNING:
      return "media-playback-start-symbolic";
    case SK_NODE_STATE_WRITING_CODE:
      return "document-edit-symbolic";
    case SK_NODE_STATE_SUCCEEDED:
    case SK_NODE_STATE_UP_TO_DATE:
      return "emblem-ok-symbolic";
    case SK_NODE_STATE_FAILED:
      return "dialog-error-symbolic";
    case SK_NODE_STATE_SKIPPED:
      return "media-skip-forward-symbolic";
    case SK_NODE_STATE_CANCELLED:
      return "process-stop-symbolic";
    case SK_NODE_STATE_IDLE:
    default:
      return "media-record-symbolic";
    }
}

static void
update_step_row (GtkListItem *list_item)
{
  SkNode *node = gtk_list_item_get_item (list_item);
  GtkWidget *box = gtk_list_item_get_child (list_item);
  GtkWidget *icon = gtk_widget_get_first_child (box);
  GtkWidget *label = gtk_widget_get_next_sibling (icon);
  GtkWidget *mark = gtk_widget_get_next_sibling (label);
  SkNodeState state;
  g_autofree char *description = NULL;

  if (node == NULL)
    return;

  state = sk_node_get_state (node);
  gtk_image_set_from_icon_name (GTK_IMAGE (icon), state_icon_name (state));
  gtk_label_set_text (GTK_LABEL (label), sk_node_get_name (node));
  gtk_widget_set_visible (mark, sk_node_get_run (node));

  description = g_strdup_printf ("%s%s", sk_node_state_describe (state),
                                 sk_node_get_run (node) ? _(", marked to run") : "");
  gtk_widget_set_tooltip_text (box, description);
  gtk_accessible_update_property (GTK_ACCESSIBLE (box),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

static void
step_row_setup_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *list_item)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *mark = gtk_image_new_from_icon_name ("object-select-symbolic");

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (mark, "run-mark");
  gtk_widget_set_tooltip_text (mark, _("Marked to run"));
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), mark);
  gtk_list_item_set_child (list_item, box);
}

static void
step_row_bind_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *list_item)
{
  SkNode *node = gtk_list_item_get_item (list_item);

  g_signal_connect_object (node, "notify::name", G_CALLBACK (update_step_row), list_item, G_CONNECT_SWAPPED);
  g_signal_connect_object (node, "notify::state", G_CALLBACK (update_step_row), list_item, G_CONNECT_SWAPPED);
  g_signal_connect_object (node, "notify::run", G_CALLBACK (update_step_row), list_item, G_CONNECT_SWAPPED);
  update_step_row (list_item);
}

static void
step_row_unbind_cb (GtkSignalListItemFactory *factory,
                    GtkListItem              *list_item)
{
  SkNode *node = gtk_list_item_get_item (list_item);

  if (node != NULL)
    g_signal_handlers_disconnect_by_func (node, update_step_row, list_item);
}

/* Canvas callbacks */

static void
canvas_node_created_cb (SkWindow *self,
                        SkNode   *node)
{
  sk_input_cell_focus_task (self->input_cell);
}

static void
canvas_node_activated_cb (SkWindow *self,
                          SkNode   *node)
{
  sk_input_cell_focus_task (self->input_cell);
}

static void
show_properties (SkWindow *self,
                 SkNode   *node)
{
  SkPropertiesDialog *dialog;

  if (self->project == NULL)
    return;

  dialog = sk_properties_dialog_new (self->project, node, self->history);
  gtk_window_set_transient_for (GTK_WINDOW (dialog), GTK_WINDOW (self));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
canvas_edit_node_cb (SkWindow *self,
                     SkNode   *node)
{
  show_properties (self, node);
}

static void
canvas_edit_process_cb (SkWindow *self)
{
  show_properties (self, NULL);
}

static void
step_properties_clicked_cb (SkWindow *self)
{
  SkNode *node = sk_canvas_get_selected_node (self->canvas);

  if (node != NULL)
    show_properties (self, node);
}

static void
zoom_changed_cb (SkWindow *self)
{
  g_autofree char *label = g_strdup_printf ("%.0f%%", sk_canvas_get_zoom (self->canvas) * 100);

  gtk_button_set_label (self->zoom_button, label);
}

/* Recent workflows */

static void
add_to_recent (SkWindow *self)
{
  g_autoptr(GFile) file = g_file_get_child (self->folder, SK_PROJECT_FILE_NAME);
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

static void
fill_recent_list (SkWindow *self)
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

static void
recent_row_activated_cb (SkWindow      *self,
                         GtkListBoxRow *row)
{
  GFile *folder = g_object_get_data (G_OBJECT (row), "folder");

  if (folder != NULL)
    sk_window_open (self, folder, FALSE);
}

/* Opening */

static void
show_error_page (SkWindow   *self,
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
  g_autofree char *data = g_object_steal_data (G_OBJECT (dialog), "data");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  if (g_strcmp0 (response, "recover") != 0 || self->project == NULL)
    {
      delete_recovery (self);
      return;
    }

  if (!json_parser_load_from_data (parser, data, -1, &error) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      sk_window_show_toast (self, _("The unsaved changes could not be read"));
      return;
    }

  sk_history_begin (self->history, _("Recover Unsaved Changes"));
  if (!sk_project_update_from_json (self->project, json_node_get_object (root), &error))
    sk_window_show_toast (self, error->message);
  sk_history_end (self->history);
  sk_project_set_modified (self->project, TRUE);
}

static void
offer_recovery (SkWindow *self)
{
  g_autoptr(GFile) recovery = sk_step_folder_get_recovery_file (self->folder);
  g_autofree char *saved = NULL;
  g_autofree char *current = NULL;
  gsize length;
  AdwMessageDialog *dialog;

  if (!g_file_load_contents (recovery, NULL, &saved, &length, NULL, NULL))
    return;

  current = sk_project_to_data (self->project, NULL);
  if (g_strcmp0 (saved, current) == 0)
    {
      delete_recovery (self);
      return;
    }

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

/* A workflow with problems still opens, so that the user can fix them here;
 * the first problem is named at once rather than when Run refuses. */
static void
report_problems (SkWindow *self)
{
  g_autoptr(GPtrArray) problems = sk_project_validate (self->project);
  const SkProblem *first = NULL;
  guint errors = 0;
  g_autofree char *message = NULL;

  for (guint i = 0; i < problems->len; i++)
    {
      const SkProblem *problem = g_ptr_array_index (problems, i);

      if (problem->is_warning)
        continue;
      if (first == NULL)
        first = problem;
      errors++;
    }

  if (first == NULL)
    return;

  if (errors == 1)
    message = g_strdup (first->message);
  else
    message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "%s (and %u more problem)",
                                            "%s (and %u more problems)", errors - 1),
                               first->message, errors - 1);
  sk_window_show_toast (self, message);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GFile *folder = task_data;
  GError *error = NULL;
  SkProject *project = sk_project_load (folder, &error);

  if (project == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, project, g_object_unref);
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  SkWindow *self = SK_WINDOW (object);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;

  project = g_task_propagate_pointer (G_TASK (result), &error);
  if (project == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error_page (self, error->message);
      return;
    }

  set_project (self, project);
  report_problems (self);
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
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (SK_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (folder));

  if (is_running (self))
    {
      sk_window_show_toast (self, _("Stop the run before opening another workflow"));
      return;
    }

  g_set_object (&self->folder, folder);

  if (create)
    {
      g_autoptr(SkProject) project = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *name = g_file_get_basename (folder);

      if (!g_file_make_directory_with_parents (folder, NULL, &error) &&
          !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        {
          show_error_page (self, error->message);
          return;
        }
      g_clear_error (&error);

      project = sk_project_new (folder);
      sk_project_set_name (project, name);
      if (!sk_project_save (project, &error))
        {
          show_error_page (self, error->message);
          return;
        }
      set_project (self, project);
      return;
    }

  gtk_stack_set_visible_child_name (self->stack, "loading");
  gtk_spinner_start (self->loading_spinner);

  task = g_task_new (self, self->cancellable, load_cb, NULL);
  g_task_set_source_tag (task, sk_window_open);
  g_task_set_task_data (task, g_object_ref (folder), g_object_unref);
  g_task_run_in_thread (task, load_thread);
}

static void
history_changed_cb (SkWindow *self)
{
  update_actions (self);
}

static void
disconnect_project (SkWindow *self)
{
  if (self->project == NULL)
    return;

  g_signal_handlers_disconnect_by_data (self->project, self);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->project)); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), i);

      g_signal_handlers_disconnect_by_data (node, self);
    }
  if (self->history != NULL)
    g_signal_handlers_disconnect_by_data (self->history, self);
  g_hash_table_remove_all (self->keys);
  g_hash_table_remove_all (self->agent_logs);
}

static void
set_project (SkWindow  *self,
             SkProject *project)
{
  g_autoptr(SkHistory) history = NULL;

  /* Only the pending write is dropped: the recovery file of the folder
   * being opened is what offer_recovery() offers next. */
  g_clear_handle_id (&self->recovery_id, g_source_remove);
  disconnect_project (self);
  sk_canvas_set_project (self->canvas, NULL);

  g_set_object (&self->project, project);
  history = sk_history_new (project);
  g_set_object (&self->history, history);

  g_signal_connect_object (project, "notify::modified", G_CALLBACK (project_modified_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::name", G_CALLBACK (update_title), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "changed", G_CALLBACK (project_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "items-changed", G_CALLBACK (project_items_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "node-removed", G_CALLBACK (node_removed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (history, "notify::can-undo", G_CALLBACK (history_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (history, "notify::can-redo", G_CALLBACK (history_changed_cb), self, G_CONNECT_SWAPPED);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (project)); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      track_node (self, node);
    }

  g_object_set (self->input_cell, "project", project, "history", history, NULL);
  g_object_set (self->output_cell, "project", project, NULL);
  g_object_set (self->code_cell, "project", project, NULL);

  self->step_selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (project)));
  gtk_single_selection_set_autoselect (self->step_selection, FALSE);
  gtk_single_selection_set_can_unselect (self->step_selection, TRUE);
  gtk_single_selection_set_selected (self->step_selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_object (self->step_selection, "notify::selected", G_CALLBACK (step_selection_cb), self, G_CONNECT_SWAPPED);
  gtk_list_view_set_model (self->step_list, GTK_SELECTION_MODEL (self->step_selection));
  g_object_unref (self->step_selection);

  sk_canvas_set_history (self->canvas, history);
  sk_canvas_set_project (self->canvas, project);

  gtk_spinner_stop (self->loading_spinner);
  gtk_stack_set_visible_child_name (self->stack, "workflow");
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));

  add_to_recent (self);
  update_title (self);
  update_hint (self);
  update_tokens_total (self);
  update_actions (self);
}

/* File choosers */

static void
open_chosen (SkWindow *self,
             GFile    *folder,
             gboolean  create)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  SkWindow *target = self;

  /* A window keeps its workflow; another workflow opens in a new window. */
  if (self->project != NULL)
    {
      target = sk_window_new (SK_APPLICATION (app));
      gtk_window_present (GTK_WINDOW (target));
    }

  sk_window_open (target, folder, create);
}

typedef void (*FolderChosen) (SkWindow *self,
                              GFile    *folder);

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
static void
choose_folder (SkWindow     *self,
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

  choose_folder (self, _("Choose a Folder for the New Workflow"), _("_Create"), TRUE, new_folder_chosen);
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

  choose_folder (self, _("Open Workflow"), _("_Open"), FALSE, open_folder_chosen);
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

  if (self->project == NULL)
    return FALSE;

  if (!sk_project_save (self->project, &error))
    {
      g_autofree char *message = g_strdup_printf (_("The workflow could not be saved: %s"), error->message);

      sk_window_show_toast (self, message);
      return FALSE;
    }

  delete_recovery (self);
  add_to_recent (self);
  update_title (self);

  return TRUE;
}

static void
save_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SkWindow *self = user_data;

  if (sk_window_save (self))
    sk_window_show_toast (self, _("Saved"));
}

static void
save_as_folder_chosen (SkWindow *self,
                       GFile    *folder)
{
  g_autoptr(GFile) process = NULL;
  g_autoptr(GError) error = NULL;

  if (self->project == NULL)
    return;

  if (g_file_equal (folder, self->folder))
    {
      sk_window_save (self);
      return;
    }

  if (g_file_has_prefix (folder, self->folder))
    {
      sk_window_show_toast (self, _("A workflow cannot be saved inside its own folder. Choose a folder outside it."));
      return;
    }

  process = g_file_get_child (folder, SK_PROJECT_FILE_NAME);
  if (g_file_query_exists (process, NULL))
    {
      sk_window_show_toast (self, _("That folder already holds a workflow. Choose an empty folder."));
      return;
    }

  /* The steps' scripts and attached files travel with the workflow. */
  if (!sk_step_folder_copy_workflow (self->folder, folder, &error) ||
      !sk_project_save_to_folder (self->project, folder, &error))
    {
      g_autofree char *message = g_strdup_printf (_("The workflow could not be saved: %s"), error->message);

      sk_window_show_toast (self, message);
      return;
    }

  delete_recovery (self);
  g_set_object (&self->folder, folder);
  add_to_recent (self);
  update_title (self);
  sk_window_show_toast (self, _("Saved"));
}

static void
save_as_action (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  choose_folder (user_data, _("Save Workflow As"), _("_Save"), TRUE, save_as_folder_chosen);
}

/* Undo */

static gboolean
text_widget_undo (GtkWidget *focus,
                  gboolean   redo)
{
  GtkTextBuffer *buffer;

  /* The code editor keeps its own undo history, because code is a file and
   * not part of the workflow model. */
  if (!GTK_SOURCE_IS_VIEW (focus))
    return FALSE;

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (focus));
  if (redo && gtk_text_buffer_get_can_redo (buffer))
    gtk_text_buffer_redo (buffer);
  else if (!redo && gtk_text_buffer_get_can_undo (buffer))
    gtk_text_buffer_undo (buffer);

  return TRUE;
}

static void
undo_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SkWindow *self = user_data;

  if (text_widget_undo (gtk_root_get_focus (GTK_ROOT (self)), FALSE))
    return;

  if (self->history != NULL)
    sk_history_undo (self->history);
}

static void
redo_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SkWindow *self = user_data;

  if (text_widget_undo (gtk_root_get_focus (GTK_ROOT (self)), TRUE))
    return;

  if (self->history != NULL)
    sk_history_redo (self->history);
}

/* Running and writing code */

static void
update_progress (SkWindow *self)
{
  guint done = 0;
  SkNode *running = NULL;
  SkNode *writing = NULL;
  g_autofree char *text = NULL;

  if (self->run_nodes == NULL || self->run_nodes->len == 0)
    return;

  for (guint i = 0; i < self->run_nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->run_nodes, i);
      SkNodeState state = sk_node_get_state (node);
      gboolean finished;

      /* Writing code leaves a step as it was, not in a finished state. */
      if (self->generating)
        finished = state != SK_NODE_STATE_QUEUED && state != SK_NODE_STATE_WRITING_CODE;
      else
        finished = sk_node_state_is_finished (state);

      if (finished)
        done++;
      else if (state == SK_NODE_STATE_WRITING_CODE && writing == NULL)
        writing = node;
      else if (state == SK_NODE_STATE_RUNNING && running == NULL)
        running = node;
    }

  if (writing != NULL)
    text = g_strdup_printf (_("Writing the code of “%s”… %u of %u steps done"),
                            sk_node_get_name (writing), done, self->run_nodes->len);
  else if (running != NULL)
    text = g_strdup_printf (_("Running “%s” — %u of %u steps done"),
                            sk_node_get_name (running), done, self->run_nodes->len);
  else
    text = g_strdup_printf (_("%u of %u steps done"), done, self->run_nodes->len);

  gtk_progress_bar_set_fraction (self->progress_bar, (double) done / self->run_nodes->len);
  gtk_progress_bar_set_text (self->progress_bar, text);
}

static void
runner_state_cb (SkWindow *self)
{
  update_progress (self);
}

static guint
count_missing_scripts (SkWindow  *self,
                       GPtrArray *nodes)
{
  guint missing = 0;

  for (guint i = 0; i < nodes->len; i++)
    {
      g_autoptr(GFile) script = sk_project_get_node_script (self->project, g_ptr_array_index (nodes, i));

      if (script == NULL || !g_file_query_exists (script, NULL))
        missing++;
    }

  return missing;
}

/* Which model the coding agent uses, from Preferences and the environment;
 * %NULL without an error when none is chosen. The API key is not looked up
 * here, since the keyring may take its time: see start_work(). */
static SkAgentSettings *
load_agent_settings (SkWindow  *self,
                     GError   **error)
{
  g_autoptr(SkAgentSettings) settings = sk_agent_settings_load (self->settings, FALSE, error);

  if (settings == NULL || settings->model == NULL || settings->model[0] == '\0')
    return NULL;

  return g_steal_pointer (&settings);
}

static void
finish_work (SkWindow *self)
{
  g_clear_object (&self->run_cancellable);
  g_clear_pointer (&self->run_nodes, g_ptr_array_unref);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), FALSE);
  update_actions (self);
}

static void
report_run (SkWindow         *self,
            GPtrArray        *nodes,
            const SkRunStats *stats,
            gboolean          stopped,
            gboolean          had_agent)
{
  g_autoptr(GString) message = g_string_new (NULL);
  guint missing = self->missing_scripts;
  gboolean offer_agent = FALSE;

  if (stats->cancelled > 0 || stopped)
    g_string_append (message, _("Run stopped"));
  else if (stats->failed > 0)
    g_string_append (message, _("Run finished with failures"));
  else
    g_string_append (message, _("Run finished"));

  g_string_append_printf (message, ": ");
  g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u step succeeded", "%u steps succeeded", stats->succeeded + stats->up_to_date),
                          stats->succeeded + stats->up_to_date);
  if (stats->failed > 0)
    {
      g_string_append (message, ", ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u failed", "%u failed", stats->failed), stats->failed);
    }
  if (stats->skipped > 0)
    {
      g_string_append (message, ", ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u skipped", "%u skipped", stats->skipped), stats->skipped);
    }

  if (missing > 0 && !had_agent)
    {
      g_string_append (message, ". ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE,
                                                    "%u step has no code yet: a coding agent can write it once you choose its model in Preferences",
                                                    "%u steps have no code yet: a coding agent can write them once you choose its model in Preferences",
                                                    missing),
                              missing);
      offer_agent = TRUE;
    }
  else if (missing > 0)
    {
      guint still_missing = count_missing_scripts (self, nodes);
      guint written = missing > still_missing ? missing - still_missing : 0;

      if (written > 0)
        {
          g_string_append (message, ". ");
          g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE,
                                                        "The coding agent wrote the code of %u step",
                                                        "The coding agent wrote the code of %u steps",
                                                        written),
                                  written);
        }
    }

  if (offer_agent)
    show_agent_toast (self, message->str);
  else
    sk_window_show_toast (self, message->str);
}

static void
report_generation (SkWindow         *self,
                   const SkRunStats *stats,
                   gboolean          stopped)
{
  g_autoptr(GString) message = g_string_new (NULL);

  if (stats->cancelled > 0 || stopped)
    g_string_append (message, _("Writing code stopped"));
  else if (stats->failed > 0)
    g_string_append (message, _("Writing code finished with failures"));
  else
    g_string_append (message, _("Code written"));

  g_string_append (message, ": ");
  g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u step got new code", "%u steps got new code", stats->succeeded),
                          stats->succeeded);
  if (stats->failed > 0)
    {
      g_string_append (message, ", ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u failed", "%u failed", stats->failed), stats->failed);
    }

  sk_window_show_toast (self, message->str);
}

static void
run_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(SkWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = NULL;
  SkRunStats stats = { 0 };
  gboolean generated = self->generating;
  gboolean had_agent = sk_runner_get_agent (SK_RUNNER (object)) != NULL;
  gboolean finished;
  SkNode *first_failed = NULL;

  finished = sk_runner_run_finish (SK_RUNNER (object), result, &stats, &error);

  /* A window closed meanwhile has nothing left to show it on. */
  if (self->project == NULL)
    return;

  nodes = g_steal_pointer (&self->run_nodes);
  finish_work (self);

  if (!finished && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = NULL;

      if (generated)
        text = g_strdup_printf (_("The coding agent could not start: %s"), error->message);
      else
        text = g_strdup_printf (_("The workflow could not run: %s"), error->message);
      sk_window_show_toast (self, text);
      return;
    }

  if (nodes == NULL)
    return;

  if (generated)
    report_generation (self, &stats, error != NULL);
  else
    report_run (self, nodes, &stats, error != NULL, had_agent);

  /* Showing the first failure saves the user a search. */
  for (guint i = 0; i < nodes->len && first_failed == NULL; i++)
    if (sk_node_get_state (g_ptr_array_index (nodes, i)) == SK_NODE_STATE_FAILED)
      first_failed = g_ptr_array_index (nodes, i);
  if (first_failed != NULL)
    {
      sk_canvas_select_node (self->canvas, first_failed);
      sk_canvas_scroll_to_node (self->canvas, first_failed);
    }

  update_title (self);
}

/* Starts what start_work() prepared, with the coding agent @settings
 * describe, or without one. */
static void
launch (SkWindow      *self,
        SkAgentSettings *settings)
{
  g_autofree char *python = NULL;
  gboolean has_agent = FALSE;

  /* The runner is the window's own: a run without an agent must not keep
   * the previous run's. */
  sk_runner_set_agent (self->runner, NULL);
  if (settings != NULL)
    {
      g_autoptr(GError) error = NULL;

      has_agent = sk_runner_set_agent_settings (self->runner, settings, &error);
      if (!has_agent)
        show_agent_toast (self, error->message);
    }

  if (!has_agent && self->generating)
    {
      finish_work (self);
      return;
    }

  sk_runner_set_jobs (self->runner, g_settings_get_uint (self->settings, "jobs"));
  sk_runner_set_timeout (self->runner, g_settings_get_uint (self->settings, "timeout"));
  python = g_settings_get_string (self->settings, "python");
  sk_runner_set_python (self->runner, python[0] != '\0' ? python : NULL);

  if (self->generating)
    sk_runner_generate_async (self->runner, self->project, self->run_nodes, self->run_cancellable,
                              run_cb, g_object_ref (self));
  else
    sk_runner_run_async (self->runner, self->project, self->run_nodes, self->run_cancellable,
                         run_cb, g_object_ref (self));

  update_progress (self);
}

typedef struct
{
  SkWindow      *self;
  SkAgentSettings *settings;
} KeyLookup;

static void
key_lookup_free (KeyLookup *lookup)
{
  g_clear_object (&lookup->self);
  g_clear_pointer (&lookup->settings, sk_agent_settings_free);
  g_free (lookup);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KeyLookup, key_lookup_free)

static void
key_lookup_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(KeyLookup) lookup = user_data;
  SkWindow *self = lookup->self;
  g_autoptr(GError) error = NULL;
  char *key;

  key = sk_agent_key_lookup_finish (result, &error);

  if (self->project == NULL || self->run_cancellable == NULL)
    {
      g_free (key);
      return;
    }

  if (g_cancellable_is_cancelled (self->run_cancellable))
    {
      gboolean generating = self->generating;

      g_free (key);
      finish_work (self);
      sk_window_show_toast (self, generating ? _("Writing code stopped") : _("Run stopped"));
      return;
    }

  /* A server on this computer often needs no key; one that does says so
   * when it refuses the request. */
  if (error != NULL)
    g_debug ("No API key from the keyring: %s", error->message);

  g_free (lookup->settings->api_key);
  lookup->settings->api_key = key;
  launch (self, lookup->settings);
}

static void
code_saved_cb (SkWindow *self)
{
  g_autoptr(GPtrArray) nodes = g_steal_pointer (&self->pending_run);

  g_signal_handlers_disconnect_by_func (self->code_cell, code_saved_cb, self);
  if (nodes != NULL && !sk_code_cell_get_modified (self->code_cell))
    start_work (self, nodes, self->pending_generate);
}

/* Runs @nodes, or has the coding agent write the code of those that have
 * none when @generate is set. The agent is set up from Preferences anew
 * each time, so that a change there counts from the next run on. */
static void
start_work (SkWindow  *self,
            GPtrArray *nodes,
            gboolean   generate)
{
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(GError) error = NULL;

  if (self->project == NULL || is_running (self))
    return;

  if (nodes->len == 0)
    {
      if (generate)
        sk_window_show_toast (self, _("Every step has code already"));
      else
        sk_window_show_toast (self, _("No step is marked to run. Right-click a step to mark it."));
      return;
    }

  settings = load_agent_settings (self, &error);
  if (error != NULL)
    sk_window_show_toast (self, error->message);
  if (generate && settings == NULL)
    {
      if (error == NULL)
        show_agent_toast (self, _("No coding agent is set up yet. Choose its model in Preferences, and it writes the code."));
      return;
    }

  /* A code edit still waiting for its save would not be what runs; write it
   * first and start once it is on disk. */
  if (sk_code_cell_get_modified (self->code_cell))
    {
      if (self->pending_run == NULL)
        g_signal_connect_object (self->code_cell, "saved", G_CALLBACK (code_saved_cb), self, G_CONNECT_SWAPPED);
      g_clear_pointer (&self->pending_run, g_ptr_array_unref);
      self->pending_run = g_ptr_array_ref (nodes);
      self->pending_generate = !!generate;
      sk_code_cell_save (self->code_cell);
      return;
    }

  /* The runner reads the scripts and the workflow from disk, so what runs
   * is what the user sees. */
  if (sk_project_get_modified (self->project) && !sk_window_save (self))
    return;

  self->missing_scripts = count_missing_scripts (self, nodes);
  self->run_cancellable = g_cancellable_new ();
  self->run_nodes = g_ptr_array_ref (nodes);
  self->generating = !!generate;
  clear_agent_logs (self, nodes);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), TRUE);
  update_actions (self);

  /* The keyring is asked without blocking the window, and Stop works
   * meanwhile. */
  if (settings != NULL && settings->api_key == NULL)
    {
      KeyLookup *lookup = g_new0 (KeyLookup, 1);

      lookup->self = g_object_ref (self);
      lookup->settings = g_steal_pointer (&settings);
      gtk_progress_bar_set_text (self->progress_bar, _("Preparing the coding agent…"));
      sk_agent_key_lookup_async (lookup->settings->provider, lookup->settings->base_url,
                                 self->run_cancellable, key_lookup_cb, lookup);
      return;
    }

  launch (self, settings);
}

/**
 * sk_window_run_nodes:
 * @self: a #SkWindow
 * @nodes: (element-type SkNode): the steps to run
 *
 * Saves the workflow, then runs @nodes in dependency order without blocking
 * the window. When a coding agent is set up in Preferences, it writes the
 * missing scripts first and repairs the scripts that fail.
 */
void
sk_window_run_nodes (SkWindow  *self,
                     GPtrArray *nodes)
{
  g_return_if_fail (SK_IS_WINDOW (self));
  g_return_if_fail (nodes != NULL);

  start_work (self, nodes, FALSE);
}

static void
run_selected (SkWindow           *self,
              const char * const *only,
              const char         *from,
              const char         *to)
{
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GError) error = NULL;

  if (self->project == NULL)
    return;

  nodes = sk_project_select_nodes (self->project, only, from, to, &error);
  if (nodes == NULL)
    {
      sk_window_show_toast (self, error->message);
      return;
    }

  sk_window_run_nodes (self, nodes);
}

static void
run_action (GSimpleAction *action,
            GVariant      *parameter,
            gpointer       user_data)
{
  run_selected (user_data, NULL, NULL, NULL);
}

static void
run_node_action (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  SkWindow *self = user_data;
  const char *id = g_variant_get_string (parameter, NULL);
  const char *name = g_action_get_name (G_ACTION (action));
  const char *only[] = { id, NULL };

  if (g_str_equal (name, "run-node"))
    run_selected (self, only, NULL, NULL);
  else if (g_str_equal (name, "run-from"))
    run_selected (self, NULL, id, NULL);
  else
    run_selected (self, NULL, NULL, id);
}

static void
stop_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SkWindow *self = user_data;

  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
}

static void
generate_code_action (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  SkWindow *self = user_data;
  g_autoptr(GPtrArray) nodes = NULL;
  guint n_nodes;

  if (self->project == NULL)
    return;

  nodes = g_ptr_array_new_with_free_func (g_object_unref);
  n_nodes = g_list_model_get_n_items (G_LIST_MODEL (self->project));
  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), i);
      g_autoptr(GFile) script = sk_project_get_node_script (self->project, node);

      if (script != NULL && !g_file_query_exists (script, NULL))
        g_ptr_array_add (nodes, g_steal_pointer (&node));
    }

  start_work (self, nodes, TRUE);
}

typedef struct
{
  SkWindow *self;
  SkNode   *node;
} Regeneration;

static void
regeneration_free (Regeneration *regeneration)
{
  g_clear_object (&regeneration->self);
  g_clear_object (&regeneration->node);
  g_free (regeneration);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Regeneration, regeneration_free)

static void
put_aside_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Regeneration) regeneration = user_data;
  SkWindow *self = regeneration->self;
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GError) error = NULL;

  if (!_sk_code_cell_put_aside_finish (SK_CODE_CELL (object), result, &error))
    {
      g_autofree char *message = NULL;

      if (self->project == NULL)
        return;

      message = g_strdup_printf (_("The script could not be put aside, so it was left as it is: %s"),
                                 error->message);
      sk_window_show_toast (self, message);
      return;
    }

  if (self->project == NULL ||
      sk_project_get_node (self->project, sk_node_get_id (regeneration->node)) != regeneration->node)
    return;

  nodes = g_ptr_array_new ();
  g_ptr_array_add (nodes, regeneration->node);
  start_work (self, nodes, TRUE);
}

static void
regenerate_response_cb (AdwMessageDialog *dialog,
                        const char       *response,
                        SkWindow         *self)
{
  SkNode *node = g_object_get_data (G_OBJECT (dialog), "sk-node");
  Regeneration *regeneration;
  g_autoptr(GFile) script = NULL;

  if (g_strcmp0 (response, "regenerate") != 0 || self->project == NULL)
    return;

  /* The step may have gone, or a run started, while the dialog was open. */
  if (sk_project_get_node (self->project, sk_node_get_id (node)) != node)
    return;
  if (is_running (self))
    {
      sk_window_show_toast (self, _("The code was left as it is: stop the run, or wait for it to finish, then regenerate the code"));
      return;
    }

  script = sk_project_get_node_script (self->project, node);
  if (script == NULL)
    return;

  regeneration = g_new0 (Regeneration, 1);
  regeneration->self = g_object_ref (self);
  regeneration->node = g_object_ref (node);
  _sk_code_cell_put_aside_async (self->code_cell, script, put_aside_cb, regeneration);
}

static void
regenerate_code_action (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  SkWindow *self = user_data;
  SkNode *node = sk_canvas_get_selected_node (self->canvas);
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) script = NULL;
  g_autoptr(GFile) previous = NULL;
  g_autofree char *kept = NULL;
  AdwMessageDialog *dialog;

  if (self->project == NULL || node == NULL || is_running (self))
    return;

  settings = load_agent_settings (self, &error);
  if (settings == NULL)
    {
      if (error != NULL)
        sk_window_show_toast (self, error->message);
      else
        show_agent_toast (self, _("No coding agent is set up yet. Choose its model in Preferences, and it writes new code for this step."));
      return;
    }

  script = sk_project_get_node_script (self->project, node);
  if (script == NULL)
    return;
  previous = sk_project_get_previous_script (script);
  kept = g_file_get_relative_path (self->folder, previous);
  if (kept == NULL)
    kept = g_file_get_path (previous);

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Clear and Regenerate the Code?"), NULL));
  adw_message_dialog_format_body (dialog,
                                  _("The coding agent writes new code for “%s” now. The current "
                                    "script is kept as %s, so nothing is lost."),
                                  sk_node_get_name (node), kept);
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "regenerate", _("_Regenerate"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "regenerate", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "regenerate");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "sk-node", g_object_ref (node), g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (regenerate_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
arrange_action (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  SkWindow *self = user_data;

  sk_canvas_arrange (self->canvas);
}

static void
edit_process_action (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  show_properties (user_data, NULL);
}

/* The zoom buttons float over the canvas but are not inside it, so they
 * reach its actions through these. */
static void
zoom_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SkWindow *self = user_data;
  g_autofree char *name = g_strconcat ("canvas.", g_action_get_name (G_ACTION (action)), NULL);

  gtk_widget_activate_action (GTK_WIDGET (self->canvas), name, NULL);
}

static void
close_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  gtk_window_close (GTK_WINDOW (user_data));
}

static const GActionEntry win_actions[] = {
  { "save", save_action },
  { "save-as", save_as_action },
  { "close", close_action },
  { "undo", undo_action },
  { "redo", redo_action },
  { "run", run_action },
  { "run-node", run_node_action, "s" },
  { "run-from", run_node_action, "s" },
  { "run-to", run_node_action, "s" },
  { "stop", stop_action },
  { "generate-code", generate_code_action },
  { "regenerate-code", regenerate_code_action },
  { "arrange", arrange_action },
  { "edit-process", edit_process_action },
  { "zoom-in", zoom_action },
  { "zoom-out", zoom_action },
  { "zoom-reset", zoom_action },
  { "zoom-fit", zoom_action },
};

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
    delete_recovery (self);
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

static void
save_window_state (SkWindow *self)
{
  int width, height;

  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (GTK_WINDOW (self)));
  if (!gtk_window_is_maximized (GTK_WINDOW (self)))
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
}

static gboolean
sk_window_close_request (GtkWindow *window)
{
  SkWindow *self = SK_WINDOW (window);

  if (self->project != NULL && sk_project_get_modified (self->project) && !self->close_confirmed)
    {
      AdwMessageDialog *dialog;
      g_autofree char *body = g_strdup_printf (_("“%s” has changes that are not saved yet."),
                                               sk_project_get_name (self->project));

      dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (window, _("Save Changes?"), body));
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
      return TRUE;
    }

  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
  g_cancellable_cancel (self->cancellable);
  save_window_state (self);

  return GTK_WINDOW_CLASS (sk_window_parent_class)->close_request (window);
}

/* Construction */

SkWindow *
sk_window_new (SkApplication *application)
{
  return g_object_new (SK_TYPE_WINDOW, "application", application, NULL);
}

/**
 * sk_window_get_folder:
 * @self: a #SkWindow
 *
 * Returns: (transfer none) (nullable): the folder of the workflow shown
 */
GFile *
sk_window_get_folder (SkWindow *self)
{
  g_return_val_if_fail (SK_IS_WINDOW (self), NULL);

  return self->folder;
}

/**
 * sk_window_get_project:
 * @self: a #SkWindow
 *
 * Returns: (transfer none) (nullable): the workflow shown
 */
SkProject *
sk_window_get_project (SkWindow *self)
{
  g_return_val_if_fail (SK_IS_WINDOW (self), NULL);

  return self->project;
}

SkCanvas *
_sk_window_get_canvas (SkWindow *self)
{
  return self->canvas;
}

SkHistory *
_sk_window_get_history (SkWindow *self)
{
  return self->history;
}

SkOutputCell *
_sk_window_get_output_cell (SkWindow *self)
{
  return self->output_cell;
}

SkInputCell *
_sk_window_get_input_cell (SkWindow *self)
{
  return self->input_cell;
}

void
_sk_window_save_as (SkWindow *self,
                    GFile    *folder)
{
  save_as_folder_chosen (self, folder);
}

gboolean
_sk_window_is_running (SkWindow *self)
{
  return is_running (self);
}

const char *
_sk_window_get_last_toast (SkWindow *self)
{
  return self->last_toast;
}

const char *
_sk_window_get_last_toast_action (SkWindow *self)
{
  return self->last_toast_action;
}

SkCodeCell *
_sk_window_get_code_cell (SkWindow *self)
{
  return self->code_cell;
}

static void
sk_window_dispose (GObject *object)
{
  SkWindow *self = SK_WINDOW (object);

  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->recovery_id, g_source_remove);
  disconnect_project (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), SK_TYPE_WINDOW);

  if (self->watched_node != NULL)
    g_signal_handlers_disconnect_by_func (self->watched_node, selected_name_cb, self);
  g_clear_object (&self->watched_node);
  g_clear_object (&self->project);
  g_clear_object (&self->history);
  g_clear_object (&self->folder);
  g_clear_object (&self->runner);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->run_cancellable);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->run_nodes, g_ptr_array_unref);
  g_clear_pointer (&self->pending_run, g_ptr_array_unref);
  g_clear_pointer (&self->keys, g_hash_table_unref);
  g_clear_pointer (&self->agent_logs, g_hash_table_unref);
  g_clear_pointer (&self->last_toast, g_free);
  g_clear_pointer (&self->last_toast_action, g_free);

  G_OBJECT_CLASS (sk_window_parent_class)->dispose (object);
}

static void
sk_window_class_init (SkWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = sk_window_dispose;
  window_class->close_request = sk_window_close_request;

  g_type_ensure (SK_TYPE_CANVAS);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/skelecode/SkeleCode/sk-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SkWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, run_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, stop_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, loading_spinner);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, recent_list);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, outer_paned);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_list_box);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_list);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, tokens_label);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_title);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_properties_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_menu_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, cells_stack);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, cells_box);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, canvas);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, zoom_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, canvas_hint);
  gtk_widget_class_bind_template_callback (widget_class, show_message_cb);
  gtk_widget_class_bind_template_callback (widget_class, recent_row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, step_list_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, step_properties_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_node_created_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_node_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_edit_node_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_edit_process_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_selected_node_cb);
}

static void
sk_window_init (SkWindow *self)
{
  g_autoptr(GtkListItemFactory) factory = NULL;
  g_autoptr(GAction) step_list_action = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (APP_ID);
  self->cancellable = g_cancellable_new ();
  self->runner = sk_runner_new ();
  self->keys = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->agent_logs = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions, G_N_ELEMENTS (win_actions), self);
  step_list_action = g_settings_create_action (self->settings, "show-step-list");
  g_action_map_add_action (G_ACTION_MAP (self), step_list_action);
  g_settings_bind (self->settings, "show-step-list", self->step_list_box, "visible", G_SETTINGS_BIND_GET);
  g_signal_connect_object (self->runner, "node-state-changed", G_CALLBACK (runner_state_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runner, "agent-progress", G_CALLBACK (runner_agent_progress_cb), self, G_CONNECT_SWAPPED);

  self->input_cell = g_object_new (SK_TYPE_INPUT_CELL, NULL);
  self->output_cell = g_object_new (SK_TYPE_OUTPUT_CELL, NULL);
  self->code_cell = g_object_new (SK_TYPE_CODE_CELL, NULL);
  gtk_box_append (self->cells_box, GTK_WIDGET (self->input_cell));
  gtk_box_append (self->cells_box, GTK_WIDGET (self->output_cell));
  gtk_box_append (self->cells_box, GTK_WIDGET (self->code_cell));
  g_signal_connect_object (self->input_cell, "message", G_CALLBACK (show_message_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->code_cell, "message", G_CALLBACK (show_message_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->code_cell, "notify::has-script", G_CALLBACK (update_actions), self, G_CONNECT_SWAPPED);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (step_row_setup_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (step_row_bind_cb), NULL);
  g_signal_connect (factory, "unbind", G_CALLBACK (step_row_unbind_cb), NULL);
  gtk_list_view_set_factory (self->step_list, factory);

  g_signal_connect_object (self->canvas, "notify::zoom", G_CALLBACK (zoom_changed_cb), self, G_CONNECT_SWAPPED);
  zoom_changed_cb (self);

  fill_recent_list (self);
  gtk_stack_set_visible_child_name (self->stack, "start");
  update_title (self);
  update_actions (self);

#if DEVELOPMENT_BUILD
  gtk_widget_add_css_class (GTK_WIDGET (self), "devel");
#endif
}
