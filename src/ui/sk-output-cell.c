/* sk-output-cell.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-output-cell"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sk-image-viewer.h"
#include "sk-markdown.h"
#include "sk-output-cell.h"
#include "sk-run-record.h"
#include "sk-table-view.h"

#define TEXT_PREVIEW_LIMIT (64 * 1024)
#define PICTURE_MIN_HEIGHT 200
#define TABLE_MAX_ROWS     500
#define DETAIL_MAX_HEIGHT  420
#define LIVE_MAX_HEIGHT    240
#define LIVE_MAX_LINES     200
#define LIVE_MAX_CHARS     (64 * 1024)
#define ITEM_LINE_WORDS    6
#define ITEM_LINE_CHARS    48

struct _SkOutputCell
{
  SkCell             parent_instance;

  /* template widgets */
  GtkBox            *card;
  GtkStack          *stack;
  GtkBox            *state_box;
  GtkStack          *state_icon_stack;
  GtkImage          *state_image;
  GtkSpinner        *state_spinner;
  GtkLabel          *state_label;
  GtkButton         *open_folder_button;
  GtkLabel          *elapsed_label;
  GtkLabel          *no_output_label;
  GtkLabel          *output_label;
  GtkTextView       *report_view;
  GtkBox            *live_box;
  GtkScrolledWindow *live_scroller;
  GtkTextView       *live_view;
  GtkBox            *error_box;
  GtkLabel          *error_label;
  GtkWidget         *explain_button;
  GtkButton         *copy_error_button;
  GtkExpander       *details_expander;
  GtkScrolledWindow *detail_scroller;
  GtkTextView       *detail_view;
  GtkBox            *files_box;
  GtkDropDown       *files_drop_down;
  GtkButton         *open_button;
  GtkStack          *preview_stack;
  GtkButton         *picture_button;
  GtkPicture        *picture;
  GtkTextView       *text_preview;
  GtkLabel          *truncated_label;
  GtkTextView       *markdown_view;
  GtkLabel          *markdown_truncated_label;
  GtkScrolledWindow *table_scroller;
  GtkLabel          *table_rows_label;
  GtkLabel          *preview_error_label;
  GtkBox            *agent_box;
  GtkStack          *agent_icon_stack;
  GtkSpinner        *agent_spinner;
  GtkLabel          *agent_latest_label;
  GtkExpander       *agent_expander;
  GtkScrolledWindow *agent_scroller;
  GtkListBox        *agent_list;
  GtkLabel          *tokens_label;
  GtkBox            *gate_box;
  GtkLabel          *gate_label;
  GtkLabel          *gate_inputs_heading;
  GtkBox            *gate_priors_box;
  GtkEntry          *note_entry;
  GtkButton         *show_code_button;
  GtkButton         *deny_button;
  GtkButton         *approve_button;
  GtkButton         *reverse_button;
  GtkLabel          *decision_label;
  GtkBox            *items_box;
  GtkDropDown       *items_drop_down;

  /* made here, in the header beside the folder button */
  GtkWidget         *subworkflow_button;

  /* owned refs */
  GtkStringList     *files;
  /* While a gate waits, the drop-down lists its priors' files as
   * “PRIOR/FILE”: name → GFile. */
  GHashTable        *gate_files;
  GListModel        *agent_log;
  GCancellable      *preview_cancellable;
  GCancellable      *cancellable;
  /* A for-each step's items found on disk, as ItemRecord, and their names
   * in the item drop-down after “All items”. */
  GPtrArray         *items;
  GtkStringList     *item_names;

  /* One of "none", "image", "text", "markdown", "table", "unsupported"
   * and "error". */
  const char        *preview_kind;

  /* The state of the node last seen, to notice a run starting and ending. */
  SkNodeState        last_state;
  guint              elapsed_source;

  guint              updating_files : 1;
  guint              updating_items : 1;
  guint              agent_log_at_end : 1;
  guint              live_at_end : 1;
};

typedef enum
{
  PREVIEW_NONE,
  PREVIEW_IMAGE,
  PREVIEW_TEXT,
  PREVIEW_MARKDOWN,
  PREVIEW_TABLE,
  PREVIEW_UNSUPPORTED,
  PREVIEW_ERROR,
} PreviewKind;

/* Everything here may be finalized in the worker thread. */
typedef struct
{
  GFile       *file;
  PreviewKind  kind;
  GdkTexture  *texture;
  char        *text;
  SkTable     *table;
  gboolean     truncated;
  gboolean     was_image;
} PreviewData;

/* One item of a for-each step, as its record in KEY/items/N says. */
typedef struct
{
  guint       index;
  JsonObject *record;
} ItemRecord;

G_DEFINE_FINAL_TYPE (SkOutputCell, sk_output_cell, SK_TYPE_CELL)

enum {
  PROP_0,
  PROP_PREVIEW_KIND,
  N_PROPS
};

enum {
  PREVIEW_LOADED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

static const char * const preview_kind_names[] = {
  "none", "image", "text", "markdown", "table", "unsupported", "error",
};

static const char * const markdown_extensions[] = { "md", "markdown", NULL };
static const char * const table_extensions[] = { "csv", "tsv", "tab", NULL };
static const char * const tsv_extensions[] = { "tsv", "tab", NULL };

/* The start and the length of the last run of a step, as this process saw
 * them, kept on the step so that they outlive the cell's binding to it. */
static GQuark run_started_quark (void);
static GQuark run_duration_quark (void);
G_DEFINE_QUARK (sk-output-cell-run-started, run_started)
G_DEFINE_QUARK (sk-output-cell-run-duration, run_duration)

static const char * const image_extensions[] = {
  "png", "jpg", "jpeg", "svg", "svgz", "gif", "bmp", "tif", "tiff", NULL
};

static const char * const image_types[] = {
  "image/png", "image/jpeg", "image/svg+xml", "image/svg+xml-compressed",
  "image/gif", "image/bmp", "image/tiff", NULL
};

static const char * const text_extensions[] = {
  "txt", "md", "markdown", "rst", "csv", "tsv", "json", "jsonl", "ndjson",
  "log", "py", "r", "sql", "sh", "yaml", "yml", "toml", "ini", "cfg", "conf",
  "xml", "html", "htm", "tex", "js", "c", "h", "diff", "patch", NULL
};

static void
preview_data_free (PreviewData *data)
{
  g_clear_object (&data->file);
  g_clear_object (&data->texture);
  g_clear_pointer (&data->text, g_free);
  g_clear_pointer (&data->table, sk_table_free);
  g_free (data);
}

static gboolean
has_extension (const char         *name,
               const char * const *extensions)
{
  const char *dot = strrchr (name, '.');
  g_autofree char *lower = NULL;

  if (dot == NULL || strchr (dot, '/') != NULL)
    return FALSE;

  lower = g_ascii_strdown (dot + 1, -1);
  return g_strv_contains (extensions, lower);
}

static gboolean
is_waiting_gate (SkNode *node)
{
  return sk_node_get_state (node) == SK_NODE_STATE_AWAITING_APPROVAL && sk_node_get_approval (node);
}

static void
item_record_free (gpointer data)
{
  ItemRecord *item = data;

  g_clear_pointer (&item->record, json_object_unref);
  g_free (item);
}

/* The item chosen in the item drop-down, or %NULL for “All items”. */
static ItemRecord *
selected_item (SkOutputCell *self)
{
  guint position = gtk_drop_down_get_selected (self->items_drop_down);

  if (position == 0 || position == GTK_INVALID_LIST_POSITION || position > self->items->len)
    return NULL;

  return g_ptr_array_index (self->items, position - 1);
}

static gboolean
item_failed (const ItemRecord *item)
{
  return g_strcmp0 (sk_json_get_string (item->record, "status"), "failed") == 0;
}

static GFile *
resolve_file (SkOutputCell *self,
              const char   *name)
{
  g_autoptr(GFile) folder = NULL;
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  if (self->gate_files != NULL && g_hash_table_contains (self->gate_files, name))
    return g_object_ref (g_hash_table_lookup (self->gate_files, name));

  if (g_path_is_absolute (name))
    return g_file_new_for_path (name);

  if (project == NULL || node == NULL)
    return NULL;

  folder = sk_project_get_node_folder (project, node);
  if (folder == NULL)
    return NULL;

  return g_file_resolve_relative_path (folder, name);
}

/* "no such file" → "No such file." */
static char *
as_sentence (const char *text)
{
  GString *sentence;
  gsize len;

  sentence = g_string_new (NULL);
  if (g_utf8_validate (text, -1, NULL) && text[0] != '\0')
    {
      g_string_append_unichar (sentence, g_unichar_totitle (g_utf8_get_char (text)));
      g_string_append (sentence, g_utf8_next_char (text));
    }
  else
    g_string_append (sentence, text);

  while (sentence->len > 0 && g_ascii_isspace (sentence->str[sentence->len - 1]))
    g_string_truncate (sentence, sentence->len - 1);

  len = sentence->len;
  if (len > 0 && strchr (".!?:", sentence->str[len - 1]) == NULL &&
      !g_str_has_suffix (sentence->str, "…"))
    g_string_append_c (sentence, '.');

  return g_string_free (sentence, FALSE);
}

static PreviewKind
guess_kind (GFile        *file,
            GCancellable *cancellable)
{
  g_autofree char *basename = g_file_get_basename (file);
  g_autoptr(GFileInfo) info = NULL;
  const char *content_type = NULL;
  g_autofree char *mime_type = NULL;

  if (has_extension (basename, image_extensions))
    return PREVIEW_IMAGE;
  if (has_extension (basename, markdown_extensions))
    return PREVIEW_MARKDOWN;
  if (has_extension (basename, table_extensions))
    return PREVIEW_TABLE;
  if (has_extension (basename, text_extensions))
    return PREVIEW_TEXT;

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_CONTENT_TYPE,
                            G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  if (info != NULL)
    content_type = g_file_info_get_content_type (info);
  if (content_type == NULL)
    return PREVIEW_UNSUPPORTED;

  mime_type = g_content_type_get_mime_type (content_type);
  if (mime_type != NULL && g_strv_contains (image_types, mime_type))
    return PREVIEW_IMAGE;
  if (g_content_type_is_a (content_type, "text/plain") ||
      (mime_type != NULL && g_str_has_prefix (mime_type, "text/")))
    return PREVIEW_TEXT;

  return PREVIEW_UNSUPPORTED;
}

static gboolean
load_text (PreviewData   *data,
           GCancellable  *cancellable,
           GError       **error)
{
  g_autoptr(GFileInputStream) stream = NULL;
  g_autofree char *buffer = NULL;
  gsize n_read = 0;
  const char *end = NULL;

  stream = g_file_read (data->file, cancellable, error);
  if (stream == NULL)
    return FALSE;

  /* One byte more than shown tells whether the file goes on. */
  buffer = g_malloc (TEXT_PREVIEW_LIMIT + 1);
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), buffer, TEXT_PREVIEW_LIMIT + 1,
                                &n_read, cancellable, error))
    return FALSE;

  data->truncated = n_read > TEXT_PREVIEW_LIMIT;
  n_read = MIN (n_read, TEXT_PREVIEW_LIMIT);

  /* A multi-byte character cut by the limit is dropped, not replaced. */
  if (!g_utf8_validate (buffer, n_read, &end) &&
      data->truncated && n_read - (gsize) (end - buffer) < 4)
    n_read = end - buffer;

  data->text = g_utf8_make_valid (buffer, n_read);
  return TRUE;
}

static void
preview_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  PreviewData *data = task_data;
  g_autoptr(GError) error = NULL;

  data->kind = guess_kind (data->file, cancellable);

  switch (data->kind)
    {
    case PREVIEW_IMAGE:
      data->was_image = TRUE;
      data->texture = gdk_texture_new_from_file (data->file, &error);
      if (data->texture == NULL)
        {
          g_debug ("Could not load an image preview: %s", error->message);
          data->kind = PREVIEW_ERROR;
        }
      break;

    case PREVIEW_TEXT:
    case PREVIEW_MARKDOWN:
      if (!load_text (data, cancellable, &error))
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_debug ("Could not load a text preview: %s", error->message);
          data->kind = PREVIEW_ERROR;
        }
      break;

    case PREVIEW_TABLE:
      {
        g_autoptr(GFileInputStream) stream = g_file_read (data->file, cancellable, &error);
        g_autofree char *basename = g_file_get_basename (data->file);
        char separator = has_extension (basename, tsv_extensions) ? '\t' : '\0';

        if (stream != NULL)
          data->table = sk_table_parse (G_INPUT_STREAM (stream), separator, TABLE_MAX_ROWS,
                                        cancellable, &error);
        if (data->table == NULL)
          {
            if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
              g_debug ("Could not load a table preview: %s", error->message);
            data->kind = PREVIEW_ERROR;
          }
      }
      break;

    case PREVIEW_NONE:
    case PREVIEW_UNSUPPORTED:
    case PREVIEW_ERROR:
    default:
      break;
    }

  if (g_task_return_error_if_cancelled (task))
    return;

  g_task_return_boolean (task, TRUE);
}

static void
set_preview_kind (SkOutputCell *self,
                  PreviewKind   kind)
{
  const char *name = preview_kind_names[kind];

  gtk_stack_set_visible_child_name (self->preview_stack, name);

  if (self->preview_kind != name)
    {
      self->preview_kind = name;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PREVIEW_KIND]);
    }

  g_signal_emit (self, signals [PREVIEW_LOADED], 0);
}

static void
clear_preview (SkOutputCell *self)
{
  gtk_picture_set_paintable (self->picture, NULL);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_preview), "", 0);
  sk_markdown_render (gtk_text_view_get_buffer (self->markdown_view), NULL);
  gtk_scrolled_window_set_child (self->table_scroller, NULL);
}

/* The picture takes the cell's width and keeps a useful height when the
 * cells are short of room: a GtkPicture that can shrink would otherwise be
 * squeezed to a strip. Its clamp stops tall images at a readable height.
 */
static void
set_picture_height (SkOutputCell *self,
                    int           image_height)
{
  gtk_widget_set_size_request (GTK_WIDGET (self->picture), -1,
                               MIN (image_height, PICTURE_MIN_HEIGHT));
}

static void
preview_loaded_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(SkOutputCell) self = user_data;
  PreviewData *data = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  g_assert (SK_IS_OUTPUT_CELL (self));

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    return;

  clear_preview (self);

  switch (data->kind)
    {
    case PREVIEW_IMAGE:
      {
        g_autofree char *basename = g_file_get_basename (data->file);
        g_autofree char *name = g_filename_display_name (basename);
        /* Translators: the accessible name of an image's preview, a button. */
        g_autofree char *description = g_strdup_printf (_("Show %s Larger"), name);

        gtk_picture_set_paintable (self->picture, GDK_PAINTABLE (data->texture));
        set_picture_height (self, gdk_texture_get_height (data->texture));
        gtk_accessible_update_property (GTK_ACCESSIBLE (self->picture_button),
                                        GTK_ACCESSIBLE_PROPERTY_LABEL, description, -1);
      }
      break;

    case PREVIEW_TEXT:
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_preview), data->text, -1);
      gtk_widget_set_visible (GTK_WIDGET (self->truncated_label), data->truncated);
      break;

    case PREVIEW_MARKDOWN:
      sk_markdown_render (gtk_text_view_get_buffer (self->markdown_view), data->text);
      gtk_widget_set_visible (GTK_WIDGET (self->markdown_truncated_label), data->truncated);
      break;

    case PREVIEW_TABLE:
      {
        g_autofree char *rows = sk_table_describe_rows (data->table);

        gtk_label_set_label (self->table_rows_label, rows);
        gtk_scrolled_window_set_child (self->table_scroller,
                                       sk_table_view_new (g_steal_pointer (&data->table)));
      }
      break;

    case PREVIEW_ERROR:
      gtk_label_set_label (self->preview_error_label,
                           data->was_image ? _("This image could not be shown")
                                           : _("This file could not be read"));
      break;

    case PREVIEW_NONE:
    case PREVIEW_UNSUPPORTED:
    default:
      break;
    }

  set_preview_kind (self, data->kind);
}

static void
reload_preview (SkOutputCell *self)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GFile) file = NULL;
  const char *name;
  PreviewData *data;

  g_cancellable_cancel (self->preview_cancellable);
  g_clear_object (&self->preview_cancellable);

  name = sk_output_cell_get_selected_file (self);
  if (name != NULL)
    file = resolve_file (self, name);

  gtk_widget_set_sensitive (GTK_WIDGET (self->open_button), file != NULL);

  if (file == NULL)
    {
      clear_preview (self);
      set_preview_kind (self, PREVIEW_NONE);
      return;
    }

  self->preview_cancellable = g_cancellable_new ();

  data = g_new0 (PreviewData, 1);
  data->file = g_steal_pointer (&file);

  /* The task has no source object: it may be finalized in the worker
   * thread, which must not drop the last reference to a widget.
   */
  task = g_task_new (NULL, self->preview_cancellable, preview_loaded_cb, g_object_ref (self));
  g_task_set_source_tag (task, reload_preview);
  g_task_set_task_data (task, data, (GDestroyNotify) preview_data_free);
  g_task_run_in_thread (task, preview_thread);
}

static guint
default_file_position (const char * const *files)
{
  if (files == NULL || files[0] == NULL)
    return GTK_INVALID_LIST_POSITION;

  for (guint i = 0; files[i] != NULL; i++)
    {
      if (has_extension (files[i], image_extensions))
        return i;
    }

  return 0;
}

static void
sync_files_from_node (SkOutputCell *self)
{
  g_autofree char *previous = g_strdup (sk_output_cell_get_selected_file (self));
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  const char * const *files = NULL;
  guint position = GTK_INVALID_LIST_POSITION;
  guint n_items;

  g_autoptr(GStrvBuilder) gate_names = NULL;
  g_auto(GStrv) gate_files = NULL;
  g_auto(GStrv) item_paths = NULL;

  g_hash_table_remove_all (self->gate_files);
  if (node != NULL && is_waiting_gate (node))
    {
      SkProject *project = sk_cell_get_project (SK_CELL (self));
      const char * const *priors = sk_node_get_priors (node);

      /* A gate has made nothing yet; what it shows is what it receives. */
      gate_names = g_strv_builder_new ();
      for (guint i = 0; project != NULL && priors != NULL && priors[i] != NULL; i++)
        {
          SkNode *prior = sk_project_get_node (project, priors[i]);
          const char * const *prior_files = prior != NULL ? sk_node_get_output_files (prior) : NULL;
          g_autoptr(GFile) folder = prior != NULL ? sk_project_get_node_folder (project, prior) : NULL;

          for (guint j = 0; folder != NULL && prior_files != NULL && prior_files[j] != NULL; j++)
            {
              char *shown = g_strdup_printf ("%s/%s", sk_node_get_key (prior), prior_files[j]);
              GFile *file = g_path_is_absolute (prior_files[j])
                ? g_file_new_for_path (prior_files[j])
                : g_file_resolve_relative_path (folder, prior_files[j]);

              g_strv_builder_add (gate_names, shown);
              g_hash_table_insert (self->gate_files, shown, file);
            }
        }
      gate_files = g_strv_builder_end (gate_names);
      files = (const char * const *) gate_files;
    }
  else if (node != NULL && selected_item (self) != NULL)
    {
      ItemRecord *item = selected_item (self);
      JsonArray *item_files = sk_json_get_array (item->record, "output_files");
      g_autoptr(GStrvBuilder) names = g_strv_builder_new ();

      /* The item's record lists its files in its own folder; the step's
       * list, and so the preview, names them from the step's folder. */
      for (guint i = 0; item_files != NULL && i < json_array_get_length (item_files); i++)
        {
          const char *name = json_array_get_string_element (item_files, i);

          if (name != NULL && name[0] != '\0' && !g_path_is_absolute (name))
            {
              g_autofree char *path = g_strdup_printf ("items/%u/%s", item->index, name);

              g_strv_builder_add (names, path);
            }
        }
      item_paths = g_strv_builder_end (names);
      files = (const char * const *) item_paths;
    }
  else if (node != NULL)
    files = sk_node_get_output_files (node);

  self->updating_files = TRUE;

  n_items = g_list_model_get_n_items (G_LIST_MODEL (self->files));
  gtk_string_list_splice (self->files, 0, n_items, files);

  for (guint i = 0; previous != NULL && files != NULL && files[i] != NULL; i++)
    {
      if (strcmp (files[i], previous) == 0)
        {
          position = i;
          break;
        }
    }
  if (position == GTK_INVALID_LIST_POSITION)
    position = default_file_position (files);

  gtk_drop_down_set_selected (self->files_drop_down, position);

  self->updating_files = FALSE;

  gtk_widget_set_visible (GTK_WIDGET (self->files_box), files != NULL && files[0] != NULL);
}

static void
sync_output_text (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  ItemRecord *item = selected_item (self);
  const char *text = node != NULL ? sk_node_get_output_text (node) : "";
  gboolean has_text;
  gboolean markdown;

  if (item != NULL)
    text = sk_json_get_string (item->record, "output_text");
  has_text = text != NULL && text[0] != '\0';
  markdown = has_text && sk_markdown_looks_like (text);

  gtk_label_set_text (self->output_label, has_text && !markdown ? text : "");
  sk_markdown_render (gtk_text_view_get_buffer (self->report_view), markdown ? text : NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->output_label), has_text && !markdown);
  gtk_widget_set_visible (GTK_WIDGET (self->report_view), markdown);
  /* A failed item says so in its error. */
  if (item != NULL)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->no_output_label), !has_text && !item_failed (item));
      return;
    }
  /* "Nothing reported yet" would not be true of a step that is running,
   * or that failed or has no code: those say so themselves. */
  gtk_widget_set_visible (GTK_WIDGET (self->no_output_label),
                          !has_text && node != NULL && sk_node_get_error_text (node) == NULL &&
                          sk_node_get_state (node) != SK_NODE_STATE_RUNNING &&
                          sk_node_get_state (node) != SK_NODE_STATE_WRITING_CODE &&
                          sk_node_get_state (node) != SK_NODE_STATE_FAILED &&
                          !is_waiting_gate (node));
}

static const char *
state_icon_name (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_IDLE: return "content-loading-symbolic";
    case SK_NODE_STATE_STALE: return "view-refresh-symbolic";
    case SK_NODE_STATE_QUEUED: return "appointment-soon-symbolic";
    case SK_NODE_STATE_SUCCEEDED: return "object-select-symbolic";
    case SK_NODE_STATE_FAILED: return "dialog-error-symbolic";
    case SK_NODE_STATE_SKIPPED: return "media-skip-forward-symbolic";
    case SK_NODE_STATE_CANCELLED: return "process-stop-symbolic";
    case SK_NODE_STATE_UP_TO_DATE: return "object-select-symbolic";
    case SK_NODE_STATE_AWAITING_APPROVAL: return "emblem-important-symbolic";
    case SK_NODE_STATE_RUNNING:
    case SK_NODE_STATE_WRITING_CODE:
    default:
      return NULL;
    }
}

static void
sync_state (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  SkNodeState state = SK_NODE_STATE_IDLE;
  const char *description = "";
  gboolean running;

  if (node != NULL)
    {
      state = sk_node_get_state (node);
      description = sk_node_state_describe (state);
    }

  running = node != NULL &&
            (state == SK_NODE_STATE_RUNNING || state == SK_NODE_STATE_WRITING_CODE);

  gtk_label_set_label (self->state_label, description);
  gtk_image_set_from_icon_name (self->state_image, state_icon_name (state));
  gtk_stack_set_visible_child_name (self->state_icon_stack, running ? "spinner" : "icon");
  gtk_spinner_set_spinning (self->state_spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->state_box),
                          node != NULL && description[0] != '\0');

  if (node != NULL && state == SK_NODE_STATE_FAILED)
    gtk_widget_add_css_class (GTK_WIDGET (self->state_box), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->state_box), "error");

  if (node != NULL && (state == SK_NODE_STATE_SUCCEEDED || state == SK_NODE_STATE_UP_TO_DATE))
    gtk_widget_add_css_class (GTK_WIDGET (self->state_box), "success");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->state_box), "success");
}

/* The lines of the agent's log are short, so a wrapped label per line is
 * enough; they are not activatable, since they only tell. */
static GtkWidget *
create_log_row (gpointer item,
                gpointer user_data)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *line = gtk_label_new (gtk_string_object_get_string (item));

  gtk_label_set_xalign (GTK_LABEL (line), 0);
  gtk_label_set_wrap (GTK_LABEL (line), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (line), PANGO_WRAP_WORD_CHAR);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), line);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);

  return row;
}

static void
sync_agent (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  guint n_lines = 0;
  gboolean writing;

  if (self->agent_log != NULL)
    n_lines = g_list_model_get_n_items (self->agent_log);

  writing = node != NULL && sk_node_get_state (node) == SK_NODE_STATE_WRITING_CODE;

  if (n_lines > 0)
    {
      g_autoptr(GtkStringObject) latest = g_list_model_get_item (self->agent_log, n_lines - 1);

      gtk_label_set_label (self->agent_latest_label, gtk_string_object_get_string (latest));
    }
  else
    gtk_label_set_label (self->agent_latest_label, "");

  gtk_stack_set_visible_child_name (self->agent_icon_stack, writing ? "spinner" : "icon");
  gtk_spinner_set_spinning (self->agent_spinner, writing);
  gtk_widget_set_visible (GTK_WIDGET (self->agent_box), node != NULL && n_lines > 0);
}

static void
agent_log_changed_cb (SkOutputCell *self)
{
  sync_agent (self);
}

/* The log follows its newest line, unless the user scrolled back to read. */
static void
agent_scroll_changed_cb (SkOutputCell  *self,
                         GParamSpec    *pspec,
                         GtkAdjustment *adjustment)
{
  double bottom = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);

  if (g_str_equal (pspec->name, "upper"))
    {
      if (self->agent_log_at_end)
        gtk_adjustment_set_value (adjustment, bottom);
      return;
    }

  self->agent_log_at_end = gtk_adjustment_get_value (adjustment) >= bottom - 1;
}

static gulong
plural_count (guint64 n)
{
  /* ngettext takes an unsigned long; the last digits decide the form. */
  return n > G_MAXULONG ? n % 1000000 + 1000000 : n;
}

static void
sync_tokens (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  guint64 read = 0, written = 0;

  if (node != NULL)
    sk_node_get_tokens (node, &read, &written);

  if (read == 0 && written == 0)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->tokens_label), FALSE);
      gtk_label_set_label (self->tokens_label, "");
      return;
    }

  {
    g_autofree char *text = sk_output_cell_describe_tokens (read, written);

    gtk_label_set_label (self->tokens_label, text);
    gtk_widget_set_visible (GTK_WIDGET (self->tokens_label), TRUE);
  }
}

static void
sync_error (SkOutputCell *self)
{
  const char *text = NULL;
  const char *detail = NULL;
  g_autofree char *sentence = NULL;
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  ItemRecord *item = selected_item (self);
  gboolean failed = FALSE;

  if (item != NULL)
    {
      text = sk_json_get_string (item->record, "error");
      detail = sk_json_get_string (item->record, "detail");
      failed = item_failed (item);
    }
  else if (node != NULL)
    {
      text = sk_node_get_error_text (node);
      detail = sk_node_get_error_detail (node);
      failed = sk_node_get_state (node) == SK_NODE_STATE_FAILED;
    }

  if (text != NULL && text[0] != '\0')
    sentence = as_sentence (text);
  else if (item != NULL)
    sentence = g_strdup (_("This item failed."));
  else
    sentence = g_strdup (_("This step failed."));

  gtk_label_set_label (self->error_label, sentence);
  /* Shorter details take less room again. */
  gtk_scrolled_window_set_min_content_height (self->detail_scroller, -1);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->detail_view),
                            detail != NULL ? detail : "", -1);
  gtk_widget_set_visible (GTK_WIDGET (self->details_expander), detail != NULL && detail[0] != '\0');
  /* A waiting gate's panel says what its error text would. */
  gtk_widget_set_visible (GTK_WIDGET (self->error_box),
                          (failed || (text != NULL && text[0] != '\0')) &&
                          !(node != NULL && is_waiting_gate (node)));
  /* Explaining a failure is about the step, which the agent can see. */
  gtk_widget_set_visible (self->explain_button, failed && item == NULL);
  if (failed && item == NULL)
    gtk_actionable_set_action_target (GTK_ACTIONABLE (self->explain_button), "s", sk_node_get_id (node));
}

/* “12 s”, “3 min 5 s”, “2 h 10 min”. */
static char *
format_duration (gint64 usec)
{
  guint64 seconds = MAX (usec, 0) / G_USEC_PER_SEC;

  if (seconds < 60)
    /* Translators: a duration in seconds. */
    return g_strdup_printf (_("%u s"), (guint) seconds);
  if (seconds < 3600)
    /* Translators: a duration in minutes and seconds. */
    return g_strdup_printf (_("%u min %u s"), (guint) (seconds / 60), (guint) (seconds % 60));
  /* Translators: a duration in hours and minutes. */
  return g_strdup_printf (_("%u h %u min"), (guint) (seconds / 3600),
                          (guint) (seconds % 3600 / 60));
}

static gboolean elapsed_tick_cb (gpointer user_data);

static void
sync_elapsed (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  gint64 *started = NULL;
  gint64 *duration = NULL;
  g_autofree char *text = NULL;

  if (node != NULL)
    {
      started = g_object_get_qdata (G_OBJECT (node), run_started_quark ());
      duration = g_object_get_qdata (G_OBJECT (node), run_duration_quark ());
    }

  if (node != NULL && started != NULL && sk_node_get_state (node) == SK_NODE_STATE_RUNNING)
    {
      g_autofree char *elapsed = format_duration (g_get_monotonic_time () - *started);

      /* Translators: how long a step has been running, as in “Running for 12 s”. */
      text = g_strdup_printf (_("Running for %s"), elapsed);
      if (self->elapsed_source == 0)
        self->elapsed_source = g_timeout_add (1000, elapsed_tick_cb, self);
    }
  else
    {
      g_clear_handle_id (&self->elapsed_source, g_source_remove);

      if (node != NULL && duration != NULL)
        {
          g_autofree char *took = format_duration (*duration);

          /* Translators: how long the last run of a step took, as in “Took 3 s”. */
          text = g_strdup_printf (_("Took %s"), took);
        }
    }

  gtk_label_set_label (self->elapsed_label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->elapsed_label), text != NULL);
}

static gboolean
elapsed_tick_cb (gpointer user_data)
{
  SkOutputCell *self = user_data;

  self->elapsed_source = 0;
  sync_elapsed (self);
  return G_SOURCE_REMOVE;
}

/* A run starts and ends as the cell sees the state change; a step that was
 * already running when the cell was bound to it has no known start. */
static void
track_run (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  SkNodeState state = node != NULL ? sk_node_get_state (node) : SK_NODE_STATE_IDLE;

  if (node != NULL && state == SK_NODE_STATE_RUNNING && self->last_state != SK_NODE_STATE_RUNNING)
    {
      gint64 *started = g_new (gint64, 1);

      *started = g_get_monotonic_time ();
      g_object_set_qdata_full (G_OBJECT (node), run_started_quark (), started, g_free);
      g_object_set_qdata (G_OBJECT (node), run_duration_quark (), NULL);
      sk_output_cell_clear_live_output (self);
    }
  else if (node != NULL && state != SK_NODE_STATE_RUNNING && self->last_state == SK_NODE_STATE_RUNNING)
    {
      gint64 *started = g_object_steal_qdata (G_OBJECT (node), run_started_quark ());

      if (started != NULL)
        {
          gint64 *duration = g_new (gint64, 1);

          *duration = g_get_monotonic_time () - *started;
          g_object_set_qdata_full (G_OBJECT (node), run_duration_quark (), duration, g_free);
          g_free (started);
        }
    }

  self->last_state = state;
}

/* A scrolled window as tall as its content, up to @max_height: the cells
 * scroll as a whole, so a box that keeps only its natural height would be
 * squeezed when they are short of room. */
static void
fit_scroller_cb (GtkAdjustment     *adjustment,
                 GParamSpec        *pspec,
                 GtkScrolledWindow *scroller)
{
  GtkWidget *child = gtk_scrolled_window_get_child (scroller);
  int max_height = gtk_scrolled_window_get_max_content_height (scroller);
  int width = child != NULL ? gtk_widget_get_width (child) : 0;
  int height = 0;

  /* The content's own height, not the adjustment's, which is never less
   * than the room the scrolled window had before. */
  if (width <= 0)
    return;
  gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, width, NULL, &height, NULL, NULL);
  height = CLAMP (height, 0, max_height);
  if (gtk_scrolled_window_get_min_content_height (scroller) != height)
    gtk_scrolled_window_set_min_content_height (scroller, height);
}

static void
fit_scroller_to_content (GtkScrolledWindow *scroller)
{
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (scroller), "notify::upper",
                           G_CALLBACK (fit_scroller_cb), scroller, 0);
}

/* The live output follows its newest line, unless the user scrolled back. */
static void
live_scroll_changed_cb (SkOutputCell  *self,
                        GParamSpec    *pspec,
                        GtkAdjustment *adjustment)
{
  double bottom = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);

  if (g_str_equal (pspec->name, "upper"))
    {
      if (self->live_at_end)
        gtk_adjustment_set_value (adjustment, bottom);
      return;
    }

  self->live_at_end = gtk_adjustment_get_value (adjustment) >= bottom - 1;
}

static void
copy_error_clicked_cb (SkOutputCell *self)
{
  g_autoptr(GString) text = g_string_new (gtk_label_get_text (self->error_label));
  g_autofree char *detail = NULL;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->detail_view);
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  detail = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  if (detail[0] != '\0')
    g_string_append_printf (text, "\n\n%s", detail);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text->str);
  sk_cell_emit_message (SK_CELL (self), _("The error and its details were copied."));
}

static void
picture_clicked_cb (SkOutputCell *self)
{
  g_autoptr(GPtrArray) images = g_ptr_array_new_with_free_func (g_object_unref);
  const char *selected = sk_output_cell_get_selected_file (self);
  GdkPaintable *paintable = gtk_picture_get_paintable (self->picture);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  guint n_items = g_list_model_get_n_items (G_LIST_MODEL (self->files));
  guint position = 0;
  GtkWidget *viewer;

  if (selected == NULL || paintable == NULL)
    return;

  /* The viewer goes through the step's images in the drop-down's order. */
  for (guint i = 0; i < n_items; i++)
    {
      const char *name = gtk_string_list_get_string (self->files, i);
      GFile *file;

      if (!has_extension (name, image_extensions) && strcmp (name, selected) != 0)
        continue;
      if ((file = resolve_file (self, name)) == NULL)
        continue;
      if (strcmp (name, selected) == 0)
        position = images->len;
      g_ptr_array_add (images, file);
    }
  if (images->len == 0)
    return;

  viewer = sk_image_viewer_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, images, position,
                                GDK_IS_TEXTURE (paintable) ? GDK_TEXTURE (paintable) : NULL);
  gtk_window_present (GTK_WINDOW (viewer));
}

/* Gates */

static GtkWidget *
create_prior_row (SkNode *prior)
{
  const char *text = sk_node_get_output_text (prior);
  const char * const *files = sk_node_get_output_files (prior);
  guint n_files = files != NULL ? g_strv_length ((char **) files) : 0;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *name = gtk_label_new (sk_node_get_name (prior));
  GtkWidget *output;

  gtk_widget_add_css_class (box, "sk-gate-prior");
  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_wrap (GTK_LABEL (name), TRUE);
  gtk_widget_add_css_class (name, "heading");
  gtk_box_append (GTK_BOX (box), name);

  if (text != NULL && text[0] != '\0')
    {
      output = gtk_label_new (text);
      gtk_label_set_selectable (GTK_LABEL (output), TRUE);
    }
  else
    {
      output = gtk_label_new (_("Reported nothing."));
      gtk_widget_add_css_class (output, "dim-label");
    }
  gtk_label_set_xalign (GTK_LABEL (output), 0);
  gtk_label_set_wrap (GTK_LABEL (output), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (output), PANGO_WRAP_WORD_CHAR);
  gtk_box_append (GTK_BOX (box), output);

  if (n_files > 0)
    {
      g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                             "%u file, in the list below",
                                                             "%u files, in the list below",
                                                             n_files),
                                                n_files);
      GtkWidget *label = gtk_label_new (count);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (GTK_BOX (box), label);
    }

  return box;
}

static void
sync_gate (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  gboolean waiting = node != NULL && is_waiting_gate (node);
  gboolean reversible = FALSE;
  g_autoptr(SkApproval) approval = NULL;
  GtkWidget *child;
  guint n_priors = 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->gate_priors_box))) != NULL)
    gtk_box_remove (self->gate_priors_box, child);

  if (waiting)
    {
      const char * const *priors = sk_node_get_priors (node);
      g_autofree char *text = NULL;

      for (guint i = 0; project != NULL && priors != NULL && priors[i] != NULL; i++)
        {
          SkNode *prior = sk_project_get_node (project, priors[i]);

          if (prior == NULL)
            continue;
          gtk_box_append (self->gate_priors_box, create_prior_row (prior));
          n_priors++;
        }

      /* Translators: %s is a step's name. */
      text = g_strdup_printf (_("The run stopped before “%s”. Look at what it receives and at its "
                                "code, then approve it to run it and go on, or deny it to skip it "
                                "and the steps that need it."),
                              sk_node_get_name (node));
      gtk_label_set_label (self->gate_label, text);
    }
  else
    gtk_editable_set_text (GTK_EDITABLE (self->note_entry), "");

  gtk_widget_set_visible (GTK_WIDGET (self->gate_inputs_heading), n_priors > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->gate_box), waiting);

  if (node != NULL && project != NULL && sk_node_get_approval (node))
    {
      g_autoptr(GFile) folder = sk_project_get_node_folder (project, node);
      g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;

      if (path != NULL)
        {
          approval = sk_approval_read (path, sk_node_get_key (node));
          /* A denial can be taken back while the run that stopped at the
           * gate is still what it was decided on. */
          if (approval != NULL && !approval->approved && !waiting)
            {
              g_autofree char *fingerprint = sk_approval_get_waiting (path, sk_node_get_key (node));

              reversible = g_strcmp0 (fingerprint, approval->fingerprint) == 0;
            }
        }
    }
  gtk_widget_set_visible (GTK_WIDGET (self->reverse_button), reversible);

  if (approval != NULL)
    {
      g_autofree char *description = sk_approval_describe (approval);

      if (waiting)
        {
          /* Translators: %s is a decision, as in “Approved by Ann on … .”; it
           * was made on other inputs than those the gate waits with now. */
          g_autofree char *earlier = g_strdup_printf (_("Earlier, on other inputs: %s"), description);

          gtk_label_set_label (self->decision_label, earlier);
        }
      else
        gtk_label_set_label (self->decision_label, description);
    }
  else
    gtk_label_set_label (self->decision_label, "");

  /* A gate skipped by a denial says so in its error box already. */
  gtk_widget_set_visible (GTK_WIDGET (self->decision_label),
                          approval != NULL &&
                          !(node != NULL && sk_node_get_state (node) == SK_NODE_STATE_SKIPPED &&
                            sk_node_get_error_text (node) != NULL));
}

static void
decide (SkOutputCell *self,
        gboolean      approved)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  const char *note = gtk_editable_get_text (GTK_EDITABLE (self->note_entry));
  g_autoptr(GError) error = NULL;

  if (node == NULL || project == NULL)
    return;

  if (!sk_project_decide_gate (project, node, approved, note[0] != '\0' ? note : NULL, &error))
    {
      sk_cell_emit_message (SK_CELL (self), error->message);
      return;
    }

  gtk_editable_set_text (GTK_EDITABLE (self->note_entry), "");
  sync_gate (self);

  /* The run goes on from the gate as the Run button would start it; the
   * steps before it are up to date. */
  gtk_widget_activate_action (GTK_WIDGET (self), "win.run", NULL);
}

static void
approve_clicked_cb (SkOutputCell *self)
{
  decide (self, TRUE);
}

static void
deny_clicked_cb (SkOutputCell *self)
{
  decide (self, FALSE);
}

/* A step that stands for another workflow has nothing of its own to
 * show in its folder; the way to what it runs is beside that button. */
static void
sync_subworkflow (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  gtk_widget_set_visible (self->subworkflow_button,
                          node != NULL && sk_node_get_workflow (node) != NULL);
}

static void
subworkflow_clicked_cb (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  g_assert (SK_IS_OUTPUT_CELL (self));

  if (node != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.open-subworkflow", "s", sk_node_get_id (node));
}

/* For each */

/* The line of an item's report that tells it from the others, as the
 * step's own report picks it: the first line describes the task, the same
 * for every item, so the next one; its first words are enough to tell. */
static char *
item_summary (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text != NULL ? text : "", "\n", -1);
  g_auto(GStrv) words = NULL;
  g_autoptr(GString) summary = g_string_new (NULL);
  const char *first = NULL;
  const char *line = NULL;
  guint n_words = 0;

  for (guint i = 0; lines[i] != NULL && line == NULL; i++)
    {
      if (sk_util_is_blank (lines[i]))
        continue;
      if (first != NULL)
        line = lines[i];
      else
        first = lines[i];
    }
  if (line == NULL)
    line = first;
  if (line == NULL)
    return g_strdup ("");

  words = g_strsplit_set (line, " \t\r", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      if (words[i][0] == '\0')
        continue;
      if (n_words == ITEM_LINE_WORDS ||
          g_utf8_strlen (summary->str, -1) + g_utf8_strlen (words[i], -1) >= ITEM_LINE_CHARS)
        {
          g_string_append (summary, "…");
          break;
        }
      if (n_words > 0)
        g_string_append_c (summary, ' ');
      g_string_append (summary, words[i]);
      n_words++;
    }

  return g_utf8_make_valid (summary->str, -1);
}

static const char *
describe_item_status (const char *status)
{
  /* Translators: how an item of a for-each step went, as in “Item 3 — failed”. */
  if (g_strcmp0 (status, "failed") == 0)
    return C_("item", "failed");
  if (g_strcmp0 (status, "success") == 0)
    return C_("item", "succeeded");
  if (g_strcmp0 (status, "skipped") == 0)
    return C_("item", "skipped");
  if (g_strcmp0 (status, "cancelled") == 0)
    return C_("item", "cancelled");
  return C_("item", "no report");
}

static char *
describe_item (const ItemRecord *item)
{
  g_autofree char *summary = NULL;
  const char *what;

  /* A failed item says so first: its report, if any, is not what matters. */
  if (!item_failed (item))
    summary = item_summary (sk_json_get_string (item->record, "output_text"));
  if (summary != NULL && summary[0] != '\0')
    what = summary;
  else
    what = describe_item_status (sk_json_get_string (item->record, "status"));

  /* Translators: %u counts a for-each step's items from 1, %s is the start
   * of the item's report or how it went, as in “Item 3 — failed”. */
  return g_strdup_printf (_("Item %u — %s"), item->index + 1, what);
}

static int
compare_items (gconstpointer a,
               gconstpointer b)
{
  const ItemRecord *item_a = *(ItemRecord **) a;
  const ItemRecord *item_b = *(ItemRecord **) b;

  return item_a->index < item_b->index ? -1 : item_a->index > item_b->index;
}

/* The items of the cell's for-each step with a record on disk, in order. */
static GPtrArray *
read_items (SkOutputCell *self)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (item_record_free);
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  SkNode *node = sk_cell_get_node (SK_CELL (self));
  g_autoptr(GFile) folder = NULL;
  g_autofree char *path = NULL;
  g_autofree char *items_path = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (project == NULL || node == NULL || !sk_node_get_foreach (node, NULL, NULL) ||
      is_waiting_gate (node))
    return items;

  folder = sk_project_get_node_folder (project, node);
  path = folder != NULL ? g_file_get_path (folder) : NULL;
  if (path == NULL)
    return items;

  items_path = g_build_filename (path, "items", NULL);
  dir = g_dir_open (items_path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *item_path = NULL;
      g_autofree char *canonical = NULL;
      JsonObject *record;
      ItemRecord *item;
      guint64 index;

      /* Only the runner's own names: “7”, not “07” for the same item. */
      if (!g_ascii_string_to_unsigned (name, 10, 0, G_MAXUINT - 1, &index, NULL))
        continue;
      canonical = g_strdup_printf ("%u", (guint) index);
      if (strcmp (canonical, name) != 0)
        continue;

      item_path = g_build_filename (items_path, name, NULL);
      record = sk_run_record_read (item_path, sk_node_get_key (node));
      if (record == NULL)
        continue;

      item = g_new0 (ItemRecord, 1);
      item->index = (guint) index;
      item->record = record;
      g_ptr_array_add (items, item);
    }

  g_ptr_array_sort (items, compare_items);
  return items;
}

/* Reads the step's items again, keeping the chosen one while it is still
 * there. The callers bring the report, error and files up to date. */
static void
sync_items (SkOutputCell *self)
{
  g_autoptr(GPtrArray) items = read_items (self);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;
  ItemRecord *previous = selected_item (self);
  guint previous_index = previous != NULL ? previous->index : G_MAXUINT;
  guint position = 0;

  g_strv_builder_add (builder, _("All items"));
  for (guint i = 0; i < items->len; i++)
    {
      ItemRecord *item = g_ptr_array_index (items, i);
      g_autofree char *description = describe_item (item);

      g_strv_builder_add (builder, description);
      if (item->index == previous_index)
        position = i + 1;
    }
  names = g_strv_builder_end (builder);

  self->updating_items = TRUE;
  g_ptr_array_unref (self->items);
  self->items = g_steal_pointer (&items);
  gtk_string_list_splice (self->item_names, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->item_names)),
                          (const char * const *) names);
  gtk_drop_down_set_selected (self->items_drop_down, position);
  self->updating_items = FALSE;

  gtk_widget_set_visible (GTK_WIDGET (self->items_box), self->items->len > 0);
}

static void
item_selected_cb (SkOutputCell *self)
{
  if (self->updating_items)
    return;

  sync_error (self);
  sync_output_text (self);
  sync_files_from_node (self);
  reload_preview (self);
}

static void
node_changed_cb (SkOutputCell *self)
{
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  sync_gate (self);
  sync_subworkflow (self);

  /* A step made a for-each, or an ordinary step again. */
  if (node != NULL && sk_node_get_foreach (node, NULL, NULL) != (self->items->len > 0))
    {
      sync_items (self);
      item_selected_cb (self);
    }
}

static void
node_state_cb (SkOutputCell *self)
{
  gboolean had_items = self->items->len > 0;

  sync_items (self);
  track_run (self);
  sync_elapsed (self);
  sync_state (self);
  sync_error (self);
  sync_agent (self);
  sync_output_text (self);
  sync_gate (self);
  /* A gate that starts or stops waiting shows its inputs' files, or its
   * own. */
  if (sk_node_get_approval (sk_cell_get_node (SK_CELL (self))) || had_items ||
      self->items->len > 0)
    {
      sync_files_from_node (self);
      reload_preview (self);
    }
}

static void
node_tokens_cb (SkOutputCell *self)
{
  sync_tokens (self);
}

static void
node_output_cb (SkOutputCell *self)
{
  sync_items (self);
  sync_error (self);
  sync_output_text (self);
  sync_files_from_node (self);
  reload_preview (self);
}

static void
node_error_cb (SkOutputCell *self)
{
  sync_error (self);
  sync_output_text (self);
}

static void
selected_cb (SkOutputCell *self)
{
  if (!self->updating_files)
    reload_preview (self);
}

static void
launch_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SkOutputCell) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The file could not be opened: %s"),
                                               error->message);

      sk_cell_emit_message (SK_CELL (self), text);
    }
}

static void
launch_file (SkOutputCell *self,
             GFile        *file)
{
  g_autoptr(GdkAppLaunchContext) context = NULL;
  g_autofree char *uri = g_file_get_uri (file);

  context = gdk_display_get_app_launch_context (gtk_widget_get_display (GTK_WIDGET (self)));
  g_app_info_launch_default_for_uri_async (uri, G_APP_LAUNCH_CONTEXT (context), self->cancellable,
                                           launch_done_cb, g_object_ref (self));
}

static void
open_clicked_cb (SkOutputCell *self)
{
  g_autoptr(GFile) file = NULL;
  const char *name;

  g_assert (SK_IS_OUTPUT_CELL (self));

  name = sk_output_cell_get_selected_file (self);
  if (name != NULL)
    file = resolve_file (self, name);

  if (file != NULL)
    launch_file (self, file);
}

static void
open_folder_clicked_cb (SkOutputCell *self)
{
  g_autoptr(GFile) folder = NULL;
  SkProject *project = sk_cell_get_project (SK_CELL (self));
  SkNode *node = sk_cell_get_node (SK_CELL (self));

  g_assert (SK_IS_OUTPUT_CELL (self));

  if (project == NULL || node == NULL)
    return;

  folder = sk_project_get_node_folder (project, node);
  if (folder == NULL || !g_file_query_exists (folder, NULL))
    {
      sk_cell_emit_message (SK_CELL (self),
                            _("This step has no folder yet. It is created when the step gets "
                              "code or files."));
      return;
    }

  launch_file (self, folder);
}

static void
sync_all (SkOutputCell *self)
{
  gboolean has_node = sk_cell_get_node (SK_CELL (self)) != NULL;

  gtk_stack_set_visible_child_name (self->stack, has_node ? "node" : "empty");
  gtk_widget_set_visible (GTK_WIDGET (self->open_folder_button), has_node);
  sync_subworkflow (self);
  sync_elapsed (self);
  sync_state (self);
  sync_items (self);
  sync_error (self);
  sync_agent (self);
  sync_tokens (self);
  sync_output_text (self);
  sync_gate (self);
  sync_files_from_node (self);
  reload_preview (self);
}

static void
sk_output_cell_project_changed (SkCell    *cell,
                                SkProject *old_project)
{
  SkOutputCell *self = SK_OUTPUT_CELL (cell);

  /* The items are in the step's folder, which is the project's. */
  sync_items (self);
  item_selected_cb (self);
}

static void
sk_output_cell_node_changed (SkCell *cell,
                             SkNode *old_node)
{
  SkOutputCell *self = SK_OUTPUT_CELL (cell);
  SkNode *node = sk_cell_get_node (cell);

  /* The live output was another step's, and so were the items: the new
   * step shows all of its own first. */
  sk_output_cell_clear_live_output (self);
  g_ptr_array_set_size (self->items, 0);
  self->last_state = node != NULL ? sk_node_get_state (node) : SK_NODE_STATE_IDLE;
  sync_all (self);
}

static void
sk_output_cell_dispose (GObject *object)
{
  SkOutputCell *self = (SkOutputCell *)object;

  g_cancellable_cancel (self->preview_cancellable);
  g_clear_object (&self->preview_cancellable);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->elapsed_source, g_source_remove);

  if (self->agent_log != NULL)
    g_signal_handlers_disconnect_by_data (self->agent_log, self);
  g_clear_object (&self->agent_log);

  sk_cell_dispose_template (SK_CELL (self), SK_TYPE_OUTPUT_CELL);

  g_clear_object (&self->files);
  g_clear_pointer (&self->gate_files, g_hash_table_unref);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_object (&self->item_names);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (sk_output_cell_parent_class)->dispose (object);
}

static void
sk_output_cell_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  SkOutputCell *self = SK_OUTPUT_CELL (object);

  switch (prop_id)
    {
    case PROP_PREVIEW_KIND:
      g_value_set_string (value, self->preview_kind);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_output_cell_class_init (SkOutputCellClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  SkCellClass *cell_class = SK_CELL_CLASS (klass);

  object_class->dispose = sk_output_cell_dispose;
  object_class->get_property = sk_output_cell_get_property;

  cell_class->project_changed = sk_output_cell_project_changed;
  cell_class->node_changed = sk_output_cell_node_changed;

  /* One of "none", "image", "text", "markdown", "table", "unsupported" and
   * "error". */
  properties [PROP_PREVIEW_KIND] =
    g_param_spec_string ("preview-kind", NULL, NULL, "none",
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkOutputCell::preview-loaded:
   * @self: a #SkOutputCell
   *
   * Emitted each time the preview shows the chosen file, or nothing when
   * there is no file; #SkOutputCell:preview-kind says what it shows.
   */
  signals [PREVIEW_LOADED] =
    g_signal_new ("preview-loaded",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/skelecode/SkeleCode/sk-output-cell.ui");
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, card);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, stack);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, state_box);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, state_icon_stack);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, state_image);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, state_spinner);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, state_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, open_folder_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, elapsed_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, no_output_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, output_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, report_view);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, live_box);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, live_scroller);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, live_view);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, error_box);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, error_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, explain_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, copy_error_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, details_expander);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, detail_scroller);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, detail_view);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, files_box);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, files_drop_down);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, open_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, preview_stack);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, picture_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, picture);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, text_preview);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, truncated_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, markdown_view);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, markdown_truncated_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, table_scroller);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, table_rows_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, preview_error_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, agent_box);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, agent_icon_stack);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, agent_spinner);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, agent_latest_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, agent_expander);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, agent_scroller);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, agent_list);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, tokens_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, gate_box);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, gate_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, gate_inputs_heading);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, gate_priors_box);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, note_entry);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, show_code_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, deny_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, approve_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, reverse_button);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, decision_label);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, items_box);
  gtk_widget_class_bind_template_child (widget_class, SkOutputCell, items_drop_down);
  gtk_widget_class_bind_template_callback (widget_class, approve_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, deny_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, open_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, open_folder_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, copy_error_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, picture_clicked_cb);

  gtk_widget_class_set_css_name (widget_class, "outputcell");
}

static void
sk_output_cell_init (SkOutputCell *self)
{
  GSignalGroup *node_signals = sk_cell_get_node_signals (SK_CELL (self));
  GtkAdjustment *adjustment;

  g_type_ensure (ADW_TYPE_CLAMP);
  gtk_widget_init_template (GTK_WIDGET (self));

  fit_scroller_to_content (self->detail_scroller);
  fit_scroller_to_content (self->live_scroller);
  sk_markdown_setup_view (self->report_view);
  sk_markdown_setup_view (self->markdown_view);

  /* The header is the template's, so the sub-workflow button goes in it
   * here, right after the folder button, in the order Tab reaches them.
   * It has no mnemonic: Alt+S is the window's Stop. */
  self->subworkflow_button = gtk_button_new_with_label (_("Open Sub-workflow"));
  gtk_widget_set_tooltip_text (self->subworkflow_button, _("Open the workflow this step stands for in a new window"));
  gtk_widget_set_valign (self->subworkflow_button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (self->subworkflow_button, "flat");
  gtk_widget_insert_after (self->subworkflow_button,
                           gtk_widget_get_parent (GTK_WIDGET (self->open_folder_button)),
                           GTK_WIDGET (self->open_folder_button));
  g_signal_connect_object (self->subworkflow_button, "clicked",
                           G_CALLBACK (subworkflow_clicked_cb), self, G_CONNECT_SWAPPED);

  self->live_at_end = TRUE;
  adjustment = gtk_scrolled_window_get_vadjustment (self->live_scroller);
  g_signal_connect_object (adjustment, "notify::upper",
                           G_CALLBACK (live_scroll_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adjustment, "notify::value",
                           G_CALLBACK (live_scroll_changed_cb), self, G_CONNECT_SWAPPED);

  self->agent_log_at_end = TRUE;
  adjustment = gtk_scrolled_window_get_vadjustment (self->agent_scroller);
  g_signal_connect_object (adjustment, "notify::upper",
                           G_CALLBACK (agent_scroll_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adjustment, "notify::value",
                           G_CALLBACK (agent_scroll_changed_cb), self, G_CONNECT_SWAPPED);

  self->preview_kind = preview_kind_names[PREVIEW_NONE];
  self->last_state = SK_NODE_STATE_IDLE;
  self->cancellable = g_cancellable_new ();

  self->files = gtk_string_list_new (NULL);
  self->gate_files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  gtk_drop_down_set_model (self->files_drop_down, G_LIST_MODEL (self->files));
  g_signal_connect_object (self->files_drop_down, "notify::selected",
                           G_CALLBACK (selected_cb), self, G_CONNECT_SWAPPED);

  self->items = g_ptr_array_new_with_free_func (item_record_free);
  self->item_names = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->items_drop_down, G_LIST_MODEL (self->item_names));
  g_signal_connect_object (self->items_drop_down, "notify::selected",
                           G_CALLBACK (item_selected_cb), self, G_CONNECT_SWAPPED);

  g_signal_group_connect_object (node_signals, "notify::state",
                                 G_CALLBACK (node_state_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (node_signals, "notify::output-text",
                                 G_CALLBACK (node_output_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (node_signals, "notify::output-files",
                                 G_CALLBACK (node_output_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (node_signals, "notify::error-text",
                                 G_CALLBACK (node_error_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (node_signals, "notify::error-detail",
                                 G_CALLBACK (node_error_cb), self, G_CONNECT_SWAPPED);
  /* Undo can bring back older counts without a notification of its own. */
  g_signal_group_connect_object (node_signals, "notify::tokens",
                                 G_CALLBACK (node_tokens_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (node_signals, "changed",
                                 G_CALLBACK (node_tokens_cb), self, G_CONNECT_SWAPPED);
  /* Making a step a gate, or an ordinary step again, changes only its
   * "skele" member. */
  g_signal_group_connect_object (node_signals, "changed",
                                 G_CALLBACK (node_changed_cb), self, G_CONNECT_SWAPPED);
  /* A renamed step has another folder. */
  g_signal_group_connect_object (node_signals, "notify::key",
                                 G_CALLBACK (node_output_cb), self, G_CONNECT_SWAPPED);

  sync_all (self);
}

GtkWidget *
sk_output_cell_new (void)
{
  return g_object_new (SK_TYPE_OUTPUT_CELL, NULL);
}

/**
 * sk_output_cell_get_selected_file:
 * @self: a #SkOutputCell
 *
 * Returns: (nullable): the output file chosen in the drop-down, as the node
 *   lists it
 */
const char *
sk_output_cell_get_selected_file (SkOutputCell *self)
{
  gpointer item;

  g_return_val_if_fail (SK_IS_OUTPUT_CELL (self), NULL);

  item = gtk_drop_down_get_selected_item (self->files_drop_down);
  if (item == NULL)
    return NULL;

  return gtk_string_object_get_string (item);
}

/**
 * sk_output_cell_select_file:
 * @self: a #SkOutputCell
 * @name: one of the node's output files
 *
 * Chooses @name in the drop-down and previews it.
 */
void
sk_output_cell_select_file (SkOutputCell *self,
                            const char   *name)
{
  guint n_items;

  g_return_if_fail (SK_IS_OUTPUT_CELL (self));
  g_return_if_fail (name != NULL);

  n_items = g_list_model_get_n_items (G_LIST_MODEL (self->files));
  for (guint i = 0; i < n_items; i++)
    {
      if (strcmp (gtk_string_list_get_string (self->files, i), name) == 0)
        {
          gtk_drop_down_set_selected (self->files_drop_down, i);
          return;
        }
    }
}

/**
 * sk_output_cell_get_preview_kind:
 * @self: a #SkOutputCell
 *
 * Returns: what the preview shows: "none", "image", "text", "markdown",
 *   "table", "unsupported" or "error"
 */
const char *
sk_output_cell_get_preview_kind (SkOutputCell *self)
{
  g_return_val_if_fail (SK_IS_OUTPUT_CELL (self), NULL);

  return self->preview_kind;
}

/**
 * sk_output_cell_set_agent_log:
 * @self: a #SkOutputCell
 * @log: (nullable): the lines the coding agent reported for the cell's node,
 *   oldest first, as #GtkStringObject items
 *
 * Shows @log and follows it as lines arrive: the newest line, with a spinner
 * while the node's code is being written, and all of them on request.
 */
void
sk_output_cell_set_agent_log (SkOutputCell *self,
                              GListModel   *log)
{
  g_return_if_fail (SK_IS_OUTPUT_CELL (self));
  g_return_if_fail (log == NULL || G_IS_LIST_MODEL (log));

  if (self->agent_log == log)
    return;

  if (self->agent_log != NULL)
    g_signal_handlers_disconnect_by_data (self->agent_log, self);
  g_set_object (&self->agent_log, log);
  if (log != NULL)
    g_signal_connect_object (log, "items-changed",
                             G_CALLBACK (agent_log_changed_cb), self, G_CONNECT_SWAPPED);

  self->agent_log_at_end = TRUE;
  gtk_list_box_bind_model (self->agent_list, log, create_log_row, NULL, NULL);
  sync_agent (self);
}

/**
 * sk_output_cell_describe_tokens:
 * @read: the tokens the coding agent's model read
 * @written: the tokens it wrote
 *
 * Returns: (transfer full): a phrase such as “1 234 tokens read, 567
 *   written”, with the digits grouped as the locale groups them
 */
char *
sk_output_cell_describe_tokens (guint64 read,
                                guint64 written)
{
  g_autofree char *read_digits = g_strdup_printf ("%'" G_GUINT64_FORMAT, read);
  g_autofree char *written_digits = g_strdup_printf ("%'" G_GUINT64_FORMAT, written);
  g_autofree char *read_text = NULL;
  g_autofree char *written_text = NULL;

  read_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s token read", "%s tokens read",
                                            plural_count (read)),
                               read_digits);
  /* Translators: tokens written by the model, after “%s tokens read”. */
  written_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s written", "%s written",
                                               plural_count (written)),
                                  written_digits);

  /* Translators: the tokens read and the tokens written, as in
   * “1 234 tokens read, 567 written”. */
  return g_strdup_printf (_("%s, %s"), read_text, written_text);
}

/**
 * sk_output_cell_append_live_output:
 * @self: a #SkOutputCell
 * @text: what the running step wrote on its standard output or error, in
 *   pieces as they come, which may end within a line
 *
 * Shows @text after what came before, keeping the last 200 lines. The
 * output is cleared when a new run of the cell's step starts and when the
 * cell shows another step.
 */
void
sk_output_cell_append_live_output (SkOutputCell *self,
                                   const char   *text)
{
  GtkTextBuffer *buffer;
  g_autofree char *valid = NULL;
  GtkTextIter start, end;
  int n_lines;

  g_return_if_fail (SK_IS_OUTPUT_CELL (self));
  g_return_if_fail (text != NULL);

  if (text[0] == '\0')
    return;

  buffer = gtk_text_view_get_buffer (self->live_view);
  valid = g_utf8_make_valid (text, -1);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, valid, -1);

  /* The line after the last newline is the one being written. */
  n_lines = gtk_text_buffer_get_line_count (buffer);
  if (n_lines > LIVE_MAX_LINES + 1)
    {
      gtk_text_buffer_get_start_iter (buffer, &start);
      gtk_text_buffer_get_iter_at_line (buffer, &end, n_lines - LIVE_MAX_LINES - 1);
      gtk_text_buffer_delete (buffer, &start, &end);
    }

  /* Lines of any length stay within bounds too. */
  if (gtk_text_buffer_get_char_count (buffer) > LIVE_MAX_CHARS)
    {
      gtk_text_buffer_get_start_iter (buffer, &start);
      gtk_text_buffer_get_iter_at_offset (buffer, &end,
                                          gtk_text_buffer_get_char_count (buffer) - LIVE_MAX_CHARS);
      gtk_text_buffer_delete (buffer, &start, &end);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->live_box), TRUE);
}

/**
 * sk_output_cell_clear_live_output:
 * @self: a #SkOutputCell
 *
 * Forgets and hides the running step's output.
 */
void
sk_output_cell_clear_live_output (SkOutputCell *self)
{
  g_return_if_fail (SK_IS_OUTPUT_CELL (self));

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->live_view), "", 0);
  gtk_widget_set_visible (GTK_WIDGET (self->live_box), FALSE);
  self->live_at_end = TRUE;
}
