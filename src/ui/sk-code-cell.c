/* sk-code-cell.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-code-cell"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sk-code-cell-private.h"

/* The cell shows and edits one step's script; the SkScriptFile reads it,
 * writes it in order, watches it and puts it aside. */
struct _SkCodeCell
{
  SkCell             parent_instance;

  /* template widgets */
  GtkBox            *card;
  GtkLabel          *file_label;
  GtkButton         *clear_button;
  GtkButton         *regenerate_button;
  GtkStack          *stack;
  GtkScrolledWindow *scroller;
  GtkSourceView     *view;
  GtkLabel          *placeholder_label;
  GtkButton         *agent_button;
  GtkLabel          *edit_hint;

  /* owned refs */
  GtkSourceBuffer   *buffer;
  SkScriptFile      *script;

  /* Scripts shown before, or put aside without being shown, whose writes
   * are still queued; they report to the cell until they are done. */
  GPtrArray         *retired;

  /* Each document (one node's script) gets a new serial, so that a dialog
   * answered late acts on the script it asked about. */
  guint              serial;

  /* Nesting of the buffer's user actions and of its undo and redo: only
   * changes made inside them are the user's and are written. */
  guint              user_action;
  guint              undoing;

  /* The window's focus, which ends editing when it leaves the view even
   * where the window is not active and no focus events come. */
  GtkRoot           *root;
  gulong             root_focus_id;

  guint              has_script : 1;
  guint              agent_ready : 1;
  guint              editing : 1;
  guint              focused : 1;
  guint              quiet : 1;
  guint              writing : 1;
  guint              moving : 1;
};

G_DEFINE_FINAL_TYPE (SkCodeCell, sk_code_cell, SK_TYPE_CELL)

enum {
  PROP_0,
  PROP_HAS_SCRIPT,
  PROP_CAN_UNDO,
  PROP_CAN_REDO,
  PROP_AGENT_READY,
  N_PROPS
};

enum {
  LOADED,
  SAVED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

static char *
get_buffer_text (GtkTextBuffer *buffer)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
}

/* Only white space is no code: the runner would find nothing to run in
 * it, and the coding agent writes the script. */
static gboolean
is_blank (GtkTextBuffer *buffer)
{
  GtkTextIter iter;

  gtk_text_buffer_get_start_iter (buffer, &iter);
  do
    {
      if (!gtk_text_iter_is_end (&iter) && !g_unichar_isspace (gtk_text_iter_get_char (&iter)))
        return FALSE;
    }
  while (gtk_text_iter_forward_char (&iter));

  return TRUE;
}

static gboolean
is_loading (SkCodeCell *self)
{
  return self->script != NULL && sk_script_file_get_loading (self->script);
}

static void
set_has_script (SkCodeCell *self,
                gboolean    has_script)
{
  has_script = !!has_script;

  gtk_widget_set_sensitive (GTK_WIDGET (self->clear_button), has_script);

  if (self->has_script != has_script)
    {
      self->has_script = has_script;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HAS_SCRIPT]);
    }
}

static void
update_placeholder (SkCodeCell *self)
{
  gboolean blank = is_blank (GTK_TEXT_BUFFER (self->buffer));
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  const char *workflow = node != NULL ? sk_node_get_workflow (node) : NULL;

  if (workflow != NULL)
    {
      g_autofree char *text = NULL;

      /* Translators: %s is a folder, relative to the workflow's. */
      text = g_strdup_printf (_("This step runs the workflow in “%s”, whose steps have code of "
                                "their own. Open the sub-workflow to see them."), workflow);
      gtk_label_set_label (self->placeholder_label, text);
    }
  else if (self->writing)
    gtk_label_set_label (self->placeholder_label,
                         _("The coding agent is writing this step’s code…"));
  else if (self->agent_ready)
    gtk_label_set_label (self->placeholder_label,
                         _("This step has no code yet. Run the workflow to have the coding agent write it."));
  else
    gtk_label_set_label (self->placeholder_label,
                         _("This step has no code yet. Set up a coding agent in Preferences to have it written, or write the code here."));

  gtk_widget_set_visible (GTK_WIDGET (self->agent_button),
                          workflow == NULL && !self->writing && !self->agent_ready && blank &&
                          !self->has_script);
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder_label),
                          blank && !self->has_script && !is_loading (self));
}

static gboolean
may_edit (SkCodeCell *self)
{
  return !is_loading (self) && !self->writing && !self->moving;
}

/* What the user types while the coding agent writes the script, or while
 * the script is being put aside, would be written over the agent's work or
 * bring the old script back, so the code is read-only meanwhile.
 *
 * The view also hands the keyboard on, as a terminal or a code editor
 * embedded in a form does: reached with Tab, it only shows the code, so
 * that Tab moves on and keys type nothing; Return or a click starts
 * editing, with the cursor, and Escape or leaving the view ends it. */
static void
update_editable (SkCodeCell *self)
{
  gboolean editable = self->editing && may_edit (self);

  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->view), editable);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (self->view), editable);
  gtk_widget_set_visible (GTK_WIDGET (self->edit_hint),
                          self->focused && !self->editing && may_edit (self));
}

static void
set_editing (SkCodeCell *self,
             gboolean    editing)
{
  self->editing = !!editing;
  update_editable (self);
}

static void
update_style_scheme (SkCodeCell *self)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme;

  scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "Adwaita-dark" : "Adwaita");
  if (scheme == NULL)
    scheme = gtk_source_style_scheme_manager_get_scheme (manager,
                                                         dark ? "classic-dark" : "classic");

  if (self->buffer != NULL)
    gtk_source_buffer_set_style_scheme (self->buffer, scheme);
}

/* Shows the script file's text without it counting as a user edit. Like
 * GtkSourceFileLoader, a script read from disk cannot be undone. */
static void
show_script_text (SkCodeCell *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GtkTextIter iter;
  int line;
  int line_offset;

  self->quiet = TRUE;

  if (sk_script_file_get_has_script (self->script))
    {
      gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
      line = gtk_text_iter_get_line (&iter);
      line_offset = gtk_text_iter_get_line_offset (&iter);

      gtk_text_buffer_begin_irreversible_action (buffer);
      gtk_text_buffer_set_text (buffer, sk_script_file_get_text (self->script), -1);
      gtk_text_buffer_end_irreversible_action (buffer);

      gtk_text_buffer_get_iter_at_line_offset (buffer, &iter, line, line_offset);
      gtk_text_buffer_place_cursor (buffer, &iter);
    }
  else
    {
      gtk_text_buffer_set_text (buffer, "", -1);
    }

  self->quiet = FALSE;
}

static void
script_loaded_cb (SkCodeCell   *self,
                  SkScriptFile *script)
{
  g_assert (SK_IS_CODE_CELL (self));

  if (script != self->script)
    return;

  show_script_text (self);
  set_has_script (self, sk_script_file_get_has_script (script));
  update_editable (self);
  update_placeholder (self);
  g_signal_emit (self, signals [LOADED], 0);
}

static void
script_saved_cb (SkCodeCell   *self,
                 GFile        *file,
                 SkScriptFile *script)
{
  g_assert (SK_IS_CODE_CELL (self));

  g_signal_emit (self, signals [SAVED], 0, file);
}

static void
script_failed_cb (SkCodeCell   *self,
                  GError       *error,
                  SkScriptFile *script)
{
  g_assert (SK_IS_CODE_CELL (self));

  sk_cell_emit_message (SK_CELL (self), error->message);
}

static void
script_has_script_cb (SkCodeCell   *self,
                      GParamSpec   *pspec,
                      SkScriptFile *script)
{
  g_assert (SK_IS_CODE_CELL (self));

  if (script != self->script || sk_script_file_get_loading (script))
    return;

  set_has_script (self, sk_script_file_get_has_script (script));
  update_placeholder (self);
}

static void
script_loading_cb (SkCodeCell   *self,
                   GParamSpec   *pspec,
                   SkScriptFile *script)
{
  g_assert (SK_IS_CODE_CELL (self));

  if (script != self->script)
    return;

  update_editable (self);
  update_placeholder (self);
}

static void
forget_script (SkCodeCell   *self,
               SkScriptFile *script)
{
  g_signal_handlers_disconnect_by_data (script, self);
}

static void
script_busy_cb (SkCodeCell   *self,
                GParamSpec   *pspec,
                SkScriptFile *script)
{
  g_assert (SK_IS_CODE_CELL (self));

  if (script == self->script || sk_script_file_get_busy (script))
    return;

  forget_script (self, script);
  g_ptr_array_remove_fast (self->retired, script);
}

static SkScriptFile *
watch_script (SkCodeCell   *self,
              SkScriptFile *script)
{
  g_signal_connect_object (script, "loaded",
                           G_CALLBACK (script_loaded_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (script, "saved",
                           G_CALLBACK (script_saved_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (script, "failed",
                           G_CALLBACK (script_failed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (script, "notify::has-script",
                           G_CALLBACK (script_has_script_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (script, "notify::loading",
                           G_CALLBACK (script_loading_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (script, "notify::busy",
                           G_CALLBACK (script_busy_cb), self, G_CONNECT_SWAPPED);

  return script;
}

/* A script shown before whose writes are still queued is the same
 * document, so that what is done to it next comes after them. */
static SkScriptFile *
take_retired (SkCodeCell *self,
              GFile      *file)
{
  for (guint i = 0; i < self->retired->len; i++)
    {
      SkScriptFile *script = g_ptr_array_index (self->retired, i);

      if (g_file_equal (file, sk_script_file_get_file (script)))
        return g_ptr_array_steal_index_fast (self->retired, i);
    }

  return NULL;
}

/* A script the cell does not show is KEY/KEY.py in the workflow's folder. */
static SkScriptFile *
script_for_file (SkCodeCell *self,
                 GFile      *file)
{
  g_autoptr(GFile) step_folder = g_file_get_parent (file);
  g_autoptr(GFile) workflow_folder = NULL;
  g_autoptr(SkScriptFile) script = NULL;
  g_autofree char *key = NULL;

  if (step_folder == NULL)
    return NULL;

  workflow_folder = g_file_get_parent (step_folder);
  if (workflow_folder == NULL)
    return NULL;

  key = g_file_get_basename (step_folder);
  script = sk_script_file_new (workflow_folder, key);
  if (!g_file_equal (file, sk_script_file_get_file (script)))
    return NULL;

  return watch_script (self, g_steal_pointer (&script));
}

/* The edits go to the script they were made in; it is kept while it still
 * has something to write. */
static void
retire_script (SkCodeCell *self)
{
  g_autoptr(SkScriptFile) script = g_steal_pointer (&self->script);

  if (script == NULL)
    return;

  sk_script_file_close (script);

  if (sk_script_file_get_busy (script))
    {
      g_ptr_array_add (self->retired, g_steal_pointer (&script));
    }
  else
    {
      forget_script (self, script);
    }
}

static void
sync_writing (SkCodeCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  gboolean writing = node != NULL && sk_node_get_state (node) == SK_NODE_STATE_WRITING_CODE;
  gboolean was_writing = self->writing;

  self->writing = writing;
  update_editable (self);
  update_placeholder (self);

  /* The agent's script may be in a folder that did not exist when the
   * file monitor started, which the monitor notices late. */
  if (was_writing && !writing && self->script != NULL)
    sk_script_file_check (self->script);
}

static void
buffer_changed_cb (SkCodeCell    *self,
                   GtkTextBuffer *buffer)
{
  g_autofree char *text = NULL;

  g_assert (SK_IS_CODE_CELL (self));

  update_placeholder (self);

  /* Loading, reloading and changes made by code are not edits to write;
   * the user's typing, pasting, cutting, dropping and undoing are. */
  if (self->quiet || (self->user_action == 0 && self->undoing == 0))
    return;

  if (self->script == NULL || sk_script_file_get_loading (self->script))
    return;

  text = get_buffer_text (buffer);
  if (g_str_equal (text, sk_script_file_get_text (self->script)))
    return;

  sk_script_file_set_text (self->script, text);
}

static void
buffer_begin_user_action_cb (SkCodeCell *self)
{
  self->user_action++;
}

static void
buffer_end_user_action_cb (SkCodeCell *self)
{
  if (self->user_action > 0)
    self->user_action--;
}

static void
buffer_undo_cb (SkCodeCell *self)
{
  self->undoing++;
}

static void
buffer_undo_after_cb (SkCodeCell *self)
{
  if (self->undoing > 0)
    self->undoing--;
}

static void
buffer_can_undo_cb (SkCodeCell *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_CAN_UNDO]);
}

static void
buffer_can_redo_cb (SkCodeCell *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_CAN_REDO]);
}

/* Saves what the user typed into the shown script, then shows the script of
 * the current node instead.
 */
static void
reload_document (SkCodeCell *self)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(SkScriptFile) script = NULL;
  g_autofree char *basename = NULL;
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  GtkSourceLanguage *language;

  retire_script (self);
  if (self->buffer != NULL)
    g_signal_handlers_disconnect_by_data (self->buffer, self);

  self->serial++;
  self->moving = FALSE;
  self->writing = node != NULL && sk_node_get_state (node) == SK_NODE_STATE_WRITING_CODE;

  if (project != NULL && node != NULL)
    file = sk_project_get_node_script (project, node);

  if (file != NULL)
    {
      script = take_retired (self, file);
      if (script == NULL)
        script = watch_script (self, sk_script_file_new (sk_project_get_folder (project),
                                                         sk_node_get_key (node)));
    }

  /* A new buffer per script: the undo history does not cross from one
   * step to another.
   */
  g_clear_object (&self->buffer);
  language = gtk_source_language_manager_get_language (gtk_source_language_manager_get_default (),
                                                       "python3");
  self->buffer = gtk_source_buffer_new_with_language (language);
  update_style_scheme (self);
  gtk_text_view_set_buffer (GTK_TEXT_VIEW (self->view), GTK_TEXT_BUFFER (self->buffer));
  g_signal_connect_object (self->buffer, "changed",
                           G_CALLBACK (buffer_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "begin-user-action",
                           G_CALLBACK (buffer_begin_user_action_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "end-user-action",
                           G_CALLBACK (buffer_end_user_action_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "undo",
                           G_CALLBACK (buffer_undo_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "undo",
                           G_CALLBACK (buffer_undo_after_cb), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->buffer, "redo",
                           G_CALLBACK (buffer_undo_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "redo",
                           G_CALLBACK (buffer_undo_after_cb), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->buffer, "notify::can-undo",
                           G_CALLBACK (buffer_can_undo_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "notify::can-redo",
                           G_CALLBACK (buffer_can_redo_cb), self, G_CONNECT_SWAPPED);
  self->user_action = 0;
  self->undoing = 0;

  self->script = g_steal_pointer (&script);
  set_has_script (self, FALSE);

  if (file != NULL)
    basename = g_file_get_basename (file);
  gtk_label_set_label (self->file_label, basename != NULL ? basename : "");
  gtk_stack_set_visible_child_name (self->stack, file != NULL ? "code" : "empty");

  if (self->script != NULL)
    sk_script_file_load (self->script);

  update_editable (self);
  update_placeholder (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_CAN_UNDO]);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_CAN_REDO]);
}

/* Runs in the capture phase around the view, before the view's own
 * keys. The view has no completion or hover providers, so no popup of its
 * own wants Escape first. */
static gboolean
view_key_pressed_cb (SkCodeCell            *self,
                     guint                  keyval,
                     guint                  keycode,
                     GdkModifierType        state,
                     GtkEventControllerKey *controller)
{
  GdkModifierType modifiers = state & gtk_accelerator_get_default_mod_mask ();

  if (!gtk_widget_is_focus (GTK_WIDGET (self->view)))
    return GDK_EVENT_PROPAGATE;

  if (self->editing)
    {
      /* A second Escape reaches SkCell and the canvas. */
      if (keyval == GDK_KEY_Escape && modifiers == 0)
        {
          set_editing (self, FALSE);
          return GDK_EVENT_STOP;
        }
      return GDK_EVENT_PROPAGATE;
    }

  switch (keyval)
    {
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_ISO_Enter:
      if (modifiers != 0 || !may_edit (self))
        return GDK_EVENT_PROPAGATE;
      set_editing (self, TRUE);
      return GDK_EVENT_STOP;

    /* GtkSourceView's smart backspace and the overwrite mode would act on a
     * view that only shows the code. */
    case GDK_KEY_BackSpace:
    case GDK_KEY_Delete:
    case GDK_KEY_KP_Delete:
    case GDK_KEY_Insert:
    case GDK_KEY_KP_Insert:
      return GDK_EVENT_STOP;

    default:
      return GDK_EVENT_PROPAGATE;
    }
}

/* A click into the code starts editing there, before the view places the
 * cursor. */
static void
view_pressed_cb (SkCodeCell *self)
{
  if (!self->editing && may_edit (self))
    set_editing (self, TRUE);
}

static void
view_focus_enter_cb (SkCodeCell *self)
{
  self->focused = TRUE;
  update_editable (self);
}

static void
view_focus_leave_cb (SkCodeCell *self)
{
  self->focused = FALSE;
  set_editing (self, FALSE);
}

static void
clear_response_cb (SkCodeCell       *self,
                   const char       *response,
                   AdwMessageDialog *dialog)
{
  g_assert (SK_IS_CODE_CELL (self));

  if (g_strcmp0 (response, "clear") == 0 &&
      GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (dialog), "sk-serial")) == self->serial)
    _sk_code_cell_clear_code (self);
}

static void
clear_clicked_cb (SkCodeCell *self)
{
  g_autofree char *basename = NULL;
  GtkRoot *root;
  GtkWidget *dialog;

  g_assert (SK_IS_CODE_CELL (self));

  if (self->script == NULL)
    return;

  basename = g_file_get_basename (sk_script_file_get_file (self->script));
  root = gtk_widget_get_root (GTK_WIDGET (self));
  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   _("Clear the Code?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("%s will be deleted. The coding agent writes new code "
                                    "for this step the next time the workflow runs."),
                                  basename);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "clear", _("C_lear Code"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "clear",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "sk-serial", GUINT_TO_POINTER (self->serial));
  g_signal_connect_object (dialog, "response",
                           G_CALLBACK (clear_response_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
put_aside_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  SkScriptFile *script = SK_SCRIPT_FILE (object);
  g_autoptr(GTask) task = user_data;
  SkCodeCell *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (script == self->script && self->moving)
    {
      self->moving = FALSE;
      update_editable (self);
    }

  if (sk_script_file_put_aside_finish (script, result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
node_key_cb (SkCodeCell *self)
{
  reload_document (self);
}

static void
node_state_cb (SkCodeCell *self)
{
  sync_writing (self);
}

static void
style_dark_cb (SkCodeCell *self)
{
  update_style_scheme (self);
}

static void
root_focus_cb (SkCodeCell *self)
{
  gboolean focused = self->root != NULL && gtk_root_get_focus (self->root) == GTK_WIDGET (self->view);

  if (focused && !self->focused)
    view_focus_enter_cb (self);
  else if (!focused && (self->focused || self->editing))
    view_focus_leave_cb (self);
}

static void
sk_code_cell_root (GtkWidget *widget)
{
  SkCodeCell *self = SK_CODE_CELL (widget);

  GTK_WIDGET_CLASS (sk_code_cell_parent_class)->root (widget);
  self->root = gtk_widget_get_root (widget);
  self->root_focus_id = g_signal_connect_object (self->root, "notify::focus-widget",
                                                 G_CALLBACK (root_focus_cb), self, G_CONNECT_SWAPPED);
}

static void
sk_code_cell_unroot (GtkWidget *widget)
{
  SkCodeCell *self = SK_CODE_CELL (widget);

  g_clear_signal_handler (&self->root_focus_id, self->root);
  self->root = NULL;
  GTK_WIDGET_CLASS (sk_code_cell_parent_class)->unroot (widget);
}

static void
sk_code_cell_unmap (GtkWidget *widget)
{
  SkCodeCell *self = SK_CODE_CELL (widget);

  if (self->script != NULL)
    sk_script_file_save (self->script);

  GTK_WIDGET_CLASS (sk_code_cell_parent_class)->unmap (widget);
}

/* Another project or node means another script. reload_document() first
 * saves the edits to the script they were made in, which self->script
 * still is.
 */
static void
sk_code_cell_project_changed (SkCell    *cell,
                              SkProject *old_project)
{
  reload_document (SK_CODE_CELL (cell));
}

static void
sk_code_cell_node_changed (SkCell *cell,
                           SkNode *old_node)
{
  reload_document (SK_CODE_CELL (cell));
}

static void
sk_code_cell_dispose (GObject *object)
{
  SkCodeCell *self = (SkCodeCell *)object;

  /* The scripts write what is left on their own; nothing of the cell is
   * touched from then on. */
  if (self->script != NULL)
    {
      sk_script_file_close (self->script);
      forget_script (self, self->script);
      g_clear_object (&self->script);
    }
  if (self->retired != NULL)
    {
      for (guint i = 0; i < self->retired->len; i++)
        forget_script (self, g_ptr_array_index (self->retired, i));
      g_clear_pointer (&self->retired, g_ptr_array_unref);
    }
  if (self->buffer != NULL)
    g_signal_handlers_disconnect_by_data (self->buffer, self);

  /* A dialog answered late finds another serial. */
  self->serial++;

  sk_cell_dispose_template (SK_CELL (self), SK_TYPE_CODE_CELL);

  g_clear_object (&self->buffer);

  G_OBJECT_CLASS (sk_code_cell_parent_class)->dispose (object);
}

static void
sk_code_cell_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  SkCodeCell *self = SK_CODE_CELL (object);

  switch (prop_id)
    {
    case PROP_HAS_SCRIPT:
      g_value_set_boolean (value, self->has_script);
      break;

    case PROP_CAN_UNDO:
      g_value_set_boolean (value, sk_code_cell_get_can_undo (self));
      break;

    case PROP_CAN_REDO:
      g_value_set_boolean (value, sk_code_cell_get_can_redo (self));
      break;

    case PROP_AGENT_READY:
      g_value_set_boolean (value, self->agent_ready);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_code_cell_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  SkCodeCell *self = SK_CODE_CELL (object);

  switch (prop_id)
    {
    case PROP_AGENT_READY:
      sk_code_cell_set_agent_ready (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_code_cell_class_init (SkCodeCellClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  SkCellClass *cell_class = SK_CELL_CLASS (klass);

  object_class->dispose = sk_code_cell_dispose;
  object_class->get_property = sk_code_cell_get_property;
  object_class->set_property = sk_code_cell_set_property;

  widget_class->unmap = sk_code_cell_unmap;
  widget_class->root = sk_code_cell_root;
  widget_class->unroot = sk_code_cell_unroot;

  cell_class->project_changed = sk_code_cell_project_changed;
  cell_class->node_changed = sk_code_cell_node_changed;

  /**
   * SkCodeCell:has-script:
   *
   * Whether the node's script exists on disk and has code in it.
   */
  properties [PROP_HAS_SCRIPT] =
    g_param_spec_boolean ("has-script", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkCodeCell:can-undo:
   *
   * Whether the code has an edit to undo, for the window's Undo.
   */
  properties [PROP_CAN_UNDO] =
    g_param_spec_boolean ("can-undo", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkCodeCell:can-redo:
   *
   * Whether the code has an undone edit to redo, for the window's Redo.
   */
  properties [PROP_CAN_REDO] =
    g_param_spec_boolean ("can-redo", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkCodeCell:agent-ready:
   *
   * Whether a coding agent is set up to write the code; without one, a
   * step without code offers to set one up.
   */
  properties [PROP_AGENT_READY] =
    g_param_spec_boolean ("agent-ready", NULL, NULL, TRUE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkCodeCell::loaded:
   * @self: a #SkCodeCell
   *
   * Emitted when the buffer shows the script on disk: after loading it,
   * reloading it after a change on disk, or finding that it does not exist.
   */
  signals [LOADED] =
    g_signal_new ("loaded",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * SkCodeCell::saved:
   * @self: a #SkCodeCell
   * @file: the script that was written
   *
   * Emitted when the edits are on disk (see #SkScriptFile::saved) in a
   * script, which may belong to a node that the cell no longer shows.
   */
  signals [SAVED] =
    g_signal_new ("saved",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_FILE);

  gtk_source_init ();
  g_type_ensure (GTK_SOURCE_TYPE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/skelecode/SkeleCode/sk-code-cell.ui");
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, card);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, file_label);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, clear_button);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, regenerate_button);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, stack);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, scroller);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, view);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, placeholder_label);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, agent_button);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, edit_hint);
  gtk_widget_class_bind_template_callback (widget_class, clear_clicked_cb);

  gtk_widget_class_set_css_name (widget_class, "codecell");
}

static void
sk_code_cell_init (SkCodeCell *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->agent_ready = TRUE;

  controller = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect_object (controller, "key-pressed",
                           G_CALLBACK (view_key_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->scroller), controller);

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), 0);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect_object (gesture, "pressed",
                           G_CALLBACK (view_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->view), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_focus_new ();
  g_signal_connect_object (controller, "enter",
                           G_CALLBACK (view_focus_enter_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (controller, "leave",
                           G_CALLBACK (view_focus_leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->view), controller);

  self->retired = g_ptr_array_new_with_free_func (g_object_unref);

  /* A renamed step has another script. */
  g_signal_group_connect_object (sk_cell_get_node_signals (SK_CELL (self)), "notify::key",
                                 G_CALLBACK (node_key_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (sk_cell_get_node_signals (SK_CELL (self)), "notify::state",
                                 G_CALLBACK (node_state_cb), self, G_CONNECT_SWAPPED);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (style_dark_cb), self, G_CONNECT_SWAPPED);

  reload_document (self);
}

GtkWidget *
sk_code_cell_new (void)
{
  return g_object_new (SK_TYPE_CODE_CELL, NULL);
}

/**
 * sk_code_cell_get_script_file:
 * @self: a #SkCodeCell
 *
 * Returns: (transfer none) (nullable): the script the cell shows and edits
 */
SkScriptFile *
sk_code_cell_get_script_file (SkCodeCell *self)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), NULL);

  return self->script;
}

/**
 * sk_code_cell_get_file:
 * @self: a #SkCodeCell
 *
 * Returns: (transfer none) (nullable): the script the cell shows, which may
 *   not exist yet
 */
GFile *
sk_code_cell_get_file (SkCodeCell *self)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), NULL);

  return self->script != NULL ? sk_script_file_get_file (self->script) : NULL;
}

/**
 * sk_code_cell_get_has_script:
 * @self: a #SkCodeCell
 *
 * Returns: %TRUE if the node's script exists on disk
 */
gboolean
sk_code_cell_get_has_script (SkCodeCell *self)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), FALSE);

  return self->has_script;
}

/**
 * sk_code_cell_get_can_undo:
 * @self: a #SkCodeCell
 *
 * Returns: %TRUE if the code has an edit to undo
 */
gboolean
sk_code_cell_get_can_undo (SkCodeCell *self)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), FALSE);

  return self->buffer != NULL && gtk_text_buffer_get_can_undo (GTK_TEXT_BUFFER (self->buffer));
}

/**
 * sk_code_cell_get_can_redo:
 * @self: a #SkCodeCell
 *
 * Returns: %TRUE if the code has an undone edit to redo
 */
gboolean
sk_code_cell_get_can_redo (SkCodeCell *self)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), FALSE);

  return self->buffer != NULL && gtk_text_buffer_get_can_redo (GTK_TEXT_BUFFER (self->buffer));
}

/**
 * sk_code_cell_get_agent_ready:
 * @self: a #SkCodeCell
 *
 * Returns: whether a coding agent is set up to write the code
 */
gboolean
sk_code_cell_get_agent_ready (SkCodeCell *self)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), FALSE);

  return self->agent_ready;
}

/**
 * sk_code_cell_set_agent_ready:
 * @self: a #SkCodeCell
 * @agent_ready: whether a coding agent is set up
 *
 * Sets whether a coding agent is set up, so that a step without code
 * says how its code gets written.
 */
void
sk_code_cell_set_agent_ready (SkCodeCell *self,
                              gboolean    agent_ready)
{
  g_return_if_fail (SK_IS_CODE_CELL (self));

  agent_ready = !!agent_ready;
  if (self->agent_ready == agent_ready)
    return;

  self->agent_ready = agent_ready;
  update_placeholder (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_AGENT_READY]);
}

/**
 * sk_code_cell_get_modified:
 * @self: a #SkCodeCell
 *
 * Returns: %TRUE if the buffer has edits that are not written yet
 */
gboolean
sk_code_cell_get_modified (SkCodeCell *self)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), FALSE);

  return self->script != NULL && sk_script_file_get_modified (self->script);
}

/**
 * sk_code_cell_save:
 * @self: a #SkCodeCell
 *
 * Starts writing the edits now instead of after the short pause, for
 * example before the workflow runs. #SkCodeCell::saved follows.
 */
void
sk_code_cell_save (SkCodeCell *self)
{
  g_return_if_fail (SK_IS_CODE_CELL (self));

  if (self->script != NULL)
    sk_script_file_save (self->script);
}

void
_sk_code_cell_clear_code (SkCodeCell *self)
{
  g_return_if_fail (SK_IS_CODE_CELL (self));

  if (self->script != NULL)
    sk_script_file_delete (self->script);
}

/**
 * _sk_code_cell_put_aside_async:
 * @self: a #SkCodeCell
 * @script: a node's script, which the cell may or may not show
 * @callback: called when the script has moved
 * @user_data: data for @callback
 *
 * Moves @script into its step's `.skele/previous/` (see
 * sk_script_file_put_aside_async()), after the saves and deletions already
 * queued, so that the edits typed into it go with it. When the cell shows
 * @script, it shows the step without code from then on.
 */
void
_sk_code_cell_put_aside_async (SkCodeCell          *self,
                               GFile               *script,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SkScriptFile *script_file = NULL;

  g_return_if_fail (SK_IS_CODE_CELL (self));
  g_return_if_fail (G_IS_FILE (script));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, _sk_code_cell_put_aside_async);

  if (self->script != NULL && g_file_equal (script, sk_script_file_get_file (self->script)))
    {
      script_file = self->script;
      self->moving = TRUE;
      update_editable (self);
    }
  else
    {
      script_file = take_retired (self, script);
      if (script_file == NULL)
        script_file = script_for_file (self, script);
      if (script_file == NULL)
        {
          g_autofree char *name = g_file_get_parse_name (script);

          g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                                   "%s is not a step’s script", name);
          return;
        }

      /* It reports to the cell until it is done, then goes. */
      g_ptr_array_add (self->retired, script_file);
    }

  sk_script_file_put_aside_async (script_file, NULL, put_aside_cb, g_steal_pointer (&task));
}

gboolean
_sk_code_cell_put_aside_finish (SkCodeCell    *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _sk_code_cell_put_aside_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
