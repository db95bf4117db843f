/* sk-code-cell.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-code-cell"

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sk-code-cell-private.h"

#define SAVE_DELAY_MSEC    1000
#define MONITOR_DELAY_MSEC  200

struct _SkCodeCell
{
  SkCell           parent_instance;

  /* template widgets */
  GtkBox          *card;
  GtkLabel        *file_label;
  GtkButton       *clear_button;
  GtkButton       *regenerate_button;
  GtkStack        *stack;
  GtkSourceView   *view;
  GtkLabel        *placeholder_label;

  /* owned refs */
  GtkSourceBuffer *buffer;
  GFile           *file;
  GFileMonitor    *monitor;
  GCancellable    *load_cancellable;

  /* Saves and deletions of scripts, oldest first, run one at a time so that
   * the last one wins on disk. */
  GQueue           file_ops;

  /* Each document (one node's script) gets a new serial; user edits raise
   * the generation, and a save records the generation it wrote when it is
   * queued and when it is done. */
  guint            serial;
  guint64          generation;
  guint64          queued_generation;
  guint64          saved_generation;

  guint            save_source;
  guint            monitor_source;

  guint            loading : 1;
  guint            has_script : 1;
  guint            writing : 1;
  guint            moving : 1;
};

typedef enum
{
  FILE_OP_SAVE,
  FILE_OP_DELETE,
  FILE_OP_MOVE,
} FileOpKind;

typedef struct
{
  SkCodeCell          *self;
  FileOpKind           kind;
  guint                serial;
  guint64              generation;
  GFile               *file;
  char                *text;
  GtkSourceBuffer     *snapshot;
  GtkSourceFile       *source_file;
  GtkSourceFileSaver  *saver;
  GFile               *destination;
  GTask               *task;
} FileOp;

/* What a move's worker thread needs; GFiles may be used from any thread. */
typedef struct
{
  GFile               *source;
  GFile               *destination;
} MoveData;

typedef struct
{
  SkCodeCell          *self;
  guint                serial;
  int                  cursor_line;
  int                  cursor_line_offset;
  GtkSourceFile       *source_file;
  GtkSourceFileLoader *loader;
} LoadOp;

typedef struct
{
  GWeakRef             self;
  guint                serial;
} CheckOp;

G_DEFINE_FINAL_TYPE (SkCodeCell, sk_code_cell, SK_TYPE_CELL)

enum {
  PROP_0,
  PROP_HAS_SCRIPT,
  N_PROPS
};

enum {
  LOADED,
  SAVED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

static void     run_next_file_op   (SkCodeCell *self);
static gboolean monitor_timeout_cb (gpointer    user_data);

static void
file_op_free (FileOp *op)
{
  g_clear_object (&op->self);
  g_clear_object (&op->file);
  g_clear_pointer (&op->text, g_free);
  g_clear_object (&op->saver);
  g_clear_object (&op->snapshot);
  g_clear_object (&op->source_file);
  g_clear_object (&op->destination);
  g_clear_object (&op->task);
  g_free (op);
}

static void
move_data_free (MoveData *data)
{
  g_clear_object (&data->source);
  g_clear_object (&data->destination);
  g_free (data);
}

static void
load_op_free (LoadOp *op)
{
  g_clear_object (&op->self);
  g_clear_object (&op->loader);
  g_clear_object (&op->source_file);
  g_free (op);
}

static gboolean
is_dirty (SkCodeCell *self)
{
  return self->generation != self->saved_generation;
}

static char *
get_buffer_text (GtkTextBuffer *buffer)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
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
  gboolean empty = gtk_text_buffer_get_char_count (GTK_TEXT_BUFFER (self->buffer)) == 0;

  if (self->writing)
    gtk_label_set_label (self->placeholder_label,
                         _("The coding agent is writing this step’s code…"));
  else
    gtk_label_set_label (self->placeholder_label,
                         _("This step has no code yet. Run the workflow to have the coding agent write it."));

  gtk_widget_set_visible (GTK_WIDGET (self->placeholder_label),
                          empty && !self->has_script && !self->loading);
}

/* What the user types while the coding agent writes the script, or while
 * the script is being put aside, would be written over the agent's work or
 * bring the old script back, so the code is read-only meanwhile. */
static void
update_editable (SkCodeCell *self)
{
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->view),
                              !self->loading && !self->writing && !self->moving);
}

/* Replaces the buffer's text without it counting as a user edit. */
static void
set_text_quietly (SkCodeCell *self,
                  const char *text)
{
  gboolean was_loading = self->loading;

  self->loading = TRUE;
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), text, -1);
  self->loading = was_loading;
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

/* The buffer drops the final newline that GtkSourceFileSaver adds back
 * (GtkSourceBuffer:implicit-trailing-newline), so both forms match.
 */
static gboolean
text_matches_contents (const char *text,
                       const char *contents,
                       gsize       length)
{
  gsize text_length = strlen (text);

  if (text_length == length)
    return memcmp (text, contents, length) == 0;

  return text_length + 1 == length &&
         contents[text_length] == '\n' &&
         memcmp (text, contents, text_length) == 0;
}

static void
file_op_done (FileOp *op)
{
  g_autoptr(SkCodeCell) self = g_object_ref (op->self);

  g_assert (g_queue_peek_head (&self->file_ops) == op);

  g_queue_pop_head (&self->file_ops);
  file_op_free (op);
  run_next_file_op (self);
}

static void
save_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  FileOp *op = user_data;
  SkCodeCell *self = op->self;
  g_autoptr(GError) error = NULL;

  if (!gtk_source_file_saver_save_finish (GTK_SOURCE_FILE_SAVER (object), result, &error))
    {
      g_autofree char *name = g_file_get_basename (op->file);
      g_autofree char *text = g_strdup_printf (_("%s could not be saved: %s"),
                                               name, error->message);

      sk_cell_emit_message (SK_CELL (self), text);
    }
  else
    {
      if (op->serial == self->serial)
        {
          self->saved_generation = MAX (self->saved_generation, op->generation);
          set_has_script (self, TRUE);
          update_placeholder (self);
        }
      g_signal_emit (self, signals [SAVED], 0, op->file);
    }

  file_op_done (op);
}

static void
make_folder_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  FileOp *op = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_file_make_directory_finish (G_FILE (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_autofree char *text = g_strdup_printf (_("The step’s folder could not be created: %s"),
                                               error->message);

      sk_cell_emit_message (SK_CELL (op->self), text);
      file_op_done (op);
      return;
    }

  /* The saver reads its buffer while it writes, so it gets a copy and the
   * user can go on typing (or switch steps) meanwhile.
   */
  op->snapshot = gtk_source_buffer_new (NULL);
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (op->snapshot), op->text, -1);
  op->source_file = gtk_source_file_new ();
  gtk_source_file_set_location (op->source_file, op->file);
  op->saver = gtk_source_file_saver_new (op->snapshot, op->source_file);
  gtk_source_file_saver_set_flags (op->saver, GTK_SOURCE_FILE_SAVER_FLAGS_IGNORE_MODIFICATION_TIME);
  gtk_source_file_saver_save_async (op->saver, G_PRIORITY_DEFAULT, NULL,
                                    NULL, NULL, NULL,
                                    save_done_cb, op);
}

static void
delete_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  FileOp *op = user_data;
  SkCodeCell *self = op->self;
  g_autoptr(GError) error = NULL;

  if (!g_file_delete_finish (G_FILE (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_autofree char *text = g_strdup_printf (_("The code could not be deleted: %s"),
                                               error->message);

      sk_cell_emit_message (SK_CELL (self), text);
    }
  else if (op->serial == self->serial)
    {
      set_text_quietly (self, "");
      set_has_script (self, FALSE);
      update_placeholder (self);
      g_signal_emit (self, signals [LOADED], 0);
    }

  file_op_done (op);
}

static void
move_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  MoveData *data = task_data;
  g_autoptr(GFile) folder = g_file_get_parent (data->destination);
  GError *error = NULL;

  if (!g_file_make_directory_with_parents (folder, cancellable, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        {
          g_task_return_error (task, error);
          return;
        }
      g_clear_error (&error);
    }

  /* A script that is already gone has nothing to keep. */
  if (!g_file_move (data->source, data->destination,
                    G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS,
                    cancellable, NULL, NULL, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_task_return_error (task, error);
      return;
    }
  g_clear_error (&error);

  g_task_return_boolean (task, TRUE);
}

static void
move_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  FileOp *op = user_data;
  g_autoptr(SkCodeCell) self = g_object_ref (op->self);
  g_autoptr(GTask) task = g_steal_pointer (&op->task);
  g_autoptr(GError) error = NULL;
  gboolean moved;

  moved = g_task_propagate_boolean (G_TASK (result), &error);

  if (op->serial == self->serial)
    {
      self->moving = FALSE;
      update_editable (self);
      if (moved)
        {
          set_text_quietly (self, "");
          set_has_script (self, FALSE);
          update_placeholder (self);
          g_signal_emit (self, signals [LOADED], 0);
        }
    }

  /* The caller hears of it once the queue has moved on, so that what it
   * does next (such as writing a new script) comes after the move. */
  file_op_done (op);

  if (moved)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
run_next_file_op (SkCodeCell *self)
{
  FileOp *op = g_queue_peek_head (&self->file_ops);
  g_autoptr(GFile) folder = NULL;

  if (op == NULL)
    return;

  switch (op->kind)
    {
    case FILE_OP_SAVE:
      folder = g_file_get_parent (op->file);
      g_file_make_directory_async (folder, G_PRIORITY_DEFAULT, NULL, make_folder_cb, op);
      break;

    case FILE_OP_DELETE:
      g_file_delete_async (op->file, G_PRIORITY_DEFAULT, NULL, delete_done_cb, op);
      break;

    case FILE_OP_MOVE:
      {
        g_autoptr(GTask) task = NULL;
        MoveData *data = g_new0 (MoveData, 1);

        data->source = g_object_ref (op->file);
        data->destination = g_object_ref (op->destination);

        /* Without a source object the task holds no widget that the
         * worker thread could be the last to release. */
        task = g_task_new (NULL, NULL, move_done_cb, op);
        g_task_set_source_tag (task, run_next_file_op);
        g_task_set_task_data (task, data, (GDestroyNotify) move_data_free);
        g_task_run_in_thread (task, move_thread);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
queue_file_op (SkCodeCell *self,
               FileOp     *op)
{
  g_queue_push_tail (&self->file_ops, op);
  if (self->file_ops.length == 1)
    run_next_file_op (self);
}

static FileOp *
file_op_new (SkCodeCell *self,
             FileOpKind  kind)
{
  FileOp *op = g_new0 (FileOp, 1);

  /* The operation keeps the cell alive, so that an edit is saved even when
   * the cell goes away right after it. */
  op->self = g_object_ref (self);
  op->kind = kind;
  op->serial = self->serial;
  op->generation = self->generation;
  op->file = g_object_ref (self->file);

  return op;
}

static void
schedule_check (SkCodeCell *self)
{
  g_clear_handle_id (&self->monitor_source, g_source_remove);
  self->monitor_source = g_timeout_add (MONITOR_DELAY_MSEC, monitor_timeout_cb, self);
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
  if (was_writing && !writing && self->file != NULL)
    schedule_check (self);
}

static void
save_now (SkCodeCell *self)
{
  FileOp *op;

  g_clear_handle_id (&self->save_source, g_source_remove);

  if (self->file == NULL || self->buffer == NULL ||
      !is_dirty (self) || self->queued_generation == self->generation)
    return;

  self->queued_generation = self->generation;

  /* Typing and deleting everything in a step without code leaves it
   * without code. */
  if (!self->has_script && gtk_text_buffer_get_char_count (GTK_TEXT_BUFFER (self->buffer)) == 0)
    {
      self->saved_generation = self->generation;
      return;
    }

  op = file_op_new (self, FILE_OP_SAVE);
  op->text = get_buffer_text (GTK_TEXT_BUFFER (self->buffer));
  queue_file_op (self, op);
}

static gboolean
save_timeout_cb (gpointer user_data)
{
  SkCodeCell *self = user_data;

  self->save_source = 0;
  save_now (self);

  return G_SOURCE_REMOVE;
}

static void
buffer_changed_cb (SkCodeCell    *self,
                   GtkTextBuffer *buffer)
{
  g_assert (SK_IS_CODE_CELL (self));

  update_placeholder (self);

  if (self->loading)
    return;

  self->generation++;
  g_clear_handle_id (&self->save_source, g_source_remove);
  self->save_source = g_timeout_add (SAVE_DELAY_MSEC, save_timeout_cb, self);
}

static void
load_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  LoadOp *op = user_data;
  SkCodeCell *self = op->self;
  g_autoptr(GError) error = NULL;
  gboolean loaded;
  GtkTextIter iter;

  loaded = gtk_source_file_loader_load_finish (GTK_SOURCE_FILE_LOADER (object), result, &error);

  if (op->serial != self->serial ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      load_op_free (op);
      return;
    }

  self->loading = FALSE;
  g_clear_object (&self->load_cancellable);
  update_editable (self);

  if (loaded)
    {
      set_has_script (self, TRUE);
    }
  else
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_autofree char *text = g_strdup_printf (_("The code could not be read: %s"),
                                                   error->message);

          sk_cell_emit_message (SK_CELL (self), text);
        }
      set_text_quietly (self, "");
      set_has_script (self, FALSE);
    }

  self->saved_generation = self->generation;
  self->queued_generation = self->generation;

  gtk_text_buffer_get_iter_at_line_offset (GTK_TEXT_BUFFER (self->buffer), &iter,
                                           op->cursor_line, op->cursor_line_offset);
  gtk_text_buffer_place_cursor (GTK_TEXT_BUFFER (self->buffer), &iter);

  update_placeholder (self);
  g_signal_emit (self, signals [LOADED], 0);

  load_op_free (op);
}

static void
start_load (SkCodeCell *self)
{
  LoadOp *op;
  GtkTextIter iter;

  g_assert (self->file != NULL);

  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  self->load_cancellable = g_cancellable_new ();

  op = g_new0 (LoadOp, 1);
  op->self = g_object_ref (self);
  op->serial = self->serial;

  gtk_text_buffer_get_iter_at_mark (GTK_TEXT_BUFFER (self->buffer), &iter,
                                    gtk_text_buffer_get_insert (GTK_TEXT_BUFFER (self->buffer)));
  op->cursor_line = gtk_text_iter_get_line (&iter);
  op->cursor_line_offset = gtk_text_iter_get_line_offset (&iter);

  op->source_file = gtk_source_file_new ();
  gtk_source_file_set_location (op->source_file, self->file);
  op->loader = gtk_source_file_loader_new (self->buffer, op->source_file);

  self->loading = TRUE;
  update_editable (self);
  update_placeholder (self);

  gtk_source_file_loader_load_async (op->loader, G_PRIORITY_DEFAULT, self->load_cancellable,
                                     NULL, NULL, NULL,
                                     load_done_cb, op);
}

static void
check_contents_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  CheckOp *op = user_data;
  g_autoptr(SkCodeCell) self = g_weak_ref_get (&op->self);
  guint serial = op->serial;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *text = NULL;
  gboolean loaded;
  gsize length = 0;

  g_weak_ref_clear (&op->self);
  g_free (op);

  loaded = g_file_load_contents_finish (G_FILE (object), result, &contents, &length, NULL, &error);

  if (self == NULL || serial != self->serial || self->loading ||
      is_dirty (self) || self->file_ops.length > 0)
    return;

  if (!loaded)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) && self->has_script)
        {
          set_text_quietly (self, "");
          set_has_script (self, FALSE);
          update_placeholder (self);
          g_signal_emit (self, signals [LOADED], 0);
        }
      return;
    }

  text = get_buffer_text (GTK_TEXT_BUFFER (self->buffer));
  if (self->has_script && text_matches_contents (text, contents, length))
    return;

  start_load (self);
}

static gboolean
monitor_timeout_cb (gpointer user_data)
{
  SkCodeCell *self = user_data;
  CheckOp *op;

  self->monitor_source = 0;

  /* An edit in the buffer wins over the file; it is saved soon. */
  if (self->file == NULL || self->loading || is_dirty (self) || self->file_ops.length > 0)
    return G_SOURCE_REMOVE;

  op = g_new0 (CheckOp, 1);
  g_weak_ref_init (&op->self, self);
  op->serial = self->serial;
  g_file_load_contents_async (self->file, NULL, check_contents_cb, op);

  return G_SOURCE_REMOVE;
}

static void
monitor_changed_cb (SkCodeCell        *self,
                    GFile             *file,
                    GFile             *other_file,
                    GFileMonitorEvent  event,
                    GFileMonitor      *monitor)
{
  g_assert (SK_IS_CODE_CELL (self));

  if (event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED ||
      event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT ||
      event == G_FILE_MONITOR_EVENT_UNMOUNTED)
    return;

  g_clear_handle_id (&self->monitor_source, g_source_remove);
  self->monitor_source = g_timeout_add (MONITOR_DELAY_MSEC, monitor_timeout_cb, self);
}

/* Saves what the user typed into the shown script, then shows the script of
 * the current node instead.
 */
static void
reload_document (SkCodeCell *self)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *basename = NULL;
  g_autoptr(GError) error = NULL;
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  GtkSourceLanguage *language;

  save_now (self);

  g_clear_handle_id (&self->monitor_source, g_source_remove);
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  if (self->buffer != NULL)
    g_signal_handlers_disconnect_by_data (self->buffer, self);

  self->serial++;
  self->generation = 0;
  self->queued_generation = 0;
  self->saved_generation = 0;
  self->loading = FALSE;
  self->moving = FALSE;
  self->writing = node != NULL && sk_node_get_state (node) == SK_NODE_STATE_WRITING_CODE;

  if (project != NULL && node != NULL)
    file = sk_project_get_node_script (project, node);

  /* A new buffer per script: a save still running keeps the old one, and
   * the undo history does not cross from one step to another.
   */
  g_clear_object (&self->buffer);
  language = gtk_source_language_manager_get_language (gtk_source_language_manager_get_default (),
                                                       "python3");
  self->buffer = gtk_source_buffer_new_with_language (language);
  update_style_scheme (self);
  gtk_text_view_set_buffer (GTK_TEXT_VIEW (self->view), GTK_TEXT_BUFFER (self->buffer));
  g_signal_connect_object (self->buffer, "changed",
                           G_CALLBACK (buffer_changed_cb), self, G_CONNECT_SWAPPED);

  g_set_object (&self->file, file);
  set_has_script (self, FALSE);

  if (file != NULL)
    basename = g_file_get_basename (file);
  gtk_label_set_label (self->file_label, basename != NULL ? basename : "");
  gtk_stack_set_visible_child_name (self->stack, file != NULL ? "code" : "empty");

  if (file == NULL)
    {
      update_editable (self);
      update_placeholder (self);
      return;
    }

  self->monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
  if (self->monitor != NULL)
    g_signal_connect_object (self->monitor, "changed",
                             G_CALLBACK (monitor_changed_cb), self, G_CONNECT_SWAPPED);
  else
    g_debug ("Cannot watch %s: %s", basename, error->message);

  start_load (self);
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

  if (self->file == NULL)
    return;

  basename = g_file_get_basename (self->file);
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
sk_code_cell_unmap (GtkWidget *widget)
{
  SkCodeCell *self = SK_CODE_CELL (widget);

  save_now (self);

  GTK_WIDGET_CLASS (sk_code_cell_parent_class)->unmap (widget);
}

/* Another project or node means another script. reload_document() first
 * saves the edits to the script they were made in, which self->file still
 * names.
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

  save_now (self);

  /* Callbacks that arrive after this find another serial and leave the
   * widgets alone. */
  self->serial++;

  g_clear_handle_id (&self->save_source, g_source_remove);
  g_clear_handle_id (&self->monitor_source, g_source_remove);
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  if (self->buffer != NULL)
    g_signal_handlers_disconnect_by_data (self->buffer, self);

  sk_cell_dispose_template (SK_CELL (self), SK_TYPE_CODE_CELL);

  g_clear_object (&self->buffer);
  g_clear_object (&self->file);

  G_OBJECT_CLASS (sk_code_cell_parent_class)->dispose (object);
}

static void
sk_code_cell_finalize (GObject *object)
{
  SkCodeCell *self = (SkCodeCell *)object;

  /* Each queued operation holds a reference. */
  g_assert (g_queue_is_empty (&self->file_ops));

  G_OBJECT_CLASS (sk_code_cell_parent_class)->finalize (object);
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
  object_class->finalize = sk_code_cell_finalize;
  object_class->get_property = sk_code_cell_get_property;

  widget_class->unmap = sk_code_cell_unmap;

  cell_class->project_changed = sk_code_cell_project_changed;
  cell_class->node_changed = sk_code_cell_node_changed;

  properties [PROP_HAS_SCRIPT] =
    g_param_spec_boolean ("has-script", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

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
   * Emitted when an edit has been written to a script, which may belong to
   * a node that the cell no longer shows.
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
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, view);
  gtk_widget_class_bind_template_child (widget_class, SkCodeCell, placeholder_label);
  gtk_widget_class_bind_template_callback (widget_class, clear_clicked_cb);

  gtk_widget_class_set_css_name (widget_class, "codecell");
}

static void
sk_code_cell_init (SkCodeCell *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  g_queue_init (&self->file_ops);

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

  return self->file;
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
 * sk_code_cell_get_modified:
 * @self: a #SkCodeCell
 *
 * Returns: %TRUE if the buffer has edits that are not written yet
 */
gboolean
sk_code_cell_get_modified (SkCodeCell *self)
{
  g_return_val_if_fail (SK_IS_CODE_CELL (self), FALSE);

  return is_dirty (self);
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

  save_now (self);
}

void
_sk_code_cell_clear_code (SkCodeCell *self)
{
  g_return_if_fail (SK_IS_CODE_CELL (self));

  if (self->file == NULL)
    return;

  /* The edits go with the file. */
  g_clear_handle_id (&self->save_source, g_source_remove);
  self->queued_generation = self->generation;
  self->saved_generation = self->generation;

  queue_file_op (self, file_op_new (self, FILE_OP_DELETE));
}

/**
 * _sk_code_cell_put_aside_async:
 * @self: a #SkCodeCell
 * @script: a node's script, which the cell may or may not show
 * @callback: called when the script has moved
 * @user_data: data for @callback
 *
 * Moves @script to the file sk_project_get_previous_script() names, after
 * the saves and deletions already queued, so that the edits typed into it
 * go with it. When the cell shows @script, it shows the step without code
 * from then on.
 */
void
_sk_code_cell_put_aside_async (SkCodeCell          *self,
                               GFile               *script,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  gboolean shown;
  FileOp *op;

  g_return_if_fail (SK_IS_CODE_CELL (self));
  g_return_if_fail (G_IS_FILE (script));

  shown = self->file != NULL && g_file_equal (script, self->file);
  if (shown)
    {
      save_now (self);
      self->moving = TRUE;
      update_editable (self);
    }

  op = g_new0 (FileOp, 1);
  op->self = g_object_ref (self);
  op->kind = FILE_OP_MOVE;
  /* Serials start at one, so another script's move never matches. */
  op->serial = shown ? self->serial : 0;
  op->file = g_object_ref (script);
  op->destination = sk_project_get_previous_script (script);
  op->task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (op->task, _sk_code_cell_put_aside_async);

  queue_file_op (self, op);
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
