/* sk-input-cell.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-input-cell"

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sk-input-cell.h"

#define COMPARE_CHUNK_SIZE (64 * 1024)

/* The longest name a step gets from its task, in characters. */
#define NAME_FROM_TASK_MAX 32

struct _SkInputCell
{
  SkCell                parent_instance;

  /* template widgets */
  GtkBox               *card;
  GtkStack             *stack;
  GtkTextView          *text_view;
  GtkLabel             *hint_label;
  GtkListBox           *files_list;
  GtkButton            *attach_button;
  GtkListBox           *permissions_list;
  AdwExpanderRow       *access_row;
  AdwActionRow         *network_row;
  GtkSwitch            *network_switch;
  AdwActionRow         *read_row;
  AdwActionRow         *approval_row;
  GtkSwitch            *approval_switch;

  /* owned refs */
  SkHistory            *history;
  GtkStringList        *files;
  GtkFileChooserNative *chooser;
  GtkFileChooserNative *folder_chooser;
  GCancellable         *cancellable;
  /* The rows of the folders the step may read, before read_row. */
  GPtrArray            *read_rows;
  /* The task as it was when the node was shown or the task last
   * committed, which a name given from the task was made of. */
  char                 *committed_text;

  guint                 updating_buffer : 1;
  guint                 updating_permissions : 1;
};

/* The worker thread's data holds only what threads may share: the inner
 * task can be finalized in the worker thread.
 */
typedef struct
{
  GPtrArray *sources;
  GFile     *folder;

  /* Written by the worker, read once it has returned. */
  GPtrArray *names;
  GPtrArray *messages;
  GError    *first_error;
} AttachData;

G_DEFINE_FINAL_TYPE (SkInputCell, sk_input_cell, SK_TYPE_CELL)

enum {
  PROP_0,
  PROP_HISTORY,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

static void
attach_data_free (AttachData *data)
{
  g_clear_pointer (&data->sources, g_ptr_array_unref);
  g_clear_object (&data->folder);
  g_clear_pointer (&data->names, g_ptr_array_unref);
  g_clear_pointer (&data->messages, g_ptr_array_unref);
  g_clear_error (&data->first_error);
  g_free (data);
}

static char *
get_buffer_text (GtkTextBuffer *buffer)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* The first words of the task's first line that is not empty, at most
 * NAME_FROM_TASK_MAX characters and cut between words, without the
 * punctuation that ends a sentence. */
static char *
name_from_task (const char *task)
{
  g_auto(GStrv) lines = g_strsplit (task != NULL ? task : "", "\n", -1);
  g_auto(GStrv) words = NULL;
  GString *name = g_string_new (NULL);
  const char *line = "";

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_strstrip (lines[i]);
      if (lines[i][0] != '\0')
        {
          line = lines[i];
          break;
        }
    }

  words = g_strsplit_set (line, " \t\r", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      glong length = g_utf8_strlen (name->str, -1);
      glong word_length = g_utf8_strlen (words[i], -1);

      if (words[i][0] == '\0')
        continue;

      if (name->len == 0 && word_length > NAME_FROM_TASK_MAX)
        {
          /* One long word: cut it. */
          g_autofree char *cut = g_utf8_substring (words[i], 0, NAME_FROM_TASK_MAX);

          g_string_append (name, cut);
          break;
        }

      if (name->len > 0 && length + 1 + word_length > NAME_FROM_TASK_MAX)
        break;

      if (name->len > 0)
        g_string_append_c (name, ' ');
      g_string_append (name, words[i]);
    }

  while (name->len > 0 && strchr (".,;:!?-", name->str[name->len - 1]) != NULL)
    g_string_truncate (name, name->len - 1);
  if (g_str_has_suffix (name->str, "…"))
    g_string_truncate (name, name->len - strlen ("…"));

  return g_string_free (name, FALSE);
}

/* Whether @name is @base, or @base with the number that makes a name
 * unique (sk_project_unique_name()). */
static gboolean
is_name_from (const char *name,
              const char *base)
{
  gsize base_len = strlen (base);
  const char *p;

  if (base_len == 0 || strncmp (name, base, base_len) != 0)
    return FALSE;

  p = name + base_len;
  if (*p == '\0')
    return TRUE;
  if (*p != ' ' || !g_ascii_isdigit (p[1]))
    return FALSE;
  for (p++; *p != '\0'; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;

  return TRUE;
}

/* A step keeps a name the user gave it. Its name is its own until then:
 * the name a new step gets ("step", "step 2", …) or the one it got from
 * its task before. */
static gboolean
has_automatic_name (SkInputCell *self,
                    SkNode      *node)
{
  g_autofree char *from_task = name_from_task (self->committed_text);
  const char *name = sk_node_get_name (node);

  /* Translators: the name of a new step, as in sk-canvas-actions.c. */
  return is_name_from (name, _("step")) || is_name_from (name, from_task);
}

/* Names a step that has no name of the user's from its task, once the
 * task is committed rather than at every key: the step's folder follows
 * its name. The rename is an undo step of its own, after the typing. */
static void
commit_task (SkInputCell *self,
             SkNode      *node)
{
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  const char *text = sk_node_get_input_text (node);
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;
  g_autofree char *key = NULL;

  if (g_strcmp0 (text, self->committed_text) == 0)
    return;

  /* A node of a workflow that is no longer shown keeps its name. */
  if (project == NULL ||
      sk_project_get_node_by_key (project, sk_node_get_key (node)) != node ||
      !has_automatic_name (self, node))
    goto done;

  base = name_from_task (text);
  key = sk_node_key_from_name (base);
  if (key[0] == '\0' || is_name_from (sk_node_get_name (node), base))
    goto done;

  if (sk_project_check_name (project, node, base, NULL))
    name = g_strdup (base);
  else
    name = sk_project_unique_name (project, base);

  if (self->history != NULL)
    sk_history_begin (self->history, NULL);
  sk_node_set_name (node, name);
  if (self->history != NULL)
    sk_history_end (self->history);

done:
  g_free (self->committed_text);
  self->committed_text = g_strdup (text);
}

static void
text_focus_leave_cb (SkInputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  if (node != NULL)
    commit_task (self, node);
}

static void
update_hint (SkInputCell *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);

  gtk_widget_set_visible (GTK_WIDGET (self->hint_label),
                          gtk_text_buffer_get_char_count (buffer) == 0);
}

/* Replaces the buffer's text with the node's, unless they already agree, so
 * that the cell's own edits coming back through notify:: leave the cursor
 * and the selection alone.
 */
static void
sync_text_from_node (SkInputCell *self,
                     gboolean     cursor_to_end)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  g_autofree char *current = get_buffer_text (buffer);
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  const char *text = node != NULL ? sk_node_get_input_text (node) : "";
  GtkTextIter iter;
  int offset;

  if (g_strcmp0 (current, text) == 0)
    {
      if (cursor_to_end)
        {
          gtk_text_buffer_get_end_iter (buffer, &iter);
          gtk_text_buffer_place_cursor (buffer, &iter);
        }
      return;
    }

  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
  offset = gtk_text_iter_get_offset (&iter);

  self->updating_buffer = TRUE;
  gtk_text_buffer_set_text (buffer, text, -1);
  self->updating_buffer = FALSE;

  /* An offset past the end gives the end iterator. */
  gtk_text_buffer_get_iter_at_offset (buffer, &iter, cursor_to_end ? -1 : offset);
  gtk_text_buffer_place_cursor (buffer, &iter);
}

static void
sync_files_from_node (SkInputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  const char * const *files = NULL;
  guint n_items;

  if (node != NULL)
    files = sk_node_get_input_files (node);

  n_items = g_list_model_get_n_items (G_LIST_MODEL (self->files));
  gtk_string_list_splice (self->files, 0, n_items, files);
  gtk_widget_set_visible (GTK_WIDGET (self->files_list), files != NULL && files[0] != NULL);
}

static void
remove_file (SkInputCell *self,
             const char  *name)
{
  g_autoptr(GPtrArray) kept = NULL;
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  const char * const *files;

  if (node == NULL)
    return;

  /* Copies: the node frees its list before it copies the new one. */
  files = sk_node_get_input_files (node);
  kept = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    {
      if (strcmp (files[i], name) != 0)
        g_ptr_array_add (kept, g_strdup (files[i]));
    }
  g_ptr_array_add (kept, NULL);

  if (self->history != NULL)
    sk_history_begin (self->history, _("Remove File"));
  sk_node_set_input_files (node, (const char * const *) kept->pdata);
  if (self->history != NULL)
    sk_history_end (self->history);
}

static void
remove_clicked_cb (SkInputCell *self,
                   GtkButton   *button)
{
  const char *name = g_object_get_data (G_OBJECT (button), "sk-file-name");

  g_assert (SK_IS_INPUT_CELL (self));

  if (name != NULL)
    remove_file (self, name);
}

static GtkWidget *
create_file_row (gpointer item,
                 gpointer user_data)
{
  SkInputCell *self = user_data;
  const char *name = gtk_string_object_get_string (item);
  g_autofree char *basename = g_path_get_basename (name);
  g_autofree char *label = g_strdup_printf (_("Remove %s"), basename);
  GtkWidget *row;
  GtkWidget *button;

  row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), basename);
  if (strcmp (basename, name) != 0)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), name);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row),
                             gtk_image_new_from_icon_name ("text-x-generic-symbolic"));

  button = gtk_button_new_from_icon_name ("list-remove-symbolic");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, _("Remove From This Step"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  -1);
  g_object_set_data_full (G_OBJECT (button), "sk-file-name", g_strdup (name), g_free);
  g_signal_connect_object (button, "clicked",
                           G_CALLBACK (remove_clicked_cb), self, G_CONNECT_SWAPPED);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);

  return row;
}

/* "report.csv", 2 → "report (2).csv"; a leading dot does not start an
 * extension, so ".env" gives ".env (2)".
 */
static char *
numbered_name (const char *basename,
               guint       n)
{
  const char *dot = strrchr (basename, '.');

  if (dot == NULL || dot == basename)
    return g_strdup_printf ("%s (%u)", basename, n);

  return g_strdup_printf ("%.*s (%u)%s", (int) (dot - basename), basename, n, dot);
}

static gboolean
same_contents (GFile        *a,
               GFile        *b,
               GCancellable *cancellable)
{
  g_autoptr(GFileInfo) info_a = NULL;
  g_autoptr(GFileInfo) info_b = NULL;
  g_autoptr(GInputStream) stream_a = NULL;
  g_autoptr(GInputStream) stream_b = NULL;
  g_autofree guint8 *buffer_a = NULL;
  g_autofree guint8 *buffer_b = NULL;

  info_a = g_file_query_info (a, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE,
                              cancellable, NULL);
  info_b = g_file_query_info (b, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE,
                              cancellable, NULL);
  if (info_a == NULL || info_b == NULL ||
      g_file_info_get_size (info_a) != g_file_info_get_size (info_b))
    return FALSE;

  stream_a = G_INPUT_STREAM (g_file_read (a, cancellable, NULL));
  stream_b = G_INPUT_STREAM (g_file_read (b, cancellable, NULL));
  if (stream_a == NULL || stream_b == NULL)
    return FALSE;

  buffer_a = g_malloc (COMPARE_CHUNK_SIZE);
  buffer_b = g_malloc (COMPARE_CHUNK_SIZE);

  for (;;)
    {
      gsize read_a = 0;
      gsize read_b = 0;

      if (!g_input_stream_read_all (stream_a, buffer_a, COMPARE_CHUNK_SIZE, &read_a,
                                    cancellable, NULL) ||
          !g_input_stream_read_all (stream_b, buffer_b, COMPARE_CHUNK_SIZE, &read_b,
                                    cancellable, NULL) ||
          read_a != read_b ||
          memcmp (buffer_a, buffer_b, read_a) != 0)
        return FALSE;

      if (read_a < COMPARE_CHUNK_SIZE)
        return TRUE;
    }
}

/* Runs in the worker thread. Returns the name of @source relative to
 * @folder once it is there.
 */
static char *
attach_one (GFile         *folder,
            GFile         *source,
            GCancellable  *cancellable,
            GError       **error)
{
  g_autofree char *relative = NULL;
  g_autofree char *basename = NULL;
  g_autoptr(GFileInfo) info = NULL;

  info = g_file_query_info (source, G_FILE_ATTRIBUTE_STANDARD_TYPE,
                            G_FILE_QUERY_INFO_NONE, cancellable, error);
  if (info == NULL)
    return NULL;

  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                           _("Folders cannot be attached, only files"));
      return NULL;
    }

  /* A file that already lives in the step's folder is only referenced. */
  relative = g_file_get_relative_path (folder, source);
  if (relative != NULL)
    return g_steal_pointer (&relative);

  basename = g_file_get_basename (source);

  for (guint n = 1; ; n++)
    {
      g_autofree char *name = n == 1 ? g_strdup (basename) : numbered_name (basename, n);
      g_autoptr(GFile) target = g_file_get_child (folder, name);
      g_autoptr(GError) local_error = NULL;

      if (g_file_copy (source, target, G_FILE_COPY_TARGET_DEFAULT_PERMS,
                       cancellable, NULL, NULL, &local_error))
        return g_steal_pointer (&name);

      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }

      if (same_contents (source, target, cancellable))
        return g_steal_pointer (&name);
    }
}

static char *
describe_attach_error (const char   *basename,
                       const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return g_strdup_printf (_("“%s” could not be attached because it no longer exists."),
                            basename);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    return g_strdup_printf (_("“%s” could not be attached because you may not read it."),
                            basename);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY))
    return g_strdup_printf (_("“%s” is a folder; only files can be attached."), basename);

  return g_strdup_printf (_("“%s” could not be attached: %s"), basename, error->message);
}

static void
attach_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  AttachData *data = task_data;
  g_autoptr(GError) error = NULL;

  if (!g_file_make_directory_with_parents (data->folder, cancellable, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_autofree char *path = g_file_get_parse_name (data->folder);

      g_ptr_array_add (data->messages,
                       g_strdup_printf (_("The step’s folder %s could not be created: %s"),
                                        path, error->message));
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_clear_error (&error);

  for (guint i = 0; i < data->sources->len; i++)
    {
      GFile *source = g_ptr_array_index (data->sources, i);
      g_autoptr(GError) local_error = NULL;
      g_autofree char *name = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, &local_error))
        {
          g_task_return_error (task, g_steal_pointer (&local_error));
          return;
        }

      name = attach_one (data->folder, source, cancellable, &local_error);
      if (name != NULL)
        {
          g_ptr_array_add (data->names, g_steal_pointer (&name));
        }
      else
        {
          g_autofree char *basename = g_file_get_basename (source);

          g_ptr_array_add (data->messages, describe_attach_error (basename, local_error));
          if (data->first_error == NULL)
            data->first_error = g_steal_pointer (&local_error);
        }
    }

  g_task_return_boolean (task, TRUE);
}

static void
add_input_files (SkInputCell *self,
                 SkNode      *node,
                 GPtrArray   *names)
{
  const char * const *files = sk_node_get_input_files (node);
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
  guint n_files;

  /* Copies: the node frees its list before it copies the new one. */
  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    g_ptr_array_add (all, g_strdup (files[i]));
  n_files = all->len;

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);

      if (!g_ptr_array_find_with_equal_func (all, name, g_str_equal, NULL))
        g_ptr_array_add (all, g_strdup (name));
    }

  if (all->len == n_files)
    return;

  g_ptr_array_add (all, NULL);

  if (self->history != NULL)
    sk_history_begin (self->history, _("Attach Files"));
  sk_node_set_input_files (node, (const char * const *) all->pdata);
  if (self->history != NULL)
    sk_history_end (self->history);
}

static void
attach_thread_done_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SkInputCell *self = g_task_get_source_object (task);
  SkNode *node = g_task_get_task_data (task);
  AttachData *data = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  g_assert (SK_IS_INPUT_CELL (self));
  g_assert (SK_IS_NODE (node));

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          for (guint i = 0; i < data->messages->len; i++)
            sk_cell_emit_message (SK_CELL (self), g_ptr_array_index (data->messages, i));
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* The files go to the step they were dropped on, even if another step
   * was selected meanwhile.
   */
  add_input_files (self, node, data->names);

  for (guint i = 0; i < data->messages->len; i++)
    sk_cell_emit_message (SK_CELL (self), g_ptr_array_index (data->messages, i));

  if (data->first_error != NULL)
    g_task_return_error (task, g_error_copy (data->first_error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
buffer_changed_cb (SkInputCell   *self,
                   GtkTextBuffer *buffer)
{
  g_autofree char *text = NULL;
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  g_assert (SK_IS_INPUT_CELL (self));

  update_hint (self);

  if (self->updating_buffer || node == NULL)
    return;

  text = get_buffer_text (buffer);
  sk_node_set_input_text (node, text);
}

static void
node_input_text_cb (SkInputCell *self)
{
  sync_text_from_node (self, FALSE);
}

static void
node_input_files_cb (SkInputCell *self)
{
  sync_files_from_node (self);
}

static void
chooser_response_cb (SkInputCell          *self,
                     int                   response,
                     GtkFileChooserNative *chooser)
{
  g_assert (SK_IS_INPUT_CELL (self));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) model = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (chooser));
      g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
      guint n_items = g_list_model_get_n_items (model);

      for (guint i = 0; i < n_items; i++)
        g_ptr_array_add (files, g_list_model_get_item (model, i));

      if (files->len > 0)
        sk_input_cell_attach_files_async (self, (GFile **) files->pdata, files->len,
                                          NULL, NULL, NULL);
    }

  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_clear_object (&self->chooser);
}

static void
attach_clicked_cb (SkInputCell *self)
{
  GtkRoot *root;

  g_assert (SK_IS_INPUT_CELL (self));

  if (sk_cell_get_node (SK_CELL (self)) == NULL || self->chooser != NULL)
    return;

  root = gtk_widget_get_root (GTK_WIDGET (self));
  self->chooser = gtk_file_chooser_native_new (_("Attach Files"),
                                               GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                               GTK_FILE_CHOOSER_ACTION_OPEN,
                                               _("_Attach"),
                                               _("_Cancel"));
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (self->chooser), TRUE);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect_object (self->chooser, "response",
                           G_CALLBACK (chooser_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static gboolean
drop_accept_cb (SkInputCell   *self,
                GdkDrop       *drop,
                GtkDropTarget *target)
{
  g_assert (SK_IS_INPUT_CELL (self));

  return sk_cell_get_node (SK_CELL (self)) != NULL &&
         gdk_content_formats_contain_gtype (gdk_drop_get_formats (drop), GDK_TYPE_FILE_LIST);
}

static gboolean
drop_cb (SkInputCell   *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  g_assert (SK_IS_INPUT_CELL (self));

  if (sk_cell_get_node (SK_CELL (self)) == NULL || !G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;

  for (GSList *l = g_value_get_boxed (value); l != NULL; l = l->next)
    g_ptr_array_add (files, l->data);

  if (files->len == 0)
    return FALSE;

  sk_input_cell_attach_files_async (self, (GFile **) files->pdata, files->len, NULL, NULL, NULL);
  return TRUE;
}

/* Permissions ------------------------------------------------------------ */

static void
set_permissions (SkInputCell        *self,
                 const char         *undo_label,
                 gboolean            network,
                 const char * const *read_paths)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  if (node == NULL)
    return;

  if (self->history != NULL)
    sk_history_begin (self->history, undo_label);
  sk_node_set_permissions (node, network, read_paths);
  if (self->history != NULL)
    sk_history_end (self->history);
}

static void
remove_read_clicked_cb (SkInputCell *self,
                        GtkButton   *button)
{
  const char *path = g_object_get_data (G_OBJECT (button), "sk-read-path");
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  g_auto(GStrv) reads = NULL;
  g_autoptr(GStrvBuilder) kept = g_strv_builder_new ();
  g_auto(GStrv) paths = NULL;

  if (node == NULL || path == NULL)
    return;

  reads = sk_node_get_read_paths (node);
  for (guint i = 0; reads[i] != NULL; i++)
    if (!g_str_equal (reads[i], path))
      g_strv_builder_add (kept, reads[i]);
  paths = g_strv_builder_end (kept);

  set_permissions (self, _("Stop Reading Folder"), sk_node_get_network (node),
                   (const char * const *) paths);
}

/* What the step may reach, in one line, so that the rows can stay folded. */
static void
update_access_summary (SkInputCell *self,
                       gboolean     network,
                       guint        n_reads)
{
  g_autofree char *summary = NULL;

  if (n_reads == 0)
    summary = g_strdup (network
                        ? _("This workflow and the network")
                        : _("Only this workflow, no network"));
  else if (network)
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "This workflow, %u more folder and the network",
                                            "This workflow, %u more folders and the network",
                                            n_reads), n_reads);
  else
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "This workflow and %u more folder, no network",
                                            "This workflow and %u more folders, no network",
                                            n_reads), n_reads);

  adw_expander_row_set_subtitle (self->access_row, summary);
}

static void sync_approval_from_node (SkInputCell *self);

static void
sync_permissions_from_node (SkInputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  gboolean workflow_network = project != NULL && sk_project_get_network (project);
  g_auto(GStrv) reads = NULL;

  for (guint i = 0; i < self->read_rows->len; i++)
    adw_expander_row_remove (self->access_row, g_ptr_array_index (self->read_rows, i));
  g_ptr_array_set_size (self->read_rows, 0);

  sync_approval_from_node (self);
  if (node == NULL)
    return;

  self->updating_permissions = TRUE;
  gtk_switch_set_active (self->network_switch, workflow_network || sk_node_get_network (node));
  self->updating_permissions = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->network_switch), !workflow_network);
  adw_action_row_set_subtitle (self->network_row,
                               workflow_network
                               ? _("The workflow lets every step use the network.")
                               : sk_node_get_network (node)
                               ? _("The step may reach the internet and other computers.")
                               : _("The step cannot reach other computers."));

  reads = sk_node_get_read_paths (node);
  for (guint i = 0; reads[i] != NULL; i++)
    {
      g_autofree char *label = g_strdup_printf (_("Stop letting the step read %s"), reads[i]);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *button = gtk_button_new_from_icon_name ("edit-delete-symbolic");

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), reads[i]);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("The step may read this, but not change it."));
      adw_action_row_set_icon_name (ADW_ACTION_ROW (row), "folder-symbolic");

      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_tooltip_text (button, label);
      gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      g_object_set_data_full (G_OBJECT (button), "sk-read-path", g_strdup (reads[i]), g_free);
      g_signal_connect_object (button, "clicked",
                               G_CALLBACK (remove_read_clicked_cb), self, G_CONNECT_SWAPPED);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);

      adw_expander_row_add_row (self->access_row, row);
      g_ptr_array_add (self->read_rows, row);
    }

  adw_action_row_set_subtitle (self->read_row,
                               _("Otherwise the step sees only this workflow and the files attached to it."));
  update_access_summary (self, workflow_network || sk_node_get_network (node),
                         g_strv_length (reads));
}

static void
network_switch_cb (SkInputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  g_auto(GStrv) reads = NULL;
  gboolean active = gtk_switch_get_active (self->network_switch);

  if (self->updating_permissions || node == NULL || active == sk_node_get_network (node))
    return;

  reads = sk_node_get_read_paths (node);
  set_permissions (self, active ? _("Allow Network") : _("Deny Network"), active,
                   (const char * const *) reads);
}

/* A gate stops the run before the step until someone approves it
 * (DESIGN §10). */
static void
sync_approval_from_node (SkInputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  gboolean approval = node != NULL && sk_node_get_approval (node);

  self->updating_permissions = TRUE;
  gtk_switch_set_active (self->approval_switch, approval);
  self->updating_permissions = FALSE;
  adw_action_row_set_subtitle (self->approval_row,
                               approval
                               ? _("A run stops before this step until someone approves it.")
                               : _("The step runs as soon as the steps before it are done."));
}

static void
approval_switch_cb (SkInputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  gboolean active = gtk_switch_get_active (self->approval_switch);

  if (self->updating_permissions || node == NULL || active == sk_node_get_approval (node))
    return;

  if (self->history != NULL)
    sk_history_begin (self->history, active ? _("Ask for Approval") : _("Stop Asking for Approval"));
  sk_node_set_approval (node, active);
  if (self->history != NULL)
    sk_history_end (self->history);
}

static void
folder_chooser_response_cb (SkInputCell          *self,
                            int                   response,
                            GtkFileChooserNative *chooser)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  if (response == GTK_RESPONSE_ACCEPT && node != NULL)
    {
      g_autoptr(GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;
      g_auto(GStrv) reads = sk_node_get_read_paths (node);

      if (path != NULL && !g_strv_contains ((const char * const *) reads, path))
        {
          g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
          g_auto(GStrv) paths = NULL;

          g_strv_builder_addv (builder, (const char **) reads);
          g_strv_builder_add (builder, path);
          paths = g_strv_builder_end (builder);
          set_permissions (self, _("Read Folder"), sk_node_get_network (node),
                           (const char * const *) paths);
        }
    }

  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_clear_object (&self->folder_chooser);
}

static void
read_row_activated_cb (SkInputCell *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (sk_cell_get_node (SK_CELL (self)) == NULL || self->folder_chooser != NULL)
    return;

  self->folder_chooser = gtk_file_chooser_native_new (_("Let the Step Read a Folder"),
                                                      GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                      GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                      _("_Allow Reading"),
                                                      _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->folder_chooser), TRUE);
  g_signal_connect_object (self->folder_chooser, "response",
                           G_CALLBACK (folder_chooser_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->folder_chooser));
}

static void
sk_input_cell_node_changed (SkCell *cell,
                            SkNode *old_node)
{
  SkInputCell *self = SK_INPUT_CELL (cell);
  SkNode *node = sk_cell_get_node (cell);

  if (old_node != NULL)
    commit_task (self, old_node);
  g_free (self->committed_text);
  self->committed_text = g_strdup (node != NULL ? sk_node_get_input_text (node) : NULL);

  sync_text_from_node (self, TRUE);
  sync_files_from_node (self);
  sync_permissions_from_node (self);
  gtk_stack_set_visible_child_name (self->stack, node != NULL ? "node" : "empty");
  gtk_widget_set_sensitive (GTK_WIDGET (self->attach_button), node != NULL);
}

static void
sk_input_cell_dispose (GObject *object)
{
  SkInputCell *self = (SkInputCell *)object;

  g_cancellable_cancel (self->cancellable);

  if (self->chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  if (self->folder_chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->folder_chooser));
      g_clear_object (&self->folder_chooser);
    }

  sk_cell_dispose_template (SK_CELL (self), SK_TYPE_INPUT_CELL);

  g_clear_object (&self->history);
  g_clear_object (&self->files);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->read_rows, g_ptr_array_unref);
  g_clear_pointer (&self->committed_text, g_free);

  G_OBJECT_CLASS (sk_input_cell_parent_class)->dispose (object);
}

static void
sk_input_cell_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  SkInputCell *self = SK_INPUT_CELL (object);

  switch (prop_id)
    {
    case PROP_HISTORY:
      g_value_set_object (value, self->history);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_input_cell_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  SkInputCell *self = SK_INPUT_CELL (object);

  switch (prop_id)
    {
    case PROP_HISTORY:
      sk_input_cell_set_history (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_input_cell_class_init (SkInputCellClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  SkCellClass *cell_class = SK_CELL_CLASS (klass);

  object_class->dispose = sk_input_cell_dispose;
  object_class->get_property = sk_input_cell_get_property;
  object_class->set_property = sk_input_cell_set_property;

  cell_class->node_changed = sk_input_cell_node_changed;

  properties [PROP_HISTORY] =
    g_param_spec_object ("history", NULL, NULL, SK_TYPE_HISTORY,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/skelecode/SkeleCode/sk-input-cell.ui");
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, card);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, stack);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, text_view);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, hint_label);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, files_list);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, attach_button);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, permissions_list);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, access_row);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, network_row);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, network_switch);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, approval_row);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, approval_switch);
  gtk_widget_class_bind_template_child (widget_class, SkInputCell, read_row);
  gtk_widget_class_bind_template_callback (widget_class, attach_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, network_switch_cb);
  gtk_widget_class_bind_template_callback (widget_class, approval_switch_cb);
  gtk_widget_class_bind_template_callback (widget_class, read_row_activated_cb);

  gtk_widget_class_set_css_name (widget_class, "inputcell");
}

static void
sk_input_cell_init (SkInputCell *self)
{
  GSignalGroup *node_signals = sk_cell_get_node_signals (SK_CELL (self));
  GtkEventController *focus;
  GtkDropTarget *drop_target;
  GtkTextBuffer *buffer;

  gtk_widget_init_template (GTK_WIDGET (self));

  focus = gtk_event_controller_focus_new ();
  g_signal_connect_object (focus, "leave",
                           G_CALLBACK (text_focus_leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->text_view), focus);

  self->cancellable = g_cancellable_new ();
  self->files = gtk_string_list_new (NULL);
  self->read_rows = g_ptr_array_new ();
  gtk_list_box_bind_model (self->files_list, G_LIST_MODEL (self->files),
                           create_file_row, self, NULL);

  /* SkHistory undoes task edits through the model; the buffer's own undo
   * would fight it for Ctrl+Z.
   */
  buffer = gtk_text_view_get_buffer (self->text_view);
  gtk_text_buffer_set_enable_undo (buffer, FALSE);
  g_signal_connect_object (buffer, "changed",
                           G_CALLBACK (buffer_changed_cb), self, G_CONNECT_SWAPPED);

  g_signal_group_connect_object (node_signals, "notify::input-text",
                                 G_CALLBACK (node_input_text_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (node_signals, "notify::input-files",
                                 G_CALLBACK (node_input_files_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (node_signals, "changed",
                                 G_CALLBACK (sync_permissions_from_node), self, G_CONNECT_SWAPPED);

  drop_target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (drop_target, "accept",
                           G_CALLBACK (drop_accept_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drop_target, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop_target));

  gtk_stack_set_visible_child_name (self->stack, "empty");
  update_hint (self);
}

GtkWidget *
sk_input_cell_new (void)
{
  return g_object_new (SK_TYPE_INPUT_CELL, NULL);
}

SkHistory *
sk_input_cell_get_history (SkInputCell *self)
{
  g_return_val_if_fail (SK_IS_INPUT_CELL (self), NULL);

  return self->history;
}

void
sk_input_cell_set_history (SkInputCell *self,
                           SkHistory   *history)
{
  g_return_if_fail (SK_IS_INPUT_CELL (self));
  g_return_if_fail (history == NULL || SK_IS_HISTORY (history));

  if (g_set_object (&self->history, history))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HISTORY]);
}

/**
 * sk_input_cell_focus_task:
 * @self: a #SkInputCell
 *
 * Puts the keyboard focus into the task text, for example right after the
 * user added a step.
 */
void
sk_input_cell_focus_task (SkInputCell *self)
{
  g_return_if_fail (SK_IS_INPUT_CELL (self));

  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

/**
 * sk_input_cell_attach_files_async:
 * @self: a #SkInputCell
 * @files: (array length=n_files): the files to attach
 * @n_files: the number of @files
 * @cancellable: (nullable): a #GCancellable
 * @callback: (nullable): called when the files are attached
 * @user_data: data for @callback
 *
 * Copies @files into the folder of the cell's node, without replacing a
 * different file of the same name, and adds them to the node's input files
 * as one undo step. A file already in that folder is only added. Each file
 * that cannot be attached is reported with #SkCell::message; the others
 * are attached all the same.
 */
void
sk_input_cell_attach_files_async (SkInputCell          *self,
                                  GFile               **files,
                                  guint                 n_files,
                                  GCancellable         *cancellable,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) thread_task = NULL;
  g_autoptr(GFile) folder = NULL;
  SkProject *project;
  SkNode *node;
  AttachData *data;

  g_return_if_fail (SK_IS_INPUT_CELL (self));
  g_return_if_fail (files != NULL || n_files == 0);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_input_cell_attach_files_async);

  project = sk_cell_get_project (SK_CELL (self));
  node = sk_cell_get_node (SK_CELL (self));
  if (node == NULL || project == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               _("Select a step before attaching files."));
      return;
    }

  folder = sk_project_get_node_folder (project, node);
  if (folder == NULL)
    {
      const char *text = _("Save the workflow and name the step before attaching files.");

      sk_cell_emit_message (SK_CELL (self), text);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", text);
      return;
    }

  g_task_set_task_data (task, g_object_ref (node), g_object_unref);

  data = g_new0 (AttachData, 1);
  data->sources = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < n_files; i++)
    g_ptr_array_add (data->sources, g_object_ref (files[i]));
  data->folder = g_steal_pointer (&folder);
  data->names = g_ptr_array_new_with_free_func (g_free);
  data->messages = g_ptr_array_new_with_free_func (g_free);

  /* Without a cancellable from the caller, the copy stops when the cell goes
   * away.
   */
  thread_task = g_task_new (NULL,
                            cancellable != NULL ? cancellable : self->cancellable,
                            attach_thread_done_cb,
                            g_steal_pointer (&task));
  g_task_set_source_tag (thread_task, sk_input_cell_attach_files_async);
  g_task_set_task_data (thread_task, data, (GDestroyNotify) attach_data_free);
  g_task_run_in_thread (thread_task, attach_thread);
}

/**
 * sk_input_cell_attach_files_finish:
 * @self: a #SkInputCell
 * @result: the result given to the callback
 * @error: return location for the first file's error
 *
 * Returns: %TRUE if every file was attached
 */
gboolean
sk_input_cell_attach_files_finish (SkInputCell   *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (SK_IS_INPUT_CELL (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
